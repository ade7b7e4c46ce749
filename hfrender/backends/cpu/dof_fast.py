"""The fast depth of field on the CPU: layers by circle of confusion, disks by FFT.

The plan and the FFT maths are :mod:`hfrender.dof_layers` (shared with the CUDA backend);
this module is the NumPy side of it: each layer's fields (``[colour, 1] * weight``,
zero-padded for the FFT), the per-pixel front and back sums, and the
final composite, with the exact gather's formula (``hfrender/backends/cpu/dof.py``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from hfrender.backends.cpu.blur import _band_pool
from hfrender.backends.cpu.dof import squared_radii
from hfrender.dof_layers import (
    NOISE,
    NOISE_W,
    ROLE_BACK,
    ROLE_FRONT,
    Plan,
    Window,
    defocus_layers,
    disk_spectrum,
    disk_tables,
)
from hfrender.optics import Lens

SPLIT_PIXELS = 1 << 15  # FFT grids at least this large run on two threads

@lru_cache(maxsize=64)
def _spectrum(area: int, shape: tuple[int, int], max_d2: int) -> np.ndarray:
    return disk_spectrum(np, disk_tables(max_d2)[0], area, shape)


def _halves(fn, a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[i] = fn(a[i])`` over the channels (axis 0), in two halves on two threads (one,
    for a grid too small to be worth a thread)."""
    if a[0].size < SPLIT_PIXELS:
        fn(a, out)
        return out
    half = (a.shape[0] + 1) // 2
    first = _band_pool().submit(fn, a[:half], out[:half])
    fn(a[half:], out[half:])
    first.result()
    return out


def _rfft(a: np.ndarray, out: np.ndarray) -> None:
    np.fft.rfft2(a, norm="forward", out=out)


def _clean(light: np.ndarray) -> np.ndarray:
    """``[colour * w, w]`` of an inverse FFT (in place) with its rounding taken out (the
    FFT's float32 rounding is about 1e-7 of a channel's largest value): zero where the
    weight is below :data:`NOISE_W` of its largest (the layer does not reach), and colour
    below :data:`NOISE` of its channel's largest, as the gather has them."""
    size = np.abs(light)
    top = size.max(axis=(1, 2), keepdims=True)
    colour = light[:-1]
    np.multiply(colour, size[:-1] >= NOISE * top[:-1], out=colour)
    np.multiply(light, light[-1] >= NOISE_W * top[-1], out=light)
    return light


