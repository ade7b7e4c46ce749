"""Packing a stream of frames into hyperframes, with halo frames carried across.

``push(frame, t)`` copies a frame into the current pool slot (or ``reserve(t)`` hands out
the slot's view so a producer such as ``Framebuffer.read_into`` fills it in place) and
returns a :class:`HyperFrame` whenever a slot fills up. The last ``halo`` frames of each
hyperframe are copied to the front of the next slot, so a window that crosses the
boundary finds all its frames in one hyperframe.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from hfrender import validate
from hfrender.errors import InputError, InputTypeError
from hfrender.hyperframe.frame import ROWS, HyperFrame, per_frame
from hfrender.hyperframe.pool import (
    ArenaStorage,
    FrameTarget,
    HyperFramePool,
    Slot,
    slot_count,
    sub_frame_bytes,
)
from hfrender.interop import unmasked
from hfrender.limits import NO_LIMIT, cgroup_folders
from hfrender.numeric import a_number, as_whole, number_said, real_number

DEFAULT_CAP = 64  # frames per hyperframe when memory is plentiful


def free_memory_bytes() -> int:
    """Memory this process may still use, in bytes: the least of the free RAM
    (``MemAvailable``), its cgroup's room (``memory.max`` less ``memory.current``: a
    container's limit) and ``RLIMIT_AS`` less the address space already in use."""
    return max(0, min(_ram_available(), cgroup_room(), address_room()))


