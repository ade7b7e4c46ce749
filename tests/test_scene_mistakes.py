"""A newcomer's trial of scene scripts: what hfrender says of their mistakes must be what
the next step can do (a hint that the next command refuses is a mistake of ours)."""

import pytest
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.scene.loader import SceneUpdateError

RAISES = """
class Late(hf.Scene):
    duration = 1.5

    def setup(self):
        self.ball = self.add(hf.Sphere())
        self.camera.position = (0, 0, 5)

    def update(self, t):
        self.ball.position = (t - 0.75, 0, 0)
        if t > 1.2:
            raise RuntimeError("boom")
"""


def test_a_scene_error_does_not_offer_a_resume_that_mending_the_scene_refuses(
        tmp_path, monkeypatch, capsys):
    """update(t) raised after a whole segment: the line says what to do next, mend the scene
    and run the command again, which starts over (it said the segments were "kept for
    --resume" and then "render again without --resume", a reader's contradiction; and not
    "once that is mended, the same command with --resume goes on": mending the scene
    changes it, and --resume refuses a changed scene)."""
    monkeypatch.chdir(tmp_path)
    scene = write_scene(tmp_path, RAISES)
    line = 1 + [i for i, t in enumerate(scene.read_text().splitlines()) if "boom" in t][0]
    args = ["render", "scene.py", "-o", "late.mp4", "--size", "64x36", "--samples", "2"]
    assert main(args) == 1  # 30 fps: frame 36's second sub-frame at 1.2 + 1/240 s
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in update(t) at t=1.20417 s (output frame 36): "
        f"RuntimeError: boom (scene.py:{line}); the 30 frames finished so far are in "
        "late.partial.mp4 (late.mp4 is not written); mend the scene, then run the same "
        "command again: it starts over (--resume goes on from frame 30 only while the "
        "scene's files are unchanged)\n")
    assert main([*args, "--resume"]) == 1  # unchanged: it goes on, and raises again
    capsys.readouterr()
    scene.write_text(scene.read_text().replace('raise RuntimeError("boom")', "pass"))
    assert main([*args, "--resume"]) == 2  # what the message says: refused, changed
    assert "the scene file changed" in capsys.readouterr().err
    assert main(args) == 0 and (tmp_path / "late.mp4").exists()


def test_a_scene_error_in_a_sequence_or_a_call_says_the_next_step_too(tmp_path, monkeypatch,
                                                                     capsys):
    """An image sequence's line said nothing of what next; hf.render's says it in its
    keywords (the same call, resume=True), from the first frame of its range."""
    monkeypatch.chdir(tmp_path)
    scene = write_scene(tmp_path, RAISES)
    line = 1 + [i for i, t in enumerate(scene.read_text().splitlines()) if "boom" in t][0]
    assert main(["render", "scene.py", "-o", "f/%02d.png", "--size", "32x18", "--samples",
                 "2", "--frames", "30:"]) == 1
    assert capsys.readouterr().err == (
        "hfrender: error: scene error in update(t) at t=1.20417 s (output frame 36): "
        f"RuntimeError: boom (scene.py:{line}); the 6 frames finished so far are in "
        "'f/##.png.partial/%02d.png' (f/%02d.png is untouched); mend the scene, then run "
        "the same command again: it starts over (--resume goes on from frame 36 only while "
        "the scene's files are unchanged)\n")
    with pytest.raises(SceneUpdateError) as raised:
        hf.render(str(scene), "late.mp4", size=(32, 18), samples=2, frames="6:")
    assert str(raised.value).endswith(
        "the 30 frames finished so far are in late.partial.mp4 (late.mp4 is not written); "
        "mend the scene, then make the same call again: it starts over (resume=True goes on "
        "from frame 36 only while the scene's files are unchanged)"), str(raised.value)


