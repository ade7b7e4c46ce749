"""What the interrupted-render tests share: ``scene``, a slow scene (``SLOW``); ``start``, its
render with ``ARGS`` in a process of its own; ``wait_for_segments``, until it kept some."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from hfrender.io.segments import work_dir

SLOW = """
import math, time
import hfrender as hf

class Slow(hf.Scene):
    duration = 3.0
    background = (0.1, 0.1, 0.15)

    def setup(self):
        self.box = self.add(hf.Cube(color=(0.9, 0.5, 0.2)))
        self.camera.position = (0, 0, 4)

    def update(self, t):
        time.sleep(SLEEP)
        self.box.position = (math.sin(3 * t), 0, 0)
        self.box.rotation = (0.4, 2 * t, 0)
"""


def scene(tmp_path, sleep):
    path = tmp_path / "slow.py"
    path.write_text(textwrap.dedent(SLOW).replace("SLEEP", str(sleep)))
    return path


ARGS = ["--size", "64x36", "--samples", "2", "--granularity", "12", "--quiet"]


def start(path, out, *more, before=""):
    """A render of ``path`` into ``out`` in a process of its own (``before``: Python run in
    it first)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    run = f"{before}\nfrom hfrender.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", f"import sys\n{run}", "render", str(path),
                             "-o", str(out), *ARGS, *more], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_default)


def _ctrl_c_default():  # a shell's background job starts with SIGINT ignored: not this one
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_segments(out, n, proc, timeout=60):
    manifest = work_dir(out) / "manifest.json"
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if manifest.exists():
            try:
                if len(json.loads(manifest.read_text())["segments"]) >= n:
                    return
            except json.JSONDecodeError:  # never: it is replaced atomically
                raise
        time.sleep(0.05)
    raise AssertionError(f"no {n} segments before the timeout (exit {proc.poll()})")
