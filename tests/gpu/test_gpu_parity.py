"""The CUDA backend on a real GPU: the same functions as the NumPy backend, the same results
(within 1 code value, or 1e-5 relative for float32). Skips cleanly without a device."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.backends import load
from hfrender.backends.cpu import CPUBackend
from hfrender.errors import BackendUnavailable

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy", reason="CuPy is not installed (pip install 'hfrender[cuda]')")
try:
    CUDA = load("cuda")
except BackendUnavailable as exc:
    pytest.skip(f"no usable CUDA device: {exc}", allow_module_level=True)
CPU = CPUBackend()


@pytest.fixture
def layers_on_gpu():
    """The fast method's layers on the GPU whatever the frame's taps (small frames gather
    exactly there: Device.exact_taps), to compare them with the CPU's."""
    dev = CUDA.device()
    kept, dev.exact_taps = dev.exact_taps, 0
    yield
    dev.exact_taps = kept


def frames_for(rng, dtype, shape):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32) * 2
    return rng.integers(0, np.iinfo(dtype).max + 1, shape).astype(dtype)


def close(gpu, cpu):
    gpu = cupy.asnumpy(gpu)
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    if cpu.dtype == np.float32:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)
    else:
        assert np.abs(gpu.astype(np.int64) - cpu).max() <= 1


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("linear", [True, False])
@pytest.mark.parametrize("weights, window, stride", [("box", 4, 1), ("box", 8, 8),
                                                     ("triangle", 5, 2), ("gaussian", 3, 3)])
def test_motion_blur_matches_the_cpu(rng, dtype, channels, linear, weights, window, stride):
    frames = frames_for(rng, dtype, (17, 45, 77, channels))  # not multiples of 256
    out = hf.motion_blur(cupy.asarray(frames), window, stride=stride, weights=weights,
                         linear_light=linear)
    assert isinstance(out, cupy.ndarray)  # CuPy in, CuPy out
    close(out, hf.motion_blur(frames, window, stride=stride, weights=weights,
                              linear_light=linear, backend="cpu"))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_depth_of_field_matches_the_cpu(rng, dtype, layers_on_gpu):
    frames = frames_for(rng, dtype, (3, 61, 83, 4))
    depth = rng.choice([0.6, 1.2, 3.0, np.inf], size=(3, 61, 83)).astype(np.float32)
    kw = dict(focus_distance=1.2, f_stop=1.4, sensor_width_mm=9.0)
    gpu = hf.depth_of_field(cupy.asarray(frames), cupy.asarray(depth), **kw)
    close(gpu, hf.depth_of_field(frames, depth, backend="cpu", **kw))


def test_fuse_hyperframe_on_the_gpu(rng, layers_on_gpu):
    frames = frames_for(rng, np.uint8, (8, 40, 50, 4))
    depth = rng.choice([0.7, 1.0, 2.5], size=(8, 40, 50)).astype(np.float32)
    lenses = [hf.Lens(1.0 + 0.05 * j, 1.4, sensor_width_mm=9.0) for j in range(8)]
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 4), 3, 2)
    gpu = hf.fuse(hf.HyperFrame(cupy.asarray(frames), cupy.asarray(depth)), ww, lens=lenses)
    close(gpu, hf.fuse(hf.HyperFrame(frames, depth), ww, lens=lenses, backend="cpu"))


