"""Hyperframes: many frames in one contiguous block, allocated once, moved as a unit.

A :class:`HyperFramePool` owns one arena cut into fixed slots. A :class:`HyperFrame`
is a *view* into a slot (never a fresh ``np.stack``); splitting one gives two views of
the same slot. ``acquire`` blocks when every slot is in flight: that is the pipeline's
back-pressure. The arena's memory comes from a pluggable storage (host memory here; a
GL buffer or CUDA memory plug in the same way).
"""

from __future__ import annotations

import logging
import math
import mmap
import os
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from hfrender.errors import InputError, shown
from hfrender.hyperframe.frame import HyperFrame, Status  # noqa: F401 - their old home
from hfrender.numeric import whole_number
from hfrender.sizes import bytes_said
from hfrender.validate import CHANNELS, integer, pixel_dtype

FRAME_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))

ALIGN = 4096  # slots and their depth planes start on page boundaries
# a wait this long for a slot of a pool that has had none released yet is told once: a
# stream whose hyperframes are never released (.release(), once fused) waits for ever
STUCK_S = 30.0
# the names of the threads hfrender starts for its own work (the effects' bands and FFTs):
# none of them releases a library user's hyperframe
OWN_THREADS = "hfrender-"
log = logging.getLogger(__name__)


def _frame_shape(shape: Any) -> tuple[int, int, int]:
    """``(H, W, C)``: whole sizes >= 1 and C a number of channels the fusion takes (was:
    (H, W, 2) or (4.5, 4, 3) taken, the first refused at fuse, the second cut to 4)."""
    dims = tuple(shape) if isinstance(shape, (tuple, list, np.ndarray)) else ()
    ok = len(dims) == 3 and all(whole_number(n) and n >= 1 for n in dims)
    if not ok or dims[2] not in CHANNELS:
        raise InputError(f"frame_shape={shown(shape)} must be (H, W, C): whole sizes >= 1, C 1 "
                         "(gray), 3 (RGB) or 4 (RGBA)")
    return tuple(int(n) for n in dims)


def _callers_level() -> int:
    """The ``stacklevel`` of the first frame outside hfrender (a warning names the user's
    line that waits, not the pool's: a review)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _others_run() -> bool:
    """Whether a thread runs besides this one and hfrender's own workers (:data:`OWN_THREADS`),
    one that could release a slot."""
    me = threading.current_thread()
    return any(t is not me and not t.name.startswith(OWN_THREADS)
               for t in threading.enumerate())


def slot_count(max_in_flight: int) -> int:
    """Slots a pool holds for ``max_in_flight`` hyperframes in flight: 1.5 times as many."""
    return math.ceil(1.5 * max_in_flight)


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


@dataclass(frozen=True)
class SlotLayout:
    """How one slot is laid out: ``capacity`` frames, then (each aligned) their depth
    planes (float32 metres) and velocity planes (float32 pixels per second, x then y)."""

    capacity: int
    frame_shape: tuple[int, int, int]
    dtype: np.dtype
    depth: bool
    velocity: bool = False

    @property
    def frame_bytes(self) -> int:
        return int(np.prod(self.frame_shape)) * self.dtype.itemsize

    @property
    def depth_bytes(self) -> int:
        return self.frame_shape[0] * self.frame_shape[1] * 4 if self.depth else 0

    @property
    def velocity_bytes(self) -> int:
        return self.frame_shape[0] * self.frame_shape[1] * 8 if self.velocity else 0

    @property
    def color_bytes(self) -> int:
        return _aligned(self.capacity * self.frame_bytes)

    @property
    def velocity_offset(self) -> int:
        """Where the velocity planes start in a slot."""
        return self.color_bytes + _aligned(self.capacity * self.depth_bytes)

    @property
    def slot_bytes(self) -> int:
        return self.velocity_offset + _aligned(self.capacity * self.velocity_bytes)

    @property
    def sub_frame_bytes(self) -> int:
        """One sub-frame's bytes: its colour, depth and velocity planes (unaligned)."""
        return self.frame_bytes + self.depth_bytes + self.velocity_bytes

    def views(self, buf: Any, base: int) -> tuple[Any, Any, Any]:
        """(frames, depth, velocity) array views of one slot at byte ``base`` of ``buf``."""
        frames = buf[base : base + self.capacity * self.frame_bytes]
        frames = frames.view(self.dtype).reshape((self.capacity,) + self.frame_shape)
        h, w = self.frame_shape[:2]
        dplane = vplane = None
        if self.depth:
            d0 = base + self.color_bytes
            dplane = buf[d0 : d0 + self.capacity * self.depth_bytes]
            dplane = dplane.view(np.float32).reshape((self.capacity, h, w))
        if self.velocity:
            v0 = base + self.velocity_offset
            vplane = buf[v0 : v0 + self.capacity * self.velocity_bytes]
            vplane = vplane.view(np.float32).reshape((self.capacity, h, w, 2))
        return frames, dplane, vplane


