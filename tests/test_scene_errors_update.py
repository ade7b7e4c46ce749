"""A scene's update(t) and setup() as hfrender calls them: a pure function of t (random
numbers, state kept), set up apart in each chunk, errors at a t told with why that t."""

import re
import time
from textwrap import dedent

import pytest
from test_render import write_scene

from hfrender.cli import main


@pytest.mark.parametrize("update, said", [
    ("self.ball.position = (random.uniform(-1, 1), 0, 0)", "ball.position"),
    ("self.step += 1; self.camera.focus_distance = 2 + self.step", "camera.focus_distance"),
    ("self.ball.position = (math.sin(t), 0, 0)", None),  # pure: no word
    ("self.ball.color = (random.Random(round(t * 960)).random(), 0, 0)", None),  # seeded by t
    # set past a time and never set back: a still of a later frame saw it from t = 0 on
    # (with --dof auto a range had depth of field where the whole render had none, a trial)
    ("if t > 0.05: self.camera.focus_distance = 5.0", "camera.focus_distance"),
])
def test_an_update_that_is_not_a_pure_function_of_t_is_said(tmp_path, caplog, update, said):
    """A scene drawing random numbers, or keeping state, in update(t) gave different
    pictures from run to run and between a still and the video's frame, without a word."""
    scene = write_scene(tmp_path, f"""
    import random

    class Jitter(hf.Scene):
        duration = 0.2
        step = 0

        def setup(self):
            self.ball = self.add(hf.Sphere())
            self.camera.f_stop = 2.0

        def update(self, t):
            {update}
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-f", "3", "-o", str(tmp_path / "j.png"), "--size",
                     "32x18", "--samples", "2", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "pure function" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1 and told[0].startswith(
            f"scene.py: update(t) is not a pure function of t: {said} at t=0 s was ")
        assert told[0].endswith("when t=0.1 s was drawn in between; sub-frames, stills "
                                "and --resume draw any t in any order, so their pictures will "
                                "not agree: set every property from t alone (seed random "
                                "numbers from t)")


SETUP_APART = ("setup() gives another scene each time it runs: {} was {}, and {} in a second "
               "setup(); each chunk of a render (a process of its own; on Ray, a machine's), "
               "a still and --resume run setup() afresh, so their frames will not agree (a "
               "jump where chunks meet): seed the random numbers drawn there "
               "(random.Random(1), np.random.default_rng(1))")


@pytest.mark.parametrize("top, setup, update, said", [
    # drawn unseeded in setup(), used by update(t): every chunk's balls stood elsewhere
    ("", "self.offsets = [random.random() for _ in range(3)]",
     "self.ball.position = (self.offsets[0] + t, 0, 0)", "self.offsets"),
    ("", "self.ball.position = tuple(np.random.default_rng().random(3))", "pass",
     "ball.position"),  # (no value of the scene's own: what is drawn)
    ("", "self.rng = random.Random(1); self.offsets = [self.rng.random()]",  # seeded: no word
     "self.ball.position = (self.offsets[0] + t, 0, 0)", None),
    ("RNG = np.random.default_rng(1)\nrandom.seed(2)",  # seeded as the module is imported
     "self.offsets = RNG.random(3); self.x = random.random()",  # (as every process does)
     "self.ball.position = (self.offsets[0] + self.x, 0, 0)", None),
    ("", "self.unused = random.random()", "pass", None),  # not drawn: no word
    ("", "self.offsets = [random.random()]",  # update's own randomness: said once, of update
     "self.ball.position = (random.random(), 0, 0)", None),
])
def test_random_numbers_drawn_unseeded_in_setup_are_said(tmp_path, caplog, capsys, top, setup,
                                                         update, said):
    """Each chunk of a render, a still and --resume run setup() afresh: random numbers it
    drew unseeded gave each chunk another scene (a jump where chunks meet), without a word.
    The scene is now set up a second time, its prints kept quiet, and compared."""
    scene = write_scene(tmp_path, "import random\nimport numpy as np\n" + top + dedent(f"""

    class Scatter(hf.Scene):
        duration = 0.2

        def setup(self):
            print("setting up")
            self.ball = self.add(hf.Sphere(radius=0.2))
            {setup}

        def update(self, t):
            {update}
    """))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    assert capsys.readouterr().out == "setting up\n"  # (once: the second set-up is quiet)
    told = [r.getMessage() for r in caplog.records if "setup() gives" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1, told
        assert re.fullmatch(re.escape(f"scene.py: {SETUP_APART}").replace(
            re.escape("{}"), "(.+)"), told[0]).groups()[0] == said, told[0]


def test_a_slow_setup_is_not_set_up_again_but_reading_a_model_is_not_slow(tmp_path, caplog,
                                                                          monkeypatch):
    """The second setup() costs a start as long as the first's: past SLOW_SETUP_S it is
    left out; the time reading model files does not count (read once a process, the second
    setup() finds them read)."""
    import trimesh

    from hfrender.scene import meshes, ready

    trimesh.creation.box().export(tmp_path / "box.glb")
    read = meshes.read_model

    def slow_read(*args):
        time.sleep(0.3)
        return read(*args)

    monkeypatch.setattr(meshes, "read_model", slow_read)
    monkeypatch.setattr(ready, "SLOW_SETUP_S", 0.25)
    told = {}
    for slow in ("time.sleep(0.3)", "self.add(hf.Mesh.load('box.glb'))"):
        scene = write_scene(tmp_path, f"""
        import random
        import time

        class Scatter(hf.Scene):
            duration = 0.2

            def setup(self):
                {slow}
                self.ball = self.add(hf.Sphere(position=(random.random(), 0, 0)))
        """, name=f"scene{len(told)}.py")
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size",
                         "32x18", "--samples", "1", "--quiet"]) == 0
        told[slow[:4]] = [r.getMessage().split(" was ")[0] for r in caplog.records
                          if "setup() gives" in r.getMessage()]
    assert told == {"time": [], "self": ["scene1.py: " + SETUP_APART.split(" was ")[0].format(
        "ball.position")]}


@pytest.mark.parametrize("t, said", [
    ("t", "; t is before 0: the first frame's shutter opens before t = 0 (clamp t in update, "
          "t = max(0, min(t, duration)), or give --shutter-position start)"),
    ("0.2 - t", "; t is past the duration (0.2 s): the last frame's shutter closes after it "
                "(clamp t in update, t = max(0, min(t, duration)), or give "
                "--shutter-position end); the 5 frames finished so far are in "),
    ("t - 0.05", ""),  # inside the duration: no word of it
])
def test_an_error_at_a_t_outside_the_duration_says_why_that_t(tmp_path, capsys, t, said):
    """math.sqrt(t) failed at t=-0.00416667 for a still asked at t=0, with nothing said of
    why update saw that t."""
    scene = write_scene(tmp_path, f"""
    class Root(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())

        def update(self, t):
            self.ball.position = (math.sqrt({t}), 0, 0)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "32x18",
                 "--samples", "8", "--shutter", "1080", "--quiet"]) == 1  # +-1.5 frames
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: scene error in update(t) at t=")
    assert f"ValueError: math domain error ({scene}:12){said}" in err, err
    assert said or err.endswith(f"({scene}:12)\n")


