"""Equal rivals at a pixel: moving surfaces of one sub-frame that land on the same pixel
at the same intermediate time at the same depth, with different velocities (two streaks
crossing in ``hf.vector_blur`` without depth, where every moving pixel is at depth 1; a
turning surface of constant depth). None of them is in front, so the pixel shows the mean
of what each velocity shows there (each half there where two cross, as a shutter sees two
surfaces neither of which covers the other); a border (a pixel beside landings that
nothing landed on, :func:`~hfrender.backends.cpu.recon_layer.borders`) likewise blends
the landing it takes with the other landings beside it at that landing's depth. Was: the
first in raster order (top-left) covered the others, so a mirrored frame blurred to
another picture.

A nearer surface still covers a farther one, and the cell's own sub-frame still covers
its neighbour's at equal depth (the neighbour fills holes only). What a pixel shows of a
surface depends on its source and velocity, not on which of its pixels landed, so rivals
with a velocity already there are left out: a surface's splats that collide (rounding)
change nothing, bit for bit, and depth passes without equal depths of different motions
give the pictures they gave. At most :data:`RIVALS` velocities are blended at a pixel and
time: the lead's and the ``RIVALS - 1`` smallest (vy, vx) of the others (of equal ones, the
smallest splat's), on both backends whatever order a GPU's threads run in. ``hf_rc_ties``
and ``hf_rc_accumulate``
(shaders/cuda/reconstruct.cu) do the same on the device: the float32 values summed in
float64, divided by their count, rounded to float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender.backends.cpu.recon_layer import FREE

RIVALS = 8  # velocities blended at one pixel and time, the lead's with them, at most (the
# kernels' HF_RC_RIVALS)

def mixed(xp: Any, depth: Any, vy: Any, vx: Any) -> bool:
    """Whether any two of a sub-frame's splats (their ``depth``, ``vy``, ``vx``: 1-D arrays
    of ``xp``) are at one depth with different velocities; else no landing has an equal
    rival (and the CUDA backend launches no ``hf_rc_ties``)."""
    order = xp.argsort(depth)  # any order of equals: one of them differs from its next
    d, y, x = depth[order], vy[order], vx[order]
    return bool(((d[1:] == d[:-1]) & ((y[1:] != y[:-1]) | (x[1:] != x[:-1]))).any())


def velocities(splats: list) -> tuple[np.ndarray, np.ndarray]:
    """(vy, vx) of the sources' moving pixels (their ``splats``) one after the other
    (views of the own sub-frame's alone where it is the only source)."""
    if len(splats) == 1:
        return splats[0].vy, splats[0].vx
    return np.concatenate([sp.vy for sp in splats]), np.concatenate([sp.vx for sp in splats])


def rivals(first: np.ndarray, key: np.ndarray, win: np.ndarray, src: np.ndarray,
           own_count: int, velocity: tuple[np.ndarray, np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``win`` (the landings at the nearest depth of their pixel and time, several at a
    key where they tie; ascending) split into one lead per key (the first: ``first``, the
    smallest landing index at each key) and its rivals: (leads, rivals, each rival's lead's
    place in leads). ``src``: each landing's splat (own sub-frame's first, ``own_count``
    of them); ``velocity``: (vy, vx) of every splat."""
    lead = first[key[win]] == win
    if lead.all():
        return win, win[:0], win[:0]
    ties, win = win[~lead], win[lead]
    boss = first[key[ties]]
    a, b = src[ties], src[boss]
    vy, vx = velocity
    keep = ((a < own_count) == (b < own_count)) & ((vy[a] != vy[b]) | (vx[a] != vx[b]))
    ties, boss = ties[keep], boss[keep]
    return win, ties, np.searchsorted(win, boss)


def blend_rivals(found: tuple[np.ndarray, ...], velocity: tuple[np.ndarray, np.ndarray, int],
                 shown: tuple[np.ndarray, ...], where: tuple[np.ndarray, ...],
                 col: np.ndarray, show: Callable) -> None:
    """``col`` (what the landings ``win``, then the borders, show) with each landing's
    equal rivals (``ties`` and their ``place`` in ``win``), and each border's (``took``:
    its landing) other landings beside it at its depth, of its source, blended in.
    ``found``: every landing's time index, splat and depth; ``velocity``: the
    splats' (vy, vx) and how many are the own sub-frame's; ``shown`` ends with the
    borders' keys; ``where``: the domain's lookup and pixels, the keys' stride, the
    z-buffer's marks, each row's pixel and the frame's size;
    ``show(splats, time indices, pixels, landed)``: what they show there (the first
    ``landed`` at landings)."""
    m, src, dep = found
    vy, vx, own = velocity
    win, ties, place, took, near = shown
    lut, dom, stride, marks, at, size = where

    def same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (dep[win[a]] == dep[win[took[b]]]) & \
            ((src[win[a]] < own) == (src[win[took[b]]] < own))

    beside = border_rivals(near, took, win, same, (lut, dom, stride), size, marks)
    la, lb = src[win[beside[1]]], src[win[took[beside[0]]]]
    if not len(ties) and not ((vy[la] != vy[lb]) | (vx[la] != vx[lb])).any():
        return  # (a border's landings beside it of its own velocity: no rivals)
    rows, cand = extras(win, ties, place, took, beside)
    lead = src[np.concatenate([win, win[took]])[rows]]
    pick = distinct(rows, (vy[src[cand]], vx[src[cand]]), (vy[lead], vx[lead]))
    rows, cand = rows[pick], cand[pick]
    blend(col, rows, show(src[cand], m[cand], at[rows], int(np.searchsorted(rows, len(win)))))


def border_rivals(near: np.ndarray, took: np.ndarray, win: np.ndarray, same: Callable,
                  where: tuple[np.ndarray, np.ndarray, int], size: tuple[int, int],
                  taken: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The landings beside each border (keys ``near``) other than the one it took
    (``took``, a place in ``win``) at that one's depth and of its source (``same(at,
    b)``: whether the landing at place ``at`` is so for border ``b``): (border, landing)
    pairs. ``where``: the domain's lookup and pixels and the keys' stride; ``taken``: the
    z-buffer's marks (each landing's winner at its key)."""
    lut, dom, stride = where
    h, w = size
    place = near % stride
    row, pix = near - place, dom[place]
    x = pix % w
    rows, lands = [], []
    for step, inside in ((-1, x > 0), (1, x < w - 1), (-w, pix >= w), (w, pix < (h - 1) * w)):
        mark = taken[row + lut[np.where(inside, pix + step, pix)]]
        b = np.flatnonzero(inside & (mark >= 0) & (mark != FREE))
        at = np.searchsorted(win, mark[b])
        ok = (at != took[b]) & same(at, b)
        rows.append(b[ok])
        lands.append(at[ok])
    return np.concatenate(rows), np.concatenate(lands)


def extras(win: np.ndarray, ties: np.ndarray, place: np.ndarray, took: np.ndarray,
           beside: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every (row, landing) that a row of shown colour may blend in besides its own (rows:
    the landings ``win``, then the borders, ``took``: each border's landing, a place in
    ``win``; ``beside``: :func:`border_rivals`' pairs): a landing's rivals (``ties``, their
    leads' ``place``), and a border's landings' (the one it took and those beside it, and
    their rivals)."""
    b_rows = len(win) + np.concatenate([np.arange(len(took)), beside[0]])
    b_land = np.concatenate([took, beside[1]])
    order = np.argsort(place, kind="stable")
    sorted_ties, place_s = ties[order], place[order]
    lo = np.searchsorted(place_s, b_land, "left")
    count = np.searchsorted(place_s, b_land, "right") - lo
    each = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
    return (np.concatenate([place, b_rows, np.repeat(b_rows, count)]),
            np.concatenate([ties, win[b_land], sorted_ties[each]]))


def distinct(rows: np.ndarray, vel: tuple[np.ndarray, np.ndarray],
             lead: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which of the pairs ``rows`` (with their candidates' velocities ``vel``, (vy, vx),
    and their rows' leads' ``lead``) a row blends: one per velocity, none with its lead's,
    at most ``RIVALS - 1`` a row: their indices, rows ascending."""
    vy, vx = vel
    at = np.flatnonzero((vy != lead[0]) | (vx != lead[1]))
    at = at[np.lexsort((vx[at], vy[at], rows[at]))]
    r, y, x = rows[at], vy[at], vx[at]
    new = np.ones(len(at), bool)
    new[1:] = (r[1:] != r[:-1]) | (y[1:] != y[:-1]) | (x[1:] != x[:-1])
    at, r = at[new], r[new]
    return at[np.arange(len(r)) - np.searchsorted(r, r, "left") < RIVALS - 1]


def blend(shown: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``shown``'s ``rows`` (in place) the mean of what they showed and the rivals'
    ``values`` there, summed in float64."""
    at, inv = np.unique(rows, return_inverse=True)
    acc = np.take(shown, at, axis=0).astype(np.float64)
    np.add.at(acc, inv, values.astype(np.float64))
    count = np.bincount(inv, minlength=len(at)) + 1
    shown[at] = (acc / count[:, None]).astype(np.float32)
