"""A scene's update(t) that returns a value (manim's habit, ``return self.play(...)``, or an
object it made): hfrender uses nothing update returns, and that was passed over without a
word. One warning names update's file:line and the value's type, once a render (its first
look at the scene), not once a frame."""

import logging

import pytest
from test_render import write_scene

from hfrender.cli import main

SCENE = """
class Bounce(hf.Scene):
    duration = 0.25

    def setup(self):
        self.ball = self.add(hf.Sphere())

    def update(self, t):
        self.ball.position = (math.sin(t), 0, 0)
        {back}
"""


def returned(caplog):
    return [r.getMessage() for r in caplog.records if "update(t) returned" in r.getMessage()]


def update_line(path):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1)
                if "def update" in line)


@pytest.mark.parametrize("back, kind", [
    ("return self.ball", "a Sphere"), ("return 7", "an int"), ("return [self.ball]", "a list"),
    ("return self", "a Bounce"), ("return 0", "an int")])  # (a falsy value too)
def test_a_value_update_returns_is_said_once_a_render(tmp_path, caplog, back, kind):
    scene = write_scene(tmp_path, SCENE.format(back=back))
    with caplog.at_level(logging.WARNING):
        assert main(["render", str(scene), "-o", str(tmp_path / "out" / "%03d.png"), "--size",
                     "32x18", "--samples", "3", "--fps", "24", "--quiet"]) == 0
    assert len(list((tmp_path / "out").iterdir())) == 6  # 6 frames, 18 sub-frames drawn
    assert returned(caplog) == [
        f"scene.py:{update_line(scene)}: update(t) returned {kind}; its return value is not "
        "used: set the objects' properties from t"]


def test_a_still_says_it_too(tmp_path, caplog):
    scene = write_scene(tmp_path, SCENE.format(back="return self.ball"))
    with caplog.at_level(logging.WARNING):
        assert main(["still", str(scene), "-f", "2", "-o", str(tmp_path / "s.png"), "--size",
                     "32x18", "--samples", "2", "--quiet"]) == 0
    assert returned(caplog) == [f"scene.py:{update_line(scene)}: update(t) returned a Sphere; "
                                "its return value is not used: set the objects' properties "
                                "from t"]


@pytest.mark.parametrize("back", ["return", "return None", "pass"])
def test_an_update_returning_nothing_is_not_said(tmp_path, caplog, back):
    scene = write_scene(tmp_path, SCENE.format(back=back))
    with caplog.at_level(logging.WARNING):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "2", "--quiet"]) == 0
    assert returned(caplog) == []


def test_an_impure_update_returning_a_value_is_said_both_ways(tmp_path, caplog):
    """Its first look finds it impure and stops there: what it returned is said all the
    same (once)."""
    body = SCENE.format(back="self.step = getattr(self, 'step', 0) + 1\n"
                             "        self.ball.radius = self.step\n        return 1.5")
    scene = write_scene(tmp_path, body)
    with caplog.at_level(logging.WARNING):
        assert main(["still", str(scene), "-f", "2", "-o", str(tmp_path / "s.png"), "--size",
                     "32x18", "--samples", "2", "--quiet"]) == 0
    assert returned(caplog) == [f"scene.py:{update_line(scene)}: update(t) returned a float; "
                                "its return value is not used: set the objects' properties "
                                "from t"]
    assert any("not a pure function of t" in r.getMessage() for r in caplog.records)
