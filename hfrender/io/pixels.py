"""What footage holds and how its frames travel: alpha, bit depth, raw pipe formats.

Raw formats between ffmpeg and hfrender: ``rgb24``/``rgba`` (uint8), ``rgb48le``/
``rgba64le`` (uint16, the 16-bit working format for footage with more than 8 bits), and
``yuv420p`` planes (the tmix-exact path); ``rgbf32``/``rgbaf32``: float32 linear light
with premultiplied alpha, an EXR sequence's frames (read by hfrender, never by ffmpeg).
A video's own pixel format (what the probe prints, such as ``yuv422p10le(tv,
progressive)``) says whether it has alpha and more than 8 bits: ffmpeg's table of pixel
formats (``ffmpeg -pix_fmts``: components and bit depths) is read once per process, and
only for formats other than the common 8-bit ones.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache

import numpy as np

# raw format -> (channels, dtype)
RAW = {"rgb24": (3, np.uint8), "rgba": (4, np.uint8), "rgb48le": (3, np.uint16),
       "rgba64le": (4, np.uint16), "rgbf32": (3, np.float32), "rgbaf32": (4, np.float32)}
FLOAT = ("rgbf32", "rgbaf32")  # linear light, alpha premultiplied (as EXR holds it)
ALPHA = ("rgba", "rgba64le", "rgbaf32")
PLAIN = frozenset({"yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p",
                   "nv12", "nv21", "rgb24", "bgr24", "gray", "yuv411p", "yuv410p",
                   "yuyv422", "uyvy422", "gbrp", "0rgb", "rgb0", "bgr0", "0bgr"})


def raw_format(alpha: bool, deep: bool) -> str:
    """The raw format that keeps ``alpha`` and more than 8 bits (``deep``)."""
    return {(False, False): "rgb24", (True, False): "rgba", (False, True): "rgb48le",
            (True, True): "rgba64le"}[(alpha, deep)]


def raw_dtype(pix_fmt: str) -> type:
    """The array dtype of a raw format's frames (yuv420p planes: uint8)."""
    return RAW.get(pix_fmt, (0, np.uint8))[1]


def base_name(pix_fmt: str) -> str:
    """``yuv422p10le(tv, progressive)`` -> ``yuv422p10le``."""
    return pix_fmt.split("(", 1)[0].strip()


def pix_fmt_facts(pix_fmt: str) -> tuple[bool, bool]:
    """(has alpha, more than 8 bits) of a video's pixel format, as the probe prints it."""
    name = base_name(pix_fmt)
    if not name or name in PLAIN:
        return False, False
    facts = _ffmpeg_pix_fmts().get(name)
    if facts is None:  # a name this ffmpeg does not list: read it from its spelling
        depth = re.search(r"(9|1[0-6])(le|be)?$", name)
        return name.startswith(("yuva", "rgba", "bgra", "argb", "abgr", "gbrap", "ya")), \
            depth is not None or name.startswith(("rgb48", "bgr48", "rgba64", "bgra64"))
    components, depth = facts
    return components in (2, 4), depth > 8


@cache
def _ffmpeg_pix_fmts() -> dict[str, tuple[int, int]]:
    """name -> (components, largest bit depth) from ``ffmpeg -pix_fmts``."""
    from hfrender.io.ffmpeg import ffmpeg_exe

    try:
        res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-pix_fmts"], capture_output=True,
                             text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    out = {}
    for line in res.stdout.splitlines():
        m = re.match(r"[IOHPB.]{5}\s+(\S+)\s+(\d+)\s+\d+\s+([\d-]+)\s*$", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), max(int(d) for d in m.group(3).split("-")))
    return out
