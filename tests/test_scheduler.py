"""Scheduling and ordering under concurrency, and retry by split."""

import os
import random
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hfrender as hf
from hfrender.engine.core import Engine
from hfrender.engine.scheduler import Closed, ReorderBuffer, Scheduler
from hfrender.engine.split_retry import FusionError
from hfrender.io.writers import MemoryWriter
from hfrender.sampler import SampleSchedule


def hyper(first, n=2, t=None, value=0):
    frames = np.full((n, 2, 2, 3), value, np.uint8)
    h = hf.HyperFrame(frames, first_index=first)
    h.timestamps = np.arange(n, dtype=np.float64) + (first if t is None else t)
    return h


def test_fifo_and_stable_priority():
    s = Scheduler()
    for i in range(4):
        s.put(hyper(i * 2))
    assert [s.get().first_index for _ in range(4)] == [0, 2, 4, 6]
    scores = {0: 1.0, 2: 5.0, 4: 1.0, 6: 5.0, 8: 3.0}
    p = Scheduler(score=lambda h: scores[h.first_index])
    for first in (8, 6, 4, 2, 0):  # submitted out of order
        p.put(hyper(first))
    # highest score first; equal scores by timestamp
    assert [p.get().first_index for _ in range(5)] == [2, 6, 8, 0, 4]
    p.close()
    with pytest.raises(Closed):
        p.get()


def test_motion_score_ranks_moving_hyperframes_first():
    from hfrender.engine.scheduler import mean_motion

    still, moving, faster = hyper(0, value=9), hyper(2), hyper(4)
    moving.frames[-1] = 200
    faster.frames[-1] = 250
    assert mean_motion(still) == 0.0 and mean_motion(moving) == pytest.approx(200.0)
    s = Scheduler(score=mean_motion)
    for h in (still, moving, faster):
        s.put(h)
    assert [s.get().first_index for _ in range(3)] == [4, 2, 0]  # the most motion first


def test_reorder_buffer_releases_blocks_in_order_and_refuses_duplicates():
    r = ReorderBuffer(start=10)
    r.put(13, ["d"])
    r.put(10, ["a"])
    r.put(11, ["b", "c"])  # a block of two frames: 11 and 12
    assert [r.take(), r.take(), r.take()] == [(10, ["a"]), (11, ["b", "c"]), (13, ["d"])]
    with pytest.raises(ValueError, match="frame 12 arrived twice"):
        r.put(12, ["c"])
    r.close()
    assert r.take() is None  # closed and nothing in order: the writer stops


class Frames:
    """A job's fusion for the tests: sliding windows of ``plan``; ``fuse_fn`` decides."""

    def __init__(self, plan, fuse_fn):
        self.plan, self.fuse_fn = plan, fuse_fn

    def windows(self, h):
        k0, w = self.plan.weights.in_span(h.first_index, h.halo, h.frame_count)
        return self.plan.first_frame + k0, w

    def fuse(self, h, windows, out, first=0):
        return self.fuse_fn(h, windows)


def engine(plan, fuse_fn, sink=None, **kw):
    return Engine(Frames(plan, fuse_fn), sink if sink is not None else MemoryWriter(),
                  total=plan.count, **kw).start()


@settings(max_examples=25, deadline=None)
@given(n_hyper=st.integers(1, 12), per=st.integers(1, 4), workers=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), priority=st.booleans())
def test_random_delays_and_priorities_keep_order_without_loss(n_hyper, per, workers, seed,
                                                              priority):
    rng = random.Random(seed)
    plan = SampleSchedule(fps=10, samples=per).plan(n_hyper)

    def slow_fuse(h, windows):
        time.sleep(rng.random() * 0.01)
        # output k = the first sub-frame of its window: identifies the window
        return np.stack([h.frames[s] for s in windows.starts])

    sink = MemoryWriter()
    score = (lambda h: rng.random()) if priority else None
    eng = engine(plan, slow_fuse, sink, workers=workers, score=score)
    for i in range(n_hyper):
        frames = np.full((per, 1, 1, 3), i, np.uint8)
        eng.submit(hf.HyperFrame(frames, first_index=i * per,
                                 timestamps=np.full(per, float(i))))
    stats = eng.finish()
    assert eng.error is None and stats.frames_written == n_hyper
    assert [int(f[0, 0, 0]) for f in sink.frames] == list(range(n_hyper))


