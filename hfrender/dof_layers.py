"""Depth of field by layers: the plan and the FFT maths shared by every backend's fast method
(the loop over a frame: :mod:`hfrender.dof_frame`).

The exact gather (``hfrender/backends/cpu/dof.py``) lets every source pixel q spread
``1 / area`` over the whole pixels of its disk (the circle of confusion); an output pixel p
sorts the sources that reach it into *front* (nearer than p), *same* (p's surface) and
*behind* (seen only within p's own disk), and composites front over the rest
(:mod:`hfrender.dof_composite`). The disk of q depends on q only through its *area* (the
number of whole pixels, ``optics.disk_offsets``): sources of one area on one side of the
focus plane make one *class*, all at nearly one depth.

The fast method turns classes into layers, nearest first, with a radius-independent cost:

* few classes (a scene of planes): one layer each, and each layer's scatter is its field
  (``[colour, 1] / area``) convolved with its disk by FFT (over the window that its
  pixels and their disks cover, band by band): the exact gather's sums;
* many classes (slanted surfaces): neighbouring classes are merged into at most
  :data:`MAX_LAYERS` layers; a source between its layer's smallest and largest disk splits
  its light between those two disks, matching its own disk's mean squared radius.

Per output pixel p (of layer k): front = the scatters of the layers in front of k; back =
k's own scatter, the scatters of the layers behind k whose disks are not larger than p's;
far = the scatters of the far layers whose disks are larger, summed apart: they fill what
p's disk sees past its surface (:func:`hfrender.dof_composite.composite`) at most as much
as they fill of p's disk (a gather with p's disk of their pixels, a weight alone), as the
exact gather takes such sources (approximate where an odd polygon's near and far disks, not
nested, meet); for a layer before the focus plane, also a gather with p's disk of the
sources in focus and of the layers behind it with smaller disks, each weighing ``1 /
area`` of the disk, summed apart (*hid*: what p sees behind it, whose mean fills what p's
disk sees past its surface's edge; the exact gather's rule for such sources behind a
defocused pixel). Sources in focus (area
1) are never blurred: their pixel is their own light, bit for bit. The FFT's rounding never
makes light where the exact gather has none: weights below :data:`NOISE_W` of a layer's
largest, and colour below :data:`NOISE` of its channel's largest, are its rounding (about
1e-7 of them), taken as zero; no share of a source is that small (:data:`SNAP_T`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from hfrender.dof_boxes import to_host
from hfrender.dof_cells import PEAK_WINDOW, groups, split
from hfrender.errors import InputError, InputTypeError, shown
from hfrender.optics import disk_offsets

DOF_METHODS = ("fast", "exact")
MAX_LAYERS = 16  # blurred layers (both sides of the focus plane) at most: the cost
NEAR, FOCUS, FAR = -1, 0, 1
ROLE_NONE, ROLE_FRONT, ROLE_BACK, ROLE_BEHIND = 0, 1, 2, 3  # behind: back, and apart too
ROLE_FAR = 4  # farther, larger disks: what p's disk sees past p's surface (its shortfall)
NOISE = 4e-6  # colour below this share of its channel's largest value in a layer is zero
NOISE_W = 2e-6  # weight below this share of the largest in a layer: the layer is not there
SNAP_T = 0.05  # a source this close to one of its layer's disks goes to that disk alone:
#                no share of a source weighs less than SNAP_T / area (~1e-5 at a 64 px blur)


def check_method(method: object, name: str = "dof_method") -> str:
    """``method`` if it is one of :data:`DOF_METHODS`, else one clear :class:`InputError`
    naming it as the caller's keyword ``name`` (depth_of_field's ``method``; was "dof
    method=", neither call's keyword)."""
    if not isinstance(method, str) or method not in DOF_METHODS:
        allowed = ", ".join(repr(m) for m in DOF_METHODS)
        kind = InputError if isinstance(method, str) else InputTypeError
        raise kind(f"{name}={shown(method)} is not one of {allowed}")
    return method


