"""The bokeh-shape tests' shared pieces: the lens's ``FOCUS``, the polygon written out
(``in_polygon``), the exact gather's rules written out (``gather_by_hand``, ``areas``) and
their scene (``rules_scene``)."""

import math
import types

import numpy as np

import hfrender as hf
from hfrender.dof_composite import FILL_FROM, FILL_FULL, disk_inside

FOCUS = 1.0


def in_polygon(dy, dx, blades, radius):
    """Written out apart from hfrender: the regular polygon of ``blades`` corners on the
    circle of ``radius``, the first corner on +x (y up: ``dy`` counts rows down), as the
    half-planes of its edges."""
    x, y = np.asarray(dx, np.float64), -np.asarray(dy, np.float64)
    inside = np.ones(np.shape(x), bool)
    for k in range(blades):
        normal = 2 * math.pi * (k + 0.5) / blades  # between corners k and k + 1
        inside &= x * math.cos(normal) + y * math.sin(normal) <= radius * math.cos(
            math.pi / blades) + 1e-9
    return inside


def areas(r2, blades):
    """{floor(r^2): the whole pixels of the bokeh of that radius} for the radii ``r2``."""
    ax = np.arange(-30, 31)
    oy, ox = (a.ravel() for a in np.meshgrid(ax, ax, indexing="ij"))
    return {int(k): int(in_polygon(oy, ox, blades, math.sqrt(k)).sum())
            for k in np.unique(np.floor(r2))}


def gather_by_hand(img, depth, lens, tol):
    """The exact gather's rules written out pair by pair (every output pixel p against
    every source q), apart from hfrender's tables: q covers p when p - q lies in q's bokeh
    (the polygon behind the focus plane, turned over in front) of q's radius; q behind p
    counts where p - q lies in p's own bokeh too (if q's disk is larger, it spreads apart
    instead: its light fills what p's disk misses, as far as it covers p and no more than
    the share of p's own bokeh such sources lie in); a source in focus, or behind p with a
    smaller disk, within the bokeh of a defocused p before the focus plane is what p sees
    behind it, weighing 1 / p's area (its colour at most 4x the 99.9th percentile of every
    7th row's, or 1): their mean fills what p's disk still misses, no more than their
    weight (besides their own light, which the one in focus spreads to itself alone);
    front over the normalised rest."""
    h, w, _ = img.shape
    g = _pair_geometry(depth, lens, w, h)
    wf, wb, wh, wg, ws, opened = _pair_weights(g, tol)
    colour = img.reshape(1, -1, 3)
    top = np.float32(max(np.percentile(img[::7].max(-1), 99.9) * 4.0, 1.0))  # every 7th row
    seen_colour = np.minimum(img, top).reshape(1, -1, 3)
    f, fw = (wf[..., None] * colour).sum(1), wf.sum(1)
    d, dw = (ws[..., None] * seen_colour).sum(1), ws.sum(1)
    b, bw = (wb[..., None] * colour).sum(1), wb.sum(1)
    k, kw = (wh[..., None] * colour).sum(1), wh.sum(1)
    inside = disk_inside(np, np.rint(1.0 / g.weight[0].reshape(h, w))).reshape(-1)
    # what the pixel's disk sees past its surface: the larger far light's own spread, as
    # far as it covers the pixel, and no more than the share of its own bokeh it lies in
    spread, sw = (wg[..., None] * colour).sum(1), wg.sum(1)
    b, bw = _add_light(b, bw, spread, sw, inside - fw - bw, opened)
    # then what it sees behind, as far as that lies within its bokeh
    b, bw = _add_light(b, bw, d, dw, inside - fw - bw, np.inf)
    # what it still misses, beyond a few tenths, is what it sees behind
    short = np.where(kw > 0, np.maximum(inside - fw - bw, 0), 0)
    short *= np.clip((short - FILL_FROM) / (FILL_FULL - FILL_FROM), 0, 1)
    fill = k / np.where(kw > 0, kw, 1)[:, None]
    under = (b + short[:, None] * fill) / (bw + short)[:, None]
    out = under * (1 - np.minimum(fw, 1))[:, None] + f / np.maximum(fw, 1)[:, None]
    return out.reshape(h, w, 3)


