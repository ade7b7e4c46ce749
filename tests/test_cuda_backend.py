"""The CUDA backend's own code without a GPU: CuPy replaced by a fake namespace (NumPy
arrays, a ``Device(i)`` that records which device each thread has selected, a
``RawModule`` whose kernels run in the CPU emulator), so its edge (contiguous arrays, the
device it selects, the checks of ``create()``) runs here as it would on a GPU."""

import importlib.machinery
import logging
import sys
import threading
import types

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
import hfrender.backends.cuda as cuda_backend
from hfrender import backends
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import CUDABackend, _contiguous
from hfrender.errors import BackendUnavailable

CPU = CPUBackend()


class DeviceArray(np.ndarray):
    """A 'device' array for the fake CuPy: NumPy memory, but not taken for host data."""


def _device_class(cp, current_device, local):
    """``cupy.cuda.Device``: a ``with`` of it selects its device in this thread."""
    class Device:
        def __init__(self, index=None):
            self.id = current_device() if index is None else index

        def __enter__(self):
            local.stack = getattr(local, "stack", []) + [self.id]
            cp.selected.append((self.id, threading.get_ident()))
            return self

        def __exit__(self, *exc):
            local.stack = local.stack[:-1]
            return False

    return Device


def _raw_module_class(cp, current_device, emu):
    """``cupy.RawModule``: records its compile; its kernels run in the CPU emulator."""
    class RawModule:
        def __init__(self, code, options=(), **kw):
            cp.compiled.append((options, current_device()))

        def get_function(self, name):
            def kernel(grid, block, args):
                cp.at_launch.append((name, current_device(), threading.get_ident()))
                emu.run(name, grid, block, args)
            return kernel

    return RawModule


def _stream_class(cp):
    """``cupy.cuda.Stream``: records each stream made (and its thread) and its syncs."""
    class Stream:
        def __init__(self, non_blocking=False):
            self.non_blocking, self.synced = non_blocking, 0
            cp.streams.append((self, threading.get_ident()))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def synchronize(self):
            self.synced += 1

    return Stream


def _set_allocators(cp, current_device):
    """NumPy's array makers, each recording the current device at the allocation."""
    def allocating(fn):
        def wrapped(*a, **kw):
            cp.at_alloc.append(current_device())
            return fn(*a, **kw)
        return wrapped

    cp.asarray = allocating(np.asarray)
    cp.ascontiguousarray = allocating(np.ascontiguousarray)
    cp.empty = allocating(np.empty)
    cp.empty_like = allocating(np.empty_like)
    cp.zeros = allocating(np.zeros)


def _cuda_namespace(cp, current_device, local, count, nvrtc_error):
    """``cupy.cuda``: Device, Stream, the runtime's queries and NVRTC's version."""
    def getVersion():  # noqa: N802 - NVRTC's name
        if nvrtc_error is not None:
            raise nvrtc_error
        return (12, 9)

    return types.SimpleNamespace(
        Device=_device_class(cp, current_device, local), Stream=_stream_class(cp),
        runtime=types.SimpleNamespace(getDeviceCount=lambda: count, getDevice=current_device,
                                      runtimeGetVersion=lambda: 12090,
                                      getDeviceProperties=lambda i: {"name": b"Fake GPU"}),
        nvrtc=types.SimpleNamespace(getVersion=getVersion))


def fake_cupy(emu=None, current=0, count=1, nvrtc_error=None):
    """A module object standing in for ``cupy``: what CUDABackend and create() use."""
    cp = types.ModuleType("cupy")
    cp.__spec__ = importlib.machinery.ModuleSpec("cupy", None)
    cp.__version__ = "fake"
    local = threading.local()
    cp.selected = []  # (device index, thread) on each Device(i).__enter__
    cp.at_launch = []  # (kernel, current device, thread) at each launch
    cp.at_alloc = []  # current device at each allocation
    cp.compiled = []  # (options, current device) of each RawModule
    cp.streams = []  # (stream, thread) of each Stream made

    def current_device():
        stack = getattr(local, "stack", [])
        return stack[-1] if stack else 0  # a new thread's current device is 0

    cp.ndarray = DeviceArray
    _set_allocators(cp, current_device)
    cp.__getattr__ = lambda name: getattr(np, name)  # the rest (fft, where, ...) as NumPy's
    cp.asnumpy = lambda a, out=None: np.asarray(a) if out is None else np.copyto(out, a) or out
    cp.RawModule = _raw_module_class(cp, current_device, emu)
    cp.cuda = _cuda_namespace(cp, current_device, local, count, nvrtc_error)
    return cp


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return session_emulator(tmp_path_factory)  # the build tests/test_cuda_kernels.py uses


