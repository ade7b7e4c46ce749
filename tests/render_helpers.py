"""Helpers for render tests: run a render into memory, decode sRGB exactly."""

import json
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np

from hfrender.config import RenderConfig
from hfrender.engine.render import render
from hfrender.io.ffmpeg import ffmpeg_exe
from hfrender.io.writers import MemoryWriter


def render_frames(scene_file, first_frame=0, count=None, **settings):
    """(frames (N, H, W, 3) uint8, stats) of a render kept in memory."""
    settings.setdefault("quiet", True)
    config = RenderConfig(output="memory.mp4", **settings)
    sink = MemoryWriter()
    stats = render(str(scene_file), config, first_frame=first_frame, count=count, writer=sink)
    return np.stack(sink.frames), stats


def decode_video(path):
    """Every frame of a video file, decoded to RGB (N, H, W, 3) uint8."""
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    w, h = next(reader)["size"]
    return np.stack([np.frombuffer(f, np.uint8).reshape(h, w, 3) for f in reader])


def video_packets(path):
    """(time base, [(pts, duration)] in order of pts) of the first video stream's packets,
    as ffmpeg -f framecrc says."""
    out = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(path), "-map", "0:v:0", "-c",
                          "copy", "-f", "framecrc", "-"], capture_output=True, text=True).stdout
    tb = re.search(r"^#tb 0: (\d+)/(\d+)", out, re.M)
    times = [(int(m.group(1)), int(m.group(2)))
             for m in re.finditer(r"^0,\s*-?\d+,\s*(-?\d+),\s*(\d+),", out, re.M)]
    return Fraction(int(tb.group(1)), int(tb.group(2))), sorted(times)


def linear(frames):
    v = np.asarray(frames, np.float64) / 255
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def render_golden(scene_file, frame_indices, **settings):
    """(frames (N, H, W, 3) uint8, GL renderer) of the output frames ``frame_indices`` of
    a scene, each rendered on its own as a chunk of one frame: what the golden frame tests
    compare (the only place they call the renderer)."""
    frames, renderer = [], ""
    settings.setdefault("reconstruct", "off")  # the goldens are plain temporal sampling
    for k in frame_indices:
        out, stats = render_frames(scene_file, first_frame=k, count=1, **settings)
        frames.append(out[0])
        renderer = stats.gl_renderer
    return np.stack(frames), renderer


def interrupt_after_segments(monkeypatch, n=1):
    """Ctrl-C once the first ``n`` segments of a video are finished; returns the undo."""
    import hfrender.io.segments as seg

    real, done = seg.SegmentedWriter._finish_segment, []

    def stop(self):
        real(self)
        done.append(1)
        if len(done) == n:
            raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop)
    return lambda: monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", real)


def ctrl_c_before_the_last_frame(monkeypatch):
    """A real Ctrl-C (SIGINT to this process, as the command's own handler takes it) while
    the engine waits for its last frame, after every frame was handed over: the writer
    holds that frame back until the Ctrl-C was seen. Returns the list of Ctrl-Cs seen."""
    import os
    import signal
    import threading
    import time

    from hfrender.cli.common import stop_asked
    from hfrender.engine.core import Engine

    finishing, seen = threading.Event(), []
    real_finish, real_written = Engine.finish, Engine._written

    def send():
        finishing.wait(30)
        time.sleep(0.05)  # finish() waits for the threads by now
        os.kill(os.getpid(), signal.SIGINT)
        end = time.monotonic() + 10
        while not stop_asked() and time.monotonic() < end:
            time.sleep(0.005)
        seen.append(stop_asked())

    def finish(self, *args, **kwargs):
        finishing.set()
        return real_finish(self, *args, **kwargs)

    def written(self, k, frame):
        if self.kept + self.stats.frames_written + 1 == self.stats.total_frames:
            sender.join(20)
        real_written(self, k, frame)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    monkeypatch.setattr(Engine, "finish", finish)
    monkeypatch.setattr(Engine, "_written", written)
    return seen


def batch_status(jobs: Path, *more: str) -> str:
    """``hfrender batch`` of the jobs file ``jobs`` (``more``: its other flags; it must
    succeed): its first job's status, from the summary written beside it."""
    from hfrender.cli import main

    summary = Path(jobs).parent / "s.json"
    assert main(["batch", str(jobs), *more, "--summary", str(summary), "--quiet"]) == 0
    return json.loads(summary.read_text())[0]["status"]


def stop_at(monkeypatch, cls: type, name: str, n: int, method=None) -> None:
    """A Ctrl-C at the ``n``-th call of ``cls.name`` (one made in the thread a signal goes
    to: a writer thread's would not stop the run); ``method``: the one to call before that
    (default: ``cls.name`` now; give the original where an earlier stop replaced it)."""
    calls, method = [], method or getattr(cls, name)

    def stopping(*args):
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return method(*args)

    monkeypatch.setattr(cls, name, stopping)


def unplaced(err: str) -> str:
    """``err`` without the scene's place that an interruption names where it stopped the
    scene's own code (``interrupted in slow.py:14, update(t=1.329): the ...``: a slow
    scene's signal lands in its sleep, or not)."""
    return re.sub(r"interrupted in [^:\n]+:\d+(?:, called from [^:\n]+:\d+)?, [^:\n]+?"
                  r"(?=:| before the first frame)", "interrupted", err)
