"""Straight-alpha frames through the effects' premultiplied blend (``premultiplied=False``
of :func:`hfrender.effects.motion_blur`, ``depth_of_field`` and ``vector_blur``):
premultiplied in float32 in the space the backends blend in, and made straight again
after, a pixel the blend left alone given back bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.backends.cpu.color import Transfer
from hfrender.errors import InputError


def to_straight(light: np.ndarray, dtype: np.dtype, linear_light: bool) -> np.ndarray:
    """float32 premultiplied RGBA (:func:`to_premultiplied`'s) -> straight-alpha frames of
    ``dtype``, encoded as the frames of ``premultiplied=True`` are (the backends' rounding:
    an opaque clip gives the same codes either way)."""
    t = Transfer(np.dtype(dtype), 4, linear_light)
    colour, alpha = light[..., :3], light[..., 3:]
    share = alpha if t.srgb or t.is_float else alpha / np.float32(t.top)
    src = np.concatenate([np.divide(colour, share, out=np.zeros_like(colour),
                                    where=share > 0), alpha], axis=-1)
    return src if t.is_float else t.encode(src, np.empty(src.shape, dtype))


def straight_kept(light: np.ndarray, lit: np.ndarray, src: np.ndarray,
                  linear_light: bool) -> np.ndarray:
    """:func:`to_straight` of the defocused ``light``, and where a pixel's light is its
    input's (``lit``, premultiplied: in focus, never blurred) and it is not transparent,
    the input pixel ``src`` itself, bit for bit (float32 colour premultiplied and divided
    by its alpha again moved by a unit in the last place: 0.9721249 -> 0.9721248 at 0.3)."""
    res = to_straight(light, src.dtype, linear_light)
    kept = (light == lit).all(axis=-1) & (src[..., 3] > 0)
    res[kept] = src[kept]
    return res


def to_premultiplied(arr: Any, on_device: bool, linear_light: bool) -> np.ndarray:
    """Straight-alpha RGBA frames premultiplied (``premultiplied=False``), float32, in the
    space and units the backends blend them in (``Transfer.decode``: linear light, alpha
    0..1; or code units, alpha too), not rounded to the frames' codes."""
    if on_device:
        raise InputError("premultiplied=False takes host (NumPy) arrays; premultiply GPU "
                         "frames first and pass premultiplied=True")
    if arr.shape[-1] != 4:
        raise InputError(f"premultiplied=False is for RGBA frames; these have "
                         f"{arr.shape[-1]} channels (no alpha to premultiply)")
    t = Transfer(arr.dtype, 4, linear_light)
    light = t.decode(arr, np.empty(arr.shape, np.float32))
    light[..., :3] *= light[..., 3:] if t.srgb or t.is_float else \
        light[..., 3:] / np.float32(t.top)
    return light
