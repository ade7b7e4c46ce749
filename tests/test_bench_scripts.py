"""The benchmark scripts' references: what they compare hfrender with is what it does."""

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
