"""Thin-lens optics: the circle of confusion of a physical camera lens.

All distances given to these functions are in metres; the lens and the sensor are in
millimetres, as camera makers (and Blender) quote them.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from hfrender.errors import InputError

FRONT_TOLERANCE = 0.01  # relative depth difference that separates two surfaces (depth DoF)


@dataclass(frozen=True)
class Lens:
    """A thin lens focused at ``focus_distance`` metres.

    Defaults follow Blender's camera: a 50 mm lens on a 36 mm wide sensor.

    Parameters
    ----------
    focus_distance : float
        Distance of the plane in focus, in metres; must exceed the focal length.
    f_stop : float
        The f-number N (aperture diameter = focal length / N); must be > 0.
    focal_length_mm, sensor_width_mm : float
        Focal length and sensor width in millimetres.
    max_coc_px : float or None
        Largest circle of confusion (diameter, pixels) the gather will use. ``None``
        uses what the optics give, bounded by the image diagonal.
    """

    focus_distance: float
    f_stop: float
    focal_length_mm: float = 50.0
    sensor_width_mm: float = 36.0
    max_coc_px: float | None = None

    def __post_init__(self) -> None:
        _positive("f_stop", self.f_stop)
        _positive("focal_length_mm", self.focal_length_mm)
        _positive("sensor_width_mm", self.sensor_width_mm)
        f_m = self.focal_length_mm / 1000.0
        fd = self.focus_distance
        if not (_real(fd) and math.isfinite(fd) and fd > f_m):
            raise InputError(
                f"focus_distance={fd!r} must be a finite distance in metres greater than the "
                f"focal length ({f_m:g} m for focal_length_mm={self.focal_length_mm:g})"
            )
        if self.max_coc_px is not None:
            _positive("max_coc_px", self.max_coc_px)

    @property
    def aperture_mm(self) -> float:
        """Diameter of the entrance pupil in millimetres (f / N)."""
        return self.focal_length_mm / self.f_stop

    def coc_mm(self, distance: np.ndarray | float) -> np.ndarray:
        """Circle-of-confusion diameter on the sensor (mm) of points at ``distance`` metres.

        ``c = (f/N) * |S2 - S1| / S2 * f / (S1 - f)``; ``inf`` (sky) gives the limit
        ``(f/N) * f / (S1 - f)``.
        """
        s2 = np.asarray(distance)  # taken as float64 by each operation
        s1 = self.focus_distance
        f_m = self.focal_length_mm / 1000.0
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


@lru_cache(maxsize=32)
def disk_offsets(max_d2: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer offsets (dy, dx) with dy^2 + dx^2 <= max_d2, sorted by distance, and their
    squared distances (float32): the pixels of a circle of confusion."""
    radius = int(np.floor(np.sqrt(max_d2)))
    ax = np.arange(-radius, radius + 1)
    dy, dx = np.meshgrid(ax, ax, indexing="ij")
    d2 = (dy * dy + dx * dx).ravel()
    keep = d2 <= max_d2
    order = np.argsort(d2[keep], kind="stable")
    offsets = np.stack([dy.ravel()[keep], dx.ravel()[keep]], axis=1)[order]
    return offsets, d2[keep][order].astype(np.float32)


def _real(value: object) -> bool:
    """A real number (Python or NumPy scalar), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _positive(name: str, value: object) -> None:
    if not (_real(value) and math.isfinite(value) and value > 0):
        raise InputError(f"{name}={value!r} must be a finite number > 0")
