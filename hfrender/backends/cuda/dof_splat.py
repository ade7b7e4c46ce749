"""The CUDA fast depth of field's highlights with their own disks
(:mod:`hfrender.dof_splats`), as the CPU's (``backends/cpu/dof_splat.py``): which sources
go, and their disks added to a layer's scatter. A part of ``dof_steps.Ops``."""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender import dof_splats as splat
from hfrender.dof_fft import Window


def plane_tops(xp: Any, light: Any) -> Any:
    """The largest magnitudes of each (frame, plane) of ``light``, without a window of abs."""
    return xp.ascontiguousarray(xp.maximum(light.max(axis=(-2, -1)), -light.min(axis=(-2, -1))))


class SplatOps:
    """The splats of ``dof_steps.Ops``: its ``lin`` (F, H, W, C), ``layer``, ``t``, ``largest``
    (each frame's, host), ``max_d2`` and ``blades``; sets ``splats`` and ``field_layer``
    (the layers the fields take: the splats in none)."""

    largest: np.ndarray | None = None
    splats: splat.Splats | None = None
    field_layer: Any

    def _choose_splats(self, keys: Any) -> None:
        """The highlights between two disks that go with their own (:mod:`.dof_splats`),
        as the CPU's; none where every frame's light stays within white."""
        self.field_layer = self.layer
        if (self.largest is None or float(np.max(self.largest)) <= 1.0
                or not splat.any_split(self.plan)):
            return
        xp = self.xp
        levels = np.array([highlights.usual(xp, xp.moveaxis(self.lin[i], -1, 0))
                           if self.largest[i] > 1.0 else np.inf for i in range(self.frames)],
                          np.float32)
        at = splat.choose(xp, xp.moveaxis(self.lin, -1, 0), keys, self.t, levels[:, None, None],
                          int(splat.SPLAT_BUDGET * self.frame_pixels))
        if at is None:
            return
        colour = self.lin.reshape(-1, self.c)[at].T
        self.splats = splat.splats(xp, at, keys, self.layer, xp.ascontiguousarray(colour))
        self.field_layer = self.layer.copy()
        self.field_layer.reshape(-1)[at] = splat.NO_LAYER

    def splatted(self, j: int, light: Any, win: Window, side: int) -> Any:
        """Layer j's ``light`` over ``win`` with its splats in its box's rows added, with
        the bounds of its rounding from before (as the CPU's)."""
        if self.splats is None:
            return light
        xp = self.xp
        pick = self.splats.of(j, *win.box[:2])
        if not pick.size:
            return light
        light, top = light if isinstance(light, tuple) else (light, plane_tops(xp, light))
        most = splat.add(xp, light, self.splats, pick, (self.max_d2, self.blades),
                         side, win, self.frame_pixels, self.w)
        top[:, self.c] = xp.maximum(top[:, self.c], np.float32(most))
        return light, top

