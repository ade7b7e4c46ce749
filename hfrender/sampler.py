"""Which frames make each output frame, and with what weight.

The one place where the weights of the temporal (shutter) windows are decided; what it
decides travels to the fusion backends as a :class:`~hfrender.windows.WindowWeights`.
"""

from __future__ import annotations

import numpy as np

CURVES = ("box", "triangle", "gaussian")


def curve_weights(curve: str | np.ndarray | list | tuple, n: int) -> np.ndarray:
    """Weights of ``n`` evenly spaced samples of a shutter curve, normalised to sum 1.

    ``curve`` is ``"box"`` (all equal), ``"triangle"`` (a tent peaking at the centre of the
    window; samples sit at the centres of ``n`` equal strata, so no weight is zero),
    ``"gaussian"`` (sigma = window / 6, truncated at the window edges), or an array of
    ``n`` non-negative weights.
    """
    if n < 1:
        raise ValueError(f"window={n!r} must be >= 1")
    if isinstance(curve, str):
        x = (np.arange(n, dtype=np.float64) + 0.5) / n  # stratum centres in (0, 1)
        if curve == "box":
            w = np.ones(n)
        elif curve == "triangle":
            w = 1.0 - np.abs(2.0 * x - 1.0)
        elif curve == "gaussian":
            w = np.exp(-0.5 * ((x - 0.5) / (1.0 / 6.0)) ** 2)
        else:
            raise ValueError(
                f"weights={curve!r} is not a shutter curve; use one of {', '.join(CURVES)} "
                f"or an array of {n} weights"
            )
    else:
        w = np.asarray(curve, dtype=np.float64)
        if w.shape != (n,):
            raise ValueError(
                f"weights has shape {w.shape}; an array of weights must have shape ({n},), "
                f"one per frame of the window"
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("weights must be finite, >= 0, and not all zero")
    return w / w.sum()
