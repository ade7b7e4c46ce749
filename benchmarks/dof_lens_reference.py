"""Depth of field from a depth pass against a thin lens that sees what the depth pass hides.

``hf.depth_of_field`` (``--dof depth``) sees one surface per pixel; a lens sees, through
each point of its aperture, past a nearer surface's edge to what lies behind it. This
script builds small scenes of planes (each plane a depth and a colour, absent where NaN),
flattens them into the pinhole picture and depth pass the library gets, and traces the
layered scene through ``--samples`` aperture points (stratified over the disk; each source
pixel split 2x2 and moved by its signed circle of confusion; the nearest wins per output
pixel per aperture point; the planes reach ``MARGIN`` px past the frame, edge-replicated),
the reference. Then, per scene, the exact gather and the fast layers against it: PSNR
(peak: the reference's largest value), their light over the reference's, and for the
scenes made for one question its figure:

* ``lamp_core``: a small lamp before a sky a little more blurred than itself (its disk
  1.3x the lamp's): the lamp's own pixels over the rest of its bokeh (a lens: 1.0);
* ``highlight_edge``: a lamp 200x white at 100 m, 4 px beside the edge of a dark object at
  3 m: the lamp's bokeh on the object's blurred edge over its level with nothing before it
  (a lens: about 1.0; a rule that weighs such light by the nearer pixel's own disk: 2x).
* ``three_depths``: a dark card at 3 m inside a grey one (0.3) at 5 m before a sky of 10:
  the grey card's largest value where its own disk holds no sky (a lens: 0.3 at most; far
  light filling what the dark card's front weight leaves short: up to 0.79);
* ``dark_top_border_over_sky``: a dark object (0.05) at 3 m touching the frame's top
  border before a sky of 10: its top row's middle (a lens: 0.05);
* ``near_floor_with_highlights``: the same floor, a texture with 1% of highlights at 30x;
* ``white_card_0.4m_over_dark_sky``, ``white_card_0.3m_over_wall_0.6m``: a white card
  before the focus plane over a background less blurred than itself (its disk 0.66x and
  0.29x the card's): the card's light over its light in focus (a lens: 1.0), and a pixel
  12 px inside its edge (what a pixel sees past the card's edge is hidden behind the card
  in the depth pass);
* ``dark_card_0.4m_over_lines_0.5m``: a dark card before a dark wall whose disk is 0.66x
  its own, with two lines of highlights 17 and 25 px past its edge: the light on the card
  (a pixel sees the wall behind it only within the wall's own blur);
* ``dark_pillar_0.4m_beside_lamps``: a dark pillar (disk 26 px) before a night sky with
  three lamps 3 px past its edge (disk 17 px): the lamps' light on the pillar's columns
  (what its edge sees of the sky behind it: the lamps only within the sky's own disk);
* ``dark_bar_0.45m_over_highlights``: the same question over the textured far plane with
  highlights (the bar's disk 21 px, the plane's 17);
* ``checker_floor_to_the_borders``: a checker floor from 0.45 m (the bottom row) to
  0.95 m, the whole frame, all of it before the focus plane: what the border strips'
  PSNR (every scene's, in brackets) is about.

    python benchmarks/dof_lens_reference.py [--samples 900] [--scenes a,b]

Round apertures only (the tracer samples a disk). The tracer's own error: where two
sources land on one pixel the nearer wins, so a nearer surface's edge may take up to half
a pixel more than it covers (a lamp painted on its sky, one plane, against the same lamp on
a plane of its own just before it: 1.18x the lamp's light). Made from a review's tracer of
2026-12-04 (``benchmarks/RESULTS.md``): the harness for the far light's rules.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import hfrender as hf
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast

H, W = 96, 128
LENS = dict(focus_distance=1.0, f_stop=1.4, sensor_width_mm=7.0)
MARGIN, SPLIT = 40, 2
YY, XX = np.mgrid[0:H, 0:W]
EDGE = 8  # the border strip whose PSNR is given apart (what lies past the border is unknown)
PILLAR = (XX >= 60) & (XX < 74)  # a dark pillar before the focus plane
CARD = (YY >= 28) & (YY < 68) & (XX >= 39) & (XX < 89)  # a card before the focus plane
BORDER = np.minimum(np.minimum(YY, H - 1 - YY), np.minimum(XX, W - 1 - XX)) < EDGE


def plane(z, colour, mask=None):
    """A plane at depth ``z`` (a number or (H, W)) of ``colour`` (RGB or (H, W, 3)), absent
    outside ``mask``."""
    d = np.broadcast_to(np.float32(z), (H, W)).copy()
    if mask is not None:
        d[~mask] = np.nan
    return d, np.broadcast_to(np.float32(colour), (H, W, 3)).copy()


def scenes() -> dict[str, list]:
    rng = np.random.default_rng(5)
    sky = [0.2, 0.3, 0.5]
    lamp = (YY - 48) ** 2 + (XX - 64) ** 2 <= 2.5 ** 2
    big = (YY - 48) ** 2 + (XX - 64) ** 2 <= 20 ** 2
    tex = rng.random((H, W, 3)).astype(np.float32)
    tex[rng.random((H, W)) < 0.01] = 50.0
    spot = np.full((H, W, 3), 0.1, np.float32)
    spot[(abs(YY - 48) <= 1) & (abs(XX - 70) <= 1)] = 200.0
    floor = np.where(YY >= 30, 1.5 * (25 / 1.5) ** ((H - 1 - YY) / (H - 31)), np.nan)
    ftex = (0.3 + 0.4 * rng.random((H, W, 3))).astype(np.float32)
    ftex[rng.random((H, W)) < 0.01] = 30.0
    post = (XX >= 60) & (XX < 66) & (YY >= 20)
    mid, card = _three_depths()
    checker = np.where((YY // 8 + XX // 8) % 2, 0.9, 0.1)[..., None].repeat(3, -1)
    lines = np.full((H, W, 3), 0.02, np.float32)  # lines of highlights 17 and 25 px from
    lines[20:77, [14, 22]] = 30.0  # the card's edge (a review's)
    lamps = np.full((H, W, 3), 0.005, np.float32)  # a night sky, lamps beside the pillar
    for y in (20, 48, 76):
        lamps[y - 1:y + 1, 77:79] = 30.0
    wall = (0.05 + 0.1 * rng.random((H, W, 3))).astype(np.float32)
    near_floor = 0.45 * (0.95 / 0.45) ** ((H - 1 - YY) / (H - 1))  # 0.45 m at the bottom
    return {
        "lamp_core": [plane(2.2, [9, 6, 3], lamp), plane(2.7, sky)],
        "highlight_edge": [plane(3.0, [0.05] * 3, XX < 66), plane(100.0, spot)],
        "dark_disc_3m_over_bright_sky": [plane(3.0, [0.05] * 3, big), plane(100.0, [20] * 3)],
        "near_disc_0.8m_over_bright_sky": [plane(0.8, [0.5, 0.2, 0.1], big),
                                           plane(100.0, [20] * 3)],
        "dark_bar_3m_over_highlights": [plane(3.0, [0.05] * 3, (XX >= 40) & (XX < 70)),
                                        plane(100.0, tex)],
        "slanted_floor_sky": [plane(floor.astype(np.float32), ftex), plane(np.inf, [3, 4, 6])],
        "post_before_floor": [plane(4.0, [0.1] * 3, post), plane(floor.astype(np.float32), ftex),
                              plane(np.inf, [3, 4, 6])],
        "three_depths": [plane(3.0, [0.05] * 3, card), plane(5.0, [0.3] * 3, mid),
                         plane(100.0, [10] * 3)],
        "dark_top_border_over_sky": [plane(3.0, [0.05] * 3, (YY < 40) & (XX >= 30) & (XX < 98)),
                                     plane(100.0, [10] * 3)],
        "checker_floor_to_the_borders": [plane(near_floor.astype(np.float32), checker)],
        "near_floor_with_highlights": [plane(near_floor.astype(np.float32), ftex)],
        "white_card_0.4m_over_dark_sky": [plane(0.4, [1.0] * 3, CARD), plane(100.0, [0.02] * 3)],
        "white_card_0.3m_over_wall_0.6m": [plane(0.3, [1.0] * 3, CARD),
                                           plane(0.6, wall)],
        "dark_card_0.4m_over_lines_0.5m": [plane(0.4, [0.05] * 3, CARD), plane(0.5, lines)],
        "dark_pillar_0.4m_beside_lamps": [plane(0.4, [0.004] * 3, PILLAR), plane(100.0, lamps)],
        "dark_bar_0.45m_over_highlights": [plane(0.45, [0.05] * 3, (XX >= 40) & (XX < 70)),
                                           plane(100.0, tex)],
    }


def _three_depths() -> tuple[np.ndarray, np.ndarray]:
    """A grey card at 5 m and a dark one at 3 m inside it: what hides part of the grey card
    hides the sky behind it too."""
    mid = (YY >= 25) & (YY < 75) & (XX >= 20) & (XX < 100)
    return mid, (YY >= 35) & (YY < 65) & (XX >= 45) & (XX < 75)


def flatten(layers):
    """The pinhole picture and depth pass: the nearest plane at each pixel (sky: inf)."""
    depth = np.full((H, W), np.inf, np.float32)
    img = np.zeros((H, W, 3), np.float32)
    seen = np.zeros((H, W), bool)
    for d, c in layers:
        m = ~np.isnan(d) & ((d < depth) | ~seen)
        depth[m], img[m] = d[m], c[m]
        seen |= m
    return img, depth


def reference(layers, lens: hf.Lens, samples: int) -> np.ndarray:
    """The layered scene through ``samples`` aperture points (see the module's text)."""
    rng = np.random.default_rng(0)
    k = int(np.ceil(np.sqrt(samples)))
    g = (np.stack(np.meshgrid(np.arange(k), np.arange(k)), -1).reshape(-1, 2)
         + rng.random((k * k, 2))) / k
    r, th = np.sqrt(g[:, 0]), 2 * np.pi * g[:, 1]
    parts = []
    for depth, colour in layers:
        d = np.repeat(np.repeat(np.pad(depth, MARGIN, mode="edge"), SPLIT, 0), SPLIT, 1)
        c = np.repeat(np.repeat(np.pad(colour, ((MARGIN, MARGIN), (MARGIN, MARGIN), (0, 0)),
                                       mode="edge"), SPLIT, 0), SPLIT, 1)
        yy, xx = np.mgrid[0:d.shape[0], 0:d.shape[1]]
        ok = ~np.isnan(d)
        z = d[ok]
        signed = lens.coc_radius_px(z, W, H).astype(np.float64) * np.where(
            z < lens.focus_distance, -1.0, 1.0)
        parts.append(((yy[ok] + 0.5) / SPLIT - 0.5 - MARGIN, (xx[ok] + 0.5) / SPLIT - 0.5 - MARGIN,
                      z, signed, c[ok]))
    y, x, z, s, col = (np.concatenate([p[i] for p in parts]) for i in range(5))
    order = np.argsort(-z, kind="stable")  # farthest first: the nearest is written last
    y, x, s, col = y[order], x[order], s[order], col[order]
    acc, count = np.zeros((H * W, 3)), np.zeros(H * W)
    for uy, ux in zip(r * np.sin(th), r * np.cos(th), strict=True):
        py, px = np.rint(y - uy * s).astype(np.int64), np.rint(x - ux * s).astype(np.int64)
        inside = (py >= 0) & (py < H) & (px >= 0) & (px < W)
        nearest = np.full(H * W, -1, np.int64)
        nearest[py[inside] * W + px[inside]] = np.flatnonzero(inside)
        hit = nearest >= 0
        acc[hit] += col[nearest[hit]]
        count[hit] += 1
    return (acc / np.maximum(count, 1)[:, None]).reshape(H, W, 3).astype(np.float32)


def psnr(a: np.ndarray, ref: np.ndarray, where: np.ndarray | None = None) -> float:
    """PSNR of ``a`` against ``ref`` (peak: ``ref``'s largest value), over ``where`` alone."""
    if where is not None:
        a, ref = a[where], ref[where]
    mse = float(np.mean((a.astype(np.float64) - ref) ** 2))
    return 10 * np.log10(float(ref.max()) ** 2 / mse) if mse > 0 else float("inf")


def figure(name: str, out: np.ndarray, draw) -> str:
    """The scene's own question, answered for ``out``; ``draw(layers)`` makes the picture
    of another scene the same way (see the module's text)."""
    if name == "lamp_core":
        lamp = (YY - 48) ** 2 + (XX - 64) ** 2 <= 2.5 ** 2
        alike = draw([plane(2.2, [9, 6, 3], lamp), plane(2.2002, [0.2, 0.3, 0.5])])  # the
        # sky just behind the lamp (one surface to the gather; painted on one plane instead,
        # the tracer's nearest-wins would give the lamp's edge to the sky: 1.18x)
        core = out[lamp, 0].mean() / alike[lamp, 0].mean()
        return f"the lamp's pixels / the same lamp before a sky at its own depth {core:.3f}"
    if name == "highlight_edge":
        spot = scenes()["highlight_edge"][1]
        alone = draw([spot])[48, 70, 0]
        return f"its bokeh on the object's edge / in the open {out[48, 55:66, 0].max() / alone:.2f}"
    if name == "three_depths":  # the grey card's pixels whose disk holds no sky
        mid = _three_depths()[0]
        to_sky = np.minimum.reduce([YY - 24, 75 - YY, XX - 19, 100 - XX])
        hidden = mid & (to_sky > 15)  # its radius at 5 m, 13.7 px, and a pixel and a half
        return f"the grey card where its disk holds no sky: at most {out[hidden, 0].max():.3f}"
    if name.startswith("white_card"):  # its light: the picture less the background alone
        back = scenes()[name][1]
        alone, img = draw([back]), flatten([back])[0]
        light = (out - alone).sum() / (1.0 - img[CARD]).sum()
        return (f"the card's light over its light in focus {light:.3f}, 12 px inside its "
                f"edge {out[48, 39 + 12, 0]:.3f}")
    if name == "dark_card_0.4m_over_lines_0.5m":
        return (f"the light on the card {out[CARD].sum():.1f}, 1-8 px inside its edge "
                f"{out[48, 40:48, 0].mean():.3f}")
    if name == "dark_pillar_0.4m_beside_lamps":
        on = out[:, 60:74].sum() - 0.004 * 3 * H * 14
        return f"the light on the pillar's columns, less its own: {on:.1f}"
    if name == "dark_top_border_over_sky":
        return f"the dark object's top row, its middle: {out[0, 50:78, 0].mean():.3f}"
    return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=900, help="aperture points of the reference")
    ap.add_argument("--scenes", default="", help="comma-separated names (default: all)")
    args = ap.parse_args()
    lens = hf.Lens(**LENS)
    chosen = [n for n in args.scenes.split(",") if n]
    for name, layers in scenes().items():
        if chosen and name not in chosen:
            continue
        t = time.perf_counter()
        ref = reference(layers, lens, args.samples)
        print(f"{name} (the lens: {args.samples} aperture points, {time.perf_counter() - t:.0f}"
              " s)" + (f"; {more}" if (more := figure(
                  name, ref, lambda ls: reference(ls, lens, args.samples))) else ""), flush=True)
        img, depth = flatten(layers)
        for label, method in (("exact", defocus), ("fast", defocus_fast)):
            out = method(img, depth, lens)
            line = (f"  {label:5s} {psnr(out, ref):6.2f} dB against the lens ("
                    f"{psnr(out, ref, BORDER):.2f} dB in the outer {EDGE} px), light "
                    f"{out.sum() / ref.sum():.3f}x the lens's")
            more = figure(name, out, lambda ls, m=method: m(*flatten(ls), lens))
            print(line + (f"; {more}" if more else ""), flush=True)


if __name__ == "__main__":
    main()
