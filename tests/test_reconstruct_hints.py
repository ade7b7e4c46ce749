"""What a render with reconstruction or --samples auto warns of: too few lens positions for
the blur, copies of a lamp or of fast motion, never a range past its limit at a cut; the
motion hint draws only times the render draws."""

import re
import textwrap

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf


def _post_scene(tmp_path):
    """A foreground post 0.7 m away at f/1.4, focused on a wall at 2 m."""
    scene = tmp_path / "post.py"
    scene.write_text(textwrap.dedent("""
        import hfrender as hf

        class Post(hf.Scene):
            duration = 0.1

            def setup(self):
                self.add(hf.Cube(position=(0, 0, -0.7), scale=(0.05, 1, 0.05)))
                self.add(hf.Plane(position=(0, 0, -2), rotation=(1.5708, 0, 0), scale=4))
                self.camera.position = (0, 0, 0)
                self.camera.look_at((0, 0, -1))
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 2.0
    """))
    return scene


@pytest.mark.parametrize("args, told", [([], True), (["--samples", "64"], False),
                                        (["--dof", "depth"], False)])
def test_too_few_lens_positions_for_the_blur_are_said(tmp_path, caplog, args, told):
    """A foreground post 0.7 m away at f/1.4, focused at 2 m: a 30 px blur drawn from 8 lens
    positions showed as 8 copies of it, with "dof lens" alone said. A fixed count that
    spreads them more than 8 px apart is now said, with what blurs it smoothly."""
    from hfrender.cli import main

    scene = _post_scene(tmp_path)
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    if not told:
        assert said == []
        return
    lens = hf.Camera(f_stop=1.4, focus_distance=2.0).lens(None, aspect=16 / 9)
    coc = float(lens.coc_px(np.array([0.675]), 640)[0])  # the post's face, the nearest thing
    caplog.clear()  # one sample: the aperture's centre, no depth of field (was "1 lens
    with caplog.at_level("WARNING"):  # positions show as copies", drawn off the centre)
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args, "--samples", "1"]) == 0
    one = [r.getMessage() for r in caplog.records if "one lens position" in r.getMessage()]
    assert len(one) == 1 and re.fullmatch(
        r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\), but one sample "
        r"is one lens position, its centre: no depth of field; --samples (\d+), or --dof "
        r"depth \(from one sample\)", one[0]), one
    assert abs(int(re.search(r"up to (\d+)", one[0]).group(1)) - coc) <= 1
    assert len(said) == 1, said
    m = re.fullmatch(r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\): 8 "
                     r"lens positions show as copies about (\d+) px apart; --samples auto "
                     r"\(about (\d+) here\) or --dof depth blur it smoothly", said[0])
    assert m, said[0]
    assert abs(int(m.group(1)) - coc) <= 1 and abs(int(m.group(2)) - coc / 8 ** 0.5) <= 1
    assert abs(int(m.group(3)) - (coc / 4) ** 2) <= 0.1 * (coc / 4) ** 2  # 4 px apart


def test_a_post_nearer_is_told_auto_s_range_then_dof_depth_alone(tmp_path, caplog):
    """The post above nearer: past what auto draws by default, its range is named; nearer
    still, more than any count: --dof depth alone."""
    from hfrender.cli import main

    scene, args = _post_scene(tmp_path), []  # (as the parametrized test's first case)
    scene.write_text(scene.read_text().replace("position=(0, 0, -0.7)", "position=(0, 0, -0.3)"))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    assert len(said) == 1 and re.search(r"; --samples auto --samples-range 4:(\d+) "
                                        r"\(the range now stops at 64\) or --dof depth",
                                        said[0]), said
    caplog.clear()  # nearer still: more than any count, --dof depth alone
    scene.write_text(scene.read_text().replace("position=(0, 0, -0.3)", "position=(0, 0, -0.12)"))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    assert len(said) == 1 and re.search(r"; --dof depth blurs it smoothly \(about (\d+) lens "
                                        r"positions would\)$", said[0]), said
    assert int(re.search(r"about (\d+) lens positions would", said[0]).group(1)) > 4096


@pytest.mark.usefixtures("gl_context")
def test_a_cut_under_samples_auto_is_not_told_to_raise_the_range_past_its_limit(tmp_path,
                                                                               caplog):
    """A box jumping at a frame's time (a cut) made the probe see a speed of millions of
    pixels a second: "raise the cap (--samples-range 4:296297)", a range refused (4096 at
    most)."""
    path = tmp_path / "cut.py"
    path.write_text(textwrap.dedent("""
        import hfrender as hf

        class Cut(hf.Scene):
            duration = 0.2

            def setup(self):
                self.box = self.add(hf.Cube())

            def update(self, t):
                self.box.position = (0, 0, 0) if t < 0.1 else (1.5, 0, 0)
    """))
    with caplog.at_level("WARNING"):
        render_frames(path, size=(64, 36), samples="auto")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].endswith(
        "for its motion, so they may show steps; more than any count (4096): a cut between "
        "two sub-frames (nothing to mend: its frame draws the most) or an object faster than "
        "they can follow"), said


