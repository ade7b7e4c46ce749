"""Checks at the edge of the public API: one clear line naming the value and what is allowed."""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from hfrender.errors import InputError, InputTypeError, shown
from hfrender.interop import grad_free, named_numbers, unmasked
from hfrender.numeric import whole_number
from hfrender.optics import MIN_BLUR_PX, Lens, scalar  # noqa: F401 (validate.scalar)

UNLIKELY_METRES = 1000.0  # integer depth read as metres this far away: millimetres, likely
DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))
CHANNELS = (1, 3, 4)
NO_DISPARITY = "a disparity must be a finite number (near is large; 0 or below is sky)"


def frames(arr: np.ndarray, name: str = "frames", allow_single: bool = False) -> np.ndarray:
    """Validate ``(N, H, W, C)`` frames (or ``(H, W, C)`` if ``allow_single``)."""
    want = "(N, H, W, C) or (H, W, C)" if allow_single else "(N, H, W, C)"
    if arr.ndim not in ((3, 4) if allow_single else (4,)):
        grey = (f" (one (H, W, C) frame: {name}[None]; (N, H, W) grey frames: {name}[..., None])"
                if arr.ndim == 3 and not allow_single else
                f" (one (H, W) grey frame: {name}[..., None])" if arr.ndim == 2 and allow_single
                else " (one (H, W) grey frame: a clip of them is numpy.stack(frames)[..., None])"
                if arr.ndim == 2 else "")  # ([..., None] of one frame: (H, W, 1), refused too)
        raise InputError(f"{name} must have shape {want}; got {arr.ndim}-D shape {arr.shape}"
                         f"{grey}")
    if arr.size == 0:
        raise InputError(f"{name} is empty (shape {arr.shape}); every dimension must be >= 1")
    if arr.shape[-1] not in CHANNELS:
        first = arr.ndim >= 3 and arr.shape[-3] in CHANNELS  # (N, C, H, W), as torch has them
        # (N, H, W) grey frames, read as one (H, W, C) frame (was: told channels first alone
        # where N was 3 or 4, whose fix made the clip one colour frame, blurred without a word)
        grey = f"; (N, H, W) grey frames? {name}[..., None]" if arr.ndim == 3 else ""
        raise InputError(
            f"{name} has C={arr.shape[-1]} channels (shape {arr.shape}); allowed: "
            f"1 (gray), 3 (RGB), 4 (RGBA){grey}" + (f"; channels first? move them last: "
                                             f"{name}.permute({_last(arr.ndim)}) (torch) or "
                                             f"numpy.moveaxis({name}, -3, -1)" if first else ""))
    if arr.dtype not in DTYPES:
        raise InputTypeError(f"{name} has dtype {arr.dtype}; allowed: uint8, uint16, float32"
                             f"{convert_hint(arr.dtype, name)}")
    if arr.dtype.kind == "f":
        finite(arr, name)
    return arr


