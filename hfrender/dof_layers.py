"""Depth of field by layers: the plan and the FFT maths shared by every backend's fast method.

The exact gather (``hfrender/backends/cpu/dof.py``) lets every source pixel q spread
``1 / area`` over the whole pixels of its disk (the circle of confusion); an output pixel p
sorts the sources that reach it into *front* (nearer than p), *same* (p's surface) and
*behind* (seen only within p's own disk), and composites front over the rest. The disk of
q depends on q only through its *area* (the number of whole pixels, ``optics.disk_offsets``):
sources of one area on one side of the focus plane make one *class*, all at nearly one
depth.

The fast method turns classes into layers, nearest first, with a radius-independent cost:

* few classes (a scene of planes): one layer each, and each layer's scatter is its field
  (``[colour, 1] / area``) convolved with its disk by FFT: the exact gather's sums;
* many classes (slanted surfaces): neighbouring classes are merged into at most
  :data:`MAX_LAYERS` layers; a source between its layer's smallest and largest disk splits
  its light between those two disks, matching its own disk's mean squared radius.

Per output pixel p (of layer k): front = the scatters of the layers in front of k; back =
k's own scatter, the scatters of the layers behind k whose disks are not larger than p's,
and a *gather* with p's disk of the far layers whose disks are larger (the gather's
``min(r_q, r_p)`` rule). Sources in focus (area 1) are never blurred: their pixel is their
own light, bit for bit. The FFT's rounding never makes light where the exact gather has
none: a count of the sources reaching each pixel (an integer, convolved alongside) says
where a layer reaches.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.optics import disk_offsets

DOF_METHODS = ("fast", "exact")
MAX_LAYERS = 12  # blurred layers (both sides of the focus plane) at most: the cost
NEAR, FOCUS, FAR = -1, 0, 1
ROLE_NONE, ROLE_FRONT, ROLE_BACK = 0, 1, 2
SNAP_T = 1e-3  # a source this close to one of its layer's disks goes to that disk alone


def check_method(method: object) -> str:
    """``method`` if it is one of :data:`DOF_METHODS`, else one clear :class:`InputError`."""
    if not isinstance(method, str) or method not in DOF_METHODS:
        allowed = ", ".join(repr(m) for m in DOF_METHODS)
        raise InputError(f"dof method={method!r} is not one of {allowed}")
    return method


@lru_cache(maxsize=8)
def disk_tables(max_d2: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, area by floor(r^2), mean squared radius by area) for disks up to max_d2.

    ``area[n]`` counts the whole pixels with d^2 <= n (as the gather counts them);
    ``moment[a]`` is the mean d^2 over the first ``a`` offsets (a disk of area a).
    """
    offsets, d2s = disk_offsets(max_d2)
    area = np.searchsorted(d2s, np.arange(max_d2 + 1), side="right").astype(np.int32)
    moment = np.zeros(len(d2s) + 1)
    moment[1:] = np.cumsum(d2s, dtype=np.float64) / np.arange(1, len(d2s) + 1)
    return offsets, area, moment


@dataclass(frozen=True)
class Layer:
    """Sources of one side with areas in [lo, hi]: disks ``lo`` and ``hi`` (equal: one)."""

    side: int
    lo: int
    hi: int

    @property
    def radius2(self) -> float:
        """A representative squared radius (the geometric middle of its disks' areas)."""
        return float(np.sqrt(self.lo * self.hi))


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
    big: np.ndarray  # (K, K) bool: big[j, k] = layer j is gathered with k's disks

    def order(self) -> list[int]:
        """Layers by decreasing disk size (near before far at a tie): the far layers
        gathered by each layer are then exactly the far layers already visited."""
        return sorted(range(len(self.layers)),
                      key=lambda j: (-self.layers[j].radius2, self.layers[j].side))


def class_keys(xp: Any, area: Any, depth: Any, focus_distance: float) -> Any:
    """``side * area`` per pixel (int32): negative in front of the focus plane, 0 in focus."""
    side = xp.where(depth < focus_distance, NEAR, FAR).astype(xp.int32)
    return xp.where(area > 1, side * area, 0).astype(xp.int32)


