"""A render's chunks on Ray at a Ctrl-C, a SIGTERM or a failure: those running go on and are
kept, a failed chunk turns the others away, the gate closes late or never, and segments
that do not make the frames once each are never joined."""

import os
from pathlib import Path

import pytest


def _two_run(waiting: list) -> list:
    """The chunks running at a Ctrl-C (the gate's answer): the first two still waiting."""
    return waiting[:2]


class _CtrlCCluster:
    """Ray's wait and cancel as a first Ctrl-C meets them: chunk 1 ended before it, each
    wait ends the first pending chunk, the second wait is interrupted."""

    def __init__(self):
        self.ended, self.cancelled, self.waits = {1}, [], 0

    def wait(self, refs, num_returns=1, timeout=None):
        if timeout == 0:
            ready = [r for r in refs if r in self.ended]
            return ready, [r for r in refs if r not in self.ended]
        self.waits += 1
        if self.waits == 2:
            raise KeyboardInterrupt  # while waiting for the second
        self.ended.add(refs[0])
        return [refs[0]], refs[1:]

    def cancel(self, ref):
        self.cancelled.append(ref)


def test_a_first_ctrl_c_on_ray_keeps_the_chunks_running_and_those_ended():
    """Chunk 1 ended before the Ctrl-C and was not taken yet; 2 and 3 run (2 CPUs); 4 and
    5 wait. The first Ctrl-C turns away 4 and 5 only, through the gate (was: 1 took a
    running place, and 3, running, was cancelled), takes 1, 2 and 3, then goes on; nothing
    is ray.cancel'ed (Ray 2.60's cancel racing a task's end ended the driver: ray_wait)."""
    from hfrender.engine.ray_wait import collect

    ray, taken = _CtrlCCluster(), []
    with pytest.raises(KeyboardInterrupt):
        collect(ray, list(range(6)), taken.append, _two_run)
    assert taken == [0, 1, 2, 3] and ray.cancelled == []


@pytest.mark.parametrize("chunks, cancelled", [(6, True), (4, False)])
def test_a_ctrl_c_once_every_chunk_runs_leaves_the_work_whole(chunks, cancelled):
    """With 4 chunks, all running or ended at the Ctrl-C, none is cancelled: the work is
    whole, told (True), not raised (was: every segment made, then "interrupted" and no
    output joined, exit 130); with 6, two are turned away and the Ctrl-C goes on."""
    from hfrender.engine.ray_wait import collect

    ray, taken = _CtrlCCluster(), []
    if cancelled:
        with pytest.raises(KeyboardInterrupt):
            collect(ray, list(range(chunks)), taken.append, _two_run)
    else:  # returned as it came (a SIGTERM's stays one: a batch exits 143 on it, was 130)
        assert type(collect(ray, list(range(chunks)), taken.append, _two_run)) is \
            KeyboardInterrupt
        from hfrender.cli.common import Terminated

        class Termed(_CtrlCCluster):
            def wait(self, refs, num_returns=1, timeout=None):
                try:
                    return super().wait(refs, num_returns, timeout)
                except KeyboardInterrupt:
                    raise Terminated from None

        assert type(collect(Termed(), list(range(chunks)), [].append, _two_run)) is Terminated
    assert taken == [0, 1, 2, 3] and ray.cancelled == []
    assert collect(_CtrlCCluster(), [0], [].append, _two_run) is None  # no Ctrl-C


def test_a_ctrl_c_while_a_chunk_is_kept_comes_after_it():
    """The Ctrl-C lands while chunk 0 is being kept (its segment written, the manifest
    saved): held until that ends, so the chunk is not lost (was: its result dropped, and
    the segment made again by the next run); then the first Ctrl-C's rule."""
    import signal
    import time

    from hfrender.engine.ray_wait import collect

    class Cluster:
        def __init__(self):
            self.cancelled = []

        def wait(self, refs, num_returns=1, timeout=None):
            if timeout == 0:
                return [], list(refs)
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            self.cancelled.append(ref)

    taken = []

    def keep(ref):
        if ref == 0:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)  # Python's handler would raise here, mid-keep
        taken.append(ref)

    ray = Cluster()
    with pytest.raises(KeyboardInterrupt):
        collect(ray, list(range(5)), keep, _two_run)
    assert taken == [0, 1, 2] and ray.cancelled == []