def test_out_of_memory_splits_and_gives_the_same_frames(rng):
    frames = rng.integers(0, 256, (24, 5, 6, 4), dtype=np.uint8)
    plan = SampleSchedule(fps=10, shutter_deg=720, samples=4).plan(10)  # overlapping
    assert plan.overlap == 2

    def run(limit):
        calls, seen = [], []

        def picky_fuse(h, windows):
            calls.append(h.frame_count)
            seen.append(h)
            if h.frame_count > limit:
                raise MemoryError("simulated: out of memory")
            return hf.fuse(h, windows, backend="cpu")

        sink = MemoryWriter()
        eng = engine(plan, picky_fuse, sink, workers=2)
        eng.submit(hf.HyperFrame(frames[:22], first_index=0, overlap=plan.overlap))
        stats = eng.finish()
        return np.stack(sink.frames), stats, calls, seen

    whole, _, _, _ = run(limit=99)
    split, stats, calls, seen = run(limit=6)
    np.testing.assert_array_equal(split, whole)
    # 22 failed, its halves (11 + 13) too, their halves fit: every frame still came out
    assert calls[0] == 22 and stats.retries >= 3 and len(whole) == 10
    assert seen[0].retry_count == 0 and max(h.retry_count for h in seen) >= 2
    assert all(h.status is hf.Status.DONE for h in seen)


def test_a_failing_half_of_a_split_releases_the_other_half():
    """With 2 slots and a halo, a leaked slot would leave the producer waiting forever."""
    plan = SampleSchedule(fps=10, shutter_deg=720, samples=4).plan(10)
    pool = hf.HyperFramePool((1, 1, 3), np.uint8, capacity=22, slots=2)

    def fuse_fn(h, windows):
        if h.frame_count > 12:
            raise MemoryError("simulated: out of memory")
        raise RuntimeError("kernel bug in the first half")

    eng = engine(plan, fuse_fn)
    slot = pool.acquire()
    eng.submit(hf.HyperFrame(slot.frames, first_index=0, overlap=plan.overlap, slot=slot,
                             pool=pool))
    with pytest.raises(RuntimeError, match="kernel bug in the first half"):
        eng.finish()
    assert pool.free_count == 2  # both halves gave the slot back


def test_other_errors_stop_the_job_at_once_and_reach_the_producer():
    plan = SampleSchedule(fps=10, samples=2).plan(6)
    failed = []

    def broken(h, windows):
        failed.append(h)
        raise RuntimeError("kernel bug")

    eng = engine(plan, broken)
    eng.submit(hf.HyperFrame(np.zeros((4, 1, 1, 3), np.uint8)))
    eng.failure.exception(timeout=5)  # waits for the worker's failure (a future)
    second = hf.HyperFrame(np.zeros((4, 1, 1, 3), np.uint8), first_index=4)
    with pytest.raises(RuntimeError, match="kernel bug"):  # a bug stays itself
        eng.submit(second)
    with pytest.raises(RuntimeError, match="kernel bug"):
        eng.finish()
    assert eng.stats.retries == 0 and eng.writer.frames_written == 0
    assert failed[0].status is hf.Status.FAILED and second.status is hf.Status.PENDING


def test_out_of_memory_on_a_single_window_is_one_line_for_the_user():
    plan = SampleSchedule(fps=10, samples=4).plan(1)

    def no_memory(h, windows):
        raise MemoryError()

    eng = engine(plan, no_memory)
    eng.submit(hf.HyperFrame(np.zeros((4, 1, 1, 3), np.uint8)))
    with pytest.raises(FusionError, match="out of memory fusing one window of 4 sub-frames "
                                          r"\(MemoryError\); lower --samples or --size"):
        eng.finish()


