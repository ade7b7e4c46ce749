"""The sRGB transfer (IEC 61966-2-1): code values <-> linear light, once for everyone.

The curves, and the lookup tables built from them once per process, are shared by the
renderer (scene colours), the NumPy backend and the CUDA backend (tables copied to the
device). Integer frames are sRGB-encoded; float32 frames are linear; alpha is linear.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from numbers import Real

import numpy as np

from hfrender.errors import InputError, InputTypeError

ENCODE_INDEX_MAX = 65535  # linear light is quantised to 1/65535 before the 8-bit encode table
INV_GAMMA = 1 / 2.4  # the encoding curve's exponent (float32 in the kernels, as np.float32)
# weighted sums of code values whose weights are not exact binary fractions land a few
# float32 ulps from exact halves; this bias sends those ties up, as integer arithmetic does
TIE_BIAS = 1.0 / 4096
# light this bright leaves a pixel's running box sum by a fresh sum of its window, not by a
# subtraction: float64 keeps 2**-53 of it, which would take the dim light beside it along
# (0.05 after a frame of 1e16 came out 0.0125 to the clip's end); under it, a subtraction
# is off by at most 1e-10 (the CPU's backends/cpu/blur.py and the kernels' HF_RUNNING_LIMIT)
RUNNING_LIMIT = float(2 ** 20)


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """The sRGB decoding curve (IEC 61966-2-1) on values in [0, 1], in float64."""
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    """The sRGB encoding curve on linear values in [0, 1], in float64."""
    x = np.clip(np.asarray(x, np.float64), 0.0, 1.0)
    return np.where(x <= 0.0031308, x * 12.92, 1.055 * x ** INV_GAMMA - 0.055)


@cache
def decode_table(dtype: str) -> np.ndarray:
    """float32 linear value of every code value of ``dtype`` (uint8 or uint16)."""
    top = np.iinfo(dtype).max
    return srgb_to_linear(np.arange(top + 1) / top).astype(np.float32)


@cache
def decode16_table() -> np.ndarray:
    """uint16 linear value (0..65535) of every 8-bit sRGB code value: exact integer sums."""
    return np.rint(srgb_to_linear(np.arange(256) / 255) * 65535).astype(np.uint16)


@cache
def encode8_table() -> np.ndarray:
    """8-bit sRGB code value of every linear value ``i / 65535`` (round to nearest)."""
    lin = np.arange(ENCODE_INDEX_MAX + 1) / ENCODE_INDEX_MAX
    return np.rint(linear_to_srgb(lin) * 255).astype(np.uint8)


def _rgb_linear(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(linear RGB float32, alpha 0..1 float32) of RGBA frames: sRGB codes (uint8, uint16)
    or linear float32."""
    if frames.dtype == np.float32:
        return frames[..., :3].astype(np.float32), frames[..., 3:4].astype(np.float32)
    top = float(np.iinfo(frames.dtype).max)
    return (decode_table(frames.dtype.str)[frames[..., :3]],
            frames[..., 3:4].astype(np.float32) / np.float32(top))


def _encode_into(out: np.ndarray, lin: np.ndarray) -> np.ndarray:
    """Linear RGB into ``out``'s colour channels, in ``out``'s own encoding."""
    lin = np.clip(lin, 0.0, None if out.dtype == np.float32 else 1.0)
    if out.dtype == np.float32:
        out[..., :3] = lin
    elif out.dtype == np.uint8:
        codes = np.minimum(np.rint(lin * ENCODE_INDEX_MAX), ENCODE_INDEX_MAX)
        out[..., :3] = encode8_table()[codes.astype(np.intp)]
    else:
        out[..., :3] = np.rint(linear_to_srgb(lin.astype(np.float64)) * 65535)
    return out


def straight_alpha(frames: np.ndarray, linear_light: bool = True) -> np.ndarray:
    """RGBA with premultiplied colour (what fusion gives: light and coverage blended
    alike) -> straight colour, as PNG, ProRes 4444 and VP9 alpha store it: in linear
    light, colour / alpha where alpha > 0, encoded again (uint8, uint16 sRGB codes;
    float32 linear); on code values where they were blended so (``linear_light`` False).
    Composited as ``colour * alpha + background * (1 - alpha)`` it gives the premultiplied
    value back within a code value: a blurred edge has no fringe."""
    colour, alpha = _blend_space(frames, linear_light)
    return _with_colour(frames, np.divide(colour, alpha, out=np.zeros_like(colour),
                                          where=alpha > 0), linear_light)


def premultiply(frames: np.ndarray, linear_light: bool = True) -> np.ndarray:
    """RGBA with straight colour -> premultiplied (colour * alpha in linear light, or on
    code values: ``linear_light`` False), in the frames' dtype: what blends like light.
    The inverse of :func:`straight_alpha` (up to rounding)."""
    colour, alpha = _blend_space(frames, linear_light)
    return _with_colour(frames, colour * alpha, linear_light)


def _blend_space(frames: np.ndarray, linear_light: bool) -> tuple[np.ndarray, np.ndarray]:
    """(colour, alpha 0..1) float32 of RGBA frames in the space they are blended in: linear
    light, or code values over their largest (``linear_light`` False); float32 as it is."""
    if frames.dtype == np.float32 or linear_light:
        return _rgb_linear(frames)
    top = np.float32(np.iinfo(frames.dtype).max)
    return frames[..., :3] / top, frames[..., 3:4] / top


