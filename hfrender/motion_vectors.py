"""Motion blur in post from a motion-vector pass: one sharp frame and its vectors in, the
frame as a shutter open over its motion out (Nuke's VectorBlur, Blender's Vector Blur node).

No kernel of its own: the frame is a hyperframe of one sub-frame at the shutter's middle,
and :func:`hfrender.effects.fuse` reconstructs the motion over the shutter from its
velocity and depth (``--reconstruct``'s :mod:`~hfrender.backends.cpu.reconstruct`): each
moving pixel is splatted along its vector at intermediate times across the shutter, the
nearer surface winning (surfaces at one depth moving differently blended:
:mod:`~hfrender.backends.cpu.recon_ties`); what a moving surface uncovers is filled from
the still pixels behind it. Outliers (at most 0.1% of the moving pixels, each over 4 times
faster than every other one and moving over 64 px in the shutter) are drawn on their own,
behind what is nearer (with depth; else over the other moving pixels), at the cost of
their own streaks
(:mod:`~hfrender.backends.cpu.recon_fast`); ``max_length`` clamps vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from hfrender import validate
from hfrender.backends.cpu.recon_cells import STILL_PX
from hfrender.effects import fuse
from hfrender.errors import InputError, InputTypeError, Spelling, saying
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.windows import WindowWeights
from hfrender.interop import not_numbers, to_array
from hfrender.out_arrays import check_out, into
from hfrender.shutter_curve import SHUTTER, vector_max_length, vector_shutter
from hfrender.straight_frames import straight_kept, to_premultiplied

ABSURD = 100.0  # a vector longer than this many frame diagonals is refused (max_length clamps)


def vector_blur(frame: Any, velocity: Any, depth: Any = None, *, shutter: float = SHUTTER,
                linear_light: bool = True, backend: str | None = None, out: Any = None,
                premultiplied: bool = True, max_length: float | None = None) -> Any:
    """Motion blur from motion vectors: each pixel spread along its vector over the shutter.

    Parameters
    ----------
    frame : (H, W, C) or (N, H, W, C), as ``frames`` of :func:`hfrender.motion_blur`
        (uint8/uint16 sRGB codes, float32 linear light; RGBA premultiplied, or straight
        with ``premultiplied=False``).
    velocity : (H, W, 2) or (N, H, W, 2) float: each pixel's screen motion in **pixels a
        frame, x to the right and y down** (row numbers grow), the motion at the frame's
        instant. Nuke's ``forward.u``/``forward.v`` (and ``hfrender render --passes
        velocity``'s) have v up: pass ``(u, -v)``; Blender's ``Vector`` pass points back:
        :func:`hfrender.io.vector_pass.blender_velocity`.
    depth : (H, W) or (N, H, W) metres (``inf`` sky), or None. With depth, where streaks
        cross the nearer surface covers the farther. Without it, two layers: what moves
        is in front of what stands still (a car streaks over the road, but also over a
        post in front of it), and where moving pixels cross, neither covers the other:
        each shows for the part of the shutter it is there, blended half and half while
        both are (and so with depth where two motions meet at one depth); the blur of a
        mirrored frame is the mirrored blur.
    shutter : degrees the shutter is open, centred on the frame's instant: 180 (default)
        spreads a pixel over half its vector, 360 over all of it; (0, 720].
    max_length : pixels a frame, or None (default: no clamp): longer vectors cut to it, the
        direction kept (Blender's Max Speed). Unclamped vectors must be finite and at most
        100 frame diagonals long; a few far faster than the rest cost their own streaks.
    linear_light, backend, premultiplied : as in :func:`hfrender.motion_blur`
        (``premultiplied=False``: straight RGBA, as PNG files hold it; a transparent
        pixel's colour does not streak in; host arrays only).
    out : optional result array, as in :func:`hfrender.fuse`.

    Returns
    -------
    The frame's family, dtype (native order), shape. Energy is conserved away from the borders.
    """
    arr, back, on_device = to_array(frame, "frame")
    validate.frames(arr, "frame", allow_single=True)
    single = arr.ndim == 3
    arr = arr[None] if single else arr
    linear_light = validate.flag(linear_light, "linear_light")
    if out is not None:  # (before out[None] below: was "'int' object is not subscriptable")
        check_out(out, arr.shape[1:] if single else arr.shape, arr.dtype, on_device)
    if not validate.flag(premultiplied, "premultiplied"):  # straight: blurred premultiplied
        light = to_premultiplied(arr, on_device, linear_light)  # float32: linear as it is
        res = straight_kept(vector_blur(light[0] if single else light, velocity, depth,
                                        shutter=shutter, backend=backend,  # (one frame
                                        max_length=max_length)[None if single else ...],
                            light, arr, linear_light)[0 if single else ...]  # said as one)
        return back(res) if out is None else into(out, res)
    vel = _velocity(velocity, arr.shape[:3], vector_max_length(max_length), single)
    half = vector_shutter(shutter) / 720.0  # half the shutter, in frames (360 degrees a frame)
    dep = _depth(depth, vel, half, arr.shape, single)
    times = np.arange(arr.shape[0], dtype=np.float64)
    weights = WindowWeights(np.arange(arr.shape[0], dtype=np.int64), np.ones((len(times), 1)))
    res = fuse(HyperFrame(arr, np.ascontiguousarray(dep), times, vel), weights,
               shutter=np.stack([times - half, times + half], axis=1),
               linear_light=linear_light, backend=backend,
               out=out[None] if single and out is not None else out)
    return back(res[0] if single else res) if out is None else out


def _depth(depth: Any, vel: np.ndarray, half: float, shape: tuple,
           single: bool = False) -> np.ndarray:
    """``depth`` checked against frames of ``shape`` (``single``: one (H, W, C) frame's,
    said so: was "must match frames (1, H, W, C)"); without it, two layers: what moves over
    the shutter (``half`` of it, in frames) in front of what does not."""
    if depth is None:
        moving = np.hypot(vel[..., 0], vel[..., 1]) * (2 * half) >= STILL_PX
        return np.where(moving, np.float32(1), np.float32(2))
    darr, _, _ = to_array(depth, "depth")
    if single:
        return validate.depth(darr, shape[1:])[None]
    return validate.depth(darr, shape, one_for_all=True)


def _velocity(velocity: Any, size: tuple[int, int, int], most: float | None = None,
              single: bool = False) -> np.ndarray:
    """``velocity`` as (N, H, W, 2) finite float32 pixels a frame (one (H, W, 2) for one
    frame: ``single``, its pixels named without a frame), each vector longer than ``most``
    clamped to it, else one line naming it; none longer than :data:`ABSURD` diagonals."""
    arr = validate.real_array(velocity, "velocity")
    n, h, w = size
    want = (n, h, w, 2)
    if arr is not None and arr.shape == want[1:] and n == 1:
        arr = arr[None]
    if arr is None or arr.shape != want:
        one = f" (or {want[1:]} for one frame)" if n == 1 else ""  # (n frames: theirs alone)
        if arr is None:
            raise InputTypeError(not_numbers(
                velocity, "velocity", "pixels a frame, x to the right and y down",
                f"an array of shape {want}{one}"))
        if arr.shape == want[1:]:  # (was: "expected (2, H, W, 2) (or (H, W, 2) for one
            raise InputError(      # frame)", the shape given offered as the fix)
                f"velocity has shape {arr.shape}, one frame's; the {n} frames need one each: "
                f"{want}, pixels a frame, x to the right and y down")
        hint = validate.channels_last_hint(arr.shape, [want, want[1:]] if n == 1 else [want],
                                           "velocity")
        raise InputError(f"velocity has shape {arr.shape}; expected {want}{one}: pixels a "
                         f"frame, x to the right and y down{hint}")
    if not np.isfinite(arr).all():
        f, y, x, c = (int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise _refused(partial(_not_finite, "xy"[c], float(arr[f, y, x, c])), f, y, x, single)
    length = np.hypot(arr[..., 0], arr[..., 1])  # float64, as given (was: of float32, where
    #                                               1e300 px was said "inf px")
    limit = ABSURD * float(np.hypot(h, w))
    if min(length.max(), math.inf if most is None else most) > limit:
        f, y, x = (int(i) for i in np.unravel_index(np.argmax(length), length.shape))
        raise _refused(partial(_absurd, float(length.max()), most, limit), f, y, x, single)
    if most is not None and length.max() > most:  # Blender's Max Speed: the direction kept
        arr = arr * np.minimum(1.0, most / np.maximum(length, most))[..., None]
    return np.ascontiguousarray(arr, np.float32)


def _at(f: int, y: int, x: int, single: bool) -> str:
    """Where a pixel of the vectors is (:func:`hfrender.validate.at`): its frame ``f`` too
    where there are several (not ``single``)."""
    return validate.at(y, x, None if single else f)


def _refused(line: Callable[[str, Spelling], str], f: int, y: int, x: int, single: bool,
             first: int = 0) -> InputError:
    """The error ``line(where, spell)`` says of pixel (y, x) of frame ``f`` (:func:`_at`;
    frames counted from ``first``), with its ``respell`` (fx's flags, a jobs file's keys:
    :func:`hfrender.errors.as_given`) and ``renumber(first)``: the same error, its frame
    counted from ``first`` (fx's footage frame of a hyperframe's first; was its place in
    the hyperframe). Both partials: picklable, as a worker's error must be."""
    exc = saying(InputError, partial(line, _at(first + f, y, x, single)))
    exc.renumber = partial(_refused, line, f, y, x, single)  # type: ignore[attr-defined]
    return exc


def _not_finite(axis: str, value: float, where: str, spell: Spelling) -> str:
    """The line for a NaN or infinite component (``axis`` x or y) of a vector at ``where``."""
    return f"velocity {where} has {axis} = {value}; it must be finite pixels a frame"


def _absurd(size: float, most: float | None, limit: float, where: str,
            spell: Spelling) -> str:
    """The line for the longest vector (``size`` px a frame, at ``where``), over ``limit``
    px a frame even clamped to ``most``: what to give, ``max_length`` named as ``spell``
    names it (the library's keyword; fx's flag, a jobs file's key: errors.as_given)."""
    said = f"velocity {where} is {size:.4g} px a frame"
    over = f"over {ABSURD:g} frame diagonals ({limit:.4g} px): not a motion"
    if most is None:
        return f"{said}, {over}; give {spell.form('max_length', 'PX')} to clamp such vectors"
    return (f"{said}; clamped to {spell.said('max_length', most)} it is still {over}; give "
            f"a {spell.name('max_length')} of at most {limit:.4g}")
