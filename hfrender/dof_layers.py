"""Depth of field by layers: the plan and the FFT maths shared by every backend's fast method.

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
nested, meet); for a layer before the focus plane, also a gather with p's disk of the sources in
focus and, by their share (:func:`hfrender.dof_composite.seen_share`), of the layers behind
it with much smaller disks (that share of their scatter left out), each weighing ``1 /
area`` of the disk (what p sees past its surface's edge: the exact gather's rule for such
sources behind a defocused pixel). Sources in focus (area
1) are never blurred: their pixel is their own light, bit for bit. The FFT's rounding never
makes light where the exact gather has none: weights below :data:`NOISE_W` of a layer's
largest, and colour below :data:`NOISE` of its channel's largest, are its rounding (about
1e-7 of them), taken as zero; no share of a source is that small (:data:`SNAP_T`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from hfrender.dof_boxes import layer_boxes, to_host
from hfrender.dof_cells import PEAK_WINDOW, groups, split
from hfrender.dof_composite import seen_share
from hfrender.dof_fft import Window, window
from hfrender.errors import InputError
from hfrender.optics import disk_offsets

DOF_METHODS = ("fast", "exact")
MAX_LAYERS = 16  # blurred layers (both sides of the focus plane) at most: the cost
NEAR, FOCUS, FAR = -1, 0, 1
ROLE_NONE, ROLE_FRONT, ROLE_BACK, ROLE_BEHIND = 0, 1, 2, 3  # behind: back, and apart too
ROLE_FAR = 4  # farther, larger disks: what p's disk sees past p's surface (its shortfall)
NOISE = 4e-6  # colour below this share of its channel's largest value in a layer is zero
NOISE_W = 2e-6  # weight below this share of the largest in a layer: the layer is not there
LOOKAHEAD = 4  # FFT jobs (a window's scatter, and its gather) that may run ahead of the
#                adding of their sums: two to four windows
GATHER_BOTH = 64  # layers of smaller disks gather with both (each pixel by its share);
#                   larger ones with the disk between them
SNAP_T = 0.05  # a source this close to one of its layer's disks goes to that disk alone:
#                no share of a source weighs less than SNAP_T / area (~1e-5 at a 64 px blur)


def check_method(method: object) -> str:
    """``method`` if it is one of :data:`DOF_METHODS`, else one clear :class:`InputError`."""
    if not isinstance(method, str) or method not in DOF_METHODS:
        allowed = ", ".join(repr(m) for m in DOF_METHODS)
        raise InputError(f"dof method={method!r} is not one of {allowed}")
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
    seen: np.ndarray  # (K, K + 1) float32: how much layer k sees of j's pixels past its
    #                   edges (column K: the pixels in focus), each 1 / the area of k's disk
    focus: bool = False  # some pixels are in focus

    @cached_property
    def spread(self) -> np.ndarray:
        """(K, K + 1) float32: how much of layer j's scatter reaches layer k's pixels (the
        rest of it they see past their edges, :attr:`seen`; column K: the pixels in focus)."""
        spread = np.ones(self.roles.shape, np.float32)
        spread[:, : len(self.layers)] -= self.seen[:, : len(self.layers)].T
        return spread

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
    their surface), or nothing: for a layer k before the focus plane, the layers behind it
    with smaller disks (``seen``: k's pixels see theirs past their edges, each 1 / the area
    of k's disk, as they see the pixels in focus)."""
    n = len(layers)
    side = np.array([q.side for q in layers])
    size = np.array([q.radius2 for q in layers])
    j, k = np.arange(n)[:, None], np.arange(n)[None, :]
    big = (j > k) & (side[:, None] == FAR) & (size[:, None] > size[None, :])
    seen = np.zeros((n, n + 1), np.float32)
    behind = (j > k) & (side[None, :] == NEAR) & (size[:, None] < size[None, :])
    seen[:, :n] = (seen_share(np, size[:, None], size[None, :]) * behind).T
    seen[:, n] = side == NEAR
    roles = np.empty((n, n + 1), np.int8)
    roles[:, :n] = np.where(j < k, ROLE_FRONT, np.where(
        big, ROLE_FAR, np.where(seen[:, :n].T == 1, ROLE_NONE,
                                np.where(j == k, ROLE_BACK, ROLE_BEHIND))))
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