def test_torch_cuda_tensors_pass_without_a_copy(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.from_numpy(frames_for(rng, np.uint8, (6, 20, 30, 3))).cuda()
    from hfrender.interop import to_array

    arr, _, on_device = to_array(t, "frames")
    assert on_device and arr.data.ptr == t.data_ptr()  # the same memory
    out = hf.motion_blur(t, 3)
    assert isinstance(out, torch.Tensor) and out.is_cuda and tuple(out.shape) == (2, 20, 30, 3)


def test_auto_picks_cuda(monkeypatch):
    from hfrender import backends

    monkeypatch.setattr(backends, "_cache", {})
    monkeypatch.delenv("HFRENDER_BACKEND", raising=False)
    assert hf.get_backend().name == "cuda"


@pytest.mark.usefixtures("gl_context")
def test_render_with_interop_keeps_sub_frames_on_the_gpu(tmp_path):
    from pathlib import Path

    from hfrender.config import RenderConfig
    from hfrender.engine.render import render
    from hfrender.io.writers import MemoryWriter

    scene = Path(__file__).resolve().parents[2] / "scenes" / "showcase.py"
    outs = {}
    for interop in ("on", "off"):
        sink = MemoryWriter()
        stats = render(scene, RenderConfig(size=(320, 180), samples=8, duration=0.5,
                                           backend="cuda", interop=interop, quiet=True),
                       writer=sink)
        outs[interop] = (np.stack(sink.frames), stats)
    on, off = outs["on"], outs["off"]
    assert np.abs(on[0].astype(int) - off[0]).max() <= 1
    out_bytes = on[1].frames_written * 320 * 180 * 3
    assert on[1].device_to_host_bytes == out_bytes  # only finished frames reach the host
    assert off[1].device_to_host_bytes > 8 * out_bytes


# strided views of 4-D arrays: CuPy hands a kernel the raw pointer whatever the strides
VIEWS = {"channels": lambda a: a[..., :3], "step": lambda a: a[::2],
         "reversed": lambda a: a[::-1]}


@pytest.mark.parametrize("view", list(VIEWS.values()), ids=list(VIEWS))
def test_strided_device_arrays_match_the_cpu(rng, view, layers_on_gpu):
    frames = frames_for(rng, np.uint8, (12, 33, 47, 4))
    # the depth of the same frames as a strided view too (the first of 4 channels)
    depth4 = rng.choice([0.6, 1.2, 3.0], size=(12, 33, 47, 4)).astype(np.float32)
    cu, cu_depth = view(cupy.asarray(frames)), view(cupy.asarray(depth4))[..., 0]
    host, host_depth = np.ascontiguousarray(view(frames)), np.ascontiguousarray(
        view(depth4)[..., 0])
    assert not cu.flags.c_contiguous and not cu_depth.flags.c_contiguous
    for weights in ("box", "triangle"):
        close(hf.motion_blur(cu, 3, weights=weights),
              hf.motion_blur(host, 3, weights=weights, backend="cpu"))
    kw = dict(focus_distance=1.2, f_stop=1.4, sensor_width_mm=9.0)
    close(hf.depth_of_field(cu, cu_depth, **kw),
          hf.depth_of_field(host, host_depth, backend="cpu", **kw))
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 2), 2, 2)
    lens = hf.Lens(1.2, 1.4, sensor_width_mm=9.0)
    out = cupy.zeros((2, 33, 47, 5), np.uint8)
    strided_out = out[..., 1:1 + host.shape[-1]]  # the backend's own out (hf.fuse wants C)
    assert CUDA.fuse(cu[:4], cu_depth[:4], ww, lens, True, strided_out) is strided_out
    close(strided_out, CPU.fuse(host[:4], host_depth[:4], ww, [lens] * 4, True))
    assert not out[..., 0].any()  # nothing written beside the view


def test_a_permuted_torch_tensor_matches_the_cpu(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    frames = frames_for(rng, np.uint8, (6, 20, 30, 3))
    t = torch.from_numpy(frames).cuda().permute(0, 2, 1, 3)  # a view: strides not C order
    out = hf.motion_blur(t, 3)
    close(cupy.asarray(out), hf.motion_blur(np.ascontiguousarray(frames.transpose(0, 2, 1, 3)),
                                            3, backend="cpu"))


def test_grid_z_chunks_match_the_cpu(rng, monkeypatch):
    """More than 65,535 frames would not fit a test: chunks of 2 frames instead."""
    from hfrender.backends.cuda import launches

    monkeypatch.setattr(launches, "MAX_GRID_Z", 2)
    frames = frames_for(rng, np.uint8, (5, 40, 50, 4))
    depth = rng.choice([0.7, 1.0, 2.5], size=(5, 40, 50)).astype(np.float32)
    lenses = [hf.Lens(1.0 + 0.05 * j, 1.4, sensor_width_mm=9.0) for j in range(5)]
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 3), 3, 1)
    gpu = hf.fuse(hf.HyperFrame(cupy.asarray(frames), cupy.asarray(depth)), ww, lens=lenses)
    close(gpu, hf.fuse(hf.HyperFrame(frames, depth), ww, lens=lenses, backend="cpu"))
    close(hf.motion_blur(cupy.asarray(frames), 2, weights="triangle"),
          hf.motion_blur(frames, 2, weights="triangle", backend="cpu"))


def test_a_backend_for_device_1_runs_there_from_a_fusion_thread(rng):
    import threading

    from hfrender.backends.cuda import CUDABackend

    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs 2 or more GPUs")
    backend = CUDABackend(cupy, index=1)
    frames = frames_for(rng, np.uint8, (6, 40, 50, 4))
    depth = rng.choice([0.7, 1.0, 2.5], size=(6, 40, 50)).astype(np.float32)
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=9.0)
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 3), 2, 2)
    with cupy.cuda.Device(1):
        cu, cu_depth = cupy.asarray(frames), cupy.asarray(depth)
    results, errors = {}, []

    def work():  # a new thread: its current device is 0
        try:
            results["blur"] = backend.motion_blur(cu, hf.curve_weights("box", 3), 1, True)
            results["fuse"] = backend.fuse(cu, cu_depth, ww, lens, True)
            cupy.cuda.Device(1).synchronize()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert not errors, errors
    assert results["blur"].device.id == 1 and results["fuse"].device.id == 1
    close(results["blur"], CPU.motion_blur(frames, hf.curve_weights("box", 3), 1, True))
    close(results["fuse"], CPU.fuse(frames, depth, ww, [lens] * 6, True))


