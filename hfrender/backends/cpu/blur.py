"""Temporal fusion on the CPU: weighted windows of frames -> output frames.

Two paths compute the same function:

* :func:`box_running` — box weights, O(1) per output frame: a running sum adds the frames
  that enter the window and subtracts those that leave. 8-bit frames (and 16-bit code
  values) are summed as exact integers; the rounding bias is folded into the sum, so
  the output is one integer division (or one table lookup) away.
* :func:`fuse_windows` — any banded weights, with optional per-frame depth of field.
  Frame-major: each frame is decoded (and defocused) once and added to every open
  output that uses it, so overlapping windows never decode a frame twice.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from hfrender.backends.cpu.color import LOOKUP_CHUNK, Transfer, lookup
from hfrender.color import RUNNING_LIMIT, decode16_table, encode8_table
from hfrender.hyperframe.pool import OWN_THREADS
from hfrender.hyperframe.windows import WindowWeights
from hfrender.limits import usable_cores

MIN_BAND_ROWS = 16  # rows per thread, at least
MIN_PARALLEL_BYTES = 1 << 18  # frames smaller than this are not worth a thread

_pools: dict[str, tuple[int, ThreadPoolExecutor]] = {}  # name: (pid, pool), one per process
_pools_lock = threading.Lock()
SCRATCH_KEEP_BYTES = 64 << 20  # work arrays kept between calls, all threads together


class _Scratch(dict):
    """One thread's work buffers by name (a dict that can be weakly referenced)."""

    __eq__ = object.__eq__  # one store per thread, told apart by identity
    __hash__ = object.__hash__


_local = threading.local()
_scratches: weakref.WeakSet[_Scratch] = weakref.WeakSet()  # a thread's goes when it ends


def _after_fork() -> None:  # a child forked while a parent thread held the lock
    global _pools, _pools_lock
    _pools, _pools_lock = {}, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def thread_pool(name: str, workers: int) -> ThreadPoolExecutor:
    """The threads called ``name``, started once per process (a fork gets its own):
    streaming callers fuse a hyperframe every few milliseconds, and starting threads for
    each costs more."""
    with _pools_lock:
        kept = _pools.get(name)
        if kept is None or kept[0] != os.getpid():
            kept = _pools[name] = (os.getpid(), ThreadPoolExecutor(
                workers, thread_name_prefix=f"{OWN_THREADS}{name}"))
        return kept[1]


def _band_pool() -> ThreadPoolExecutor:
    """The band threads, one per usable core (was: one per CPU of the machine, a
    container's ``--cpus 2`` or ``taskset -c 0`` on 64 cores ran 64)."""
    return thread_pool("band", usable_cores())


def scratch(name: str, shape: tuple, dtype: np.dtype | type) -> np.ndarray:
    """A work array of this thread, kept between calls (one buffer per ``name``, grown as
    needed, so bands a row apart share it): fresh memory costs a page fault and a page
    clear per 4 KiB, more than the blending that uses it. A thread keeps at most its share
    of :data:`SCRATCH_KEEP_BYTES` (one per usable core); beyond that a work array lasts one call.
    :func:`release_scratch` frees them all."""
    store = getattr(_local, "store", None)
    if store is None:
        store = _local.store = _Scratch()
        _scratches.add(store)
    dtype = np.dtype(dtype)
    need = int(np.prod(shape)) * dtype.itemsize
    buf = store.get(name)
    if buf is None or buf.nbytes < need:
        store.pop(name, None)
        buf = np.empty(max(need, 1), np.uint8)
        share = SCRATCH_KEEP_BYTES // usable_cores()
        if need + sum(b.nbytes for b in store.values()) <= share:
            store[name] = buf
    return buf[:need].view(dtype).reshape(shape)


def release_scratch() -> None:
    """Free the work arrays every thread keeps for its next call."""
    for store in list(_scratches):
        store.clear()


