"""The lenses of the effects library's calls (:mod:`hfrender.effects`): one lens, or one
per frame (a focus pull: a distance per frame; ``fuse``'s sequence of lenses), each value
checked, and the warnings for a focus no pixel is in or a blur under a pixel."""

from __future__ import annotations

import math
import numbers
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import chain
from typing import Any

import numpy as np

from hfrender import validate
from hfrender.disparity import (
    Disparity,
    check_kind,
    check_options,
    stand_in,
)
from hfrender.errors import KEYWORD, InputError, InputTypeError, Spelling, about, shown
from hfrender.interop import few_numbers, grad_free, unread
from hfrender.numeric import whole_number
from hfrender.optics import Lens, check_blades, check_focal_length

# depth_of_field's keywords of one number for every frame (focus_distance: one per frame)
ONE_NUMBER = ("f_stop", "focal_length_mm", "sensor_width_mm", "max_coc_px", "aperture_blades",
              "focus_disparity", "max_blur")


def one_numbers(o: dict) -> dict:
    """``depth_of_field``'s keywords ``o``, those of one number each (:data:`ONE_NUMBER`) a
    one-element array or tensor (NumPy code's ``np.array([1.4])``) as its number, as
    ``focus_distance=np.array([2.0])`` is one distance for every frame (was: "f_stop=
    array([1.4]) must be a finite number > 0"); one of more values one line; one that is no
    number (a string, a bool) refused as given."""
    out = {}
    for name in ONE_NUMBER:
        value, shape = o[name], getattr(o[name], "shape", None)
        if shape is not None and len(shape) > 0 and hasattr(value, "reshape"):
            size = math.prod(shape)
            if size != 1:
                pull = "" if name in ("focus_disparity", "max_blur") else \
                    " (a focus pull is focus_distance's, one per frame)"
                raise InputError(f"{name}={shown(value)} holds {size} values; give one "
                                 f"number: it serves every frame{pull}")
            number = validate.scalar(value.reshape(()), name)
            # a number else as given, for its refusal (was: f_stop='1.4' for array(['1.4']))
            value = number if isinstance(number, numbers.Real) and \
                not isinstance(number, bool) else value
        out[name] = validate.scalar(value, name)
    return {**o, **out}


def focus_pixel(value: Any, spell: Spelling = KEYWORD) -> tuple[int, int]:
    """A focus pixel, ``(x, y)`` (a tuple, or an array or tensor of two integers) or the text
    ``"X,Y"`` (a command line's, a jobs file's), as two whole numbers >= 0; else the one
    line every caller says, the value named as ``spell`` does (``focus_pixel=(-1, 3)``,
    ``--focus-pixel (-1, 3)``; a command or a jobs file names it as typed:
    :func:`hfrender.errors.as_given`)."""
    pixel, hint = value, ""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", value)
        pixel = (int(m[1]), int(m[2])) if m else None
    elif hasattr(value, "shape") and hasattr(value, "tolist"):  # an array, a tensor, a GPU
        whole = few_numbers(value, "focus_pixel")  # one's (was refused: np.array([3, 4]))
        hint = f"; its values cannot be read{unread(value, 'focus_pixel')}" if whole is None \
            else ""
        pixel = tuple(whole.tolist()) if whole is not None and whole.shape == (2,) and \
            whole.dtype.kind in "iu" else None
    if not (isinstance(pixel, (tuple, list)) and len(pixel) == 2 and all(
            whole_number(v) and v >= 0
            for v in pixel)):
        form, eg = ("X,Y", "320,180") if spell.flags else ("(x, y)", "(320, 180)")
        raise about(InputError, "focus_pixel", value, f" must be {form}, two whole numbers "
                    f">= 0: the pixel's column and row from the top left corner (e.g. {eg})"
                    f"{hint}",
                    head=spell.said("focus_pixel", value))
    return int(pixel[0]), int(pixel[1])


