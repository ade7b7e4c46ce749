"""Scheduling and ordering under concurrency, and retry by split."""

import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hfrender as hf
from hfrender.engine.core import FusionPool
from hfrender.engine.scheduler import Closed, ReorderBuffer, Scheduler
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

    still, moving = hyper(0, value=9), hyper(2)
    moving.frames[-1] = 200
    assert mean_motion(still) == 0.0 and mean_motion(moving) == pytest.approx(200.0)


def test_reorder_buffer_releases_in_order_and_refuses_duplicates():
    r = ReorderBuffer(start=10)
    r.put(12, "c")
    assert r.pop_ready() == []
    r.put(10, "a")
    r.put(11, "b")
    assert r.pop_ready() == [(10, "a"), (11, "b"), (12, "c")]
    with pytest.raises(ValueError, match="frame 11 arrived twice"):
        r.put(11, "b")


@settings(max_examples=25, deadline=None)
@given(n_hyper=st.integers(1, 12), per=st.integers(1, 4), workers=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), priority=st.booleans())
def test_random_delays_and_priorities_keep_order_without_loss(n_hyper, per, workers, seed,
                                                              priority):
    rng = random.Random(seed)
    plan = SampleSchedule(fps=10, samples=per).plan(n_hyper)
    stats = type("S", (), {"frames_written": 0, "total_frames": n_hyper,
                           "device_to_host_bytes": 0, "extra": {}})()

    def slow_fuse(h, windows, lens=None, backend=None):
        time.sleep(rng.random() * 0.01)
        # output k = the first sub-frame of its window: identifies the window
        return np.stack([h.frames[s] for s in windows.starts])

    sink = MemoryWriter()
    score = (lambda h: rng.random()) if priority else None
    pool = FusionPool(plan, sink, "cpu", stats, workers=workers, score=score, fuse_fn=slow_fuse)
    pool.start()
    for i in range(n_hyper):
        frames = np.full((per, 1, 1, 3), i, np.uint8)
        pool.submit(hf.HyperFrame(frames, first_index=i * per,
                                  timestamps=np.full(per, float(i))))
    pool.finish()
    assert pool.error is None
    assert [int(f[0, 0, 0]) for f in sink.frames] == list(range(n_hyper))


def test_out_of_memory_splits_and_gives_the_same_frames(rng):
    frames = rng.integers(0, 256, (24, 5, 6, 4), dtype=np.uint8)
    plan = SampleSchedule(fps=10, shutter_deg=720, samples=4).plan(10)  # overlapping
    assert plan.overlap == 2

    def run(limit):
        calls = []

        def picky_fuse(h, windows, lens=None, backend=None):
            calls.append(h.frame_count)
            if h.frame_count > limit:
                raise MemoryError("simulated: out of memory")
            return hf.fuse(h, windows, backend="cpu")

        stats = type("S", (), {"frames_written": 0, "total_frames": 10,
                               "device_to_host_bytes": 0, "extra": {}})()
        sink = MemoryWriter()
        pool = FusionPool(plan, sink, "cpu", stats, workers=2, fuse_fn=picky_fuse)
        pool.start()
        pool.submit(hf.HyperFrame(frames[:22], first_index=0, overlap=plan.overlap))
        pool.finish()
        return np.stack(sink.frames), stats, calls

    whole, _, _ = run(limit=99)
    split, stats, calls = run(limit=6)
    np.testing.assert_array_equal(split, whole)
    # 22 failed, its halves (11 + 13) too, their halves fit: every frame still came out
    assert calls[0] == 22 and stats.extra["retries"] >= 3
    assert len(whole) == 10


def test_other_errors_stop_the_render_at_once():
    plan = SampleSchedule(fps=10, samples=2).plan(6)
    stats = type("S", (), {"frames_written": 0, "total_frames": 6,
                           "device_to_host_bytes": 0, "extra": {}})()

    def broken(h, windows, lens=None, backend=None):
        raise RuntimeError("kernel bug")

    pool = FusionPool(plan, MemoryWriter(), "cpu", stats, fuse_fn=broken)
    pool.start()
    pool.submit(hf.HyperFrame(np.zeros((4, 1, 1, 3), np.uint8)))
    deadline = time.time() + 5
    while pool.error is None and time.time() < deadline:
        time.sleep(0.01)
    from hfrender.engine.core import FusionError

    with pytest.raises(FusionError, match="fusion failed: RuntimeError: kernel bug") as info:
        pool.submit(hf.HyperFrame(np.zeros((4, 1, 1, 3), np.uint8), first_index=4))
    assert isinstance(info.value.__cause__, RuntimeError)  # the original is kept
    pool.finish()
    assert stats.extra.get("retries") is None and sink_frames(pool) == 0


def sink_frames(pool):
    return pool.writer.frames_written


def test_a_slow_writer_holds_fusion_back_instead_of_piling_frames(rng):
    plan = SampleSchedule(fps=10, samples=1).plan(300)
    stats = type("S", (), {"frames_written": 0, "total_frames": 300,
                           "device_to_host_bytes": 0, "extra": {}})()
    peak = {"held": 0}

    class SlowSink(MemoryWriter):
        def write(self, frame):
            peak["held"] = max(peak["held"], pool.reorder.held)
            time.sleep(0.001)
            super().write(frame)

    pool = FusionPool(plan, SlowSink(), "cpu", stats, workers=2,
                      fuse_fn=lambda h, w, lens=None, backend=None: h.frames[w.starts])
    pool.start()
    for i in range(0, 300, 30):
        pool.submit(hf.HyperFrame(np.full((30, 1, 1, 3), 1, np.uint8), first_index=i))
    pool.finish()
    assert stats.frames_written == 300 and peak["held"] <= pool.reorder.capacity + 30
