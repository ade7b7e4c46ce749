"""The second, quiet setup() of a scene's file (:func:`hfrender.scene.ready.first_look`,
which compares it with the first): nothing it says reaches the user a second time."""

import pytest
from test_render import write_scene

from hfrender.cli import main


def test_the_second_setup_says_nothing_on_stderr_nor_in_the_log(tmp_path, capsys, caplog,
                                                                 recwarn):
    """The second setup() kept its prints to stdout quiet, but what it wrote on stderr, the
    warnings it gave and what it logged were said twice (a trial: each line of a scene's
    setup() on stderr, once before this session, twice)."""
    scene = write_scene(tmp_path, """
    import logging
    import sys
    import warnings

    class Noisy(hf.Scene):
        duration = 0.2

        def setup(self):
            print("SETUP on stderr", file=sys.stderr)
            warnings.warn("SETUP warned")
            logging.getLogger("noisy").warning("SETUP logged")
            self.ball = self.add(hf.Sphere(radius=0.2))
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("SETUP on stderr") == 1, err
    assert [str(w.message) for w in recwarn if "SETUP" in str(w.message)] == ["SETUP warned"]
    assert [r.getMessage() for r in caplog.records if "SETUP" in r.getMessage()] == [
        "SETUP logged"]


@pytest.mark.parametrize("setup, said", [
    # a time kept by setup(), never drawn, was named for the random position drawn (a trial:
    # "self.started was 1796578538.75, and 1796578538.77 in a second setup()")
    ("self.started = time.time()\n"
     "            self.ball.position = (random.random(), 0, 0)", "ball.position"),
    # the camera was named whole, its repr cut ("self.camera was Camera(position=(0.33...")
    ("self.camera.position = (random.random(), 1, 6)", "camera.position"),
    # a value of the scene's own that update(t) draws from stays the one named
    ("self.started = time.time()\n"
     "            self.offset = random.random()", "self.offset"),
])
def test_the_value_named_is_one_that_makes_the_scenes_differ(tmp_path, caplog, setup, said):
    """The warning of a second setup() that draws otherwise names the scene's own value
    that makes the difference (one that, given to the second scene, draws the first's),
    else what is drawn: not a value that differs but is not drawn from."""
    scene = write_scene(tmp_path, f"""
    import random
    import time

    class Scatter(hf.Scene):
        duration = 0.2

        def setup(self):
            self.ball = self.add(hf.Sphere(radius=0.2))
            self.offset = 0.0
            {setup}

        def update(self, t):
            if self.offset:  # (else: where setup() put it)
                self.ball.position = (self.offset, 0, 0)
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "setup() gives" in r.getMessage()]
    assert len(told) == 1, told
    assert told[0].startswith(f"scene.py: setup() gives another scene each time it runs: "
                              f"{said} was "), told[0]


@pytest.mark.parametrize("chunk", [False, True])
def test_a_ray_chunk_sets_its_scene_up_once(tmp_path, chunk):
    """A Ray chunk's job (told to stop by its gate: ``stop`` given) sets the scene up once:
    its driver set it up twice and said what differs where it is seen (was: each chunk ran
    setup() twice, up to 2 s more a chunk, its warning in a worker's log, a review)."""
    from hfrender.config import RenderConfig
    from hfrender.engine.render import RenderJob

    count = tmp_path / "setups.txt"
    scene = write_scene(tmp_path, f"""
    class Counted(hf.Scene):
        duration = 0.2

        def setup(self):
            with open({str(count)!r}, "a") as out:
                out.write("x")
            self.ball = self.add(hf.Sphere(radius=0.2))
    """)
    stats = RenderJob(scene, RenderConfig(output=str(tmp_path / "o.mp4"), size=(32, 18),
                                          samples=1, quiet=True),
                      stop=(lambda: None) if chunk else None).prepare().run()
    assert stats.frames_written == 6 and count.read_text() == ("x" if chunk else "xx")


def test_the_second_scenes_update_says_nothing_either(tmp_path, capsys):
    """The scene set up again is drawn (update(t)) to compare, and once more for each of
    its own values tried as the cause: what its update(t) printed reached the user, up to
    nine times, though its setup() was kept quiet (a review)."""
    count = tmp_path / "setups.txt"
    scene = write_scene(tmp_path, f"""
    import random
    import time

    class Scatter(hf.Scene):
        duration = 0.2

        def setup(self):
            with open({str(count)!r}, "a") as out:
                out.write("x")
            self.which = len(open({str(count)!r}).read())
            self.started = time.time()
            self.offset = random.random()
            self.ball = self.add(hf.Sphere(radius=0.2))

        def update(self, t):
            print(f"UPDATE of setup {{self.which}}")
            self.ball.position = (self.offset, 0, 0)
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                 "--samples", "1", "--quiet"]) == 0
    out = capsys.readouterr()
    assert count.read_text() == "xx"
    assert "UPDATE of setup 1" in out.out
    assert "UPDATE of setup 2" not in out.out + out.err


def test_an_update_failing_partway_at_a_neighbour_frame_is_no_second_setup(tmp_path, caplog):
    """update(t) at frame 1's time set the ball, then raised: the look at the neighbour left
    the scene half updated, and the second setup(), drawn at frame 0, was said to give
    another scene (a trial: 'setup() gives another scene each time it runs: title.position
    was (-3.99, 0.2, 0.0), and (-4.0, 0.2, 0.0) ... seed the random numbers drawn there',
    before the render's own error; here the still of frame 0 draws t = 0 alone)."""
    scene = write_scene(tmp_path, """
    class Partway(hf.Scene):
        duration = 1.0

        def setup(self):
            self.ball = self.add(hf.Sphere(radius=0.2))

        def update(self, t):
            self.ball.position = (t, 0, 0)
            self.ball.opacity = 1 / (1 - 30 * t)  # (0..1 at t = 0 alone)
    """)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-f", "0", "-o", str(tmp_path / "s.png"), "--size",
                     "32x18", "--samples", "1", "--quiet"]) == 0
    assert (tmp_path / "s.png").is_file()
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []
