"""The pixels of a window (:mod:`.dof_window`) that change layer between its sub-frames,
kept per *slot*: each pixel's distinct layers over the window.

* :class:`Sources` is their sending side: per pixel and slot, the window-weighted sums of
  its light ``[colour, 1]`` over the sub-frames in which it is in that layer, plain and
  times its share ``t`` of the layer's second disk. A layer's fields at the pixel are then
  one look-up (the sums are linear in the light and in ``t``), exact for the scatter.
* :class:`Slots` is their receiving side: per slot its own front
  and back sums, composited per slot (a pixel that is a sharp spoke in some sub-frames and
  blurred sky in others is renormalised as each, as the per-sub-frame defocus does).
"""

from __future__ import annotations

import numpy as np

from hfrender.dof_layers import ROLE_BACK, ROLE_FRONT

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

    def take(self) -> Slots:
        """The receiving side of these pixels."""
        return Slots(self.layer, self.sums[:, 0])


class Slots:
    """Front and back sums (S, C + 1, M) per slot of each pixel; ``weight`` (S, M) the
    window weight of the slot's sub-frames. ``light`` (S, C + 1, M): each slot's light
    (:class:`Sources`), its own pixel where it is in focus."""

    def __init__(self, layer: np.ndarray, light: np.ndarray) -> None:
        self.layer = layer
        c = light.shape[1] - 1
        self.weight = np.ascontiguousarray(light[:, c])
        self.front = np.zeros_like(light)
        self.back = light * (layer == -1)[:, None, :]

    def add(self, roles: np.ndarray, light: np.ndarray, cols: np.ndarray) -> None:
        """Add a layer's scatter ``light`` (C + 1, len(cols)) to each slot by its role
        (``roles``: the layer's row of the plan's roles) and weight."""
        for s in range(self.layer.shape[0]):
            role = roles[self.layer[s, cols]]  # STILL slots weigh 0
            part = light * self.weight[s, cols]
            self.front[s][:, cols] += part * (role == ROLE_FRONT)
            self.back[s][:, cols] += part * (role == ROLE_BACK)

    def composite(self, c: int) -> np.ndarray:
        """(M, C): the sum over slots of weight x the gather's composite of the slot's sums
        (taken per sub-frame: divided by its weight)."""
        out = np.zeros((c, self.layer.shape[1]), np.float32)
        for s in range(self.layer.shape[0]):
            wgt = self.weight[s]
            keep = (wgt > 0) & (self.back[s, c] > 0)
            f = self.front[s][:, keep] / wgt[keep]
            b = self.back[s][:, keep]
            alpha = np.minimum(f[c], 1.0)
            o = b[:c] / b[c] * (1.0 - alpha) + f[:c] / np.maximum(f[c], 1.0)
            out[:, keep] += o * wgt[keep]
        return out.T