def test_a_failed_chunk_turns_the_others_away_and_reads_what_they_raised():
    """Two chunks of a render failing: the second's error, never read, was printed by Ray
    with its traceback after hfrender's one line (a trial: 81 lines of stderr)."""
    from hfrender.engine.ray_wait import collect

    class Cluster:
        def __init__(self):
            self.cancelled, self.read = [], []

        def wait(self, refs, num_returns=1, timeout=None):
            if num_returns == len(refs) and timeout is not None:  # the others, cancelled:
                return [r for r in refs if r != 4], [4]  # 4 does not end in time
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            self.cancelled.append(ref)

        def get(self, ref):
            self.read.append(ref)
            raise RuntimeError(f"chunk {ref} cancelled")

    def take(ref):
        if ref == 1:
            raise RuntimeError("chunk 1 failed")

    ray = Cluster()
    with pytest.raises(RuntimeError, match="^chunk 1 failed$"):
        collect(ray, list(range(5)), take, _two_run)
    assert ray.cancelled == [] and ray.read == [2, 3]  # (turned away by the gate)


def test_a_cluster_gone_while_a_chunk_fails_leaves_the_chunks_error():
    """forget's own wait failing (the cluster unreachable) hid the chunk's error (a
    review)."""
    from hfrender.engine.ray_wait import collect

    class Cluster:
        waits = 0

        def wait(self, refs, num_returns=1, timeout=None):
            self.waits += 1
            if self.waits > 1:
                raise ConnectionError("GCS connection lost")
            return [refs[0]], refs[1:]

        def cancel(self, ref):
            pass

    def take(ref):
        raise RuntimeError(f"chunk {ref} failed: the real error")

    with pytest.raises(RuntimeError, match="^chunk 0 failed: the real error$"):
        collect(Cluster(), list(range(3)), take, _two_run)


def test_the_gate_turns_away_a_failed_jobs_chunks_not_begun_and_no_others():
    """A batch job failing on Ray: its chunks not begun are turned away by the gate (were
    ray.cancel'ed, whose race with a task's end ended the driver, exit 1 and no word: CI);
    one begun is told to stop (and Ray's retry of it turned away: test_ray_stop), other
    jobs' chunks pass, a retry of theirs goes on, and a closed gate turns every new one
    away."""
    from hfrender.engine.ray_wait import _Keeper

    keeper = _Keeper()
    assert keeper.enter("a1") and keeper.enter("b1")
    keeper.refuse(["a1", "a2", "a3"])
    assert not keeper.enter("a2") and not keeper.enter("a3")
    assert not keeper.enter("a1") and keeper.stopping("a1")  # begun: told to stop
    assert keeper.enter("b1") and keeper.began["b1"] == 2  # a retry of one begun
    assert keeper.enter("b2")  # another job's
    assert keeper.close() == {"a1", "b1", "b2"} and not keeper.enter("b3")