def moving_squares(rng, n, h, w, dtype):
    """``n`` sub-frames of random colour and depth with a near square moving fast (a
    per-pixel jitter on its velocity, so splats collide) and a farther one moving the other
    way: (frames, depth, velocity in pixels per second)."""
    frames = frames_for(rng, dtype, (n, h, w, 4))
    depth = rng.choice([1.0, 2.0, 4.0, np.inf], size=(n, h, w)).astype(np.float32)
    velocity = np.zeros((n, h, w, 2), np.float32)
    for j in range(n):
        y0, x0 = rng.integers(2, h - 14), rng.integers(2, w - 18)
        v = rng.uniform(0.5, 1.0, 2) * 600.0 * rng.choice([-1, 1], 2)
        velocity[j, y0:y0 + 12, x0:x0 + 16] = v + rng.normal(0, 60.0, (12, 16, 2))
        depth[j, y0:y0 + 12, x0:x0 + 16] = 0.5
        y1, x1 = rng.integers(0, h - 8), rng.integers(0, w - 8)
        velocity[j, y1:y1 + 8, x1:x1 + 8] = -0.5 * v
        depth[j, y1:y1 + 8, x1:x1 + 8] = 3.0
    return frames, depth, velocity


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_reconstruction_matches_the_cpu(rng, dtype):
    """The kernels of shaders/cuda/reconstruct.cu on the device, against the NumPy
    reconstruction, as tests/test_cuda_reconstruct.py checks them on the emulator."""
    n, shutter = 6, 1 / 60
    frames, depth, velocity = moving_squares(rng, n, 48, 72, dtype)
    times = (np.arange(n) + 0.5) / n * shutter
    ramp = np.linspace(1.0, 2.0, n)
    ww = hf.WindowWeights(np.array([0]), (ramp / ramp.sum())[None])
    spans = np.array([[0.0, shutter]])
    gpu = CUDA.reconstruct(cupy.asarray(frames), cupy.asarray(depth), cupy.asarray(velocity),
                           times, ww, spans, None, True)
    cpu = CPU.reconstruct(frames, depth, velocity, times, ww, spans, None, True)
    plain = CPU.fuse(frames, None, ww, None, True)
    assert np.abs(cpu.astype(np.float64) - plain).max() > (0.05 if dtype == np.float32 else 10)
    diff = np.abs(cupy.asnumpy(gpu).astype(np.float64) - cpu)
    assert diff.max() <= (1e-5 if dtype == np.float32 else 1), diff.max()
    assert (diff > 0).mean() < 1e-3, (diff > 0).mean()


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


@pytest.mark.parametrize("with_depth", [True, False])
def test_vector_blur_matches_the_cpu(rng, with_depth):
    """hf.vector_blur (one sub-frame through the reconstruction) on the device: the CUDA
    reconstruction's figures against the NumPy one's, as the test above."""
    frame = rng.random((48, 72, 3), dtype=np.float32)
    velocity = np.zeros((48, 72, 2), np.float32)
    velocity[10:30, 20:40] = (9.0, -4.0)  # a square moving right and up, 9 and 4 px a frame
    depth = np.full((48, 72), 5.0, np.float32) if with_depth else None
    if with_depth:
        depth[10:30, 20:40] = 2.0
    dev = (cupy.asarray(frame), cupy.asarray(velocity),
           None if depth is None else cupy.asarray(depth))
    gpu = hf.vector_blur(*dev, shutter=270)
    cpu = hf.vector_blur(frame, velocity, depth, shutter=270, backend="cpu")
    assert np.abs(cpu - frame).max() > 0.05  # (it blurred)
    diff = np.abs(cupy.asnumpy(gpu).astype(np.float64) - cpu)
    assert diff.max() <= 1e-5, diff.max()


def test_disparity_depth_of_field_matches_the_cpu(rng, layers_on_gpu):
    """depth_kind='disparity' (stand-in metres from the map) on the device as on the CPU."""
    frame = frames_for(rng, np.float32, (61, 83, 3))
    disparity = rng.choice([0.0, 0.25, 0.5, 1.0], size=(61, 83)).astype(np.float32)
    kw = dict(depth_kind="disparity", focus_disparity=0.5, max_blur=12)
    gpu = hf.depth_of_field(cupy.asarray(frame), cupy.asarray(disparity), **kw)
    close(gpu, hf.depth_of_field(frame, disparity, backend="cpu", **kw))


def test_renders_in_a_row_keep_one_context_with_interop():
    """Stills in one thread with GL-CUDA interop on (the thread's kept context reused, the
    CUDA registrations of the first released before the second): the same picture both
    times, within a code of one made with interop off."""
    stills = [hf.still("scenes/showcase.py", t=0.4, size="320x180", samples=8,
                       interop=mode, backend="cuda") for mode in ("on", "on", "off")]
    assert np.array_equal(stills[0], stills[1])
    assert np.abs(stills[0].astype(int) - stills[2]).max() <= 1
