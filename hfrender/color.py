"""The sRGB transfer (IEC 61966-2-1): code values <-> linear light, once for everyone.

The curves, and the lookup tables built from them once per process, are shared by the
renderer (scene colours), the NumPy backend and the CUDA backend (tables copied to the
device). Integer frames are sRGB-encoded; float32 frames are linear; alpha is linear.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

ENCODE_INDEX_MAX = 65535  # linear light is quantised to 1/65535 before the 8-bit encode table
INV_GAMMA = 1 / 2.4  # the encoding curve's exponent (float32 in the kernels, as np.float32)
# weighted sums of code values whose weights are not exact binary fractions land a few
# float32 ulps from exact halves; this bias sends those ties up, as integer arithmetic does
TIE_BIAS = 1.0 / 4096


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


def srgb_color(c: Sequence[float]) -> tuple[float, ...]:
    """A display (sRGB) colour such as ``(0.8, 0.2, 0.1)`` -> linear light, as floats."""
    return tuple(float(v) for v in srgb_to_linear(np.asarray(c, np.float64)))
