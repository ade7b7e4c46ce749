"""A long render does not grow: memory is the pool plus a fixed overhead."""

from pathlib import Path

import imageio_ffmpeg
import pytest

from hfrender.config import RenderConfig
from hfrender.engine.render import render

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test
BAR = Path(__file__).parent / "data" / "bar.frag"


def rss_kib():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def test_ten_thousand_frames_without_memory_growth(tmp_path):
    """The resident memory's peak over the first, middle and last thousand frames. Keeping
    every 384-byte output frame would add 1.6 MiB in each half of the render; a one-time
    step (a 2 MiB huge page, one more malloc arena: 2048 KiB once in a full CI run) shows
    in one half only, and is not growth."""
    peaks = {"first": 0, "middle": 0, "last": 0}

    def progress(done, total):  # keeps three numbers, not one per frame
        if done <= 1000:
            peaks["first"] = max(peaks["first"], rss_kib())
        elif total // 2 - 500 < done <= total // 2 + 500:
            peaks["middle"] = max(peaks["middle"], rss_kib())
        elif done > total - 1000:
            peaks["last"] = max(peaks["last"], rss_kib())

    out = tmp_path / "long.mp4"
    stats = render(BAR, RenderConfig(output=str(out), size=(16, 8), samples=1, fps=1000,
                                     duration=10.0, quiet=True), progress=progress)
    assert stats.frames_written == 10_000
    assert peaks["last"] <= peaks["first"] * 1.05, peaks
    halves = peaks["middle"] - peaks["first"], peaks["last"] - peaks["middle"]
    assert min(halves) < 1024 and sum(halves) < 4096, peaks  # KiB
    reader = imageio_ffmpeg.read_frames(str(out))
    next(reader)
    assert sum(1 for _ in reader) == 10_000  # ten segments joined into one video
