"""Where a window's reconstruction cells lie, how many intermediate times each half-cell
takes, and whether anything in it moves: the timing both backends' reconstruction share
(the splatting is in ``reconstruct``)."""

from __future__ import annotations

import math

import numpy as np

from hfrender.hyperframe.windows import WindowWeights

STILL_PX = 1e-3  # a pixel that moves less than this over a half-cell is not moving
STEP_PX = 1.0  # the most a surface moves between two intermediate times, in pixels


def cells(times: np.ndarray, open_t: float, close_t: float) -> np.ndarray:
    """The edges of each sample's cell: ``len(times) + 1`` values from ``open_t`` to
    ``close_t``, half-way between neighbouring (time-ordered) samples."""
    mids = (times[1:] + times[:-1]) / 2
    return np.concatenate([[min(open_t, times[0])], mids, [max(close_t, times[-1])]])


def half_steps(speed_own: float, speed_other: float, t_own: float, t_other: float,
               edge: float) -> int:
    """Intermediate times for the half-cell from ``t_own`` to ``edge``: enough that no
    surface of either sub-frame moves more than :data:`STEP_PX` from one to the next. The
    two halves of the gap between neighbouring sub-frames (``t_other``) then take at least
    as many times together as the largest displacement over the gap in pixels (the issue's
    ``M >= D``: ``2 * ceil(D / 2) >= D``), and a half-gap at a shutter's end at least its
    own. 0 where neither moves by :data:`STILL_PX` over the half-cell's warps (``own``
    over the half-cell, ``other`` from its time to the half-cell's far end)."""
    length = abs(edge - t_own)
    own = speed_own * length
    other = speed_other * max(abs(t_own - t_other), abs(edge - t_other))
    if max(own, other) < STILL_PX:
        return 0
    return max(1, math.ceil(max(speed_own, speed_other) * length / STEP_PX))


def frame_speeds(velocity: np.ndarray, weights: WindowWeights) -> np.ndarray:
    """The largest |velocity| of each sub-frame some window uses (0 for the others: slots
    ``--samples auto`` left undrawn hold whatever was there)."""
    speed = np.zeros(len(velocity))
    used = np.unique(np.concatenate([weights.starts[k] + np.flatnonzero(weights.rows[k])
                                     for k in range(weights.count)] or [np.zeros(0, int)]))
    for j in used:
        v = velocity[j].astype(np.float64)
        speed[j] = float(np.sqrt(v[..., 0] ** 2 + v[..., 1] ** 2).max())
    return speed


def moves(frames_speed: np.ndarray, weights: WindowWeights, times: np.ndarray,
          spans: np.ndarray) -> bool:
    """Whether any pixel of the windows moves by :data:`STILL_PX` over its shutter."""
    for k in range(weights.count):
        js = weights.starts[k] + np.flatnonzero(weights.rows[k])
        length = max(spans[k, 1], times[js].max()) - min(spans[k, 0], times[js].min())
        if frames_speed[js].max() * length >= STILL_PX:
            return True
    return False
