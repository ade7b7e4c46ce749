"""What the CUDA backend launches, written once for any array module and launcher.

Every function takes a :class:`Device` — an array module (CuPy on a GPU) and a ``run``
that launches a kernel of ``shaders/cuda/fusion.cu`` — so the same host logic drives the
GPU and, in the tests, the CPU emulation of the same kernel source (NumPy arrays, the
kernels compiled as C++). The arithmetic mirrors the NumPy backend; see fusion.cu.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hfrender.backends.cuda.source import MODE_CODE, MODE_FLOAT, MODE_SRGB
from hfrender.color import decode16_table, decode_table, encode8_table
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

# kernel scalars must have the C types of the kernel's parameters (CuPy passes NumPy
# scalars as they are): int -> I32, long long -> I64, float -> F32, double -> F64
I32, I64, F32, F64 = np.int32, np.int64, np.float32, np.float64
BLOCK = 256
MAX_GRID_Z = 65535  # CUDA's limit on gridDim.z (and y); every z launch is chunked by it
SUFFIX = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.float32): "f32"}
MAX_U8_BOX_WINDOW = 65535  # uint32 sums of 16-bit linear values stay exact below this


@dataclass
class Device:
    """An array module and a kernel launcher: ``run(name, grid, block, args)``."""

    xp: Any
    run: Callable[[str, tuple, tuple, Sequence], None]
    _tables: dict = field(default_factory=dict)
    # the taps (pixels x gather offsets) of a frame up to which the depth of field's
    # "fast" method gathers exactly, there sooner (a GPU's: hfrender.backends.cuda.dof's
    # EXACT_TAPS_PER_SM times its multiprocessors); 0: never (the emulator)
    exact_taps: float = 0.0
    # the pixels of frames that share one plan of the fast depth of field (its layers and
    # windows: hfrender.backends.cuda.dof.plan_runs); 0: a plan a frame, as the CPU (the
    # emulator, whose results the tests compare with the CPU's frame by frame)
    dof_plan_pixels: int = 0

    def launch(self, name: str, grid: tuple, block: tuple, args: Sequence) -> None:
        """``run`` after checking that every array argument is in C order: a kernel gets
        only a pointer (CuPy passes a strided array's raw pointer, whatever its strides)
        and indexes it as a flat C-order buffer, so a view would be read wrongly or past
        its allocation. The backend makes its inputs contiguous at its edge; this is the
        check that it did."""
        for i, a in enumerate(args):
            flags = getattr(a, "flags", None)
            if flags is not None and not flags.c_contiguous:
                raise ValueError(f"{name} argument {i} is not C-contiguous (shape "
                                 f"{tuple(a.shape)}, strides {tuple(a.strides)}): the kernels "
                                 "read flat C-order buffers; make it contiguous first")
        self.run(name, grid, block, tuple(args))

    def table(self, name: str, make: Callable[[], np.ndarray]) -> Any:
        """A constant table, copied to the device once."""
        if name not in self._tables:
            self._tables[name] = self.xp.asarray(make())
        return self._tables[name]


def mode_of(dtype: np.dtype, linear_light: bool) -> int:
    if np.dtype(dtype).kind == "f":
        return MODE_FLOAT
    return MODE_SRGB if linear_light else MODE_CODE


def _luts(dev: Device, dtype: np.dtype, mode: int) -> tuple[Any, Any]:
    """(decode table, 8-bit encode table or a 1-byte placeholder) for the kernels."""
    dt = np.dtype(dtype)
    if mode == MODE_SRGB:
        lut = dev.table(f"decode-{dt.str}", lambda: decode_table(dt.str))
    else:
        lut = dev.table("none-f32", lambda: np.zeros(1, np.float32))
    if mode == MODE_SRGB and dt == np.uint8:
        enc8 = dev.table("encode8", encode8_table)
    else:
        enc8 = dev.table("none-u8", lambda: np.zeros(1, np.uint8))
    return lut, enc8


def _grid(elems: int, z: int = 1) -> tuple[int, int, int]:
    return (max(1, -(-elems // BLOCK)), 1, z)


def _z_chunks(count: int) -> range:
    """The first index of each launch of a grid-z-per-frame kernel: MAX_GRID_Z at most."""
    return range(0, count, MAX_GRID_Z)


def motion_blur(dev: Device, frames: Any, weights: np.ndarray, stride: int,
                linear_light: bool) -> Any:
    """Sliding windows of ``weights`` (normalised), as the CPU backend's motion_blur."""
    xp = dev.xp
    n, window = frames.shape[0], len(weights)
    count = (n - window) // stride + 1
    out = xp.empty((count,) + tuple(frames.shape[1:]), frames.dtype)
    dt = np.dtype(frames.dtype)
    mode = mode_of(dt, linear_light)
    elems = int(np.prod(frames.shape[1:]))
    channels = int(frames.shape[-1])
    box = bool(np.all(weights == weights[0]))
    if box and not (dt == np.uint8 and window > MAX_U8_BOX_WINDOW):
        lut, enc8 = _luts(dev, dt, mode)
        if dt == np.uint8:
            lut16 = dev.table("decode16", decode16_table)
            dev.launch("hf_box_running_u8", _grid(elems), (BLOCK, 1, 1),
                       (frames, I64(elems), I32(channels), I32(count), I32(window),
                        I32(stride), I32(mode == MODE_SRGB), lut16, enc8, out))
        else:
            dev.launch(f"hf_box_running_{SUFFIX[dt]}", _grid(elems), (BLOCK, 1, 1),
                       (frames, I64(elems), I32(channels), I32(count), I32(window),
                        I32(stride), I32(mode), lut, out))
        return out
    ww = WindowWeights.sliding(np.asarray(weights, np.float64), count, stride)
    return fuse_windows(dev, frames, None, ww, mode, out)


def fuse_windows(dev: Device, frames: Any, linear_in: Any, weights: WindowWeights, mode: int,
                 out: Any) -> Any:
    """One launch per (up to MAX_GRID_Z) output frames: grid z = output frame."""
    xp = dev.xp
    dt = np.dtype(frames.dtype)
    elems = int(np.prod(frames.shape[1:]))
    channels = int(frames.shape[-1])
    lut, enc8 = _luts(dev, dt, mode)
    placeholder = dev.table("none-f32", lambda: np.zeros(1, np.float32))
    lin = placeholder if linear_in is None else linear_in
    name = f"hf_fuse_windows_{SUFFIX[dt]}"
    for k0 in _z_chunks(weights.count):
        k1 = min(weights.count, k0 + MAX_GRID_Z)
        starts = xp.asarray(np.ascontiguousarray(weights.starts[k0:k1], np.int64))
        rows = xp.asarray(np.ascontiguousarray(weights.rows[k0:k1], np.float32))
        args = [frames, lin, I32(linear_in is not None), I64(elems), I32(channels), starts,
                rows, I32(weights.width), I32(mode), lut]
        if dt == np.uint8:
            args.append(enc8)
        args.append(out[k0:k1])
        dev.launch(name, _grid(elems, k1 - k0), (BLOCK, 1, 1), tuple(args))
    return out


def fuse(dev: Device, frames: Any, depth: Any, weights: WindowWeights,
         lenses: Sequence[Lens] | None, linear_light: bool, out: Any, *,
         dof_method: str = "fast") -> Any:
    """``out[k] = sum_i W[k, i] f(frame_i)``, ``f`` the depth-aware defocus when lenses, by
    ``dof_method`` (``"fast"`` or ``"exact"``: :mod:`hfrender.backends.cuda.dof`)."""
    from hfrender.backends.cuda.dof import defocus_frames  # it builds on this module

    xp = dev.xp
    dt = np.dtype(frames.dtype)
    mode = mode_of(dt, linear_light)
    if lenses is None:
        return fuse_windows(dev, frames, None, weights, mode, out)
    n, h, w, c = (int(s) for s in frames.shape)
    elems = h * w * c
    lut, _ = _luts(dev, dt, mode)
    lin = xp.empty((n, h, w, c), np.float32)
    for z0 in _z_chunks(n):  # grid z = frame: chunks of MAX_GRID_Z, each from its own frame
        z1 = min(n, z0 + MAX_GRID_Z)
        dev.launch(f"hf_decode_frames_{SUFFIX[dt]}", _grid(elems, z1 - z0), (BLOCK, 1, 1),
                   (frames[z0:z1], I64(elems), I32(c), I32(mode), lut, lin[z0:z1]))
    dof = defocus_frames(dev, lin, depth, lenses, dof_method)
    return fuse_windows(dev, frames, lin if dof is None else dof, weights, mode, out)


def _host(xp: Any, a: Any) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)
