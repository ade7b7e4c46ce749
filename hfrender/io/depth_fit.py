"""A depth pass fitted to its footage for ``hfrender fx --depth`` (:func:`depth_for`): a
sequence's frames paired with the footage's by number, another size scaled to it, its
count checked, every frame's values checked (an array's before any frame is written, the
others' as each is read), a disparity map's stand-in metres, and what looks wrong with its
units or the focus said in warnings. The pass itself is read by :mod:`.depth_pass`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np

from hfrender import validate
from hfrender.disparity import Disparity
from hfrender.frame_range import n_frames
from hfrender.io.depth_pass import DepthPass, Scale, _metres, _sequence, open_depth
from hfrender.io.depth_scale import resized
from hfrender.io.depth_scan import scan
from hfrender.io.probe import FootageError
from hfrender.io.sequence_files import DEPTH_KINDS, sequence_start
from hfrender.optics import Lens

log = logging.getLogger("hfrender.io.depth_pass")  # (said as the depth pass's own)


def _by_number(depth: DepthPass, scale: Scale, zero_is_sky: bool, first: int | None,
               count: int) -> DepthPass:
    """A depth sequence's frames paired with a numbered footage's by their numbers (was:
    by place: shot.1001 defocused with z.1003), the depth's other frames left out; numbers
    that overlap but miss some of the footage's are one line; numbers apart from them
    altogether (frames 0.. beside depth 1001..) pair by place, said in a warning."""
    if depth.files is None or depth.static or first is None:
        return depth
    start = sequence_start(depth.path, DEPTH_KINDS)
    if start == first and depth.count <= count:  # (more frames: cut to the footage's below)
        return depth
    skip, end = first - start, start + depth.count - 1
    if 0 <= skip and skip + count <= depth.count:
        return _sequence(depth.path, depth.files[skip:skip + count], scale, zero_is_sky)
    if start <= first + count - 1 and first <= end:
        raise FootageError(f"depth {depth.path} holds frames {start}..{end}, the footage "
                           f"{first}..{first + count - 1}: each frame takes the depth frame "
                           "of its number")
    log.warning("depth %s holds frames %d..%d, the footage %d..%d: none of the same number, "
                "so they pair in order (the footage's first with %s)", depth.path, start, end,
                first, first + count - 1, depth.files[0].name)
    return depth


RESIZES = ("nearest", "linear")  # how a depth pass of another size is scaled to the footage


def depth_for(path: str, scale: Scale, zero_is_sky: bool, size: tuple[int, int], count: int,
              lens_for: Callable[[np.ndarray], Lens], resize: str | None = None,
              first: int | None = None) -> DepthPass:
    """:func:`open_depth`, checked against footage of ``size`` (w, h) and ``count`` frames
    (one line where it does not fit; another size scaled to it with ``resize``, one of
    :data:`RESIZES`), a sequence's frames by number where the footage's are numbered from
    ``first``; what looks wrong with its units or the focus said in warnings; its range and
    the blur it makes (``-v``), with ``lens_for(first frame)``."""
    depth = _by_number(open_depth(path, scale, zero_is_sky), scale, zero_is_sky, first, count)
    (w, h), depth = size, resized(depth, size, resize)
    if depth.count != count and not depth.static:
        raise FootageError(f"depth {path} has {n_frames(depth.count)}, the footage {count}: "
                           "one depth frame per frame is needed")
    def check(frame: np.ndarray, i: int) -> None:  # a bad value named as given
        validate.depth_frame(frame, i, file=depth.file(i), disparity=isinstance(
            scale, Disparity), given=lambda: _as_given(depth, scale, zero_is_sky, i))

    if depth.first.size:  # a bad value (NaN, <= 0) is the error, not a note on the focus
        check(depth.first, 0)
    if depth.array is not None and depth.first.size:  # every frame, before any is written
        scan(depth.array, lambda a: _metres(a, scale, zero_is_sky), check, _ends(scale))
    if isinstance(scale, Disparity):
        return _stand_in(depth, scale, w, h)
    first, lens = f"depth {path}'s first frame", lens_for(depth.first)
    focus = validate.focus_note(depth.first, lens.focus_distance, first,
                                lens.focal_length_mm / 1000, lens.sky_blur_px(w))
    blur = None if focus or not depth.first.size else validate.blur_note(
        [lens], float(depth.first.min()), float(depth.first.max()), w, h, first)
    for note in (depth.note, focus or blur):
        if note:
            log.warning("%s", note)
    if log.isEnabledFor(logging.INFO) and depth.first.size:
        log.info("%s: %s", first, _summary(depth.first, lens, w, h))
    return replace(depth, frames=_checked(depth))


def _as_given(depth: DepthPass, scale: Scale, zero_is_sky: bool, i: int) -> np.ndarray | None:
    """Frame ``i`` of an array's pass (.npy, .npz) in float64 metres, whose values a refused
    frame names as given (a depth of 1e-300 m is 0 in float32, as the pass is read: was
    said "<= 0 (0)"; :func:`hfrender.validate.depth_frame` takes it where it is the
    frame's size, not a resized pass's); else None (an image's values are float32 at most;
    a disparity map's said of the map)."""
    if depth.array is None or isinstance(scale, Disparity):
        return None
    with np.errstate(over="ignore", under="ignore"):
        return _metres(depth.array[i], scale, zero_is_sky, np.float64)


def _ends(scale: Scale) -> tuple[str, ...] | None:
    """The stored values whose metres bound all of a chunk's (:func:`.depth_scan.scan`):
    its least where metres grow with them (a factor, a range from near to a farther far),
    its largest for a disparity (only a NaN or +inf there is none); else None."""
    if isinstance(scale, Disparity):
        return ("max",)
    grows = scale[1] >= scale[0] if isinstance(scale, tuple) else scale > 0
    return ("min",) if grows else None


def _stand_in(depth: DepthPass, disparity: Disparity, w: int, h: int) -> DepthPass:
    """A disparity map's pass (its frames' inverse) in stand-in metres, one scale for every
    frame, fixed from the first (:meth:`Disparity.fit`); ``-v`` says it."""
    name = f"depth {depth.path}'s first frame"
    fit = disparity.fit(depth.first, w, name)
    for note in (depth.note, fit.note):
        if note:
            log.warning("%s", note)
    log.info("%s: %s", name, fit.summary(disparity.max_blur, disparity.lens.blur_cap_px(w, h)))
    k = np.float32(fit.metres)
    first = depth.first * k
    frames = itertools.repeat(first) if depth.static else (
        first if f is depth.first else f * k for f in depth.frames)
    inner = depth.column  # (bound now: depth is replaced below)
    column = inner and (lambda x, y: inner(x, y) * k)
    depth = replace(depth, first=first, frames=frames, column=column,
                    focus=None if disparity.pixel else fit.focus_distance)
    return replace(depth, frames=_checked(depth, disparity=True))


def _checked(depth: DepthPass, disparity: bool = False) -> Iterator[np.ndarray]:
    """``depth``'s frames, each checked as it is read (:func:`hfrender.validate.depth_frame`,
    named by its frame number; ``disparity``: a disparity map's stand-in metres); the
    first, checked already, not again: one depth frame for a
    shot is checked once, not once a frame (0.23 ms a 1280x720 frame)."""
    for i, frame in enumerate(depth.frames):
        if frame.shape != depth.first.shape:  # named by its file (was: by its number alone)
            raise FootageError(f"depth frame {i} ({depth.file(i)}) is {frame.shape[1]}x"
                               f"{frame.shape[0]}, the first {depth.first.shape[1]}x"
                               f"{depth.first.shape[0]}: a depth pass is one size")
        yield frame if frame is depth.first else validate.depth_frame(
            frame, i, file=depth.file(i), disparity=disparity)


def _summary(first: np.ndarray, lens: Lens, w: int, h: int) -> str:
    """``0.4 to 8 m and sky; circles of confusion up to 63.8 px across`` (capped; 1.95 px
    not rounded to the 2.0 under which nothing is blurred, a trial)."""
    finite = first[np.isfinite(first)]
    span = f"{finite.min():g} to {finite.max():g} m" if finite.size else "all sky"
    sky = " and sky" if finite.size and finite.size < first.size else ""
    coc = float(np.nanmax(lens.coc_px(first, w)))
    cap = lens.blur_cap_px(w, h)
    return (f"{span}{sky}; circles of confusion up to {min(coc, cap):.3g} px across"
            + (f" (capped at {cap:g})" if coc > cap else ""))
