"""The rate functions of ``hfrender.scene.easing``, drawn: ``docs/images/easing_curves.png``.

One panel a curve, ``s`` from 0 (left) to 1 (right) and the value from 0 (bottom) to 1
(top), the straight line (``hf.linear``) in grey behind each. Top row: linear, smooth,
ease_in, ease_out; bottom row: ease_in_out, there_and_back, rush_into, rush_from. NumPy
and imageio only (no plotting package): each curve is stamped at 4x and averaged down.

    python benchmarks/easing_curves.py [-o docs/images/easing_curves.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import hfrender as hf
from hfrender.scene.easing import RATE_FUNCTIONS

PANEL, MARGIN, PAD, SS = 140, 12, 14, 4  # panel and margins in pixels; supersampling
BACKGROUND, FRAME, GREY = (1.0, 1.0, 1.0), (0.55, 0.55, 0.6), (0.8, 0.8, 0.82)
CURVE = (0.85, 0.33, 0.1)
OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "easing_curves.png"


def _stamp(ys: np.ndarray, width: float) -> np.ndarray:
    """Coverage (0..1) of a panel by the curve through ``ys`` (values at even steps of s),
    a line ``width`` pixels wide: disks stamped at 4x, averaged down."""
    n = PANEL * SS
    inner = (PANEL - 2 * PAD) * SS
    s = np.linspace(0.0, 1.0, 8 * inner)
    px = PAD * SS + s * (inner - 1)
    py = PAD * SS + (1 - np.interp(s, np.linspace(0, 1, len(ys)), ys)) * (inner - 1)
    r = width * SS / 2
    k = int(np.ceil(r))
    dy, dx = np.mgrid[-k:k + 1, -k:k + 1]
    disk = dy**2 + dx**2 <= r * r
    big = np.zeros((n, n), bool)
    cy, cx = np.rint(py).astype(int), np.rint(px).astype(int)
    yy = np.clip(cy[:, None] + dy[disk][None], 0, n - 1)
    xx = np.clip(cx[:, None] + dx[disk][None], 0, n - 1)
    big[yy, xx] = True
    return big.reshape(PANEL, SS, PANEL, SS).mean(axis=(1, 3))


def _panel(name: str) -> np.ndarray:
    img = np.empty((PANEL, PANEL, 3))
    img[:] = BACKGROUND
    s = np.linspace(0.0, 1.0, 1001)
    for ys, colour, width in ((s, GREY, 1.5), (getattr(hf, name)(s), CURVE, 2.5)):
        cover = _stamp(ys, width)[..., None]
        img = img * (1 - cover) + np.asarray(colour) * cover
    lo, hi = PAD - 3, PANEL - PAD + 2  # the frame around 0..1, a few pixels out
    img[lo, lo:hi + 1] = img[hi, lo:hi + 1] = FRAME
    img[lo:hi + 1, lo] = img[lo:hi + 1, hi] = FRAME
    return img


def draw() -> np.ndarray:
    """The picture (H, W, 3) uint8: the curves of :data:`RATE_FUNCTIONS`, 4 a row."""
    cols, rows = 4, -(-len(RATE_FUNCTIONS) // 4)
    h, w = rows * PANEL + (rows + 1) * MARGIN, cols * PANEL + (cols + 1) * MARGIN
    out = np.empty((h, w, 3))
    out[:] = BACKGROUND
    for i, name in enumerate(RATE_FUNCTIONS):
        y, x = MARGIN + (i // cols) * (PANEL + MARGIN), MARGIN + (i % cols) * (PANEL + MARGIN)
        out[y:y + PANEL, x:x + PANEL] = _panel(name)
    return np.rint(np.clip(out, 0, 1) * 255).astype(np.uint8)


def main() -> None:
    import imageio.v3 as iio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=OUT)
    args = parser.parse_args()
    iio.imwrite(args.out, draw())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