def frames_for(rng, dtype, shape):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32) * 2
    return rng.integers(0, np.iinfo(dtype).max + 1, shape).astype(dtype)


VIEWS = {"channels": lambda a: a[..., :3], "step": lambda a: a[::2],
         "reversed": lambda a: a[::-1]}


def test_the_edge_makes_arrays_contiguous_without_copying_contiguous_ones(rng):
    a = frames_for(rng, np.uint8, (4, 3, 5, 4))
    assert _contiguous(np, a) is a
    for view in VIEWS.values():
        c = _contiguous(np, view(a))
        assert c.flags.c_contiguous and np.array_equal(c, view(a))
    d = _contiguous(np, a[..., 0].astype(np.float64)[::-1], np.float32)
    assert d.dtype == np.float32 and d.flags.c_contiguous


def test_one_plane_repeated_on_the_host_crosses_to_the_device_once(rng):
    """A broadcast (one depth frame for a shot's frames): its plane is sent, and repeated
    on the device; planes that only look alike are all sent."""
    plane = rng.uniform(0.5, 9.0, (5, 7))
    sent = []
    xp = types.SimpleNamespace(
        asarray=lambda a, dtype=None: sent.append(a.shape) or np.asarray(a, dtype),
        ascontiguousarray=np.ascontiguousarray, broadcast_to=np.broadcast_to)
    got = _contiguous(xp, np.broadcast_to(plane, (4, 5, 7)), np.float32)
    assert sent == [(5, 7)]
    assert got.shape == (4, 5, 7) and got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, np.stack([plane.astype(np.float32)] * 4))
    sent.clear()
    np.testing.assert_array_equal(_contiguous(xp, np.stack([plane] * 4), np.float32), got)
    assert sent == [(4, 5, 7)]


@pytest.mark.parametrize("view", list(VIEWS.values()), ids=list(VIEWS))
@pytest.mark.parametrize("on_device", [True, False], ids=["device", "host"])
def test_strided_frames_blend_as_the_cpu(emu, rng, view, on_device):
    backend = CUDABackend(fake_cupy(emu))
    frames = frames_for(rng, np.uint8, (9, 7, 11, 4))
    strided = view(frames.view(DeviceArray) if on_device else frames)
    for curve in ("box", "triangle"):  # the running-sum and the banded kernels
        w = hf.curve_weights(curve, 3)
        got = backend.motion_blur(strided, w, 1, True)
        np.testing.assert_array_equal(got, CPU.motion_blur(np.ascontiguousarray(strided), w,
                                                           1, True))


def test_strided_depth_and_a_strided_out_fuse_as_the_cpu(emu, rng):
    backend = CUDABackend(fake_cupy(emu))
    n, h, w = 4, 9, 12
    frames = frames_for(rng, np.uint8, (n, h, w, 4))[::-1]
    depth = rng.choice([0.6, 1.0, 2.5], size=(n, h, 2 * w)).astype(np.float32)[:, :, ::2]
    lenses = [hf.Lens(1.0, 1.4, sensor_width_mm=3.0)] * n  # CoC radii of 2-3 pixels
    ww = hf.WindowWeights.sliding(hf.curve_weights("triangle", 2), 2, 2)
    plain = np.ascontiguousarray(frames), np.ascontiguousarray(depth)
    want = backend.fuse(*plain, ww, lenses, True)  # the same launches on contiguous copies
    assert np.abs(want.astype(int) - CPU.fuse(*plain, ww, lenses, True)).max() <= 1
    whole = np.zeros((2, h, w, 5), np.uint8).view(DeviceArray)  # a device out, strided
    dst = whole[..., 1:]
    assert backend.fuse(frames, depth, ww, lenses, True, out=dst) is dst
    np.testing.assert_array_equal(np.asarray(dst), want)
    assert not whole[..., 0].any()  # nothing written beside the view
    host_out = np.zeros((2, h, w, 8), np.uint8)[..., ::2]  # a host out, strided
    assert backend.fuse(frames, depth, ww, lenses, True, out=host_out) is host_out
    np.testing.assert_array_equal(host_out, want)
    dof = backend.depth_of_field(frames[:1], depth[:1], lenses[0], True)
    np.testing.assert_array_equal(dof, backend.depth_of_field(plain[0][:1], plain[1][:1],
                                                              lenses[0], True))


