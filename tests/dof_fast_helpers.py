"""The fast depth of field's test scenes, shared with the other depth-of-field tests:
``texture``, ``planes``, ``slanted`` and ``pole`` (its foot at ``FAR_FOOT`` or another row)
at ``H`` x ``W``, the lens (``FOCUS``, ``lens_for``), ``psnr``, the ``CPU`` backend and the
``dev`` fixture (the CUDA emulator's device)."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import launches

CPU = CPUBackend()
FOCUS = 1.0
H, W = 120, 200


def psnr(test, ref, peak=1.0):
    """dB, linear light, peak 1 (highlights above 1 count at their full value)."""
    mse = float(np.mean((np.asarray(test, np.float64) - ref) ** 2))
    return np.inf if mse == 0 else 10 * np.log10(peak * peak / mse)


def lens_for(depth, coc_px, width=W):
    """A 50 mm lens focused at FOCUS whose largest circle of confusion is ``coc_px``."""
    widest = hf.Lens(FOCUS, 1.0).coc_px(depth, width).max()
    return hf.Lens(FOCUS, float(widest / coc_px))


def texture(rng, h=H, w=W, cell=8):
    """Smooth value noise (a random grid, bilinear) plus a fine grain: RGB in [0, 1]."""
    grid = rng.random((h // cell + 2, w // cell + 2, 3), dtype=np.float32)
    y, x = np.arange(h) / cell, np.arange(w) / cell
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None, None], (x - x0)[None, :, None]
    top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x0 + 1] * fx
    bottom = grid[y0 + 1][:, x0] * (1 - fx) + grid[y0 + 1][:, x0 + 1] * fx
    smooth = top * (1 - fy) + bottom * fy
    return (0.85 * smooth + 0.15 * rng.random((h, w, 3), dtype=np.float32)).astype(np.float32)


def planes(rng):
    """Fronto-parallel planes: a far background, a near disc, an in-focus box, a box
    beyond focus, thin lines (1 px near, 1 px in focus, 2 px far) and bright points."""
    img = texture(rng)
    depth = np.full((H, W), 8.0, np.float32)
    yy, xx = np.mgrid[0:H, 0:W]
    for mask, d, colour in (
            ((yy - 50) ** 2 + (xx - 60) ** 2 < 22 ** 2, 0.6, (1.0, 0.3, 0.2)),
            ((abs(yy - 45) < 15) & (abs(xx - 125) < 16), FOCUS, (0.2, 0.5, 0.9)),
            ((abs(yy - 35) < 12) & (abs(xx - 170) < 12), 2.5, (0.9, 0.9, 0.2)),
            (xx == 30, 0.45, (1.0, 1.0, 1.0)), (xx == 100, FOCUS, (1.0, 0.2, 1.0)),
            ((yy >= 20) & (yy < 22), 4.0, (0.1, 0.9, 0.1))):
        img[mask] = img[mask] * 0.3 + np.float32(colour) * 0.7
        depth[mask] = d
    points = rng.integers((2, 2), (H - 2, W - 2), (8, 2))
    img[points[:, 0], points[:, 1]] = rng.uniform(5, 20, (8, 1)).astype(np.float32)
    return img, depth


def slanted(rng):
    """:func:`planes` standing on a floor that recedes from 0.4 m to 8 m: a circle of
    confusion for every depth, so neighbouring classes share layers."""
    img, depth = planes(rng)
    f0 = int(H * 0.6)
    depth[f0:] = (1.0 / np.linspace(1 / 8.0, 1 / 0.4, H - f0, dtype=np.float32))[:, None]
    img[f0:] = texture(rng)[f0:] * np.float32([0.8, 0.7, 0.5])
    points = np.stack([rng.integers(f0, H - 2, 6), rng.integers(2, W - 2, 6)], 1)
    img[points[:, 0], points[:, 1]] = rng.uniform(5, 20, (6, 1)).astype(np.float32)
    return img, depth


FAR_FOOT = 76  # a foot 3 m away, behind the focus plane: the background's larger disks


#               are gathered through the pole's layer


def pole(rng, foot=int(H * 0.85)):
    """:func:`slanted` with a pole one pixel wide standing on the floor at its foot's own
    distance: the pole and that band of the floor share a layer (in front of the focus
    plane by default)."""
    img, depth = slanted(rng)
    depth[10:foot, 150] = depth[foot, 0]
    img[10:foot, 150] = np.float32([0.9, 0.9, 0.8])
    return img, depth


@pytest.fixture(name="dev", scope="module")
def dev_fixture(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)
