"""What fx changes in the picture and the sound that it says (warnings, before a frame is
read): sound, subtitles and video streams after the first left out, HDR and wide-gamut
colour read as BT.709, square pixels, evened-out frame times, interlacing, timecode, depth
past 8 bits."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from hfrender.io.colour_tags import source_colour
from hfrender.io.container_tags import left_out
from hfrender.io.ffmpeg import timecode_options
from hfrender.io.pixels import FLOAT
from hfrender.io.sequence_names import is_sequence

log = logging.getLogger(__name__)


def frames_alone(output: str) -> bool:
    """A GIF, an image sequence or one picture: no sound, square pixels."""
    return is_sequence(output) or Path(output).suffix.lower() in (".gif", ".png", ".exr")


def deep_note(source: str, output: str, pix_fmt: str, alpha: bool) -> None:
    """Where footage of more than 8 bits (16-bit or float, decoded as ``pix_fmt``) goes
    into a video whose default encoder writes 8 (given no --codec or --pix-fmt), the
    codecs that keep more; ``alpha``: its alpha is kept (ProRes 4444 in a .mov keeps 10
    bits, VP9 in a .webm 8). A warning for 16-bit and 10/12-bit footage (its own codes'
    bits are dropped); an info line (seen with -v) for float footage, EXR, whose light into
    an 8-bit video is the documented path (was: a warning on footage.md's own example)."""
    suffix = Path(output).suffix.lower()
    float_light = pix_fmt in FLOAT
    if not (float_light or pix_fmt in ("rgb48le", "rgba64le")) or suffix not in (
            ".mp4", ".mov", ".mkv", ".ts", ".webm"):
        return
    say = log.info if float_light else log.warning
    has = (f"{source} is float light; {output} is written with 8 bits" if float_light else
           f"{source} has more than 8 bits; {output} is written with 8")
    if not alpha:
        keep = ("--pix-fmt yuv420p10le (VP9)" if suffix == ".webm" else "--codec prores_ks "
                "(.mov), or --codec libx265 --pix-fmt yuv420p10le,")
        say("%s (its encoder's default): give %s to keep %s", has, keep,
            "more" if float_light else "them")
    elif suffix == ".webm":  # (was: unsaid, as for EXR footage)
        say("%s (VP9 keeps its alpha with 8 alone): write .mov (ProRes 4444) to keep both",
            has)


def keeps_sound(output: str, info: Any) -> bool:
    """Whether ``output`` holds the sound of footage probed as ``info`` (None: not a video
    file, no sound)."""
    return info is not None and info.has_audio and not frames_alone(output)


def left_out_notes(source: str, output: str, info: Any) -> None:
    """A warning for the sound the output leaves out: all of it (a GIF, an image sequence),
    or its subtitles (every audio track is kept); and for the tags and chapters a ``.ts``
    cannot hold (:func:`hfrender.io.container_tags.left_out`)."""
    tags = left_out(source, output, info.tags, info.chapters)
    if tags:
        log.warning("%s", tags)
    if frames_alone(output):
        if info.has_audio:
            log.warning("%s has sound; %s keeps none: the soundtrack is left out", source,
                        output)
        return
    n = info.subtitle_tracks
    if n:
        log.warning("%s: %s keeps its sound, not its subtitles: %d subtitle track%s left out",
                    source, output, n, "" if n == 1 else "s")


HDR = {"arib-std-b67": "HLG", "smpte2084": "PQ (HDR10)"}  # transfers ffmpeg names
WIDE_GAMUT = {"bt2020": "BT.2020", "smpte431": "DCI-P3", "smpte432": "Display P3"}


def _colour_notes(source: str, info: Any) -> None:
    """HDR footage (HLG, PQ), and wide-gamut SDR (BT.2020's or P3's primaries: was read as
    BT.709's and tagged so without a word, an orange 43 codes off, a footage trial): fx
    blends and writes SDR BT.709, so their colours come out wrong; the command that
    converts them first."""
    curve = next((name for tag, name in HDR.items() if tag in info.pix_fmt), None)
    if curve is not None:
        peak = ":peak=100" if curve.startswith("PQ") else ""  # PQ's 10,000 nits (without:
        # past 1,000 came out above white, Y 255 of limited range, a footage trial)
        log.warning("%s is HDR (%s): fx blends and writes SDR (BT.709), so its colours come "
                    "out wrong; convert it to SDR first (e.g. ffmpeg -i IN -vf "
                    "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
                    "tonemap=tonemap=hable:desat=0%s,zscale=t=bt709:m=bt709:r=tv,"
                    "format=yuv420p OUT)", source, curve, peak)
        return
    primaries = source_colour(info.pix_fmt).get("color_primaries", "")
    if primaries in WIDE_GAMUT:
        log.warning("%s has %s primaries (a wider gamut than BT.709's): fx reads and writes "
                    "BT.709, so its colours come out washed out; convert it first (ffmpeg -i "
                    "IN -vf zscale=p=709:t=709:m=709,format=yuv420p10le OUT)", source,
                    WIDE_GAMUT[primaries])


def _streams_left_out(source: str, output: str, info: Any) -> None:
    """A warning for the video streams after the first, which fx does not read (a
    camera's second angle, a proxy beside the master: was left out unsaid, a footage
    trial), with the ffmpeg line that takes another out to work on."""
    n = info.video_tracks
    if n > 1:
        log.warning("%s has %d video streams; %s is made of the first (%dx%d %s) alone, the "
                    "other%s left out: to work on another, take it out first (ffmpeg -i IN "
                    "-map 0:V:1 -map 0:a? -c copy OUT.mkv)", source, n, output, *info.size,
                    info.codec, "" if n == 2 else "s")


def picture_notes(source: str, output: str, info: Any, stride: int = 1,
                  planes: bool = False) -> None:
    """Warnings for what fx changes in the picture: HDR footage (HLG, PQ) is read and
    written as SDR BT.709, so its colours come out wrong; pixels that are not square
    (anamorphic footage) become square in a GIF or an image sequence, squeezing it, and a
    variable frame rate evens out in a GIF. And for footage cut short (an unfinished
    download): only its frames there are read. ``planes``: the 4:2:0 planes are blended as
    stored (``--gamma-space``) and keep their colour tags, HDR's too: its colours are right
    (was: said to come out wrong, as SDR, a footage trial)."""
    _streams_left_out(source, output, info)
    if info.cut_short:
        log.warning("%s is cut short (ffmpeg: %s; an unfinished download or copy?): the "
                    "%d frames it holds are used", source, info.cut_short, info.count)
    if not planes:
        _colour_notes(source, info)
    square = info.sar in ("1:1", "0:1", "")
    if info.times is not None and frames_alone(output):  # (a sequence's: was unsaid, a
        log.warning("%s has a variable frame rate; %s %s its frames evenly spaced (at "  # trial)
                    "%.4g fps), so its timing is evened out (a video output keeps it)",
                    source, output, "plays" if output.lower().endswith(".gif") else "numbers",
                    info.fps)
    if not square and frames_alone(output):
        log.warning("%s has pixels of aspect %s; %s has square ones, so its picture is "
                    "squeezed (a video output keeps the aspect)", source, info.sar, output)
    order = re.search(r"(top|bottom) (coded )?first", info.pix_fmt)
    said = order.group(0) if order else (  # DV in AVI or Matroska says no order, but is
        "DV, bottom first unless shot progressive" if info.codec == "dvvideo"
        and "progressive" not in info.pix_fmt else "")  # (one said progressive: not, a review)
    if said:  # interlaced (was: DV there unsaid, a footage trial; all written progressive)
        log.warning("%s is interlaced (%s): fx blends whole frames, so its fields mix and %s "
                    "is progressive; deinterlace it first, a frame a frame (ffmpeg -i IN -vf "
                    "bwdif=mode=send_frame OUT; bwdif alone makes a frame of each field, "
                    "twice the rate)", source, said, output)
    if info.timecode and (stride != 1 or not timecode_options(output, info.timecode)):
        log.warning("%s has timecode %s; %s keeps none (fx keeps it at --stride 1 in .mov "
                    "and .mp4)", source, info.timecode, output)