@pytest.mark.parametrize("line, said", [
    ("hf.Sphere(2)", "hf.Sphere(2, ...): the first argument is the position, (x, y, z); a "
     "radius is given by its keyword: hf.Sphere(radius=2)"),
    ("hf.Cube(0.5, 'red')", "hf.Cube(0.5, ...): the first argument is the position, (x, y, "
     "z); a scale is given by its keyword: hf.Cube(scale=0.5)"),
    ("hf.Plane('blue')", "hf.Plane('blue', ...): the first argument is the position, (x, y, "
     "z); a color is given by its keyword: hf.Plane(color='blue')"),
])
def test_a_size_or_colour_without_its_keyword_is_told_by_the_keyword_meant(tmp_path, capsys,
                                                                           line, said):
    """hf.Sphere(2) meant a radius: it was "Sphere.position=2 must be 3 finite numbers", a
    name the script never wrote; now the keyword it wants, at the scene's line, exit 2."""
    scene = write_scene(tmp_path, f"""
    class Positional(hf.Scene):
        def setup(self):
            self.add({line})
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "p.mp4"), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"scene error in setup(): InputTypeError: {said} ({scene}:7)" in err, err
    assert hf.Sphere((0, 1, 0)).position == (0.0, 1.0, 0.0)  # a position alone still is one


RANDOM = """
import random

class Shaky(hf.Scene):
    duration = 0.5

    def setup(self):
        self.ball = self.add(hf.Sphere(radius=0.3))
        self.camera.position = (0, 0, 5)

    def update(self, t):
        self.ball.position = (random.uniform(-0.1, 0.1), 0, 0)
"""


def test_an_impure_update_is_told_once_not_again_as_a_jump(tmp_path, caplog):
    """random.uniform in update(t): its warning says why; the motion hint measured the
    random steps as a speed and added "something jumps while the shutter is open (23 times
    the picture's width at once): a cut?", of a ball that moves 9 px (a newcomer's trial)."""
    scene = write_scene(tmp_path, RANDOM)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "64x36",
                     "-q"]) == 0
    said = [r.getMessage() for r in caplog.records]
    assert any("update(t) is not a pure function of t" in m for m in said), said
    assert not any("jumps" in m or "sub-frames show as copies" in m for m in said), said


def test_a_camera_setting_set_on_the_scene_is_warned_of(tmp_path, caplog):
    """f_stop = 1.4 in a scene's class body, self.focal_length_mm = 85 in setup(): the
    scene's own names, read by nothing (no depth of field, no word); now a warning each,
    once, naming self.camera's."""
    scene = write_scene(tmp_path, """
    class OnTheScene(hf.Scene):
        duration = 0.1
        f_stop = 1.4

        def setup(self):
            self.add(hf.Sphere())
            self.focal_length_mm = 85

        def update(self, t):
            self.focal_length_mm = 85 + t
    """)
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "c.mp4"), "--size", "64x36",
                     "-q"]) == 0
    said = [r.getMessage() for r in caplog.records if "camera setting" in r.getMessage()]
    assert said == ["OnTheScene.f_stop = 1.4: a camera setting is not read from the scene; "
                    "set self.camera.f_stop in setup() (or in update(t))",
                    "OnTheScene.focal_length_mm = 85.0: a camera setting is not read from the "
                    "scene; set self.camera.focal_length_mm in setup() (or in update(t))"], said


