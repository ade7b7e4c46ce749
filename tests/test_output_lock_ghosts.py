"""A run killed (kill -9, the OOM killer) while a child it started was between its fork and
its exec: the child held the output's lock a moment longer (an flock belongs to the open
file, and a forked child shares it until it closes its descriptors), and the --resume
typed at once was refused, "another hfrender (pid N) is writing it", N the dead run's."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from hfrender.cli import main
from hfrender.io.output_lock import OutputBusy, input_lock, lock_path, output_lock

ROOT = Path(__file__).resolve().parents[1]

# holds OUT and starts a child that waits HOLD s between its fork and its exec (saying so
# in MARK: "forked PID", then "exec"), the run's Popen waiting on it
HOLDER = """
import os, subprocess, sys, time
from pathlib import Path
from hfrender.io.output_lock import output_lock
out, mark, hold = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
doing = sys.argv[4:]  # (a batch's: "is running this jobs file; ...")
def slow_start():
    mark.write_text(f"forked {os.getpid()}")
    time.sleep(hold)
    mark.write_text("exec")
with output_lock(out, *doing):
    subprocess.Popen(["true"], preexec_fn=slow_start)
    time.sleep(60)
"""


def wait_for_text(path, start, proc, timeout=30):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if path.exists() and path.read_text().startswith(start):
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path} never said {start!r} (exit {proc.poll()})")


def start_holder(tmp_path, out, hold, *doing):
    script, mark = tmp_path / "holder.py", tmp_path / "mark"
    script.write_text(HOLDER)
    proc = subprocess.Popen([sys.executable, str(script), str(out), str(mark), str(hold),
                             *doing],
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    child = int(wait_for_text(mark, "forked", proc).split()[1])
    return proc, child, mark


def test_a_killed_runs_child_between_fork_and_exec_is_waited_for_not_taken_for_a_writer(
        tmp_path):
    out = tmp_path / "o.mp4"
    proc, child, mark = start_holder(tmp_path, out, 1.5)
    began = time.monotonic()
    with pytest.raises(OutputBusy) as e:  # the run alive: refused at once, as ever
        with output_lock(str(out)):
            pass
    assert time.monotonic() - began < 0.5
    assert str(e.value) == (f"-o {out}: another hfrender (pid {proc.pid}) is writing it; "
                            "wait for it to finish, or write elsewhere")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert mark.read_text() == f"forked {child}"  # its child holds the lock still
    with output_lock(str(out)):  # was: OutputBusy, "another hfrender (pid N)", N dead
        assert mark.read_text() == "exec"  # taken once the child let go, not before
        assert lock_path(str(out)).read_text() == f"pid {os.getpid()}"


BATCH = ("batch", "is running this jobs file; wait for it to end")


@pytest.mark.parametrize("who", ["-o", "batch", "INPUT"])
def test_a_killed_runs_child_that_keeps_its_lock_is_named_and_the_output_left_alone(
        tmp_path, monkeypatch, who):
    """Past ENDED_HOLDER_WAIT the lock is not taken: refused, naming both (a writer, a
    batch of a jobs file, a reader of what the killed run wrote)."""
    from hfrender.io.output_lock import input_lock

    monkeypatch.setattr("hfrender.io.output_lock.ENDED_HOLDER_WAIT", 0.5)
    out = tmp_path / "o.mp4"
    proc, child, mark = start_holder(tmp_path, out, 60, *(BATCH if who == "batch" else ()))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    began = time.monotonic()
    lock = (input_lock(str(out), who) if who == "INPUT"
            else output_lock(str(out), *(BATCH if who == "batch" else ())))
    try:
        with pytest.raises(OutputBusy) as e:
            with lock:
                pass
        assert 0.5 <= time.monotonic() - began < 5
        doing, tail = {"-o": ("writing it", ", or write elsewhere"),
                       "batch": ("running this jobs file", ""),
                       "INPUT": ("writing it", "")}[who]
        assert str(e.value) == (
            f"{who} {out}: the hfrender {doing} (pid {proc.pid}) has ended, but a process "
            f"it started (pid {child}) holds its lock still; end that one{tail}")
        assert not out.exists()
    finally:
        os.kill(child, signal.SIGKILL)  # (the holder's child: this test's to end)
    time.sleep(0.2)
    with output_lock(str(out)):
        assert lock_path(str(out)).read_text() == f"pid {os.getpid()}"


# an fx whose third segment's encoder waits 1.5 s between its fork and its exec
SLOW_CHILD_FX = """
import subprocess, sys, time
from pathlib import Path
import hfrender.engine.fx_output as out
out.SEGMENT_SECONDS = 0.5
mark = Path(sys.argv[1])
class Popen(subprocess.Popen):
    def __init__(self, cmd, *args, **kwargs):
        if any("seg_00000030" in str(word) for word in cmd):
            def slow_start():
                mark.write_text("forked")
                time.sleep(1.5)
            kwargs["preexec_fn"] = slow_start
        super().__init__(cmd, *args, **kwargs)
subprocess.Popen = Popen
from hfrender.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_fx_killed_as_it_starts_an_encoder_resumes_at_once(tmp_path, rng, monkeypatch):
    """The flaky test_fx_disparity resume, made certain: killed while the next segment's
    ffmpeg was being started, the --resume typed at once goes on (was: exit 2, "another
    hfrender (pid N) is writing it") to the uninterrupted run's frames."""
    from fx_engine_helpers import segments_done
    from fx_helpers import decode, make_clip

    clip, _ = make_clip(tmp_path, rng, n=60)  # 15-frame segments: 4 of them
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)
    whole, out = tmp_path / "whole.mp4", tmp_path / "crash.mp4"
    flags = ["--motion-blur", "4", "--quiet"]
    assert main(["fx", str(clip), "-o", str(whole), *flags]) == 0
    script, mark = tmp_path / "slow_child_fx.py", tmp_path / "mark"
    script.write_text(textwrap.dedent(SLOW_CHILD_FX))
    proc = subprocess.Popen([sys.executable, str(script), str(mark), "fx", str(clip), "-o",
                             str(out), *flags], env={**os.environ, "PYTHONPATH": str(ROOT)})
    wait_for_text(mark, "forked", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(segments_done(out)) == 2
    assert main(["fx", str(clip), "-o", str(out), *flags, "--resume"]) == 0
    np.testing.assert_array_equal(decode(whole)[0], decode(out)[0])


def test_a_reader_after_a_killed_writer_is_named_a_reader_at_once(tmp_path):
    """A writer killed -9 left its lock file saying "pid N"; a reader took the lock and left
    that in it, so the next writer saw a dead pid, waited ENDED_HOLDER_WAIT (10 s) and
    blamed the live reader as "a process it started"."""
    out, dead = tmp_path / "fr" / "%04d.png", subprocess.Popen(["true"])
    dead.wait()
    lock_path(str(out)).parent.mkdir(mode=0o700, exist_ok=True)
    lock_path(str(out)).write_text(f"pid {dead.pid}")  # as the killed writer left it
    with input_lock(str(out), "INPUT"):
        assert lock_path(str(out)).read_text() == ""  # the dead writer's pid cleared
        began = time.monotonic()
        with pytest.raises(OutputBusy) as e:
            with output_lock(str(out)):
                pass
        assert time.monotonic() - began < 0.5
    assert str(e.value) == (f"-o {out}: another hfrender is reading it (an fx of it, a "
                            "reexpose of a store); wait for it to finish, or write elsewhere")
