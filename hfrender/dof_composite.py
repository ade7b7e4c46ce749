"""The depth gather's last step, shared by every backend: a pixel's sums to its colour.

Each output pixel p has sums ``[colour * w, w]`` of the light that reaches it from sources
nearer than p (*front*), from p's own surface and behind it (*back*), and from behind alone
(*behind*, a part of back). The exact gather (``hfrender/backends/cpu/dof.py``) forms them
source by source, the fast layers (:mod:`hfrender.dof_layers`) layer by layer.

What is in front covers p up to its weight; under it, the back light, normalised. First,
what p's disk sees past p's surface (the weight it falls short by) is filled from the far
light of larger disks behind p (``far``: their own spread at p, each source ``1 / its
area``), as far as that light covers p and as far as it lies within p's own disk
(``open_``): a lens sees a farther, more blurred background through the part of its
aperture that p's surface leaves open, not where a nearer object of the depth pass hides
p's surface (and with it that background). Then, for a defocused pixel before the focus
plane, from what its disk sees behind it (``hid``: the pixels in focus, or behind with
smaller disks, within its own disk, each ``1 / its area``), their mean colour as far as
they lie within its disk: what the depth pass hides behind p's surface is taken to look
like what lies behind it around its edge (normalised over its own surface instead, a white
card at 0.4 m before a dark sky kept 1.10x its light and a hard edge,
``benchmarks/dof_lens_reference.py``). What is still missing (a surface whose background
the depth pass hides, or that has none: a lamp before nothing farther) is normalised, or,
where the weight reaching p falls well short of what p's disk can gather inside the
picture, taken from what p sees behind: from none at a shortfall of :data:`FILL_FROM` to
all of it at :data:`FILL_FULL` (a small lamp far behind the focus plane normalised over its
share of its pixels' disks kept them at its full brightness: +24% light and twice the peak
of a lens render, ``benchmarks/bokeh.py``). The exact gather and the fast layers, whose
"behind" differ within a merged layer, stay within the same few dB of each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

FILL_FROM, FILL_FULL = 0.3, 0.6  # the shortfall from which, and at which fully, behind fills it
# what a defocused pixel sees in focus past its edge is taken at most SEEN_FACTOR times this
# percentile of the frame's brightness, over every SEEN_STEP-th row (:func:`seen_top`): a
# highlight is cut down, a surface's own texture never reaches it
SEEN_PERCENTILE, SEEN_FACTOR, SEEN_STEP = 99.9, 4.0, 7
SEEN_FLOOR = 1.0  # and never below white: only light brighter than white is ever cut
_SEEN_LEVEL_TOP = np.float32(np.finfo(np.float32).max / SEEN_FACTOR)  # x4: float32's top


def composite(xp: Any, front: Any, front_w: Any, back: Any, back_w: Any, behind: Any,
              behind_w: Any, inside: Any, out: Any = None, far: Any = None,
              open_: Any = None, hid: Any = None) -> Any:
    """The picture (C, ...) from colour sums (C, ...) and their weights (...) of the light
    in front of each pixel, of its surface and behind it, and behind it alone; ``inside``:
    the share of each pixel's disk inside the picture (:func:`disk_inside`); ``out``: where
    to write it (a new array if None); ``far`` (C + 1, ...): the far light of larger disks
    (``[sum c * w, sum w]``), which fills the shortfall first (``back`` and ``back_w`` take
    it in place), at most ``open_`` (...): the share of each pixel's own disk where those
    sources lie (a nearer surface of the depth pass that hides the pixel's own far
    surface hides the far light too; ``None``: no such cap); ``hid`` (C + 1, ...): what
    a defocused pixel before the focus plane sees behind it (its mean: :func:`_fill`), which
    fills what is left next. The fill from behind is computed only where it is not zero."""
    if far is not None:  # (C + 1, ...): the larger-disk far light's own spread at p
        _fill(xp, back, back_w, inside - front_w - back_w, far, open_)
    if hid is not None:  # (C + 1, ...): what a defocused pixel's disk sees behind it
        _fill(xp, back, back_w, inside - front_w - back_w, hid)
    out = xp.divide(back, back_w, out=out)
    short = inside - front_w - back_w
    pick = (behind_w > 0) & (short > FILL_FROM)
    if bool(pick.any()):
        s = short[pick]
        s *= xp.clip((s - FILL_FROM) / (np.float32(FILL_FULL) - np.float32(FILL_FROM)),
                     0.0, 1.0)
        fill = behind[:, pick] / behind_w[pick]
        out[:, pick] = (back[:, pick] + s * fill) / (back_w[pick] + s)
    out *= 1.0 - xp.minimum(front_w, 1.0)
    out += front / xp.maximum(front_w, 1.0)
    return out


def _fill(xp: Any, back: Any, back_w: Any, short: Any, sums: Any, cap: Any = None) -> None:
    """:func:`composite`'s fills, in place: p's shortfall ``short`` (used up) filled with
    the light of ``sums`` (C + 1, ...: ``[sum c * w, sum w]``) as far as its weight goes,
    and, with ``cap``, no further than that. The far light of larger disks: as far as it
    covers p (not a far edge's share) and lies within p's disk (``open_``); what a defocused
    pixel before the focus plane sees behind it (``hid``, each 1 / p's area): its mean, as
    far as it lies within p's disk. Over every pixel, zero where it does not fill: where
    it does (a tenth of a 64 px blur's pixels) that takes 0.4x the time of picking them
    out, and it is the same sum bit for bit."""
    pick = (sums[-1] > 0) & (short > np.float32(1e-4))
    if cap is not None:
        pick &= cap > 0
    if not bool(pick.any()):
        return
    s = xp.minimum(short, sums[-1], out=short)
    if cap is not None:
        xp.minimum(s, cap, out=s)
    s *= pick  # (short is finite: 0 where it does not fill)
    light = sums[:-1] / xp.where(pick, sums[-1], np.float32(1))
    light *= s
    back += light
    back_w += s


def disk_inside(xp: Any, area: Any, largest: int | None = None) -> Any:
    """(..., H, W) float32: the share of each pixel's disk of ``area`` pixels (a circle of
    that area) that lies inside the picture: what its disk can gather at all. The light a
    pixel by the border misses is outside the picture, not hidden behind anything. Only
    the strips along the borders that the largest disk reaches are computed (``largest``:
    an area no smaller than any in ``area``, known on the host; else read from it)."""
    h, w = (int(s) for s in area.shape[-2:])
    y = xp.arange(h, dtype=xp.float32)[:, None]
    x = xp.arange(w, dtype=xp.float32)[None, :]
    largest = float(area.max()) if largest is None else largest
    reach = int(np.ceil(np.sqrt(largest / np.pi))) + 1
    if 2 * reach >= min(h, w):
        return disk_inside_at(area, y, x, (h, w), xp)
    out = xp.ones(area.shape, xp.float32)  # a strip's pixels miss light past its border
    half = np.float32(0.5)  # alone (the far border is past their disk): one share each
    for rows, far in ((slice(0, reach), False), (slice(h - reach, h), True)):
        at = y[rows] + half
        out[..., rows, :] = _kept(xp, _radius(xp, area[..., rows, :]),
                                  np.float32(h) - at if far else at)
    for cols, far in ((slice(0, reach), False), (slice(w - reach, w), True)):
        at = x[:, cols] + half
        out[..., cols] *= _kept(xp, _radius(xp, area[..., cols]),
                                np.float32(w) - at if far else at)
    return out


def inside_of_keys(xp: Any, keys: Any, largest: int | None = None) -> Any:
    """:func:`disk_inside` of pixels by their class keys (``side * area``, 0 in focus)."""
    return disk_inside(xp, xp.maximum(xp.abs(keys), 1), largest)


def disk_inside_at(area: Any, y: Any, x: Any, size: tuple[int, int], xp: Any = np) -> Any:
    """:func:`disk_inside` of disks of ``area`` at pixels (``y``, ``x``), broadcast, of a
    picture of ``size`` (H, W)."""
    h, w = size
    y = xp.asarray(y, dtype=xp.float32) + np.float32(0.5)
    x = xp.asarray(x, dtype=xp.float32) + np.float32(0.5)
    radius = _radius(xp, area)
    rows = _kept(xp, radius, y) + _kept(xp, radius, np.float32(h) - y) - 1.0
    cols = _kept(xp, radius, x) + _kept(xp, radius, np.float32(w) - x) - 1.0
    return (rows * cols).astype(xp.float32)


def _radius(xp: Any, area: Any) -> Any:
    """The radius of a circle of ``area`` (float32)."""
    return xp.sqrt(xp.asarray(area).astype(xp.float32) / np.float32(np.pi))


def _kept(xp: Any, radius: Any, a: Any) -> Any:
    """The share of a circle of ``radius`` on the near side of a border at distance ``a``
    from its centre (broadcast)."""
    a = xp.minimum(a, radius)
    cut = radius * radius * xp.arccos(a / radius) - a * xp.sqrt(radius * radius - a * a)
    return 1.0 - cut / (np.float32(np.pi) * radius * radius)


def seen_top(xp: Any, planar: Any) -> Any:
    """The brightest in-focus light a defocused pixel before the focus plane is taken to
    see past its edge (a float32 scalar array): :data:`SEEN_FACTOR` times
    :data:`SEEN_PERCENTILE` of the colour channels' largest (not alpha, a 4th plane) over
    every :data:`SEEN_STEP`-th row of the frame (``planar`` (C, H, W)), and at least
    :data:`SEEN_FLOOR` (a dark frame's small lit subject is not cut). What the depth pass
    hides behind the edge is taken to look like the frame's usual light, not like a
    highlight: a bright point beside a blurred branch, or seen through a gap in it, is not
    copied onto the branch."""
    colour = planar[: min(3, int(planar.shape[0])), ::SEEN_STEP]
    largest = colour[0]
    for plane in colour[1:]:  # a reduction over the planes of a (H, W, C) frame's planar
        largest = xp.maximum(largest, plane)  # view reads it 3 values apart: 6x slower
    level = xp.percentile(largest, SEEN_PERCENTILE)  # (float32: 4x of 1e38 is past its top,
    level = xp.minimum(level, _SEEN_LEVEL_TOP)  # NumPy's overflow warning; capped, no cap)
    return xp.asarray(xp.maximum(level * SEEN_FACTOR, SEEN_FLOOR), dtype=xp.float32)
