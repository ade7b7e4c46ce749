"""A batch killed (``kill -9``) in a job's first segment, then run again: the job is made
whole anew, and said so."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from render_helpers import decode_video as decode

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")
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
duration = 2
"""

# the batch, killed as its writer takes the first segment's 5th frame (SIGKILL: nothing of
# the run's own ends, its work folder and the segment begun left as they were)
KILLED = """
import os, signal, sys
import hfrender.io.segments as seg
real = seg.SegmentedWriter.write
def write(self, frame):
    if self.frames_written == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    real(self, frame)
seg.SegmentedWriter.write = write
from hfrender.cli import main
sys.exit(main(["batch", sys.argv[1], "--quiet"]))
"""


def test_a_job_killed_before_a_segment_was_whole_is_done_again_not_resumed(tmp_path):
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    (tmp_path / "jobs.toml").write_text(JOBS)
    killed = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path / "jobs.toml")])
    assert killed.returncode == -9
    assert (tmp_path / "out" / ".bar.mp4.hfrender" / "manifest.json").exists()  # its work
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary",
                 str(tmp_path / "s.json")]) == 0
    bar = json.loads((tmp_path / "s.json").read_text())[0]
    # was: "resumed" though no frame was kept (segments 2/0, 48 of 48 frames made)
    assert (bar["status"], bar["frames"], bar["frames_made"], bar["segments_made"],
            bar["segments_reused"]) == ("done", 48, 48, 2, 0)
    assert len(decode(tmp_path / "out" / "bar.mp4")) == 48
