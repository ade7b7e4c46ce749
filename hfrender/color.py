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

from hfrender.errors import InputError, InputTypeError, spelling
from hfrender.errors import shown as one_line

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
    return one_line(value)


# manim's palette, as manim names it (ManimCommunity/manim manim/utils/color/manim_colors.py
# at commit 0204c66ab6fed0375ce13023cdd8f4abfb1689cb, manim v0.20 on: YELLOW_C was #FFFF00
# before); every GRAY name is GREY too. Its names with an underscore ("BLUE_E",
# "dark_grey": any case, as manim reads a string) are manim's colours here: no CSS name has
# one. The others (RED, ORANGE, ...) are CSS names too, and stay CSS's ("red" is #FF0000,
# manim's RED #FC6255): hf.RED says manim's hex (manim_color_hint).
_MANIM = """
WHITE FFFFFF GRAY_A DDDDDD GRAY_B BBBBBB GRAY_C 888888 GRAY_D 444444 GRAY_E 222222
BLACK 000000 LIGHTER_GRAY DDDDDD LIGHT_GRAY BBBBBB GRAY 888888 DARK_GRAY 444444
DARKER_GRAY 222222 BLUE_A C7E9F1 BLUE_B 9CDCEB BLUE_C 58C4DD BLUE_D 29ABCA BLUE_E 236B8E
PURE_BLUE 0000FF BLUE 58C4DD DARK_BLUE 236B8E TEAL_A ACEAD7 TEAL_B 76DDC0 TEAL_C 5CD0B3
TEAL_D 55C1A7 TEAL_E 49A88F TEAL 5CD0B3 GREEN_A C9E2AE GREEN_B A6CF8C GREEN_C 83C167
GREEN_D 77B05D GREEN_E 699C52 PURE_GREEN 00FF00 GREEN 83C167 YELLOW_A FFF1B6
YELLOW_B FFEA94 YELLOW_C F7D96F YELLOW_D F4D345 YELLOW_E E8C11C YELLOW F7D96F
GOLD_A F7C797 GOLD_B F9B775 GOLD_C F0AC5F GOLD_D E1A158 GOLD_E C78D46 GOLD F0AC5F
RED_A F7A1A3 RED_B FF8080 RED_C FC6255 RED_D E65A4C RED_E CF5044 PURE_RED FF0000
RED FC6255 MAROON_A ECABC1 MAROON_B EC92AB MAROON_C C55F73 MAROON_D A24D61
MAROON_E 94424F MAROON C55F73 PURPLE_A CAA3E8 PURPLE_B B189C6 PURPLE_C 9A72AC
PURPLE_D 715582 PURPLE_E 644172 PURPLE 9A72AC PINK D147BD LIGHT_PINK DC75CD ORANGE FF862F
LIGHT_BROWN CD853F DARK_BROWN 8B4513 GRAY_BROWN 736357 LOGO_WHITE ECE7E2 LOGO_GREEN 87C2A5
LOGO_BLUE 525893 LOGO_RED E07A5F LOGO_BLACK 343434 PURE_CYAN 00FFFF PURE_MAGENTA FF00FF
PURE_YELLOW FFFF00
""".split()
MANIM_COLORS: dict[str, str] = {name: f"#{code}" for name, code
                                 in zip(_MANIM[::2], _MANIM[1::2], strict=True)}
MANIM_COLORS.update({name.replace("GRAY", "GREY"): code for name, code in MANIM_COLORS.items()
                     if "GRAY" in name})


def manim_color_hint(name: str) -> str | None:
    """What manim's colour constant ``name`` is here (``hf.BLUE_E``: "manim's BLUE_E is
    color='#236B8E' (or color='BLUE_E')"; ``hf.RED``: its hex, and CSS's red beside it);
    None for a name not in manim's palette."""
    code = MANIM_COLORS.get(name)
    if code is None:
        return None
    said = f"manim's {name} is color={code!r}"
    if "_" in name:
        return f"{said} (or color={name!r})"
    from PIL import ImageColor

    css = "#{:02X}{:02X}{:02X}".format(*ImageColor.getrgb(name.lower()))
    return (f"{said} (or color={name.lower()!r})" if css == code else
            f"{said} (color={name.lower()!r} is CSS's, {css!r})")


def _nearest_name(text: str) -> str | None:
    """The colour name nearest a misspelt one: manim's for one with an underscore
    ("BLUE_F": 'BLUE_E'), else CSS's ("bleu": 'blue'); None when none is near."""
    import difflib

    from PIL import ImageColor

    close = difflib.get_close_matches(text.upper(), MANIM_COLORS, n=1) if "_" in text else []
    close = close or difflib.get_close_matches(text.lower(), ImageColor.colormap, n=1)
    return close[0] if close else None


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

    Accepted: a CSS/X11 name (``"red"``, any case), manim's names with an underscore
    (``"BLUE_E"``, any case: :data:`MANIM_COLORS`), hex (``"#ff8800"``, ``"#f80"``), a CSS
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

        name = value.strip().upper() if "_" in value else None  # manim's "BLUE_E"
        try:
            text, css_alpha = _css_alpha(MANIM_COLORS.get(name, value.strip()))
            rgba = ImageColor.getrgb(text)
        except ValueError:
            close = _nearest_name(value.strip())
            hint = f"; did you mean {close!r}?" if close else f"; use {allowed}"
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
        try:  # (a whole number past any float, 10**400: was its OverflowError)
            numbers = [float(v) for v in items]
        except OverflowError:
            numbers = [float("inf")]  # refused below, as any number past 0..1
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
        instead = (f"; no background at all is background = None (or "
                   f"{spelling().on('transparent')})"
                   if what.endswith(".background") else
                   f" and opacity={alpha:.3g} (how much of the object covers what is behind)")
        raise InputError(f"{what}={shown(value)} has alpha {alpha:.3g}; colours here are "
                         f"opaque: give (r, g, b){instead}")
    return (rgb[0], rgb[1], rgb[2])
