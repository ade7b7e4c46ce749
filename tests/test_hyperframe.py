import threading
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hfrender as hf
from hfrender.hyperframe.frame import Status


def make_pool(capacity=8, slots=3, shape=(6, 5, 3), depth=False, dtype=np.uint8):
    return hf.HyperFramePool(shape, dtype, capacity, depth=depth, slots=slots)


def test_pool_is_one_arena_of_fixed_slots():
    pool = hf.HyperFramePool((4, 6, 4), np.uint8, capacity=5, depth=True, max_in_flight=2)
    assert pool.slot_count == 3  # ceil(2 x 1.5)
    slots = [pool.acquire() for _ in range(3)]
    for s in slots:
        assert s.frames.shape == (5, 4, 6, 4) and s.depth.shape == (5, 4, 6)
        assert np.shares_memory(s.frames, pool.arena) and np.shares_memory(s.depth, pool.arena)
        assert s.frames.ctypes.data % 4096 == 0
    for a in slots:
        for b in slots:
            if a is not b:
                assert not np.shares_memory(a.frames, b.frames)
    assert pool.nbytes >= 3 * 5 * (4 * 6 * 4 + 4 * 6 * 4)


def test_acquire_blocks_until_release_and_times_out():
    pool = make_pool(slots=1)
    slot = pool.acquire()
    with pytest.raises(TimeoutError, match="no free hyperframe slot after 0.05 s: all 1 slots"):
        pool.acquire(timeout=0.05)
    got = []
    t = threading.Thread(target=lambda: got.append(pool.acquire(timeout=5)))
    t.start()
    time.sleep(0.1)
    assert got == [] and t.is_alive()  # blocked: back-pressure
    pool.release(slot)
    t.join(2)
    assert got == [slot] and pool.waits == 2


def test_a_stream_that_never_releases_a_hyperframe_is_told_while_it_waits(monkeypatch, caplog):
    """A builder's pool with every slot in flight and none ever released waits for ever
    (a single-threaded user who forgot ``release()``): after ``STUCK_S`` it says so, once,
    and goes on waiting; a pool that has had a slot back (a slow fusion) says nothing."""
    from hfrender.hyperframe import pool as pool_module

    monkeypatch.setattr(pool_module, "STUCK_S", 0.1)
    pool = make_pool(slots=1)
    slot = pool.acquire()
    got = []
    with caplog.at_level("WARNING", logger="hfrender.hyperframe.pool"), \
            pytest.warns(RuntimeWarning, match=r"^waiting 0\.1 s for a free hyperframe slot"):
        t = threading.Thread(target=lambda: got.append(pool.acquire()))
        t.start()
        time.sleep(0.4)
        assert got == [] and t.is_alive()  # still waiting, for ever
        pool.release(slot)
        t.join(2)
        assert got == [slot]
        assert [r.getMessage() for r in caplog.records] == [
            "waiting 0.1 s for a free hyperframe slot: all 1 are in flight and none has been "
            "released yet (call each hyperframe's .release() once it is fused: its slot goes "
            "back to the pool)"]
        caplog.clear()
        t = threading.Thread(target=lambda: got.append(pool.acquire()))
        t.start()
        time.sleep(0.3)  # one slot came back before: a slow consumer, not a stuck one
        pool.release(slot)
        t.join(2)
    assert len(got) == 2 and caplog.records == []
    # hfrender's own runs (render, fx, reexpose) wait on a slow first fusion: no warning
    own = hf.HyperFrameBuilder.create((6, 5, 3), np.uint8, granularity=4, max_in_flight=1)
    held = [own.pool.acquire() for _ in range(own.pool.slot_count)]
    t = threading.Thread(target=lambda: got.append(own.pool.acquire()))
    with caplog.at_level("WARNING", logger="hfrender.hyperframe.pool"):
        t.start()
        time.sleep(0.3)
        own.pool.release(held[0])
        t.join(2)
    assert len(got) == 3 and caplog.records == []


def test_release_twice_is_an_error():
    pool = make_pool()
    slot = pool.acquire()
    pool.release(slot)
    with pytest.raises(ValueError, match="slot 0 is not in use"):
        pool.release(slot)


def test_a_released_hyperframe_is_not_fused(rng):
    """Was: fused, reading the frames the pool's next hyperframe put in its slot."""
    pool = make_pool(capacity=4)
    b = hf.HyperFrameBuilder(pool, halo=0)
    w = hf.WindowWeights.sliding(np.ones(2) / 2, 2, 2)
    for j in range(4):
        first = b.push(np.full((6, 5, 3), 10, np.uint8), t=j)
    np.testing.assert_array_equal(hf.fuse(first, w, linear_light=False), 10)
    first.release()
    for j in range(4):
        b.push(np.full((6, 5, 3), 200, np.uint8), t=4 + j)
    with pytest.raises(hf.InputError, match=r"^this hyperframe was released: its slot holds "
                       r"another's frames now; fuse it before release\(\)$"):
        hf.fuse(first, w, linear_light=False)