def test_a_slow_writer_holds_the_producer_back_instead_of_piling_frames():
    plan = SampleSchedule(fps=10, samples=1).plan(300)
    peak = {"held": 0}

    class SlowSink(MemoryWriter):
        def write(self, frame):
            peak["held"] = max(peak["held"], eng.reorder.held)
            time.sleep(0.001)
            super().write(frame)

    eng = engine(plan, lambda h, w: h.frames[w.starts], SlowSink(), workers=2)
    for i in range(0, 300, 10):
        eng.submit(hf.HyperFrame(np.full((10, 1, 1, 3), 1, np.uint8), first_index=i))
    stats = eng.finish()
    # blocks waiting for the writer: at most the hyperframes allowed in flight
    assert stats.frames_written == 300 and 1 <= peak["held"] <= eng.held


@pytest.mark.parametrize("keep_queued", [True, False])
def test_ctrl_c_drops_the_queue_where_the_output_is_thrown_away(keep_queued):
    """fx into an output an interrupted run throws away (a PNG sequence, a GIF): after
    Ctrl-C only the hyperframe being fused ends (an exact depth of field: seconds each),
    the queued ones are dropped; where the output is kept, every queued one is fused."""
    plan = SampleSchedule(fps=10, samples=2).plan(6)
    fused, busy = [], threading.Event()

    def fuse(h, w):
        busy.set()
        if not fused:  # the first holds its worker until Ctrl-C is seen (or 0.5 s)
            end = time.monotonic() + 0.5
            while not eng.failure.done() and time.monotonic() < end:
                time.sleep(0.005)
        fused.append(int(h.frames[0, 0, 0, 0]))
        return np.stack([h.frames[s] for s in w.starts])

    eng = engine(plan, fuse, workers=1)

    def produce():
        for i in range(3):
            eng.submit(hf.HyperFrame(np.full((2, 1, 1, 3), i, np.uint8), first_index=2 * i,
                                     timestamps=np.zeros(2)))
        assert busy.wait(5)  # Ctrl-C while the first is being fused
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        eng.drive(produce, lambda: None, keep_queued=keep_queued)
    assert fused == ([0, 1, 2] if keep_queued else [0])


def test_drive_cancels_after_the_producer_fails_and_still_writes_what_was_queued():
    plan = SampleSchedule(fps=10, samples=2).plan(6)
    sink = MemoryWriter()
    eng = engine(plan, lambda h, w: np.stack([h.frames[s] for s in w.starts]), sink)
    cancelled = []

    def produce():
        for i in range(3):
            eng.submit(hf.HyperFrame(np.full((2, 1, 1, 3), i, np.uint8), first_index=2 * i,
                                     timestamps=np.zeros(2)))
        raise KeyboardInterrupt  # Ctrl-C in the producer

    with pytest.raises(KeyboardInterrupt):
        eng.drive(produce, lambda: cancelled.append(True))
    assert cancelled == [True]
    assert [int(f[0, 0, 0]) for f in sink.frames] == [0, 1, 2]  # nothing queued is lost


class CtrlC:
    """Ctrl-C (SIGINT, as Python turns it into KeyboardInterrupt) sent ``times`` times
    while the engine's finish() waits on a fusion held back by ``gate``: each once the one
    before was seen; then the gate opens."""

    def __init__(self, eng, times, gate, open_gate=True):
        self.eng, self.times, self.gate, self.seen = eng, times, gate, []
        self.open_gate = open_gate

    def __enter__(self):
        self.previous = signal.signal(signal.SIGINT, self._handler)
        self.thread = threading.Thread(target=self._send, daemon=True)
        self.thread.start()
        return self

    def _handler(self, signum, frame):
        self.seen.append(time.monotonic())
        raise KeyboardInterrupt

    def _send(self):
        while not self.eng._finished:  # finish() has begun
            time.sleep(0.005)
        for i in range(self.times):
            time.sleep(0.05)  # it waits for the threads by now
            os.kill(os.getpid(), signal.SIGINT)
            while len(self.seen) <= i:
                time.sleep(0.005)
        if self.open_gate:
            self.gate.set()

    def __exit__(self, *exc):
        self.thread.join(10)
        signal.signal(signal.SIGINT, self.previous)


def _held_engine(workers=1):
    """An engine of 3 hyperframes (6 output frames) whose last waits for ``gate``."""
    plan = SampleSchedule(fps=10, samples=2).plan(6)
    sink, gate = MemoryWriter(), threading.Event()

    def fuse(h, w):
        if int(h.frames[0, 0, 0, 0]) == 2:
            assert gate.wait(10)
        return np.stack([h.frames[s] for s in w.starts])

    eng = engine(plan, fuse, sink, workers=workers)
    for i in range(3):
        eng.submit(hf.HyperFrame(np.full((4, 1, 1, 3), i, np.uint8), first_index=4 * i,
                                 timestamps=np.zeros(4)))
    return eng, sink, gate


