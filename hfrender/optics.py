"""Thin-lens optics: the circle of confusion of a physical camera lens.

All distances given to these functions are in metres; the lens and the sensor are in
millimetres, as camera makers (and Blender) quote them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hfrender.errors import InputError, InputTypeError, about, shown
from hfrender.interop import grad_free, unmasked, unread
from hfrender.numeric import a_number, number_said, real_number, whole_number

FRONT_TOLERANCE = 0.01  # relative depth difference that separates two surfaces (depth DoF)
# the smallest circle of confusion (diameter, pixels) that blurs anything in depth mode: a
# pixel's disk is the pixels within its radius (radius 1: the pixel and its four
# neighbours), so under 2 px across a pixel keeps its own light, and the blur grows in
# steps of whole pixels (5, 9, 13, 21, ... pixels)
MIN_BLUR_PX = 2.0
# the longest focal length the effects' keyword and fx's flag take (mm): a kilometre, past
# any camera's lens (was: focal_length_mm=10**30 refused as "focus_distance=0.5 must be ...
# greater than the focal length", focus_distance blamed, or a focus pixel's depth); not a
# Lens's own bound: a scene camera's (a telephoto at 3 km, a glTF camera of a tiny yfov)
# and a store kept from one render as they did, :func:`check_focal_length`
MAX_FOCAL_LENGTH_MM = 1e6

# a Lens's numbers: the first five kept as Python floats, the blades an int
LENS_FIELDS = ("focus_distance", "f_stop", "focal_length_mm", "sensor_width_mm", "max_coc_px",
               "aperture_blades")


@dataclass(frozen=True)
class Lens:
    """A thin lens focused at ``focus_distance`` metres.

    Defaults follow Blender's camera: a 50 mm lens on a 36 mm wide sensor. Each number may
    be a Python or NumPy number, a Fraction, a Decimal, or a 0-d array or tensor (its
    number).

    Parameters
    ----------
    focus_distance : float
        Distance of the plane in focus, in metres; must exceed the focal length. ``inf``:
        focused at infinity (the sky sharp, a point at ``s`` metres blurred by
        ``f^2 / (N s)``).
    f_stop : float
        The f-number N (aperture diameter = focal length / N); must be > 0.
    focal_length_mm, sensor_width_mm : float
        Focal length and sensor width in millimetres (a focal length given to the effects
        or to ``hfrender fx``: at most :data:`MAX_FOCAL_LENGTH_MM`, a kilometre).
    max_coc_px : float or None
        Largest circle of confusion (diameter, pixels) the gather will use. ``None``
        uses what the optics give, bounded by the image diagonal.
    aperture_blades : int
        0: round bokeh; 3 to 64: the regular polygon of that many blades inscribed in the
        circle of confusion, oriented as ``--dof lens`` draws it (a corner to the right
        behind the focus plane; in front of it the image of a point is turned over, which
        shows with an odd number of blades).
    """

    focus_distance: float
    f_stop: float
    focal_length_mm: float = 50.0
    sensor_width_mm: float = 36.0
    max_coc_px: float | None = None
    aperture_blades: int = 0

    def __post_init__(self) -> None:
        for name in LENS_FIELDS:  # a 0-d array or tensor as its number (was: f_stop=array(1.4)
            object.__setattr__(self, name, scalar(getattr(self, name), name))  # refused)
        _positive("f_stop", self.f_stop)
        _positive("focal_length_mm", self.focal_length_mm)
        _positive("sensor_width_mm", self.sensor_width_mm)
        f_m = float(self.focal_length_mm) / 1000.0  # (a Decimal's too)
        fd = self.focus_distance
        if not (real_number(fd) and not math.isnan(fd) and fd > f_m):  # (named as given: as_given)
            raise about(_bad(fd), "focus_distance", fd, " must be a distance in metres greater "
                        f"than the focal length ({f_m:g} m, a {self.focal_length_mm:g} mm lens)"
                        ", or inf", head=f"focus_distance={_number(fd)}")
        if self.max_coc_px is not None:
            check_blur_cap("max_coc_px", self.max_coc_px)
        check_blades("aperture_blades", self.aperture_blades)
        for name in LENS_FIELDS[:-1]:  # Python's floats from here (a Fraction, NumPy's)
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, float(value))

    @property
    def aperture_mm(self) -> float:
        """Diameter of the entrance pupil in millimetres (f / N)."""
        return self.focal_length_mm / self.f_stop

    def coc_mm(self, distance: np.ndarray | float) -> np.ndarray:
        """Circle-of-confusion diameter on the sensor (mm) of points at ``distance`` metres
        (each > 0, or inf; anything else is one :class:`InputError`).

        ``c = (f/N) * |S2 - S1| / S2 * f / (S1 - f)``; ``inf`` (sky) gives the limit
        ``(f/N) * f / (S1 - f)``; focused at infinity, ``(f/N) * f / S2``.
        """
        s2 = np.asarray(distance)  # taken as float64 by each operation
        if s2.dtype.kind not in "fiu":
            raise InputTypeError(f"distance {shown(distance)} is not a number or an array of "
                                 "numbers (metres from the camera)")
        if s2.size and not s2.min() > 0:  # NaN too (~0.4 ms a 1080p frame)
            where = np.flatnonzero(~(s2.reshape(-1) > 0))[0]
            raise InputError(f"distance {_number(float(s2.reshape(-1)[where]))} is not a "
                             "distance > 0 in metres from the camera (use inf for sky)")
        s1 = self.focus_distance
        f_m = self.focal_length_mm / 1000.0
        if math.isinf(s1):  # the limit S1 -> inf: |S2 - S1| / (S1 - f) -> 1
            with np.errstate(divide="ignore"):
                rel = np.divide(self.aperture_mm * f_m, s2, dtype=np.float64)
            return rel if rel.ndim else rel[()]
        rel = np.subtract(s2, s1, dtype=np.float64, out=np.empty(s2.shape))  # in place from
        np.abs(rel, out=rel)  # here: a frame's temporaries would cost page faults of their own
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(rel, s2, out=rel, dtype=np.float64)
        rel[np.isinf(s2)] = 1.0
        rel *= self.aperture_mm
        rel *= f_m
        rel /= s1 - f_m
        return rel if rel.ndim else rel[()]

    def coc_px(self, distance: np.ndarray | float, image_width: int) -> np.ndarray:
        """Circle-of-confusion diameter in pixels for an image ``image_width`` pixels wide."""
        coc = self.coc_mm(distance)
        coc /= self.sensor_width_mm
        coc *= image_width
        return coc

    def sky_blur_px(self, image_width: int) -> float:
        """The circle of confusion (pixels across) of the sky, at infinity."""
        return float(self.coc_px(np.array([np.inf]), image_width)[0])

    def largest_d2(self, nearest: float, farthest: float, width: int, height: int) -> float:
        """The largest squared radius (pixels, capped) of the circles of confusion of depths
        from ``nearest`` to ``farthest`` metres, in float32 as the gather finds it per
        pixel: that of one of the two (the circle grows away from the focus plane on
        either side). Its floor is the largest disk's (``max_d2``)."""
        r = self.coc_radius_px(np.array([nearest, farthest], np.float32).astype(np.float64),
                               width, height)
        return float((r * r).max())

    def blur_cap_px(self, width: int, height: int) -> float:
        """The largest circle of confusion (diameter, pixels) a gather uses: ``max_coc_px``,
        else the image diagonal."""
        return self.max_coc_px if self.max_coc_px is not None else float(np.hypot(width, height))

    def coc_radius_px(self, depth: np.ndarray, width: int, height: int) -> np.ndarray:
        """Radius (pixels, float32) of the capped circle of confusion of every pixel."""
        coc = self.coc_px(depth, width)
        coc = np.minimum(coc, self.blur_cap_px(width, height),
                         out=coc if isinstance(coc, np.ndarray) else None)
        coc *= 0.5
        return coc.astype(np.float32)


