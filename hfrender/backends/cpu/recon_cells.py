"""Where a window's reconstruction cells lie and whether anything in it moves: the timing
both backends' reconstruction share (the splatting is in ``reconstruct``)."""

from __future__ import annotations

import numpy as np

from hfrender.hyperframe.windows import WindowWeights

STILL_PX = 1e-3  # a pixel that moves less than this over a half-cell is not moving


def cells(times: np.ndarray, open_t: float, close_t: float) -> np.ndarray:
    """The edges of each sample's cell: ``len(times) + 1`` values from ``open_t`` to
    ``close_t``, half-way between neighbouring (time-ordered) samples."""
    mids = (times[1:] + times[:-1]) / 2
    return np.concatenate([[min(open_t, times[0])], mids, [max(close_t, times[-1])]])


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
