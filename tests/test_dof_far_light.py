"""Far light of larger disks fills what a pixel's disk sees past its surface only as far as
it lies within that disk: a nearer object of the depth pass that hides a pixel's own far
surface hides the farther background too (a lens sees no sky through a surface). A review's
scene (2026-12-04): a dark card at 3 m over a grey one at 5 m over a bright sky; the 3 m
card's front weight left the 5 m pixels around it short, and the sky 14 px away, whose
disk reaches them, filled it: up to 2.8x a lens's value on 316 pixels."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.backends.cuda import launches

H, W = 96, 128
LENS = hf.Lens(1.0, 1.4, sensor_width_mm=7.0)  # 11.5 px at 3 m, 13.7 at 5 m, 17.0 at 100 m


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


def three_depths(rng, shift=0, both=0):
    """Image, depth, the grey card's colour, and its pixels whose own disk (radius at 5 m,
    and a pixel and a half) holds no sky pixel; the dark card ``shift`` px to the right,
    both cards ``both`` px more."""
    yy, xx = np.mgrid[0:H, 0:W]
    y0, x0 = 25, 20 + both
    mid = (yy >= y0) & (yy < y0 + 50) & (xx >= x0) & (xx < x0 + 80)
    near = (yy >= y0 + 10) & (yy < y0 + 40) & (xx >= x0 + 25 + shift) & (xx < x0 + 55 + shift)
    grey = np.float32(rng.uniform(0.2, 0.4))
    img = np.full((H, W, 3), np.float32(rng.uniform(8.0, 12.0)), np.float32)
    img[mid], img[near] = grey, np.float32(0.05)
    depth = np.full((H, W), 100.0, np.float32)
    depth[mid], depth[near] = 5.0, 3.0
    to_sky = np.minimum.reduce([yy - y0 + 1, y0 + 50 - yy, xx - x0 + 1, x0 + 80 - xx])
    r5 = float(LENS.coc_radius_px(np.float32([5.0]), W, H)[0])
    return img, depth, grey, (depth == 5.0) & (to_sky > r5 + 1.5)


def fused(dev, backend, frames, depths, method, window=True):
    """The depth of field of ``frames`` (N, H, W, 3) into one output frame, on the CPU or
    the CUDA kernels (on the emulator)."""
    n = len(frames)
    weights = hf.WindowWeights.sliding(np.full(n, 1 / n), 1, n)
    if backend == "cpu":
        return CPUBackend().fuse(frames, depths, weights, [LENS] * n, True, dof_method=method,
                                 dof_window=window)[0]
    out = np.empty_like(frames[:1])
    launches.fuse(dev, frames, depths, weights, [LENS] * n, True, out, dof_method=method)
    return out[0]


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_surface_hidden_by_a_nearer_one_takes_no_sky_its_disk_does_not_hold(
        dev, rng, backend, method):
    img, depth, grey, hidden = three_depths(rng)
    out = fused(dev, backend, img[None], depth[None], method)
    assert hidden.sum() > 250
    assert out[hidden].max() <= grey * 1.01  # the sky's light had made up to 2.8x the grey
    assert out[hidden].min() >= 0.05  # the grey under the dark card's blurred edge
    edge = (depth == 5.0) & ~hidden  # where its disk holds sky, the sky still shows
    assert out[edge].max() > 3.0 * grey


def test_the_window_path_with_a_moving_card_takes_no_sky_either(rng):
    """One output frame of 4 sub-frames, the dark card moving 2 px a sub-frame (pixels that
    change layer: the window path's slots), against a fast defocus per sub-frame."""
    scenes = [three_depths(np.random.default_rng(7), shift=2 * i) for i in range(4)]
    frames = np.stack([s[0] for s in scenes])
    depths = np.stack([s[1] for s in scenes])
    hidden = np.logical_and.reduce([s[3] for s in scenes])
    grey = scenes[0][2]
    window = fused(None, "cpu", frames, depths, "fast")
    each = fused(None, "cpu", frames, depths, "fast", window=False)
    assert hidden.sum() > 200
    assert window[hidden].max() <= grey * 1.01 and each[hidden].max() <= grey * 1.01
    np.testing.assert_allclose(window[hidden], each[hidden], atol=1e-3)


def test_the_window_path_counts_a_moving_far_pixel_as_far_light(rng):
    """Both cards moving 2 px a sub-frame: the sky's pixels that change layer send their
    share of far light (their sub-frames' weight) to the grey card's still pixels, as a
    defocus per sub-frame does (within 0.035, the window's own approximation near the
    moving edges; not counted: 1.0 apart)."""
    scenes = [three_depths(np.random.default_rng(3), both=2 * i) for i in range(4)]
    frames = np.stack([s[0] for s in scenes])
    depths = np.stack([s[1] for s in scenes])
    still = (depths == 5.0).all(axis=0)
    window = fused(None, "cpu", frames, depths, "fast")
    each = fused(None, "cpu", frames, depths, "fast", window=False)
    assert still.sum() > 1000 and np.abs(each[still] - frames[0][still]).max() > 0.5
    assert np.abs(window[still] - each[still]).max() < 0.05


def test_an_odd_polygon_in_front_of_the_focus_plane_caps_as_the_gather(rng):
    """A near bar (before the focus plane: its triangle turned over) across the three
    depths, 3 blades: the layers' cap (far pixels in the pixel's own, turned disk) is the
    exact gather's, whether or not those pixels' own disks cover it (counting only those
    that do had made 40.6 dB of it)."""
    img, depth, _, _ = three_depths(rng)
    img[5:90, 8:14], depth[5:90, 8:14] = np.float32(0.7), np.float32(0.6)
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=7.0, aperture_blades=3)
    exact, fast = defocus(img, depth, lens), defocus_fast(img, depth, lens)
    assert np.abs(exact - img).max() > 1.0  # a real blur
    mse = float(np.mean((fast.astype(np.float64) - exact) ** 2))
    assert 10 * np.log10(float(exact.max()) ** 2 / mse) >= 90.0
