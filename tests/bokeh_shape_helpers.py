"""The bokeh-shape tests' shared pieces: the lens's ``FOCUS``, the polygon written out
(``in_polygon``), the exact gather's rules written out (``gather_by_hand``, ``areas``) and
their scene (``rules_scene``)."""

import math

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
    r2 = lens.coc_radius_px(depth, w, h).astype(np.float64) ** 2
    near = depth < np.float32(lens.focus_distance)
    ys, xs = np.mgrid[0:h, 0:w]
    py, px, qy, qx = ys.reshape(-1, 1), xs.reshape(-1, 1), ys.reshape(1, -1), xs.reshape(1, -1)
    dy, dx = py - qy, px - qx  # from q to p
    blades = lens.aperture_blades

    def in_bokeh(of_near, radius2):  # p - q inside the bokeh of the pixel with these
        turned = np.where(of_near, -1, 1)
        return in_polygon(turned * dy, turned * dx, blades, np.sqrt(np.floor(radius2)))

    area = areas(r2, blades)
    qn, qr2, qd = near.reshape(1, -1), r2.reshape(1, -1), depth.reshape(1, -1)
    pn, pr2, pd = near.reshape(-1, 1), r2.reshape(-1, 1), depth.reshape(-1, 1)
    weight = np.vectorize(lambda k: 1.0 / area[int(k)])(np.floor(qr2))
    covers = in_bokeh(qn, qr2)
    front = qd < pd * np.float32(1 - tol)
    p_weight = weight.reshape(-1, 1)  # each pixel's own 1 / area
    big = ~front & (qd > pd * np.float32(1 + tol)) & (weight < p_weight)  # behind, larger
    visible = ~front & ~big & ((qd <= pd * np.float32(1 + tol)) | in_bokeh(pn, pr2))
    colour = img.reshape(1, -1, 3)
    behind = visible & (qd > pd * np.float32(1 + tol))
    wf, wb, wh, wg = (weight * (covers & m) for m in (front, visible, behind, big))
    smaller = (qd > pd * np.float32(1 + tol)) & (weight > p_weight)  # behind, smaller disk
    seer = pn & (pr2 >= 1)
    seen = (qr2 < 1) | smaller
    seen &= seer & (dy | dx != 0) & in_bokeh(pn, pr2)
    top = np.float32(max(np.percentile(img[::7].max(-1), 99.9) * 4.0, 1.0))  # every 7th row
    seen_colour = np.minimum(img, top).reshape(1, -1, 3)
    f, fw = (wf[..., None] * colour).sum(1), wf.sum(1)
    ws = p_weight * seen
    d, dw = (ws[..., None] * seen_colour).sum(1), ws.sum(1)
    b, bw = (wb[..., None] * colour).sum(1), wb.sum(1)
    k, kw = (wh[..., None] * colour).sum(1), wh.sum(1)
    inside = disk_inside(np, np.rint(1.0 / weight[0].reshape(h, w))).reshape(-1)
    # what the pixel's disk sees past its surface: the larger far light's own spread, as
    # far as it covers the pixel, and no more than the share of its own bokeh it lies in
    g, gw = (wg[..., None] * colour).sum(1), wg.sum(1)
    opened = (p_weight * (big & in_bokeh(pn, pr2))).sum(1)
    sg = np.where((gw > 0) & (inside - fw - bw > 1e-4),
                  np.minimum(np.minimum(inside - fw - bw, gw), opened), 0)
    b, bw = b + sg[:, None] * g / np.where(gw > 0, gw, 1)[:, None], bw + sg
    # then what it sees behind, as far as that lies within its bokeh
    sd = np.where((dw > 0) & (inside - fw - bw > 1e-4), np.minimum(inside - fw - bw, dw), 0)
    b, bw = b + sd[:, None] * d / np.where(dw > 0, dw, 1)[:, None], bw + sd
    # what it still misses, beyond a few tenths, is what it sees behind
    short = np.where(kw > 0, np.maximum(inside - fw - bw, 0), 0)
    short *= np.clip((short - FILL_FROM) / (FILL_FULL - FILL_FROM), 0, 1)
    fill = k / np.where(kw > 0, kw, 1)[:, None]
    under = (b + short[:, None] * fill) / (bw + short)[:, None]
    out = under * (1 - np.minimum(fw, 1))[:, None] + f / np.maximum(fw, 1)[:, None]
    return out.reshape(h, w, 3)


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