@pytest.mark.usefixtures("gl_context")
def test_the_copies_of_a_lamp_a_few_pixels_across_are_warned_of(tmp_path, caplog):
    """The lens hint looks at the frame's depth at the render's size (was: at a quarter of
    it, where a lamp 3 px across was no pixel, and its 8 copies went unsaid)."""
    from hfrender.cli import main

    scene = tmp_path / "lamp.py"
    scene.write_text(textwrap.dedent("""
        import hfrender as hf

        class Lamp(hf.Scene):
            duration = 0.1
            background = (0, 0, 0)

            def setup(self):
                self.add(hf.Sphere(position=(0, 0, -0.5), radius=0.0018))
                self.camera.position = (0, 0, 0)
                self.camera.look_at((0, 0, -1))
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 2.0
    """))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "320x180",
                     "--samples", "8"]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    lens = hf.Camera(f_stop=1.4, focus_distance=2.0).lens(None, aspect=16 / 9)
    coc = float(lens.coc_px(np.array([0.4982]), 320)[0])  # the lamp's near face
    assert len(said) == 1 and re.match(rf"frame 0 blurs up to {round(coc)} px", said[0]), said


FAST = textwrap.dedent("""
    import hfrender as hf

    class Fast(hf.Scene):
        duration = 0.2

        def setup(self):
            self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))
            self.camera.position = (0, 0, 5)
            self.camera.look_at((0, 0, 0))

        def update(self, t):
            self.bar.position = (SPEED * (t - 0.1), 0, 0)
""")  # a bar moving across the view at SPEED m/s, in mid-frame at t = 0.1


def _copies_told(tmp_path, caplog, source, speed, *args):
    """A still at t = 0.1 of ``source`` at ``speed``: the lines saying sub-frames show as
    copies (every warning stays in caplog)."""
    from hfrender.cli import main

    scene = tmp_path / "fast.py"
    scene.write_text(source.replace("SPEED", f"{speed:.1f}"))
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "-t", "0.1",
                     "--size", "640x360", *args]) == 0
    return [r.getMessage() for r in caplog.records if "sub-frames show" in r.getMessage()]


@pytest.mark.usefixtures("gl_context")
def test_a_render_of_fast_motion_with_few_samples_says_its_copies(tmp_path, caplog):
    """A trial's propeller strobed as 8 copies 19 px apart without a word, where lens depth
    of field's copies were said: a fixed count whose sub-frames lie more than 8 px apart at
    the frame's fastest pixels says so, with what blurs it (not with --samples auto, nor
    where reconstruction fills gaps that size, nor for slow motion)."""
    def told(speed, *args):
        return _copies_told(tmp_path, caplog, FAST, speed, *args)

    # 640 px over 5 m * 36 / 50 = 3.6 m at the bar: 177.8 px/m; 30 m/s over 1/60 s: 88.9 px
    said = told(30.0)
    assert len(said) == 1, said
    m = re.fullmatch(r"frame 3 moves up to (\d+) px while the shutter is open: its 8 "
                     r"sub-frames show as copies about (\d+) px apart; --samples auto "
                     r"--samples-range 4:(\d+) \(the range now stops at 64\) or --reconstruct "
                     r"on blur it smoothly", said[0])  # (past auto's range: a review)
    assert m, said[0]
    moved = int(m.group(1))
    assert abs(moved - 88.9) <= 5 and abs(int(m.group(2)) - moved / 8) <= 1
    assert abs(int(m.group(3)) - moved) <= 2  # a sub-frame a pixel apart
    assert told(30.0, "--samples", "auto") == []
    assert told(30.0, "--reconstruct", "on") == []  # 11 px: reconstruction fills it
    assert told(6.0) == []  # 18 px over 8 sub-frames: 2 px apart


@pytest.mark.usefixtures("gl_context")
def test_a_jump_mid_shutter_is_told_as_a_cut_not_as_copies(tmp_path, caplog):
    """The bar above jumping at frame 3's time instead of moving."""
    # a jump at frame 3's time (mid-shutter): a cut, not motion to reconstruct (a trial's
    # "moves up to 166667 px ... --reconstruct on blurs it smoothly")
    source = FAST.replace("SPEED * (t - 0.1)", "(-1 if t < 0.1 else 1) * SPEED / 30")
    assert _copies_told(tmp_path, caplog, source, 30.0) == []
    jumps = [r.getMessage() for r in caplog.records if "jumps" in r.getMessage()]
    assert len(jumps) == 1 and re.fullmatch(
        r"frame 3: something jumps while the shutter is open \((\d+) times the picture's "
        r"width at once\): a cut\? it shows as copies from both sides of it; a cut falls "
        r"between two frames' shutters at a frame's time k / fps with --shutter-position "
        r"start, at \(k \+ 1/2\) / fps with the centred shutter \(of at most 360 degrees\)",
        jumps[0]), jumps
    # the cut at the shutter's opening: unsaid
    _copies_told(tmp_path, caplog, source, 30.0, "--shutter-position", "start")
    assert not [r for r in caplog.records if "jumps" in r.getMessage()]


@pytest.mark.usefixtures("gl_context")
def test_the_motion_hint_draws_only_times_the_render_draws(tmp_path, caplog):
    """A review's: a scene undefined before t = 0 rendered with --shutter-position start
    (as the README advises) failed in the hint, which drew the shutter's very opening and
    a step before it; the hint never fails a render."""
    import textwrap

    from hfrender.cli import main

    scene = tmp_path / "root.py"
    scene.write_text(textwrap.dedent("""
        import math
        import hfrender as hf

        class Root(hf.Scene):
            duration = 0.2

            def setup(self):
                self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))

            def update(self, t):
                self.bar.position = (20 * math.sqrt(t), 0, -5)
    """))
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "64x36",
                     "--samples", "4", "--shutter-position", "start", "--quiet"]) == 0
    assert (tmp_path / "r.mp4").exists()
