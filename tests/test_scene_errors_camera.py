"""A scene's camera mistakes told at the line that made them: a camera looking at its own
position, a focus within the focal length or set late, a range upside down."""

import re

import pytest
from test_render import write_scene

from hfrender.cli import main


def test_a_camera_that_looks_at_its_own_position_names_both_and_the_look_at_line(tmp_path,
                                                                                   capsys):
    """The camera starts at (0, 0, 5): looking at that point before moving it looks nowhere,
    found only when the frame is drawn; the message gives the values and the call's line."""
    from hfrender.cli import main

    scene = write_scene(tmp_path, """
    class Aim(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.look_at((0, 0, 5))
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "a.mp4"), "--size", "32x18",
                 "--duration", "0.1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"camera: position \(0\.0, 0\.0, 5\.0\) and look_at target "
                     r"\(0\.0, 0\.0, 5\.0\) coincide: it looks nowhere \(set the position "
                     r"before looking at a point away from it; look_at was called at "
                     r"scene\.py:8\)$", err.strip()), err


@pytest.mark.parametrize("focal, focus, said", [
    ("", "0.03", r"camera.focus_distance=0.03 must be a distance in metres greater than the "
     r"focal length \(0.05 m, a 50 mm lens\), or inf \(\S*scene\.py:9\)$"),
    ("self.camera.focal_length_mm = 200", "0.15",  # the focus first, then a longer lens
     r"camera.focus_distance=0.15 must be a distance in metres greater than the focal length "
     r"\(0.2 m, a 200 mm lens\), or inf \(\S*scene\.py:9\)$"),
])
def test_a_focus_within_the_focal_length_names_the_line_that_set_it(tmp_path, capsys, focal,
                                                                    focus, said):
    """A distance > 0 within the focal length is refused only when the lens is made (before
    the first frame): the message names the camera's value and the scene's line."""
    scene = write_scene(tmp_path, f"""
    class Near(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.f_stop = 2.8
            self.camera.focus_distance = {focus}
            {focal or "pass"}
    """)
    out = tmp_path / "n.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--duration", "0.1",
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    # the file named once, by its line (was: "{scene}: camera... ({scene}:9)")
    assert err.startswith("hfrender: error: camera.focus_distance=") and \
        re.search(said, err), err
    assert not out.exists()


def test_a_camera_made_with_a_bad_focus_names_the_line_that_made_it(tmp_path, capsys):
    """``hf.Camera(focus_distance=0.03, ...)``: its values are set by the dataclass's own
    ``__init__`` (a frame of no file), so the line told is the scene's that called it."""
    scene = write_scene(tmp_path, """
    class Near(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera = hf.Camera(f_stop=2.8,
                                    focus_distance=0.03)
    """)
    assert main(["render", str(scene), "-o", str(tmp_path / "n.mp4"), "--size", "32x18",
                 "--duration", "0.1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert re.search(r"camera\.focus_distance=0\.03 must be a distance in metres greater "
                     r"than the focal length .* or inf \(\S*scene\.py:[89]\)$", err), err


def test_an_f_stop_set_in_update_gives_depth_of_field(tmp_path, capsys):
    """--dof auto looked at the camera after setup() alone: an f_stop set in update(t)
    turned depth of field off without a word ("dof off")."""
    scene = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Sphere())
            self.camera.focus_distance = 5.0

        def update(self, t):
            self.camera.f_stop = 2.0
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "l.png"), "--size", "32x18",
                 "--samples", "2"]) == 0
    assert capsys.readouterr().out == (
        f"wrote {tmp_path / 'l.png'}: frame 0 (t=0.000 s), 2 samples over 180 degrees, dof lens\n")


def test_a_camera_range_upside_down_names_the_line_that_made_it(tmp_path, capsys):
    """``near = 10; far = 1`` was told without a line, as ``10.0`` where 10 was written."""
    scene = write_scene(tmp_path, """
    class Range(hf.Scene):
        def setup(self):
            self.add(hf.Cube())
            self.camera.near = 10
            self.camera.far = 1
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "r.png"), "--size", "32x18"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: camera.near=10 must be less than camera.far=1: what is drawn lies "
        f"between them ({scene}:9)\n")
    assert not (tmp_path / "r.png").exists()


def test_a_focus_set_late_and_never_set_back_is_said_by_a_range_and_the_whole(tmp_path,
                                                                              caplog):
    """An f-stop set only past t = 1 (never set back): the whole render had no depth of
    field and a range of later frames had it, 59 codes apart, without a word (a trial).
    Both now say the update is not a pure function of t, and their frames agree."""
    scene = write_scene(tmp_path, """
    class LateFocus(hf.Scene):
        duration = 2.0

        def setup(self):
            self.add(hf.Sphere(radius=0.3, position=(-0.5, 0, 2)))
            self.add(hf.Cube(position=(0.5, 0, -4)))
            self.camera.position = (0, 0, 5)

        def update(self, t):
            if t > 1.0:
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 3.0
    """)
    told = {}
    for name, extra in (("whole", []), ("range", ["--frames", "6:8"])):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["render", str(scene), "-o", str(tmp_path / name / "%02d.png"),
                         "--size", "64x36", "--fps", "4", "--samples", "4", "--quiet",
                         *extra]) == 0
        told[name] = [r.getMessage() for r in caplog.records if "pure function" in
                      r.getMessage()]
    assert [len(t) for t in told.values()] == [1, 1]
    assert told["range"][0].startswith("scene.py: update(t) is not a pure function of t: "
                                       "camera.f_stop at t=0 s was None, and 1.4 when "
                                       "t=1.5 s was drawn in between;")
    assert told["whole"][0].startswith("scene.py: update(t) is not a pure function of t: "
                                       "camera.f_stop at t=0 s was None, and 1.4 when "
                                       "t=1.75 s was drawn in between;")  # its last frame
