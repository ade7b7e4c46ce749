"""The CPU fast depth of field's highlights with their own disks (:mod:`hfrender.dof_splats`):
which sources go, and their disks added to a layer's scatter. A part of
``dof_fast._Ops`` (and of the window's, ``dof_window``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender import dof_splats as splat
from hfrender.backends.cpu.dof_light import Light
from hfrender.dof_fft import Window
from hfrender.dof_layers import NOISE_W


class SplatOps:
    """The splats of ``_Ops``: its ``lin`` (C, H, W), ``layer``, ``t``, ``largest``,
    ``max_d2``, ``blades`` and ``later``; sets ``splats`` and ``field_layer`` (the layers
    the fields take: the splats in none)."""

    splats: splat.Splats | None = None
    field_layer: np.ndarray
    _usual: float | None = None
    _hot: Callable[[], np.ndarray] | None = None  # the candidates, when they are wanted

    def usual(self) -> float:
        """The frame's usual light (:func:`.dof_highlights.usual`), once: the highlights'
        cuts and the splats both ask for it (0.4 ms a 640x360 frame)."""
        if self._usual is None:
            self._usual = highlights.usual(np, self.lin)
        return self._usual

    def _look_for_highlights(self, plan: Any) -> None:
        """Start :func:`.dof_splats.hot`'s pass over the frame on the transform thread
        (``later``: idle while the frame's first steps run here), where :meth:`_choose_splats`
        will want it (1.1 ms of a 640x360 64 px call's 45, with the usual light)."""
        if self.largest > 1.0 and splat.any_split(plan):
            self._hot = self.later(lambda: splat.hot(np, self.lin, self.usual()))

    def _choose_splats(self, keys: np.ndarray, moving: np.ndarray | None = None) -> None:
        """The highlights between two disks that go with their own (:mod:`.dof_splats`);
        none where the frame's light stays within white, nor among ``moving`` (flat
        indices: a window's pixels whose disk changes, :mod:`.dof_window`)."""
        self.field_layer = self.layer
        if self.largest <= 1.0 or not splat.any_split(self.plan):
            return
        w, t = keys.shape[1], self.t
        if moving is not None and moving.size:
            t = t.copy()
            np.put(t, moving, 0.0)  # (not a candidate)
        candidates, self._hot = None if self._hot is None else self._hot(), None
        at = splat.choose(np, self.lin, keys, t, self.usual(),
                          int(splat.SPLAT_BUDGET * keys.size), candidates)
        if at is None:
            return
        self.splats = splat.splats(np, at, keys, self.layer, self.lin[:, at // w, at % w])
        self.field_layer = self.layer.copy()
        np.put(self.field_layer, at, splat.NO_LAYER)

    def splatted(self, j: int, light: Light, win: Window, side: int) -> Light:
        """Layer j's ``light`` over ``win`` with its splats in its box's rows added."""
        if self.splats is None:
            return light
        w = self.layer.shape[1]
        pick = self.splats.of(j, *win.box[:2])
        if not pick.size:
            return light
        most = splat.add(np, light.planes[None], self.splats, pick, (self.max_d2, self.blades),
                         side, win, self.layer.size, w, splat.STAMPS)
        return replace(light, floor=max(light.floor, float(NOISE_W * np.float32(most))))

