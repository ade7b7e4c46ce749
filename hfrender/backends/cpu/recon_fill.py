"""What a hole of motion reconstruction shows before a surface lands on it (a pixel a moving
surface covers in every sub-frame of the window, so none saw what is behind it there): the
still pixels behind that surface around it, ring by ring. :mod:`.reconstruct` calls it for
each sub-frame's cell; ``hf_rc_fill`` (shaders/cuda/reconstruct.cu) is the same rule."""

from __future__ import annotations

import numpy as np


def fill_rings(steps: int) -> int:
    """How deep a hole is filled where a half-cell takes at most ``steps`` intermediate
    times (a pixel apart): a surface uncovers no pixel farther from its edge than it moves,
    up to twice that in steps of a row or a column (a diagonal's)."""
    return 2 * steps + 1


def fill(color: np.ndarray, depth: np.ndarray, hole: np.ndarray, surface: np.ndarray,
          idx: np.ndarray, w: int, rings: int = 1) -> None:
    """The colour of the holes ``idx`` (in place), ring by ring from the pixels around
    them: each of up to ``rings`` passes gives every hole not yet filled the mean of its
    neighbours (right, left, down, up, summed in that order in float32) that lie behind the
    hole's own surface (``surface``, own's depth) and are no hole or were filled by an
    earlier pass (was: one pass, so a hole deeper than a pixel, where sub-frames overlap at
    a shutter's end, showed the surface's own colour: light added, an audit). A hole none
    reaches keeps its colour. Its depth stays infinite: any splat still lands there."""
    n = len(hole)
    ready = ~hole  # what a pass reads: no hole, or filled by an earlier pass
    for _ in range(rings):
        if not len(idx):
            return
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
