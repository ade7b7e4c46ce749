"""A video's container tags: its creation time, where it was shot (``location``), its
title, a camera's make and model, read exactly as ffmpeg's ``-f ffmetadata`` writes them.
fx gives them to its output (a plain ``ffmpeg -i IN OUT`` drops the creation time and
QuickTime's keys): a phone's gallery sorts and maps a clip by them. The muxer's own
(brands, encoder) and hfrender's mark (comment) are not carried; the timecode goes its own
way (:func:`hfrender.io.ffmpeg.timecode_options`). Each container keeps what it can hold
(Matroska any tag; MP4 and MOV their own fields, and QuickTime's keys:
:func:`quicktime_keys`). The video stream's own language, title and handler name ride
among them (:func:`video_tags`) to the output's video stream."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from hfrender.io.ffmpeg_binary import ffmpeg_exe

# written by the muxer itself, or hfrender's mark of its outputs (io.ffmpeg.mark_options)
NOT_CARRIED = {"major_brand", "minor_version", "compatible_brands", "encoder", "comment",
               "service_provider", "timecode", "duration"}
DATE = "com.apple.quicktime.creationdate"  # an iPhone's creation time, among its keys
# the first video stream's own tags ride among the file's with this before their key
VIDEO = "s:v:0:"
# those kept (as the output's key): an MP4's or MOV's track title is read back as "name"
VIDEO_KEYS = {"language": "language", "title": "title", "name": "title",
              "handler_name": "handler_name"}
LONGEST = 4096  # a stream tag's value goes as one argument (-metadata:s:v:0): none longer
# the tags an MPEG-TS keeps: its service's name (the muxer takes a title for it) and provider
TS_HOLDS = {"title", "service_name"}


def read_tags(path: str) -> tuple[tuple[str, str], ...]:
    """The container tags of the video at ``path``, exactly as it holds them: ffmpeg's
    ``-f ffmetadata`` text of it (its ``-i`` log, read before, cut a line at 255 bytes,
    printed a CR as a space and a ``language`` never); none where ffmpeg reads none. Then
    its first video stream's language, title and handler name (:func:`video_tags`)."""
    return _ffmetadata(path, "0") + video_tags(_ffmetadata(path, "0:s:V:0"))


def _ffmetadata(path: str, which: str) -> tuple[tuple[str, str], ...]:
    """The tags ``-map_metadata which`` takes of ``path`` (``0``: the file's own)."""
    res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-i", path,
                          "-map_metadata", which, "-f", "ffmetadata", "-"],
                         capture_output=True)  # (bytes: a CR kept, not made a newline)
    # surrogateescape: bytes that are no UTF-8 go back to ffmpeg's command line as they were
    return parse_ffmetadata(res.stdout.decode("utf-8", "surrogateescape")) \
        if res.returncode == 0 else ()


