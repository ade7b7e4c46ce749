"""The pixels of a window (:mod:`.dof_window`) that change layer between its sub-frames,
kept per *slot*: each pixel's distinct layers over the window.

* :class:`Sources` is their sending side: per pixel and slot, the window-weighted sums of
  its light ``[colour, 1]`` over the sub-frames in which it is in that layer, plain and
  times its share ``t`` of the layer's second disk. A layer's fields at the pixel are then
  one look-up (the sums are linear in the light and in ``t``), exact for the scatter.
* :class:`Slots` is their receiving side: per slot its own front, back, behind and far
  sums, composited per slot (a pixel that is a sharp spoke in some sub-frames and blurred
  sky in others is renormalised as each, as the per-sub-frame defocus does).
"""

from __future__ import annotations

import numpy as np

from hfrender.dof_composite import composite, disk_inside_at
from hfrender.dof_layers import ROLE_BACK, ROLE_BEHIND, ROLE_FAR, ROLE_FRONT, Plan

STILL = -2  # an unused slot's layer (never a layer, never in focus)


def _ranks(mlayer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(layer (S, M): each pixel's distinct layers, ascending, STILL past the last;
    of (N, M): the slot of each sub-frame's layer) from ``mlayer`` (N, M)."""
    n, m = mlayer.shape
    order = np.argsort(mlayer, axis=0, kind="stable")
    ranked = np.take_along_axis(mlayer, order, axis=0)
    new = np.ones((n, m), bool)
    new[1:] = ranked[1:] != ranked[:-1]
    rank = np.cumsum(new, axis=0) - 1
    layer = np.full((int(rank.max()) + 1 if m else 1, m), STILL, np.int32)
    layer[rank, np.arange(m)] = ranked
    of = np.empty((n, m), np.intp)
    np.put_along_axis(of, order, rank, axis=0)
    return layer, of


class Sources:
    """The moving pixels' light per slot: ``sums`` (S, 2, C + 1, M), ``[colour, 1]`` summed
    with the window weights ``w`` over each slot's sub-frames (row 0), and times the share
    ``t`` (row 1); ``layer`` (S, M) the slots' layers."""

    def __init__(self, mlayer: np.ndarray, mt: np.ndarray, w: np.ndarray,
                 mlin: np.ndarray) -> None:
        self.layer, of = _ranks(mlayer)
        c = mlin.shape[-1]
        self.sums = np.empty((self.layer.shape[0], 2, c + 1, mlayer.shape[1]), np.float32)
        for s, sums in enumerate(self.sums):
            part = w[:, None] * (of == s)  # (N, M): the window weight of slot s's sub-frames
            part = np.stack([part, part * mt])
            np.einsum("knm,nmc->kcm", part, mlin, out=sums[:, :c])
            sums[:, c] = part.sum(axis=1)

    def slot(self, cols: np.ndarray, j: int) -> np.ndarray:
        """The slot of layer j of the pixels ``cols`` (that are in it in some sub-frame)."""
        return np.argmax(self.layer[:, cols] == j, axis=0)

    def light(self, cols: np.ndarray, j: int, disk: int, disks: int) -> np.ndarray:
        """(C + 1, len(cols)): the pixels' ``[colour, 1]`` on disk ``disk`` of layer j's
        ``disks`` (``1 - t`` of it on the first of two, ``t`` on the second)."""
        both = self.sums[self.slot(cols, j), :, :, cols]  # (len(cols), 2, C + 1)
        part = both[:, 0] if disks == 1 else (both[:, 1] if disk else both[:, 0] - both[:, 1])
        return part.T

    def take(self, plan: Plan, y: np.ndarray, x: np.ndarray, size: tuple[int, int]) -> Slots:
        """The receiving side of these pixels (at ``y``, ``x`` of a frame of ``size``); a
        slot's disk, for the share of it inside the picture, its layer's middle one."""
        areas = np.array([layer.mid or layer.lo for layer in plan.layers] + [1, 1], np.int64)
        inside = np.empty(self.layer.shape, np.float32)
        for s, layer in enumerate(self.layer):
            inside[s] = disk_inside_at(areas[layer], y, x, size)
        return Slots(self.layer, self.sums[:, 0], inside)


class Slots:
    """Front and back sums (S, C + 1, M) per slot of each pixel; ``weight`` (S, M) the
    window weight of the slot's sub-frames. ``light`` (S, C + 1, M): each slot's light
    (:class:`Sources`), its own pixel where it is in focus."""

    def __init__(self, layer: np.ndarray, light: np.ndarray, inside: np.ndarray) -> None:
        self.layer, self.inside = layer, inside
        c = light.shape[1] - 1
        self.weight = np.ascontiguousarray(light[:, c])
        self.front = np.zeros_like(light)
        self.back = light * (layer == -1)[:, None, :]
        self.behind = np.zeros_like(light)
        self.far = np.zeros_like(light)  # far layers of larger disks (``ROLE_FAR``)
        self.hid = np.zeros_like(light)  # what a slot before the focus plane sees behind

    def add(self, roles: np.ndarray, light: np.ndarray, cols: np.ndarray) -> None:
        """Add a layer's scatter ``light`` (C + 1, len(cols)) to each slot by its role
        (``roles``: the layer's row of the plan's roles) and weight."""
        for s in range(self.layer.shape[0]):
            role = roles[self.layer[s, cols]]  # STILL slots weigh 0
            part = light * self.weight[s, cols]
            behind = role == ROLE_BEHIND
            front, own = role == ROLE_FRONT, (role == ROLE_BACK) | behind  # back: own, behind
            for sums, which in zip((self.front, self.back, self.behind, self.far),
                                   (front, own, behind, role == ROLE_FAR), strict=True):
                sums[s][:, cols] += part * which

    def add_hid(self, slot: np.ndarray, light: np.ndarray, cols: np.ndarray) -> None:
        """Add what the pixels ``cols`` see behind them, gathered ((len(cols), C + 1), each
        pixel's share of it already), to their slot ``slot``'s sums of it."""
        self.hid[slot, :, cols] += light

    def composite(self, c: int) -> np.ndarray:
        """(M, C): the sum over slots of weight x the gather's composite of the slot's sums
        (taken per sub-frame: divided by its weight)."""
        out = np.zeros((c, self.layer.shape[1]), np.float32)
        for s in range(self.layer.shape[0]):
            wgt = self.weight[s]
            keep = (wgt > 0) & (self.back[s, c] > 0)
            f, b, k, g, d = (x[s][:, keep] / wgt[keep]
                             for x in (self.front, self.back, self.behind, self.far, self.hid))
            out[:, keep] += composite(np, f[:c], f[c], b[:c], b[c], k[:c], k[c],  # (no cap
                                      self.inside[s, keep], far=g, hid=d) * wgt[keep]  # by open_)
        return out.T