def in_bands(fn: Callable[[np.ndarray, np.ndarray], object], frames: np.ndarray,
             out: np.ndarray, workers: int | None = None) -> np.ndarray:
    """Run ``fn(frames_band, out_band)`` on horizontal bands of rows, one thread per band.

    NumPy releases the GIL in its loops, so bands run truly in parallel; each band walks the
    whole sequence on its own, with no synchronisation per frame. Every band has ended when
    this returns or raises (also on Ctrl-C): none writes into ``out`` afterwards.
    """
    h = frames.shape[1]
    n = min(workers or usable_cores(), max(1, h // MIN_BAND_ROWS))
    if n <= 1 or frames[0].nbytes < MIN_PARALLEL_BYTES:
        fn(frames, out)
        return out
    edges = np.linspace(0, h, n + 1).astype(int)
    pool = _band_pool()
    jobs = [pool.submit(fn, frames[:, a:b], out[:, a:b])
            for a, b in zip(edges[:-1], edges[1:], strict=True)]
    try:
        wait(jobs)
    except BaseException:  # Ctrl-C: bands not started are dropped, running ones finish
        for job in jobs:
            job.cancel()
        wait(jobs)
        raise
    for job in jobs:
        job.result()
    return out


def box_running(frames: np.ndarray, window: int, stride: int, linear_light: bool,
                out: np.ndarray) -> np.ndarray:
    """``out[k]`` = mean of ``frames[k*stride : k*stride + window]``, rounded to nearest."""
    return in_bands(lambda f, o: _box_band(f, window, stride, linear_light, o), frames, out)


def _box_band(frames: np.ndarray, window: int, stride: int, linear_light: bool,
              out: np.ndarray) -> np.ndarray:
    dt = frames.dtype
    int_linear = linear_light and dt == np.uint8
    if dt.kind == "f" or (linear_light and dt == np.uint16):
        return _box_float(frames, window, stride, Transfer(dt, frames.shape[-1], linear_light), out)
    top = 65535 if int_linear else int(np.iinfo(dt).max)
    acc_dt = np.uint16 if top * window + window // 2 <= 65535 else np.uint32
    if top * window + window // 2 > np.iinfo(np.uint32).max:
        acc_dt = np.uint64
    shape = frames.shape[1:]
    acc = scratch("acc_int", shape, acc_dt)
    lin16 = scratch("lin16", shape, np.uint16) if int_linear else None
    quot = scratch("quot", shape, np.uint16) if int_linear else None
    index = scratch("index", (LOOKUP_CHUNK,), np.intp) if int_linear else None
    alpha32 = scratch("alpha32", shape[:-1], np.uint32) if int_linear and shape[-1] == 4 \
        else None
    alpha = shape[-1] == 4

    def as_int(f: np.ndarray) -> np.ndarray:
        if lin16 is None:
            return f
        lookup(decode16_table(), f, lin16, index)
        if alpha:  # alpha is linear already: 255 * 257 = 65535
            np.multiply(f[..., 3], np.uint16(257), out=lin16[..., 3], casting="unsafe")
        return lin16

    def emit(k: int) -> None:
        if quot is None:
            np.floor_divide(acc, window, out=out[k], casting="unsafe")
            return
        np.floor_divide(acc, window, out=quot, casting="unsafe")
        lookup(encode8_table(), quot, out[k], index)
        if alpha32 is not None:  # 16-bit linear alpha back to 8 bits, in 32 bits: no wrap
            np.add(quot[..., 3], np.uint32(128), out=alpha32)
            np.floor_divide(alpha32, np.uint32(257), out=out[k][..., 3], casting="unsafe")

    _running(frames, window, stride, out.shape[0], acc, window // 2,
             lambda j: as_int(frames[j]), emit)
    return out




def _box_float(frames: np.ndarray, window: int, stride: int, tf: Transfer,
               out: np.ndarray) -> np.ndarray:
    shape = frames.shape[1:]
    acc = scratch("acc_float", shape, np.float64)
    lin = scratch("lin", shape, np.float32)
    mean = scratch("mean", shape, np.float32)
    scale = 1.0 / window
    bright: set[int] = set()  # float32 frames with light past RUNNING_LIMIT
    looked: set[int] = set()

    def emit(k: int) -> None:
        np.multiply(acc, scale, out=mean, casting="unsafe")
        tf.encode(mean, out[k])

    def value(j: int) -> np.ndarray:
        if frames.dtype != np.float32:  # (16-bit and half light stay under the limit)
            return tf.decode(frames[j], lin)
        if j not in looked and stride < window:  # once a frame, as it enters (a sum of
            looked.add(j)  # its own a window, with nothing subtracted, needs no look)
            if _past_limit(frames[j]):
                bright.add(j)
        return frames[j]  # linear light already: added as it is (no copy a frame)

    def refresh(gone: range, s: int) -> None:
        """The pixels where light past the limit (or a NaN) left: their window summed
        afresh."""
        if bright.isdisjoint(gone):
            return
        where = np.nonzero(np.logical_or.reduce(
            [~(np.abs(frames[j]) < RUNNING_LIMIT) for j in bright.intersection(gone)]))
        acc[where] = 0.0
        for j in range(s, s + window):
            acc[where] += frames[j][where]

    _running(frames, window, stride, out.shape[0], acc, 0, value, emit, refresh)
    return out


_LIMIT_BITS = np.array(RUNNING_LIMIT, np.float32).view(np.uint32)


def _past_limit(frame: np.ndarray) -> bool:
    """Whether a float32 frame may hold light of magnitude RUNNING_LIMIT or more, or a NaN
    (which, subtracted, would stay in the sum to the clip's end; the pixels are then found
    one by one): one pass over its bits where no sign bit is set (their order is the
    numbers' there, a NaN's past any: half the cost of a max and a min), else a look at
    every magnitude."""
    top = frame.view(np.uint32).max()
    if top < 0x80000000:
        return bool(top >= _LIMIT_BITS)
    return bool((~(np.abs(frame) < RUNNING_LIMIT)).any())


def _running(frames: np.ndarray, window: int, stride: int, count: int, acc: np.ndarray,
             bias: int, value: Callable[[int], np.ndarray], emit: Callable[[int], None],
             refresh: Callable[[range, int], None] | None = None) -> None:
    """Drive a running sum over ``count`` windows; ``emit(k)`` reads ``acc`` for output k.
    ``value(j)``: frame j as it is summed; ``refresh(gone, s)``: mends the sums after the
    frames ``gone`` left the window that now starts at ``s``."""
    incremental = stride < window  # else a fresh sum costs less than add + subtract
    for k in range(count):
        s = k * stride
        if k == 0 or not incremental:
            acc.fill(bias)
            for j in range(s, s + window):
                np.add(acc, value(j), out=acc, casting="unsafe")
        else:
            for j in range(s - stride, s):
                np.subtract(acc, value(j), out=acc, casting="unsafe")
            for j in range(s - stride + window, s + window):
                np.add(acc, value(j), out=acc, casting="unsafe")
            if refresh is not None:
                refresh(range(s - stride, s), s)
        emit(k)


DefocusFn = Callable[[np.ndarray, int], np.ndarray]


def fuse_windows(frames: np.ndarray, weights: WindowWeights, tf: Transfer, out: np.ndarray,
                 defocus: DefocusFn | None = None) -> np.ndarray:
    """``out[k] = encode(sum_i rows[k, i] * f(decode(frames[starts[k] + i])))``.

    ``f`` is ``defocus(linear_frame, frame_index)`` when given, else identity. Memory:
    one float32 accumulator per output whose window is open at once.
    """
    starts = weights.starts
    rows = weights.rows
    m = weights.count
    if m == 0:
        return out
    ends = weights.ends()
    shape = frames.shape[1:]
    lin = np.empty(shape, np.float32)
    tmp = np.empty(shape, np.float32)
    free: list[np.ndarray] = []
    active: dict[int, np.ndarray] = {}
    nxt = 0
    for j in range(int(starts[0]), int(ends.max())):
        while nxt < m and starts[nxt] <= j:
            active[nxt] = free.pop() if free else np.empty(shape, np.float32)
            active[nxt].fill(0.0)
            nxt += 1
        users = [(k, rows[k, j - starts[k]]) for k in active
                 if j < ends[k] and rows[k, j - starts[k]] != 0]
        if users:
            src = frames[j] if frames.dtype == np.float32 and defocus is None \
                else tf.decode(frames[j], lin)
            if defocus is not None:
                src = defocus(src, j)
            for k, wk in users:
                np.multiply(src, np.float32(wk), out=tmp)
                active[k] += tmp
        for k in [k for k in active if ends[k] == j + 1]:
            acc = active.pop(k)
            tf.encode(acc, out[k])
            free.append(acc)
    return out
