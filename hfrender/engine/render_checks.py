"""What a render's settings are checked against before any work, the command's and the
library's alike (:mod:`hfrender.engine.settings`): the scene file is there, a chosen encoder
starts, ``auto`` or a whole number."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError
from hfrender.errors import about, as_typed, spelling
from hfrender.io.writers import check_output


def check_scene_path(path: str) -> None:
    """One line where a command's scene ``path`` is no file (a folder: its scene files
    named, :func:`hfrender.scene.loader.missing_scene`)."""
    if not Path(path).is_file():
        from hfrender.scene.sources import missing_scene

        raise ConfigError(missing_scene(path))


def check_encoder(output: str, codec: str | None, size: tuple[int, int] = (640, 360),
                  fps: float = 30.0, encoding: Any = None) -> None:
    """A ``--codec`` that this ffmpeg lists but that cannot start here (h264_nvenc without
    an NVIDIA driver, a VAAPI encoder without a device) is refused before anything is
    rendered, in one line with ffmpeg's reason: one black frame of ``size`` is encoded to
    nowhere first (~20 ms). Otherwise the failure would come only at the first frames,
    naming an internal segment file. What :func:`hfrender.io.writers.check_output` refuses
    (an unknown encoder, an odd size, ...) it refuses first, then what
    :func:`hfrender.io.encoding.check_encoding` refuses of ``encoding`` (--crf, --preset,
    --bitrate, --pix-fmt); neither ``codec`` nor ``encoding``: nothing to check."""
    if codec is None and not encoding and not getattr(encoding, "alpha", False):
        return
    from hfrender.io.container_fit import cannot_hold, gif_misfit, private_stream
    from hfrender.io.encoding import check_encoding
    from hfrender.io.ffmpeg import MUXERS, bare, encode_command
    from hfrender.io.writers import check_output

    alpha = bool(getattr(encoding, "alpha", False))
    chosen = check_output(output, size, codec, alpha=alpha,
                          pix_fmt=getattr(encoding, "pix_fmt", None))
    check_encoding(output, chosen, encoding)
    if chosen in ("gif", "png"):  # not tried: the GIF's muxer alone holds the first
        misfit = gif_misfit(output, chosen)
        if misfit is not None:
            raise ConfigError(misfit)
        return
    suffix = Path(output).suffix.lower()  # the output's own muxer: it may refuse the codec
    cmd = encode_command(os.devnull, fps, size, chosen, encoding=encoding,
                         container="probe" + (suffix if suffix in MUXERS else ".mkv"),
                         pix_fmt_in="rgba" if alpha else "rgb24")
    frame = bytes(size[0] * size[1] * (4 if alpha else 3))
    try:
        res = subprocess.run(cmd, input=frame, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return  # no verdict: the render itself will tell
    if res.returncode == 0:
        private = private_stream(output, cmd, frame)  # MPEG-TS takes any codec, unsaid
        if private is not None:
            raise ConfigError(f"{cannot_hold(chosen, output)} (ffmpeg: {private})")
        return
    said = [bare(x) for x in res.stderr.decode(errors="replace").splitlines()]  # (without
    # "[h264_nvenc @ 0x...]")
    why = next((x for x in said if x), f"ffmpeg exit {res.returncode}")
    held = next((x for x in said if re.search(
        r"supports only|Could not find tag for codec|supported for WebM|only supported in|"
        r"muxing is currently not supported", x)), None)
    if held is not None:  # the container's muxer, not the encoder
        raise ConfigError(f"{cannot_hold(chosen, output)} (ffmpeg: {held})")
    if codec is None:
        raise ConfigError(f"{encoding.given()}: {chosen} does not start with these settings: "
                          f"{why}")
    said = spelling()
    raise ConfigError(f"{said.said('codec', codec)}: the encoder does not start on this "
                      f"machine: {why} (leave {said.name('codec')} out for the output's "
                      "default encoder)")


def auto_or_int(name: str, text: str) -> int | str:
    """A setting that is ``auto`` or a whole number, as text (the command line's); refused
    as the flag ``--name text`` (its key kept: the library names it as its keyword)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise about(ConfigError, name, text, " must be 'auto' or an integer",
                    head=as_typed(f"--{name}", text)) from None


def check_resume_keeping(config: Any) -> None:
    """``--resume`` with ``--keep-samples`` refused (a store holds a whole render), named
    as the caller names them (``resume=True`` in ``hf.render``)."""
    if config.resume and config.keep_samples:
        said = spelling()
        raise ConfigError(f"{said.name('keep_samples')} with {said.on('resume')}: a sample "
                          f"store holds a whole render; render without {said.on('resume')} "
                          "to keep its sub-frames")


def check_job_output(config: Any, scene: Any, asked: bool) -> None:
    """A render's output as ``config`` has it (alpha ``asked`` by --transparent, or the
    scene's ``background = None``)."""
    said = f"{Path(scene.source_path).name} has background = None (a transparent render)"
    check_output(config.output, config.size, config.codec, alpha=config.transparent,
                 pix_fmt=config.pix_fmt, alpha_from=None if asked else said)
