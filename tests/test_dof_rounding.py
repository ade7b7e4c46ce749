"""The fast depth of field's FFT rounding never shows as light (hfrender/dof_layers.py,
hfrender/backends/cpu/dof_fast.py): a gather whose box's rows hold nothing but rounding
(the far light around it beyond its small disk's reach) must not turn it into light.

A review found this scene: with the rounding's bound taken from the box's rows alone
instead of the whole window's, pixels of the thin line came out at 14 (the exact gather:
0.5), and over other seeds between -272 and +273."""

from __future__ import annotations

import numpy as np
import pytest

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast

H, W = 200, 300


def line_below_far_light(seed: int, rows_apart: int) -> tuple[np.ndarray, np.ndarray]:
    """In focus but for a floor (many classes: merged, two-disk layers) and a thin line of
    small disks; far bright light ``rows_apart`` rows above the line."""
    rng = np.random.default_rng(seed)
    img = (0.2 + 0.6 * rng.random((H, W, 3))).astype(np.float32)
    depth = np.full((H, W), 1.0, np.float32)
    depth[150:] = np.linspace(1.3, 8.0, 50, dtype=np.float32)[:, None]
    depth[80, 100:250] = rng.uniform(1.1, 1.25, 150).astype(np.float32)
    depth[80 - rows_apart, 150:160] = 30.0
    img[80 - rows_apart, 150:160] = 5.0
    return img, depth


LENS = hf.Lens(1.0, float(hf.Lens(1.0, 1.0).coc_px(np.float32(30.0), W)) / 30)  # 30 px


@pytest.mark.parametrize("seed", [1, 4, 7])
def test_rounding_around_a_gathers_box_stays_dark(seed):
    img, depth = line_below_far_light(seed, 3)
    fast, exact = defocus_fast(img, depth, LENS), defocus(img, depth, LENS)
    assert np.isfinite(fast).all()
    assert fast.min() >= 0 and fast.max() <= img.max() * 1.0001  # none made, none negative
    line = np.abs(fast[80] - exact[80]).max()
    assert line < 0.6  # the merged layers' own error (0.33, and 0.51-0.53 since the far
    #                    light fills what a pixel's disk sees past it); rounding as light: 14


def test_the_window_path_keeps_it_dark_too():
    img, depth = line_below_far_light(1, 3)
    n = 4
    weights = hf.WindowWeights.sliding(np.full(n, 1 / n), 1, n)
    out = CPUBackend().fuse(np.stack([img] * n), np.stack([depth] * n), weights, LENS,
                            True)[0]
    exact = defocus(img, depth, LENS)
    assert np.isfinite(out).all() and out.min() >= 0 and out.max() <= img.max() * 1.0001
    assert np.abs(out[80] - exact[80]).max() < 0.6  # as the per-frame test says
