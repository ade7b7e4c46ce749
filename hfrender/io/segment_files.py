"""A segment's file: its name, its container, its time stamps and its encoder.

H.264/H.265 segments go into MPEG-TS, each stamped at its place in the whole
(:func:`stamped`); other codecs into the output's own container or Matroska
(:func:`segment_suffix`). :func:`open_segment` makes the same bits wherever it runs, in
the render's process or on a cluster's worker (:mod:`hfrender.io.segments` keeps them).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from hfrender.io.ffmpeg import X264_LIKE, frame_rate
from hfrender.io.segment_parts import PART_TAG
from hfrender.io.writers import VideoWriter

TS_OFFSET = 10.0  # seconds before the first frame of MPEG-TS segments: no negative dts


def segment_name(first: int, codec: str, fps: float, *, output: str) -> str:
    """The file name of the segment of ``output`` whose first frame is ``first``
    (:func:`segment_suffix` its container), once whole."""
    return f"seg_{first:08d}{segment_suffix(codec, fps, output)}"


def segment_suffix(codec: str, fps: float, output: str) -> str:
    """The container of ``output``'s segments of ``codec``.

    H.264/H.265 in MPEG-TS, each segment stamped at its place in the whole (90 kHz,
    TS_OFFSET ahead so that no timestamp is negative): bytes joined in order make one
    stream with exact frame times. Other codecs into an MP4 or MOV in the output's own
    container, the frame rate's time base (every frame 1001 ticks of 30000 at 29.97; was
    Matroska's whole milliseconds, 990 and 1020, a trial; NUT drops VP9's alpha and FFV1's
    colour tags and refuses QuickTime Animation), joined by ffmpeg's concat demuxer.
    Matroska and WebM outputs (their clock is whole milliseconds anyway), and H.264/H.265
    at 1000 fps or more (MP4 segments would carry edit lists that the concat demuxer turns
    into gaps), in Matroska."""
    if stamped(codec, fps):
        return ".ts"
    own = Path(output).suffix.lower()
    return own if own in (".mp4", ".mov") and not h26x(codec) else ".mkv"


# segment_name's, a run's being written (an older hfrender's: .part), Ray's copy (.EXT.part)
SEGMENT_FILE = rf"seg_\d{{8}}(\.part|{PART_TAG})?\.(mkv|ts|mov|mp4)(\.part)?"


def open_segment(path: Path, fps: float, size: tuple[int, int], codec: str, gop: int | None,
                 first: int, pix_fmt_in: str = "rgb24", name: str | None = None, *,
                 encoding: Any = None) -> VideoWriter:
    """The encoder of one segment (first frame ``first``): the same bits wherever it runs,
    here or on a cluster's worker."""
    offset = TS_OFFSET + float(first / Fraction(frame_rate(fps))) if stamped(codec, fps) \
        else None
    return VideoWriter(str(path), fps, size, codec, gop, pix_fmt_in=pix_fmt_in,
                       container=str(path), name=name, ts_offset=offset, encoding=encoding,
                       segment=True)


def h26x(codec: str) -> bool:
    """Whether ``codec`` is an H.264 or H.265 encoder (x264's, x265's, a GPU's)."""
    return codec in X264_LIKE or codec.startswith(("h264", "hevc"))


def stamped(codec: str, fps: float) -> bool:
    """Segments in MPEG-TS, stamped with their place in the whole: H.264 and H.265 below
    1000 fps (there ffmpeg's guess of the rate of a TS stream cuts the last frame off the
    joined MP4's duration; at 1000 fps Matroska's milliseconds are exact anyway)."""
    return h26x(codec) and fps < 1000