def _with_colour(frames: np.ndarray, colour: np.ndarray, linear_light: bool) -> np.ndarray:
    """A copy of ``frames`` (its alpha) with ``colour`` (:func:`_blend_space`'s) encoded."""
    out = np.array(frames)
    if out.dtype == np.float32:
        out[..., :3] = colour
    elif linear_light:
        _encode_into(out, colour)
    else:
        out[..., :3] = np.rint(np.clip(colour, 0.0, 1.0) * np.iinfo(out.dtype).max)
    return out


def srgb_color(c: Sequence[float]) -> tuple[float, ...]:
    """A display (sRGB) colour such as ``(0.8, 0.2, 0.1)`` -> linear light, as floats."""
    return tuple(float(v) for v in srgb_to_linear(np.asarray(c, np.float64)))


def shown(value: object) -> str:
    """``repr`` on one line (an array as a list), cut short: for error messages."""
    if isinstance(value, np.ndarray) and value.size <= 8:
        value = value.tolist()
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def _css_alpha(text: str) -> tuple[str, float | None]:
    """``rgba(r, g, b, a)`` as CSS writes it, its alpha 0..1 or a percentage (PIL reads an
    alpha of 1 as 1/255): (``rgb(r, g, b)``, alpha); any other text as it is, None."""
    m = re.fullmatch(r"rgba\(\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([0-9.]+)(%?)\s*\)", text,
                     re.IGNORECASE)
    if m is None:
        return text, None
    a = float(m.group(4)) / (100.0 if m.group(5) else 1.0)
    return f"rgb({m.group(1)}, {m.group(2)}, {m.group(3)})", (a if a <= 1 else a / 255)


def display_color(value: object, what: str = "color") -> tuple[float, float, float]:
    """A colour as manim, CSS and Blender users write it -> ``(r, g, b)`` display floats.

    Accepted: a CSS/X11 name (``"red"``, any case), hex (``"#ff8800"``, ``"#f80"``), a CSS
    function (``"rgb(255, 136, 0)"``, ``"hsl(30, 100%, 50%)"``), or three numbers 0..1
    (a tuple, list or array). Colours here are opaque: an alpha (``"#ff8800ff"``, a fourth
    number) is accepted only when it is 1, fully opaque (another is told to be an object's
    ``opacity``, or a background of ``None``). The result is the display (sRGB)
    value, as floats: light it with :func:`srgb_color`.

    Raises ``InputError`` (``InputTypeError`` for a value that is no colour at all) with
    one line naming ``what``, the value and what is allowed.
    """
    allowed = "a name ('red'), hex ('#ff8800', '#f80') or 3 numbers 0..1 (r, g, b)"
    if isinstance(value, str):
        from PIL import ImageColor

        try:
            text, css_alpha = _css_alpha(value.strip())
            rgba = ImageColor.getrgb(text)
        except ValueError:
            import difflib

            close = difflib.get_close_matches(value.strip().lower(), ImageColor.colormap, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; use {allowed}"
            raise InputError(f"{what}={value!r} is not a colour{hint}") from None
        if max(rgba[:3]) > 255:  # (PIL keeps what rgb() is given)
            raise InputError(f"{what}={value!r}: an rgb() colour's values are 0..255 (or "
                             "0%..100%)")
        rgb = [c / 255 for c in rgba[:3]]
        alpha = css_alpha if css_alpha is not None else (rgba[3] / 255 if len(rgba) > 3
                                                         else 1.0)
    elif isinstance(value, (list, tuple, np.ndarray)):
        items = list(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else value
        if len(items) not in (3, 4) or (isinstance(value, np.ndarray) and value.ndim != 1):
            raise InputError(f"{what}={shown(value)} must be {allowed}")
        if not all(isinstance(v, Real) and not isinstance(v, (bool, np.bool_))
                   for v in items):
            raise InputError(f"{what}={shown(value)}: the values must be numbers 0..1")
        numbers = [float(v) for v in items]
        if not all(0.0 <= v <= 1.0 for v in numbers):  # also refuses nan
            hint = ("; 0..255 values? write hex ('#ff8800') or divide by 255"
                    if all(0.0 <= v <= 255.0 for v in numbers) and max(numbers) > 2 else
                    "; a value just past 0..1 (an interpolation's overshoot?): clamp it, "
                    "min(max(v, 0), 1)" if all(-0.05 <= v <= 1.05 for v in numbers) else "")
            raise InputError(f"{what}={shown(value)}: the values must be numbers 0..1{hint}")
        rgb, alpha = numbers[:3], (numbers[3] if len(numbers) > 3 else 1.0)
    else:
        raise InputTypeError(f"{what}={shown(value)} is not a colour; use {allowed}")
    if alpha != 1.0:  # what the alpha was meant to do, said (was: "or alpha 1" alone)
        instead = ("; no background at all is background = None (or --transparent)"
                   if what.endswith(".background") else
                   f" and opacity={alpha:.3g} (how much of the object covers what is behind)")
        raise InputError(f"{what}={shown(value)} has alpha {alpha:.3g}; colours here are "
                         f"opaque: give (r, g, b){instead}")
    return (rgb[0], rgb[1], rgb[2])