class _Ops:
    """Per-frame state of the fast defocus: ``lin`` (H, W, C) and the front / back sums
    ``[sum c * w, sum w]`` per pixel, planar (C + 1, H, W); the light of the far layers
    visited so far (the same), which nearer layers gather."""

    def __init__(self, lin: np.ndarray, max_d2: int) -> None:
        self.lin = np.moveaxis(lin, -1, 0)  # planar view (C, H, W)
        self.max_d2 = max_d2
        c, h, w = self.lin.shape
        self.c = c
        self.front = np.zeros((c + 1, h, w), np.float32)
        self.back = np.zeros((c + 1, h, w), np.float32)
        self.far: np.ndarray | None = None

    def start(self, plan: Plan, keys: np.ndarray) -> None:
        self.plan = plan
        index = keys + plan.max_area
        self.layer = plan.layer_of_key[index]  # -1: in focus
        self.t = plan.t_of_key[index]
        focus = self.layer < 0  # sources in focus: their own pixel, weight 1 (area 1)
        self.back[: self.c] = self.lin * focus
        self.back[self.c] = focus

    def spectrum(self, area: int, shape: tuple[int, int]) -> np.ndarray:
        return _spectrum(area, shape, self.max_d2)

    def forward(self, fields: np.ndarray) -> np.ndarray:
        out = np.empty(fields.shape[:-1] + (fields.shape[-1] // 2 + 1,), np.complex64)
        return _halves(_rfft, fields, out)

    def inverse(self, spectrum: np.ndarray, win: Window) -> np.ndarray:
        h, w = win.size

        def one(a: np.ndarray, out: np.ndarray) -> None:
            out[...] = np.fft.irfft2(a, s=win.shape)[..., :h, :w]

        return _halves(one, spectrum, np.empty((spectrum.shape[0], h, w), np.float32))

    def fields(self, j: int, win: Window, disks: list[int]) -> list[np.ndarray]:
        """Layer j's light on each of its disks, on the window's grid: (C + 1, *shape) —
        colour * weight and the weight (its share of the source / the disk's area) — zero
        elsewhere."""
        at = _at(win)
        h, w = win.size
        mine, t = self.layer[at] == j, self.t[at]
        shares = [1.0 - t, t] if len(disks) == 2 else [np.ones_like(t)]
        out = []
        for area, share in zip(disks, shares, strict=True):
            f = np.zeros((self.c + 1,) + win.shape, np.float32)
            weight = np.where(mine & (share > 0), share / np.float32(area), np.float32(0))
            f[self.c, :h, :w] = weight
            np.multiply(self.lin[(slice(None),) + at], weight, out=f[: self.c, :h, :w])
            out.append(f)
        return out

    def scatter(self, j: int, light: np.ndarray, win: Window) -> None:
        """Add layer j's scatter to the front or back sums of each pixel by its role."""
        at = (slice(None),) + _at(win)
        role = self.plan.roles[j][self.layer[at[1:]]]  # layer -1 (in focus): the last column
        light = _clean(light)
        part = np.empty_like(light)
        for sums, which in ((self.front, ROLE_FRONT), (self.back, ROLE_BACK)):
            np.multiply(light, role == which, out=part)
            sums[at] += part

    def gather(self, j: int, light: np.ndarray, win: Window, disk: int, disks: int) -> None:
        """Add the far layers seen through layer j's pixels, gathered with disk ``disk`` of
        the layer's ``disks``: each pixel takes its share of each."""
        at = _at(win)
        t = self.t[at]
        share = 1.0 if disks == 1 else (1.0 - t if disk == 0 else t)
        light = _clean(light)
        self.back[(slice(None),) + at] += np.multiply(light, (self.layer[at] == j) * share,
                                                      out=light)

    def add_far(self, fields: list[np.ndarray], win: Window) -> None:
        """Keep a far layer's light (all its disks' parts) for the layers that gather it."""
        if self.far is None:
            self.far = np.zeros_like(self.front)
        h, w = win.size
        for f in fields:
            self.far[(slice(None),) + _at(win)] += f[:, :h, :w]

    def far_in(self, win: Window) -> bool:
        return self.far is not None and bool(self.far[(-1,) + _at(win)].any())

    def far_window(self, win: Window) -> np.ndarray:
        """The far light kept so far, on a window's grid."""
        h, w = win.size
        f = np.zeros((self.c + 1,) + win.shape, np.float32)
        f[:, :h, :w] = self.far[(slice(None),) + _at(win)]
        return f

    def finish(self) -> np.ndarray:
        """The exact gather's composite: back (renormalised) under front (coverage
        ``alpha = min(front weight, 1)``)."""
        c = self.c
        alpha = np.minimum(self.front[c], 1.0)
        out = self.back[:c] / self.back[c]
        out *= 1.0 - alpha
        out += self.front[:c] / np.maximum(self.front[c], 1.0)
        return np.ascontiguousarray(np.moveaxis(out, 0, -1))


def _at(win: Window) -> tuple[slice, slice]:
    return slice(win.y0, win.y1), slice(win.x0, win.x1)


def opaque(alphas: list[np.ndarray]) -> float | None:
    """The value of the alpha planes ``alphas`` where they are all one constant (an opaque
    render), else ``None``."""
    lo, hi = min(float(a.min()) for a in alphas), max(float(a.max()) for a in alphas)
    return lo if lo == hi else None


def with_alpha(colour: np.ndarray, alpha: float | None) -> np.ndarray:
    """``colour`` (H, W, C) with a constant alpha plane appended (none: as it is)."""
    if alpha is None:
        return colour
    return np.concatenate([colour, np.full(colour.shape[:-1] + (1,), alpha, np.float32)], -1)


def defocus_fast(lin: np.ndarray, depth: np.ndarray, lens: Lens) -> np.ndarray:
    """Defocus one linear-light frame ``lin`` (H, W, C float32) with ``depth`` (H, W) metres,
    by layers (cost independent of the blur size). Returns a new (H, W, C) float32 array.
    An RGBA frame's alpha that is one constant is not blurred: the defocus of a constant
    is that constant (a fifth of the FFTs)."""
    h, w, c = lin.shape
    r2, max_d2 = squared_radii(depth, lens, w, h)
    if max_d2 < 1:
        return lin.copy()
    alpha = opaque([lin[..., 3]]) if c == 4 else None
    depth = np.asarray(depth, np.float32)
    ops = _Ops(lin if alpha is None else lin[..., :3], max_d2)
    return with_alpha(defocus_layers(ops, np, r2, depth, lens.focus_distance, max_d2), alpha)
