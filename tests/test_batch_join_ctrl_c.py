"""A Ctrl-C at the terminal while a batch joins a job's segments: the terminal sends it to
the whole foreground process group, the joining ffmpeg included."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from render_helpers import decode_video as decode

BAR = Path(__file__).parent / "data" / "bar.frag"
JOBS = """
[defaults]
fps = 24
size = "32x8"
samples = 2

[[job]]
name = "first"
scene = "bar.frag"
output = "out/first.mp4"
duration = 2

[[job]]
name = "second"
scene = "bar.frag"
output = "out/second.mp4"
duration = 0.5
"""

# the batch, with one of its ffmpeg commands (the join of a job's segments, or the look
# at a segment as it ends, in the writer thread) started through a shell that marks the
# moment it runs and waits a second first (each takes less than a Ctrl-C can be aimed at)
CHILD = """
import sys
import importlib
module = importlib.import_module(sys.argv[4])
real = getattr(module, sys.argv[5])
def slow(*args, **kwargs):
    return ["sh", "-c", 'touch "$0"; sleep 1; exec "$@"', sys.argv[1], *real(*args, **kwargs)]
setattr(module, sys.argv[5], slow)
from hfrender.cli import main
sys.exit(main(["batch", sys.argv[2], "--summary", sys.argv[3], "--quiet"]))
"""


def ctrl_c_during(tmp_path, module, command):
    """The batch's exit code, stderr and summary by job after a Ctrl-C at the terminal
    while ``module.command``'s ffmpeg first runs."""
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    (tmp_path / "jobs.toml").write_text(JOBS)
    mark, summary = tmp_path / "ran", tmp_path / "summary.json"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(mark), str(tmp_path / "jobs.toml"),
                              str(summary), module, command], stderr=subprocess.PIPE,
                             text=True, start_new_session=True)  # its own group, as a
    try:  # terminal's job
        for _ in range(600):  # (a minute at most)
            if mark.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        assert mark.exists(), f"{command} never ran"
        os.killpg(child.pid, signal.SIGINT)  # Ctrl-C: to the batch and what it started
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    return child.returncode, err, {r["name"]: r for r in json.loads(summary.read_text())}


def test_a_ctrl_c_during_a_join_keeps_the_video_and_stops_the_batch(tmp_path):
    code, err, results = ctrl_c_during(tmp_path, "hfrender.io.join", "join_command")
    # was: 'first' failed ("ffmpeg was stopped by SIGINT"), and 'second' ran, exit 1
    assert (code, results["first"]["status"], results["second"]["status"]) == (
        130, "done", "not run"), err
    assert results["first"]["frames"] == 48
    video = decode(tmp_path / "out" / "first.mp4")
    assert len(video) == 48 and np.ptp(video[0]) > 0  # whole, a picture
    assert not (tmp_path / "out" / "second.mp4").exists()
    assert "interrupted: 1 of 2 jobs finished; run the same command again" in err
    assert "failed" not in err


def test_a_ctrl_c_as_a_segment_is_looked_at_keeps_it(tmp_path):
    code, err, results = ctrl_c_during(tmp_path, "hfrender.io.segment_parts", "probe_command")
    # was: 'first' interrupted, "a segment ... holds 0 frames of the 24 written (ffmpeg: no
    # video): it is not kept; run again with --resume ...", its first second lost
    # (every frame was in when the Ctrl-C came: the job ends whole)
    assert (code, results["first"]["status"], results["second"]["status"]) == (
        130, "done", "not run"), err
    assert (results["first"]["frames"], results["first"]["segments_made"]) == (48, 2), err
    assert "failed" not in err and "not kept" not in err
    assert len(decode(tmp_path / "out" / "first.mp4")) == 48
    code = subprocess.run([sys.executable, "-m", "hfrender", "batch", str(tmp_path / "jobs.toml"),
                           "--summary", str(tmp_path / "again.json"), "--quiet"]).returncode
    again = {r["name"]: r["status"] for r in json.loads((tmp_path / "again.json").read_text())}
    assert (code, again) == (0, {"first": "up-to-date", "second": "done"})
