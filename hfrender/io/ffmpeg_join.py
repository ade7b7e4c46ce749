"""The ffmpeg command line that joins a video's segments into the output by stream copy
(:func:`join_command`, run by :mod:`hfrender.io.join`), built by a pure function (a test
reads it); it gives the output what an encoder gives a whole one
(:func:`hfrender.io.ffmpeg.player_options`, its mark, its container tags).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hfrender.io.container_tags import tag_options
from hfrender.io.ffmpeg import mark_options, player_options
from hfrender.io.ffmpeg_binary import ffmpeg_exe
from hfrender.io.soundtrack import Soundtrack, audio_input, audio_options


def join_command(segments: list[str], output: str, rate: Fraction,
                 audio_from: Soundtrack | None = None, listing: str = "join.txt",
                 exe: str | None = None, timecode: str = "", codec: str = "",
                 tags: tuple[tuple[str, str], ...] = (),
                 tags_file: str | None = None) -> list[str]:
    """ffmpeg joining ``segments`` (names in the folder it runs in) into ``output`` by
    stream copy; with ``audio_from``, a file's soundtrack too (:func:`audio_options`).

    MPEG-TS segments, stamped with their place in the whole, are joined as bytes (the
    concat protocol) and MP4/MOV get the time base of the frame rate: every frame lasts
    exactly 1/``rate`` (1001/24000 s at 23.976). Others go through the concat demuxer's
    ``listing`` (MP4/MOV segments: the rate's time base; Matroska: whole milliseconds, and
    ``rate`` its declared frame rate).
    ``codec``: the segments' (HEVC is tagged for Apple's players, :func:`player_options`);
    ``tags``: the footage's container tags (:mod:`hfrender.io.container_tags`), which
    ``tags_file`` holds for the output (:func:`.container_tags.write_tags`; None: none)."""
    cmd = [ffmpeg_exe(exe), "-hide_banner", "-loglevel", "error", "-y"]
    if all(name.endswith(".ts") for name in segments):
        cmd += ["-f", "mpegts", "-i", "concat:" + "|".join(segments)]  # small: no guessing
    else:
        cmd += ["-f", "concat", "-safe", "0", "-i", listing]
    meta_in, meta = tag_options(tags_file, 1 if audio_from is None else 2, tags, output)
    if audio_from is None:
        cmd += [*meta_in, "-c", "copy"]
    else:
        cmd += [*audio_input(audio_from), *meta_in, "-map", "0:v:0", "-map", "1:a?",
                "-c:v", "copy", *audio_options(audio_from, output)]
    if Path(output).suffix.lower() in (".mp4", ".mov"):
        cmd += ["-video_track_timescale", str(rate.numerator),
                *player_options(output, codec, timecode, tags)]
    elif Path(output).suffix.lower() in (".mkv", ".webm"):  # its frame rate, said (of one or
        cmd += ["-r", str(rate)]  # two frames it guessed twice the rate: an audit)
    return cmd + meta + mark_options(output) + [output]
