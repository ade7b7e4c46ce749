"""Highlights splatted with their own disks inside the fast depth of field's layers.

A layer of several classes spreads each source between its smallest and its largest disk
(:mod:`hfrender.dof_layers`): over a slanted surface's texture the two disks average out,
but a highlight far brighter than its surroundings shows both, a core of the smaller disk
and a faint ring out to the larger (a point on a wall receding from 1 to 10 m: 109 px lit
against its own disk's 89; 15 points of 100x white there 26 dB from the exact gather, a
DoF audit, ``benchmarks/dof_stress.py``). So the sources between two disks whose colour
passes the frame's usual light (:func:`hfrender.dof_highlights.usual`: 10x its median, at
least white) are taken out of their layer's fields and added to its scatter with their own
disk, ``[colour, 1] / area`` over each of its pixels: what the exact gather spreads of
them, composited by the layers' roles as the rest of the layer. Their disks' pixels
together at most :data:`SPLAT_BUDGET` times the frame's (the brightest first). Frames whose
light stays within white (8-bit ones), and plans whose layers are a class each, have none:
their pictures are bit for bit what they were, and no pass over the frame looks for them.

Every backend calls the same functions (NumPy or CuPy as ``xp``), over frames (F, H, W)
that share one plan (the CPU's: one frame).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from hfrender.dof_layers import FAR, NEAR, disk_tables
from hfrender.kept import Kept

SPLAT_BUDGET = 1.0  # the splats' disks' pixels, at most this many times the frame's
NO_LAYER = -2  # a splat's layer for the fields: none (as dof_slots.STILL, a moving pixel's)
PART_PIXELS = 1 << 20  # the disks' pixels added by pixel at once, at most
STAMP_BYTES = 16 << 20  # the disks' stamps kept across frames, at most, a thread
_kept = threading.local()  # each thread's stamps (_stamp)
STAMPS = 256  # the CPU adds a window's splats one by one up to this many (more: all at
#               once, by pixel: 200 disks of 3,000 px, 1080p at 64 px, 40 ms against 7)


@dataclass(frozen=True)
class Splats:
    """Sources spread with their own disks: flat indices into the (F, H, W) frames, their
    colour (C, m) on the frames' side of ``xp``; their layer, image row and disk's area on
    the host (each window picks its own there: on a GPU, without waiting on it)."""

    at: Any
    colour: Any
    layer: np.ndarray
    row: np.ndarray
    area: np.ndarray

    def of(self, j: int, first: int, last: int) -> np.ndarray:
        """Which of them are layer j's, in image rows ``first:last`` (a box's)."""
        return np.flatnonzero((self.layer == j) & (self.row >= first) & (self.row < last))


def any_split(plan: Any) -> bool:
    """Whether the plan spreads any class between two disks (a small blur's layers are a
    class each: nothing to choose from, no pass over the frame)."""
    t = plan.t_of_key
    return bool(((t > 0) & (t < 1)).any())


def hot(xp: Any, planes: Any, level: Any) -> Any:
    """Flat indices into the (F, H, W) frames of the sources whose largest colour
    (``planes``: (C, F, H, W) or (C, H, W), the first three compared) passes their frame's
    ``level`` (a number, or (F, 1, 1)): :func:`choose`'s pass over the frames (the CPU's
    runs beside the frame's other first steps)."""
    colour = [planes[c] for c in range(min(3, int(planes.shape[0])))]
    level = xp.asarray(level, np.float32)
    over = colour[0] > level
    for plane in colour[1:]:  # (a plane at a time: the frame's largest only where hot)
        over |= plane > level
    return xp.flatnonzero(over)


