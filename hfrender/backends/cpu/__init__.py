"""The NumPy fusion backend: the reference every other backend is tested against."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hfrender.backends.cpu.blur import box_running, fuse_windows, in_bands
from hfrender.backends.cpu.color import Transfer
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.backends.cpu.dof_plan import LastFrame
from hfrender.backends.cpu.dof_window import fuse_windows_dof
from hfrender.backends.cpu.memory import keep_freed_memory
from hfrender.backends.cpu.recon_cells import frame_speeds, moves
from hfrender.backends.cpu.reconstruct import reconstruct_windows
from hfrender.dof_layers import check_method
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens


class CPUBackend:
    """Fusion on the CPU with NumPy. Arrays in and out are ``numpy.ndarray``."""

    name = "cpu"

    def describe(self) -> str:
        return f"cpu (NumPy {np.__version__})"

    def device_id(self) -> None:
        return None

    def motion_blur(self, frames: np.ndarray, weights: np.ndarray, stride: int,
                    linear_light: bool, out: np.ndarray | None = None) -> np.ndarray:
        window = len(weights)
        count = (frames.shape[0] - window) // stride + 1
        if out is None:
            out = np.empty((count,) + frames.shape[1:], frames.dtype)
        if np.all(weights == weights[0]):
            return box_running(frames, window, stride, linear_light, out)
        ww = WindowWeights.sliding(weights, count, stride)
        return self._fuse_bands(frames, ww, linear_light, out)

    def depth_of_field(self, frames: np.ndarray, depth: np.ndarray, lens: Lens,
                       linear_light: bool, *, dof_method: str = "fast") -> np.ndarray:
        one = WindowWeights.sliding(np.ones(1), frames.shape[0], 1)
        return self.fuse(frames, depth, one, lens, linear_light, dof_method=dof_method)

    def fuse(self, frames: np.ndarray, depth: np.ndarray | None, weights: WindowWeights,
             lens: Lens | list[Lens] | None, linear_light: bool,
             out: np.ndarray | None = None, *, dof_method: str = "fast",
             dof_window: bool = True) -> np.ndarray:
        """``out[k] = sum_i W[k, i] * f(frame_i)``: ``f`` defocuses with ``depth`` if ``lens``
        (one lens for all frames, or a list with one per frame), by ``dof_method``:
        ``"fast"`` (layers, :mod:`hfrender.dof_layers`) or ``"exact"`` (the gather).
        ``"fast"`` with ``dof_window`` defocuses once per window and lens group (the
        layers of all its sub-frames: :mod:`hfrender.backends.cpu.dof_window`; lenses whose
        circles of confusion differ by at most a quarter pixel share one,
        :mod:`hfrender.backends.cpu.dof_share`; the CUDA backend defocuses each
        sub-frame, as ``dof_window=False`` does here)."""
        check_method(dof_method)
        if out is None:
            out = np.empty((weights.count,) + frames.shape[1:], frames.dtype)
        if lens is None:
            return self._fuse_bands(frames, weights, linear_light, out)
        tf = Transfer(frames.dtype, frames.shape[-1], linear_light)
        if dof_method == "fast" and dof_window:
            return fuse_windows_dof(frames, depth, weights, tf, out, lens)
        return fuse_windows(frames, weights, tf, out, _defocus_fn(depth, lens, dof_method))

    def reconstruct(self, frames: np.ndarray, depth: np.ndarray, velocity: np.ndarray,
                    times: np.ndarray, weights: WindowWeights, spans: np.ndarray,
                    lens: Lens | list[Lens] | None, linear_light: bool,
                    out: np.ndarray | None = None, *, dof_method: str = "fast",
                    shifts: np.ndarray | None = None) -> np.ndarray:
        """:meth:`fuse` with the motion between sub-frames reconstructed from their
        ``velocity`` (N, H, W, 2) and ``depth``; ``times`` are the sub-frames' and
        ``spans[k]`` output ``k``'s shutter (open, close) in seconds; ``shifts`` (N, 2):
        the pixels (x, y down) each sub-frame's antialiasing offset moved its picture by
        (see :mod:`hfrender.backends.cpu.reconstruct`). Without motion: :meth:`fuse`
        itself."""
        if out is None:
            out = np.empty((weights.count,) + frames.shape[1:], frames.dtype)
        speed = frame_speeds(velocity, weights)
        if not moves(speed, weights, times, spans):
            return self.fuse(frames, depth if lens is not None else None, weights, lens,
                             linear_light, out, dof_method=dof_method)
        tf = Transfer(frames.dtype, frames.shape[-1], linear_light)
        depth = np.asarray(depth, np.float32)  # the depth tests in float32, as on CUDA
        dof = None if lens is None else _defocus_fn(depth, lens, dof_method)
        return reconstruct_windows(frames, depth, velocity, times, weights, spans, tf, out, dof,
                                   speed, shifts)

    @staticmethod
    def _fuse_bands(frames: np.ndarray, weights: WindowWeights, linear_light: bool,
                    out: np.ndarray) -> np.ndarray:
        """Pure temporal fusion: rows are independent, so bands of rows run in parallel."""
        def band(f: np.ndarray, o: np.ndarray) -> None:
            fuse_windows(f, weights, Transfer(f.dtype, f.shape[-1], linear_light), o)

        return in_bands(band, frames, out)


def _defocus_fn(depth: np.ndarray, lens: Lens | list[Lens],
                method: str = "fast") -> Callable[[np.ndarray, int], np.ndarray]:
    """``f(linear_frame, j)``: frame ``j`` defocused with its depth and lens (``method``:
    ``"fast"`` or ``"exact"``)."""
    fast, last = check_method(method) == "fast", LastFrame()  # (this call's frames)

    def dof(lin: np.ndarray, j: int) -> np.ndarray:
        one = lens if isinstance(lens, Lens) else lens[j]
        return defocus_fast(lin, depth[j], one, last) if fast else defocus(lin, depth[j], one)

    return dof


def create() -> CPUBackend:
    keep_freed_memory()  # frames' arrays reused, not faulted in afresh (see memory.py)
    return CPUBackend()