def test_split_returns_views_and_shares_the_slot(rng):
    pool = make_pool(capacity=10, depth=True)
    b = hf.HyperFrameBuilder(pool, halo=0)
    for j in range(10):
        out = b.push(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8), t=j / 30,
                     depth=np.full((6, 5), j + 1, np.float32))  # (metres > 0)
    hf_ = out
    assert hf_.frame_count == 10 and hf_.size_bytes == 10 * (6 * 5 * 3 + 6 * 5 * 4)
    assert hf_.status is Status.PENDING and hf_.retry_count == 0 and hf_.created_at > 0
    a, c = hf_.split(4, halo=2)
    assert np.shares_memory(a.frames, hf_.frames) and np.shares_memory(c.frames, hf_.frames)
    assert a.frame_count == 4 and c.frame_count == 8 and c.halo == 2 and c.first_index == 2
    assert c.depth[0, 0, 0] == 3 and np.allclose(c.timestamps, np.arange(2, 10) / 30)
    free = pool.free_count
    a.release()
    assert pool.free_count == free  # c still holds the slot
    c.release()
    assert pool.free_count == free + 1
    with pytest.raises(ValueError, match=r"split index i=10 must be in \[1, 9\]"):
        hf_.split(10)



def test_a_split_hyperframe_is_released_with_its_last_part(rng):
    """Was: the parent stayed fusable after both halves gave the slot back, reading the
    frames the pool's next hyperframe put there."""
    pool = make_pool(capacity=4)
    b = hf.HyperFrameBuilder(pool, halo=0)
    w = hf.WindowWeights.sliding(np.ones(2) / 2, 2, 2)
    for j in range(4):
        whole = b.push(np.full((6, 5, 3), 10 + 20 * j, np.uint8), t=j)
    first, second = whole.split(2, halo=0)
    left, right = second.split(1, halo=0)  # a part split again
    first.release()
    left.release()
    assert not whole.released and not second.released
    np.testing.assert_array_equal(hf.fuse(whole, w, linear_light=False)[:, 0, 0, 0],
                                  [20, 60])
    right.release()
    assert second.released and whole.released
    for j in range(4):
        b.push(np.full((6, 5, 3), 200, np.uint8), t=4 + j)
    for released in (whole, second):
        with pytest.raises(hf.InputError, match=r"^this hyperframe was released: "):
            hf.fuse(released, w, linear_light=False)

def test_builder_carries_halo_frames_and_flushes_the_rest(rng):
    pool = make_pool(capacity=6)
    b = hf.HyperFrameBuilder(pool, halo=2)
    frames = rng.integers(0, 256, (15, 6, 5, 3), dtype=np.uint8)
    got = []
    for j, f in enumerate(frames):
        out = b.push(f, t=j * 0.5)
        if out is not None:
            got.append(out)
            out_copy = (out.first_index, out.halo, out.frames.copy(), out.timestamps.copy())
            out.release()
            got[-1] = out_copy
    last = b.flush_remaining()
    got.append((last.first_index, last.halo, last.frames.copy(), last.timestamps.copy()))
    last.release()
    assert [(g[0], g[1], len(g[2])) for g in got] == [(0, 0, 6), (4, 2, 6), (8, 2, 6), (12, 2, 3)]
    for first, _, fr, ts in got:
        np.testing.assert_array_equal(fr, frames[first : first + len(fr)])
        np.testing.assert_allclose(ts, np.arange(first, first + len(fr)) * 0.5)
    assert b.flush_remaining() is None and pool.free_count == pool.slot_count


def test_no_allocation_after_warm_up(rng):
    pool = make_pool(capacity=16, shape=(64, 64, 4))
    b = hf.HyperFrameBuilder(pool, halo=3)
    frame = rng.integers(0, 256, (64, 64, 4), dtype=np.uint8)

    def cycle(n):
        for _ in range(n):
            out = b.push(frame, t=b.frames_pushed)  # times go on from the warm-up's
            if out is not None:
                out.release()

    cycle(40)  # warm-up
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    cycle(400)  # 30 hyperframes
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(d.size_diff for d in after.compare_to(before, "filename") if d.size_diff > 0)
    assert grown < 16 * 1024, grown  # far below one 16 KiB frame: nothing per frame


