"""Depth-aware thin-lens defocus of one frame on the CPU (the reference gather).

Every source pixel q spreads its light evenly over its circle of confusion (a disk of
radius r_q = CoC_q / 2, counted in whole pixels, so the weights of one source sum to 1
and energy is conserved). The gather visits, for every output pixel p, each offset
within the largest radius and takes the sources whose disk covers p. Occlusion:

* sources clearly in front of p (nearer by more than ``FRONT_TOLERANCE``) form a front
  layer that is composited over the rest, with coverage ``alpha = sum of their
  weights``: a defocused foreground spreads over a sharp background;
* sources clearly behind p count only where p's own disk also covers them (p is
  blurred enough to be see-through there): an in-focus foreground stays sharp and no
  background bleeds onto it; those whose own disk is larger than p's are summed apart
  instead, as they spread (wherever their disk covers p, ``1 / area_q``), and fill what
  p's disk sees past its surface (its shortfall, as far as they cover p and lie within
  p's own disk: not where a nearer object hides p's surface): what a lens sees
  of a farther, more blurred background around a small far surface (a lamp's pixels are
  not brightened) or past a nearer blurred edge (a far highlight's bokeh keeps its level);
* sources in focus, or behind with smaller disks, behind a defocused p in front of the
  focus plane are, besides their own spread (in focus: none), what p sees behind it:
  where p's own disk covers them, each weighing ``1 / area_p`` (its colour at most
  :func:`hfrender.dof_composite.seen_top`), summed apart (*hid*). They fill what p's disk
  sees past its surface's edge (its shortfall) with their mean colour, at most as far as
  they lie within p's disk: the lens sees there what the depth pass hides behind p's
  surface, taken to look like what lies behind it around its edge. A defocused
  foreground's edge over a sharp or less blurred background fades as a lens draws it,
  and its light is conserved (it was renormalised over its own surface: a white card at
  0.4 m over a dark sky at 100 m had 1.10x its light, ``benchmarks/dof_lens_reference.py``);
* sources at p's depth (same surface) are averaged with the weights renormalised; where
  the weight reaching p falls well short of what p's disk gathers inside the picture (a
  small surface before a farther one), the shortfall comes from what p sees behind
  (:mod:`hfrender.dof_composite`).

A polygonal aperture (``Lens.aperture_blades``) gives polygons for disks: a source covers
the pixels its bokeh polygon covers (turned over in front of the focus plane), and "p's own
disk reaches q" is p's polygon (:func:`hfrender.optics.gather_offsets`).

Cost is O(H * W * R^2) with R the largest radius; ``Lens.max_coc_px`` bounds it.
"""

from __future__ import annotations

import logging

import numpy as np

from hfrender.backends.cpu.dof_light import large_by_rows
from hfrender.dof_composite import composite, disk_inside, seen_top
from hfrender.dof_highlights import headroom
from hfrender.optics import FRONT_TOLERANCE, Lens, disk_offsets, gather_offsets

SLOW_WORK = 4e9  # offsets x pixels above which the gather warns that it will be slow

log = logging.getLogger(__name__)


def _span(maxima: np.ndarray, d2: float) -> tuple[int, int] | None:
    """First and last index whose value reaches ``d2`` (sources whose disk reaches d2)."""
    hit = np.flatnonzero(maxima >= d2)
    return (int(hit[0]), int(hit[-1])) if len(hit) else None


def squared_radii(depth: np.ndarray, lens: Lens, w: int, h: int) -> tuple[np.ndarray, int]:
    """(every pixel's squared CoC radius in pixels, its floor's largest value): below 1
    nothing is blurred by a whole pixel."""
    r2 = np.empty(np.shape(depth), np.float32)

    def rows(y0: int, y1: int) -> None:  # a large frame's float64 steps band by band
        r = lens.coc_radius_px(depth[y0:y1], w, h)
        np.multiply(r, r, out=r2[y0:y1])

    large_by_rows(rows, *r2.shape)
    return r2, int(np.floor(float(r2.max())))