def pixel_inside(pixel: tuple[int, int], size: tuple[int, int],
                 spell: Spelling = KEYWORD) -> None:
    """A focus pixel (:func:`focus_pixel`'s) in frames of ``size`` (w, h); else one line,
    alike for every caller."""
    (x, y), (w, h) = pixel, size
    if x >= w or y >= h:
        raise about(InputError, "focus_pixel", (x, y), f" is outside the {w}x{h} frames (x "
                    f"from 0 to {w - 1}, y from 0 to {h - 1})", head=_pixel_said(pixel, spell))


def _pixel_said(pixel: tuple[int, int], spell: Spelling) -> str | None:
    """A checked focus pixel as ``spell`` names it: ``--focus-pixel 3,4``; None: the
    keyword's own, ``focus_pixel=(3, 4)``."""
    return f"{spell.name('focus_pixel')} {pixel[0]},{pixel[1]}" if spell.flags else None


def one_focus(focus: Any, pixel: Any, name: Callable[[str], str],
              kind: type[InputError] = InputError) -> None:
    """A distance's focus given once: ``focus_distance`` or ``focus_pixel``, not both (the
    library, the command line and a jobs file alike; ``name``: an option as said)."""
    if focus is not None and pixel is not None:
        raise kind(f"{name('focus_distance')} and {name('focus_pixel')}: give one (the "
                   "distance in focus, or the pixel whose depth is in focus)")


def focus_at(pixel: tuple[int, int], depth: Any, focal_length_mm: float, frame: int,
             spell: Spelling = KEYWORD, kind: type[InputError] = InputError) -> float:
    """The focus distance a focus pixel gives one frame of metres ``depth`` (H, W), footage
    frame ``frame``: the depth under it (``inf``: sky, focus at infinity); one line, alike
    for every caller, where that is within the lens's focal length."""
    x, y = pixel
    at = float(depth[y, x])
    focus_each(pixel, [at], focal_length_mm, frame, spell, kind)
    return at


def focus_each(pixel: tuple[int, int], at: Any, focal_length_mm: float, first: int = 0,
               spell: Spelling = KEYWORD, kind: type[InputError] = InputError) -> None:
    """The depth under a focus pixel in footage frames ``first``, ``first + 1``, ... (``at``,
    metres) checked at once (fx's .npy pass, before a frame is written): the first within
    the lens's focal length refused in :func:`focus_at`'s line."""
    at = np.asarray(at, np.float64)
    bad = np.flatnonzero(~(at > focal_length_mm / 1000))  # (a NaN too)
    if bad.size:
        k = int(bad[0])
        head = _pixel_said(pixel, spell) or f"focus_pixel={tuple(pixel)}"
        raise kind(f"{head}: in frame {first + k} the depth there is {at[k]:g} m, nearer "
                   "than the lens's focal length: nothing can be focused there")


