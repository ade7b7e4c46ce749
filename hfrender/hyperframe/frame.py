"""A hyperframe: a view of many frames in one slot of a pool, with what fusion needs of
them (depth, velocity, timestamps, the halo carried from the previous one)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from hfrender.errors import InputError, InputTypeError

if TYPE_CHECKING:
    from hfrender.hyperframe.pool import HyperFramePool, Slot


class Status(str, Enum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


# a hyperframe's per-frame arrays (first axis: its frames), each None or one row a frame:
# what a split, a carried halo, a copy, another process and a sample store take of it
ROWS = ("timestamps", "apertures", "shifts")  # small, on the host (a slot's own arrays)
ARRAYS = ("frames", *ROWS, "depth", "velocity")


def per_frame(owner: Any, take: Callable[[Any], Any]) -> dict:
    """``take`` of each of :data:`ARRAYS` of ``owner`` (a hyperframe or a slot), by name;
    None stays None."""
    return {k: None if (a := getattr(owner, k)) is None else take(a) for k in ARRAYS}


@dataclass(eq=False)
class HyperFrame:
    """Frames ``(N, H, W, C)`` + optional depth ``(N, H, W)`` and velocity ``(N, H, W, 2)``
    (pixels per second along x and y) + per-frame timestamps.

    ``first_index`` is the global index of ``frames[0]``; the first ``halo`` frames were
    carried over from the previous hyperframe so that windows crossing the boundary see
    their frames; ``overlap`` is how many earlier frames a window may need (what
    :meth:`split` carries into its second half).
    """

    frames: np.ndarray
    depth: np.ndarray | None = None
    timestamps: np.ndarray | None = None
    velocity: np.ndarray | None = None
    first_index: int = 0
    halo: int = 0
    overlap: int = 0
    priority: float = 0.0
    status: Status = Status.PENDING
    retry_count: int = 0
    created_at: float = field(default_factory=time.monotonic)
    lenses: list | None = field(default=None, repr=False)  # per-frame Lens (depth of field)
    apertures: np.ndarray | None = field(default=None, repr=False)  # (N, 2) lens points
    # (N, 2) x, y pixels (y down) each frame's picture was moved by its antialiasing offset
    shifts: np.ndarray | None = field(default=None, repr=False)
    slot: Slot | None = field(default=None, repr=False)
    pool: HyperFramePool | None = field(default=None, repr=False)
    _released: bool = field(default=False, init=False, repr=False)  # its slot given back
    _parts: tuple = field(default=(), init=False, repr=False)  # split's views of its frames

    def __post_init__(self) -> None:
        if not hasattr(self.frames, "shape"):  # (was: AttributeError, 'list' has no 'shape')
            raise InputTypeError(f"HyperFrame frames is a {type(self.frames).__name__}; "
                                 "expected an (N, H, W, C) array (a list of frames: "
                                 "numpy.stack(frames))")
        if not self.frames.shape:  # (a NumPy number: was IndexError, tuple index out of range)
            raise InputTypeError(f"HyperFrame frames is a {type(self.frames).__name__} of "
                                 "shape (); expected an (N, H, W, C) array")
        for name, shape, many in (("depth", "(N, H, W) array of metres", "depths"),
                                  ("velocity", "(N, H, W, 2) array", "velocities")):
            plane = getattr(self, name)  # (was: AttributeError deep in fuse's depth check)
            if plane is not None and not hasattr(plane, "shape"):
                raise InputTypeError(f"HyperFrame {name} is a {type(plane).__name__}; expected "
                                     f"an {shape} (a list of {name} frames: "
                                     f"numpy.stack({many}))")
        if self.timestamps is None:
            self.timestamps = np.arange(self.frame_count, dtype=np.float64)

    def __repr__(self) -> str:
        """Shapes and times, not the arrays (a log line held them all, a trial)."""
        planes = "".join(f", {n} {tuple(a.shape)}" for n, a in (("depth", self.depth),
                         ("velocity", self.velocity)) if a is not None)
        t = self.timestamps
        span = f"t {float(t[0]):.6g}..{float(t[-1]):.6g} s" if len(t) else "no frames"
        return (f"HyperFrame({tuple(self.frames.shape)} {self.frames.dtype}{planes}, {span}, "
                f"first {self.first_index}, halo {self.halo}, {self.status.name.lower()})")

    @property
    def released(self) -> bool:
        """Its slot is back in the pool (its own, or, once split, both parts'): its frames
        may be another hyperframe's now."""
        return self._released or (bool(self._parts) and all(p.released for p in self._parts))

    @property
    def frame_count(self) -> int:
        return int(self.frames.shape[0])

    @property
    def new_frames(self) -> int:
        """Frames that are not halo (each global frame is new in exactly one hyperframe)."""
        return self.frame_count - self.halo

    @property
    def size_bytes(self) -> int:
        planes = sum(0 if p is None else p.nbytes for p in (self.depth, self.velocity))
        return int(self.frames.nbytes + planes)

    def split(self, i: int, halo: int | None = None) -> tuple[HyperFrame, HyperFrame]:
        """Two hyperframes that are views of this one: frames ``[:i]`` and ``[i:]``.

        The second one starts ``halo`` frames early (default: ``overlap``) so that its
        windows still see their frames. Both share this one's slot: release each of them,
        not this one (whose ``release`` becomes a no-op).
        """
        if not 0 < i < self.frame_count:
            raise InputError(f"split index i={i!r} must be in [1, {self.frame_count - 1}]")
        h = self.overlap if halo is None else halo
        if h < 0:
            raise InputError(f"halo={halo!r} must be >= 0")
        start = max(0, i - h)
        parts = []
        second_halo = max(i, self.halo) - start  # frames before i, or carried, are not new
        spans = ((0, i, min(self.halo, i)), (start, self.frame_count, second_halo))
        for lo, hi, part_halo in spans:
            parts.append(HyperFrame(
                **per_frame(self, lambda a, lo=lo, hi=hi: a[lo:hi]),
                first_index=self.first_index + lo, halo=part_halo, overlap=self.overlap,
                priority=self.priority, retry_count=self.retry_count,
                created_at=self.created_at, slot=self.slot, pool=self.pool,
                lenses=None if self.lenses is None else self.lenses[lo:hi],
            ))
        if self.slot is not None and self.pool is not None:
            self.pool.retain(self.slot)  # two views now hold what one held
        self.slot = self.pool = None  # the parent no longer owns the slot
        self._parts = (parts[0], parts[1])
        return parts[0], parts[1]

    def release(self) -> None:
        """Give this hyperframe's slot back to its pool (no-op for free-standing ones)."""
        if self.pool is not None and self.slot is not None:
            self.pool.release(self.slot)
            self.slot = None
            self._released = True  # its frames are the next hyperframe's (fuse refuses it)