def defocus(lin: np.ndarray, depth: np.ndarray, lens: Lens) -> np.ndarray:
    """Defocus one linear-light frame ``lin`` (H, W, C float32) with ``depth`` (H, W) metres.

    Returns a new (H, W, C) float32 array.
    """
    h, w, c = lin.shape
    r2, max_d2 = squared_radii(depth, lens, w, h)
    if max_d2 < 1:
        return lin.copy()
    offsets, d2_far, d2_near = gather_offsets(max_d2, lens.aperture_blades)
    if len(offsets) * h * w > SLOW_WORK:
        log.warning("depth of field: blur radius up to %.0f px on %dx%d: the CPU gather will be "
                    "slow; max_coc_px bounds it", float(np.sqrt(r2.max())), w, h)
    # light whose sums could pass float32's range is summed in float64 (was: 3e38, inf)
    wide = headroom(max(float(lin.max()), -float(lin.min())), len(offsets)) < 1.0
    sums = _Sums(lin.astype(np.float64) if wide else lin, depth, r2, lens, max_d2,
                 int(np.abs(offsets).max()), turned=d2_near is not d2_far)
    row_max, col_max = r2.max(axis=1), r2.max(axis=0)
    spans: dict[float, tuple] = {}
    for (dy, dx), d2, d2n in zip(offsets, d2_far, d2_near, strict=True):
        least = min(d2, d2n)
        if least not in spans:  # the sources whose disk reaches this far: a bounding box
            spans[least] = (_span(row_max, least), _span(col_max, least))
        rows, cols = spans[least]
        if rows is None or cols is None:
            continue
        # output pixels p = q - (dy, dx) for sources q in the box, inside the image
        p0, p1 = max(0, rows[0] - dy), min(h, rows[1] - dy + 1)
        c0, c1 = max(0, cols[0] - dx), min(w, cols[1] - dx + 1)
        if p0 < p1 and c0 < c1:
            sums.add((slice(p0, p1), slice(c0, c1)), int(dy), int(dx), d2, d2n)
        if sums.sees and (dy or dx):  # the pixels whose own disk reaches this far see q
            (r0, r1), (c0, c1) = sums.seers  # (and are defocused before the focus plane)
            s0, s1 = max(rows[0], r0, -dy), min(rows[1] + 1, r1, h - dy)
            t0, t1 = max(cols[0], c0, -dx), min(cols[1] + 1, c1, w - dx)
            if s0 < s1 and t0 < t1:
                sums.add_seen((slice(s0, s1), slice(t0, t1)), int(dy), int(dx), d2, d2n)
    planar = [np.moveaxis(a, -1, 0) for a in (sums.front, sums.back, sums.behind)]
    far = np.concatenate([np.moveaxis(sums.far, -1, 0), sums.far_w[None]])
    hid = np.concatenate([np.moveaxis(sums.hid, -1, 0), sums.hid_w[None]]) if sums.sees \
        else None
    out = composite(np, planar[0], sums.front_w, planar[1], sums.back_w, planar[2],
                    sums.behind_w, disk_inside(np, sums.area), far=far, open_=sums.open,
                    hid=hid)
    return np.ascontiguousarray(np.moveaxis(out, 0, -1), np.float32)