def sub_frame_bytes(frame_shape: tuple[int, int, int], dtype: Any, depth: bool = False,
                    velocity: bool = False) -> int:
    """One sub-frame's bytes in a slot of :class:`SlotLayout`: its colour and, where kept,
    its depth and velocity planes."""
    return SlotLayout(1, tuple(frame_shape), np.dtype(dtype), depth, velocity).sub_frame_bytes


class FrameTarget(NamedTuple):
    """Where one frame is written: its colour, and its depth and velocity planes (or None)."""

    color: Any
    depth: Any = None
    velocity: Any = None


class Slot:
    """One fixed region of the pool: ``capacity`` frames, their depth, velocity, timestamps.

    Host slots are arrays the producer fills in place. Other storages (a GL buffer
    shared with CUDA) override the hooks: ``target`` (where frame i is written),
    ``copy_from`` (carrying halo frames), ``publish`` (make the frames readable as arrays
    before fusion) and ``reclaim`` (hand them back to the producer).
    """

    def __init__(self, index: int, frames: Any, depth: Any, velocity: Any = None,
                 capacity: int | None = None) -> None:
        self.index = index
        self.frames = frames
        self.depth = depth
        self.velocity = velocity
        n = frames.shape[0] if capacity is None else capacity
        self.timestamps = np.zeros(n, np.float64)  # frame.ROWS: each a row a frame
        self.apertures = np.zeros((n, 2), np.float64)  # per frame: its point on the lens
        self.shifts = np.zeros((n, 2), np.float64)  # per frame: its antialiasing shift
        self.lenses: list = [None] * n  # per frame (depth of field), committed with it
        self.refs = 0

    def target(self, i: int) -> FrameTarget:
        return FrameTarget(self.frames[i], None if self.depth is None else self.depth[i],
                           None if self.velocity is None else self.velocity[i])

    def copy_from(self, src: Slot, src_start: int, dst_start: int, count: int) -> None:
        a, b = slice(src_start, src_start + count), slice(dst_start, dst_start + count)
        for mine, theirs in ((self.frames, src.frames), (self.depth, src.depth),
                             (self.velocity, src.velocity)):
            if mine is not None:
                mine[b] = theirs[a]

    def publish(self, n: int) -> None:
        """The first ``n`` frames are complete: make ``frames``/``depth`` readable."""

    def reclaim(self) -> None:
        """The slot goes back to its producer (who writes into it next)."""


class ArenaStorage(Protocol):
    """Where a pool's slots live: ``make_slots`` returns them (and the arena, if one)."""

    name: str

    def make_slots(self, layout: SlotLayout, count: int) -> tuple[list[Slot], Any]: ...


class HostStorage:
    """One page-aligned arena in host memory, cut into slots."""

    name = "host"

    def allocate(self, nbytes: int) -> np.ndarray:
        """Anonymous pages of their own (page-aligned) where the system has them: not
        NumPy's, which asks a large array for huge pages, and a kernel that defragments
        memory to give them (Ubuntu's default) can stall the first touch of a pool for
        seconds (a still of 256 float sub-frames: 8.7 s against 4.0-5.0 s)."""
        private = getattr(mmap, "MAP_PRIVATE", None)
        if private is not None and hasattr(mmap, "MAP_ANONYMOUS"):
            try:
                region = mmap.mmap(-1, max(nbytes, 1), flags=private | mmap.MAP_ANONYMOUS)
            except OSError as exc:  # ENOMEM: as NumPy says it
                raise MemoryError(f"{nbytes} bytes: {exc.strerror}") from None
            return np.frombuffer(region, np.uint8, count=nbytes)
        raw = np.empty(nbytes + ALIGN, np.uint8)
        offset = (-raw.ctypes.data) % ALIGN
        return raw[offset : offset + nbytes]

    def make_slots(self, layout: SlotLayout, count: int) -> tuple[list[Slot], np.ndarray]:
        arena = self.allocate(count * layout.slot_bytes)
        slots = [Slot(i, *layout.views(arena, i * layout.slot_bytes)) for i in range(count)]
        return slots, arena


