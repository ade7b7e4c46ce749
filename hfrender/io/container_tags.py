"""A video's container tags: its creation time, where it was shot (``location``), its
title, a camera's make and model, as ffmpeg lists them under the input's ``Metadata:``.
fx gives them to its output, as ``ffmpeg -i IN ... OUT`` does (``-map_metadata`` from its
first input): a phone's gallery sorts and maps a clip by them. The muxer's own (brands,
encoder) and hfrender's mark (comment) are not carried; the timecode goes its own way
(:func:`hfrender.io.ffmpeg.timecode_options`). Each container keeps what it can hold
(MP4 has no field for a camera's make; Matroska and MOV do)."""

from __future__ import annotations

import re
from pathlib import Path

# written by the muxer itself, or hfrender's mark of its outputs (io.ffmpeg.mark_options)
NOT_CARRIED = {"major_brand", "minor_version", "compatible_brands", "encoder", "comment",
               "service_provider", "timecode", "duration"}
ENTRY = re.compile(r"^ {4}(\S.*?)\s*: (.*)$")  # "    creation_time   : 2024-05-01T..."
MORE = re.compile(r"^ {5,}: (.*)$")  # a value's next line


def read_tags(head: str) -> tuple[tuple[str, str], ...]:
    """The input's own tags (not its streams') in ffmpeg's description ``head`` of it:
    the lines under "Metadata:" between "Input #0" and its "Duration:"; keys as they are
    (QuickTime's ``...location.ISO6709``: muxers look theirs up in any case)."""
    lines = head.split("Input #0", 1)[-1].split("\n  Duration:", 1)[0].splitlines()
    tags: list[tuple[str, str]] = []
    inside = False
    for line in lines:
        if line.startswith("  ") and not line.startswith("    "):
            inside = line.strip() == "Metadata:"
        elif inside and (more := MORE.match(line)) and tags:
            tags[-1] = (tags[-1][0], f"{tags[-1][1]}\n{more.group(1)}")
        elif inside and (entry := ENTRY.match(line)):
            tags.append((entry.group(1), entry.group(2)))
    # a time ffmpeg found twice (a MOV's own and its keys', "T1;T1") is read as its first:
    # the muxer takes one time alone (the output had none)
    return tuple((k, v.split(";")[0] if k.lower() == "creation_time" else v)
                 for k, v in tags if k.lower() not in NOT_CARRIED)


def quicktime_keys(tags: tuple[tuple[str, str], ...]) -> str:
    """``+use_metadata_tags``, a ``-movflags`` flag, where ``tags`` hold QuickTime's keys
    (an iPhone's place, make and model: ``com.apple.quicktime.location.ISO6709``): an
    MP4's or MOV's muxer writes them only so, in its ``keys`` box (else dropped: an iPhone
    clip's place was lost); "" where they hold none."""
    return "+use_metadata_tags" if any("." in k for k, _ in tags) else ""


def tag_options(output: str, tags: tuple[tuple[str, str], ...]) -> list[str]:
    """``-metadata key=value`` for each of ``tags`` (a GIF holds none)."""
    if Path(output).suffix.lower() == ".gif":
        return []
    return [x for k, v in tags for x in ("-metadata", f"{k}={v}")]
