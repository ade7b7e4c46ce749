"""A pool arena that another process maps too, and hyperframes described by reference to it.

:class:`SharedArena` is the pool's host arena in a ``memfd`` (an anonymous file in memory,
Linux): a child process maps the same pages from the file descriptor it inherits, so a
hyperframe crosses to it as a few offsets (:func:`describe`, :meth:`SharedHyperFrame.open`),
not as a copy of its sub-frames. Unlike a named ``/dev/shm`` segment
(``multiprocessing.shared_memory``) it has no name to leak after ``kill -9`` and is not
bounded by a container's small ``/dev/shm`` (64 MiB by default in Docker).
"""

from __future__ import annotations

import functools
import mmap
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from hfrender.hyperframe.frame import HyperFrame, per_frame
from hfrender.hyperframe.pool import HostStorage

SCALARS = ("first_index", "halo", "overlap", "lenses")  # what else the fusion reads


@functools.cache
def available() -> bool:
    """Whether this system can make a ``memfd`` (Linux 3.17 on, and not refused by a
    seccomp filter) for a shared arena: tried once."""
    if not hasattr(os, "memfd_create"):
        return False
    try:
        os.close(os.memfd_create("hfrender-probe", os.MFD_CLOEXEC))
    except OSError:
        return False
    return True


class SharedArena(HostStorage):
    """Host slots in one ``memfd`` mapping (page-aligned: a mapping starts on a page).
    ``fd`` stays open until :meth:`release`, for the processes that map it."""

    name = "shared"

    def __init__(self) -> None:
        self.fd: int | None = None
        self.size = 0
        self.base = 0  # the arena's address in this process

    def allocate(self, nbytes: int) -> np.ndarray:
        if self.fd is not None:
            raise RuntimeError("a SharedArena holds one arena")
        self.size = max(1, nbytes)
        self.fd = os.memfd_create("hfrender-arena", os.MFD_CLOEXEC)
        try:
            os.ftruncate(self.fd, self.size)
            arena = np.frombuffer(mmap.mmap(self.fd, self.size), np.uint8)[:nbytes]
        except BaseException:
            self.release()
            raise
        self.base = arena.ctypes.data
        return arena

    def release(self) -> None:
        """Close the descriptor (the mappings stay valid while their arrays live)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def open_arena(fd: int, size: int) -> np.ndarray:
    """The arena of ``fd`` mapped in this process (the child's side); closes ``fd``."""
    try:
        return np.frombuffer(mmap.mmap(fd, size), np.uint8)
    finally:
        os.close(fd)


class ArrayRef(NamedTuple):
    """An array of the arena by place: byte offset, shape, strides, dtype."""

    offset: int
    shape: tuple
    strides: tuple
    dtype: str


def _ref(array: Any, base: int, size: int) -> Any:
    """``array`` by reference when all of it lies in the arena at ``base``, else itself."""
    if not isinstance(array, np.ndarray) or array.size == 0:
        return array
    start = array.ctypes.data
    reach = [(n - 1) * stride for n, stride in zip(array.shape, array.strides, strict=True)]
    lo = start + sum(r for r in reach if r < 0)
    hi = start + sum(r for r in reach if r > 0) + array.itemsize
    if base <= lo and hi <= base + size:
        return ArrayRef(start - base, array.shape, array.strides, array.dtype.str)
    return array


@dataclass(frozen=True)
class SharedHyperFrame:
    """What a fusion needs of a hyperframe, its planes as places in a shared arena (arrays
    elsewhere travel as copies). Picklable; :meth:`open` gives it back as a HyperFrame."""

    arrays: dict
    scalars: dict

    def open(self, arena: np.ndarray) -> HyperFrame:
        """The hyperframe over ``arena`` (this process's mapping of the same pages);
        its planes are read-only here: the producer owns the slot."""
        def view(value: Any) -> Any:
            if not isinstance(value, ArrayRef):
                return value
            a = np.ndarray(value.shape, np.dtype(value.dtype), buffer=arena,
                           offset=value.offset, strides=value.strides)
            a.flags.writeable = False
            return a

        return HyperFrame(**{k: view(v) for k, v in self.arrays.items()}, **self.scalars)


def describe(hyper: HyperFrame, arena: SharedArena) -> SharedHyperFrame:
    """``hyper`` for another process that maps ``arena`` (see :class:`SharedHyperFrame`)."""
    arrays = per_frame(hyper, lambda a: _ref(a, arena.base, arena.size))
    return SharedHyperFrame(arrays, {k: getattr(hyper, k) for k in SCALARS})
