"""The CUDA backend on a real GPU: the same functions as the NumPy backend, the same results
(within 1 code value, or 1e-5 relative for float32): motion blur, fusion, device arrays and
tensors, the reconstruction, rendering with interop (depth of field:
test_gpu_depth_of_field.py). Skips cleanly without a device."""

import numpy as np
import pytest
from gpu_helpers import (
    CPU,
    CUDA,
    close,
    cupy,
    frames_for,
    layers_on_gpu_fixture,  # noqa: F401  (the fixture layers_on_gpu)
)

import hfrender as hf

pytestmark = pytest.mark.gpu


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


def test_renders_in_a_row_keep_one_context_with_interop():
    """Stills in one thread with GL-CUDA interop on (the thread's kept context reused, the
    CUDA registrations of the first released before the second): the same picture both
    times, within a code of one made with interop off."""
    stills = [hf.still("scenes/showcase.py", t=0.4, size="320x180", samples=8,
                       interop=mode, backend="cuda") for mode in ("on", "on", "off")]
    assert np.array_equal(stills[0], stills[1])
    assert np.abs(stills[0].astype(int) - stills[2]).max() <= 1