def choose(xp: Any, planes: Any, keys: Any, t: Any, level: Any, budget: int,
           candidates: Any = None) -> Any:
    """Flat indices into the (F, H, W) frames of the sources to splat: between two disks
    (0 < ``t`` < 1), their largest colour (``planes``: (C, F, H, W) or (C, H, W), the first
    three compared) past their frame's ``level`` (a number, or (F, 1, 1)), each frame's
    brightest first while their disks' pixels (``|keys|``: each source's area) stay within
    ``budget``; ``None`` where there are none. ``candidates``: :func:`hot`'s, already."""
    colour = [planes[c] for c in range(min(3, int(planes.shape[0])))]
    at = hot(xp, planes, level) if candidates is None else candidates
    t = t.reshape(-1)[at]
    at = at[(t > 0) & (t < 1)]
    if not int(at.size):
        return None
    where = xp.unravel_index(at, colour[0].shape)  # (planes may be strided views)
    bright = colour[0][where]
    for plane in colour[1:]:
        bright = xp.maximum(bright, plane[where])
    at = at[xp.argsort(-bright, kind="stable")]
    frame = at // int(keys.shape[-1] * keys.shape[-2])
    order = xp.argsort(frame, kind="stable")  # by frame, each frame's brightest first
    at, frame = at[order], frame[order]
    areas = xp.abs(keys.reshape(-1)[at]).astype(np.int64)
    total = xp.cumsum(areas)
    first = xp.searchsorted(frame, frame, side="left")  # each frame's first source
    at = at[total - (total - areas)[first] <= budget]
    return at if int(at.size) else None


def splats(xp: Any, at: Any, keys: Any, layer: Any, colour: Any) -> Splats:
    """The :class:`Splats` of the sources ``at`` (flat indices), ``colour`` (C, m) theirs."""
    h, w = (int(n) for n in keys.shape[-2:])
    host = _host(at)
    return Splats(at, colour, _host(layer.reshape(-1)[at]), (host % (h * w)) // w,
                  np.abs(_host(keys.reshape(-1)[at])).astype(np.int64))


def add(xp: Any, planes: Any, s: Splats, pick: np.ndarray, disk: tuple[int, int], side: int,
        win: Any, frame_pixels: int, w: int, stamps: int = 0) -> float:
    """Add the sources ``pick`` (host indices) of ``s`` with their own disks to ``planes``
    ((F, C + 1, h, w) on the window ``win``'s corner: a layer's scatter) in place: ``colour
    / area`` and ``1 / area`` over the pixels of the disk (of the tables of ``disk``, the
    ``(max_d2, blades)`` of :func:`hfrender.dof_layers.disk_tables`) inside the image
    (turned over before the focus plane, as :func:`hfrender.dof_layers.disk_spectrum` turns
    them). Returns their largest weight: the layer's weight bound (its rounding:
    :data:`NOISE_W` of it) is at least that (a window of nothing but splats has no rounding
    to bound). Up to ``stamps`` sources (the CPU's :data:`STAMPS`; a GPU's kernels take
    them all at once) are added one by one, each disk a dense stamp over its square
    (indexing every pixel of 15 disks took 4 ms of a 640x360 frame's 45 at 64 px); more, by
    pixel, in parts of at most :data:`PART_PIXELS` (their index arrays: 200 MB at 1080p
    whole, a review)."""
    if len(pick) <= stamps:
        return _stamped(xp, planes, s, pick, disk, side, win, frame_pixels, w)
    offsets = disk_tables(*disk)[0]
    ends = np.cumsum(s.area[pick])
    start = 0
    while start < len(pick):
        stop = max(start + 1, int(np.searchsorted(ends, ends[start] - s.area[pick[start]]
                                                  + PART_PIXELS, side="right")))
        _by_pixel(xp, planes, s, pick[start:stop], offsets, side, win, frame_pixels, w)
        start = stop
    return float(np.float32(1.0 / float(s.area[pick].min())))


