"""Depth of field on a real GPU, as the NumPy backend makes it: the exact gather, the fast
method's layers (cuFFT against pocketfft), a pan's shared plan, highlights, and a disparity
map's stand-in metres. Skips cleanly without a device."""

import numpy as np
import pytest
from gpu_helpers import (
    CUDA,
    close,
    cupy,
    frames_for,
    layers_on_gpu_fixture,  # noqa: F401  (the fixture layers_on_gpu)
)

import hfrender as hf

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_depth_of_field_matches_the_cpu(rng, dtype, layers_on_gpu):
    frames = frames_for(rng, dtype, (3, 61, 83, 4))
    depth = rng.choice([0.6, 1.2, 3.0, np.inf], size=(3, 61, 83)).astype(np.float32)
    kw = dict(focus_distance=1.2, f_stop=1.4, sensor_width_mm=9.0)
    gpu = hf.depth_of_field(cupy.asarray(frames), cupy.asarray(depth), **kw)
    close(gpu, hf.depth_of_field(frames, depth, backend="cpu", **kw))


def test_fast_depth_of_field_at_64_px_matches_the_cpu(rng, layers_on_gpu):
    """The fast method at the issue's frame size and largest blur: the CUDA layers against
    the CPU's (cuFFT and pocketfft round differently), and both against the exact gather."""
    h, w = 180, 320
    img = (rng.random((h, w, 3), dtype=np.float32) * 0.8).astype(np.float32)
    img[rng.integers(0, h, 40), rng.integers(0, w, 40)] = 12.0  # highlights: bokeh discs
    depth = np.full((h, w), 6.0, np.float32)
    depth[h // 2:] = np.linspace(0.5, 6.0, h - h // 2, dtype=np.float32)[::-1, None]
    depth[40:90, 100:160] = 1.0  # in focus
    widest = float(hf.Lens(1.0, 1.0).coc_px(depth, w).max())  # at f/1
    kw = dict(focus_distance=1.0, f_stop=widest / 64)  # the floor's near end: 64 px
    gpu = hf.depth_of_field(cupy.asarray(img), cupy.asarray(depth), **kw)
    cpu = hf.depth_of_field(img, depth, backend="cpu", **kw)
    exact = hf.depth_of_field(img, depth, backend="cpu", method="exact", **kw)

    def psnr(a, b):
        return 10 * np.log10(1.0 / np.mean((np.clip(a, 0, 1) - np.clip(b, 0, 1)) ** 2))

    gpu = cupy.asnumpy(gpu)
    assert psnr(gpu, cpu) >= 60, psnr(gpu, cpu)
    assert psnr(gpu, exact) >= 40, psnr(gpu, exact)
    np.testing.assert_allclose(gpu.sum(axis=(0, 1)), cpu.sum(axis=(0, 1)), rtol=1e-4)


def test_a_small_frame_gathers_exactly_on_the_gpu(rng):
    """Where a frame's taps are few (320x180 at 64 px: 0.2 G taps, under the budget of any
    GPU of 4 multiprocessors or more) the fast method is the exact gather: the CPU's
    exact frames, to float rounding, and not the CPU's layers."""
    assert CUDA.device().exact_taps >= 4 * 6e7
    h, w = 180, 320
    img = (rng.random((h, w, 3), dtype=np.float32) * 0.8).astype(np.float32)
    img[rng.integers(0, h, 40), rng.integers(0, w, 40)] = 12.0
    depth = np.full((h, w), 6.0, np.float32)
    depth[h // 2:] = np.linspace(0.5, 6.0, h - h // 2, dtype=np.float32)[::-1, None]
    widest = float(hf.Lens(1.0, 1.0).coc_px(depth, w).max())
    kw = dict(focus_distance=1.0, f_stop=widest / 64)
    gpu = cupy.asnumpy(hf.depth_of_field(cupy.asarray(img), cupy.asarray(depth), **kw))
    exact = hf.depth_of_field(img, depth, backend="cpu", method="exact", **kw)
    layers = hf.depth_of_field(img, depth, backend="cpu", **kw)
    np.testing.assert_allclose(gpu, exact, rtol=1e-4, atol=1e-5)
    assert np.abs(layers - exact).max() > 1e-3


def test_a_pans_frames_share_a_plan_on_the_gpu_and_match_the_cpu(rng, layers_on_gpu,
                                                                 monkeypatch):
    """Six frames of a pan over a slanted floor (the same plan each) share one plan of the
    layers on a GPU (``backends/cuda/dof_plans.py``): each frame is the CPU's of that frame
    alone, to cuFFT's rounding, and as near the exact gather."""
    from hfrender.backends.cuda import dof as cuda_dof

    h, w, n = 180, 320, 6
    img = (rng.random((h, w, 3), dtype=np.float32) * 0.8).astype(np.float32)
    img[rng.integers(0, h, 40), rng.integers(0, w, 40)] = 12.0
    depth = np.full((h, w), 6.0, np.float32)
    depth[h // 2:] = np.linspace(0.5, 6.0, h - h // 2, dtype=np.float32)[::-1, None]
    depth[40:90, 100:160] = 1.0
    frames = np.stack([np.roll(img, 3 * z, axis=1) for z in range(n)])
    depths = np.stack([np.roll(depth, 3 * z, axis=1) for z in range(n)])
    assert CUDA.device().dof_plan_pixels >= n * h * w
    runs = []
    real = cuda_dof.plan_runs
    monkeypatch.setattr(cuda_dof, "plan_runs", lambda *a: runs.append(real(*a)) or runs[-1])
    kw = dict(focus_distance=1.0, f_stop=float(hf.Lens(1.0, 1.0).coc_px(depth, w).max()) / 32)
    gpu = cupy.asnumpy(hf.depth_of_field(cupy.asarray(frames), cupy.asarray(depths), **kw))
    assert [r for r, _ in runs[0]] == [(0, n)]
    cpu = hf.depth_of_field(frames, depths, backend="cpu", **kw)

    def psnr(a, b):
        return 10 * np.log10(1.0 / np.mean((np.clip(a, 0, 1) - np.clip(b, 0, 1)) ** 2))

    for z in range(n):
        assert psnr(gpu[z], cpu[z]) >= 60, (z, psnr(gpu[z], cpu[z]))
    exact = hf.depth_of_field(frames[-1:], depths[-1:], backend="cpu", method="exact", **kw)
    assert psnr(gpu[-1], exact[0]) >= 40


def test_highlights_a_million_times_the_light_keep_it_on_the_gpu(rng, layers_on_gpu):
    """A 0.05 background beside points up to 1e6 (an EXR's fireflies): the cut highlights'
    parts (hfrender/dof_highlights.py) through cuFFT, against the CPU and the exact
    gather; a clip of two frames, one without points (its cuts padded)."""
    h, w = 90, 160
    img = np.full((h, w, 3), 0.05, np.float32)
    img[45, 40], img[20, 120], img[70, 90] = 1e6, 1e4, 150.0
    depth = np.full((h, w), 6.0, np.float32)
    clip = np.stack([img, np.full_like(img, 0.05)])
    kw = dict(focus_distance=1.5, f_stop=1.4)
    gpu = cupy.asnumpy(hf.depth_of_field(cupy.asarray(clip), cupy.asarray(depth), **kw))
    cpu = hf.depth_of_field(clip, depth, backend="cpu", **kw)
    exact = hf.depth_of_field(img, depth, backend="cpu", method="exact", **kw)
    assert (gpu[..., 0] > 0.04).all()  # none black
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gpu[0], exact, rtol=1e-3)


@pytest.mark.parametrize("many", [False, True])
def test_highlights_on_a_slanted_wall_are_splatted_on_the_gpu(rng, layers_on_gpu, many,
                                                               monkeypatch):
    """Highlights between two disks of a layer go with their own disks
    (hfrender/dof_splats.py): cuFFT's layers and the GPU's splats (by pixel) against the
    CPU's (stamps; ``many``: by pixel too), and a point lights its own disk."""
    from hfrender import dof_splats

    if many:
        monkeypatch.setattr(dof_splats, "STAMPS", 0)
    h, w = 120, 200
    depth = np.broadcast_to((1 + 9 * np.arange(w) / w).astype(np.float32), (h, w)).copy()
    img = np.full((h, w, 3), 0.1, np.float32) + rng.random((h, w, 3), np.float32) / 20
    n = 400 if many else 15
    img[rng.integers(10, h - 10, n), rng.integers(60, w - 10, n)] = 100.0
    kw = dict(focus_distance=2.0, f_stop=1.4, focal_length_mm=85.0)
    gpu = cupy.asnumpy(hf.depth_of_field(cupy.asarray(img), cupy.asarray(depth), **kw))
    cpu = hf.depth_of_field(img, depth, backend="cpu", **kw)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-4)
    one = np.full((h, w, 3), 0.1, np.float32)
    one[60, 120] = 1000.0
    lit = cupy.asnumpy(hf.depth_of_field(cupy.asarray(one), cupy.asarray(depth), **kw))
    assert (np.abs(lit[..., 0] - 0.1) > 1e-3).sum() == 89  # its own disk (the layer's: 109)


def test_disparity_depth_of_field_matches_the_cpu(rng, layers_on_gpu):
    """depth_kind='disparity' (stand-in metres from the map) on the device as on the CPU."""
    frame = frames_for(rng, np.float32, (61, 83, 3))
    disparity = rng.choice([0.0, 0.25, 0.5, 1.0], size=(61, 83)).astype(np.float32)
    kw = dict(depth_kind="disparity", focus_disparity=0.5, max_blur=12)
    gpu = hf.depth_of_field(cupy.asarray(frame), cupy.asarray(disparity), **kw)
    close(gpu, hf.depth_of_field(frame, disparity, backend="cpu", **kw))