def test_a_ctrl_c_while_finishing_lets_the_work_in_progress_end():
    """The first Ctrl-C says "stopping after the work in progress": once every frame is
    in, that work is the rest of the output, which is then whole (was: finish() raised at
    once, the threads still writing, and the job threw the output away)."""
    eng, sink, gate = _held_engine()
    with CtrlC(eng, 1, gate) as ctrl_c:
        try:
            stats = eng.finish()
        except KeyboardInterrupt:  # not out of the test: pytest would stop the session
            pytest.fail("finish() raised the Ctrl-C")
    assert len(ctrl_c.seen) == 1 and stats.stopped_late and eng.complete
    assert [int(f[0, 0, 0]) for f in sink.frames] == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("stopping", [False, True])
def test_a_further_ctrl_c_while_finishing_stops_at_once_and_waits_for_the_threads(stopping):
    """A second Ctrl-C (or the first, where the producer was interrupted already) stops
    the engine: nothing more is written, and every thread has ended when finish() raises,
    so nothing writes into an output the job then closes (Thread.join, interrupted, marks
    a running thread as ended)."""
    eng, sink, gate = _held_engine(workers=2)
    with CtrlC(eng, 1 if stopping else 2, gate) as ctrl_c:
        with pytest.raises(KeyboardInterrupt):
            eng.finish(stopping=stopping)
        assert all(t.ended.is_set() for t in eng._threads)
    assert len(ctrl_c.seen) == (1 if stopping else 2)
    written = len(sink.frames)
    time.sleep(0.1)
    assert written == len(sink.frames) == 4 and not eng.stats.stopped_late
    assert [int(f[0, 0, 0]) for f in sink.frames] == [0, 0, 1, 1]


def test_a_third_ctrl_c_stops_waiting_for_a_thread_that_hangs():
    """A fusion (or a writer on a stalled disk) that never ends: the second Ctrl-C makes the
    engine fail, and a third stops the wait itself (was: every later Ctrl-C and SIGTERM
    swallowed, kill -9 the only way out)."""
    eng, sink, gate = _held_engine()
    with CtrlC(eng, 3, gate, open_gate=False) as ctrl_c:
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            eng.finish()
        waited = time.monotonic() - t0
    gate.set()  # the thread may end now
    assert len(ctrl_c.seen) == 3 and waited < 5  # the fusion would hold it 10 s
    assert eng.error is not None  # the second Ctrl-C: nothing more is fused


def test_a_library_callers_ctrl_c_stops_at_once(monkeypatch):
    """Without the command's handler (hf.render in a script) nobody said "stopping after
    the work in progress": the first Ctrl-C stops the engine, which waits for its threads
    to end the hyperframe being fused, then raises."""
    from hfrender.engine import core

    monkeypatch.setattr(core, "ctrl_c_announced", lambda: False)
    eng, sink, gate = _held_engine()
    with CtrlC(eng, 1, gate):
        with pytest.raises(KeyboardInterrupt):
            eng.finish()
        assert all(t.ended.is_set() for t in eng._threads)
    assert eng.error is not None and len(sink.frames) == 4 and not eng.stats.stopped_late


def test_a_ctrl_c_while_the_half_filled_hyperframe_is_handed_over_stops_at_once():
    """After a first Ctrl-C the render hands over what its half-filled hyperframe
    completes; a second one there (submit waits while the writer is behind) was swallowed,
    and the engine went on fusing everything queued."""
    from hfrender.engine.render import RenderJob

    class Builder:
        def cancel(self):
            pass

        def flush_remaining(self):
            raise KeyboardInterrupt  # the second Ctrl-C, while it waits

    class Engine:
        failed = None

        def fail(self, exc):
            self.failed = exc

    job, engine = object.__new__(RenderJob), Engine()
    job.builder = Builder()
    job._salvage(engine)
    assert isinstance(engine.failed, KeyboardInterrupt)