def defocus_layers(ops: Any, xp: Any, r2: Any, depth: Any, focus_distance: float,
                   max_d2: int, blades: int = 0) -> Any:
    """The fast defocus of one frame, driven through ``ops`` (a backend's classes, field
    building, accumulation and compositing; see ``hfrender/backends/cpu/dof_fast.py``).
    Each layer's FFTs cover its own window: a band of a slanted floor costs a band."""
    h, w = (int(s) for s in r2.shape)
    plan, keys = frame_plan(xp, r2, depth, focus_distance, max_d2, blades, ops.classes)
    ops.start(plan, keys)
    spans = ops.spans(len(plan.layers))  # where each layer's pixels are (dof_boxes.Spans)
    return blur_layers(ops, plan, disk_tables(max_d2, blades)[0], (h, w), xp.add,
                       lambda j, reach: layer_boxes(spans, j, reach))


def classes(xp: Any, r2: Any, depth: Any, focus_distance: float, max_d2: int,
            blades: int = 0) -> tuple[Any, Any]:
    """Each pixel's class key (:func:`class_keys`, from its squared radius ``r2``) and the
    keys' histogram (index key + the largest area): what a frame's plan is made from."""
    _, area_of_d2, _ = disk_tables(max_d2, blades)
    area = xp.asarray(area_of_d2)[xp.minimum(xp.floor(r2).astype(xp.int32), max_d2)]
    max_area = int(area_of_d2[-1])
    keys = class_keys(xp, area, depth, focus_distance)
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


def blur_layers(ops: Any, plan: Plan, offsets: np.ndarray, size: tuple[int, int], add: Any,
                boxes: Any) -> Any:
    """Every layer blurred by its disk over each of its ``boxes(j, reach)`` (FFTs per box),
    scattered, gathered where a pixel sees past its edge, composited: the loop that
    :func:`defocus_layers` and the window path (``backends/cpu/dof_window.py``) share.
    Once every layer has scattered, the pixels whose shortfall the far light may fill
    (``ops.open_spans``) gather how much of their disks it fills (:func:`_gathers`).

    A window's FFTs alone go to ``ops.later`` (the CPU's run on a thread of their own, up
    to :data:`LOOKAHEAD` jobs ahead: a few long calls that leave the interpreter to this
    thread) while the next windows' fields are made here; their light is cleaned
    (``ops.ready``) and added here in the loop's own order, so the picture is the one a
    single thread makes, bit for bit."""
    h, w = size
    pending: deque[Callable[[], None]] = deque()

    def queue(jobs: list[Callable[[], None]]) -> None:
        pending.extend(jobs)
        while len(pending) > LOOKAHEAD:
            pending.popleft()()

    for j in plan.order():
        layer = plan.layers[j]
        disks = [layer.lo] if layer.hi == layer.lo else [layer.lo, layer.hi]
        reach = _reach(offsets, layer.hi)
        for box in boxes(j, reach):
            win = window(box, reach, h, w)
            fields = ops.fields(j, win, disks)
            spread = ops.later(_spread, ops, fields, disks, win, layer.side, add)
            queue([lambda j=j, win=win, spread=spread:
                   ops.scatter(j, ops.ready(spread()), win)]
                  + _gathers(ops, plan, j, box, offsets, h, w))
    while pending:
        pending.popleft()()
    wanted = ops.open_spans(len(plan.layers)) if plan.big.any() else None
    for j in plan.order() if wanted is not None else ():
        if plan.big[:, j].any():  # far light of larger disks to its pixels
            reach = _reach(offsets, max(_gather_disks(plan.layers[j])))
            for box in layer_boxes(wanted, j, reach):
                queue(_gathers(ops, plan, j, box, offsets, h, w, opened=True))
    while pending:
        pending.popleft()()
    return ops.finish()


def _spread(ops: Any, fields: list[Any], disks: list[int], win: Window, side: int,
            add: Any) -> Any:
    """A window's light spread by its disks (for ``ops.ready``): the FFTs of its fields,
    times the disks' spectra, summed, transformed back."""
    scatter = None
    for f, area in zip(fields, disks, strict=True):
        part = ops.forward(f, win.inner)
        part *= ops.spectrum(area, win.shape, side)
        scatter = part if scatter is None else add(scatter, part, out=scatter)
    return ops.inverse(scatter, win)