def test_rays_own_sigterm_handler_gives_way_to_the_commands(monkeypatch):
    """A batch-and-Ray trial: ``ray.init`` installs a SIGTERM handler of its own (a crash
    dump, exit 1 or 15, no segment kept, no line said); the command's, in place before it,
    is put back (exit 143 and "interrupted: the N finished segments ... are kept")."""
    import signal

    ray = pytest.importorskip("ray")
    import hfrender.engine.ray_connect as ray_connect
    from hfrender.cli.common import sigterm_interrupts

    def init(**kwargs):  # as Ray's core does
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    monkeypatch.setattr(ray_connect, "_answers", lambda *a: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with sigterm_interrupts():
        ours = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        assert ray_connect.connect(None) is ray
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == ours
    assert ours[0] not in (signal.SIG_DFL, None)


def test_a_first_ctrl_c_keeps_the_chunk_running_out_of_order_on_a_real_ray(local_ray,
                                                                            tmp_path):
    """A Ray trial: tasks of several shapes (a batch's) run out of the order they were sent.
    One CPU held, two tasks of two CPUs wait, the third task (one CPU) runs: the first
    Ctrl-C keeps it and turns the two waiting away (was: the first two kept, the one running
    cancelled, its work lost). The gate also says which began when asked straight."""
    import time

    from hfrender.engine.ray_wait import Gate, collect

    ray = local_ray

    def hold(marker: str, seconds: float) -> str:
        Path(marker).write_text("began")
        time.sleep(seconds)
        return marker

    blocker = ray.remote(num_cpus=1)(hold).remote(str(tmp_path / "blocker"), 60)
    _until(lambda: (tmp_path / "blocker").exists())
    gate = Gate(ray)
    wide = [gate.task(hold, num_cpus=2)(str(tmp_path / f"wide{k}"), 0) for k in range(2)]
    narrow = gate.task(hold, num_cpus=1)(str(tmp_path / "narrow"), 2)
    _until(lambda: (tmp_path / "narrow").exists())

    taken: list = []
    try:
        with pytest.raises(KeyboardInterrupt):
            collect(_FirstWaitInterrupted(ray), [*wide, narrow],
                    lambda ref: taken.append(ray.get(ref)), gate.running)
    finally:
        ray.cancel(blocker, force=True)
    assert taken == [str(tmp_path / "narrow")]
    for ref in wide:  # turned away by the gate as they start (None), not ray.cancel'ed
        assert ray.get(ref, timeout=30) is None
    assert not (tmp_path / "wide0").exists() and not (tmp_path / "wide1").exists()


class _FirstWaitInterrupted:
    """Ray, its first wait interrupted (a Ctrl-C while the driver waits)."""

    def __init__(self, ray):
        self.ray, self.waits = ray, 0

    def __getattr__(self, name):
        return getattr(self.ray, name)

    def wait(self, refs, **kw):
        self.waits += 1
        if self.waits == 1:
            raise KeyboardInterrupt
        return self.ray.wait(refs, **kw)


def _until(ready, timeout: float = 60.0) -> None:
    import time

    deadline = time.time() + timeout
    while not ready():
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


def test_segments_that_do_not_make_the_frames_once_each_are_never_joined():
    """A review: segments cut two ways overlapped in a join (147 frames for 90); before a
    join they are checked to make frames 0..total - 1 once each, in order."""
    from hfrender.engine.cluster_segments import tiled

    def seg(first, count):
        return {"first": first, "count": count}

    assert tiled([seg(36, 54), seg(0, 36)], 90) == [seg(0, 36), seg(36, 54)]
    for bad in ([seg(0, 36), seg(32, 58)], [seg(0, 36)], [seg(0, 36), seg(36, 60)],
                [seg(1, 89)], []):
        with pytest.raises(RuntimeError, match=r"do not make frames 0\.\.89 once each$"):
            tiled(bad, 90)


def test_a_gate_slow_to_close_lets_the_chunks_kept_run(local_ray, tmp_path, monkeypatch):
    """A review: where the gate's actor did not answer the stop in time (still starting,
    say), the chunks kept by the fallback met its late close and came back as None, read
    as chunks (a TypeError). The actor is killed instead: every task passes, and those
    kept are taken whole; a None (turned away) is the stop's, never a chunk."""
    import time

    import hfrender.engine.ray_wait as ray_wait

    ray = local_ray

    def hold(marker: str, seconds: float) -> dict:
        Path(marker).write_text("began")
        time.sleep(seconds)
        return {"marker": marker}

    blockers = [ray.remote(num_cpus=1)(hold).remote(str(tmp_path / f"b{k}"), 3)
                for k in range(2)]  # the cluster busy: the chunks wait
    _until(lambda: (tmp_path / "b0").exists() and (tmp_path / "b1").exists())
    gate = ray_wait.Gate(ray)
    refs = [gate.task(hold, num_cpus=1)(str(tmp_path / f"c{k}"), 0) for k in range(4)]
    monkeypatch.setattr(ray_wait, "CLOSE_WAIT_S", 0.0)  # its answer comes too late

    taken: list = []
    with pytest.raises(KeyboardInterrupt):
        ray_wait.collect(_FirstWaitInterrupted(ray), refs,
                         lambda ref: ray_wait.taken(ray, ref, taken.append), gate.running)
    ray.get(blockers)
    assert sorted(t["marker"] for t in taken) == [  # 2 CPUs' worth, in the order they end
        str(tmp_path / f"c{k}") for k in range(2)]
    # a task turned away (None) is no chunk: counted as cancelled, the others still taken
    # (was: read as a chunk, then a second stop that dropped the chunks still running)
    fake = type("R", (), {"get": staticmethod(lambda ref: None if ref == "a" else {"n": ref})})
    assert ray_wait.taken(fake, "a", taken.append) is ray_wait.TURNED_AWAY
    kept: list = []

    class Stopped(_FirstWaitInterrupted):  # the stop, then "a" (turned away), then "b"
        def wait(self, refs, num_returns=1, timeout=None):
            self.waits += 1
            if self.waits == 1:
                raise KeyboardInterrupt
            if timeout == 0:
                return [], list(refs)
            return [refs[0]], list(refs[1:])

    with pytest.raises(KeyboardInterrupt):
        ray_wait.collect(Stopped(fake), ["a", "b"], lambda ref: ray_wait.taken(
            fake, ref, kept.append), lambda waiting: waiting)
    assert kept == [{"n": "b"}]
