"""The benchmark scripts' references: what they compare hfrender with is what it does."""

import argparse
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np

from hfrender.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def test_fx_vs_ffmpeg_rgb_reference_reads_the_clip_as_fx_does(tmp_path, rng):
    """fx_vs_ffmpeg.py's RGB blend reference said "blends (PNG) 86" (12 codes at every
    frame after the 8th): fx converts YUV with exact chroma (EXACT_SWS) since 2026-12-05,
    the reference with swscale's defaults. A noisy 4:2:0 clip: the two now agree."""
    from fx_vs_ffmpeg import rgb_blend_command

    frames = rng.integers(0, 256, (12, 36, 64, 3), dtype=np.uint8)
    raw, clip = tmp_path / "in.raw", tmp_path / "in.mp4"
    frames.tofile(raw)
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "64x36", "-r", "30", "-i",
                    str(raw), "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p",
                    "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc",
                    "bt709", str(clip)], check=True)
    (tmp_path / "hf").mkdir()
    (tmp_path / "ff").mkdir()
    assert main(["fx", str(clip), "-o", str(tmp_path / "hf" / "%05d.png"), "--motion-blur",
                 "4", "--gamma-space", "--quiet"]) == 0
    subprocess.run(rgb_blend_command(clip, tmp_path / "ff" / "%05d.png", 4), check=True)
    ours = np.stack([iio.imread(p) for p in sorted((tmp_path / "hf").iterdir())])
    theirs = np.stack([iio.imread(p) for p in sorted((tmp_path / "ff").iterdir())])
    assert ours.shape == theirs.shape == (12, 36, 64, 3)
    assert np.abs(ours.astype(int) - theirs).max() <= 1


def test_render_costs_says_in_one_line_to_install_matplotlib(monkeypatch, capsys):
    """benchmarks/render_costs.py draws docs/images/render_costs.png with matplotlib, an
    optional extra: without it, one line saying what to install, before any render."""
    import render_costs

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    monkeypatch.setattr(render_costs, "measure", lambda args: 1 / 0)  # (not reached)
    assert render_costs.main([]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "render_costs.py draws with matplotlib: pip install 'hfrender[plot]'"]


def test_render_costs_runs_each_setting_once():
    """The samples sweep at one size, then the other sizes at 8 samples (the sweep's own
    8-sample case not run twice)."""
    import render_costs

    args = argparse.Namespace(
        scenes=["a.py"], samples=[4, 8], size="320x180", sizes=["320x180", "640x360"])
    assert render_costs.cases(args) == [("a.py", "320x180", 4), ("a.py", "320x180", 8),
                                        ("a.py", "640x360", 8)]
