"""Scaling a depth pass of another size to its footage (``fx --depth-resize``), frame by
frame: nearest (each depth pixel held: hard edges) or linear (between pixel centres) in
inverse depth 1/z, metres and a disparity map's inverse alike: what a plane makes linear in
the picture (a slanted plane's, exactly) and the circle of confusion is linear in; sky
(inf, 1/z 0) kept sky where no nearer pixel is taken."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from hfrender import validate
from hfrender.io.probe import FootageError

if TYPE_CHECKING:
    from hfrender.io.depth_pass import DepthPass

log = logging.getLogger(__name__)


def taps(n_in: int, n_out: int, how: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each output row's (or column's) two source indices and the second one's weight (in
    [0, 1)), by pixel centres (as ffmpeg's and OpenCV's scalers): nearest, the one pixel
    under it (no weight)."""
    x = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    if how == "nearest":
        i = np.clip(np.floor(x + 0.5), 0, n_in - 1).astype(np.intp)
        return i, i, None
    x = np.clip(x, 0, n_in - 1)
    i0 = np.floor(x).astype(np.intp)
    return i0, np.minimum(i0 + 1, n_in - 1), x - i0  # float64: 0.99999999 is no 1


def resample(frame: np.ndarray, rows: tuple, cols: tuple) -> np.ndarray:
    """``frame`` (H, W) metres through :func:`taps`' rows and columns, linearly in inverse
    depth 1/z (sky, inf: 0), for metres and a disparity map's inverse alike (was: metres
    linearly, a slanted plane 6% off at 4x up, an edge's pixels blurred nearly as its far
    side): a plane's 1/z is linear in the picture, so a slanted plane comes out at its
    depth at the new centres, and a circle of confusion is linear in 1/z, so a pixel
    across an edge is blurred between its two sides as it mixes them; against sky, halfway
    is twice as far. Nearest: the pixels themselves."""
    if rows[2] is None:
        return _mix(_mix(frame, *rows, axis=0), *cols, axis=1)
    with np.errstate(divide="ignore"):
        d = np.float32(1) / frame  # sky (inf): 0
    d = _mix(_mix(d, *rows, axis=0), *cols, axis=1)
    with np.errstate(divide="ignore"):
        return np.where(d > 0, np.float32(1) / d, np.float32(np.inf)).astype(np.float32)


def _mix(a: np.ndarray, i0: np.ndarray, i1: np.ndarray, t: np.ndarray | None,
         axis: int) -> np.ndarray:
    first = np.take(a, i0, axis=axis)
    if t is None:  # nearest: the pixel itself
        return first.astype(np.float32, copy=False)
    second = np.take(a, i1, axis=axis)
    shape = (-1, 1) if axis == 0 else (1, -1)
    t = t.reshape(shape)
    with np.errstate(invalid="ignore"):  # inf * 0: replaced where the weight is 0
        lo = np.where(t < 1, first * (1 - t), 0)
        hi = np.where(t > 0, second * t, 0)
    return (lo + hi).astype(np.float32)


def resized(depth: DepthPass, size: tuple[int, int], how: str | None) -> DepthPass:
    """``depth`` scaled to ``size`` (w, h) frame by frame, ``how`` (:data:`RESIZES`,
    :func:`resample`); a pass of another shape, or no ``how``, refused in one line; one of
    ``size`` as it is (a ``how`` given for it warned of: was taken without a word)."""
    (w, h), (dw, dh) = size, depth.size
    if (dw, dh) == (w, h):
        if how is not None:
            log.warning("--depth-resize %s is not used: depth %s is %dx%d, the footage's "
                        "size already (nothing to scale)", how, depth.path, w, h)
        return depth
    if (dw, dh) == (h, w):  # a phone's clip stored on its side, played turned upright
        raise FootageError(f"depth {depth.path} is {dw}x{dh}, the footage {w}x{h} as it "
                           "plays: turned a quarter (or its rows and columns swapped); give "
                           "the depth as the footage plays (a phone's clip is turned upright "
                           "by its rotation tag)")
    if how is None:
        raise FootageError(f"depth {depth.path} is {dw}x{dh}, the footage {w}x{h}: they must "
                           "match, or pass --depth-resize nearest (or linear) to scale the "
                           "depth to the footage")
    if not validate.same_shape((dh, dw), (h, w)):
        raise FootageError(f"depth {depth.path} is {dw}x{dh}, the footage {w}x{h}: another "
                           "shape, which scaling would stretch; crop or pad the depth to the "
                           "footage's shape first")
    log.info("depth %s: %dx%d scaled to %dx%d (%s)", depth.path, dw, dh, w, h, how)
    rows, cols = taps(dh, h, how), taps(dw, w, how)
    first = resample(depth.first, rows, cols)

    def frames() -> Iterator[np.ndarray]:
        for i, f in enumerate(depth.frames):
            if f.shape != (dh, dw):  # the taps fit the first frame's size alone
                raise FootageError(f"depth frame {i} is {f.shape[1]}x{f.shape[0]}, its first "
                                   f"{dw}x{dh}: a depth pass's frames must be one size")
            yield first if f is depth.first else resample(f, rows, cols)

    column = depth.column and partial(_point, depth.column, rows, cols)
    return replace(depth, size=size, first=first, column=column,
                   frames=itertools.repeat(first) if depth.static else frames())


def _point(column: Callable[[int, int], np.ndarray], rows: tuple, cols: tuple, x: int,
           y: int) -> np.ndarray:
    """The resized pass's metres at footage pixel (x, y) in every frame, from the stored
    pass's ``column`` under the (up to) 2x2 pixels :func:`taps` give it, mixed as
    :func:`resample` mixes whole frames."""
    (r0, r1, rt), (c0, c1, ct) = rows, cols
    patch = np.stack([np.stack([column(int(c[x]), int(r[y])) for c in (c0, c1)])
                      for r in (r0, r1)])  # (2, 2, frames)

    def one(t: np.ndarray | None, i: int) -> tuple:
        return np.array([0]), np.array([1]), None if t is None else t[i:i + 1]

    return resample(patch, one(rt, y), one(ct, x))[0, 0]