def video_tags(stream: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """A video ``stream``'s own tags that its output's stream gets (it is encoded anew from
    raw frames, which carry none: they were dropped), each key after :data:`VIDEO`: its
    language (not ``und``, no language), title and handler name (not ffmpeg's own
    ``VideoHandler``, which its MP4 muxer writes anyway), none longer than :data:`LONGEST`.
    Not its rotation: the frames are read turned upright."""
    kept = {}
    for key, value in stream:
        name = VIDEO_KEYS.get(key.lower())
        if name and value and len(value) <= LONGEST and value not in (
                "und", "VideoHandler"):  # no language; ffmpeg's own handler (its muxer's)
            kept.setdefault(name, value)
    return tuple((VIDEO + k, v) for k, v in kept.items())


def file_tags(tags: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The container's own of ``tags`` (not its video stream's, :func:`video_tags`)."""
    return tuple((k, v) for k, v in tags if not k.startswith(VIDEO))


def parse_ffmetadata(text: str) -> tuple[tuple[str, str], ...]:
    """The file's own tags in ffmpeg's ``-f ffmetadata`` ``text`` (those before its first
    ``[CHAPTER]`` or ``[STREAM]``): ``\\`` escapes ``=``, ``;``, ``#``, ``\\`` and a
    newline; keys as they are (QuickTime's ``...location.ISO6709``: muxers look theirs up
    in any case)."""
    tags: list[tuple[str, str]] = []
    field: list[str] = []
    key: str | None = None
    at_start, escaped, skip = True, False, False
    for ch in text.split("\n", 1)[-1] + "\n":  # after ";FFMETADATA1"
        was_escaped = escaped  # (an escaped newline starts no line: it is the value's)
        if skip or (at_start and ch in ";#"):  # a comment line
            skip = ch != "\n"
        elif at_start and ch == "[":  # the first section: the file's own tags end
            break
        elif escaped:
            field.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "=" and key is None:
            key, field = "".join(field), []
        elif ch == "\n":
            if key is not None:
                tags.append((key, "".join(field)))
            key, field = None, []
        else:
            field.append(ch)
        at_start = ch == "\n" and not was_escaped
    # a time ffmpeg found twice (a MOV's own and its keys', "T1;T1") is read as its first:
    # the muxer takes one time alone (the output had none)
    return tuple((k, v.split(";")[0] if k.lower() == "creation_time" else v)
                 for k, v in tags if k.lower() not in NOT_CARRIED)


def quicktime_keys(tags: tuple[tuple[str, str], ...]) -> str:
    """``+use_metadata_tags``, a ``-movflags`` flag, where ``tags`` hold QuickTime's keys
    (an iPhone's place, make and model: ``com.apple.quicktime.location.ISO6709``): an
    MP4's or MOV's muxer writes them only so, in its ``keys`` box (else dropped: an iPhone
    clip's place was lost), and then every tag so, none in its own field (no iTunes
    ``©nam`` for the title: :func:`tag_options`); "" where they hold none."""
    return "+use_metadata_tags" if any("." in k for k, _ in file_tags(tags)) else ""


def output_tags(output: str, tags: tuple[tuple[str, str], ...]
                ) -> tuple[tuple[str, str], ...]:
    """The tags ``output`` gets of ``tags`` (a GIF holds none). The creation time is always
    ``creation_time``: the MP4/MOV muxer writes it in the movie header (mvhd), which
    Windows, Google Photos and Android galleries read (it was left 0 where QuickTime keys
    were written); one written with QuickTime's keys (:func:`quicktime_keys`) also gets
    ``com.apple.quicktime.creationdate`` in Apple's form where the footage had none. Such
    an output's ``creation_time`` is read back "T;T" (the muxer writes it as a key too):
    :func:`parse_ffmetadata` takes the first."""
    suffix = Path(output).suffix.lower()
    if suffix == ".gif":
        return ()
    if suffix == ".ts":  # (its streams' tags it drops: :func:`left_out` names them)
        return tuple((k, v) for k, v in tags if k.lower() in TS_HOLDS)
    if suffix in (".mp4", ".mov") and quicktime_keys(tags):
        return tags + apple_date(tags)
    return tags


def write_tags(path: Path, output: str, tags: tuple[tuple[str, str], ...]) -> bool:
    """The tags ``output`` gets (:func:`output_tags`) written to ``path`` as an ffmetadata
    file (``=``, ``;``, ``#``, ``\\`` and a newline escaped), which the final mux reads
    (:func:`tag_options`): as ``-metadata k=v`` a tag over 128 KiB was one argument past
    Linux's MAX_ARG_STRLEN, "Argument list too long". False (nothing written) where the
    output gets none; where it gets its video stream's alone, a file of no tags is written
    (those go as options: :func:`tag_options`)."""
    kept = output_tags(output, tags)
    if not kept:
        return False
    lines = "".join(f"{escape(k)}={escape(v)}\n" for k, v in file_tags(kept))
    # surrogateescape: bytes that were no UTF-8 in the footage go back as they were
    path.write_bytes((";FFMETADATA1\n" + lines).encode("utf-8", "surrogateescape"))
    return True


def escape(text: str) -> str:
    """``text`` as an ffmetadata file holds it: ``=``, ``;``, ``#``, ``\\``, a newline and a
    CR (else a line's end: what follows it was lost) after a backslash."""
    return re.sub(r"([=;#\\\n\r])", r"\\\1", text)


def tag_options(tags_file: str | None, index: int, tags: tuple[tuple[str, str], ...],
                output: str) -> tuple[list[str], list[str]]:
    """The input options reading ``tags_file`` (:func:`write_tags`; None: no tags) and the
    output's ``-map_metadata`` taking its tags, it being input ``index``; and its video
    stream's own of ``tags`` (:func:`video_tags`) that ``output`` gets (:func:`output_tags`),
    as ``-metadata:s:v:0 k=v``: taken from
    the file too (``-map_metadata:s:v:0``), they left the soundtrack's streams without
    theirs (ffmpeg copies those unless one stream's tags are mapped)."""
    if tags_file is None:
        return [], []
    stream = [x for k, v in output_tags(output, tags) if k.startswith(VIDEO)
              for x in ("-metadata:s:v:0", f"{k[len(VIDEO):]}={v}")]
    return ["-f", "ffmetadata", "-i", tags_file], ["-map_metadata", str(index), *stream]


def apple_date(tags: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``com.apple.quicktime.creationdate`` as an iPhone writes it (``%Y-%m-%dT%H:%M:%S
    +0000``) from ``tags``' creation time; none where they have that key already, or no
    creation time ISO 8601 reads."""
    if any(k.lower() == DATE for k, _ in tags):
        return ()
    for key, value in tags:
        if key.lower() == "creation_time":
            try:
                when = datetime.fromisoformat(value.strip())
            except ValueError:
                return ()
            when = when.astimezone(timezone.utc) if when.tzinfo else when
            return ((DATE, when.strftime("%Y-%m-%dT%H:%M:%S+0000")),)
    return ()


def left_out(source: str, output: str, tags: tuple[tuple[str, str], ...], chapters: int
             ) -> str:
    """The line naming what an MPEG-TS ``output`` cannot hold of ``source``'s ``tags`` (the
    file's; its video stream's language and title, not a handler's name) and ``chapters``
    (were dropped unsaid); "" where it holds them all, and for other outputs (a GIF, which
    holds none, as documented: its sound alone is said left out)."""
    if Path(output).suffix.lower() != ".ts":
        return ""
    kept = output_tags(output, tags)
    lost = [k for k, v in file_tags(tags) if (k, v) not in kept]
    stream = [k[len(VIDEO):] for k, _ in tags if k in (VIDEO + "language", VIDEO + "title")]
    parts = [f"tag{'s' if len(lost) > 1 else ''} {_listed(lost)}"] if lost else []
    parts += [f"video stream's {_listed(stream)}"] if stream else []
    parts += [f"{chapters} chapter{'s' if chapters > 1 else ''}"] if chapters else []
    if not parts:
        return ""
    title = " (its title is kept as the service name)" if kept else ""
    # .mkv: Matroska holds any tag (an MP4 drops a plain make or model: docs/footage.md)
    return (f"{output} (MPEG-TS) cannot hold {source}'s {'; '.join(parts)}: left out{title}; "
            "write .mkv to keep them")


def _listed(names: list[str]) -> str:
    """``names`` as a sentence lists them: "a", "a and b", "a, b and c"."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