class _Sums:
    """The gather's per-pixel sums of one frame, and the padded planes the sources are
    read from (``big`` pixels of padding: the farthest offset)."""

    def __init__(self, lin: np.ndarray, depth: np.ndarray, r2: np.ndarray, lens: Lens,
                 max_d2: int, big: int, turned: bool) -> None:
        h, w = r2.shape
        blades = lens.aperture_blades
        # number of whole pixels in each source's disk (offset 0 always counts): weights 1/area
        self.area = np.searchsorted(disk_offsets(max_d2, blades)[1], r2, side="right")
        inv_area = (1.0 / self.area).astype(np.float32)
        pad = ((big, big), (big, big))
        self.big, self.r2 = big, r2
        self.color_p = np.pad(lin, pad + ((0, 0),))
        self.r2_p = np.pad(r2, pad, constant_values=-1.0)  # outside the image: covers nothing
        self.w_p = np.pad(inv_area, pad)
        depth_f = np.asarray(depth, np.float32)
        self.depth_p = np.pad(depth_f, pad, constant_values=np.inf)
        self.near = depth_f * np.float32(1.0 - FRONT_TOLERANCE)
        with np.errstate(over="ignore"):  # a renderer's FLT_MAX sky: inf, as far as sky
            self.far_d = depth_f * np.float32(1.0 + FRONT_TOLERANCE)
        # an odd polygon: in front of the focus plane it is turned over
        self.near_p = depth_f < lens.focus_distance if turned else None
        self.near_q = np.pad(self.near_p, pad) if turned else None
        self.front = np.zeros_like(lin)
        self.back = np.zeros_like(lin)
        self.front_w = np.zeros((h, w), np.float32)
        self.back_w = np.zeros((h, w), np.float32)
        self.behind = np.zeros_like(lin)  # the part of back that lies behind p's surface
        self.behind_w = np.zeros((h, w), np.float32)
        self.far = np.zeros_like(lin)  # behind p, larger disks: their own spread at p
        self.far_w = np.zeros((h, w), np.float32)
        self.open = np.zeros((h, w), np.float32)  # the share of p's own disk they lie in
        self.inv_area = inv_area
        self.focus_q = np.pad(self.area == 1, pad)  # sources in focus (seen, not spread)
        self.area_q = np.pad(self.area, pad, constant_values=np.iinfo(self.area.dtype).max)
        self.seer = (depth_f < lens.focus_distance) & (self.area > 1)  # defocused, in front
        self.sees = bool(self.seer.any())
        ys, xs = (np.flatnonzero(self.seer.any(axis=a)) for a in (1, 0))
        self.seers = ((int(ys[0]), int(ys[-1]) + 1), (int(xs[0]), int(xs[-1]) + 1)) \
            if self.sees else ((0, 0), (0, 0))  # the rows and columns they lie in
        if self.sees:  # their colour as seen: at most the usual light
            top = seen_top(np, np.moveaxis(lin, -1, 0))
            self.seen_p = self.color_p.copy()
            self.hid, self.hid_w = np.zeros_like(lin), np.zeros((h, w), np.float32)
            k = min(3, lin.shape[-1])
            np.minimum(self.seen_p[..., :k], top, out=self.seen_p[..., :k])

    def _source(self, at: tuple[slice, slice], dy: int, dx: int) -> tuple[slice, slice]:
        """The padded planes' slices of the sources q = p + (dy, dx) of the pixels ``at``."""
        big = self.big
        return (slice(at[0].start + dy + big, at[0].stop + dy + big),
                slice(at[1].start + dx + big, at[1].stop + dx + big))

    def add_seen(self, at: tuple[slice, slice], dy: int, dx: int, d2: float,
                 d2n: float) -> None:
        """The sources q = p + (dy, dx) in focus or behind with smaller disks behind the
        defocused pixels ``at`` before the focus plane whose own disk reaches q (``d2n``: a
        disk turned over), each 1 / p's area, to p's hid sums."""
        src = self._source(at, dy, dx)
        reach_p = d2n if self.near_p is not None else d2
        seen = self.seer[at] & (self.r2[at] >= reach_p) & (self.focus_q[src] | (
            (self.depth_p[src] > self.far_d[at]) & (self.area_q[src] < self.area[at])))
        if not seen.any():
            return
        wb = self.inv_area[at] * seen
        self.hid_w[at] += wb
        self.hid[at] += self.seen_p[src] * wb[..., None]

    def add(self, at: tuple[slice, slice], dy: int, dx: int, d2: float, d2n: float) -> None:
        """The sources q = p + (dy, dx) of the output pixels ``at``: q's disk must reach
        ``d2`` behind the focus plane, ``d2n`` in front of it."""
        src = self._source(at, dy, dx)
        turned = self.near_p is not None
        reach_q = np.where(self.near_q[src], d2n, d2) if turned else d2
        reach_p = np.where(self.near_p[at], d2n, d2) if turned else d2
        covers = self.r2_p[src] >= reach_q
        q_depth = self.depth_p[src]
        in_front = q_depth < self.near[at]
        # behind p: only where p's own disk reaches q (p is see-through there)
        big = ~in_front & (q_depth > self.far_d[at]) & (self.area_q[src] > self.area[at])
        reaches = self.r2[at] >= reach_p  # p's own disk reaches q
        visible = ~in_front & ~big & ((q_depth <= self.far_d[at]) | reaches)
        q_w = self.w_p[src]
        wf = q_w * (covers & in_front)
        wb = q_w * (covers & visible)
        wg = q_w * (covers & big)
        self.far_w[at] += wg
        # (not ``covers``: the layers gather far pixels with p's disk alone, and an odd
        # polygon's turned disk and q's do not nest)
        self.open[at] += self.inv_area[at] * (big & reaches)
        self.far[at] += self.color_p[src] * wg[..., None]
        q_c = self.color_p[src]
        self.front_w[at] += wf
        self.back_w[at] += wb
        self.front[at] += q_c * wf[..., None]
        self.back[at] += q_c * wb[..., None]
        wh = wb * (q_depth > self.far_d[at])
        self.behind_w[at] += wh
        self.behind[at] += q_c * wh[..., None]

