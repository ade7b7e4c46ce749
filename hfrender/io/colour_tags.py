"""The colour an output's encoder is told and its frames are tagged with (:mod:`.ffmpeg`'s
command lines): BT.709 YUV in limited range from hfrender's sRGB frames, a source's own
tags for its planes passed through, sRGB for RGB outputs; and a source's pixel aspect."""

from __future__ import annotations

import re
from typing import Any

# hfrender's frames are sRGB (BT.709 primaries): a YUV output is converted with the BT.709
# matrix in limited range, and says so (untagged, ffmpeg converted with BT.601's matrix,
# while players take untagged HD as BT.709: pure green showed as 0,215,0)
BT709 = {"colorspace": "bt709", "color_primaries": "bt709", "color_trc": "bt709",
         "range": "tv"}
COLOUR_FLAGS = {"range": "color_range"}  # setparams's names that the encoder's differ from
YUV = ("yuv", "nv", "p0", "p2", "p4", "y2", "yuyv", "uyvy", "yvyu")  # luma and chroma
RGB = ("rgb", "bgr", "gbr", "argb", "abgr", "0rgb", "0bgr", "x2rgb", "x2bgr")  # no matrix
SRGB = "color_primaries=bt709:color_trc=iec61966-2-1"  # an RGB output's: as it is drawn
SPEC = re.compile(r"[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*/[a-z][a-z0-9-]*)?")
# ffmpeg's scaler converts 16-bit RGB to and from YUV as if white were 65280 (an 8-bit code
# shifted up), not 65535: hfrender's white made Y 943 of 10 bits, not 940 (0.4% too bright,
# ProRes's 3772 of 12 bits, not 3760), and a 10-bit 940 read as 65283 (an audit). These
# put its colour on its scale about the conversion (alpha, which it scales right, is left;
# lutrgb truncates its expression: + 0.5 rounds)
WIDE = ("rgb48le", "rgba64le")
TO_SCALER = "lutrgb=" + ":".join(f"{c}=val*256/257+0.5" for c in "rgb")
FROM_SCALER = "lutrgb=" + ":".join(f"{c}=min(val*257/256+0.5\\,65535)" for c in "rgb")


def colour_options(pix_fmt_in: str, pix_fmt: str, source: str = "") -> tuple[str | None,
                                                                               list[str]]:
    """(filters, encoder tags) into an output of ``pix_fmt``: from RGB frames into YUV,
    BT.709 in limited range, said on the frames (``setparams``: the encoder's options
    alone left the primaries and transfer unknown) and to the encoder (ffmpeg before 7.1
    ignores both when it converts: the matrix is the scale filter's); a source's YUV
    planes passed through unconverted keep the colour of ``source`` (its pixel format as
    ffmpeg describes the stream: ``yuv420p(tv, bt709, progressive)``); RGB from RGB frames
    is sRGB: BT.709's primaries, the sRGB transfer."""
    if pix_fmt.startswith(RGB) and not pix_fmt_in.startswith(YUV):  # sRGB, as drawn (was:
        return f"setparams={SRGB}", ["-color_primaries", "bt709", "-color_trc",  # untagged)
                                     "iec61966-2-1"]
    if not pix_fmt.startswith(YUV):
        return None, []
    if pix_fmt_in.startswith(YUV):
        colour = source_colour(source)
        scale = []
    else:
        colour, scale = BT709, ["scale=out_color_matrix=bt709:out_range=tv"]
        if pix_fmt_in in WIDE:
            scale.insert(0, TO_SCALER)
    if not colour:
        return None, []
    said = ":".join(f"{k}={v}" for k, v in colour.items())
    return ",".join([*scale, f"setparams={said}"]), [
        x for k, v in colour.items() for x in (f"-{COLOUR_FLAGS.get(k, k)}", v)]


def source_colour(described: str) -> dict[str, str]:
    """The colour of a stream ffmpeg describes as ``yuv420p(tv, bt709, progressive)`` or
    ``yuv420p(tv, bt470bg/bt470bg/smpte170m)`` (space, primaries, transfer): ``setparams``'s
    names and values, those it says."""
    inside = described.partition("(")[2].partition(")")[0]
    colour: dict[str, str] = {}
    for part in (p.strip() for p in inside.split(",")):
        if part in ("tv", "pc"):
            colour["range"] = part
        elif part != "progressive" and SPEC.fullmatch(part):
            names = part.split("/") if "/" in part else [part] * 3
            for key, name in zip(("colorspace", "color_primaries", "color_trc"), names,
                                 strict=True):
                if name != "unknown":
                    colour[key] = name
    return colour


def output_filters(pix_fmt_in: str, pix_fmt: str, codec: str,
                   encoding: Any = None) -> tuple[str | None, list[str]]:
    """(filter chain, encoder tags) of an output: its colour (:func:`colour_options`) and
    the source's pixel aspect where it is not square (``encoding.sar``: anamorphic
    footage keeps its picture's shape)."""
    colour, tags = colour_options(pix_fmt_in, pix_fmt, getattr(encoding, "source", ""))
    sar = getattr(encoding, "sar", "1:1")
    aspect = f"setsar={sar.replace(':', '/')}" if sar != "1:1" and codec != "gif" else None
    return ",".join(f for f in (colour, aspect) if f) or None, tags
