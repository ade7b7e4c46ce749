"""What a window's sub-frames share on the window path (:mod:`.dof_window`): a lens, and
the pixels' classes.

**Lenses.** Sub-frames with equal lenses share them. A focus pull has a lens per sub-frame
(its focus moves ~1% a frame), which would make groups of one: a group of different lenses
therefore shares one lens (:func:`shared_lens`: the weighted mean focus distance and
aperture) when no circle of confusion in it moves by more than :data:`LENS_TOLERANCE_PX`
(radius, pixels) from its own lens's; else it is halved, in order of first use, until the
halves pass (:func:`lens_groups`). The radius, ``min(K |1 - S / d|, cap) / 2``, is
piecewise linear in ``1 / d``: the largest difference between two lenses over a range of
depths is at the ends of the range or at a kink (a focus plane, where a cap begins), so the
test is exact and costs a few evaluations per lens (:func:`coc_shift`).

**Classes.** :func:`window_classes`: each pixel's class (side, disk area) in every
sub-frame; the pixels whose class changes are *moving*.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hfrender.dof_layers import class_keys, disk_tables
from hfrender.optics import Lens

LENS_TOLERANCE_PX = 0.25  # the most a CoC radius may move (pixels) for sub-frames to share

Users = list[tuple[int, float]]  # a window's (sub-frame, weight) pairs


def lens_of(lens: Lens | Sequence[Lens], j: int) -> Lens:
    """Sub-frame ``j``'s lens (one lens for all, or one per sub-frame)."""
    return lens if isinstance(lens, Lens) else lens[j]


def lens_groups(users: Users, lens: Lens | Sequence[Lens], spans: dict[int, tuple[float, float]],
                tolerance: float = LENS_TOLERANCE_PX, size: tuple[int, int] = (0, 0),
                ) -> list[tuple[Lens, Users]]:
    """The window's ``users`` in groups, each with the lens it is defocused with: equal
    lenses together (in order of first use; that lens itself), and runs of them under one
    shared lens where every member's circles of confusion, over its sub-frames' depths
    (``spans[j]``: the nearest and farthest of sub-frame j, :func:`depth_range`), stay
    within ``tolerance`` pixels of the shared lens's on an image of ``size`` (W, H).
    ``tolerance=0``: equal lenses only."""
    equal: dict[Lens, Users] = {}
    for j, wk in users:
        equal.setdefault(lens_of(lens, j), []).append((j, wk))
    groups = list(equal.items())
    if tolerance <= 0 or len(groups) < 2:
        return groups
    ranged = [(ln, g, (min(spans[j][0] for j, _ in g), max(spans[j][1] for j, _ in g)))
              for ln, g in groups]
    return _halve(ranged, tolerance, *size)


def _halve(groups: list[tuple[Lens, Users, tuple[float, float]]], tolerance: float,
           w: int, h: int) -> list[tuple[Lens, Users]]:
    """``groups`` (lens, users, depth range) under one shared lens if it is within
    ``tolerance`` of all, else each half so."""
    if len(groups) == 1:
        return [groups[0][:2]]
    users = [u for _, g, _ in groups for u in g]
    shared = shared_lens([ln for ln, _, _ in groups], [sum(wk for _, wk in g)
                                                      for _, g, _ in groups])
    if shared is not None and all(coc_shift(ln, shared, span, w, h) <= tolerance
                                  for ln, _, span in groups):
        return [(shared, users)]
    half = len(groups) // 2
    return _halve(groups[:half], tolerance, w, h) + _halve(groups[half:], tolerance, w, h)


def shared_lens(lenses: Sequence[Lens], weights: Sequence[float]) -> Lens | None:
    """One lens for ``lenses`` (weighted by ``weights``): the weighted mean focus distance
    and aperture (``1 / N``); ``None`` when they differ in anything else."""
    first = lenses[0]
    rest = (first.focal_length_mm, first.sensor_width_mm, first.max_coc_px,
            first.aperture_blades)
    if any((ln.focal_length_mm, ln.sensor_width_mm, ln.max_coc_px, ln.aperture_blades) != rest
           for ln in lenses):
        return None
    wk = np.asarray(weights, np.float64)
    wk = wk / wk.sum() if wk.sum() > 0 else np.full(len(wk), 1.0 / len(wk))
    focus = float(wk @ [ln.focus_distance for ln in lenses])
    opening = float(wk @ [1.0 / ln.f_stop for ln in lenses])
    return Lens(focus, 1.0 / opening, *rest)


def coc_shift(a: Lens, b: Lens, depths: tuple[float, float], w: int, h: int) -> float:
    """The largest difference (pixels) between ``a``'s and ``b``'s CoC radii at depths in
    ``depths`` (nearest, farthest; metres, ``inf`` allowed) on a ``w`` x ``h`` image."""
    lo, hi = depths
    d = np.array([lo, hi] + [k for ln in (a, b) for k in _kinks(ln, w, h) if lo < k < hi])
    return float(np.abs(a.coc_radius_px(d, w, h).astype(np.float64)
                        - b.coc_radius_px(d, w, h)).max())


