"""The fast depth of field on the CPU: layers by circle of confusion, disks by FFT.

The plan and the FFT maths are :mod:`hfrender.dof_layers` (shared with the CUDA backend);
this module is the NumPy side of it: each layer's fields (``[colour, 1] * weight`` and a
count of its sources, zero-padded for the FFT), the per-pixel front and back sums, and the
final composite, with the exact gather's formula (``hfrender/backends/cpu/dof.py``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from hfrender.dof_layers import ROLE_BACK, ROLE_FRONT, Plan, defocus_layers, disk_spectrum
from hfrender.optics import Lens

REACHED = 0.5  # a count of sources at least this: the layer reaches the pixel


@lru_cache(maxsize=64)
def _spectrum(area: int, shape: tuple[int, int], max_d2: int) -> np.ndarray:
    from hfrender.dof_layers import disk_tables

    return disk_spectrum(np, disk_tables(max_d2)[0], area, shape)


class _Ops:
    """Per-frame state of the fast defocus: ``lin`` (H, W, C) and the front / back sums
    ``[sum c * w, sum w]`` per pixel, planar (C + 1, H, W)."""

    def __init__(self, lin: np.ndarray, max_d2: int) -> None:
        self.lin = lin
        self.max_d2 = max_d2
        h, w, c = lin.shape
        self.c = c
        self.front = np.zeros((c + 1, h, w), np.float32)
        self.back = np.zeros((c + 1, h, w), np.float32)

    def start(self, plan: Plan, keys: np.ndarray) -> None:
        self.plan = plan
        index = keys + plan.max_area
        self.layer = plan.layer_of_key[index]  # -1: in focus
        self.t = plan.t_of_key[index]
        focus = self.layer < 0  # sources in focus: their own pixel, weight 1 (area 1)
        self.back[: self.c] = np.moveaxis(self.lin, -1, 0) * focus
        self.back[self.c] = focus

    def spectrum(self, offsets: np.ndarray, area: int, shape: tuple[int, int]) -> np.ndarray:
        return _spectrum(area, shape, self.max_d2)

    def fields(self, j: int, shape: tuple[int, int], disks: list[int]) -> list[np.ndarray]:
        """Layer j's light on each of its disks: (C + 2, *shape) — colour * weight, weight
        and a count of sources (whole sources for the count) — zero outside the image."""
        h, w, c = self.lin.shape
        mine = self.layer == j
        shares = [1.0 - self.t, self.t] if len(disks) == 2 else [np.ones_like(self.t)]
        out = []
        for area, share in zip(disks, shares, strict=True):
            f = np.zeros((c + 2,) + shape, np.float32)
            present = mine & (share > 0)
            weight = np.where(present, share / np.float32(area), np.float32(0))
            f[c, :h, :w] = weight
            f[c + 1, :h, :w] = present
            np.multiply(np.moveaxis(self.lin, -1, 0), weight, out=f[:c, :h, :w])
            out.append(f)
        return out

    def scatter(self, j: int, light: np.ndarray) -> None:
        """Add layer j's scatter to the front or back sums of each pixel by its role."""
        role = self.plan.roles[j][self.layer]  # layer -1 (in focus): the last column
        reached = light[-1] >= REACHED
        for sums, which in ((self.front, ROLE_FRONT), (self.back, ROLE_BACK)):
            take = reached & (role == which)
            sums += light[:-1] * take

    def gather(self, j: int, light: list[np.ndarray]) -> None:
        """Add the far layers seen through layer j's pixels, with their own disks."""
        shares = [1.0 - self.t, self.t] if len(light) == 2 else [1.0]
        mine = self.layer == j
        for part, share in zip(light, shares, strict=True):
            self.back += part[:-1] * ((mine & (part[-1] >= REACHED)) * share)

    def finish(self) -> np.ndarray:
        """The exact gather's composite: back (renormalised) under front (coverage
        ``alpha = min(front weight, 1)``)."""
        c = self.c
        alpha = np.minimum(self.front[c], 1.0)
        out = self.back[:c] / self.back[c]
        out *= 1.0 - alpha
        out += self.front[:c] / np.maximum(self.front[c], 1.0)
        return np.ascontiguousarray(np.moveaxis(out, 0, -1))


def defocus_fast(lin: np.ndarray, depth: np.ndarray, lens: Lens) -> np.ndarray:
    """Defocus one linear-light frame ``lin`` (H, W, C float32) with ``depth`` (H, W) metres,
    by layers (cost independent of the blur size). Returns a new (H, W, C) float32 array."""
    h, w, _ = lin.shape
    r = lens.coc_radius_px(depth, w, h)
    r2 = r * r
    max_d2 = int(np.floor(float(r2.max())))
    if max_d2 < 1:
        return lin.copy()
    depth = np.asarray(depth, np.float32)
    return defocus_layers(_Ops(lin, max_d2), np, r2, depth, lens.focus_distance, max_d2)
