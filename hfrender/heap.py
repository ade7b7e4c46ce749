"""Freed heap memory handed back to the system: glibc's ``malloc_trim(0)``.

A long render that makes large short-lived blocks among small long-lived ones (a text
rasterised anew each sub-frame: Pillow's image, its bytes, the ~200 KB raster, freed among
the scene's matrices) leaves glibc's heap holed: the holes are free but stay resident, so
the process grew ~30 KB a sub-frame without end (a 3,000-frame render: 291 -> 577 MB).
``malloc_trim`` gives their whole pages back (some 0.1 ms, a few ms at most); where the C
library is not glibc (macOS, musl) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from typing import Any

_trim: Any = None  # glibc's malloc_trim once looked for; False where there is none
_lock = threading.Lock()


def _found() -> Any:
    global _trim
    if _trim is None:
        _trim = False
        if sys.platform.startswith("linux"):
            try:
                trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
            except (OSError, AttributeError):  # (musl has no malloc_trim)
                return _trim
            trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
            _trim = trim
    return _trim


def hand_back() -> bool:
    """Give the heap's free pages back to the system; whether it could (glibc)."""
    trim = _found()
    if not trim:
        return False
    trim(0)
    return True


class Every:
    """:func:`hand_back` once every ``n`` calls of :meth:`tick` (thread-safe)."""

    def __init__(self, n: int) -> None:
        self.n, self.count = n, 0

    def tick(self) -> None:
        with _lock:
            self.count += 1
            due = self.count % self.n == 0
        if due:
            hand_back()
