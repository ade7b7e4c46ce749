"""The fast depth of field's highlights on FFTs of their own.

A layer's light comes back from its inverse FFT with float32 rounding of about 1e-7 of its
largest value spread over the whole window, and the sums take out, channel by channel,
colour below :data:`hfrender.dof_layers.NOISE` of it (:func:`.backends.cpu.dof_light.clean`,
``hf_dof_accumulate``). Over a frame whose brightest light is a million times its usual
light (a firefly of a path-traced EXR, the sun), that took out the light of every pixel
around it: a background of 0.05 next to a point of 1e6 came out black where the exact
gather keeps it.

So a frame whose largest colour passes :data:`SPLIT_RANGE` times its usual light
(:func:`usual`: 10x its median, at least white: highlights on under half of the pixels do
not move it) has its colour cut into parts at :func:`edges` (the usual light, then
:data:`LEVEL_RATIO` times each edge before): the light up to the first edge, and what
passes each edge up to the next. Each part is a window's planes of its own through the
same FFTs (:func:`split`), its rounding taken out by its own largest values, and the parts
are summed back (:func:`fold`): a part that is rounding where it lands loses no more than
``NOISE * LEVEL_RATIO`` (0.4%) of a pixel's light, not all of it. The colour's sum, and so
its energy, is unchanged, and a frame within the range (an 8-bit one, any within 100x its
usual light) is not cut at all: its pictures are bit for bit what they were.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.dof_layers import NOISE
from hfrender.errors import InputError

SPLIT_RANGE = 100.0  # a frame's largest colour past this many times its usual light: cut
USUAL_FACTOR, USUAL_STEP = 10.0, 7  # usual light: 10x the median of every 7th row's
LEVEL_RATIO = 1000.0  # each edge this many times the one before
NONE = float(np.finfo(np.float32).max)  # an edge a frame of a run does not have


def check_summable(largest: float, pixels: int) -> None:
    """One line where a frame's largest colour times its pixels passes float32's range:
    the FFTs sum its light over windows of the frame, and would give inf or NaN."""
    if largest * max(pixels, 1) >= NONE:
        raise InputError(f"frames hold light up to {largest:g}: the fast depth of field's "
                         f"sums of {pixels:,} pixels of it pass float32's range; scale the "
                         "light down, or use method='exact' (--dof-method exact)")


def headroom(largest: float, terms: int) -> float:
    """The power of two (at most 1) by which light up to ``largest`` is scaled so that sums
    of ``terms`` of it, each weighing at most 1 (the exact gather's: a source an offset),
    stay within float32's range: 1.0 but for light near float32's top (a frame of 3e38
    came out of the gather with inf where the weights reaching a pixel passed 1.13)."""
    excess = largest * max(terms, 1) / NONE
    return 1.0 if excess < 1.0 else 2.0 ** -math.frexp(excess)[1]


def usual(xp: Any, planar: Any) -> float:
    """A frame's usual light, ``planar`` (C, H, W): :data:`USUAL_FACTOR` times the median
    of its colour channels' largest over every :data:`USUAL_STEP`-th row, at least white
    (1). A median, not a high percentile: a sun's disc or a sprinkle of fireflies (a few
    percent of the pixels) does not raise it to their own level (a review: at 0.2% of the
    pixels, the 99.9th percentile was the highlights', and nothing was cut)."""
    colour = planar[: min(3, int(planar.shape[0])), ::USUAL_STEP]
    largest = colour[0]
    for plane in colour[1:]:
        largest = xp.maximum(largest, plane)
    return max(1.0, USUAL_FACTOR * float(xp.median(largest)))


def edges(largest: float, usual: Any) -> list[float]:
    """Where a frame's colour is cut (ascending; none within the range): ``usual()`` its
    usual light, then :data:`LEVEL_RATIO` times each edge while the ``largest`` colour
    passes it. ``usual`` is called only where the largest passes the range's least (it
    is at least white)."""
    if not largest > SPLIT_RANGE:  # the usual light is at least 1 (white)
        return []
    first = float(usual())
    if not largest > SPLIT_RANGE * first:
        return []
    out = [first]
    while out[-1] * LEVEL_RATIO < largest:
        out.append(out[-1] * LEVEL_RATIO)
    return out


def split(xp: Any, fields: Any, cuts: list[Any], c: int) -> Any:
    """``fields`` (..., C + 1, H, W): colour times weight, the weight last; as (..., C + 1
    + len(cuts) * C, H, W): the colour up to the first cut, the weight, then the colour
    that passes each cut up to the next (each part times the weight). ``cuts``: numbers,
    or arrays broadcasting over the fields' leading axes (a run of frames: (F, 1, 1, 1),
    :data:`NONE` past a frame's own edges)."""
    colour, weight = fields[..., :c, :, :], fields[..., c:, :, :]
    n = len(cuts)
    out = xp.empty(fields.shape[:-3] + (c + 1 + n * c,) + fields.shape[-2:], fields.dtype)
    xp.minimum(colour, weight * cuts[0], out=out[..., :c, :, :])
    out[..., c:c + 1, :, :] = weight
    for k, cut in enumerate(cuts):
        part = out[..., c + 1 + k * c:c + 1 + (k + 1) * c, :, :]
        xp.subtract(colour, weight * cut, out=part)
        xp.maximum(part, 0, out=part)
        if k + 1 < n:  # at most the span to the next cut
            xp.minimum(part, weight * (cuts[k + 1] - cut), out=part)
    return out


def split_used(fields: list[np.ndarray], cuts: list[float], c: int, rows: tuple[int, int]
               ) -> list[np.ndarray]:
    """:func:`split` of a window's NumPy fields (one a disk; their light in ``rows``, the
    other rows unread and uncleared), the parts past the window's brightest, all zero, left
    out (the same sums: a window without highlights keeps its fields as they are; a
    window's disks keep as many parts)."""
    r0, r1 = rows
    out = [np.empty((f.shape[0] + c * len(cuts),) + f.shape[1:], f.dtype) for f in fields]
    for f, o in zip(fields, out, strict=True):
        o[:, r0:r1] = split(np, f[:, r0:r1], cuts, c)
    n = max(next((k for k in range(len(cuts))
                  if not o[c + 1 + k * c:c + 1 + (k + 1) * c, r0:r1].any()), len(cuts))
            for o in out)
    return fields if n == 0 else [o[:c + 1 + n * c] for o in out]


def parts(light: Any, c: int) -> int:
    """How many colour parts past the first ``light`` (..., planes, h, w) holds."""
    return (int(light.shape[-3]) - c - 1) // c


def fold(xp: Any, light: Any, c: int) -> Any:
    """``light`` of :func:`split` fields (after the FFTs): each part past the first, its
    rounding taken out by its own largest values (:data:`NOISE` of each channel's), added
    to the first part's colour, in place; the first part and the weight, (..., C + 1, h,
    w), a view."""
    base = light[..., :c + 1, :, :]
    for k in range(parts(light, c)):
        part = light[..., c + 1 + k * c:c + 1 + (k + 1) * c, :, :]
        top = xp.maximum(part.max(axis=(-2, -1), keepdims=True),
                         -part.min(axis=(-2, -1), keepdims=True))
        part *= xp.abs(part) >= NOISE * top
        base[..., :c, :, :] += part
    return base


def run_cuts(xp: Any, frames: list[list[float]]) -> list[Any] | None:
    """The cuts of a run of frames that share a plan, each frame's :func:`edges`: arrays
    (F, 1, 1, 1) of ``xp`` for :func:`split`, :data:`NONE` past a frame's own; None where
    no frame of the run is cut."""
    n = max((len(e) for e in frames), default=0)
    if n == 0:
        return None
    table = np.full((n, len(frames)), NONE, np.float32)
    for i, e in enumerate(frames):
        table[:len(e), i] = e
    return [xp.asarray(row.reshape(-1, 1, 1, 1)) for row in table]
