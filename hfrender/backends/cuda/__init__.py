"""The CUDA fusion backend: the kernels of ``shaders/cuda/fusion.cu`` through CuPy.

The kernel source is compiled once, for the backend's device (``cupy.RawModule``) and driven by
:mod:`hfrender.backends.cuda.launches`, the same host logic the tests run against a CPU
emulation of the same source. Arrays in: CuPy (or anything with
``__cuda_array_interface__`` / DLPack on a CUDA device, without a copy) or NumPy (copied
to the device and back). Arrays out: the family that came in.

Arrays are made C-contiguous at this edge (inputs, depth, and an ``out`` that is a strided
device array: filled through a contiguous temporary): a kernel gets only a pointer, and
CuPy passes a strided array's raw pointer whatever its strides. The launch code checks it.

The same bits as the CPU: ``--fmad=false`` keeps NVRTC from contracting ``a*b + c`` into
fused multiply-adds (its default), so the kernels round every product and sum as NumPy and
the emulator (g++ ``-ffp-contract=off``) do; libdevice's own ``powf`` keeps its explicit
FMAs, like any libm's differing in the last bit (16-bit sRGB encode: within 1 code value).
CuPy always adds ``-ftz=true`` after the caller's options (``cupy/cuda/compiler.py``,
``_compile_with_cache_cuda``: ``options += ('-ftz=true',)``, CuPy 14.2 and earlier): subnormal
float32 values (below 1.18e-38) in float32 inputs and intermediates are flushed to zero on
the GPU, where the CPU keeps them.

One backend, one device: the current device when :func:`create` runs. Every method that
launches or allocates selects it (``cupy.cuda.Device(index)``): fusion runs on worker
threads, whose current device is CUDA's default (0) whatever the caller's was.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from hfrender.backends.cuda import launches
from hfrender.backends.cuda.source import kernel_source
from hfrender.dof_layers import check_method
from hfrender.errors import BackendUnavailable
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

NVRTC_OPTIONS = ("-std=c++17", "--fmad=false")


def create() -> CUDABackend:
    if importlib.util.find_spec("cupy") is None:
        raise BackendUnavailable(
            "CuPy is not installed; install the CUDA extra: pip install 'hfrender[cuda]'")
    missing = driver_missing()
    if missing:
        raise BackendUnavailable(missing)
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
        index = int(cupy.cuda.runtime.getDevice()) if count > 0 else -1
    except Exception as exc:  # no driver, driver too old, no device: CuPy says which
        raise BackendUnavailable(f"CUDA cannot start here: {exc}") from None
    if count < 1:
        raise BackendUnavailable("CUDA sees no device")
    missing = nvrtc_missing(cupy)
    if missing:
        raise BackendUnavailable(missing)
    return CUDABackend(cupy, index)


def nvrtc_missing(cupy: Any) -> str | None:
    """Why NVRTC, which compiles the kernels at the first fusion, cannot be used, or None.
    CuPy loads it only when first asked: without this look, a machine with the driver but
    no NVRTC (``cupy-cuda12x`` without its ``[ctk]`` part and no CUDA toolkit) would pass
    ``auto`` and then fail every fusion."""
    try:
        cupy.cuda.nvrtc.getVersion()
    except Exception as exc:  # the library cannot be found or loaded: CuPy says which
        said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return (f"NVRTC (the CUDA compiler of the kernels) cannot be loaded: {said}; "
                f"install it: pip install 'cupy-cuda{_cuda_major(cupy)}x[ctk]'")
    return None


def _cuda_major(cupy: Any) -> int:
    try:
        return int(cupy.cuda.runtime.runtimeGetVersion()) // 1000
    except Exception:  # noqa: BLE001 - only the hint's package name depends on it
        return 12


def _contiguous(xp: Any, a: Any, dtype: Any = None) -> Any:
    """``a`` as a C-contiguous array of ``xp`` (CuPy; NumPy in the tests): no copy when it
    is one already, else a contiguous copy (a strided view's raw pointer is what a kernel
    would get otherwise). A host array that repeats one plane along its first axis (a
    broadcast: one depth frame for a shot) crosses to the device once, as that plane, and
    is repeated there (CuPy would copy every repeat on the host and send them all)."""
    if _repeats_one(a):
        one = xp.asarray(a[0], dtype)
        return xp.ascontiguousarray(xp.broadcast_to(one, (a.shape[0],) + one.shape))
    return xp.ascontiguousarray(xp.asarray(a, dtype))


def _repeats_one(a: Any) -> bool:
    """Whether ``a`` is a host array of several planes that are one plane (stride 0)."""
    return (type(a) is np.ndarray and a.ndim > 1 and a.shape[0] > 1 and a.strides[0] == 0
            and a.size > 0)


def driver_missing() -> str | None:
    """Why the NVIDIA driver library cannot be loaded, or None if it can. Checked before
    CuPy is imported: on a machine without a GPU that import costs ~60 ms of CPU and a
    few thousand page faults at every start, for nothing."""
    name = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"
    try:
        ctypes.CDLL(name)
    except OSError as exc:
        return f"no CUDA driver: {name} cannot be loaded ({exc})"
    return None


class CUDABackend:
    name = "cuda"

    def __init__(self, cupy: Any, index: int | None = None) -> None:
        """``index``: the device this backend runs on (default: the current one)."""
        self.cupy = cupy
        self.index = int(cupy.cuda.runtime.getDevice()) if index is None else int(index)
        self._launcher: launches.Device | None = None
        self._lock = threading.Lock()
        self._local = threading.local()  # each fusion thread's stream
        self.source = kernel_source()

    def describe(self) -> str:
        props = self.cupy.cuda.runtime.getDeviceProperties(self.index)
        name = props["name"]
        name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
        return f"cuda ({name}, device {self.index}, CuPy {self.cupy.__version__})"

    def device_id(self) -> int:
        return self.index

    @contextlib.contextmanager
    def _selected(self) -> Iterator[None]:
        """This backend's device, current in the calling thread, and the thread's own
        stream (one per fusion worker: workers do not wait for each other's kernels, nor
        for the GL interop's map and unmap); synchronised when the call ends, so that the
        results are complete whatever stream reads them next."""
        with self.cupy.cuda.Device(self.index):
            stream = getattr(self._local, "stream", None)
            if stream is None:
                stream = self._local.stream = self.cupy.cuda.Stream(non_blocking=True)
            with stream:
                yield
            stream.synchronize()

    def device(self) -> launches.Device:
        """The launcher of this backend's device; its module is compiled once (memoised),
        on that device (call it, and the launches, inside :meth:`_selected`)."""
        with self._lock:
            if self._launcher is None:
                with self.cupy.cuda.Device(self.index):
                    module = self.cupy.RawModule(code=self.source, options=NVRTC_OPTIONS,
                                                 name_expressions=None)
                kernels: dict[str, Any] = {}

                def run(name: str, grid: tuple, block: tuple, args: tuple) -> None:
                    if name not in kernels:
                        kernels[name] = module.get_function(name)
                    kernels[name](grid, block, args)

                from hfrender.backends.cuda.dof import EXACT_TAPS_PER_SM
                from hfrender.backends.cuda.dof_plans import plan_pixels

                props = self.cupy.cuda.runtime.getDeviceProperties(self.index)
                self._launcher = launches.Device(
                    self.cupy, run,
                    exact_taps=EXACT_TAPS_PER_SM * int(props.get("multiProcessorCount", 0)),
                    dof_plan_pixels=plan_pixels(int(props.get("totalGlobalMem", 0))))
        return self._launcher

    def _in(self, a: Any) -> tuple[Any, bool]:
        """A C-contiguous CuPy array of ``a`` and whether it came from the host."""
        host = isinstance(a, np.ndarray) and not isinstance(a, self.cupy.ndarray)
        return _contiguous(self.cupy, a), host

    def _is_host(self, out: Any) -> bool:
        return isinstance(out, np.ndarray) and not isinstance(out, self.cupy.ndarray)

    def _to_host(self, res: Any, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            return self.cupy.asnumpy(res)
        if out.flags.c_contiguous:
            self.cupy.asnumpy(res, out=out)
        else:
            out[...] = self.cupy.asnumpy(res)
        return out

    def motion_blur(self, frames: Any, weights: np.ndarray, stride: int,
                    linear_light: bool, out: Any = None) -> Any:
        with self._selected():
            arr, host = self._in(frames)
            res = launches.motion_blur(self.device(), arr, weights, stride, linear_light)
            if out is not None and self._is_host(out):
                return self._to_host(res, out)
            if out is not None:
                out[...] = res
                return out
            return self._to_host(res) if host else res

    def depth_of_field(self, frames: Any, depth: Any, lens: Lens, linear_light: bool, *,
                       dof_method: str = "fast") -> Any:
        one = WindowWeights.sliding(np.ones(1), frames.shape[0], 1)
        return self.fuse(frames, depth, one, lens, linear_light, dof_method=dof_method)

    def fuse(self, frames: Any, depth: Any, weights: WindowWeights,
             lens: Lens | list[Lens] | None, linear_light: bool, out: Any = None, *,
             dof_method: str = "fast") -> Any:
        """As the CPU backend's ``fuse``; ``dof_method`` ``"fast"`` or ``"exact"``."""
        check_method(dof_method)
        with self._selected():
            arr, host = self._in(frames)
            lenses = None
            d = None
            if lens is not None:
                lenses = [lens] * arr.shape[0] if isinstance(lens, Lens) else list(lens)
                d = _contiguous(self.cupy, depth, np.float32)
            dev_out = self._device_out(out, (weights.count,) + tuple(arr.shape[1:]), arr.dtype)
            launches.fuse(self.device(), arr, d, weights, lenses, linear_light, dev_out,
                          dof_method=dof_method)
            return self._give_out(dev_out, out, host)

    def reconstruct(self, frames: Any, depth: Any, velocity: Any, times: np.ndarray,
                    weights: WindowWeights, spans: np.ndarray,
                    lens: Lens | list[Lens] | None, linear_light: bool, out: Any = None, *,
                    dof_method: str = "fast", shifts: np.ndarray | None = None) -> Any:
        """As the CPU backend's ``reconstruct``: :meth:`fuse` with the motion between
        sub-frames reconstructed from their ``velocity`` (N, H, W, 2) and ``depth``, from
        where their antialiasing ``shifts`` (N, 2) moved them
        (:mod:`hfrender.backends.cuda.reconstruct`); without motion, :meth:`fuse` itself."""
        from hfrender.backends.cuda.reconstruct import reconstruct

        with self._selected():
            arr, host = self._in(frames)
            n = int(arr.shape[0])
            d = _contiguous(self.cupy, depth, np.float32)
            v = _contiguous(self.cupy, velocity, np.float32)
            lenses = None if lens is None else ([lens] * n if isinstance(lens, Lens)
                                                else list(lens))
            dev_out = self._device_out(out, (weights.count,) + tuple(arr.shape[1:]), arr.dtype)
            reconstruct(self.device(), arr, d, v, np.asarray(times, np.float64), weights,
                        np.asarray(spans, np.float64), lenses, linear_light, dev_out,
                        dof_method, shifts)
            return self._give_out(dev_out, out, host)

    def _device_out(self, out: Any, shape: tuple, dtype: Any) -> Any:
        """Where the kernels write: the caller's ``out`` if it is C-contiguous device
        memory, else a device array that :meth:`_give_out` copies into it."""
        if out is not None and not self._is_host(out) and out.flags.c_contiguous:
            return out
        return self.cupy.empty(shape, dtype)

    def _give_out(self, dev_out: Any, out: Any, host: bool) -> Any:
        """The result as the caller asked: its ``out`` filled, else host or device."""
        if out is None:
            return self._to_host(dev_out) if host else dev_out
        if not self._is_host(out):
            if dev_out is not out:
                out[...] = dev_out
            return out
        return self._to_host(dev_out, out)
