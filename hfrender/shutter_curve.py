"""The shutter's curve: how much each moment of the open shutter weighs (a box, a tent, a
gaussian, or the caller's own weights), shared by the sampler and the effects library."""

from __future__ import annotations

import numpy as np

from hfrender import validate
from hfrender.errors import KEYWORD, InputError, InputTypeError, Spelling, about, shown

CURVES = ("box", "triangle", "gaussian")
# a motion-vector blur's shutter (hf.vector_blur, fx --vectors, a jobs file's vectors job):
SHUTTER = 180.0  # degrees, its default: half a frame's motion, the film standard
MAX_SHUTTER = 720.0  # degrees: two frames' motion, the most one frame's vectors can say
# a render's shutter (config.py; a sample store's is its own, which a re-exposure narrows):
MAX_RENDER_SHUTTER = 360.0 * 16  # degrees: 16 frames' motion
# samples of a curve at most (128 MiB of weights): past any window a render (4096 samples over
# 16 frames' shutter) or a clip held in memory has, and what NumPy can make (was: 10**30,
# NumPy's "Maximum allowed size exceeded")
MAX_WEIGHTS = 1 << 24


def vector_shutter(value: object, spell: Spelling = KEYWORD) -> float:
    """A motion-vector blur's shutter: degrees in (0, :data:`MAX_SHUTTER`], centred on the
    frame; else the one line every caller says (``spell``: the value named as a keyword,
    ``shutter=800``, or a flag, ``--shutter 800``; a command or a jobs file names it as
    typed: :func:`hfrender.errors.as_given`)."""
    deg = validate.real_array(validate.scalar(value), "shutter")
    if deg is None or deg.ndim or not 0 < float(deg) <= MAX_SHUTTER:
        raise about(InputError, "shutter", value, f" must be degrees in (0, {MAX_SHUTTER:g}] "
                    f"(180: half a frame's motion, 360: all of it)",
                    head=spell.said("shutter", validate.scalar(value)))
    return float(deg)


def vector_max_length(value: object, spell: Spelling = KEYWORD) -> float | None:
    """A motion-vector blur's ``max_length``: None (no clamp) or pixels a frame, a finite
    number > 0, each longer vector clamped to it keeping its direction (Blender's Max
    Speed); else the one line every caller says (``spell`` as :func:`vector_shutter`:
    ``max_length=0``, ``--max-length 0``, a jobs file's ``max-length = 0``)."""
    if value is None:
        return None
    px = None if isinstance(value, bool) else validate.real_array(validate.scalar(value),
                                                                  "max_length")
    if px is None or px.ndim or not np.isfinite(px) or not float(px) > 0:
        raise about(InputError, "max_length", value, " must be pixels a frame, a number > 0 "
                    "(each longer vector clamped to it); no clamp: leave it out",
                    head=spell.said("max_length", validate.scalar(value)))
    return float(px)


def curve_values(curve: str, u: np.ndarray) -> np.ndarray:
    """The shutter curve at positions ``u`` in [0, 1] across the open shutter."""
    u = np.asarray(u, np.float64)
    if curve == "box":
        return np.ones_like(u)
    if curve == "triangle":
        return 1.0 - np.abs(2.0 * u - 1.0)
    if curve == "gaussian":
        return np.exp(-0.5 * ((u - 0.5) / (1.0 / 6.0)) ** 2)
    raise InputError(f"weights={shown(curve)} is not a shutter curve; use one of "
                     f"{', '.join(CURVES)}")


def curve_weights(curve: str | np.ndarray | list | tuple, n: int) -> np.ndarray:
    """Weights of ``n`` evenly spaced samples of a shutter curve, normalised to sum 1.

    ``curve`` is ``"box"`` (all equal), ``"triangle"`` (a tent peaking at the centre of the
    window; samples sit at the centres of ``n`` equal strata, so no weight is zero),
    ``"gaussian"`` (sigma = window / 6, truncated at the window edges), or an array of
    ``n`` non-negative weights. ``n``: a whole number from 1 to :data:`MAX_WEIGHTS`.
    """
    return weights_of(curve, n, ("curve", "n"))


def weights_of(curve: object, n: object, names: tuple[str, str] = ("weights", "window")
               ) -> np.ndarray:
    """:func:`curve_weights`, a bad value named as its caller spells the two (``names``:
    ``motion_blur``'s ``weights`` and ``window``, ``curve_weights``' ``curve`` and ``n``)."""
    c, n = names[0], validate.integer(n, names[1], 1, MAX_WEIGHTS)  # (was: 2.5 gave 3
    if isinstance(curve, str):  # weights, one zero; 10**30, NumPy's "Maximum allowed size")
        if curve not in CURVES:
            raise InputError(f"{c}={shown(curve)} is not a shutter curve; use one of "
                             f"{', '.join(CURVES)} or an array of {n} weights")
        w = curve_values(curve, (np.arange(n) + 0.5) / n)  # stratum centres in (0, 1)
    else:
        w = validate.real_array(curve, c)  # (Fractions, Decimals)
        if w is None or w.ndim == 0:  # (None, 5, ["1", "1"], [None, 1], complex: not an
            raise InputTypeError(f"{c}={shown(curve)} must be one of {', '.join(CURVES)} or "
                                 f"an array of {n} real numbers")  # array, said as given)
        if w.shape != (n,):
            raise InputError(f"{c} has shape {w.shape}; an array of weights must have shape "
                             f"({n},), one per frame of the window")
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.max() <= 0:
            said = np.array2string(w, precision=4, threshold=8, max_line_width=1 << 30)
            raise InputError(f"{c}={said} must be finite, >= 0, and not all zero")
        with np.errstate(over="ignore"):
            if not np.isfinite(w.sum()):  # [1e308, 1e308] sums past the largest float
                w = w / w.max()
    return w / w.sum()