def _by_pixel(xp: Any, planes: Any, s: Splats, pick: np.ndarray, offsets: np.ndarray,
              side: int, win: Any, frame_pixels: int, w: int) -> None:
    """:func:`add` of ``pick``, every pixel of their disks at once: summed over the pixels
    they reach (a bincount over them, not over the window)."""
    areas_host = s.area[pick]
    areas, where = xp.asarray(areas_host), xp.asarray(pick)
    ends = xp.cumsum(areas)
    n = xp.arange(int(areas_host.sum()))
    owner = xp.searchsorted(ends, n, side="right")  # whose disk each pixel is (no repeat:
    k = n - (ends - areas)[owner]  # CuPy's takes no array)  # its place in that disk
    table = xp.asarray(offsets[: int(areas_host.max())])
    dy, dx = table[k, 0], table[k, 1]
    if side == NEAR:
        dy, dx = -dy, -dx
    at = s.at[where][owner]
    f, rest = at // frame_pixels, at % frame_pixels
    y, x = rest // w + dy - win.y0, rest % w + dx - win.x0
    c1, h, ww = planes.shape[1:]
    keep = (y >= 0) & (y < h) & (x >= 0) & (x < ww)
    pixels, index = xp.unique(((f * h + y) * ww + x)[keep], return_inverse=True)
    pf, rest = pixels // (h * ww), pixels % (h * ww)
    py, px = rest // ww, rest % ww
    share = (1.0 / areas.astype(np.float64)).astype(np.float32)
    for c in range(c1):
        value = share if c == c1 - 1 else s.colour[c, where] * share
        sums = xp.bincount(index.reshape(-1), weights=value[owner][keep],
                           minlength=int(pixels.size))
        planes[pf, c, py, px] += sums.astype(np.float32)


def _stamped(xp: Any, planes: Any, s: Splats, pick: Any, disk: tuple[int, int], side: int,
             win: Any, frame_pixels: int, w: int) -> float:
    """:func:`add`, a source at a time: its disk as a dense stamp over its square, clipped
    to the window, ``[colour, 1]`` times it added to every plane at once."""
    at, areas = _host(s.at)[pick], s.area[pick]
    values = np.ones((planes.shape[1], len(pick), 1, 1), np.float32)  # [colour, 1] each
    values[:-1, :, 0, 0] = _host(s.colour)[:, pick]
    h, ww = planes.shape[2:]
    most = 0.0
    for i in range(len(at)):
        f, rest = divmod(int(at[i]), frame_pixels)
        y, x = rest // w - win.y0, rest % w - win.x0
        r, stamp = _stamp(disk, int(areas[i]), side)
        y0, y1, x0, x1 = max(0, y - r), min(h, y + r + 1), max(0, x - r), min(ww, x + r + 1)
        share = np.float32(1.0 / float(areas[i]))
        piece = stamp[y0 - y + r:y1 - y + r, x0 - x + r:x1 - x + r] * share
        planes[f, :, y0:y1, x0:x1] += xp.asarray(piece * values[:, i])
        most = max(most, float(share))
    return most


def _stamp(disk: tuple[int, int], area: int, side: int) -> tuple[int, np.ndarray]:
    """The disk of ``area`` (turned over before the focus plane) of the tables of ``disk``
    (:func:`hfrender.dof_layers.disk_tables`' arguments) as a dense (2r + 1)^2 mask of
    float32 ones, and its reach r; kept, each thread its own, least recently used out first
    past :data:`STAMP_BYTES` (a frame's 15 disks cost 0.5 ms to draw, a third of their
    adding; a 400 px disk's mask is 0.6 MB). Kept by the disk, as the spectra are: the
    first ``area`` offsets of any ``max_d2``'s tables (whole rings), so calls a focus pull
    apart share them (were kept by ``max_d2`` too, which a pull changes); a round or even
    disk turned over is itself."""
    kept = getattr(_kept, "stamps", None)
    if kept is None:
        kept = _kept.stamps = Kept(STAMP_BYTES)
    blades = disk[1]
    side = side if blades % 2 else FAR
    key = (area, blades, side)
    mask = kept.get(key)
    if mask is not None:
        return mask.shape[0] // 2, mask
    d = disk_tables(*disk)[0][:area] * (-1 if side == NEAR else 1)
    r = int(np.abs(d).max())
    mask = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    mask[d[:, 0] + r, d[:, 1] + r] = 1.0
    mask.flags.writeable = False  # (shared by the thread's frames)
    kept.put(key, mask)
    return r, mask


def _host(a: Any) -> np.ndarray:
    """``a`` on the host (a CuPy array's ``get``)."""
    return a.get() if hasattr(a, "get") else np.asarray(a)
