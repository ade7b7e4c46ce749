"""What a hole of motion reconstruction shows before a surface lands on it (a pixel a moving
surface covers in every sub-frame of the window, so none saw what is behind it there): the
still pixels behind that surface around it, ring by ring, as deep as that surface moves in
the cell. :mod:`.reconstruct` calls it for each sub-frame's cell; ``hf_rc_fill``
(shaders/cuda/reconstruct.cu) is the same rule, its reach from :func:`reach` too."""

from __future__ import annotations

from typing import Any

import numpy as np

REACH_MAX = 1 << 20  # rings: more than any frame's width


def reach(xp: Any, velocity: Any, span: float) -> Any:
    """How many rings deep each pixel may be filled (int32, flat): the surface there moves
    ``|v| * span`` pixels over the cell's longer half (``span`` seconds), and uncovers no
    pixel farther from its edge than that; 1.5 times it in steps of a row or a column (a
    diagonal's), plus the first ring. A slow surface (a propeller's hub) keeps its own
    colour inside, where a crack between its splats shows the base (was: every hole filled
    a pixel deep alone, a fast one's band of background not at all)."""
    moved = xp.hypot(velocity[..., 0].astype(np.float64), velocity[..., 1].astype(np.float64))
    rings = xp.ceil(xp.minimum(1.5 * moved * span, REACH_MAX)) + 1
    return rings.astype(np.int32).reshape(-1)


def fill(color: np.ndarray, depth: np.ndarray, hole: np.ndarray, surface: np.ndarray,
         idx: np.ndarray, w: int, rings: np.ndarray | int = 1) -> None:
    """The colour of the holes ``idx`` (in place), ring by ring from the pixels around
    them: pass k gives every hole not yet filled, and ``rings`` (:func:`reach`; one number
    for all) at least k deep, the mean of its neighbours (right, left, down, up, summed in
    that order in float32) that lie behind the hole's own surface (``surface``, own's
    depth) and are no hole or were filled by an earlier pass (was: one pass, so a hole
    deeper than a pixel, where sub-frames overlap at a shutter's end, showed the surface's
    own colour: light added, an audit). A hole none reaches keeps its colour. Its depth
    stays infinite: any splat still lands there."""
    n = len(hole)
    limit = np.broadcast_to(np.asarray(rings, np.int32), (n,)) if np.ndim(rings) == 0 \
        else rings
    ready = ~hole  # what a pass reads: no hole, or filled by an earlier pass
    ring = 1
    while len(idx):
        idx = idx[limit[idx] >= ring]
        x = idx % w
        total = np.zeros((len(idx), color.shape[1]), np.float32)
        count = np.zeros(len(idx), np.float32)
        for step, inside in ((1, x < w - 1), (-1, x > 0), (w, idx < n - w), (-w, idx >= w)):
            nb = np.where(inside, idx + step, idx)
            ok = inside & ready[nb] & (depth[nb] > surface[idx])
            total += np.take(color, nb, axis=0) * ok[:, None]
            count += ok
        some = count > 0
        filled = idx[some]
        color[filled] = total[some] / count[some, None]
        ready[filled] = True
        near = np.concatenate([filled + 1, filled - 1, filled + w, filled - w])
        near = near[(near >= 0) & (near < n)]  # (a row's wrap is no neighbour: not filled)
        idx = np.unique(near[hole[near] & ~ready[near]])
        ring += 1
