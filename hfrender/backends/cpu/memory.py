"""Freed memory kept for the next frame: glibc's malloc told not to give it back at once.

A frame's fusion allocates and frees the same large arrays frame after frame (the depth of
field's sums and FFT grids: tens of MB at 360p, hundreds at 1080p). glibc's malloc hands
memory above its thresholds back to the system when it is freed (``munmap``, or a trim of
the heap's top), and the next frame's arrays then arrive as fresh pages: a page fault and a
page clear per 4 KiB, about 1.5 us each on a virtual machine. Measured on
``benchmarks/dof.py``'s 640x360 frame, its FFTs on the calling thread: about 2800 faults a
call, and a call at a 4 px blur 38% faster without them (1080p: 1000-2600 faults a call).
:func:`keep_freed_memory` raises both thresholds, so freed memory stays with the process and
is reused; the process's memory stays at its peak.

Where the user set glibc's own settings (``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_TOP_PAD_``, or ``glibc.malloc.*`` in
``GLIBC_TUNABLES``) or ``HFRENDER_KEEP_MEMORY=0``, malloc is left as it is; on other C
libraries this does nothing. A glibc that refuses an mmap threshold above 32 MiB (half its
arenas' size, as its manual documents) gets 32 MiB: arrays larger than that still arrive
fresh.
"""

from __future__ import annotations

import ctypes
import os
import threading

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)
KEEP_BYTES = 1 << 30  # freed memory kept, and allocations up to this size from the heap
HEAP_BYTES = 32 << 20  # the mmap threshold every 64-bit glibc accepts
USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")
ENV = "HFRENDER_KEEP_MEMORY"

_done: bool | None = None  # what the first call found: whether malloc keeps freed memory
_lock = threading.Lock()


def keep_freed_memory() -> bool:
    """Tell glibc's malloc to keep freed memory for reuse (once a process; see the module's
    notes): whether it does so now."""
    global _done
    with _lock:
        if _done is None:
            _done = _mallopt() if _wanted() else False
        return _done


def _wanted() -> bool:
    if os.environ.get(ENV, "1").strip().lower() in ("0", "no", "false", "off"):
        return False
    if any(name in os.environ for name in USER_SETTINGS) or \
            "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return False  # the user's own settings win
    return _glibc()


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):  # not a GNU C library
        return False


def _mallopt() -> bool:
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    if not (mallopt(M_MMAP_THRESHOLD, KEEP_BYTES) or mallopt(M_MMAP_THRESHOLD, HEAP_BYTES)):
        return False  # malloc as it was: its thresholds still move together
    return bool(mallopt(M_TRIM_THRESHOLD, KEEP_BYTES))
