"""Recycled blocks of output frames: what the engine's fusion writes into."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np


class OutputBuffers:
    """Output blocks of ``(outputs, *shape)`` frames, recycled once written: fusion writes
    into memory that is already mapped instead of faulting in fresh pages each hyperframe
    (on two cores that cost more than blending). Bounded by the engine's back-pressure."""

    def __init__(self, outputs: int, shape: tuple, dtype: Any) -> None:
        self.outputs, self.shape, self.dtype = outputs, tuple(shape), np.dtype(dtype)
        self._free: list[np.ndarray] = []
        self._lock = threading.Lock()

    def take(self, count: int) -> np.ndarray:
        """A buffer for ``count`` frames (a view of a recycled block when one fits)."""
        with self._lock:
            buf = self._free.pop() if self._free and count <= self.outputs else None
        if buf is None:
            buf = np.empty((max(count, self.outputs),) + self.shape, self.dtype)
        return buf[:count]

    def give(self, block: np.ndarray) -> None:
        base = block.base if block.base is not None else block
        if isinstance(base, np.ndarray) and base.shape[0] == self.outputs \
                and base.shape[1:] == self.shape:
            with self._lock:
                self._free.append(base)


_BLOCKS = threading.local()


def float_block(shape: tuple) -> np.ndarray:
    """A float32 block of ``shape`` that this thread blends into before encoding (render's
    ``--hdr`` into 8 or 16 bits, fx's EXR footage into 16-bit codes), kept for its next
    hyperframe: fresh pages each time cost more than the blend on two cores
    (:class:`OutputBuffers`)."""
    block = getattr(_BLOCKS, "block", None)
    if block is None or block.shape[0] < shape[0] or block.shape[1:] != tuple(shape[1:]):
        block = _BLOCKS.block = np.empty(shape, np.float32)
    return block[: shape[0]]
