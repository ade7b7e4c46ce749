"""Fusion processes begin and end: a killed child told in one line, Ctrl-C kept from the
child, the child ending with its parent, a call cut short or aborted, a first message that
is not a hello, the child importing this hfrender and no other."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from offload_helpers import (
    ROOT,
    _alive,
    _filled,
    processes_fixture,  # noqa: F401  (the fixture)
    shared_pool_fixture,  # noqa: F401  (the fixture)
    two_cores_fixture,  # noqa: F401  (the fixture)
)

from hfrender.engine import offload
from hfrender.engine.offload import FusionProcessError, FusionProcesses


def test_a_killed_child_is_told_in_one_line(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    pid = processes.pids[0]
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(FusionProcessError) as info:
        processes.call(getattr, hyper, "frames")
    assert str(info.value) == (f"the fusion process (pid {pid}) was killed by signal 9 before "
                               "it answered (SIGKILL: often the system out of memory; lower "
                               "--granularity or --size)")
    hyper.release()


def test_ctrl_c_does_not_reach_the_child_and_close_ends_it(shared_pool, rng):
    procs = FusionProcesses(shared_pool.storage, count=2)
    hyper = _filled(shared_pool, rng)
    try:
        assert processes_answer(procs, hyper)
        for pid in procs.pids:
            os.kill(pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        time.sleep(0.2)
        assert processes_answer(procs, hyper)
        pids = procs.pids
    finally:
        procs.close()
        hyper.release()
    assert procs.pids == [] and not any(_alive(pid) for pid in pids)
    procs.close()  # twice is harmless


def processes_answer(procs, hyper):
    return all(np.array_equal(procs.call(getattr, hyper, "frames"), hyper.frames)
               for _ in procs.pids)


def test_the_child_ends_when_its_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import time
        import numpy as np
        from hfrender.engine.offload import FusionProcesses
        from hfrender.hyperframe.pool import HyperFramePool
        from hfrender.hyperframe.shared import SharedArena

        pool = HyperFramePool((4, 4, 4), np.uint8, capacity=2, storage=SharedArena())
        print(FusionProcesses(pool.storage).pids[0], flush=True)
        time.sleep(60)
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    child = None
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_call_cut_short_costs_its_child_and_no_later_call_reads_its_reply(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    child = processes.children[0]
    old = child.proc.pid

    def interrupted():
        raise KeyboardInterrupt  # Ctrl-C while the reply is on its way

    child.conn.recv = interrupted
    with pytest.raises(KeyboardInterrupt):
        processes.call(getattr, hyper, "frames")
    assert processes.pids != [old] and not _alive(old)
    # the new child answers this call, not the one cut short
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    hyper.release()


def test_the_child_imports_this_hfrender_not_one_in_the_working_directory(
        shared_pool, rng, tmp_path, monkeypatch):
    for folder in ("here", "on_path"):  # the working directory; a copy on PYTHONPATH
        fake = tmp_path / folder / "hfrender"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError('the wrong hfrender')\n")
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "on_path"))
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    try:
        np.testing.assert_array_equal(procs.call(getattr, hyper, "frames"), hyper.frames)
    finally:
        procs.close()
        hyper.release()


def test_a_child_with_another_hfrender_is_refused_in_one_line(shared_pool, rng, monkeypatch,
                                                              tmp_path):
    monkeypatch.setattr(offload, "PACKAGE", tmp_path / "hfrender")
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    try:
        with pytest.raises(FusionProcessError) as info:
            procs.call(getattr, hyper, "frames")
        assert str(info.value) == (f"the fusion process imported hfrender from "
                                   f"{ROOT / 'hfrender'}, this process from "
                                   f"{tmp_path / 'hfrender'}")
        with pytest.raises(FusionProcessError, match="imported hfrender from"):
            procs.call(getattr, hyper, "frames")  # and so says every later call
    finally:
        procs.close()
        hyper.release()


def test_a_child_closed_before_its_first_hyperframe_ends_quietly(shared_pool, capfd):
    procs = FusionProcesses(shared_pool.storage, count=2)
    pids = procs.pids
    procs.close()  # an error before the first frame: the children are still importing
    assert not any(_alive(pid) for pid in pids)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_a_first_message_that_is_not_a_hello_makes_the_child_unavailable(processes):
    from multiprocessing import Pipe

    ours, theirs = Pipe()
    child = offload._Child(None, ours)
    theirs.send(("a", "b", "c"))
    with pytest.raises(offload.FusionProcessUnavailable,
                       match=r"^the fusion process said \('a', 'b', 'c'\) instead of hello$"):
        processes._greet(child)
    assert child.dead is not None


def test_no_child_is_started_again_once_the_processes_are_closed(shared_pool, monkeypatch):
    procs = FusionProcesses(shared_pool.storage)
    child = procs.children[0]
    procs.close()
    started = []
    monkeypatch.setattr(offload.subprocess, "Popen", lambda *a, **k: started.append(a))
    assert procs._replace(child) is child and child.dead is not None
    assert started == [] and procs.children == []


def test_abort_ends_a_call_in_progress_at_once(shared_pool, rng, monkeypatch):
    """A second Ctrl-C said "Ctrl-C again to stop at once", then waited for the hyperframes
    in the children: 392 s of an exact depth of field of reexpose."""
    import threading

    from child_helpers import sleep

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    procs = FusionProcesses(shared_pool.storage, count=2)
    hyper = _filled(shared_pool, rng)
    told = []

    def call():
        try:
            procs.call(sleep, hyper, 60)
        except FusionProcessError as exc:
            told.append(str(exc))

    try:
        thread = threading.Thread(target=call, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while procs._idle.qsize() == 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the call has taken a child
        time.sleep(0.2)
        pids = list(procs.pids)
        t0 = time.monotonic()
        procs.abort()
        thread.join(10)
        assert not thread.is_alive() and time.monotonic() - t0 < 5
        assert told == ["the fusion process was stopped: the job failed or was interrupted"]
        deadline = time.monotonic() + 5  # (the killed one: its pipe closes as it exits, a
        while sum(_alive(pid) for pid in pids) > 1 and time.monotonic() < deadline:
            time.sleep(0.01)  # moment before it is gone; a full run on a busy machine saw it)
        assert sum(_alive(pid) for pid in pids) == 1  # the idle one is left as it was
    finally:
        procs.close()
        hyper.release()
    assert not any(_alive(pid) for pid in pids)


def test_a_failed_engine_stops_the_fusion_in_progress():
    """The engine's failure (a second Ctrl-C, an error) aborts its fusion's calls: nothing
    of them is written any more."""
    from hfrender.engine.core import Engine
    from hfrender.io.writers import MemoryWriter

    class Fusion:
        aborted = 0

        def abort(self):
            Fusion.aborted += 1

    engine = Engine(Fusion(), MemoryWriter())
    engine.fail(KeyboardInterrupt())
    assert Fusion.aborted == 1