def lenses_of(focus_distance: Any, depth: Any, *lens: Any, level: int = 3
              ) -> Lens | list[Lens]:
    """The lens of ``depth_of_field``'s frames (``depth`` (N, H, W)), or one per frame where
    ``focus_distance`` holds one distance per frame; a focus no pixel of a frame can be in
    (:func:`hfrender.validate.focus_note`, each frame's own depth) said in a warning."""
    n = depth.shape[0]
    lens = tuple(validate.scalar(v) for v in lens)  # a 0-d array or tensor is its number
    grad_free(focus_distance, "focus_distance")
    listed = isinstance(focus_distance, (list, tuple))  # (np.ndim of a list of GPU tensors:
    if not listed and np.ndim(focus_distance) == 0:  # was torch's TypeError, a traceback)
        lenses = [Lens(validate.scalar(focus_distance), *lens)] * n
    else:  # a list's items as they are (all of them as an array: "2.0" for a "3" beside it)
        each = _items(focus_distance) if listed \
            else few_numbers(focus_distance, "focus_distance")  # (a GPU tensor's too)
        if each is None:
            raise InputTypeError(f"focus_distance={shown(focus_distance)} cannot be read"
                                 f"{unread(focus_distance, 'focus_distance')}")
        if sum(k > 1 for k in each.shape) > 1:  # (was: flattened, a (2, 2) taken as 4
            frames = f"each of the {n} frames" if n > 1 else "the one frame"  # frames')
            raise InputError(f"focus_distance has shape {each.shape}; give one distance, or "
                             f"a 1-D list of one for {frames}")
        lenses = _pull(list(each.ravel()), n, lens)  # ((3, 1): a tool's column, as 3)
    one, focal = all(ln == lenses[0] for ln in lenses), lenses[0].focal_length_mm / 1000
    shared = n == 1 or getattr(depth, "strides", (0,))[0] == 0  # one depth for every frame
    width = depth.shape[-1]
    pooled = [validate.focus_note(depth, lenses[0].focus_distance, "depth", focal,
                                  lenses[0].sky_blur_px(width))] if one \
        else []  # all of the frames at once, then each frame's own (one of other units)
    notes = chain(pooled, () if one and shared else (  # (a pull: each frame's distance
        validate.focus_note(depth[k], ln.focus_distance, f"depth frame {k}", focal,
                            ln.sky_blur_px(width))
        for k, ln in enumerate(lenses)))
    note = next((text for text in notes if text), None) or _blur_note(depth, lenses)
    if note:  # said, not refused: a Python warning, once per place it is called from
        warnings.warn(note, UserWarning, stacklevel=level)
    return lenses[0] if one else lenses


def _blur_note(depth: Any, lenses: list[Lens]) -> str | None:
    """:func:`hfrender.validate.blur_note` where no frame's lens blurs any depth of the
    frames by a pixel (each lens over the whole depth's range: never said where some
    frame blurs)."""
    h, w = (int(s) for s in depth.shape[-2:])
    return validate.blur_note(set(lenses), float(depth.min()), float(depth.max()), w, h,
                              "depth" if depth.shape[0] == 1 else "every frame")


def _items(given: list | tuple) -> np.ndarray:
    """A list's items as they are, an object array (nested lists: its shape), or 1-D where
    NumPy cannot look into them (0-d GPU tensors: was torch's TypeError, a traceback)."""
    try:
        return np.asarray(given, object)
    except (TypeError, RuntimeError, ValueError, NotImplementedError):
        return np.fromiter(given, object, len(given))


def _pull(focus: list, n: int, lens: tuple) -> list[Lens]:
    """One lens per frame, focused at ``focus`` (one distance per frame of ``n``)."""
    if len(focus) == 1:  # [2.0]: one distance, for every frame
        focus = focus * n
    if len(focus) != n:
        each = f", or one for each of the {n} frames" if n > 1 else " (one frame)"
        raise InputError(f"focus_distance has {len(focus)} values; give one distance{each}")
    out = []
    for k, f in enumerate(focus):
        try:  # NumPy's scalars said as numbers (0.03, not np.float64(0.03))
            out.append(Lens(validate.scalar(f), *lens))
        except InputError as exc:
            raise type(exc)(f"frame {k}: {exc}") from None
    return out


def frame_lenses(lens: Any, count: int) -> Lens | list[Lens]:
    """``fuse``'s ``lens``: one Lens, or a sequence of one for each of ``count`` frames."""
    if isinstance(lens, Lens):
        return lens
    if isinstance(lens, (str, bytes)) or not isinstance(lens, (Sequence, np.ndarray)) or \
            not isinstance(lens, (list, tuple)) and np.ndim(lens) == 0:  # (a 0-d array: was
        # "iteration over a 0-d array"; np.ndim of a list of GPU tensors: torch's TypeError)
        raise InputTypeError(f"lens={shown(lens)} must be a hf.Lens, a sequence of one per frame, "
                             "or None")
    lens = list(lens)
    bad = next((k for k, x in enumerate(lens) if not isinstance(x, Lens)), None)
    if bad is not None:
        raise InputTypeError(f"lens[{bad}]={shown(lens[bad])} must be a hf.Lens (one per frame)")
    if len(lens) != count:
        raise InputError(f"lens: a sequence needs one Lens per frame ({count}); got "
                         f"{len(lens)}")
    return lens


