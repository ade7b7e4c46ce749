"""Where each layer of the fast depth of field (:mod:`hfrender.dof_layers`) runs its FFTs:
boxes around its pixels, each grown by its disks' reach into a window (:mod:`hfrender.dof_fft`).

A layer's pixels fall into bands of rows, bands farther apart than the windows' overlap
kept apart (a near object and the floor at its distance, say). A band's box is cut further
across its rows where that makes the windows smaller: a pole one pixel wide standing on the
floor band of its own distance spans the frame's height, and one box around both would
transform the whole frame (a fifth of a 64 px blur's cost on ``benchmarks/dof.py``'s
frame). The boxes of one band are disjoint in their rows, so every pixel of the layer is in
exactly one box (its light is transformed once, its gathers are made once), and a box's
rows hold all the layer's pixels of those rows. Their windows may overlap, and hold pixels
of the layer's other boxes: what a box scatters reaches them too, as it would in one box,
and a far layer's light joins the far light that nearer layers gather only once all its
boxes have gathered (:func:`hfrender.dof_frame.blur_layers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

WINDOW_COST = 12_000  # the fixed cost of one more window, in pixels of its grid (a cut must
#                       save more than this)


EMPTY = np.iinfo(np.int32).max  # the first column of a row without the layer


class Spans:
    """Where each of a frame's n layers has pixels, and (entry n) its pixels in focus:
    ``rows`` (n + 1, H) bool, and per band of rows of a layer the first and last column of
    its pixels in each row (an empty row: first :data:`EMPTY` > last -1). From a table of
    every row's columns: made on the host from the layer of each pixel (:meth:`of_layers`),
    or read from the device at once (:meth:`of_table`: one read a frame instead of three a
    band)."""

    def __init__(self, first: np.ndarray, last: np.ndarray) -> None:
        self.first, self.last = first, last  # (n + 1, H) int64
        self.rows = first <= last

    def __call__(self, j: int, y0: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
        """(first, last) columns of layer j's pixels in rows ``y0:y1``."""
        return self.first[j, y0:y1], self.last[j, y0:y1]

    def box(self, layers: Sequence[int] | np.ndarray, y0: int, y1: int, x0: int,
            x1: int) -> tuple[int, int, int, int] | None:
        """A box (y0, y1, x0, x1) within the given one around the pixels in it of the
        ``layers`` (n: those in focus), or ``None`` where they have none. From the rows'
        first and last columns alone (all the layers' at once): a row whose pixels lie on
        both sides of the box, none in it, widens the box to its width."""
        layers = np.asarray(layers, np.intp)
        first, last = self.first[layers, y0:y1], self.last[layers, y0:y1]
        hit = (first < x1) & (last >= x0)
        rows = np.flatnonzero(hit.any(axis=0))
        if not len(rows):
            return None
        a, b = int(rows[0]), int(rows[-1]) + 1
        hit = hit[:, a:b]
        return (y0 + a, y0 + b, max(x0, int(np.where(hit, first[:, a:b], EMPTY).min())),
                min(x1, int(np.where(hit, last[:, a:b], -1).max()) + 1))

    @classmethod
    def of_layers(cls, layer: np.ndarray, n: int) -> Spans:
        """From ``layer`` (H, W), each pixel's layer index (-1 in focus), on the host."""
        return cls.of_table(*span_table(layer, n))

    @classmethod
    def of_table(cls, first: np.ndarray, last: np.ndarray) -> Spans:
        """From every layer's first and last column in every row (n, H), a row without
        the layer holding a first past its last (any value: :data:`EMPTY` is put there)."""
        there = first <= last  # int64: a band's costs (_cuts) do not overflow
        return cls(np.where(there, first, EMPTY).astype(np.int64),
                   np.where(there, last, -1).astype(np.int64))


