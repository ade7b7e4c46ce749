"""A sub-frame as the CPU's motion reconstruction (:mod:`~hfrender.backends.cpu.reconstruct`)
reads it: its picture in linear light, depth, velocity, moving pixels and the splats made of
them, gathered once."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from hfrender.backends.cpu.recon_layer import inner, layer
from hfrender.backends.cpu.recon_ties import mixed


class Splats(NamedTuple):
    """A sub-frame's moving pixels: flat index, position and velocity (float64), depth,
    colour, and whether inside their surface (:func:`~.recon_layer.inner`)."""

    idx: np.ndarray
    ys: np.ndarray
    xs: np.ndarray
    vy: np.ndarray
    vx: np.ndarray
    depth: np.ndarray
    colour: np.ndarray
    inner: np.ndarray


@dataclass
class Frame:
    """One sub-frame as reconstruction reads it (decoded to linear light)."""

    lin: np.ndarray  # (H, W, C) float32
    depth: np.ndarray  # (H, W) float32
    velocity: np.ndarray  # (H, W, 2) float32 pixels per second
    t: float
    speed: float  # the largest |velocity| in pixels per second
    moving: np.ndarray  # (H, W) bool: moves by STILL_PX or more over a shutter
    shift: tuple[float, float] = (0.0, 0.0)  # (y, x) px its antialiasing moved its picture
    fast: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # its outliers

    @cached_property
    def splats(self) -> Splats:
        """The moving pixels but the outliers (``fast``: :mod:`~.recon_fast`), gathered once
        per sub-frame; their positions where they are on the output's pixels (less the
        sub-frame's antialiasing shift)."""
        mask = self.moving
        if len(self.fast):
            mask = mask.copy()
            mask.reshape(-1)[self.fast] = False
        idx = np.flatnonzero(mask)
        h, w, c = self.lin.shape
        v = np.take(self.velocity.reshape(h * w, 2), idx, axis=0)
        sy, sx = self.shift
        return Splats(idx, (idx // w).astype(np.float64) - sy, (idx % w) - sx,
                       v[:, 1].astype(np.float64), v[:, 0].astype(np.float64),
                       self.depth.ravel()[idx], np.take(self.lin.reshape(h * w, c), idx, axis=0),
                       inner(mask).ravel()[idx])

    @cached_property
    def mixed(self) -> bool:
        """Whether moving pixels at one depth move differently (else no landing has an
        equal rival to blend: :mod:`~hfrender.backends.cpu.recon_ties`)."""
        return mixed(np, self.splats.depth, self.splats.vy, self.splats.vx)

    @cached_property
    def layer(self) -> np.ndarray:
        """The moving layer (:func:`~.recon_layer.layer`), kept while the cells that sample
        it are made (a frame's worth of C + 1 planes: :meth:`let_go` after them)."""
        return layer(self.splats.idx, self.splats.colour, self.moving.size)

    def let_go(self) -> None:
        """Free the moving layer (made again if it is asked for)."""
        self.__dict__.pop("layer", None)
