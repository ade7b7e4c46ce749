"""Outlier vectors in motion reconstruction: a few pixels far faster than the rest of their
sub-frame (a bad optical-flow match, geometry by the camera) are not splatted with the rest.

The splatting's intermediate times are as many as the fastest splatted pixel needs
(:func:`~hfrender.backends.cpu.recon_cells.half_steps`), and every moving pixel lands at
each: one pixel at 5000 px a frame made every moving pixel land 2500 times (a 321x181 frame:
0.2 s -> 2.5 s). So a sub-frame's *outliers* (:func:`outliers`: at most
:data:`OUTLIER_SHARE` of its moving pixels, each faster than :data:`OUTLIER_RATIO` times
every other one and moving more than :data:`OUTLIER_PX` over the shutter) leave the
splatting: the times are the rest's, and the outliers' places are holes like any moving
pixel's (what is behind them shows). Each outlier is drawn over its cell's picture on its
own (:func:`streaks`): a pixel a step along its path (its streak clipped to the frame
first), weighing 1 / steps, where it is nearer than the still picture and than the
sub-frame's other moving surfaces where they are at its time (:func:`cover`; one as near
covers no outlier: without depth, what moves is one layer, the outliers laid over it),
``C + (1 - A) * picture`` where it covers ``A`` of the cell (:func:`over`). Its
cost is its own streak. A sub-frame without outliers is reconstructed as before, bit for
bit; a split one, bit for bit away from its outliers' streaks and their holes' paths: an
outlier inside a moving surface leaves a hole there that the surface carries along its
motion over the cell (the pixels it passes over, within the surface's travel, show it about
1 / its travel in pixels less). Both backends call these with their array module.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.backends.cpu.recon_cells import STEP_PX

OUTLIER_SHARE = 1e-3  # the most of a sub-frame's moving pixels that may be outliers (>= 1)
OUTLIER_RATIO = 4.0  # an outlier is faster than this many times every other moving pixel
OUTLIER_PX = 64.0  # ... and moves more than this many pixels over the shutter
STREAK_CHUNK = 1 << 21  # landings drawn at once, at most (each: 4 taps of 3 arrays + colour)


def outliers(xp: Any, velocity: Any, moving: Any, shutter: float) -> tuple[Any, float]:
    """A sub-frame's outliers (flat indices, raster order, of ``xp``; empty: none) and the
    largest speed of its other pixels (float; the step count's), from its ``velocity``
    (H, W, 2), its ``moving`` mask and the shutter (the longest span, seconds)."""
    speed = xp.sqrt((velocity.astype(np.float64) ** 2).sum(-1)).reshape(-1)
    idx = xp.flatnonzero(moving.reshape(-1))
    n = int(idx.size)
    none = idx[:0]
    if n < 2:
        return none, float(speed.max()) if speed.size else 0.0
    s = speed[idx]
    k = max(1, int(n * OUTLIER_SHARE))
    if k >= n:
        return none, float(s.max())
    rest = float(xp.partition(s, n - k - 1)[n - k - 1])  # the k + 1st fastest
    bar = max(OUTLIER_RATIO * rest, OUTLIER_PX / shutter if shutter > 0 else math.inf)
    fast = s > bar
    if not bool(fast.any()):
        return none, float(s.max())
    return idx[fast], float(s[~fast].max())


def _span(xp: Any, p0: Any, v: Any, lo: float, hi: float, size: int) -> tuple[Any, Any]:
    """The times in [lo, hi] (less the sub-frame's) at which ``p0 + v * t`` lies within
    a pixel past the outer centres of an axis of ``size`` pixels (where a landing still
    splits onto the frame): (from, to)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (-1.0 - p0) / v
        b = (size - p0) / v
    still = v == 0
    inside = (p0 >= -1.0) & (p0 <= size)
    t0 = xp.where(still, xp.where(inside, lo, math.inf), xp.minimum(a, b))
    t1 = xp.where(still, xp.where(inside, hi, -math.inf), xp.maximum(a, b))
    return xp.maximum(t0, lo), xp.minimum(t1, hi)


def cover(xp: Any, base_d: Any, depth: Any, splat: Any) -> Any:
    """The depth (H, W) a step of an outlier's streak must be nearer than to be drawn: the
    still picture's (``base_d``: what shows behind the moving pixels; holes infinite), and
    where the sub-frame's other moving surfaces are at its time (``splat``: moving, no
    outlier; ``depth`` the sub-frame's) theirs, a float step farther (equal depths: the
    outlier in front). A slow surface's edges are where they are at the sub-frame's time
    (the reconstruction keeps no depth): off by its motion over the cell at most."""
    farther = xp.nextafter(depth, np.float32(np.inf))
    return xp.where(splat.astype(bool), xp.minimum(base_d, farther), base_d)


def streaks(xp: Any, fast: Any, frame: tuple[Any, Any, Any], cover_d: Any, cell: tuple,
            shift: tuple[float, float] = (0.0, 0.0)) -> tuple[Any, Any, Any] | None:
    """The outliers ``fast`` of a sub-frame (``frame``: its linear colour (H, W, C), depth
    and velocity) drawn over its cell ``cell = (lo, hi, t)`` (seconds; ``t`` its time): a
    landing every :data:`STEP_PX` of its travel at most, at the middles of equal parts of
    the cell, weighing 1 / their number, split bilinearly over the four pixels around it
    (so a streak of whole-pixel steps is even: rounding made it dotted where steps fell on
    half pixels), on each where it is nearer than ``cover_d`` (:func:`cover`). Landed
    :data:`STREAK_CHUNK` at a time, each chunk added into the sums so far. Returns (the
    pixels landed on, flat and distinct; the colour (n, C) and the cover (n,) summed there,
    float64), or None where nothing lands."""
    lin, depth, velocity = frame
    lo, hi, t = cell
    h, w, c = lin.shape
    v = velocity.reshape(-1, 2)[fast].astype(np.float64)
    ys = (fast // w).astype(np.float64) - shift[0]
    xs = (fast % w).astype(np.float64) - shift[1]
    travel = xp.hypot(v[:, 0], v[:, 1]) * (hi - lo) / STEP_PX
    steps = xp.maximum(1, xp.ceil(travel)).astype(np.int64)
    y0, y1 = _span(xp, ys, v[:, 1], lo - t, hi - t, h)
    x0, x1 = _span(xp, xs, v[:, 0], lo - t, hi - t, w)
    # the landings' indices i (time lo + (i + 0.5) / steps * (hi - lo)) in the frame, a
    # step's margin each way (what rounds outside is left out below)
    scale = steps / (hi - lo)
    first = xp.clip(xp.floor((xp.maximum(y0, x0) + t - lo) * scale - 0.5) - 1, 0, steps)
    last = xp.clip(xp.ceil((xp.minimum(y1, x1) + t - lo) * scale - 0.5) + 2, 0, steps)
    count = xp.maximum(last - first, 0).astype(np.int64)
    ends = xp.cumsum(count)
    total = int(ends[-1]) if len(ends) else 0
    colour = lin.reshape(-1, c)[fast].astype(np.float64)
    near, drawn = depth.reshape(-1)[fast], None
    for taps, a, b in _chunks(total):
        # each landing's outlier and index among its own (no repeat by an array: CuPy < 14)
        owner = xp.searchsorted(ends, xp.arange(a, b), side="right")
        i = first.astype(np.int64)[owner] + xp.arange(a, b) - (ends - count)[owner]
        dt = lo - t + (i + 0.5) / steps[owner] * (hi - lo)
        pix, owner, weight = _bilinear(xp, (ys[owner] + v[owner, 1] * dt,
                                            xs[owner] + v[owner, 0] * dt), owner,
                                       near, cover_d.reshape(-1), (h, w), taps)
        weight /= steps[owner]
        drawn = _add(xp, drawn, pix, weight, colour[owner])
    return None if drawn is None or not drawn[0].size else drawn


def _chunks(total: int) -> list[tuple[tuple[int, ...], int, int]]:
    """The landings ``[0, total)`` in chunks of :data:`STREAK_CHUNK` at most, as (bilinear
    taps, first, end): one of all four taps where they fit, else each tap's in turn (the
    order of the sums' terms: tap by tap, landing by landing, chunked or not)."""
    if total <= STREAK_CHUNK:
        return [((0, 1, 2, 3), 0, total)] if total else []
    return [((tap,), a, min(a + STREAK_CHUNK, total)) for tap in range(4)
            for a in range(0, total, STREAK_CHUNK)]


def _add(xp: Any, drawn: tuple[Any, Any, Any] | None, pix: Any, weight: Any, colour: Any
         ) -> tuple[Any, Any, Any]:
    """(pixels, colour sums, cover sums) with a chunk's taps (``pix``, ``weight``, their
    ``colour``) added: the sums so far first in each pixel's ``bincount``, then the taps in
    their order, so that chunks sum bit for bit as one."""
    if drawn is not None:
        where, sums, cover = drawn
        pix = xp.concatenate([where, pix])
        weight = xp.concatenate([cover, weight])
        terms = [xp.concatenate([sums[:, ch], weight[len(where):] * colour[:, ch]])
                 for ch in range(colour.shape[1])]
    else:
        terms = [weight * colour[:, ch] for ch in range(colour.shape[1])]
    where, slot = xp.unique(pix, return_inverse=True)
    cover = xp.bincount(slot, weight, minlength=len(where))
    sums = xp.stack([xp.bincount(slot, term, minlength=len(where)) for term in terms], axis=1)
    return where, sums, cover


def _bilinear(xp: Any, place: tuple[Any, Any], owner: Any, near: Any, cover_d: Any,
              size: tuple[int, int], taps: tuple[int, ...] = (0, 1, 2, 3)
              ) -> tuple[Any, Any, Any]:
    """Landings at ``place`` (y, x) split over the four pixels around each (``taps`` of
    them: top left, top right, bottom left, bottom right), those in the frame where the
    landing's outlier (``owner``, its depth in ``near``) is nearer than ``cover_d``:
    (pixel, owner, bilinear weight) per tap, tap by tap."""
    h, w = size
    py, px = place
    fy, fx = xp.floor(py), xp.floor(px)
    wy, wx = py - fy, px - fx
    near = near[owner]
    pixs, owners, weights = [], [], []
    every = ((fy, fx, (1 - wy) * (1 - wx)), (fy, fx + 1, (1 - wy) * wx),
             (fy + 1, fx, wy * (1 - wx)), (fy + 1, fx + 1, wy * wx))
    for ty, tx, tap in (every[k] for k in taps):
        pix = (xp.clip(ty, 0, h - 1) * w + xp.clip(tx, 0, w - 1)).astype(np.int64)
        ok = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w) & (tap > 0)
        ok &= near < cover_d[pix]
        pixs.append(pix[ok])
        owners.append(owner[ok])
        weights.append(tap[ok])
    return xp.concatenate(pixs), xp.concatenate(owners), xp.concatenate(weights)


def over(xp: Any, picture: Any, drawn: tuple[Any, Any, Any] | None) -> Any:
    """``picture`` (H, W, C) float32 with the outliers' :func:`streaks` over it, in place:
    ``C + (1 - A) * picture`` (``C`` scaled to ``A = 1`` where they cover more)."""
    if drawn is None:
        return picture
    where, sums, cover = drawn
    flat = picture.reshape(-1, picture.shape[-1])
    scale = 1.0 / xp.maximum(cover, 1.0)
    under = flat[where].astype(np.float64)
    flat[where] = (sums * scale[:, None] + (1.0 - cover * scale)[:, None] * under
                   ).astype(np.float32)
    return picture
