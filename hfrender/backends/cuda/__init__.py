"""The CUDA fusion backend: the kernels of ``shaders/cuda/fusion.cu`` through CuPy.

The kernel source is compiled once per device (``cupy.RawModule``, memoised) and driven by
:mod:`hfrender.backends.cuda.launches`, the same host logic the tests run against a CPU
emulation of the same source. Arrays in: CuPy (or anything with
``__cuda_array_interface__`` / DLPack on a CUDA device, without a copy) or NumPy (copied
to the device and back). Arrays out: the family that came in.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from typing import Any

import numpy as np

from hfrender.backends.cuda import launches
from hfrender.backends.cuda.source import kernel_source
from hfrender.errors import BackendUnavailable
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

NVRTC_OPTIONS = ("-std=c++17",)


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
    except Exception as exc:  # no driver, driver too old, no device: CuPy says which
        raise BackendUnavailable(f"CUDA cannot start here: {exc}") from None
    if count < 1:
        raise BackendUnavailable("CUDA sees no device")
    return CUDABackend(cupy)


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

    def __init__(self, cupy: Any) -> None:
        self.cupy = cupy
        self._devices: dict[int, launches.Device] = {}
        self.source = kernel_source()

    def describe(self) -> str:
        props = self.cupy.cuda.runtime.getDeviceProperties(self.cupy.cuda.Device().id)
        return f"cuda ({props['name'].decode()}, CuPy {self.cupy.__version__})"

    def device_id(self) -> int:
        return int(self.cupy.cuda.Device().id)

    def device(self) -> launches.Device:
        """The launcher of the current device; its module is compiled once (memoised)."""
        dev_id = self.cupy.cuda.Device().id
        if dev_id not in self._devices:
            module = self.cupy.RawModule(code=self.source, options=NVRTC_OPTIONS,
                                         name_expressions=None)
            kernels: dict[str, Any] = {}

            def run(name: str, grid: tuple, block: tuple, args: tuple) -> None:
                if name not in kernels:
                    kernels[name] = module.get_function(name)
                kernels[name](grid, block, args)

            self._devices[dev_id] = launches.Device(self.cupy, run)
        return self._devices[dev_id]

    def _in(self, a: Any) -> tuple[Any, bool]:
        """A CuPy array of ``a`` and whether it came from the host."""
        if isinstance(a, np.ndarray):
            return self.cupy.asarray(a), True
        return self.cupy.asarray(a), False

    def motion_blur(self, frames: Any, weights: np.ndarray, stride: int,
                    linear_light: bool, out: Any = None) -> Any:
        arr, host = self._in(frames)
        res = launches.motion_blur(self.device(), arr, weights, stride, linear_light)
        if isinstance(out, np.ndarray):
            return res.get(out=out)
        if out is not None:
            out[...] = res
            return out
        return res.get() if host else res

    def depth_of_field(self, frames: Any, depth: Any, lens: Lens, linear_light: bool) -> Any:
        one = WindowWeights.sliding(np.ones(1), frames.shape[0], 1)
        return self.fuse(frames, depth, one, lens, linear_light)

    def fuse(self, frames: Any, depth: Any, weights: WindowWeights,
             lens: Lens | list[Lens] | None, linear_light: bool, out: Any = None) -> Any:
        arr, host = self._in(frames)
        lenses = None
        d = None
        if lens is not None:
            lenses = [lens] * arr.shape[0] if isinstance(lens, Lens) else list(lens)
            d = self.cupy.ascontiguousarray(self.cupy.asarray(depth, np.float32))
        dev_out = out if (out is not None and not isinstance(out, np.ndarray)) else \
            self.cupy.empty((weights.count,) + tuple(arr.shape[1:]), arr.dtype)
        launches.fuse(self.device(), self.cupy.ascontiguousarray(arr), d, weights, lenses,
                      linear_light, dev_out)
        if isinstance(out, np.ndarray):
            dev_out.get(out=out)
            return out
        return dev_out.get() if host else dev_out