def span_table(layer: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every one of the ``n`` layers' first and last column in each row, and the pixels in
    focus' as entry n (n + 1, H), from ``layer`` (H, W; -1 in focus), as the CUDA backend's
    ``hf_dof_spans`` writes them (a row without the layer: first :data:`EMPTY`, last -1):
    from the runs of one layer along the rows, a few thousand in a frame (one pass over it,
    where a layer at a time took four)."""
    h, w = layer.shape
    change = np.empty((h, w), bool)
    change[:, 0] = True  # every row begins a run
    np.not_equal(layer[:, 1:], layer[:, :-1], out=change[:, 1:])
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], h * w) - 1  # a run ends where the next begins, or its row
    which = layer.ravel()[starts]
    known = (which >= -1) & (which < n)
    which, starts, ends = which[known], starts[known], ends[known]
    which[which < 0] = n  # in focus
    rows = starts // w
    first = np.full((n + 1, h), EMPTY, np.int64)
    last = np.full((n + 1, h), -1, np.int64)
    np.minimum.at(first, (which, rows), starts - rows * w)
    np.maximum.at(last, (which, rows), ends - rows * w)
    return first, last


def layer_boxes(spans: Spans, j: int, reach: int) -> list[tuple[int, int, int, int]]:
    """Boxes (y0, y1, x0, x1) around layer j's pixels (``spans``), for disks of ``reach``:
    bands of rows more than ``2 * reach + 1`` apart kept apart, each cut across its rows
    where the windows' grids shrink by more than :data:`WINDOW_COST`."""
    boxes = []
    for y0, y1 in bands(np.flatnonzero(spans.rows[j]), 2 * reach + 1):
        first, last = spans(j, y0, y1)
        there = first <= last
        for a, b in _cuts(first, last, reach):
            filled = np.flatnonzero(there[a:b])  # a cut's parts trimmed to their pixels
            if len(filled):
                a, b = a + int(filled[0]), a + int(filled[-1]) + 1
                boxes.append((y0 + a, y0 + b, int(first[a:b].min()), int(last[a:b].max()) + 1))
    return boxes


def bands(rows: np.ndarray, gap: int) -> list[tuple[int, int]]:
    """Row ranges [y0, y1) around ``rows`` (ascending row indices), rows more than ``gap``
    apart in different ranges."""
    if not len(rows):
        return []
    ends = np.flatnonzero(np.diff(rows) > gap)
    starts = np.concatenate([rows[:1], rows[ends + 1]])
    stops = np.concatenate([rows[ends], rows[-1:]])
    return [(int(a), int(b) + 1) for a, b in zip(starts, stops, strict=True)]


def _cuts(first: np.ndarray, last: np.ndarray, reach: int) -> list[tuple[int, int]]:
    """Row ranges [a, b) of a band (``first`` and ``last`` column of each row; an empty row:
    first > last) whose boxes' grids, each ``2 * reach`` larger than its box, cost least:
    cut at the best row while a cut saves more than :data:`WINDOW_COST`."""
    n = len(first)
    pad = 2 * reach
    if n < 2 or _uncut(first, last, pad):
        return [(0, n)]

    def cost(lo: np.ndarray, hi: np.ndarray, height: np.ndarray) -> np.ndarray:
        return (height + pad) * (np.maximum(hi - lo + 1, 0) + pad)

    lo_top, hi_top = np.minimum.accumulate(first), np.maximum.accumulate(last)
    lo_bot = np.minimum.accumulate(first[::-1])[::-1]
    hi_bot = np.maximum.accumulate(last[::-1])[::-1]
    at = np.arange(1, n)  # cut before row `at`
    split = (cost(lo_top[:-1], hi_top[:-1], at) + cost(lo_bot[1:], hi_bot[1:], n - at)
             + WINDOW_COST)
    best = int(np.argmin(split))
    if split[best] >= cost(lo_top[-1], hi_top[-1], n):  # no cut: the whole band's box
        return [(0, n)]
    y = best + 1
    return _cuts(first[:y], last[:y], reach) + [
        (y + a, y + b) for a, b in _cuts(first[y:], last[y:], reach)]


def _uncut(first: np.ndarray, last: np.ndarray, pad: int) -> bool:
    """Whether no cut can pay, known without trying them: each part is at least as wide as
    the band's narrowest row, so two parts cost at least ``(n + 2 pad) (narrowest + pad)``
    (a floor's band, every row the frame's width). A band with an empty row is left to the
    search (the bound would still hold; the shortcut is for full bands)."""
    if not (first <= last).all():
        return False
    n, widths = len(first), last - first + 1
    whole = (n + pad) * (int(last.max()) - int(first.min()) + 1 + pad)
    return (n + 2 * pad) * (int(widths.min()) + pad) + WINDOW_COST >= whole


def to_host(a: Any) -> np.ndarray:
    """``a`` as a NumPy array (a CuPy array copied from the device)."""
    return a.get() if hasattr(a, "get") else np.asarray(a)
