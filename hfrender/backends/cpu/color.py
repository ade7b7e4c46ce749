"""sRGB transfer on the CPU: frames <-> linear light, through the tables of hfrender.color.

Integer frames are sRGB-encoded; float32 frames are linear. Alpha (channel 3 of RGBA)
is always linear. ``pow`` over whole frames is ~10x slower than a table lookup here,
so every conversion is a ``np.take`` into a table built once per process.
"""

from __future__ import annotations

import numpy as np

from hfrender.color import ENCODE_INDEX_MAX, INV_GAMMA, TIE_BIAS, decode_table, encode8_table

LOOKUP_CHUNK = 1 << 18  # elements per table lookup: a 2 MiB index buffer, reused


def lookup(table: np.ndarray, src: np.ndarray, out: np.ndarray, index: np.ndarray) -> None:
    """``out[...] = table[src]`` without allocating.

    ``np.take`` converts its indices to ``intp`` in a fresh array as large as ``src``; going
    through the preallocated ``index`` buffer (``intp``, any length) in chunks avoids that
    allocation and keeps the indices in cache.
    """
    if not (src.flags.c_contiguous and out.flags.c_contiguous):
        np.take(table, src, out=out, mode="wrap")
        return
    flat_src, flat_out = src.reshape(-1), out.reshape(-1)
    step = len(index)
    for a in range(0, flat_src.size, step):
        b = min(a + step, flat_src.size)
        idx = index[: b - a]
        np.copyto(idx, flat_src[a:b], casting="unsafe")
        np.take(table, idx, out=flat_out[a:b], mode="wrap")


class Transfer:
    """Decode frames of one dtype/layout to float32 linear light, and encode back.

    Parameters
    ----------
    dtype : numpy dtype of the frames (uint8, uint16 or float32)
    channels : 1, 3 or 4 (4 = RGBA: alpha is linear)
    linear_light : blend in linear light (True) or on code values (False)

    Scratch buffers are kept per shape and reused: after the first frame, decoding and
    encoding allocate nothing.
    """

    def __init__(self, dtype: np.dtype, channels: int, linear_light: bool) -> None:
        self.dtype = np.dtype(dtype)
        self.channels = channels
        self.is_float = self.dtype.kind == "f"
        self.srgb = bool(linear_light) and not self.is_float
        self.top = 1.0 if self.is_float else float(np.iinfo(self.dtype).max)
        self._scratch: dict[tuple, np.ndarray] = {}

    @property
    def index(self) -> np.ndarray:
        """The reusable index buffer of :func:`lookup`."""
        return self._buf((LOOKUP_CHUNK,), np.intp)

    def _buf(self, shape: tuple, dtype: type) -> np.ndarray:
        key = (shape, np.dtype(dtype).str)
        buf = self._scratch.get(key)
        if buf is None:
            buf = self._scratch[key] = np.empty(shape, dtype)
        return buf

    def decode(self, src: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` (float32, same shape) = linear light of ``src``.

        In code-value mode the values stay in code units (0..255 or 0..65535): float32 holds
        them exactly, so weights such as 3/8 give exact sums and exact halves round up.
        """
        if self.is_float:
            np.copyto(out, src)
        elif self.srgb:
            lookup(decode_table(self.dtype.str), src, out, self.index)
            if self.channels == 4:
                np.multiply(src[..., 3], np.float32(1.0 / self.top), out=out[..., 3])
        else:
            np.copyto(out, src, casting="unsafe")
        return out

    def encode(self, src: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` (frames' dtype) = ``src`` (float32 linear) encoded, rounded to nearest.

        ``src`` is used as scratch and is clobbered for integer outputs.
        """
        if self.is_float:
            np.copyto(out, src)
            return out
        alpha = None
        if self.srgb and self.channels == 4:
            alpha = self._buf(src.shape[:-1], np.float32)
            np.copyto(alpha, src[..., 3])
        if not self.srgb:  # code values, in code units
            np.clip(src, 0.0, np.float32(self.top), out=src)
            np.add(src, np.float32(0.5 + TIE_BIAS), out=src)
            np.copyto(out, src, casting="unsafe")
            return out
        np.clip(src, 0.0, 1.0, out=src)
        if self.dtype == np.uint8:
            idx = self._buf(src.shape, np.uint16)
            np.multiply(src, np.float32(ENCODE_INDEX_MAX), out=src)
            np.add(src, np.float32(0.5), out=src)
            np.copyto(idx, src, casting="unsafe")
            lookup(encode8_table(), idx, out, self.index)
        else:  # uint16: a table would need more than 16 bits of input
            dark = self._buf(src.shape, np.bool_)
            lo = self._buf(src.shape, np.float32)
            np.less_equal(src, np.float32(0.0031308), out=dark)
            np.multiply(src, np.float32(12.92), out=lo)
            np.power(src, np.float32(INV_GAMMA), out=src)
            np.multiply(src, np.float32(1.055), out=src)
            np.subtract(src, np.float32(0.055), out=src)
            np.copyto(src, lo, where=dark)
            np.multiply(src, np.float32(self.top), out=src)
            np.add(src, np.float32(0.5), out=src)
            np.copyto(out, src, casting="unsafe")
        if alpha is not None:
            np.clip(alpha, 0.0, 1.0, out=alpha)
            np.multiply(alpha, np.float32(self.top), out=alpha)
            np.add(alpha, np.float32(0.5), out=alpha)
            np.copyto(out[..., 3], alpha, casting="unsafe")
        return out
