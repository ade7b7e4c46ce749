"""Whether an output's container holds its encoder's video where its muxer does not say
so (:func:`hfrender.engine.render_checks.check_encoder` encodes a frame into it first and reads
ffmpeg's refusals): the GIF encoder's frames go into a .gif alone (was: into .mkv or .mov
a file with no video in it, said written; into .mp4 or .webm a failed join after the
whole render), and MPEG-TS takes any codec without an error, keeping one it has no
stream type for (ProRes, FFV1, VP9, ...) as private data: a .ts that no player shows.
Also whether it keeps alpha (:func:`alpha_refusal`), and a codec that an image sequence
never uses (:func:`codec_unused`)."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

from hfrender.errors import spelling
from hfrender.io.ffmpeg import ALPHA_PIX_FMTS, VIDEO_SUFFIXES, bare, holds_alpha, keeps_alpha
from hfrender.io.sequence_names import is_picture, is_sequence

PRIVATE = "muxed as a private data stream"  # ffmpeg's warning (mpegts)


def gif_misfit(output: str, chosen: str) -> str | None:
    """The line refusing the GIF encoder (``chosen``) outside a .gif, or PNG's in one (the
    others are tried in it: its muxer names the GIF encoder alone); None where they fit."""
    path = Path(output)
    if (chosen == "gif") == (path.suffix.lower() == ".gif"):
        return None
    if chosen == "gif":
        return (f"{cannot_hold(chosen, output)} (a GIF is written as .gif: "
                f"{spelling().said('output', str(path.with_suffix('.gif')))})")
    return (f"{cannot_hold(chosen, output)} (a .gif holds the gif encoder's frames alone: "
            f"leave {spelling().name('codec')} out)")


def alpha_refusal(path: str, chosen: str, pix_fmt: str | None, alpha_from: str | None
                  ) -> str | None:
    """The line refusing an encoder (``chosen``) or a pixel format that keeps no alpha, for
    :func:`hfrender.io.writers.check_output` (``alpha_from``: what asked for alpha; None:
    ``--transparent``), in the caller's spelling (was the flags to hf.render too); None
    where the output keeps it."""
    said = spelling()
    alpha_from = alpha_from or said.on("transparent")
    if chosen not in ALPHA_PIX_FMTS:
        return (f"{alpha_from}: {said.said('output', str(path))} ({chosen}) keeps no alpha; "
                f"{keeps_alpha()}")
    if pix_fmt is not None and not holds_alpha(pix_fmt):  # (was: dropped unsaid)
        return (f"{alpha_from}: {said.said('pix_fmt', pix_fmt)} keeps no alpha; give one "
                f"with alpha ({ALPHA_PIX_FMTS[chosen][0]}), or leave {said.name('pix_fmt')} out")
    return None


def cannot_hold(chosen: str, output: str) -> str:
    """``--codec X: -o OUT cannot hold it``, in the caller's spelling (hf.render's: ``codec='X':
    output='OUT' ...``; was the flags to it too)."""
    said = spelling()
    return f"{said.said('codec', chosen)}: {said.said('output', output)} cannot hold it"


def codec_unused(output: str, codec: str | None, words: tuple[str, str] | None = None
                 ) -> str | None:
    """The warning for a ``--codec`` given with an image sequence (``frames/%04d.png``) or
    one picture (fx's ``out.png``), whose frames are PNG or EXR files whatever it names (was:
    dropped unsaid); None where none is given or the output is a video (whose encoder it
    is, checked there). ``words``: the codec's and the output's names (a jobs file's; None:
    the caller's spelling, ``--codec X ... -o OUT`` or ``codec='X' ... output='OUT'``)."""
    if codec is None or not (is_sequence(output) or is_picture(output)):
        return None
    kind = "an EXR" if Path(output).suffix.lower() == ".exr" else "a PNG"
    what = "sequence" if is_sequence(output) else "picture"
    said = spelling()
    named = (said.said("codec", codec), said.said("output", output)) if words is None else \
        (f"{words[0]} {codec}", f"{words[1]} {output}")
    return (f"{named[0]} is not used: {named[1]} is {kind} {what}, and a codec applies to "
            f"video outputs only ({' '.join(VIDEO_SUFFIXES)})")


def codec_warned(output: str, codec: str | None) -> None:
    """A codec the caller gave (``--codec``, hf.render's ``codec=``; not hfrender.toml's,
    meant for its videos) that ``output``, an image sequence, never uses: warned of once as
    the work begins (:func:`codec_unused`; was the command's alone), under ``--quiet`` too,
    as any warning."""
    said = codec_unused(output, codec)
    if said is not None:
        logging.getLogger(__name__).warning("%s", said)


def private_stream(output: str, cmd: list[str], frame: bytes) -> str | None:
    """ffmpeg's warning where the probe ``cmd`` (which encoded ``frame`` into ``output``'s
    container without an error) muxed the video as MPEG-TS private data; None otherwise,
    and for other containers (whose muxers refuse what they cannot hold)."""
    if Path(output).suffix.lower() != ".ts" or "-loglevel" not in cmd:
        return None
    told = list(cmd)
    told[told.index("-loglevel") + 1] = "warning"
    try:
        res = subprocess.run(told, input=frame, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in res.stderr.decode(errors="replace").splitlines():
        if PRIVATE in line:
            return bare(line)
    return None