def _kinks(lens: Lens, w: int, h: int) -> list[float]:
    """The depths where ``lens``'s CoC radius bends: its focus plane, and where the cap
    begins on either side of it."""
    s, cap = lens.focus_distance, lens.blur_cap_px(w, h)
    if math.isinf(s):  # focused at infinity, the CoC falls as 1 / depth: capped up to here
        return [float(lens.coc_px(1.0, w)) / cap]
    ratio = cap / float(lens.coc_px(np.inf, w))  # cap / the sky's CoC
    return [s, s / (1.0 + ratio)] + ([s / (1.0 - ratio)] if ratio < 1.0 else [])


def depth_range(depth: np.ndarray) -> tuple[float, float]:
    """The nearest and farthest depth in ``depth`` (any shape)."""
    return float(depth.min()), float(depth.max())


@dataclass
class Classes:
    """The window's classes: the still pixels' keys, and each sub-frame's keys of the moving
    pixels (flat indices ``index``)."""

    keys: np.ndarray  # (H, W) int32, the keys of sub-frame 0
    index: np.ndarray  # (M,) flat indices of the moving pixels
    moving_keys: np.ndarray  # (N, M) int32
    counts: np.ndarray  # histogram of all sub-frames' keys (index key + max_area)
    max_d2: int
    max_area: int
    blades: int = 0  # the lenses' aperture blades (one for all)

    @property
    def moving_share(self) -> float:
        return len(self.index) / self.keys.size


def _keys(depth: np.ndarray, lens: Lens, w: int, h: int, area_of_d2: np.ndarray,
          max_d2: int) -> np.ndarray:
    r2 = lens.coc_radius_px(depth, w, h)
    np.floor(np.multiply(r2, r2, out=r2), out=r2)  # in place: as defocus_layers has them
    area = np.minimum(r2.astype(np.int32), max_d2)
    np.take(area_of_d2, area, out=area)
    return class_keys(np, area, np.asarray(depth, np.float32), lens.focus_distance)


def _max_d2(spans: Sequence[tuple[float, float]], lenses: Sequence[Lens], w: int,
            h: int) -> int:
    """The floor of the largest squared CoC radius over sub-frames whose depths span
    ``spans``: a CoC grows away from the focus plane on both sides, so it is largest at a
    frame's nearest or farthest depth."""
    ends = [ln.coc_radius_px(np.array(span), w, h) for span, ln in zip(spans, lenses,
                                                                        strict=True)]
    return int(np.floor(max(float((r * r).max()) for r in ends)))


def window_classes(depths: Sequence[np.ndarray], lenses: Sequence[Lens],
                   spans: Sequence[tuple[float, float]] | None = None) -> Classes | None:
    """The classes of a window's sub-frames (each with its depth and lens, and the span of
    its depths if known: :func:`depth_range`); ``None`` when nothing is blurred (every
    disk one pixel)."""
    h, w = depths[0].shape
    spans = spans if spans is not None else [depth_range(d) for d in depths]
    max_d2 = _max_d2(spans, lenses, w, h)
    if max_d2 < 1:
        return None
    blades = lenses[0].aperture_blades
    _, area_of_d2, _ = disk_tables(max_d2, blades)
    max_area = int(area_of_d2[-1])

    def keys(d: np.ndarray, ln: Lens) -> np.ndarray:
        return _keys(d, ln, w, h, area_of_d2, max_d2).reshape(-1)

    first = keys(depths[0], lenses[0])
    if all(ln == lenses[0] for ln in lenses):
        moving = _changes(depths, lambda d: keys(d, lenses[0]), first)
    else:
        moving = np.zeros(h * w, bool)
        for d, ln in zip(depths[1:], lenses[1:], strict=True):
            moving |= keys(d, ln) != first
    index = np.flatnonzero(moving)
    moving_keys = np.stack([keys(np.asarray(d).reshape(-1)[index], ln)
                            for d, ln in zip(depths, lenses, strict=True)])
    size = 2 * max_area + 1
    counts = (len(depths) * np.bincount(first[~moving] + max_area, minlength=size)
              + np.bincount(moving_keys.ravel() + max_area, minlength=size))
    return Classes(first.reshape(h, w), index, moving_keys.reshape(len(depths), -1), counts,
                   max_d2, max_area, blades)


def _changes(depths: Sequence[np.ndarray], keys: Callable[[np.ndarray], np.ndarray],
             first: np.ndarray) -> np.ndarray:
    """(H * W,) bool: the pixels whose key (``keys`` of a depth map, one lens) is not
    ``first`` in some sub-frame. A key is monotone in depth on each side of the focus plane
    (0 across it), so it changes if and only if it does at the pixel's nearest or farthest
    depth: three maps classed, not one per sub-frame."""
    near, far = np.array(depths[0], np.float32), np.array(depths[0], np.float32)
    for d in depths[1:]:
        np.minimum(near, d, out=near)
        np.maximum(far, d, out=far)
    return (keys(near) != first) | (keys(far) != first)
