"""--hdr auto and what is said of it: the choice by output and scene (what is past white,
a lamp lit later, t = 0 for a still or a range), its reasons in the summaries, the samples
auto gives light past white, lens copies warned of sooner, bad values in one line."""

import subprocess
import sys

import numpy as np
import pytest
from hdr_helpers import (
    BOKEH,
    SIZE,
    _scene,
)
from render_helpers import render_frames

from hfrender.config import ConfigError, RenderConfig
from hfrender.scene import Plane, Scene, past_white


def test_auto_chooses_by_output_and_scene_and_says_why(tmp_path):
    grey = _scene(tmp_path, 0.2, name="grey").read_text().replace(
        "(1, 1, 1)", "(0.5, 0.5, 0.5)").replace("(0, 0, 0)", "(0.2, 0.6, 1.0)")
    (tmp_path / "grey.py").write_text(grey)
    frames, stats = render_frames(tmp_path / "grey.py", size=SIZE, samples=2)
    assert not stats.hdr  # 0.21 x 1.2 stays below white: 8-bit sub-frames
    assert frames.dtype == np.uint8
    # in float, nothing past white: the same picture (the background decoded to linear too)
    floats, stats = render_frames(tmp_path / "grey.py", size=SIZE, samples=2, hdr="on")
    assert stats.hdr and stats.hdr_why == "--hdr on"
    assert np.abs(floats.astype(int) - frames.astype(int)).max() <= 1
    assert tuple(frames[0, 0, 0]) == (51, 153, 255)  # the background's own codes
    _, stats = render_frames(_scene(tmp_path, 0.2), size=SIZE, samples=2)
    assert stats.hdr
    assert stats.hdr_why == "self.lamp (a Plane) with emissive 0.2 reaches 1.2x white"
    _, stats = render_frames(_scene(tmp_path, 7.0), size=SIZE, samples=2, hdr="off")
    assert not stats.hdr and stats.hdr_why == "--hdr off"


def test_past_white_reads_each_visible_objects_colour_and_emissive():
    class Bare(Scene):
        pass

    scene = Bare()
    scene.add(Plane(color=(1, 1, 1)))  # white, but no light of its own
    scene.add(Plane(color=(1, 0, 0), emissive=9, visible=False))
    assert past_white(scene) is None
    scene.add(Plane(color=(0.5, 0.5, 0.5), emissive=3.0))  # linear 0.214 x 4 = 0.86
    assert past_white(scene) is None
    scene.objects[1].visible = True
    assert past_white(scene) == "the Plane at (0, 0, 0) with emissive 9 reaches 10x white"


def test_a_lamp_lit_later_is_told_once(tmp_path, caplog):
    later = "self.lamp.emissive = 0.0 if t < 0.1 else 5.0"
    scene = _scene(tmp_path, 0.0, later=later)
    _, stats = render_frames(scene, size=SIZE, samples=2)
    assert not stats.hdr
    said = [r.getMessage() for r in caplog.records if "past white" in r.getMessage()
            or "passes white" in r.getMessage() or "reaches" in r.getMessage()]
    assert len(said) == 1, said
    assert "with emissive 5 reaches 6x white" in said[0] and "s self.lamp (a Plane) with" in said[0]
    assert "--hdr on" in said[0]
    caplog.clear()
    _, stats = render_frames(scene, size=SIZE, samples=2, hdr="off")
    assert not [r for r in caplog.records if "reaches" in r.getMessage()]


