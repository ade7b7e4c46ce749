"""What the batch tests share: a jobs file of two renders and an fx job (``make_folder``,
the ``folder`` fixture), and the summary a batch writes."""

import json
import subprocess
from pathlib import Path

import imageio_ffmpeg
import pytest

from hfrender.cli import main

BAR = Path(__file__).parent / "data" / "bar.frag"


JOBS = """
[defaults]
fps = 24
size = "32x8"
samples = 2

[[job]]
name = "bar"
scene = "bar.frag"
output = "out/bar.mp4"
duration = 0.5

[[job]]
name = "smooth"
input = "clip.mp4"
output = "out/smooth.mp4"
motion-blur = 4

[[job]]
name = "frames"
scene = "bar.frag"
output = "out/png/%03d.png"
duration = 0.25
shutter_curve = "triangle"
"""


@pytest.fixture(name="folder")
def folder_fixture(tmp_path):
    return make_folder(tmp_path)


def make_folder(tmp_path):
    """A jobs file of two renders and an fx job, with the scene and the clip they use."""
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=32x16:rate=30", "-frames:v", "12",
                    "-pix_fmt", "yuv420p", str(tmp_path / "clip.mp4")], check=True)
    (tmp_path / "jobs.toml").write_text(JOBS)
    return tmp_path


def summary(folder, *extra):
    out = folder / "summary.json"
    code = main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet", *extra])
    return code, {r["name"]: r for r in json.loads(out.read_text())}
