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
    peaks = {"first": 0, "last": 0}

    def progress(done, total):  # keeps two numbers, not one per frame
        if done <= 1000:
            peaks["first"] = max(peaks["first"], rss_kib())
        elif done > total - 1000:
            peaks["last"] = max(peaks["last"], rss_kib())

    out = tmp_path / "long.mp4"
    stats = render(BAR, RenderConfig(output=str(out), size=(16, 8), samples=1, fps=1000,
                                     duration=10.0, quiet=True), progress=progress)
    assert stats.frames_written == 10_000
    assert peaks["last"] <= peaks["first"] * 1.05, peaks
    # and in absolute terms: keeping every 384-byte output frame would add 3.8 MB
    assert peaks["last"] - peaks["first"] < 2048, peaks
    reader = imageio_ffmpeg.read_frames(str(out))
    next(reader)
    assert sum(1 for _ in reader) == 10_000  # ten segments joined into one video