def check_blur_cap(what: str, value: object) -> None:
    """One clear line where ``value`` (a cap on the circle of confusion's diameter) is no
    number > 0, or one under :data:`MIN_BLUR_PX`, which would turn depth of field off
    without a word."""
    if not (real_number(value) and math.isfinite(value)):  # no cap: the default, for every caller
        # (was "(no cap: None)", a Python word to the command line, and to --max-blur too)
        cap = " (no cap: leave it out)" if what == "max_coc_px" else ""
        raise about(_bad(value), what, value, " must be a finite number of pixels, at least "
                    f"{MIN_BLUR_PX:g}{cap}", head=f"{what}={number_said(value)}")
    if value < MIN_BLUR_PX:  # 0 and negative too: none of them blurs
        raise about(InputError, what, value, f" blurs nothing: under {MIN_BLUR_PX:g} px across "
                    "a circle of confusion leaves every pixel as it is (a pixel's disk is "
                    f"whole pixels); give at least {MIN_BLUR_PX:g}, or no depth of field")


def check_blades(what: str, value: object) -> int:
    """``value`` if it is 0 (round) or a whole number from 3 to 64, else one clear line."""
    whole = whole_number(value)
    if not (whole and (value == 0 or 3 <= value <= 64)):  # (was: 5.0 "must be ... between
        kind = "" if whole else "a whole number, "  # 3 and 64", which it is, said alone)
        raise about(_bad(value), what, value, f" must be {kind}0 (round) or between 3 and 64",
                    head=f"{what}={number_said(value)}")
    return int(value)


