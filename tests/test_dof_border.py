"""A pixel by the picture's border has only part of its disk's sources in the picture. The
back light is normalised over what is there; the front's coverage is its weight over the
share of the pixel's disk inside the picture (``inside``), so that what lies past the
border is taken to be like what lies inside, for both. Without it a nearer surface running
into the border covered the pixels there about half as much as in the middle of the
picture (a fifth of the two colours' difference apart on the scene below; a slanted
floor's outermost columns 0.16 from the fast layers' there, and 2 to 4 dB further from a
traced lens: ``benchmarks/dof_lens_reference.py``)."""

import numpy as np
import pytest
from test_dof_edges import dev, fused  # noqa: F401 (dev: the emulator's fixture)

import hfrender as hf
from hfrender.backends.cuda.launches import BLOCK, I32, I64, _grid
from hfrender.dof_composite import composite

H, W = 64, 160


def banded(rng):
    """A far wall over the top rows and a nearer floor's band over the rest, each one
    colour and one depth, across the whole width: a picture the same in every column."""
    edge = int(rng.integers(28, 40))
    depth = np.full((H, W), rng.uniform(2.5, 4.0), np.float32)
    depth[edge:] = rng.uniform(0.45, 0.6)
    wall, floor = (rng.random(3, dtype=np.float32) * np.float32(0.8) + np.float32(0.1)
                   for _ in range(2))
    while np.abs(wall - floor).max() < 0.4:
        floor = rng.random(3, dtype=np.float32)
    rows = np.where((np.arange(H) >= edge)[:, None, None], floor, wall)
    img = np.ascontiguousarray(np.broadcast_to(rows, (H, W, 3)), np.float32)
    return img, depth, edge, float(np.abs(wall - floor).max())


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_nearer_band_into_the_border_covers_the_pixels_there_as_in_the_middle(
        dev, rng, backend, method):  # noqa: F811
    """The scene is the same in every column, so is its picture: the outermost columns
    are the middle one's (the CUDA kernels on the emulator)."""
    img, depth, edge, apart = banded(rng)
    lens = hf.Lens(1.0, float(rng.uniform(1.8, 2.4)), sensor_width_mm=12.0)
    out = fused(dev, backend, img, depth, lens, method)
    middle = out[:, W // 2]
    assert np.abs(middle[edge - 3] - img[edge - 3, 0]).max() > 0.1 * apart  # the floor
    # spreads over the wall's rows above its edge
    for col in (0, 1, W - 2, W - 1):
        assert np.abs(out[:, col] - middle).max() < 0.09 * apart  # 0.19-0.21x without it


def test_the_front_covers_a_pixel_by_its_weight_over_its_disks_share_inside(dev):  # noqa: F811
    """``composite`` and ``hf_dof_composite`` (the kernel, on the emulator) by hand: a
    front of colour 2 over back light of colour 0.4. Half of a pixel's disk inside the
    picture and a front weighing 0.25: covered half (1.2); a front weighing 0.6 there:
    covered whole (2.0); the whole disk inside (away from the border): covered 0.25
    (0.8), as before."""
    front_w = np.float32([0.25, 0.6, 0.25])
    inside = np.float32([0.5, 0.5, 1.0])
    own = inside - front_w
    front = np.stack([front_w * np.float32(2.0), front_w])
    back = np.stack([own * np.float32(0.4), own])
    behind = np.zeros((2, 3), np.float32)
    want = np.float32([0.5 * 2.0 + 0.5 * 0.4, 2.0, 0.25 * 2.0 + 0.75 * 0.4])
    got = composite(np, front[:1], front[1], back[:1].copy(), back[1].copy(), behind[:1],
                    behind[1], inside)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    out = np.full(3, np.nan, np.float32)
    far, opened = np.zeros((2, 3), np.float32), np.zeros(3, np.float32)
    dev.launch("hf_dof_composite", _grid(3), (BLOCK, 1, 1),  # no far light; 1 channel
               (front, back.copy(), behind, inside, far, opened, I32(0), I64(3), I32(1), out))
    np.testing.assert_allclose(out, want, rtol=1e-6)