@pytest.mark.parametrize("points, said", [
    ("BASE * (1 + 0.5 * math.sin(t))", None),  # a fresh array each update, from t: pure
    ("BASE * random.random()", "cloud.points")])
def test_a_large_array_set_from_t_is_pure_and_one_drawn_at_random_is_not(tmp_path, caplog,
                                                                         points, said):
    """An object's large array (5000 points) computed afresh by update(t) was compared by
    its id: a pure scene was told impure, with "('array', 140318374927824, ...)"."""
    scene = write_scene(tmp_path, f"""
    import random
    from dataclasses import dataclass, field

    import numpy as np

    BASE = np.linspace(0, 1, 15000).reshape(5000, 3)

    @dataclass
    class Cloud(hf.Sphere):
        points: np.ndarray = field(default_factory=lambda: BASE)

    class Points(hf.Scene):
        duration = 0.2

        def setup(self):
            self.cloud = self.add(Cloud())

        def update(self, t):
            self.cloud.points = {points}
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "pure function" in r.getMessage()]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1 and f": {said} at t=0 s was an array (5000, 3) of digest " in \
            told[0] and "id" not in told[0].split("digest")[0], told


def test_an_error_at_the_neighbouring_time_of_the_first_look_names_its_frame(tmp_path,
                                                                             capsys):
    """The first look's update at the next frame's time failed as "output frame 0". It
    no longer fails a still of frame 0, which draws no such time (a later trial: the video
    renders that frame); a render of frame 1 fails there, naming it."""
    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 0.2

        def update(self, t):
            if t > 0.02:
                raise RuntimeError("late")
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "l.png"), "--size", "32x18"]) == 0
    capsys.readouterr()
    assert main(["render", str(scene), "-o", str(tmp_path / "l/%02d.png"), "--size", "32x18",
                 "--frames", "0:2"]) == 1
    assert "scene error in update(t) at t=0.0" in capsys.readouterr().err


def test_duration_given_is_the_scenes_own_and_its_hints(tmp_path, capsys):
    """--duration 0.4 over a class's 0.2: the scene's own ``self.duration`` stayed 0.2, and
    an error at t = 0.3 was said to be past the duration with a clamp to 0.2 (a trial)."""
    scene = write_scene(tmp_path, """
    class Long(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere())
            print("setup sees", self.duration)

        def update(self, t):
            if t > 0.3:
                raise RuntimeError(f"t={t:.3f} of {self.duration}")
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "32x18",
                 "--samples", "2", "--duration", "0.4", "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert "setup sees 0.4\n" in out
    assert "RuntimeError: t=0.30" in err and " of 0.4 (" in err, err
    assert "past the duration" not in err
    assert main(["render", str(scene), "-o", str(tmp_path / "s.mp4"), "--size", "32x18",
                 "--samples", "8", "--duration", "0.3", "--shutter", "1080", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "; t is past the duration (0.3 s): the last frame's shutter closes after it" in err


@pytest.mark.parametrize("args", [["still", "-f", "29"], ["render", "--frames", "29:"]])
def test_a_frame_the_video_renders_renders_alone(tmp_path, capsys, args):
    """update(t) refusing t >= 1 (the duration): the video rendered every frame, but a
    still of frame 29, or --frames 29:, failed in the pure-function check's look at the
    next frame's time, t = 1 s, which no frame draws (a trial)."""
    scene = tmp_path / "upto.py"
    scene.write_text("import hfrender as hf\n\nclass UpTo(hf.Scene):\n    duration = 1.0\n\n"
                     "    def setup(self):\n        self.ball = self.add(hf.Sphere())\n\n"
                     "    def update(self, t):\n        assert 0 <= t < 1.0, t\n"
                     "        self.ball.position = (t, 0, 0)\n")
    out = tmp_path / ("s.png" if args[0] == "still" else "r/%02d.png")
    assert main([args[0], str(scene), *args[1:], "-o", str(out), "--size", "32x18",
                 "--samples", "2", "--shutter-position", "start", "--quiet"]) == 0


def test_an_impure_update_is_told_where_the_next_frames_time_fails(tmp_path, caplog):
    """The pure-function check skipped its look where update(t) failed at the next
    frame's time, hiding an impure scene (a review): it now looks at the frame before."""
    scene = tmp_path / "impure.py"
    scene.write_text("import hfrender as hf\n\nclass Impure(hf.Scene):\n    duration = 1.0\n\n"
                     "    def setup(self):\n        self.n = 0\n"
                     "        self.ball = self.add(hf.Sphere())\n\n"
                     "    def update(self, t):\n        if t >= 0.5:\n"
                     "            raise RuntimeError('late')\n        self.n += 1\n"
                     "        self.ball.position = (self.n * 0.01, 0, 0)\n")
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-f", "14", "-o", str(tmp_path / "s.png"),
                     "--size", "32x18", "--samples", "1", "--shutter-position", "start",
                     "--quiet"]) == 0
    assert any("update(t) is not a pure function of t" in r.getMessage()
               for r in caplog.records)


def test_the_look_at_the_far_end_leaves_the_scene_drawn_as_it_was(tmp_path, caplog):
    """The far look ran update(end) on the scene drawn: a colour set past t = 0.8 and never
    set back was then every frame's, frame 0 too (a review); it looks at a copy now."""
    import imageio.v3 as iio

    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 1.0
        background = (0, 0, 0)
        ambient = 1.0

        def setup(self):
            self.card = self.add(hf.Plane(scale=8, color=(0.5, 0.5, 0.5)))
            self.camera.position = (0, 0, 3)

        def update(self, t):
            if t > 0.8:
                self.card.color = (1.0, 0.0, 0.0)
    """)
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "f" / "%02d.png"), "--size",
                     "16x8", "--fps", "10", "--samples", "1", "--quiet"]) == 0
    assert any("card.color at t=0 s was (0.5, 0.5, 0.5), and (1.0, 0.0, 0.0) when t=0.9 s"
               in r.getMessage() for r in caplog.records)
    first, last = (iio.imread(tmp_path / "f" / f"{k:02d}.png")[4, 8] for k in (0, 9))
    assert first.tolist() == [128, 128, 128] and last.tolist() == [255, 0, 0]  # display
    # colours as given (ambient 1): 0.5 is code 128; frame 0 as the author meant it