def polygon_edge(theta: np.ndarray, blades: int) -> np.ndarray:
    """The distance from the centre to the edge, at angle ``theta`` (radians, y up), of the
    regular polygon of ``blades`` corners on the unit circle, the first corner at 0."""
    sector = 2 * math.pi / blades
    return math.cos(math.pi / blades) / np.cos(np.mod(theta, sector) - sector / 2)


def aperture_d2(dy: np.ndarray, dx: np.ndarray, blades: int = 0) -> np.ndarray:
    """The squared "radius" of the image displacements (dy rows down, dx columns right) of
    a source behind the focus plane: ``dy^2 + dx^2`` for a round aperture; for a polygon of
    ``blades`` the squared gauge of the polygon that ``--dof lens`` samples (corners at
    0, 360 / blades, ... degrees, y up), rounded up to a whole number as the circle's are.
    A displacement lies in the bokeh of radius r where this is at most floor(r^2)."""
    dy, dx = np.asarray(dy), np.asarray(dx)
    if not blades:
        return dy * dy + dx * dx
    x, y = dx.astype(np.float64), -dy.astype(np.float64)
    g = np.hypot(x, y) / polygon_edge(np.arctan2(y, x), blades)
    return np.ceil(g * g - 1e-9).astype(np.int64)


def _box(max_d2: int) -> tuple[np.ndarray, np.ndarray]:
    """Every offset within ``sqrt(max_d2)`` on each axis (a polygon's gauge is never
    below the distance: its corners are on the circle)."""
    radius = int(np.floor(np.sqrt(max_d2)))
    ax = np.arange(-radius, radius + 1)
    dy, dx = np.meshgrid(ax, ax, indexing="ij")
    return dy.ravel(), dx.ravel()