def pixel_dtype(value: object, allowed: tuple[np.dtype, ...], name: str = "dtype",
                why: str = "", any_order: bool = False) -> np.dtype:
    """``value`` as one of the ``allowed`` dtypes, else one line naming it as given (was:
    ``None`` said as NumPy's default, float64; ``"nope"`` NumPy's bare TypeError). One of
    them in the other byte order (``'>u2'``): with ``any_order`` (where the byte order is
    hfrender's own: a pool's arena) it is that dtype, else a line saying so (was: "must be
    uint8, uint16 ...", as if '>u2' were not 16 bits). A torch dtype is the NumPy dtype of
    its name (was: ``torch.uint16`` "must be uint8 or uint16": NumPy reads no torch dtype)."""
    kind = type(value)  # a torch dtype ('torch.float32'), not any torch object (a tensor)
    torch = str(value) if (kind.__module__, kind.__name__) == ("torch", "dtype") else None
    if torch is not None and torch.startswith("torch."):
        value = torch[len("torch."):]  # (torch.float32: 'float32'; torch.bfloat16: no dtype)
    try:
        dt = None if value is None else np.dtype(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        dt = None
    here = None if dt is None else dt.newbyteorder("=")
    if here is not None and here != dt and here in allowed:
        if any_order:
            return here
        order = "big" if dt.byteorder == ">" else "little"
        raise InputTypeError(f"{name}={dt} is {order}-endian {here}; give {here} (the result "
                             f"is in this machine's byte order: .astype('{dt.str}') of it "
                             f"gives {order}-endian bytes)")
    if dt is None or dt not in allowed:
        said = torch or (shown(value) if dt is None else str(dt))
        names = [str(d) for d in allowed]
        listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
        raise InputTypeError(f"{name}={said} must be {listed}{why}")
    return dt


def _last(ndim: int) -> str:
    """torch's ``permute`` axes that move the channels of a ``ndim``-D channels-first
    array last: ``0, 2, 3, 1`` for (N, C, H, W), ``1, 2, 0`` for one (C, H, W) frame."""
    return ", ".join(str(i) for i in (*range(ndim - 3), ndim - 2, ndim - 1, ndim - 3))


def finite(arr: np.ndarray, name: str) -> None:
    """Float frames must hold no NaN or inf: one line with how many and the first's index.

    One pass in the common case: a NaN or inf anywhere makes the sum NaN or inf (so a
    finite sum clears them all; one that overflowed is looked at value by value)."""
    with np.errstate(all="ignore"):
        if math.isfinite(float(arr.sum(dtype=np.float32))):
            return
    bad = ~np.isfinite(arr)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f"at index {first}"  # (a ramp of values, not a picture)
        if arr.ndim in (3, 4):  # one (H, W, C) frame, or (N, H, W, C)
            *f, y, x, c = first
            where = f"{at(y, x, f[0] if f and arr.shape[0] > 1 else None)} (channel {c})"
        raise InputError(f"{name} has {int(bad.sum())} non-finite value(s) (NaN or inf), "
                         f"the first {where}; float32 frames must be finite linear light")


def at(y: int, x: int, frame: int | None = None) -> str:
    """Where a pixel is, one wording for every such line: its row and column, as the array
    is indexed (not focus_pixel's (x, y)), after its frame where one is named: 'at row 7,
    column 5', 'of frame 1 at row 7, column 5' (was: 'at index (1, 7, 5)', 'at pixel
    (x=5, y=7)', 'at x=5, y=7')."""
    return ("" if frame is None else f"of frame {frame} ") + f"at row {y}, column {x}"


def convert_hint(dtype: np.dtype, name: str) -> str:
    """What to do with float frames of another precision (float64 from NumPy, float16 from
    a half-float EXR): they are linear light, which float32 holds; else nothing."""
    if np.dtype(dtype).kind != "f":
        return ""
    return (f" (float frames are linear light: pass {name}.astype(numpy.float32), or a "
            f"torch tensor's {name}.float())")


def window(value: object, n: int) -> int:
    """``window`` frames of the ``n`` given: a whole number from 1 to ``n``."""
    value = scalar(value)
    if whole_number(value) and value > n:
        raise InputError(f"window={value} is longer than the {n} frame{'s' * (n != 1)} given: "
                         f"give at least {value} frames, or a window of at most {n}")
    return integer(value, "window", 1, n)


def integer(value: object, name: str, low: int, high: int | None = None) -> int:
    """An int in ``[low, high]``; bools and floats are refused. A 0-d array or tensor is
    its number (was: ``window=np.array(2)`` refused, where ``focus_distance`` takes one)."""
    value = scalar(value)
    ok = whole_number(value)
    if ok and value >= low and (high is None or value <= high):
        return int(value)
    span = f"[{low}, {high}]" if high is not None else f">= {low}"
    kind = InputError if ok else InputTypeError  # (a str or float: a TypeError too)
    raise kind(f"{name}={shown(value)} must be an integer {span}")


def real_array(value: object, name: str) -> np.ndarray | None:
    """``value`` as a float64 array of real numbers (Fractions and Decimals taken), or
    None where it holds anything else (strings, None, bools' object arrays, complex):
    the caller says what it wanted. A tensor that requires grad, or a masked array with
    values masked, is one line naming it as ``name``, the argument as its caller's user
    knows it (:func:`grad_free`; required: was 'value' where a caller left it out)."""
    grad_free(value, name)
    unmasked(value, name)
    arr = named_numbers(value, name)  # (depth's nested lists read alike: interop's)
    return None if arr is None else arr.astype(np.float64, copy=False)


def flag(value: object, name: str, default_none: bool = False) -> bool:
    """``value`` a bool (NumPy's too), else one line; ``default_none``: a switch whose
    default None is too (hf.render's: its line says so)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    allowed = "True, False or None (the default)" if default_none else "True or False"
    raise InputTypeError(f"{name}={shown(value)} must be {allowed}")


def _unit_axes(shape: tuple) -> tuple:
    """``shape`` without its axes of length 1."""
    return tuple(n for n in shape if n != 1)


def depth(arr: np.ndarray, frames_shape: tuple, name: str = "depth",
          one_for_all: bool = False, disparity: bool = False,
          argument: str | None = None, positive: bool = True,
          given: np.ndarray | None = None) -> np.ndarray:
    """Depth ``(N, H, W)`` (or ``(N, H, W, 1)``) matching ``frames_shape``, > 0, no NaN;
    ``one_for_all``: an ``(H, W)`` depth for every frame of a batch (a locked-off shot), as
    a broadcast view (NumPy or CuPy); ``disparity``: ``arr`` is a disparity map's
    :func:`hfrender.disparity.inverse`, its NaN a NaN or +inf of the map, said so;
    ``argument``: the name a fix is given for where ``name`` labels more (push's ``depth``
    of ``depth frame 3``; was advised 'pass depth frame 3 * 0.001'); ``positive``: a
    distance <= 0 refused (False: taken, where no lens may read it: push's); ``given``:
    the values a refusal names, of ``arr``'s shape (default ``arr``'s own, before float32:
    1e-300 named so, not as the 0 it is there; a disparity map's, of its stand-in)."""
    want = frames_shape[:-1]
    given = arr if given is None else given
    if arr.shape != want and _unit_axes(arr.shape) == _unit_axes(want) and \
            arr.ndim <= len(want) + 2:  # (H, W, 1), (1, H, W), a tensor's (N, 1, H, W) ...
        arr, given = arr.reshape(want), given.reshape(want)  # (views)
    several = len(want) == 3 and want[0] > 1  # (its bad values named by frame)
    if one_for_all and len(want) == 3 and arr.shape != want and arr.ndim <= 4 and \
            _unit_axes(arr.shape) == _unit_axes(want[1:]):  # (H, W), (1, H, W), (H, W, 1)
        xp = np if isinstance(arr, np.ndarray) else importlib.import_module("cupy")
        arr, given = (xp.broadcast_to(a.reshape(want[1:]), want) for a in (arr, given))
        several = False
    if arr.shape != want:
        raise InputError(
            f"{name} has shape {arr.shape}; it must match frames {frames_shape} without the "
            f"channel axis: {want}{_resize_hint(arr.shape, want)}"
        )
    if arr.dtype.kind not in "fiu":
        raise InputTypeError(
            f"{name} has dtype {arr.dtype}; depth must be numeric (float32 metres)"
        )
    far = unlikely_metres(arr)
    if far is not None:  # a warning of Python's: once per place it is called from
        warnings.warn(f"{name} is {arr.dtype} with values up to {far:g}, read as metres: if "
                      f"these are millimetres, pass {argument or name} * 0.001", UserWarning,
                      stacklevel=3)
    with np.errstate(over="ignore"):  # float64 past float32's range: inf, the sky
        arr = arr.astype(np.float32, copy=False)  # NumPy or CuPy alike
    bad = np.isnan(arr)  # told first, anywhere: the likelier mistake
    if not bad.any() and positive:
        bad = arr <= 0
    if bad.any():  # the first frame holding one, said as fx says a depth frame
        f = int(np.argwhere(bad)[0][0]) if arr.ndim == 3 else None
        frame, value = (arr, given) if f is None else (arr[f], given[f])
        raise _refused(_host(frame), name if f is None or not several else f"{name} frame {f}",
                       disparity, given=_host(value))
    return arr


def _host(arr: Any) -> np.ndarray:
    """A NumPy or CuPy array on the host."""
    return np.asarray(arr if isinstance(arr, np.ndarray) else arr.get())


def unlikely_metres(arr: np.ndarray) -> float | None:
    """The largest value of integer depth that reaches past :data:`UNLIKELY_METRES` when read
    as metres (millimetres from a depth camera or a 16-bit PNG, most likely: the whole frame
    would be far behind the focus, a render wasted), else None."""
    if arr.dtype.kind not in "iu" or not arr.size:
        return None
    largest = float(arr.max())
    return largest if largest > UNLIKELY_METRES else None


FOCUS_MARGIN = 1.5  # a focus this far past the depth's range: even its end blurs by a third


ASPECT_SLACK = 0.02  # a depth pass scaled to frames: width / height within 2% of theirs


def same_shape(size: tuple, other: tuple) -> bool:
    """Whether two (height, width) sizes have one shape, within :data:`ASPECT_SLACK` (what
    scaling may take from one to the other without stretching)."""
    (h, w), (oh, ow) = size, other
    return abs((w / h) / (ow / oh) - 1) <= ASPECT_SLACK


def _resize_hint(shape: tuple, want: tuple) -> str:
    """Where a depth is of the frames' shape at another size (a depth estimator's, often
    smaller): that it must be scaled first, and how."""
    if len(shape) < 2 or len(want) < 2 or shape[-2:] == want[-2:] or 0 in shape[-2:] or \
            not same_shape(shape[-2:], want[-2:]):
        return ""
    return ("; scale a depth pass of another size to the frames first (nearest neighbour: "
            "hard edges), as hfrender fx --depth-resize does")


def channels_last_hint(shape: tuple, wants: list[tuple], name: str) -> str:
    """Where ``shape`` is one of ``wants`` (shapes taken, channels last: velocity's
    (N, H, W, 2)) with its channels before the rows (a tensor's (N, 2, H, W), (2, H, W)):
    the np.moveaxis that puts them last; else ""."""
    for want in wants:
        if len(want) >= 3 and tuple(shape) == want[:-3] + want[-1:] + want[-3:-1]:
            return (f"; channels first: np.moveaxis({name}, {0 if len(want) == 3 else -3}, "
                    "-1) puts them last")
    return ""


def focus_note(depth: Any, focus_distance: float, name: str = "depth",
               focal_m: float = 0.0, sky_blur_px: float | None = None) -> str | None:
    """A warning when the focus plane lies nearer than every value of ``depth`` (metres,
    NumPy or CuPy), or farther than every one of a depth with no sky (``inf``): no pixel
    is at the focus distance, everything blurs (focus meant for other units, or depth that
    is no distance: an inverse depth, disparity, from a depth estimator), else None. Not
    for a depth of one plane (a plate defocused on purpose), nor within
    :data:`FOCUS_MARGIN` of the depth's ends (a focus just past the farthest object, as
    for the hyperfocal distance), nor for depth with NaN (refused where it is read). And
    one when depth comes nearer than the lens's focal length ``focal_m``: no lens images a
    point there (disparity with its sky read as inf, say, where the focus cannot tell).
    Depth with sky: a focus farther than all the rest is said where the sky blurs too,
    ``sky_blur_px`` (its circle of confusion) :data:`MIN_BLUR_PX` or more (was: never, and
    an inverse depth read with --depth-zero-is-sky blurred the whole frame unsaid)."""
    if not depth.size:
        return None
    lo, hi = float(depth.min()), float(depth.max())
    if math.isinf(hi) and sky_blur_px is not None and sky_blur_px >= MIN_BLUR_PX:
        rest = depth[depth < math.inf]
        hi = float(rest.max()) if rest.size else hi  # the sky too blurred: the rest's end
    if lo < focal_m:  # no lens images a point this near: not a distance (disparity, likely)
        return (f"{name} reaches {lo:g} m, nearer than the lens's focal length "
                f"({focal_m:g} m): no lens images that. {_NOT_METRES}")
    if math.isinf(focus_distance):  # focused at infinity on purpose: the farthest sharpest
        return None
    if (lo / FOCUS_MARGIN <= focus_distance <= hi * FOCUS_MARGIN or lo == hi
            or math.isnan(lo) or math.isnan(hi)):
        return None
    side = "nearer" if focus_distance < lo else "farther"
    sky = (f" and sky, blurred {sky_blur_px:.3g} px across" if math.isinf(float(depth.max()))
           and side == "farther" else "")
    return (f"the focus distance {focus_distance:g} m is {side} than all of {name} ({lo:g} "
            f"to {hi:g} m{sky}): no pixel is in focus. {_NOT_METRES}")


def blur_note(lenses: Iterable[Lens], nearest: float, farthest: float, width: int,
              height: int, name: str = "depth") -> str | None:
    """A warning when none of ``lenses`` blurs depths from ``nearest`` to ``farthest``
    metres by a pixel in a ``width`` x ``height`` frame: each pixel's disk is the pixels
    within its radius, squared and floored as the gather takes it
    (:meth:`hfrender.optics.Lens.largest_d2`), and under 1 that is the pixel alone (a
    circle of confusion under :data:`hfrender.optics.MIN_BLUR_PX` across); else None
    (and where all of it is in focus)."""
    r2 = max(lens.largest_d2(nearest, farthest, width, height) for lens in lenses)
    if r2 >= 1.0 or r2 == 0.0:  # (0: all of it in focus, a plate at its own distance)
        return None
    across = 2.0 * math.sqrt(r2)  # said short of 2 px where rounding would reach it
    text = (f"{across:.2g}" if float(f"{across:.2g}") < MIN_BLUR_PX
            else f"{math.floor(across * 100) / 100:.2f}")
    return (f"the circles of confusion of {name} reach only {text} px across: "
            f"under {MIN_BLUR_PX:g} px nothing is blurred (a pixel's disk is whole pixels); a "
            "lower f-stop or a longer focal length blurs more")


_NOT_METRES = ("Depth must be metres from the camera (an inverse depth, or disparity, from "
               "a depth estimator is not: near is large there; blur one as it is with "
               "depth_kind='disparity', hfrender fx --depth-kind disparity)")


def depth_frame(arr: np.ndarray, index: int, name: str = "depth", file: object = None,
                disparity: bool = False, given: Callable[[], np.ndarray | None] | None = None
                ) -> np.ndarray:
    """One frame ``(H, W)`` (or ``(H, W, 1)``) of a depth pass, checked as it is read:
    every value a distance > 0 (inf for sky). A bad value is named by the frame number
    ``index`` of the clip (and the ``file`` it came from: a sequence's) and the pixel
    (x, y) in it (``disparity``: of a disparity map's stand-in metres, its NaN a NaN or
    +inf of the map), its value as in what ``given()`` gives ((H, W): the frame as given,
    where ``arr`` is already float32: an .npy's float64 metres; made only for a refused
    frame), else ``arr``'s; returns the frame as float32."""
    if arr.ndim == 3 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if arr.ndim != 2:
        raise InputError(f"{name} frame {index} has shape {arr.shape}; a depth frame is "
                         "(height, width)")
    if arr.dtype.kind not in "fiu":
        raise InputTypeError(f"{name} frame {index} has dtype {arr.dtype}; depth must be "
                             "numeric (float32 metres)")
    first, arr = arr, np.asarray(arr, np.float32)
    if (arr > 0).all():  # (NaN and <= 0 in one pass)
        return arr
    name = f"{name} frame {index}" + ("" if file is None else f" ({file})")
    stored = None if given is None else given()
    stored = first if stored is None or stored.shape != arr.shape else stored
    raise _refused(arr, name, disparity, ZERO_IS_SKY, stored)


ZERO_IS_SKY = ("hfrender fx --depth-zero-is-sky reads 0 as sky, --depth-range NEAR,FAR a pass "
               "normalised to 0..1")


def _refused(arr: np.ndarray, name: str, disparity: bool = False,
             zero: str = "", given: np.ndarray | None = None) -> InputError:
    """The line for a depth frame ``arr`` (H, W) holding a NaN (told first) or a value
    <= 0: how many, the first's row and column (:func:`at`), what depth must be (``name``:
    which frame; ``disparity``: a NaN a NaN or +inf of a disparity map; ``zero``: what
    reads a first value of 0, fx's flags). ``given``: the frame as given, before float32,
    whose value is named (a depth of 1e-300 is 0 in float32, a disparity of 1e300 inf:
    named as given, said so). One wording for the library and fx."""
    nan = np.isnan(arr)
    kind = nan if nan.any() else ~(arr > 0)
    count = int(kind.sum())
    y, x = (int(i) for i in np.argwhere(kind)[0])
    value = float(arr[y, x] if given is None else given[y, x])
    if kind is nan and disparity:
        if math.isfinite(value):  # past float32's range: inf there, no disparity
            what = (f"a disparity of {value:g}, infinite in float32 (as a map is read)," if
                    count == 1 else f"{count} NaN or infinite disparities (in float32, as a "
                    f"map is read), the first {value:g}")
        else:
            what = ("a NaN or infinite disparity" if count == 1 else
                    f"{count} NaN or infinite disparities, the first")
        return InputError(f"{name} has {what} {at(y, x)}; {NO_DISPARITY}")
    if kind is nan:
        what = "a NaN" if count == 1 else f"{count} NaNs, the first"
    elif value > 0:  # under float32's smallest: 0 there
        what = (f"a value of {value:g}, 0 in float32 (as depth is read)," if count == 1
                else f"{count} values <= 0 in float32 (as depth is read), the first {value:g}")
    else:
        what = (f"a value <= 0 ({value:g})" if count == 1
                else f"{count} values <= 0, the first {value:g}")
    zero = f"; {zero}" if zero and value == 0 else ""
    return InputError(f"{name} has {what} {at(y, x)}; depth must be a distance > 0 (use inf "
                      f"for sky{zero})")