def test_auto_granularity_follows_memory_and_output_frames():
    fb = 640 * 360 * 4
    # plenty of memory: the cap, rounded down to halo + whole outputs of 8 sub-frames
    assert hf.auto_granularity(fb, frames_per_output=8, halo=0, cap=64, free_bytes=1 << 40) == 64
    assert hf.auto_granularity(fb, frames_per_output=8, halo=3, cap=64, free_bytes=1 << 40) == 59
    # little memory: free / frame_bytes / 2 shared by 3 slots = 20 -> 2 outputs of 8
    assert hf.auto_granularity(fb, frames_per_output=8, slots=3, free_bytes=fb * 120) == 16
    # never less than one output frame
    assert hf.auto_granularity(fb, frames_per_output=8, halo=2, free_bytes=fb) == 10


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), window=st.integers(1, 6), stride=st.integers(1, 4),
       extra=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_hyperframes_with_halo_compute_every_window_once(n, window, stride, extra, seed):
    """Streaming through small hyperframes gives motion_blur over the whole sequence."""
    if window > n:
        return
    rng = np.random.default_rng(seed)
    frames = rng.integers(0, 256, (n, 3, 2, 3), dtype=np.uint8)
    w = hf.curve_weights("triangle", window)
    halo = window - 1
    pool = make_pool(capacity=halo + extra, shape=(3, 2, 3))
    b = hf.HyperFrameBuilder(pool, halo=halo)
    outputs = {}

    def consume(h):
        k0, ww = hf.sliding_in_span(w, stride, h.first_index, h.halo, h.frame_count)
        parts = [(k0, ww, h)]
        if h.frame_count > 1:  # also check that split halves compute the same windows
            i = int(rng.integers(1, h.frame_count))
            parts = []
            for part in h.split(i):
                pk0, pww = hf.sliding_in_span(w, stride, part.first_index, part.halo,
                                              part.frame_count)
                parts.append((pk0, pww, part))
        for pk0, pww, part in parts:
            res = hf.fuse(part, pww, linear_light=False)
            for i in range(pww.count):
                assert pk0 + i not in outputs, "window computed twice"
                outputs[pk0 + i] = res[i]
            part.release()

    for j, f in enumerate(frames):
        h = b.push(f, t=j)
        if h is not None:
            consume(h)
    h = b.flush_remaining()
    if h is not None:
        consume(h)
    expected = hf.motion_blur(frames, window, stride=stride, weights=w, linear_light=False)
    assert sorted(outputs) == list(range(len(expected)))
    np.testing.assert_array_equal(np.stack([outputs[k] for k in sorted(outputs)]), expected)
    assert pool.free_count == pool.slot_count


def test_builder_create_sizes_its_pool_automatically_or_as_told():
    b = hf.HyperFrameBuilder.create((36, 64, 4), np.uint8, frames_per_output=8, halo=0,
                                    depth=True, max_in_flight=2)
    assert b.pool.capacity % 8 == 0 and 8 <= b.pool.capacity <= 64
    assert b.pool.slot_count == 3 and b.pool.has_depth
    b = hf.HyperFrameBuilder.create((36, 64, 4), frames_per_output=4, halo=3, granularity=11)
    assert b.pool.capacity == 11 and b.halo == 3
    with pytest.raises(ValueError, match=r"granularity=6 must be 'auto' or an integer >= 7 "
                                         r"\(halo 3 \+ one output of 4\)"):
        hf.HyperFrameBuilder.create((36, 64, 4), frames_per_output=4, halo=3, granularity=6)


def test_frames_pushed_counts_global_frames(rng):
    pool = make_pool(capacity=4)
    b = hf.HyperFrameBuilder(pool)
    for j in range(6):
        h = b.push(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8), t=j)
        if h is not None:
            h.release()
        assert b.frames_pushed == j + 1
    b.flush_remaining().release()
    assert b.frames_pushed == 6


def test_split_detaches_the_parent_and_checks_halo(rng):
    pool = make_pool(capacity=4, slots=1)
    b = hf.HyperFrameBuilder(pool)
    for j in range(4):
        h = b.push(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8), t=j)
    with pytest.raises(ValueError, match="halo=-1 must be >= 0"):
        h.split(2, halo=-1)
    a, c = h.split(2)
    h.release()  # a no-op now: the halves own the slot
    a.release()
    assert pool.free_count == 0
    c.release()
    assert pool.free_count == 1


def test_fuse_checks_out():
    h = hf.HyperFrame(np.zeros((4, 2, 2, 3), np.uint8))
    ww = hf.WindowWeights.sliding(np.ones(2) / 2, 2, 2)
    with pytest.raises(ValueError, match=r"out is float32 \(2, 2, 2, 3\); expected a writable "
                                         r"C-contiguous uint8 NumPy array of shape \(2, 2, 2, 3\)"):
        hf.fuse(h, ww, out=np.zeros((2, 2, 2, 3), np.float32))
    out = np.full((2, 2, 2, 3), 9, np.uint8)
    assert hf.fuse(h, ww, out=out) is out and out.max() == 0


