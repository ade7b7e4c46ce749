"""Depth of field from a disparity map: the relative inverse depth (near is large, no metric
scale) that monocular depth estimators write (Depth Anything, MiDaS, Depth Pro's
disparity, DaVinci's and After Effects' Depth Map).

A thin lens's circle of confusion is linear in inverse depth, ``CoC = K |1/z_f - 1/z|``, so
a disparity ``d = a/z + b`` blurs by ``(K/a) |d_f - d|``: one scale, which the user sets by
the largest blur (``max_blur``: the diameter in pixels of the first frame's largest circle
of confusion). The map becomes the stand-in metres the engine takes, ``z = 1 / (s d)`` (a
disparity of 0 or below: sky, inf), on :func:`stand_in` lens, ``s`` fixed from the first
frame for every frame (as ``-v``'s range is), so that the blur does not breathe.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from hfrender.errors import InputError, InputTypeError, Spelling, about, saying, shown
from hfrender.numeric import number_said, real_number
from hfrender.optics import MIN_BLUR_PX, Lens, check_blur_cap

# the stand-in lens's f-stop (50 mm on 36 mm, as Blender's): its aperture only scales s;
# wide, so that the stand-in metres of any disparity a clip reaches stay past the focal length
STAND_IN_F_STOP = 0.01
KINDS = ("distance", "disparity")  # what a depth pass holds
DISPARITY_ONLY = ("focus_disparity", "max_blur")
_SIZE = "the blur's size is {max_blur}'s"
_AS_IT_IS = ("a disparity map is read as it is (an integer one scaled to 0..1), and {max_blur} "
             "sets its scale")
NOT_WITH_DISPARITY = {  # what each says with a distance, and why a disparity takes none
    "focus_distance": "a disparity map holds no metres: focus by {focus_pixel} or "
                      "{focus_disparity}",
    "f_stop": _SIZE, "focal_length_mm": _SIZE, "sensor_width_mm": _SIZE,
    "depth_scale": _AS_IT_IS, "depth_range": _AS_IT_IS,
    "depth_zero_is_sky": "a disparity of 0 or below is sky already"}


def given(o: dict) -> list[str]:
    """The options of ``o`` that a depth kind weighs, given: not None, nor at the value
    that means not given, FxSettings' own (``depth_scale`` 1, ``depth_zero_is_sky`` False:
    they change nothing; was refused with a disparity map, though FxSettings took them)."""
    unset = {"depth_scale": lambda v: v == 1 and not isinstance(v, bool),
             "depth_zero_is_sky": lambda v: v is False}
    return [k for k in (*NOT_WITH_DISPARITY, *DISPARITY_ONLY)
            if o.get(k) is not None and not unset.get(k, lambda _: False)(o[k])]


def check_kind(kind: object, o: dict, name: Callable[[str], str]) -> None:
    """``kind`` (a depth pass's: :data:`KINDS`) and the options ``o`` beside it (those
    :func:`given`): with a disparity none that gives metres or a lens, with a distance none
    of a disparity's; ``name``: an option as the messages name it (``--max-blur``,
    ``max_blur``)."""
    said = _kind_said(name)
    if not isinstance(kind, str) or kind not in KINDS:  # (an array: was NumPy's "truth value
        # of an array ... is ambiguous")
        raise InputError(f"{said(kind)} must be one of {', '.join(KINDS)}")
    names = {k: name(k) for k in ("max_blur", "focus_pixel", "focus_disparity", "f_stop")}
    for key in given(o):
        if kind == "disparity" and key in NOT_WITH_DISPARITY:
            raise InputError(f"{name(key)} does not apply with {said('disparity')}: "
                             + NOT_WITH_DISPARITY[key].format(**names))
        if kind == "distance" and key in DISPARITY_ONLY:
            raise InputError(f"{name(key)} applies only with {said('disparity')} (a distance "
                             f"is blurred by the lens: {names['f_stop']})")


def _kind_said(name: Callable[[str], str]) -> Callable[[str], str]:
    """A depth kind as the messages of ``name`` say it: ``--depth-kind disparity``,
    ``depth-kind disparity``, ``depth_kind='disparity'``."""
    if name("depth_kind") != "depth_kind":
        return lambda k: f"{name('depth_kind')} {shlex.quote(str(k))}"  # (--depth-kind '')
    return lambda k: f"depth_kind={shown(k)}"


def check_options(o: dict, name: Callable[[str], str]) -> tuple[float, float | None]:
    """A disparity map's options ``o`` checked, the one place for the library, the command
    line and a jobs file (``name``: an option as their messages name it): a ``depth`` (where
    ``o`` has the key), ``max_blur`` of 2 px or more, one focus of ``focus_pixel`` and
    ``focus_disparity``, the latter a finite real number >= 0 (a Fraction or a Decimal
    too, as Lens takes). Returns the max blur and the focus disparity (None: the pixel's)
    as floats."""
    said, blur, focus = _kind_said(name)("disparity"), o.get("max_blur"), o.get("focus_disparity")
    if "depth" in o and o["depth"] is None:  # (was: a job's motion blur alone, unsaid)
        raise InputTypeError(f"{said} needs {name('depth')}")
    if blur is None:
        raise InputTypeError(f"{said} needs {name('max_blur')} (the largest circle of "
                             "confusion's diameter, in pixels)")
    check_blur_cap("max_blur", blur)
    if focus is not None and o.get("focus_pixel") is not None:
        raise InputError(f"{name('focus_pixel')} and {name('focus_disparity')}: give one (the "
                         "pixel in focus, or the disparity in focus)")
    if focus is None and o.get("focus_pixel") is None:
        raise InputTypeError(f"{said} needs {name('focus_pixel')} or {name('focus_disparity')} "
                             "(the pixel in focus, or the disparity in focus)")
    if focus is not None and not (real_number(focus) and math.isfinite(focus) and focus >= 0):
        flags = name("depth_kind") != "depth_kind"
        raise about(InputError, "focus_disparity", focus, " must be a finite disparity >= 0 "
                    "(in the map's units; 0 and below is sky)",
                    head=f"{name('focus_disparity')}{' ' if flags else '='}{number_said(focus)}")
    return float(blur), None if focus is None else float(focus)


def stand_in(max_coc_px: float | None = None, aperture_blades: int = 0,
             focus_distance: float = math.inf) -> Lens:
    """The lens a disparity map's stand-in metres are defocused with."""
    return Lens(focus_distance, STAND_IN_F_STOP, 50.0, 36.0, max_coc_px, aperture_blades)


def inverse(frame: Any) -> Any:
    """A disparity frame (or frames; NumPy or CuPy) as its inverse, ``1 / d`` in float32:
    an integer map first scaled to 0..1 (its type's largest value 1); 0 or below, sky
    (inf). Stand-in metres are this over ``s``."""
    if frame.dtype.kind not in "fiu" or frame.ndim == 0:  # (their own lines: not numbers,
        return frame  # a 0-d map's shape: was "'numpy.float32' object does not support item
    #                   assignment" below)
    one = np.iinfo(frame.dtype).max if frame.dtype.kind in "iu" else 1
    with np.errstate(over="ignore"):  # (float64 past float32's range: inf, refused after)
        d = frame.astype(np.float32) / np.float32(one)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.float32(1) / d
    u[d <= 0] = np.inf
    u[d == np.inf] = np.nan  # no disparity (was: 0 m, "a value <= 0")
    return u


@dataclass(frozen=True)
class Disparity:
    """How a disparity map is blurred: ``max_blur`` px across, the largest circle of
    confusion of its first frame; in focus the disparity ``focus`` (in the map's units, an
    integer map's scaled to 0..1), or the first frame's at ``pixel`` (x, y) (from there on
    each frame's own: autofocus); ``lens``, :func:`stand_in`'s."""

    max_blur: float
    focus: float | None = None
    pixel: tuple[int, int] | None = None
    lens: Lens = stand_in()

    def fit(self, first: np.ndarray, width: int, name: str) -> Fit:
        """The scale of ``first`` (a first frame's :func:`inverse`, ``width`` pixels across
        as fused) that blurs it by ``max_blur`` at the most; a map of one disparity all over,
        or of none above 0 (all sky), refused in one line (``name``: the frame, as said)."""
        with np.errstate(divide="ignore"):
            d = 1.0 / first.astype(np.float64)  # sky (inf): 0
        lo, hi = float(d.min()), float(d.max())
        if hi <= 0:  # (was: "one disparity (0) all over", the map's own values unsaid)
            raise InputError(f"{name} has no disparity above 0: all of it is sky (0 or below), "
                             "no depth to blur by; give the map of this footage (near large)")
        if lo == hi:
            raise InputError(f"{name} is one disparity ({hi:g}) all over: a constant map "
                             "holds no depth to blur by; give the map of this footage")
        focus = self.focus if self.pixel is None else float(d[self.pixel[1], self.pixel[0]])
        f_m = self.lens.focal_length_mm / 1000
        k = self.lens.aperture_mm * f_m * width / self.lens.sensor_width_mm  # px per 1/m
        # the largest blur k s D / (1 - f s d_f), D the farthest disparity from the focus
        far = max(focus - lo, hi - focus)
        self._check_blur(k * far / (f_m * focus * 1e-6) if focus > 0 else math.inf, name)
        s = self.max_blur / (k * far + self.max_blur * f_m * focus)
        note = None
        # the blur of the disparity nearest the focus, max_blur * gap / far: under 2 px sharp
        # (was: a 16-bit map's nearest, a part of a code under the focus typed, warned of)
        if self.pixel is None and self.max_blur * max(lo - focus, focus - hi) >= \
                MIN_BLUR_PX * far:
            note = (f"the focus disparity {focus:g} is beyond all of {name} ({lo:g} to "
                    f"{hi:g}): no pixel is in focus")
        near = d[d > 0]  # (the sky's 0 said apart)
        return Fit(1.0 / s, math.inf if focus <= 0 else 1.0 / (s * focus),
                   float(near.min()) if near.size else 0.0, hi, focus, lo == 0, note)

    def _check_blur(self, most: float, name: str) -> None:
        """``max_blur`` at most ``most``: the stand-in lens is focused at ``f (1 + k D / (B f
        d_f))`` metres, within a millionth of its focal length past that (float32's metres
        round it onto the lens: was "focus_distance=0.05 must be ... greater than the focal
        length", a keyword not given, for max_blur=10**30)."""
        if self.max_blur > most:
            step = 10.0 ** (math.floor(math.log10(most)) - 2)  # (3 digits, rounded down)
            raise saying(InputError, partial(_blur_past, self.max_blur, name,
                                             math.floor(most / step) * step))


def _blur_past(blur: float, name: str, most: float, spell: Spelling) -> str:
    """:meth:`Disparity._check_blur`'s line, ``max_blur`` named as ``spell`` does
    (``max_blur=1e+30``, ``--max-blur 1e+30``)."""
    return (f"{spell.said('max_blur', blur)} is more than {name} can be blurred by (its "
            f"stand-in lens would be focused on itself); give at most {most:.3g} px")


@dataclass(frozen=True)
class Fit:
    """A disparity map's stand-in metres: its :func:`inverse` times ``metres``; the lens
    focused at ``focus_distance`` of them (the disparity ``focus``); the first frame's
    disparities above 0, ``lo`` to ``hi`` (``sky``: some 0 or below), and what looks
    wrong."""

    metres: float
    focus_distance: float
    lo: float
    hi: float
    focus: float
    sky: bool
    note: str | None = None

    def summary(self, max_blur: float, cap: float) -> str:
        """``-v``'s line: the first frame's disparities and the blur they are given."""
        sky = " and sky (0 or below)" if self.sky else ""
        capped = f" (capped at {cap:g})" if max_blur > cap else ""
        return (f"disparity {self.lo:g} to {self.hi:g}{sky}, {self.focus:g} in focus; "
                f"circles of confusion up to {min(max_blur, cap):.3g} px across{capped}, each "
                "disparity blurred alike on every frame (the scale fixed from this one)")