class HyperFramePool:
    """A preallocated arena of ``slots`` hyperframes of ``capacity`` frames each.

    Parameters
    ----------
    frame_shape : (H, W, C)
    dtype : frame dtype (uint8, uint16, float32; either byte order: '>u2' is uint16, the
        arena's own order, as push takes a big-endian frame's values). The views
        ``reserve()`` gives are in this machine's byte order too: a file's raw big-endian
        bytes read into them (``readinto``) are byte-swapped pixels; assign
        ``np.frombuffer(raw, '>u2')`` instead
    capacity : frames per hyperframe (halo frames included)
    depth : also hold a float32 depth plane per frame
    velocity : also hold a float32 velocity plane (H, W, 2) per frame
    max_in_flight : hyperframes expected in flight at once; the pool holds
        ``ceil(1.5 * max_in_flight)`` slots unless ``slots`` is given
    storage : where the arena lives (default: host memory)
    """

    def __init__(self, frame_shape: tuple[int, int, int], dtype: np.dtype | type = np.uint8,
                 capacity: int = 32, *, depth: bool = False, velocity: bool = False,
                 max_in_flight: int = 2, slots: int | None = None,
                 storage: ArenaStorage | None = None) -> None:
        self.frame_shape = _frame_shape(frame_shape)
        capacity = integer(capacity, "capacity", 1)  # (was: 2.5 cut to 2, '4' a bare
        max_in_flight = integer(max_in_flight, "max_in_flight", 1)  # TypeError of '<')
        n_slots = slot_count(max_in_flight) if slots is None else integer(slots, "slots", 1)
        self.dtype = pixel_dtype(dtype, FRAME_DTYPES, why=" (what the fusion takes)",
                                 any_order=True)  # ('>u2': uint16; push takes its values)
        self.capacity = int(capacity)
        self.has_depth = depth
        self.has_velocity = velocity
        self.storage = storage or HostStorage()
        self.layout = SlotLayout(self.capacity, self.frame_shape, self.dtype, depth, velocity)
        self.frame_bytes = self.layout.frame_bytes
        self.depth_bytes = self.layout.depth_bytes
        self.slot_bytes = self.layout.slot_bytes
        try:
            self._slots, self.arena = self.storage.make_slots(self.layout, n_slots)
        except MemoryError:
            h, w, c = self.frame_shape
            raise InputError(
                f"a pool of {n_slots} slots x {self.capacity} frames of {w}x{h}x{c} "
                f"{self.dtype} needs {bytes_said(n_slots * self.slot_bytes)}, more than "
                "can be allocated here: lower capacity, slots (or max_in_flight) or the frame "
                "size") from None
        self._free = list(reversed(self._slots))
        self._cond = threading.Condition()
        self.waits = 0  # acquires that had to block: a back-pressure counter
        self.releases = 0  # slots that came back (none: the stream may never release one)
        self.warn_stuck = True  # a library user's pool (hfrender's own runs: False)

    @property
    def slot_count(self) -> int:
        return len(self._slots)

    @property
    def free_count(self) -> int:
        with self._cond:
            return len(self._free)

    @property
    def nbytes(self) -> int:
        return self.slot_count * self.slot_bytes

    def acquire(self, timeout: float | None = None) -> Slot:
        """A free slot; blocks until one is released, or raises ``TimeoutError``."""
        with self._cond:
            if not self._free:
                self.waits += 1
                if not self._wait(timeout):
                    raise TimeoutError(
                        f"no free hyperframe slot after {timeout:g} s: all {self.slot_count} "
                        "slots are in flight; release finished hyperframes or raise max_in_flight"
                    )
            slot = self._free.pop()
            slot.refs = 1
            return slot

    def _wait(self, timeout: float | None) -> bool:
        """Wait (holding the condition) for a free slot. A library user's pool (hfrender's
        own runs wait on a slow first fusion, which is no mistake), with no ``timeout``:
        where no other thread runs (hfrender's own workers, alive after any effect's call,
        release none), none can release one, so the wait is refused at once (was: a silent
        hang, a library user's trial; after an effect's call still one, another trial); else
        said once after :data:`STUCK_S` where no slot has ever been released, as a Python
        warning (a library's log is silent unless its caller sets logging up) and in the
        log."""
        if self.warn_stuck and timeout is None and not _others_run():
            raise InputError(f"all {self.slot_count} hyperframe slots are in flight and no "
                             "other thread runs to release one: call each hyperframe's "
                             ".release() once it is fused (its slot goes back to the pool)")
        if timeout is not None or self.releases or not self.warn_stuck:
            return self._cond.wait_for(lambda: self._free, timeout)
        if self._cond.wait_for(lambda: self._free, STUCK_S):
            return True
        if not self.releases:
            said = (f"waiting {STUCK_S:g} s for a free hyperframe slot: all {self.slot_count} "
                    "are in flight and none has been released yet (call each hyperframe's "
                    ".release() once it is fused: its slot goes back to the pool)")
            log.warning("%s", said)
            warnings.warn(said, RuntimeWarning, stacklevel=_callers_level())
        return self._cond.wait_for(lambda: self._free)

    def retain(self, slot: Slot) -> None:
        """One more reference to ``slot`` (two views of it now hold what one held)."""
        with self._cond:
            if slot.refs <= 0 or self._slots[slot.index] is not slot:
                raise ValueError(f"slot {slot.index} is not in use in this pool")
            slot.refs += 1

    def release(self, slot: Slot) -> None:
        """Drop one reference to ``slot``; the last one returns it to the pool."""
        with self._cond:
            if slot.refs <= 0 or self._slots[slot.index] is not slot:
                raise ValueError(f"slot {slot.index} is not in use in this pool")
            slot.refs -= 1
            if slot.refs == 0:
                self.releases += 1
                self._free.append(slot)
                self._cond.notify()