def disparity_of(kind: Any, o: dict) -> Disparity | None:
    """``depth_of_field``'s keywords ``o`` checked against its ``depth_kind`` (``kind``):
    for a disparity map how it is blurred (its stand-in lens), for a distance None (and
    its focus_distance and f_stop given)."""
    check_kind(kind, o, lambda k: k)
    if kind == "distance":  # (a focus pixel: each frame's depth there, as fx's; was refused)
        one_focus(o["focus_distance"], o["focus_pixel"], lambda k: k)
        wanted = (("focus_distance (or focus_pixel)", o["focus_distance"] if o["focus_pixel"]
                   is None else o["focus_pixel"]), ("f_stop", o["f_stop"]))
        missing = [k for k, v in wanted if v is None]
        if missing:
            raise InputTypeError(f"depth_of_field needs {' and '.join(missing)}, or "
                                 "depth_kind='disparity' with max_blur")
        return None
    scalars = {k: validate.scalar(o[k]) for k in ("max_blur", "focus_disparity")}  # (NumPy's
    blur, focus = check_options({**o, **scalars}, lambda k: k)  # as their numbers)
    pixel = None if o["focus_pixel"] is None else focus_pixel(o["focus_pixel"])
    lens = stand_in(o["max_coc_px"], check_blades("aperture_blades", o["aperture_blades"]))
    return Disparity(blur, focus, pixel, lens)


def depth_lenses(d: Disparity | None, o: dict, depth: Any) -> tuple[Any, Lens | list[Lens]]:
    """``depth_of_field``'s depth (N, H, W) as the engine takes it and its lens (or one
    per frame), of the keywords ``o``: a distance's (:func:`lenses_of`), or a disparity
    map's ``d`` (:func:`stand_in_metres`)."""
    if d is not None:
        return stand_in_metres(d, depth)
    camera = (50.0 if o["focal_length_mm"] is None else o["focal_length_mm"],
              36.0 if o["sensor_width_mm"] is None else o["sensor_width_mm"])
    check_focal_length(validate.scalar(camera[0]))  # (the keyword's cap: not a camera's)
    focus = o["focus_distance"]
    if o["focus_pixel"] is not None:  # each frame focused at its own depth there
        pixel = focus_pixel(o["focus_pixel"])
        pixel_inside(pixel, (depth.shape[-1], depth.shape[-2]))
        lens = (o["f_stop"], *camera, o["max_coc_px"], o["aperture_blades"])
        focal = Lens(math.inf, *(validate.scalar(v) for v in lens)).focal_length_mm  # (each
        focus = [focus_at(pixel, d, focal, k) for k, d in enumerate(depth)]  # checked first)
    return depth, lenses_of(focus, depth, o["f_stop"], *camera, o["max_coc_px"],
                            o["aperture_blades"], level=4)  # (the caller's line warned)


def stand_in_metres(d: Disparity, inverse: Any) -> tuple[Any, Lens | list[Lens]]:
    """A disparity map's :func:`hfrender.disparity.inverse` (N, H, W) in stand-in metres,
    scaled once from its first frame, and the lens of each frame (``d.pixel``: each
    frame's focused at its own disparity there); a focus no pixel is in, a warning."""
    n, h, w = inverse.shape
    if d.pixel is not None:
        pixel_inside(d.pixel, (w, h))
    first = inverse[0] if isinstance(inverse, np.ndarray) else inverse[0].get()
    fit = d.fit(first, w, "depth's first frame")
    if fit.note:
        warnings.warn(fit.note, UserWarning, stacklevel=4)  # depth_of_field's caller's
    metres = inverse * np.float32(fit.metres)
    if d.pixel is None:
        return metres, replace(d.lens, focus_distance=fit.focus_distance)
    x, y = d.pixel
    return metres, [replace(d.lens, focus_distance=float(m[y, x])) for m in metres]
