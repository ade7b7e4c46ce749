"""A manim user's first scenes: angles given in degrees where hfrender reads radians (a cube
at rotation=(0, 45, 0) was drawn turned by 45 radians, 2578 degrees, without a word)."""

from test_render import write_scene

from hfrender.cli import main

STILL = ["--size", "64x36", "--samples", "2", "-o", "still.png"]

DEGREES = """
class Turned(hf.Scene):
    duration = 2.0

    def setup(self):
        self.box = self.add(hf.Cube(rotation=(0, 45, 0)))
"""

DEGREES_A_SECOND = """
class Spin(hf.Scene):
    duration = 2.0

    def setup(self):
        self.row = hf.Group(hf.Cube(), hf.Sphere())
        self.add(self.row)

    def update(self, t):
        self.row.rotation = (0, 90 * t, 0)
"""

RADIANS = """
class Fine(hf.Scene):
    duration = 4.0

    def setup(self):
        self.box = self.add(hf.Cube(rotation=(math.pi / 4, 0, 0)))
        self.top = self.add(hf.Cone(rotation=(0, 0, 30.5)))

    def update(self, t):
        self.box.rotation = (math.pi / 4, 2 * math.pi * t, 0)   # a turn a second: 25 rad
"""


def _still(tmp_path, monkeypatch, caplog, body, t="0"):
    monkeypatch.chdir(tmp_path)
    write_scene(tmp_path, body)
    with caplog.at_level("WARNING"):
        assert main(["still", "scene.py", "-t", t, *STILL]) == 0
    return [r.getMessage() for r in caplog.records if "radians" in r.getMessage()]


def test_a_rotation_in_degrees_is_told_once(tmp_path, monkeypatch, caplog):
    assert _still(tmp_path, monkeypatch, caplog, DEGREES) == [
        "scene.py: self.box (a Cube) has rotation=(0.0, 45.0, 0.0) at "
        "t=0 s: angles are radians here (45 rad is 7.16 turns); if 45 degrees were meant, "
        "math.radians(45) (manim's 45 * DEGREES)"]


def test_a_turn_in_degrees_a_second_is_told_at_t_1_whatever_the_frame(tmp_path, monkeypatch,
                                                                     caplog):
    """update(t) at 90 * t: frame 0 reads 0, so the look at t = 1 s tells it (a group's)."""
    assert _still(tmp_path, monkeypatch, caplog, DEGREES_A_SECOND) == [
        "scene.py: self.row (a Group) has rotation=(0.0, 90.0, 0.0) at "
        "t=1 s: angles are radians here (90 rad is 14.3 turns); if 90 degrees were meant, "
        "math.radians(90) (manim's 90 * DEGREES)"]


def test_radians_and_odd_large_angles_are_not_told(tmp_path, monkeypatch, caplog):
    assert _still(tmp_path, monkeypatch, caplog, RADIANS, t="1") == []


PROPELLER = """
class Prop(hf.Scene):
    duration = 2.0

    def setup(self):
        self.blade = self.add(hf.Cube(scale=(1, 0.1, 0.1)))
        self.wheel = self.add(hf.Cylinder(radius=0.1))

    def update(self, t):
        self.blade.rotation = (0, 0, 30 * t)  # radians a second: a propeller's 4.8 turns
        self.wheel.rotation = (0, 0, -3.0 * t / 0.1)  # a wheel of 0.1 m rolling at 3 m/s
"""


def test_a_radian_propellers_rate_is_not_told(tmp_path, monkeypatch, caplog):
    """At t = 1 s an angle is a rate's: 30 and 15 rad/s are a radian user's speeds (were told
    'if 30 degrees were meant', a review), at a still of t = 0 (where the look at 1 s runs)."""
    assert _still(tmp_path, monkeypatch, caplog, PROPELLER) == []
    assert _still(tmp_path, monkeypatch, caplog, PROPELLER.replace("30 * t", "15 * t")) == []
    for t in ("1", "0.5"):  # a still past 0: its angles may be rates' too (were told, r6)
        assert _still(tmp_path, monkeypatch, caplog, PROPELLER, t=t) == [], t