def test_every_launch_and_allocation_is_on_the_backends_device(emu, rng):
    """A backend made for device 1, called from a fusion thread (current device: 0)."""
    cp = fake_cupy(emu)
    backend = CUDABackend(cp, index=1)
    assert backend.device_id() == 1 and "device 1" in backend.describe()
    frames = frames_for(rng, np.uint8, (4, 6, 8, 3))
    depth = np.full((4, 6, 8), 0.6, np.float32)
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=3.0)
    ww = hf.WindowWeights.sliding(hf.curve_weights("box", 2), 2, 2)
    results, errors = {}, []

    def work():
        try:
            results["blur"] = backend.motion_blur(frames, hf.curve_weights("triangle", 2), 1,
                                                  False)
            results["fuse"] = backend.fuse(frames, depth, ww, lens, True)
            results["dof"] = backend.depth_of_field(frames, depth, lens, True)
            results["thread"] = threading.get_ident()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert not errors, errors
    assert cp.compiled and all(dev == 1 for _, dev in cp.compiled)
    assert "--fmad=false" in cp.compiled[0][0]
    kernels = {name for name, _, _ in cp.at_launch}
    assert {"hf_fuse_windows_u8", "hf_dof_composite", "hf_decode_frames_u8"} <= kernels
    assert {(dev, thread) for _, dev, thread in cp.at_launch} == {(1, results["thread"])}
    assert cp.at_alloc and set(cp.at_alloc) == {1}
    cpu = CPU.fuse(frames, depth, ww, [lens] * 4, True)
    assert np.abs(results["fuse"].astype(int) - cpu).max() <= 1


def test_each_fusion_thread_launches_on_a_stream_of_its_own(emu, rng):
    cp = fake_cupy(emu)
    backend = CUDABackend(cp)
    frames = frames_for(rng, np.uint8, (4, 6, 8, 3))
    w = hf.curve_weights("triangle", 2)

    def work():
        for _ in range(2):
            backend.motion_blur(frames, w, 1, False)

    for _ in range(2):  # two fusion threads, one after the other (the emulator runs one
        t = threading.Thread(target=work)  # launch at a time)
        t.start()
        t.join()
    owners = [thread for _, thread in cp.streams]
    # one stream per thread (ids of finished threads are reused: count the streams), kept
    # for both of its calls, never the main thread's
    assert len(cp.streams) == 2 and threading.get_ident() not in owners
    assert all(st.non_blocking and st.synced == 2 for st, _ in cp.streams)  # done at return


def _use(monkeypatch, cp):
    monkeypatch.setitem(sys.modules, "cupy", cp)
    monkeypatch.setattr(cuda_backend, "driver_missing", lambda: None)
    monkeypatch.setattr(backends, "_cache", {})
    monkeypatch.delenv(backends.ENV_VAR, raising=False)


def test_create_takes_the_current_device(monkeypatch):
    cp = fake_cupy(current=1, count=2)
    _use(monkeypatch, cp)
    with cp.cuda.Device(1):
        backend = cuda_backend.create()
    assert backend.index == 1


def test_without_nvrtc_create_refuses_and_auto_takes_the_cpu(monkeypatch, caplog):
    missing = RuntimeError("CuPy failed to load libnvrtc.so.12: OSError: libnvrtc.so.12: "
                           "cannot open shared object file: No such file or directory\nmore")
    _use(monkeypatch, fake_cupy(nvrtc_error=missing))
    with pytest.raises(BackendUnavailable) as info:
        cuda_backend.create()
    said = str(info.value)
    assert "\n" not in said
    assert said.startswith("NVRTC (the CUDA compiler of the kernels) cannot be loaded: "
                           "CuPy failed to load libnvrtc.so.12")
    assert said.endswith("install it: pip install 'cupy-cuda12x[ctk]'")
    with caplog.at_level(logging.INFO, logger="hfrender.backends"):
        assert backends.get_backend("auto").name == "cpu"
    assert "cuda unavailable: NVRTC" in caplog.text
