"""Arrays kept between calls for the next one, least recently used out first past a number
of bytes (and, if given, of entries): the fast depth of field's disk spectra (CPU and
CUDA), the splats' stamps, text rasters.

Each value's ``nbytes`` is read once as it comes in and once as it goes: the bytes held are
counted as they change. (Was: every value kept was summed again at each new one; a stream
pulling focus a little each call makes new disks as its blur changes, 547 kept after 1800
calls of a 64x36 frame (focus 2 m + 3 mm a call, f/1.4, 150 mm): a cost per call growing
with what is kept.)
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from typing import Any


class Kept:
    """Values by key, newest last, within ``limit`` bytes (the newest always stays, whatever
    its size) and ``most`` entries (``None``: no count). Safe to share between threads."""

    def __init__(self, limit: int, most: int | None = None) -> None:
        self.limit, self.most = limit, most
        self.held = 0  # the values' bytes, together
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()
        _all.add(self)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __iter__(self) -> Any:
        with self._lock:
            return iter(list(self._items))

    def values(self) -> list[Any]:
        with self._lock:
            return list(self._items.values())

    def get(self, key: Any) -> Any:
        """The value kept for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Any, value: Any) -> Any:
        """Keep ``value`` for ``key`` as the newest, the least recently used going out while
        more than the limits are kept; ``value`` returned."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.held -= old.nbytes
            self._items[key] = value
            self.held += value.nbytes
            most = len(self._items) if self.most is None else self.most
            while len(self._items) > 1 and (self.held > self.limit or len(self._items) > most):
                self.held -= self._items.popitem(last=False)[1].nbytes
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.held = 0


_all: weakref.WeakSet[Kept] = weakref.WeakSet()


def _after_fork() -> None:
    """A child forked while another thread held a store's lock: a new lock, and the bytes
    counted again from the values (a fork mid-``put`` left them off by one value's)."""
    for kept in list(_all):
        kept._lock = threading.Lock()
        kept.held = sum(value.nbytes for value in kept._items.values())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