def _groups(areas: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive populated areas of one side cut into at most ``budget`` groups of equal
    span in log radius (each area alone when they fit)."""
    if len(areas) <= budget:
        return [(int(a), int(a)) for a in areas]
    logr = 0.5 * np.log(areas.astype(np.float64))
    step = (logr[-1] - logr[0]) / budget
    cell = np.minimum(((logr - logr[0]) / step).astype(int), budget - 1)
    return [(int(areas[cell == g].min()), int(areas[cell == g].max()))
            for g in np.unique(cell)]


def _budgets(n_near: int, n_far: int, budget: int) -> tuple[int, int]:
    """Layers for each side: all its classes when they fit, else shares of ``budget`` by
    the number of classes (one at least for a side that has any)."""
    if n_near + n_far <= budget:
        return n_near, n_far
    near = min(n_near, max(int(n_near > 0), round(budget * n_near / (n_near + n_far))))
    near = min(near, budget - int(n_far > 0))
    return near, min(n_far, budget - near)


def make_plan(counts: np.ndarray, max_area: int, max_d2: int,
              budget: int = MAX_LAYERS) -> Plan:
    """The plan for a frame whose class keys have histogram ``counts`` (index key + max_area)."""
    keys = np.flatnonzero(counts) - max_area
    near = np.sort(-keys[keys < 0])[::-1]  # nearest (largest disk) first
    far = np.sort(keys[keys > 0])
    b_near, b_far = _budgets(len(near), len(far), budget)
    layers = [Layer(NEAR, lo, hi) for lo, hi in _groups(near[::-1], b_near)[::-1]]
    layers += [Layer(FAR, lo, hi) for lo, hi in _groups(far, b_far)]
    _, _, moment = disk_tables(max_d2)
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
    roles, big = _roles(layers)
    return Plan(layers, max_area, layer_of, t_of, roles, big)


def _roles(layers: list[Layer]) -> tuple[np.ndarray, np.ndarray]:
    """What layer j's scatter is to the pixels of layer k (column K: pixels in focus):
    front (j nearer), back (j itself, and the layers behind whose disks are no larger),
    or nothing (far layers with larger disks: gathered with k's disks instead)."""
    n = len(layers)
    roles = np.zeros((n, n + 1), np.int8)
    big = np.zeros((n, n), bool)
    for j, q in enumerate(layers):
        roles[j, n] = ROLE_FRONT if q.side == NEAR else ROLE_NONE
        for k, p in enumerate(layers):
            if j < k:
                roles[j, k] = ROLE_FRONT
            elif j > k and q.side == FAR and q.radius2 > p.radius2:
                big[j, k] = True
            else:
                roles[j, k] = ROLE_BACK
    return roles, big


def fft_shape(h: int, w: int, reach: int) -> tuple[int, int]:
    """A padded size (5-smooth, even width) at least ``reach`` beyond the image: no wrap."""
    return _smooth(h + reach), _smooth(w + reach, even=True)


def _smooth(n: int, even: bool = False) -> int:
    m = n
    while True:
        k = m
        for p in (2, 3, 5):
            while k % p == 0:
                k //= p
        if k == 1 and (m % 2 == 0 or not even):
            return m
        m += 1


def disk_spectrum(xp: Any, offsets: np.ndarray, area: int, shape: tuple[int, int]) -> Any:
    """The FFT of the disk of ``area`` whole pixels on a ``shape`` grid (wrapped around 0),
    scaled so that ``irfft2(rfft2(a, norm="forward") * spectrum) = a (*) disk``."""
    kernel = np.zeros(shape, np.float32)
    dy, dx = offsets[:area, 0], offsets[:area, 1]
    kernel[dy % shape[0], dx % shape[1]] = 1.0
    spec = np.fft.rfft2(kernel.astype(np.float64)) * float(shape[0] * shape[1])
    return xp.asarray(spec.astype(np.complex64))


def forward(xp: Any, fields: Any) -> Any:
    """rfft2 over the last two axes. NumPy's float32 FFTs run ~4x faster with a scale
    (norm="forward") than without one: the disk's spectrum carries the factor back."""
    return xp.fft.rfft2(fields, norm="forward")


def inverse(xp: Any, spectrum: Any, shape: tuple[int, int], h: int, w: int) -> Any:
    """The (h, w) corner of the inverse of ``spectrum`` on a ``shape`` grid (float32)."""
    return xp.ascontiguousarray(xp.fft.irfft2(spectrum, s=shape)[..., :h, :w], xp.float32)


def defocus_layers(ops: Any, xp: Any, r2: Any, depth: Any, focus_distance: float,
                   max_d2: int) -> Any:
    """The fast defocus of one frame, driven through ``ops`` (a backend's field building,
    accumulation and compositing; see ``hfrender/backends/cpu/dof_fast.py``)."""
    h, w = (int(s) for s in r2.shape)
    offsets, area_of_d2, _ = disk_tables(max_d2)
    area = xp.asarray(area_of_d2)[xp.minimum(xp.floor(r2).astype(xp.int32), max_d2)]
    max_area = int(area_of_d2[-1])
    keys = class_keys(xp, area, depth, focus_distance)
    counts = xp.bincount(keys.ravel() + max_area, minlength=2 * max_area + 1)
    plan = make_plan(_host(counts), max_area, max_d2)
    reach = max((_reach(offsets, layer.hi) for layer in plan.layers), default=0)
    shape = fft_shape(h, w, reach)
    ops.start(plan, keys)
    big = None  # the spectrum of the far layers visited so far (their lo and hi parts)
    for j in plan.order():
        layer = plan.layers[j]
        disks = [layer.lo] if layer.hi == layer.lo else [layer.lo, layer.hi]
        parts = [forward(xp, f) for f in ops.fields(j, shape, disks)]
        spectra = [ops.spectrum(offsets, a, shape) for a in disks]
        scatter = parts[0] * spectra[0]
        for part, spec in zip(parts[1:], spectra[1:], strict=True):
            scatter += part * spec
        ops.scatter(j, inverse(xp, scatter, shape, h, w))
        if big is not None and plan.big[:, j].any():
            ops.gather(j, [inverse(xp, big * spec, shape, h, w) for spec in spectra])
        if layer.side == FAR:
            for part in parts:
                big = part if big is None else big + part
    return ops.finish()


def _reach(offsets: np.ndarray, area: int) -> int:
    return int(np.abs(offsets[:area]).max())


def _host(a: Any) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)