@lru_cache(maxsize=8)
def disk_tables(max_d2: int, blades: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, area by floor(r^2), mean squared radius by area) for disks up to max_d2
    (polygons of ``blades``: ``optics.aperture_d2`` for d^2).

    ``area[n]`` counts the whole pixels with d^2 <= n (as the gather counts them);
    ``moment[a]`` is the mean d^2 over the first ``a`` offsets (a disk of area a).
    """
    offsets, d2s = disk_offsets(max_d2, blades)
    area = np.searchsorted(d2s, np.arange(max_d2 + 1), side="right").astype(np.int32)
    moment = np.zeros(len(d2s) + 1)
    moment[1:] = np.cumsum(d2s, dtype=np.float64) / np.arange(1, len(d2s) + 1)
    return offsets, area, moment


@dataclass(frozen=True)
class Layer:
    """Sources of one side with areas in [lo, hi]: disks ``lo`` and ``hi`` (equal: one
    disk) scatter its light; disk ``mid`` gathers for its pixels where one disk does."""

    side: int
    lo: int
    hi: int
    mid: int = 0  # the disk that gathers for the layer's pixels (between lo and hi)

    @property
    def radius2(self) -> float:
        """A representative squared radius (the geometric middle of its disks' areas)."""
        return math.sqrt(self.lo * self.hi)


@dataclass
class Plan:
    """The layers of one frame, nearest first, and per-class lookup tables.

    A class key is ``side * area`` (0 for sources in focus); tables are indexed by
    ``key + max_area``.
    """

    layers: list[Layer]
    max_area: int
    layer_of_key: np.ndarray  # int32; -1: in focus (never blurred)
    t_of_key: np.ndarray  # float32, the share of a source's light on its layer's hi disk
    roles: np.ndarray  # (K, K + 1) int8: what layer j's scatter is to layer k's pixels
    big: np.ndarray  # (K, K) bool: big[j, k] = layer j is far light to k (ROLE_FAR)
    seen: np.ndarray  # (K, K + 1) float32: 1 where layer k sees j's pixels behind it
    #                   (column K: the pixels in focus), each 1 / the area of k's disk
    focus: bool = False  # some pixels are in focus

    @cached_property
    def far_of(self) -> np.ndarray:
        """(K, K + 1) float32: row k, 1 for the layers that are far light of larger disks
        to layer k's pixels (:attr:`big`; last column: the pixels in focus, never)."""
        k = len(self.layers)
        table = np.zeros((k, k + 1), np.float32)
        table[:, :k] = self.big.T
        return table

    def sees(self, k: int) -> bool:
        """Whether layer k sees the pixels of any other (and there are some)."""
        return bool(self.seen[k, : len(self.layers)].any() or (self.seen[k, -1] and self.focus))

    def order(self) -> list[int]:
        """Layers by decreasing disk size (near before far at a tie)."""
        return sorted(range(len(self.layers)),
                      key=lambda j: (-self.layers[j].radius2, self.layers[j].side))


def class_keys(xp: Any, area: Any, depth: Any, focus_distance: float) -> Any:
    """``side * area`` per pixel (int32): negative in front of the focus plane, 0 in focus."""
    keys = xp.where(depth < focus_distance, xp.int32(NEAR), xp.int32(FAR))
    keys *= area > 1  # in place: a frame's temporaries cost page faults
    keys *= area
    return keys


def _peak_window(area_of_d2: np.ndarray, max_d2: int, blades: int) -> int:
    """:data:`PEAK_WINDOW`, times how many more disk sizes a polygon has (~1.6x: a circle's
    d^2 are sums of two squares): a slanted floor's rows must not look like planes."""
    if not blades:  # the round disks' own
        return PEAK_WINDOW
    ratio = len(np.unique(area_of_d2)) / len(np.unique(disk_tables(max_d2)[1]))
    return max(PEAK_WINDOW, round(PEAK_WINDOW * ratio))


def make_plan(counts: np.ndarray, max_area: int, max_d2: int,
              budget: int = MAX_LAYERS, blades: int = 0) -> Plan:
    """The plan for a frame whose class keys have histogram ``counts`` (index key + max_area)."""
    near = np.flatnonzero(counts[:max_area][::-1]) + 1  # areas in front of the focus plane
    far = np.flatnonzero(counts[max_area + 1:]) + 1
    sides = [(near, counts[max_area - near]), (far, counts[max_area + far])]
    _, area_of_d2, moment = disk_tables(max_d2, blades)
    width = np.bincount(area_of_d2, minlength=max_area + 1).clip(1)  # r^2 span per area
    starts = split(sides, budget, width, _peak_window(area_of_d2, max_d2, blades))
    disks = np.unique(area_of_d2)
    layers = [Layer(NEAR, lo, hi, _middle(disks, moment, lo, hi))
              for lo, hi in groups(near, starts[0])[::-1]]  # nearest first
    layers += [Layer(FAR, lo, hi, _middle(disks, moment, lo, hi))
               for lo, hi in groups(far, starts[1])]
    size = 2 * max_area + 1
    layer_of = np.full(size, -1, np.int32)
    t_of = np.zeros(size, np.float32)
    for j, layer in enumerate(layers):
        a = np.arange(layer.lo, layer.hi + 1)
        layer_of[layer.side * a + max_area] = j
        if layer.hi > layer.lo:
            t = (moment[a] - moment[layer.lo]) / (moment[layer.hi] - moment[layer.lo])
            t = np.where(t < SNAP_T, 0.0, np.where(t > 1 - SNAP_T, 1.0, t))
            t_of[layer.side * a + max_area] = t
    roles, big, seen = _roles(layers)
    return Plan(layers, max_area, layer_of, t_of, roles, big, seen, bool(counts[max_area]))


def _middle(disks: np.ndarray, moment: np.ndarray, lo: int, hi: int) -> int:
    """The disk (of ``disks``, every disk's area, ascending) between ``lo`` and ``hi`` whose
    mean squared radius is nearest their mean."""
    disks = disks[np.searchsorted(disks, lo):np.searchsorted(disks, hi, side="right")]
    return int(disks[np.argmin(np.abs(moment[disks] - 0.5 * (moment[lo] + moment[hi])))])


def _roles(layers: list[Layer]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What layer j's scatter is to the pixels of layer k (column K: pixels in focus):
    front (j nearer), back (j itself), behind (the layers behind whose disks are as large:
    back, and summed apart for :func:`hfrender.dof_composite.composite`), far (far layers
    with larger disks: summed apart, the light that fills what k's pixels' disks see past
    their surface); and, for a layer k before the focus plane, the layers behind it with
    smaller disks and the pixels in focus are what k's pixels see behind them (``seen``:
    gathered with k's disk, each 1 / its area)."""
    n = len(layers)
    side = np.array([q.side for q in layers])
    size = np.array([q.radius2 for q in layers])
    j, k = np.arange(n)[:, None], np.arange(n)[None, :]
    big = (j > k) & (side[:, None] == FAR) & (size[:, None] > size[None, :])
    seen = np.zeros((n, n + 1), np.float32)
    behind = (j > k) & (side[None, :] == NEAR) & (size[:, None] < size[None, :])
    seen[:, :n] = behind.T
    seen[:, n] = side == NEAR
    roles = np.empty((n, n + 1), np.int8)
    roles[:, :n] = np.where(j < k, ROLE_FRONT, np.where(
        big, ROLE_FAR, np.where(j == k, ROLE_BACK, ROLE_BEHIND)))
    roles[:, n] = np.where(side == NEAR, ROLE_FRONT, ROLE_NONE)
    return roles, big, seen


def disk_spectrum(xp: Any, offsets: np.ndarray, area: int, shape: tuple[int, int],
                  side: int = FAR) -> Any:
    """The FFT of the disk of ``area`` whole pixels on a ``shape`` grid (wrapped around 0),
    scaled so that ``irfft2(rfft2(a, norm="forward") * spectrum) = a (*) disk``. ``offsets``
    are a source's displacements behind the focus plane; in front of it (``side`` NEAR)
    they are turned over (the same disk for a round or an even-bladed aperture)."""
    kernel = np.zeros(shape, np.float32)
    dy, dx = offsets[:area, 0], offsets[:area, 1]
    if side == NEAR:
        dy, dx = -dy, -dx
    kernel[dy % shape[0], dx % shape[1]] = 1.0
    size = float(shape[0] * shape[1])
    spec = np.fft.rfft2(kernel, norm="forward") * np.float32(size * size)
    return xp.asarray(spec.astype(np.complex64))


def pixel_classes(xp: Any, r2: Any, depth: Any, focus_distance: Any, max_d2: int,
                  blades: int = 0) -> tuple[Any, int]:
    """Each pixel's class key (:func:`class_keys`, from its squared radius ``r2``), and the
    largest area (the histograms' offset)."""
    _, area_of_d2, _ = disk_tables(max_d2, blades)
    area = xp.asarray(area_of_d2)[xp.minimum(xp.floor(r2).astype(xp.int32), max_d2)]
    return class_keys(xp, area, depth, focus_distance), int(area_of_d2[-1])


def classes(xp: Any, r2: Any, depth: Any, focus_distance: float, max_d2: int,
            blades: int = 0) -> tuple[Any, Any]:
    """Each pixel's class key (:func:`pixel_classes`) and the keys' histogram (index key +
    the largest area): what a frame's plan is made from."""
    keys, max_area = pixel_classes(xp, r2, depth, focus_distance, max_d2, blades)
    return keys, xp.bincount(keys.ravel() + max_area, minlength=2 * max_area + 1)


def frame_plan(xp: Any, r2: Any, depth: Any, focus_distance: float, max_d2: int,
               blades: int = 0, count: Callable[..., tuple[Any, Any]] | None = None
               ) -> tuple[Plan, Any]:
    """The plan of one frame (squared radii ``r2``) and its pixels' class keys (what its
    cost grows with: ``len(plan.layers)``); ``count``: a backend's own :func:`classes`
    (``ops.classes``: the same keys and histogram), else the shared one."""
    keys, counts = (count(r2, depth, focus_distance, max_d2, blades) if count is not None
                    else classes(xp, r2, depth, focus_distance, max_d2, blades))
    max_area = int(disk_tables(max_d2, blades)[1][-1])
    return make_plan(to_host(counts), max_area, max_d2, blades=blades), keys
