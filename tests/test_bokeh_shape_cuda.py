"""Bokeh shaped by the aperture's blades in the CUDA kernels (on the CPU emulator): the
polygons, the exact gather's rules written out and a far lamp's shortfall filled, as NumPy
draws them."""

import numpy as np
import pytest
from bokeh_shape_helpers import FOCUS, gather_by_hand, rules_scene

import hfrender as hf


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    from cuda_emu import session_emulator

    from hfrender.backends.cuda import launches

    return launches.Device(np, session_emulator(tmp_path_factory).run)


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_the_cuda_kernels_draw_the_polygons_as_numpy_does(dev, rng, method):
    """On the CPU emulator: sub-frames with depths on both sides of the focus plane, a
    pentagon (turned over in front) and a hexagon, against the CPU backend."""
    from dof_fast_helpers import slanted

    from hfrender.backends.cpu import CPUBackend
    from hfrender.backends.cuda import launches

    img, depth = slanted(rng)
    frames = np.ascontiguousarray(np.stack([img, img[::-1]])[:, :40, :64])
    depth = np.ascontiguousarray(np.stack([depth, depth[::-1]])[:, :40, :64])
    frames[:, 12, 20] = 30.0  # a highlight in each sub-frame
    lenses = [hf.Lens(FOCUS, 1.4, sensor_width_mm=8.0, aperture_blades=b) for b in (5, 6)]
    ww = hf.WindowWeights.from_dense(np.array([[0.5, 0.5], [0.0, 1.0]]))
    gpu = np.empty((2, 40, 64, 3), np.float32)
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu, dof_method=method)
    cpu = CPUBackend().fuse(frames, depth, ww, lenses, True, dof_method=method)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    round_ = CPUBackend().fuse(frames, depth, ww, [hf.Lens(FOCUS, 1.4, sensor_width_mm=8.0)] * 2,
                               True, dof_method=method)
    assert np.abs(gpu - round_).max() > 0.1  # the polygons are drawn, not disks


@pytest.mark.parametrize("blades", [5, 6])
def test_the_cuda_exact_kernel_is_the_rules_written_out(dev, rng, blades):
    """``hf_defocus`` on the emulator, on the same scene: what the near card sees behind
    it, and what spreads."""
    from hfrender.backends.cuda import launches
    from hfrender.optics import FRONT_TOLERANCE

    img, depth, lens = rules_scene(rng, blades)
    gpu = np.empty((1,) + img.shape, np.float32)
    launches.fuse(dev, img[None], depth[None], hf.WindowWeights.from_dense(np.ones((1, 1))),
                  [lens], True, gpu, dof_method="exact")
    np.testing.assert_allclose(gpu[0], gather_by_hand(img, depth, lens, FRONT_TOLERANCE),
                               rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_the_cuda_kernels_fill_a_far_lamps_shortfall_as_numpy_does(dev, method):
    from hfrender.backends.cpu import CPUBackend
    from hfrender.backends.cuda import launches

    h, w = 48, 64
    yy, xx = np.mgrid[0:h, 0:w]
    frames = np.broadcast_to(np.float32([0.2, 0.3, 0.5]), (2, h, w, 3)).copy()  # blue sky
    depth = np.full((2, h, w), 100.0, np.float32)
    for j, (cy, cx) in enumerate(((20, 24), (26, 40))):
        lamp = (yy - cy) ** 2 + (xx - cx) ** 2 <= 2.5 ** 2
        frames[j][lamp], depth[j][lamp] = (1.0, 0.7, 0.4), 2.2
    lenses = [hf.Lens(1.0, 1.4, sensor_width_mm=3.5, aperture_blades=b) for b in (0, 5)]
    ww = hf.WindowWeights.from_dense(np.eye(2))
    gpu = np.empty_like(frames)
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu, dof_method=method)
    cpu = CPUBackend().fuse(frames, depth, ww, lenses, True, dof_method=method)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gpu[:, 8:40, 8:56].sum(axis=(1, 2)),
                               frames[:, 8:40, 8:56].sum(axis=(1, 2)), rtol=0.01)
