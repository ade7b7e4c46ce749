"""A half-cell's mean picture from its chunks of intermediate times: per pixel, the base
(what it shows still) plus the mean over the times of what the moving surfaces showed there
less the base (:func:`~hfrender.backends.cpu.reconstruct._half_mean` hands each chunk's
hits over as they come).

Two ways to the same float64 sums. :class:`GroupedSums` (a cell between sub-frames) sums
each chunk over its domain (``shown - base`` per hit, ``np.bincount``) and the chunks per
pixel in chunk order. :class:`PooledSums` (a lone sub-frame: ``hf.vector_blur``) pools
the hits of many chunks (``limit`` at a time) and sums what they showed per pixel, one
``bincount`` a channel over the span of pixels hit, the base taken off once per pixel
(``count * base``): no base gathered per hit, no per-chunk domain sums to merge (~15% of a
1080p vector blur). Both
sum float32 terms in float64, exactly while the terms span less than about 2**29 in size:
beside extreme highlights the two may differ in the last bit, so cells with a neighbour
keep the grouped sums (bit for bit as before)."""

from __future__ import annotations

import numpy as np


def rows(a: np.ndarray) -> np.ndarray:
    """An (n, c) array as n opaque rows, a view (its last axis must be contiguous):
    indexed writes of whole rows run ~8x faster on it than on (n, c), which NumPy copies
    item by item (reads: ``np.take(..., axis=0)``, as fast)."""
    return a.view(np.dtype((np.void, a.shape[1] * a.itemsize))).reshape(-1)


def _finish(base_cf: np.ndarray, at: np.ndarray, acc: np.ndarray, steps: int) -> np.ndarray:
    """``base_cf`` (H * W, C) with ``at``'s pixels the base plus ``acc`` ((n, C) float64
    sums of shown - base) over ``steps``, in float64, then float32."""
    mean = base_cf.copy()
    shown = np.take(base_cf, at, axis=0).astype(np.float64) + acc / steps
    rows(mean)[at] = rows(shown.astype(np.float32))
    return mean


class GroupedSums:
    """Each chunk summed over its domain, the chunks then per pixel in chunk order."""

    def __init__(self, base_cf: np.ndarray, limit: int = 0) -> None:
        self.base_cf = base_cf
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, dom: np.ndarray, cid: np.ndarray, col: np.ndarray) -> None:
        """A chunk's hits: its domain, each hit's place in it and what it showed."""
        c = self.base_cf.shape[1]
        delta = col.astype(np.float64) - np.take(self.base_cf, dom[cid], axis=0)
        sums = np.stack([np.bincount(cid, weights=delta[:, ch], minlength=len(dom))
                         for ch in range(c)])
        got = np.bincount(cid, minlength=len(dom)) > 0
        self.parts.append((dom[got], sums[:, got]))

    def mean(self, steps: int) -> np.ndarray:
        """The half-cell's mean picture (H * W, C) float32."""
        if not self.parts:
            return self.base_cf.copy()
        at, acc = self.parts[0]
        if len(self.parts) > 1:  # several chunks: summed per pixel in chunk order
            hw, c = self.base_cf.shape
            full = np.zeros((c, hw), np.float64)
            landed = np.zeros(hw, bool)  # (a mask, not np.unique: 0.4 s at 1080p)
            for pix, part in self.parts:
                full[:, pix] += part
                landed[pix] = True
            at = np.flatnonzero(landed)
            acc = full[:, at]
        return _finish(self.base_cf, at, acc.T, steps)


class PooledSums:
    """Hits pooled up to ``limit`` of them, then summed per pixel into frame-sized float64
    sums (one set per half-cell)."""

    def __init__(self, base_cf: np.ndarray, limit: int) -> None:
        self.base_cf, self.limit = base_cf, limit
        self.pix: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.held = 0
        self.sums: np.ndarray | None = None  # (C, H * W) float64 sums of what was shown
        self.count: np.ndarray | None = None  # (H * W,) hits

    def add(self, dom: np.ndarray, cid: np.ndarray, col: np.ndarray) -> None:
        """A chunk's hits: its domain, each hit's place in it and what it showed."""
        self.pix.append(dom[cid])
        self.cols.append(col)
        self.held += len(cid)
        if self.held >= self.limit:
            self._flush()

    def _flush(self) -> None:
        if not self.pix:
            return
        hw, c = self.base_cf.shape
        pix = np.concatenate(self.pix)
        col = np.concatenate(self.cols)
        self.pix, self.cols, self.held = [], [], 0
        lo = int(pix.min())  # summed over the span of pixels hit, not the whole frame
        pix -= lo
        span = slice(lo, lo + int(pix.max()) + 1)
        if self.sums is None:  # (np.zeros: pages no hit touches are never written)
            self.sums, self.count = np.zeros((c, hw)), np.zeros(hw, np.int64)
        self.count[span] += np.bincount(pix)
        for ch in range(c):
            self.sums[ch, span] += np.bincount(pix, weights=col[:, ch])

    def mean(self, steps: int) -> np.ndarray:
        """The half-cell's mean picture (H * W, C) float32."""
        self._flush()
        if self.count is None:
            return self.base_cf.copy()
        at = np.flatnonzero(self.count)
        base = np.take(self.base_cf, at, axis=0).astype(np.float64)
        acc = self.sums[:, at].T - self.count[at, None] * base
        return _finish(self.base_cf, at, acc, steps)