@lru_cache(maxsize=32)
def disk_offsets(max_d2: int, blades: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The image displacements (dy, dx) of a source behind the focus plane whose
    :func:`aperture_d2` is at most ``max_d2``, sorted by it, and their ``aperture_d2``
    (float32): the pixels of a circle of confusion (a polygon with ``blades``). A source in
    front of the focus plane spreads over the same pixels turned over, ``-offsets``."""
    dy, dx = _box(max_d2)
    d2 = aperture_d2(dy, dx, blades)
    keep = d2 <= max_d2
    order = np.argsort(d2[keep], kind="stable")
    offsets = np.stack([dy[keep], dx[keep]], axis=1)[order]
    return offsets, d2[keep][order].astype(np.float32)


@lru_cache(maxsize=32)
def gather_offsets(max_d2: int, blades: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the gather visits: offsets ``d`` (output pixel p takes source q = p + d) and,
    per offset, the :func:`aperture_d2` that q's circle of confusion must reach to cover p,
    for q behind and for q in front of the focus plane (the same arrays for a round
    aperture and an even number of blades), sorted by the smaller of the two."""
    dy, dx = _box(max_d2)
    d2_far = aperture_d2(-dy, -dx, blades)  # q behind the focus: displaced by p - q = -d
    d2_near = aperture_d2(dy, dx, blades) if blades % 2 else d2_far  # turned over
    least = np.minimum(d2_far, d2_near)
    keep = least <= max_d2
    order = np.argsort(least[keep], kind="stable")
    offsets = np.stack([dy[keep], dx[keep]], axis=1)[order]
    far = d2_far[keep][order].astype(np.float32)
    return offsets, far, (d2_near[keep][order].astype(np.float32) if blades % 2 else far)


def scalar(value: Any, name: str | None = None) -> Any:
    """A 0-d array (NumPy's, a tensor, a GPU tensor's) or NumPy scalar as its number;
    anything else as it is (:mod:`hfrender.validate`'s too). ``name``: the argument, named
    in one line where its value cannot be read (a meta tensor; was torch's RuntimeError
    "Tensor.item() cannot be called on meta tensors"; without a name it is given back as
    it is, for its caller's line), is masked (:func:`hfrender.interop.unmasked`; was
    read through the mask) or is a tensor that requires grad
    (:func:`hfrender.interop.grad_free`; was read through ``.item()`` without a word)."""
    if name is not None:
        grad_free(value, name)
        unmasked(value, name)
    item = getattr(value, "item", None)
    if item is None or getattr(value, "ndim", None) != 0:
        return value
    try:
        return item()
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        if name is None:
            return value
        raise InputTypeError(f"{name}={shown(value)} cannot be read{unread(value, name)}"
                             ) from None


def _bad(value: object) -> type[InputError]:
    """The error for a bad ``value``: a :class:`InputTypeError` (a ``TypeError`` too) for
    what is not a number at all (``"2"``)."""
    return InputError if a_number(value) else InputTypeError  # (Decimal('1e400'): a number)


def _number(value: object) -> str:
    """A number to 10 digits (a focus pull's ``0.021875000000000033`` as ``0.021875``);
    what is not one, as its repr."""
    return f"{float(value):.10g}" if real_number(value) else number_said(value)  # (a Fraction too)


def check_focal_length(value: object) -> None:
    """A focal length the user gives the effects (``focal_length_mm=``) or ``hfrender fx``
    (``--focal-length-mm``, a job's key): past :data:`MAX_FOCAL_LENGTH_MM` one line naming
    it (else a Lens's own checks say what is wrong with it, in their order)."""
    if real_number(value) and not math.isnan(value) and value > MAX_FOCAL_LENGTH_MM:
        _positive("focal_length_mm", value, MAX_FOCAL_LENGTH_MM, " (a lens of a kilometre)")


def _positive(name: str, value: object, most: float = math.inf, what: str = "") -> None:
    """``value`` a finite number > 0 (at most ``most``, ``what`` that is, said where it is
    past it), else one line."""
    if not (real_number(value) and math.isfinite(value) and 0 < float(value) <= most):  # (as a
        # float: Decimal('1e-400') is > 0 and 0.0 as one, a ZeroDivisionError)
        bound = f", at most {most:.0f}{what}" if real_number(value) and float(value) > most else ""
        raise about(_bad(value), name, value, f" must be a finite number > 0{bound}",
                    head=f"{name}={number_said(value)}")
