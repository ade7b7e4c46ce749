"""The fast depth of field's CUDA path on the CPU emulator: the kernels match NumPy, the
exact gather where a frame has few enough taps, cuFFT plans kept a thread, a frame's disks
made once."""

import dataclasses

import numpy as np
import pytest
from dof_fast_helpers import (
    CPU,
    FAR_FOOT,
    H,
    W,
    dev_fixture,  # noqa: F401  (the fixture)
    lens_for,
    pole,
    slanted,
)

import hfrender as hf
from hfrender import dof_boxes
from hfrender.backends.cuda import launches


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("scene", ["slanted", "pole", "far pole"])
def test_the_cuda_kernels_match_numpy_on_the_emulator(dev, rng, dtype, scene, monkeypatch):
    n = 2
    if scene == "pole":  # the pole's foot on the floor, its layer's box cut in two
        monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
        img, depth = pole(rng)
        img, depth = img[60:108, 110:190], depth[60:108, 110:190]
    elif scene == "far pole":  # the same behind the focus plane: the cut layer gathers
        monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
        img, depth = pole(rng, FAR_FOOT)
        img, depth = img[36:84, 110:190], depth[36:84, 110:190]
    else:
        img, depth = slanted(rng)
    frames = np.stack([img, img[::-1]])[:, :48, :80]
    depth = np.ascontiguousarray(np.stack([depth, depth[::-1]])[:, :48, :80])
    if dtype == np.uint8:
        frames = (np.clip(frames, 0, 1) * 255 + 0.5).astype(np.uint8)
    frames = np.ascontiguousarray(frames)
    lenses = [lens_for(depth[j], 20, 80) for j in range(n)]
    ww = hf.WindowWeights.from_dense(np.array([[0.5, 0.5], [0.0, 1.0]]))
    gpu = np.empty((2, 48, 80, 3), dtype)
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu, dof_method="fast")
    cpu = CPU.fuse(frames, depth, ww, lenses, True, dof_method="fast")
    if dtype == np.float32:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    else:
        assert np.abs(gpu.astype(int) - cpu).max() <= 1
    if dtype == np.float32:  # (in 8 bits the far pole's crop rounds to the gather's codes)
        exact = CPU.fuse(frames, depth, ww, lenses, True, dof_method="exact")
        assert np.abs(gpu.astype(np.float64) - exact).max() > 0  # not the gather's kernels


@pytest.mark.parametrize("frames", [1, 2])
def test_the_cuda_fast_method_gathers_exactly_where_a_frame_has_few_enough_taps(
        dev, rng, monkeypatch, frames):
    """On a GPU the exact gather beats the layers up to a frame's pixels x disk offsets of
    ``Device.exact_taps`` (the H200: 8x sooner at 640x360, 64 px): there "fast" gives
    the exact gather's frames (a frame's taps, however many frames); one tap more, the
    layers' (which keep their cuFFT plans: :func:`_keep_plans`, once a call)."""
    from hfrender.backends.cuda import dof as cuda_dof
    from hfrender.optics import disk_offsets

    img, depth = slanted(rng)
    lens = lens_for(depth, 16)
    lin = np.ascontiguousarray(np.stack([img, img[:, ::-1]][:frames]))
    depths = np.ascontiguousarray(np.stack([depth, depth[:, ::-1]][:frames]))
    max_d2 = cuda_dof.max_d2_of(np.array([[depth.min(), depth.max()]] * frames),
                                [lens] * frames, W, H)
    taps = H * W * len(disk_offsets(max_d2)[1])
    kept = []
    monkeypatch.setattr(cuda_dof, "_keep_plans", kept.append)
    # the CPU's frames, each alone (were the emulator's, two runs more: the suite's 2nd slowest)
    exact, layers = ([CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True,
                                         dof_method=m)[0] for z in range(frames)]
                     for m in ("exact", "fast"))
    assert min(np.abs(a - b).max() for a, b in zip(exact, layers, strict=True)) > 1e-3
    for budget, want, plans in ((taps, exact, 0), (taps - 1, layers, 1)):
        got = cuda_dof.defocus_frames(dataclasses.replace(dev, exact_taps=budget), lin, depths,
                                      [lens] * frames)
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-5, atol=1e-5)
        assert len(kept) == plans


def test_the_fast_layers_keep_a_thread_enough_cufft_plans():
    """CuPy keeps 16 plans (no memory limit) a thread: made 128 (1 GiB); a user's larger
    cache, memory limit, no limit (-1) or no cache (0) is kept."""
    from hfrender.backends.cuda import dof as cuda_dof

    class Cache:
        def __init__(self, size, memsize):
            self.size, self.memsize = size, memsize

        def get_size(self):
            return self.size

        def set_size(self, n):
            self.size = n

        def get_memsize(self):
            return self.memsize

        def set_memsize(self, n):
            self.memsize = n

    for start, want in (((16, -1), (128, 2**30)), ((16, 8 * 2**30), (128, 8 * 2**30)),
                        ((512, -1), (512, -1)), ((-1, -1), (-1, -1)), ((0, -1), (0, -1))):
        cache = Cache(*start)
        xp = type("xp", (), {"fft": type("fft", (), {"config": type("config", (), {
            "get_plan_cache": staticmethod(lambda cache=cache: cache)})})})
        cuda_dof._keep_plans(xp)
        assert (cache.size, cache.memsize) == want, start
    cuda_dof._keep_plans(np)  # NumPy's FFTs (the emulator) keep no plans: nothing to do


def test_the_cuda_layers_make_a_frames_disks_once_however_many_it_has(dev, rng, monkeypatch):
    """The device kept the 32 newest disks' spectra: a 640x360 frame at 64 px has 35, so on
    the H200 every call made them all again (13 of its 38 ms). Kept by bytes now (as on the
    CPU): a second call makes none."""
    import dataclasses

    from hfrender.backends.cuda import dof as cuda_dof
    from hfrender.backends.cuda import dof_steps
    from hfrender.kept import Kept

    made = []
    real = dof_steps.disk_spectrum
    monkeypatch.setattr(dof_steps, "disk_spectrum", lambda *a: made.append(a[2:]) or real(*a))
    own = dataclasses.replace(dev, _tables={})
    img, depth = slanted(rng)
    lens = lens_for(depth, 40)
    lin, depths = np.ascontiguousarray(img[None]), np.ascontiguousarray(depth[None])
    first = cuda_dof.defocus_frames(own, lin, depths, [lens])
    n = len(made)
    assert n > 0 and len(set(map(repr, made))) == n  # each disk made once
    stores = []  # (was: a new Kept built for each disk asked, setdefault's argument)
    monkeypatch.setattr(dof_steps, "Kept", lambda *a: stores.append(a) or Kept(*a))
    again = cuda_dof.defocus_frames(own, lin, depths, [lens])
    assert len(made) == n and stores == []  # none made again, the store kept
    np.testing.assert_array_equal(again, first)
    own._tables.clear()
    cuda_dof.defocus_frames(own, lin, depths, [lens])
    assert len(made) == 2 * n and len(stores) == 1  # a device without one: built once