def test_a_host_arena_is_page_aligned_pages_of_its_own():
    """Not NumPy's array: NumPy asks the kernel for huge pages on large arrays, and with
    THP's defrag = madvise (Ubuntu's default) the first touch of a pool could stall for
    seconds while memory was compacted (benchmarks/RESULTS.md, hdr.py)."""
    import mmap

    from hfrender.hyperframe.pool import ALIGN, HostStorage

    arena = HostStorage().allocate(3 * 2**20 + 5)
    assert arena.size == 3 * 2**20 + 5 and arena.ctypes.data % ALIGN == 0
    assert isinstance(arena.base, memoryview) and isinstance(arena.base.obj, mmap.mmap)
    arena[::4096] = 7  # writable, every page
    assert int(arena[::4096].sum()) == 7 * len(range(0, arena.size, 4096))


def test_a_hyperframes_repr_is_its_shapes_not_its_arrays():
    """The dataclass repr dumped every array: 874 characters for 2 frames of 4x4 (a trial),
    in every log line or debugger view."""
    import hfrender as hf

    h = hf.HyperFrame(np.zeros((2, 4, 4, 3), np.uint8), depth=np.ones((2, 4, 4), np.float32),
                      timestamps=np.array([0.5, 0.75]), first_index=8, halo=1)
    assert repr(h) == ("HyperFrame((2, 4, 4, 3) uint8, depth (2, 4, 4), t 0.5..0.75 s, "
                       "first 8, halo 1, pending)")
    assert issubclass(hf.StoreError, hf.InputError)  # exported, to be caught by name


def test_a_single_threaded_user_who_never_releases_is_told_at_once(monkeypatch):
    """A library user's loop that never calls release() hung without a word (the notice was
    a log line, silent unless logging is set up): with no other thread to release a slot,
    the wait is refused at once; with one, the notice after STUCK_S is a Python warning."""
    from hfrender.errors import InputError
    from hfrender.hyperframe import pool as pool_module

    pool = make_pool(slots=2)
    held = [pool.acquire(), pool.acquire()]
    me = threading.current_thread()
    monkeypatch.setattr(pool_module.threading, "enumerate", lambda: [me])
    with pytest.raises(InputError, match=r"^all 2 hyperframe slots are in flight and no other "
                                         r"thread runs to release one: call each hyperframe's "
                                         r"\.release\(\) once it is fused"):
        pool.acquire()
    with pytest.raises(TimeoutError):  # a timeout given: its own answer
        pool.acquire(timeout=0.05)
    other = threading.Thread(target=lambda: None, name="a user's consumer")
    monkeypatch.setattr(pool_module.threading, "enumerate", lambda: [me, other])
    monkeypatch.setattr(pool_module, "STUCK_S", 0.05)
    timer = threading.Timer(0.3, pool.release, [held[0]])
    timer.start()
    with pytest.warns(RuntimeWarning, match=r"^waiting 0\.05 s for a free hyperframe slot: "
                                            r"all 2 are in flight") as said:
        assert pool.acquire() is held[0]
    timer.join()
    assert said[0].filename == __file__  # the user's line that waits, not the pool's


def test_hfrenders_own_threads_release_no_slot(monkeypatch):
    """A script that called an effect first (its band and FFT threads then live on) and
    never releases its hyperframes waited 30 s, warned and hung: hfrender's threads were
    counted as ones that could release a slot (a library user's trial). The wait is refused
    at once, as where no thread runs."""
    from hfrender.hyperframe import pool as pool_module

    rng = np.random.default_rng(3)
    hf.motion_blur(rng.integers(0, 256, (2, 256, 512, 3), np.uint8), window=2)  # bands
    me, everyone = threading.current_thread(), threading.enumerate()
    own = [t for t in everyone if t.name.startswith("hfrender-band")]
    assert own  # the band threads run, as in the user's script
    monkeypatch.setattr(pool_module.threading, "enumerate", lambda: [me, *own])  # no others
    monkeypatch.setattr(pool_module, "STUCK_S", 0.05)
    pool = make_pool(slots=1)
    held = pool.acquire()
    timer = threading.Timer(1.0, pool.release, [held])  # (before the fix: its wait's end)
    timer.start()
    try:
        with pytest.raises(hf.InputError, match=r"^all 1 hyperframe slots are in flight and no "
                                                r"other thread runs to release one"):
            pool.acquire()
    finally:
        timer.join()