def _ram_available() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def cgroup_room(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int:
    """The room left under this process's cgroup memory limits, the least over its cgroup
    and those above it: ``memory.max - memory.current`` (cgroup v2) or
    ``memory.limit_in_bytes - memory.usage_in_bytes`` (v1); huge where there is none."""
    room = NO_LIMIT
    for v2, group in cgroup_folders("memory", root, own):
        limit_file, used_file = ("memory.max", "memory.current") if v2 else \
            ("memory.limit_in_bytes", "memory.usage_in_bytes")
        try:
            limit = (group / limit_file).read_text().strip()
            if limit != "max" and int(limit) < NO_LIMIT:
                room = min(room, int(limit) - int((group / used_file).read_text()))
        except (OSError, ValueError):
            pass
    return room


def address_room() -> int:
    """``RLIMIT_AS`` less the address space in use (``ulimit -v``); huge without a limit."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return NO_LIMIT
        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return soft - used
    except (ImportError, OSError, ValueError):
        return NO_LIMIT


def auto_granularity(frame_bytes: int, *, frames_per_output: int = 1, halo: int = 0,
                     slots: int = 3, cap: int = DEFAULT_CAP,
                     free_bytes: int | None = None) -> int:
    """Frames per hyperframe: ``min(cap, free / frame_bytes / 2)``, in whole output frames.

    The free memory is shared by the pool's ``slots``; the result is ``halo`` plus a
    whole number (at least one) of ``frames_per_output`` blocks.
    """
    for name, value, low in (("frame_bytes", frame_bytes, 1), ("frames_per_output",  # (was:
                             frames_per_output, 1), ("halo", halo, 0), ("slots", slots, 1),  # "2"
                             ("cap", cap, 1)):  # a bare TypeError of '<', 0 no value named)
        validate.integer(value, name, low)
    free = free_memory_bytes() if free_bytes is None else _whole_bytes(free_bytes)
    fit = free // 2 // (frame_bytes * slots)
    n = min(cap, fit)
    outputs = max(1, (n - halo) // frames_per_output)
    return halo + outputs * frames_per_output


def _whole_bytes(value: object) -> int:
    """``free_bytes`` as an int: ``8e9`` is 8000000000 (was: refused as no whole number,
    which it is; before that, a float's granularity), as is ``Decimal('8e9')`` and any
    whole number of any size (``10**400``, ``Decimal('8e400')``, a Fraction of one: read
    exactly, not through float; 10**400 was an OverflowError), as ``cap`` takes; ``"1G"``,
    ``0.5``, ``True`` one line (a number's InputError, what is none an InputTypeError)."""
    whole = as_whole(value)
    if whole is None and real_number(value) and math.isfinite(value) and value == int(value):
        whole = int(value)  # (8e9, np.float32(4096): a binary float's whole value)
    if whole is not None:
        return whole
    kind = InputError if a_number(value) else InputTypeError
    raise kind(f"free_bytes={number_said(value)} must be a whole number of bytes, or None "
               "(this machine's free memory)")


class HyperFrameBuilder:
    """Fill pool slots frame by frame; emit a hyperframe per full slot.

    Parameters
    ----------
    pool : the pool whose slots are filled (its ``capacity`` is the granularity)
    halo : frames carried from each hyperframe into the next (``window - 1`` for
        sliding windows); needs a pool of at least two slots
    acquire_timeout : seconds to wait for a free slot (``None``: forever)
    first_index : global index of the first frame pushed (a stream resumed midway)
    lead_in : the first frames pushed count as halo (they are there for the windows after
        them, which is how a stream resumed midway starts)
    full_capacity : what ``--granularity auto`` would give without a cap (default: the
        pool's capacity); a render's keyframes follow it
    """

    def __init__(self, pool: HyperFramePool, halo: int = 0,
                 acquire_timeout: float | None = None, first_index: int = 0,
                 lead_in: int = 0, full_capacity: int | None = None) -> None:
        if not 0 <= halo < pool.capacity:
            raise InputError(
                f"halo={halo!r} must be in [0, {pool.capacity - 1}] (pool capacity "
                f"{pool.capacity} frames)"
            )
        if halo and pool.slot_count < 2:
            raise InputError("carrying halo frames needs a pool of at least 2 slots")
        self.pool = pool
        self.full_capacity = pool.capacity if full_capacity is None else full_capacity
        self.halo = halo
        self.timeout = acquire_timeout
        self._slot: Slot | None = None
        self._n = 0  # frames in the current slot (halo included)
        self._slot_halo = 0
        self._first = first_index  # global index of the current slot's frame 0
        self._lead_in = lead_in
        self._pending = False  # a reserved frame not yet committed
        self._last_t = -math.inf  # the time of the last frame pushed (they come in order)

    @classmethod
    def create(cls, frame_shape: tuple[int, int, int], dtype: np.dtype | type = np.uint8, *,
               frames_per_output: int = 1, halo: int = 0, granularity: int | str = "auto",
               depth: bool = False, velocity: bool = False, max_in_flight: int = 2,
               storage: ArenaStorage | None = None,
               acquire_timeout: float | None = None, first_index: int = 0,
               lead_in: int = 0, free_bytes: int | None = None,
               cap: int = DEFAULT_CAP) -> HyperFrameBuilder:
        """A builder with its own pool, sized by ``granularity`` (``"auto"`` or frames).

        ``"auto"`` follows :func:`auto_granularity` (``free_bytes``: the memory the pool may
        take, default what this process may use of host memory); a number is used as it is
        (it must hold the halo and at least one output frame); ``cap``: the most frames
        ``"auto"`` gives. ``full_capacity``: what ``"auto"`` gives without ``cap`` (what a
        render's keyframes follow, whatever cuts its hyperframes smaller).
        """
        slots = slot_count(max_in_flight)
        frame_bytes = sub_frame_bytes(frame_shape, dtype, depth, velocity)
        if granularity == "auto":
            free = free_memory_bytes() if free_bytes is None else free_bytes
            capacity, full = (auto_granularity(frame_bytes, frames_per_output=frames_per_output,
                                               halo=halo, slots=slots, free_bytes=free,
                                               cap=c) for c in (cap, DEFAULT_CAP))
        elif isinstance(granularity, int) and not isinstance(granularity, bool) and \
                granularity >= halo + frames_per_output:
            capacity = full = granularity
        else:
            raise InputError(
                f"granularity={granularity!r} must be 'auto' or an integer >= "
                f"{halo + frames_per_output} (halo {halo} + one output of {frames_per_output})"
            )
        pool = HyperFramePool(frame_shape, dtype, capacity, depth=depth, velocity=velocity,
                              max_in_flight=max_in_flight, storage=storage)
        pool.warn_stuck = False  # render, fx, reexpose: a slow first fusion waits, rightly
        return cls(pool, halo=halo, acquire_timeout=acquire_timeout, first_index=first_index,
                   lead_in=lead_in, full_capacity=full)

    @property
    def frames_pushed(self) -> int:
        """Global index of the next frame."""
        return self._first + self._n

    def reserve(self, t: float, lens: Any = None, aperture: tuple[float, float] = (0.0, 0.0),
                shift: tuple[float, float] = (0.0, 0.0)) -> FrameTarget:
        """Views of the next frame's storage (colour, depth, velocity) to fill in place; then
        commit().

        ``lens``: the frame's :class:`~hfrender.optics.Lens` (depth of field),
        ``aperture``: its point on the unit aperture disk (``--dof lens``), and ``shift``:
        the pixels (x, y down) its antialiasing offset moved its picture by, kept with it
        (what reconstruction warps from).
        """
        if self._pending:
            raise RuntimeError("reserve() called twice without commit()")
        if self._slot is None:
            self._slot = self._acquire()
            self._n, self._slot_halo, self._lead_in = 0, self._lead_in, 0
        slot = self._slot
        slot.timestamps[self._n] = t
        slot.apertures[self._n] = aperture
        slot.shifts[self._n] = shift
        slot.lenses[self._n] = lens
        self._pending = True
        return slot.target(self._n)

    def _acquire(self) -> Slot:
        slot = self.pool.acquire(self.timeout)
        slot.reclaim()  # ours to write again (a GL slot stops being mapped for CUDA)
        return slot

    def commit(self) -> HyperFrame | None:
        """Finish the reserved frame; returns a hyperframe when the slot is full."""
        if not self._pending:
            raise RuntimeError("commit() without reserve()")
        self._pending = False
        self._n += 1
        return self._emit() if self._n == self.pool.capacity else None

    def cancel(self) -> None:
        """Forget a reserved frame that will not be committed (after an error)."""
        self._pending = False

    def push(self, frame: np.ndarray, t: float, depth: np.ndarray | None = None,
             lens: Any = None) -> HyperFrame | None:
        """Copy ``frame`` (and ``depth``) into the pool; a hyperframe when a slot fills. A
        depth is checked as :func:`hfrender.fuse` checks it, named by the frame's index
        (``depth frame 12 has a NaN at row 3, column 1; ...``); a distance <= 0 only where
        ``lens`` is given (else at fuse, where a lens or a shutter reads it: a hyperframe
        fused with neither reads no depth; was refused here all the same)."""
        unmasked(frame, "frame")  # (was: read through its mask, unsaid)
        frame = np.asarray(frame)
        pool = self.pool
        if frame.shape != pool.frame_shape or frame.dtype.newbyteorder("=") != pool.dtype:
            # (a big-endian '>u2' frame into a uint16 pool: its values, copied in; was refused)
            grey = (" (one (H, W) grey frame: frame[..., None])"  # (as validate.frames says)
                    if frame.shape == pool.frame_shape[:2] and pool.frame_shape[2] == 1 else "")
            raise InputError(f"frame has shape {frame.shape} and dtype {frame.dtype}; this pool "
                             f"holds {pool.frame_shape} {pool.dtype} frames{grey}")
        if pool.has_depth != (depth is not None):
            raise InputError("depth is required: the pool was made with depth=True"
                             if pool.has_depth else
                             "depth given but the pool was made with depth=False")
        if depth is not None and np.shape(depth) != pool.frame_shape[:2]:
            raise InputError(f"depth has shape {np.shape(depth)}; expected "
                             f"{pool.frame_shape[:2]}")
        if depth is not None:  # fuse's line, at push (was: found at fuse, or NumPy's bare
            unmasked(depth, "depth")  # ValueError; a mask unsaid)
            depth = validate.depth(np.asarray(depth), pool.frame_shape,
                                   f"depth frame {self.frames_pushed}", argument="depth",
                                   positive=lens is not None)
        if pool.has_velocity:
            raise InputError("push() takes no velocity: fill it through reserve()")
        if not (real_number(t) and math.isfinite(t)):  # (a Decimal too, as a Fraction)
            raise InputError(f"t={number_said(t)} must be a finite time in seconds")
        if t < self._last_t:
            raise InputError(f"t={float(t):g} is before the last frame's t="  # (a Fraction's
                             f"{self._last_t:g}: frames are pushed in time order (their "  # :g
                             "times place the shutter)")  # raised on Python 3.10/3.11)
        color, dplane, _ = self.reserve(t, lens)
        self._last_t = float(t)
        color[...] = frame
        if dplane is not None:
            dplane[...] = depth
        return self.commit()

    def flush_remaining(self) -> HyperFrame | None:
        """The last, partly filled hyperframe (or ``None`` if it holds no new frame)."""
        if self._pending:
            raise RuntimeError("flush_remaining() with a reserved frame not committed")
        if self._slot is None:
            return None
        if self._n == self._slot_halo:  # only carried-over frames: nothing new
            self.pool.release(self._slot)
            self._slot = None
            self._n = self._slot_halo = 0
            return None
        return self._emit(carry=False)

    def emit_now(self) -> HyperFrame | None:
        """The current slot as a hyperframe now, before it is full (the halo carries on as
        usual): the first outputs of a stream leave without waiting for a whole slot.
        ``None`` if it holds no new frame."""
        if self._pending:
            raise RuntimeError("emit_now() with a reserved frame not committed")
        if self._slot is None or self._n == self._slot_halo:
            return None
        return self._emit()

    def _emit(self, carry: bool = True) -> HyperFrame:
        slot, n = self._slot, self._n
        keep = min(self.halo, n) if carry else 0
        nxt = None
        if keep:  # carry the halo before the slot is published (and maybe mapped)
            nxt = self._acquire()
            nxt.copy_from(slot, n - keep, 0, keep)
            for name in (*ROWS, "lenses"):
                getattr(nxt, name)[:keep] = getattr(slot, name)[n - keep : n]
        slot.publish(n)
        lenses = slot.lenses[:n]
        hf = HyperFrame(
            **per_frame(slot, lambda a: a[:n]),
            first_index=self._first, halo=self._slot_halo, overlap=self.halo,
            slot=slot, pool=self.pool,
            lenses=None if all(x is None for x in lenses) else lenses,
        )
        self._slot = nxt
        self._first += n - keep
        self._n = self._slot_halo = keep
        return hf