def _gather_disks(layer: Layer) -> list[int]:
    """The disks a layer's pixels gather with: both of the layer's (by each pixel's share),
    one between them for large disks."""
    disks = [layer.lo] if layer.hi == layer.lo else [layer.lo, layer.hi]
    return disks if layer.lo < GATHER_BOTH else [layer.mid]


def _gathers(ops: Any, plan: Plan, j: int, box: tuple[int, int, int, int],
             offsets: np.ndarray, h: int, w: int, opened: bool = False
             ) -> list[Callable[[], None]]:
    """What layer j's pixels in ``box`` gather with their own disks
    (:func:`_gather_disks`), and what adds it to the sums later: what they see past their
    edges (``Plan.seen``: pixels in focus, or behind with much smaller disks;
    ``ops.seen_window``, weight its share), each weighing 1 / the disk's area, as the exact
    gather counts them behind a defocused pixel before the focus plane (where its own light
    falls short); or (``opened``) how much of their disks the far layers of larger disks
    fill (``Plan.big``; ``ops.open_window``, a weight alone): their scatter (``ROLE_FAR``)
    fills what a pixel's disk sees past its surface at most that much. Over the part of the
    box within reach of those pixels (``ops.seen_box``, ``ops.open_box``: a floor band
    crossed by a post in focus transforms a post's width, not the frame's)."""
    layer = plan.layers[j]
    disks = _gather_disks(layer)
    reach = _reach(offsets, max(disks))
    win = window(box, reach, h, w)
    if opened:
        around, source_of, add = ops.open_box(win, j), ops.open_window, ops.gather_open
    else:
        around = ops.seen_box(win, j) if plan.sees(j) else None
        source_of, add = ops.seen_window, ops.gather
    part = None if around is None else _near(box, around, reach)
    if part is None:
        return []
    part_win = win if part == box else window(part, reach, h, w)
    rows = max(0, around[0] - part_win.y0), min(part_win.y1, around[1]) - part_win.y0
    return [_gather(ops, j, part_win, (source_of(part_win, j), rows), disks, layer.side, add,
                    now=opened)]


def _gather(ops: Any, j: int, win: Window, source: tuple[Any, tuple[int, int]],
            disks: list[int], side: int, add: Callable[..., None], now: bool = False
            ) -> Callable[[], None]:
    """Start :func:`_gathered` of ``source`` over ``win`` (``ops.later``; ``now``: here,
    once every layer has scattered and there is nothing to overlap it with: 1.5 ms of a
    64 px call's 5.5 in handing over to the FFT thread): what adds its light to layer j's
    pixels' sums (``add``: ``ops.gather`` or ``ops.gather_open``)."""
    if now:
        light = _gathered(ops, source, disks, win, side)
        spread: Callable[[], Any] = lambda: light  # noqa: E731
    else:
        spread = ops.later(_gathered, ops, source, disks, win, side)

    def settle() -> None:
        for d, light in enumerate(spread()):
            add(j, ops.ready(light, win.inner), win, d, len(disks))

    return settle


def _gathered(ops: Any, source: tuple[Any, tuple[int, int]], disks: list[int], win: Window,
              side: int) -> list[Any]:
    """The ``source``'s light ((C + 1, *win.shape) or a weight alone (1, *win.shape), zero
    outside its rows) summed over each of ``disks`` around every pixel of the window, over
    the disk's area."""
    spectrum = ops.forward(*source)
    out = []
    for area in disks:
        product = spectrum * np.float32(1.0 / area)  # a new array: the inverse uses it up
        product *= ops.spectrum(area, win.shape, side)
        out.append(ops.inverse(product, win))
    return out


def _near(box: tuple[int, int, int, int], around: tuple[int, int, int, int],
          reach: int) -> tuple[int, int, int, int] | None:
    """The part of ``box`` (y0, y1, x0, x1) within ``reach`` of the box ``around`` (``None``:
    none of it)."""
    y0, y1 = max(box[0], around[0] - reach), min(box[1], around[1] + reach)
    x0, x1 = max(box[2], around[2] - reach), min(box[3], around[3] + reach)
    return (y0, y1, x0, x1) if y0 < y1 and x0 < x1 else None


def _reach(offsets: np.ndarray, area: int) -> int:
    return int(np.abs(offsets[:area]).max())