def test_bad_hdr_values_get_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"hdr='yes' must be one of auto, on, off"):
        RenderConfig(output="x.mp4", hdr="yes")
    bad = subprocess.run([sys.executable, "-m", "hfrender", "render", "x.py", "--hdr", "1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "--hdr: invalid choice: '1' (choose from 'auto', 'on', 'off')" in bad.stderr


def test_the_summaries_say_hdr_and_why(tmp_path, capsys):
    from hfrender.cli import main

    lamp = _scene(tmp_path, 7.0)
    assert main(["render", str(lamp), "-o", str(tmp_path / "l.mp4"), "--size", "64x36",
                 "--samples", "2"]) == 0
    said = capsys.readouterr().out
    assert "dof off, hdr (self.lamp (a Plane) with emissive 7 reaches 8x white); " in said
    assert main(["still", str(lamp), "-o", str(tmp_path / "l.png"), "--size", "64x36",
                 "--hdr", "on"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'l.png'}: frame 0 "
                                              "(t=0.000 s), 8 samples over 180 degrees, dof "
                                              "off, hdr\n")
    assert main(["still", str(lamp), "-o", str(tmp_path / "m.png"), "--size", "64x36",
                 "--hdr", "off"]) == 0
    assert capsys.readouterr().out.endswith("m.png: frame 0 (t=0.000 s), 8 samples over 180 "
                                                    "degrees, dof off\n")


def test_a_still_and_a_range_choose_as_the_whole_render_does(tmp_path):
    """--hdr auto looks at the animation's start (t = 0) whatever frames are drawn: a lamp
    lit at t = 0.1 leaves the whole render 8-bit (and warns), so a still or a range of its
    later frames is 8-bit too, the very pixels of the whole render's frames."""
    later = "self.lamp.emissive = 0.0 if t < 0.1 else 5.0"
    scene = _scene(tmp_path, 0.0, later=later)
    whole, stats = render_frames(scene, size=SIZE, samples=2)
    assert not stats.hdr and stats.hdr_why == "nothing in the scene passes white"
    part, stats = render_frames(scene, first_frame=4, count=2, size=SIZE, samples=2)
    assert not stats.hdr
    np.testing.assert_array_equal(part, whole[4:6])
    lit = _scene(tmp_path, 5.0, name="lit")  # lit from the start: float for any range
    _, stats = render_frames(lit, first_frame=4, count=1, size=SIZE, samples=2)
    assert stats.hdr and stats.hdr_why.startswith("self.lamp (a Plane) with emissive 5")


def test_lens_copies_of_a_light_past_white_are_warned_of_sooner(tmp_path, caplog):
    """8-bit copies of a lamp fade into one another; float ones stay brighter than white
    each, so the hint speaks up at a quarter of the spacing and names --dof depth."""
    import re

    blurred = tmp_path / "blurred.py"
    blurred.write_text(BOKEH.format(focus=0.5))
    # the thin lens: 85 mm f/1.4 focused at 0.5 m, the lamp 4 m away; 36 mm over 192 px
    coc = (85 / 1.4) * (3.5 / 4) * (85 / (500 - 85)) / 36 * 192  # 58.0 px
    with caplog.at_level("WARNING", logger="hfrender.engine.adaptive"):
        render_frames(blurred, size=(192, 108), samples=64, dof="lens", duration=0.05)
    said = [r.getMessage() for r in caplog.records if r.name == "hfrender.engine.adaptive"]
    assert len(said) == 1, said
    got = re.fullmatch(r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\): a "
                       r"light brighter than white shows each of the 64 lens positions as a "
                       r"copy about (\d+) px apart \(each copy still brighter than white\); "
                       r"--dof depth blurs it into a disc in one pass, or --samples (\d+)",
                       said[0])
    assert got, said[0]
    blur, apart, want = (int(v) for v in got.groups())
    assert abs(blur - coc) <= 1.5 and abs(apart - coc / 8) <= 1
    assert abs(want - (coc / 2) ** 2) <= 0.06 * (coc / 2) ** 2  # copies 2 px apart at most
    caplog.clear()  # 8-bit copies 7 px apart fade into one another: no word
    with caplog.at_level("WARNING", logger="hfrender.engine.adaptive"):
        render_frames(blurred, size=(192, 108), samples=64, dof="lens", duration=0.05,
                      hdr="off")
    assert not [r for r in caplog.records if r.name == "hfrender.engine.adaptive"]


def test_samples_auto_gives_a_light_past_white_four_times_the_lens_positions(tmp_path):
    blurred = tmp_path / "blurred.py"
    blurred.write_text(BOKEH.format(focus=0.5))  # a disc about 29 px across at 96x54
    counts = {}
    for hdr in ("on", "off"):
        _, stats = render_frames(blurred, size=SIZE, samples="auto", samples_range=(1, 4096),
                                 dof="lens", duration=0.05, hdr=hdr)
        counts[hdr] = stats.subframes / stats.frames_written
    # (CoC / 4 px)^2 lens positions for 8-bit copies, (CoC / 2 px)^2 for float ones
    assert 40 <= counts["off"] <= 70 and counts["on"] == pytest.approx(4 * counts["off"],
                                                                      rel=0.05)


def test_samples_auto_counts_by_what_auto_decided(tmp_path):
    """A lamp lit after t = 0 leaves --hdr auto at 8-bit sub-frames: --samples auto then
    counts lens positions as for 8-bit copies (4x for float ones it does not draw was 3x
    the cost for the same picture)."""
    late = BOKEH.format(focus=0.5).replace("emissive=49))", "emissive=49))\n"
                                           "    def update(self, t):\n"
                                           "        self.objects[0].emissive = 0 if t < 0.02"
                                           " else 49")
    (tmp_path / "late.py").write_text(late)
    counts = {}
    for hdr in ("auto", "off"):
        _, stats = render_frames(tmp_path / "late.py", size=SIZE, samples="auto",
                                 samples_range=(1, 4096), dof="lens", duration=0.1, hdr=hdr)
        assert not stats.hdr
        counts[hdr] = stats.subframes
    assert counts["auto"] == counts["off"] > 0


def test_auto_looks_at_t_0_and_leaves_the_scene_at_the_frame(tmp_path):
    """The look at t = 0 puts the scene back at the frame drawn; a scene whose update
    cannot run at t = 0 (it divides by t) still renders a later range, deciding there."""
    from hfrender.engine.deep_output import resolve_hdr
    from hfrender.scene.loader import load_scene

    scene = load_scene(_scene(tmp_path, 7.0))
    scene.setup()
    scene.update(5 / 30)
    assert resolve_hdr("auto", "x.mp4", scene, 5, 30.0)[0]
    assert scene.lamp.position == pytest.approx((-0.6 + 4 * 5 / 30, 0, 0))  # frame 5's
    divides = _scene(tmp_path, 7.0, name="divides",
                     later="self.lamp.scale = 0.3 + 0.0 * (1 / t); self.lamp.emissive = 30 * t")
    frames, stats = render_frames(divides, first_frame=3, count=2, size=SIZE, samples=2)
    assert stats.hdr and stats.hdr_why.startswith("self.lamp (a Plane) with emissive 3 ")  # t=0.1
    assert frames.max() == 255