def _pair_geometry(depth, lens, w, h):
    """Every pair of an output pixel p (rows) and a source q (columns): p - q (``dy``,
    ``dx``), and each side's near flag, squared radius, depth; each q's weight 1 / area and
    each p's own (``p_weight``)."""
    r2 = lens.coc_radius_px(depth, w, h).astype(np.float64) ** 2
    near = depth < np.float32(lens.focus_distance)
    ys, xs = np.mgrid[0:h, 0:w]
    py, px, qy, qx = ys.reshape(-1, 1), xs.reshape(-1, 1), ys.reshape(1, -1), xs.reshape(1, -1)
    area = areas(r2, lens.aperture_blades)
    qr2 = r2.reshape(1, -1)
    weight = np.vectorize(lambda k: 1.0 / area[int(k)])(np.floor(qr2))
    return types.SimpleNamespace(
        dy=py - qy, dx=px - qx, blades=lens.aperture_blades,  # from q to p
        qn=near.reshape(1, -1), qr2=qr2, qd=depth.reshape(1, -1),
        pn=near.reshape(-1, 1), pr2=r2.reshape(-1, 1), pd=depth.reshape(-1, 1),
        weight=weight, p_weight=weight.reshape(-1, 1))


def _in_bokeh(g, of_near, radius2):
    """p - q inside the bokeh of the pixel with these (turned over before the focus)."""
    turned = np.where(of_near, -1, 1)
    return in_polygon(turned * g.dy, turned * g.dx, g.blades, np.sqrt(np.floor(radius2)))


def _pair_weights(g, tol):
    """Each pair's weight as front light, visible light, light behind and larger far light
    (each where q covers p), as p sees it behind, and the share of p's bokeh the larger far
    light lies in (``opened``)."""
    covers, own = _in_bokeh(g, g.qn, g.qr2), _in_bokeh(g, g.pn, g.pr2)
    front = g.qd < g.pd * np.float32(1 - tol)
    farther = g.qd > g.pd * np.float32(1 + tol)
    big = ~front & farther & (g.weight < g.p_weight)  # behind, larger
    visible = ~front & ~big & ((g.qd <= g.pd * np.float32(1 + tol)) | own)
    behind = visible & farther
    wf, wb, wh, wg = (g.weight * (covers & m) for m in (front, visible, behind, big))
    smaller = farther & (g.weight > g.p_weight)  # behind, smaller disk
    seer = g.pn & (g.pr2 >= 1)
    seen = (g.qr2 < 1) | smaller
    seen &= seer & (g.dy | g.dx != 0) & own
    opened = (g.p_weight * (big & own)).sum(1)
    return wf, wb, wh, wg, g.p_weight * seen, opened


def _add_light(b, bw, light, lw, room, cap):
    """Adds the mean of ``light`` (summed weight ``lw``) where the disk has room left
    (over 1e-4), as much as it has, at most ``lw`` and ``cap``."""
    s = np.where((lw > 0) & (room > 1e-4), np.minimum(np.minimum(room, lw), cap), 0)
    return b + s[:, None] * light / np.where(lw > 0, lw, 1)[:, None], bw + s


def rules_scene(rng, blades):
    """A far wall, a near card, a card in focus, a near strip, and behind the near card a
    card of a much smaller disk and one of a disk over half its own: the frame, its depth
    and the lens."""
    h, w = 24, 32
    img = rng.random((h, w, 3), dtype=np.float32)
    img[rng.integers(0, h, 6), rng.integers(0, w, 6)] = 12.0  # highlights
    depth = np.full((h, w), 3.0, np.float32)  # far behind the focus
    depth[4:14, 3:15] = 0.55  # a near card, well before it
    depth[12:22, 14:26] = 1.0  # a card in focus
    depth[:, 27:] = 0.7  # a near strip at the right
    depth[14:, :12] = 1.5  # behind the near card, a far card it sees through partly
    depth[:4, :20] = 1.08  # and one nearly in focus that it sees through whole
    depth[4:14, 15:20] = 0.75  # and a strip before the focus too, less blurred
    lens = hf.Lens(1.0, 1.0, sensor_width_mm=2.0, aperture_blades=blades)
    assert 8 < float(lens.coc_radius_px(depth, w, h).max()) < 20
    r2 = lens.coc_radius_px(depth[[0, 20, 6], [5, 5, 6]], w, h).astype(np.float64) ** 2
    area = areas(r2, blades)
    sizes = [area[int(k)] for k in np.floor(r2)]
    assert 1 < sizes[0] < sizes[2] / 32 and sizes[2] / 8 < sizes[1] < sizes[2]  # the cards
    return img, depth, lens
