"""A phone's rotated clip through fx: upright once."""

import re
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from hfrender.cli import main

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H = 64, 32


def make_clip(path, *options, source=f"testsrc2=s={W}x{H}:r=25:d=0.4", inputs=()):
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    source, "-f", "lavfi", "-i", "sine=d=0.4", *inputs, "-pix_fmt", "yuv420p",
                    "-c:a", "aac", *options, str(path)], check=True)


def frame0(path) -> np.ndarray:
    """The first frame of ``path`` as a player shows it (ffmpeg turns it by its display
    matrix), RGB."""
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(path)], capture_output=True,
                          text=True).stderr
    w, h = map(int, re.search(r"Video: .*?, (\d+)x(\d+)", said).groups())
    if re.search(r"rotation of -?90", said):
        w, h = h, w
    raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).astype(int)


@pytest.mark.parametrize("name, gamma", [("out.mp4", False), ("out.mkv", True),
                                         ("out.mov", False)])
def test_a_rotated_phone_clip_comes_out_upright_once(tmp_path, name, gamma):
    """A phone clip shot upright is stored on its side with a display matrix (rotation
    90): fx reads it turned upright, as players show it, and writes it upright with no
    matrix of its own, so it is not turned a second time (nor the stored planes passed
    on their side with ``--gamma-space``)."""
    flat = tmp_path / "flat.mov"
    make_clip(flat, source=f"testsrc=s={W}x{H}:r=25:d=0.4")  # not symmetric: digits
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-display_rotation",
                    "90", "-i", str(flat), "-c", "copy", str(clip)], check=True)
    upright = frame0(clip)
    assert upright.shape == (W, H, 3)  # on its side as stored, upright as shown
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet", "--crf",
                 "0", *(["--gamma-space"] if gamma else [])]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                          text=True).stderr
    assert "Display Matrix" not in said and not re.search(r"rotate\s+:", said), said
    shown = frame0(out)
    assert shown.shape == upright.shape
    # 8.7 codes on average (chroma at the test card's sharp colour edges, converted to RGB
    # by two scalers); turned the other way (rot180) 191, mirrored 211 and (left to right,
    # the card's bars near symmetric) 51-54
    assert np.abs(shown - upright).mean() < 15
    for wrong in (np.rot90(upright, 2), upright[::-1], upright[:, ::-1]):
        assert np.abs(shown - wrong).mean() > 40