def test_a_scenes_own_copy_of_a_camera_setting_that_it_gives_the_camera_is_no_mistake(
        caplog):
    """A class constant the scene gives its camera, a property that sets the camera's:
    both were warned of as "not read from the scene" (a review), set when they were set,
    before anything reached the camera; now a value the camera does not have is."""
    from hfrender.scene.ready import first_look, set_up

    class Constants(hf.Scene):
        duration = 1.0
        focal_length_mm = 85  # the shot's lens, up top

        def setup(self):
            self.add(hf.Sphere())
            self.camera.focal_length_mm = self.focal_length_mm

        def update(self, t):
            self.f_stop = 2.8 + t
            self.camera.f_stop = self.f_stop

    class Forwards(hf.Scene):
        duration = 1.0

        @property
        def f_stop(self):
            return self.camera.f_stop

        @f_stop.setter
        def f_stop(self, value):
            self.camera.f_stop = value

        def setup(self):
            self.add(hf.Sphere())
            self.f_stop = 2.8

    with caplog.at_level("WARNING"):
        for cls in (Constants, Forwards):
            scene = cls()
            set_up(scene, None)
            first_look(scene, 0, 24.0)
    assert scene.camera.f_stop == 2.8
    assert not [r for r in caplog.records if "camera setting" in r.getMessage()], \
        [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("value, refused", [("3.0", True), ("self.duration", False)])
def test_a_duration_set_in_update_is_refused_at_its_line(tmp_path, capsys, value, refused):
    """The frames are counted before drawing: update's self.duration = 3.0 was ignored
    without a word (a 1 s render); one setting the value it has changes nothing."""
    scene = write_scene(tmp_path, f"""
    class Longer(hf.Scene):
        duration = 1.0

        def setup(self):
            self.add(hf.Sphere())

        def update(self, t):
            self.duration = {value}
    """)
    code = main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                 "--samples", "2", "-t", "0.5"])
    err = capsys.readouterr().err
    if not refused:
        assert code == 0 and "duration" not in err, err
        return
    assert code == 2 and err.count("\n") == 1, err
    assert err == ("hfrender: error: scene error in update(t) at t=0.5 s (output frame 15): "
                   "InputError: Longer.duration=3.0 set in update(t): the frames were counted "
                   "from the duration before drawing (1 s), so it would do nothing; set "
                   "duration in the class body (duration = ...), or give --duration "
                   f"({scene}:12)\n"), err


def test_a_duration_set_in_update_is_no_mistake_where_duration_is_given(tmp_path, capsys):
    """--duration stands over the scene's own, set in setup() (ready.set_up) or update(t)
    alike: the render is as long as given (was: refused, "... or give --duration", where
    --duration 2 was given)."""
    scene = write_scene(tmp_path, """
    class Longer(hf.Scene):
        duration = 1.0

        def setup(self):
            self.add(hf.Sphere())

        def update(self, t):
            self.duration = 1.0
    """)
    code = main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                 "--samples", "2", "-t", "1.5", "--duration", "2"])
    err = capsys.readouterr().err
    assert code == 0 and "duration" not in err, err


@pytest.mark.parametrize("line,said", [  # (add(): bad input, exit 2; the others 1)
    ("self.add([self.ball, hf.Cube()])", "InputTypeError: add() takes objects, not a list of "
                                        "them: unpack it, self.add(*objects)"),
    ("self.remove(self.ball)", "AttributeError: Manim has no attribute 'remove'; objects stay "
                               "once added: hide one from a time in update(t), obj.visible = "
                               "t < t1"),
    ("self.play(self.ball)", "AttributeError: Manim has no attribute 'play'; there are no "
                             "animations to play: update(t) sets every object from t alone, "
                             "over the scene's duration (hfrender docs rendering scenes)"),
    ("self.wait(1)", "AttributeError: Manim has no attribute 'wait'; there is nothing to wait "
                     "for: update(t) sets every object from t alone, over the scene's "
                     "duration (hfrender docs rendering scenes)"),
])
def test_a_manim_scene_call_says_what_is_done_instead(tmp_path, capsys, line, said):
    """A manim user's trial: self.add(list) said "got list", self.remove(...) Python's bare
    "'Manim' object has no attribute 'remove'"; each now says what hfrender does instead."""
    scene = write_scene(tmp_path, f"""
    class Manim(hf.Scene):
        def setup(self):
            self.ball = self.add(hf.Sphere())
            {line}
    """)
    code = main(["still", str(scene), "-t", "0", "--size", "32x18", "-o", str(tmp_path / "s.png")])
    assert code == (2 if said.startswith("InputTypeError") else 1)
    err = capsys.readouterr().err.strip()
    assert err == f"hfrender: error: scene error in setup(): {said} ({scene}:8)", err
    assert not (tmp_path / "s.png").exists()
    assert getattr(hf.Scene(), "construct", None) is None  # other names: Python's own error
