"""An fx run to stop midway, shared with the disparity-job and output-lock tests:
``start_fx`` (fx in a child process, each sub-frame slowed, segments of half a second),
``segments_done`` (the segments its manifest lists) and ``wait_for`` (n of them)."""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from hfrender.io.segments import work_dir

SLOW_FX = """
import sys, time
import hfrender.engine.fx_output as out
import hfrender.engine.fx_fusion as fx_fusion
out.SEGMENT_SECONDS = {seconds}
real = fx_fusion.motion_blur
def slow(*args, **kwargs):
    time.sleep({sleep})
    return real(*args, **kwargs)
fx_fusion.motion_blur = slow
from hfrender.cli import main
sys.exit(main(sys.argv[1:]))
"""


def start_fx(tmp_path, args, sleep=0.05):
    script = tmp_path / "slow_fx.py"
    script.write_text(textwrap.dedent(SLOW_FX.format(seconds=0.5, sleep=sleep)))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.Popen([sys.executable, str(script), "fx", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def segments_done(out):
    manifest = work_dir(out) / "manifest.json"
    return json.loads(manifest.read_text())["segments"] if manifest.exists() else []


def wait_for(out, n, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if len(segments_done(out)) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"no {n} segments before the timeout (exit {proc.poll()})")
