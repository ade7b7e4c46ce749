"""Writing finished frames: video through imageio-ffmpeg, or a lossless PNG sequence.

The format follows the output name: ``.mp4``/``.mov``/``.mkv`` (H.264, yuv420p), ``.webm``
(VP9), ``.gif`` (a palette of the whole clip), or a pattern such as ``frames/%05d.png``, at
exactly the size asked (imageio-ffmpeg's silent rescale to multiples of 16 turned off);
closed, a file plays, also after an error or Ctrl-C mid-render."""

from __future__ import annotations

import logging
import os
import re
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hfrender.errors import (
    HFRenderError,
    InputError,
    about,
    nearest,
    os_said,
    output_said,
    spelling,
)
from hfrender.io.ffmpeg import (
    VIDEO_SUFFIXES,
    Soundtrack,
    bare,
    crashed,
    encode_command,
    frame_pipe_env,
    timing_script,
    widen_pipe,
)
from hfrender.io.ffmpeg_binary import ffmpeg_exe, started
from hfrender.io.ffmpeg_temps import remove_temps, tags_file, temp_file
from hfrender.io.frame_marks import mark_gif, sequence_id
from hfrender.io.images import write_picture
from hfrender.io.pixels import raw_dtype
from hfrender.io.sequence_names import is_picture, is_sequence
from hfrender.io.sequence_stale import remove_stale

log = logging.getLogger(__name__)
GIF_MAX_FPS = 50  # a GIF frame shorter than 2 centiseconds is shown for 10 by browsers


class WriterError(InputError):
    """The output cannot be written as asked (one line for the user)."""


def raw_frame_shape(size: tuple[int, int], pix_fmt: str) -> tuple[int, int, int]:
    """The array of one raw frame: (H, W, 3) for rgb24 and rgb48le (uint16), (H, W, 4) for
    rgba and rgba64le, (3H/2, W, 1) for yuv420p's planes."""
    from hfrender.io.pixels import RAW

    w, h = size
    if pix_fmt in RAW:
        return (h, w, RAW[pix_fmt][0])
    return (h * 3 // 2, w, 1)


@cache
def ffmpeg_encoders(kinds: str = "VAS") -> frozenset[str]:
    """Names of the encoders of imageio-ffmpeg's ffmpeg binary (``kinds``: "V" video only)."""
    res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-encoders"],
                         capture_output=True, text=True, check=False)
    names = set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) == 6 and parts[0][0] in kinds and parts[1] != "=":
            names.add(parts[1])
    return frozenset(names)


def folder_output(path: str, what: str | None = None) -> str:
    """The line for an output ``path`` that is an existing folder (``what``: as
    :func:`hfrender.errors.output_said`)."""
    if not Path(path).suffix:  # meant for frames in it
        pattern = str(Path(path) / "%05d.png")
        return f"{output_said(path, what)} is a folder; for frames in it, give a pattern: " \
            f"{pattern if what is not None or spelling().flags else output_said(pattern)}"
    return (f"{output_said(path, what)} is a folder, which the output cannot replace: name "
            "another file, or move the folder away")


def _unknown_type(path: str, suffix: str, exr: bool, each: str | None = None) -> str:
    field = re.search(r"%\d*[a-zA-Z]", Path(path).name)
    if field and suffix in (".png", ".exr"):  # %05x, %s: a field, but not a frame number's
        return (f"{output_said(path)}: {field.group()} is no frame-number field; an image "
                f"sequence is named with one such as %05d (frames/%05d{suffix})")
    frames = Path(path).with_name(f"{Path(path).stem}_%05d{suffix}")
    still = "hfrender still" if spelling().flags else "hf.still"  # (was the command's to both)
    one = "" if suffix not in (".png", ".exr") else (  # (still renders scenes, not footage
        f" (one picture: {still})" if each is None else
        f" (each frame a picture: {frames}{each})")  # nor stores)
    images = "a PNG or EXR pattern" if exr else "a PNG pattern"
    return (f"{output_said(path)}: unknown output type {suffix or '(none)'!r}; use "
            f"{', '.join(VIDEO_SUFFIXES)} or {images} like frames/%05d.png{one}")


def _sequence_codec(path: str, suffix: str, exr: bool) -> str:
    """An image sequence's "codec" (png, exr), or one line: PNG, or EXR where ``exr``
    allows it, and a pattern with one integer field; or one picture's (fx's ``out.png``,
    one frame: :mod:`hfrender.io.picture_output`)."""
    one = is_picture(path)
    if suffix != ".png" and (suffix != ".exr" or not exr):
        also = " (or EXR, frames/%05d.exr)" if exr else ""
        if suffix == ".exr":  # (and not exr)
            also = " (EXR from EXR footage alone: this footage's light stops at white)"
        what, eg = ("one picture", Path(path).with_suffix(".png")) if one else \
            ("an image sequence", "frames/%05d.png")
        raise WriterError(f"{output_said(path)}: {what} is written as PNG{also}: use a name "
                          f"like {eg}")
    if one:
        return suffix[1:]
    try:
        _ = Path(path).name % 0
    except (TypeError, ValueError):
        raise WriterError(f"{output_said(path)}: the pattern needs one integer field such "
                          "as %05d") from None
    return suffix[1:]


def check_output(path: str, size: tuple[int, int], codec: str | None = None, *,
                 for_footage: bool = False, alpha: bool = False,
                 alpha_from: str | None = None,
                 pix_fmt: str | None = None, float_in: bool = False,
                 size_of: str | None = None, every_frame: str | None = None) -> str:
    """Validate an output before anything is rendered; returns the codec that will be used.

    ``for_footage``: the size is the footage's (``hfrender fx``), so the hint for an odd
    size is what the user can do to the footage. ``alpha`` (``--transparent``): the output
    must keep it (a PNG sequence, ProRes 4444 in .mov, VP9 in .webm); ``alpha_from``, what
    asked for it (None: ``--transparent``, as the caller spells it), begins the message of
    an output that cannot (a missing folder is made
    when writing starts: :func:`hfrender.io.outputs.make_folder`). ``pix_fmt``: the
    output's (--pix-fmt; None: the encoder's default), which decides what an odd size may be.
    ``float_in``: the footage is float light (EXR), which an EXR sequence keeps.
    ``size_of``: whose size it is where the command cannot change it (``the store's``);
    ``every_frame``: said of one PNG after "each frame a picture" (reexpose's store's)."""
    from hfrender.io.container_fit import alpha_refusal
    from hfrender.io.encoding import chosen_encoder, odd_size_refusal
    from hfrender.io.ffmpeg import ALPHA_PIX_FMTS, output_format

    suffix = Path(path).suffix.lower()
    if is_sequence(path) or for_footage and is_picture(path):  # fx writes EXR from EXR
        return _sequence_codec(path, suffix, exr=not for_footage or float_in)  # footage alone
    if suffix not in VIDEO_SUFFIXES:
        if Path(path).is_dir():
            raise WriterError(folder_output(path))
        raise WriterError(_unknown_type(path, suffix, not for_footage or float_in,
                                        "" if for_footage else every_frame))
    chosen = chosen_encoder(path, codec, alpha) or VIDEO_SUFFIXES[suffix]
    if chosen not in ffmpeg_encoders():  # first (a misspelt one was said to keep no alpha)
        near = nearest(chosen, sorted(ffmpeg_encoders("V")))
        raise about(WriterError, "codec", chosen, ": this ffmpeg has no such encoder ("
                    + (f"did you mean {near[0]}? " if near else "")  # (a file's codec named
                    + "hfrender info -v lists its video encoders)",  # as the file gives it)
                    head=spelling().said("codec", chosen))
    refused = alpha_refusal(path, chosen, pix_fmt, alpha_from) if alpha else None
    if refused is not None:
        raise WriterError(refused)
    # the encoder's own where not 4:2:0; with alpha, the one that keeps it (ProRes 4444)
    fmt = pix_fmt or (ALPHA_PIX_FMTS[chosen][0] if alpha else output_format(chosen, None)[0])
    refused = odd_size_refusal(chosen, fmt, size, for_footage, size_of)
    if refused is not None:
        raise WriterError(refused)
    return chosen


class WriteFailed(HFRenderError):
    """Writing failed while rendering (ffmpeg died, the disk is full, ...)."""


class FrameWriter(Protocol):
    """The contract of every writer: frames in, in order; ``close`` finalises what was
    written; ``with writer: ...`` closes it, also after an error."""

    frames_written: int

    def write(self, frame: np.ndarray) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> FrameWriter: ...

    def __exit__(self, *exc: object) -> None: ...


class Closing:
    """``with it: ...`` closes it (a mixin of the writers and the footage readers)."""

    def __enter__(self):  # noqa: ANN204 - the writer itself
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # type: ignore[attr-defined]


class VideoWriter(Closing):
    """Frames (H, W, 3) uint8 RGB -> a video file, through the ffmpeg of imageio-ffmpeg.

    ffmpeg runs in its own process session (Ctrl-C reaches hfrender, which then closes the
    pipe so that ffmpeg finalises the file) and its exit status is checked at the end.
    """

    def __init__(self, path: str, fps: float, size: tuple[int, int], codec: str | None = None,
                 gop: int | None = None, audio_from: Soundtrack | None = None,
                 container: str | None = None, pix_fmt_in: str = "rgb24",
                 times: Sequence[float] | None = None, start: float = 0.0,
                 name: str | None = None, ts_offset: float | None = None,
                 encoding: object = None, segment: bool = False) -> None:
        import tempfile

        self.path, self.size = path, size
        self.name = name or container or path  # what the messages call it
        alpha = bool(getattr(encoding, "alpha", False))
        if alpha and pix_fmt_in not in ("rgba", "rgba64le"):
            pix_fmt_in = "rgba"
        self.codec = check_output(container or path, size, codec, alpha=alpha,
                                  pix_fmt=getattr(encoding, "pix_fmt", None))
        if self.codec == "gif" and fps > GIF_MAX_FPS:
            past = (" (and a GIF's delays are whole hundredths of a second: none is shorter "
                    "than 10 ms)") if fps > 100 else ""
            log.warning("a GIF at %g fps: browsers show its frames shorter than 20 ms for "
                        "100 ms%s: the clip plays slower; %s or less keeps its speed",
                        fps, past, spelling().said("fps", GIF_MAX_FPS))
        self._timing = self._tags = self._log = self._proc = None
        try:  # (ffmpeg not started, a Ctrl-C meanwhile: its temporary files go, was left)
            if times is not None and self.codec != "gif":  # frame k is shown at start+times[k]
                script = timing_script([start + t for t in times], pix_fmt_in, self.codec,
                                       gop, encoding)
                self._timing = temp_file(".filter", lambda p: p.write_text(script))
            self._tags = None if segment else tags_file(container or path, encoding)
            self.shape = raw_frame_shape(size, pix_fmt_in)
            self.dtype = np.dtype(raw_dtype(pix_fmt_in))
            cmd = encode_command(path, fps, size, self.codec, gop=gop, pix_fmt_in=pix_fmt_in,
                                 audio_from=audio_from, container=container,
                                 timing_file=self._timing, ts_offset=ts_offset,
                                 encoding=encoding, segment=segment, tags_file=self._tags)
            self._log = tempfile.TemporaryFile()
            self._proc = started(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=self._log, start_new_session=True,
                                 env=frame_pipe_env())
        except BaseException:
            self._drop_temps()
            if self._log is not None:
                self._log.close()
            raise
        widen_pipe(self._proc.stdin)
        self.frames_written = 0
        self.failed = False  # ffmpeg stopped or ended with an error: the file is cut short

    def _drop_temps(self) -> None:
        """The timing script and tags, which ffmpeg is done with (or never read), go."""
        remove_temps(self._timing, self._tags)
        self._timing = self._tags = None

    def _ffmpeg_says(self) -> str:
        """ffmpeg's first complaint (the cause; its last line is often "Nothing was
        written..."), without its ``[component @ 0x...]`` prefixes."""
        self._log.seek(0)
        lines = [bare(s) for s in self._log.read().decode(errors="replace").splitlines()]
        return next((s for s in lines if s), "")

    def write(self, frame: np.ndarray) -> None:
        if frame.shape != self.shape or frame.dtype != self.dtype:
            raise ValueError(f"frame is {frame.dtype} {frame.shape}; the video takes "
                             f"{self.dtype} {self.shape}")
        try:
            self._proc.stdin.write(np.ascontiguousarray(frame).data)
        except (BrokenPipeError, OSError):
            code, self.failed = self._proc.wait(), True
            self._drop_temps()  # (ffmpeg is gone: closed or not, they go now)
            raise WriteFailed(f"ffmpeg stopped writing {self.name} after {self.frames_written} "
                              f"frames: {crashed(code, self._ffmpeg_says())}") from None
        self.frames_written += 1

    def close(self) -> None:
        """Finalise the file (ffmpeg writes its index): it plays even after an interruption.

        A file that got no frame at all is not a video: it is removed. A failure of
        ffmpeg at the end raises :class:`WriteFailed` (the file may be unusable).
        """
        if self._proc is None:
            return
        proc = self._proc
        try:
            proc.stdin.close()
        except OSError:
            pass
        # a Ctrl-C while ffmpeg finishes the file: it goes on (its own session) and this
        # writer keeps it, its log and its temporaries (which it may not have read yet:
        # removed, an ffmpeg just started failed, exit 254); close() again finishes
        code = proc.wait()
        self._proc = None
        self._drop_temps()
        out = Path(self.path)
        empty = not out.is_file() or out.stat().st_size == 0
        if self.frames_written == 0 or (code != 0 and empty):
            out.unlink(missing_ok=True)  # no video at all: nothing that looks like one
        said = crashed(code, self._ffmpeg_says()) if code != 0 else ""
        self._log.close()  # ffmpeg's log (a temporary file): read, and no longer needed
        if code != 0:  # (what becomes of what it wrote, the caller says: kept or not)
            self.failed = True
            raise WriteFailed(f"ffmpeg could not finish {self.name} (exit {code}): {said}")
        if self.codec == "gif":  # hfrender's, as its videos' comment says (ffmpeg writes none)
            mark_gif(out)


class PngSequenceWriter(Closing):
    """Frames -> ``pattern % index`` PNG files (lossless): uint8 frames as 8-bit PNGs,
    uint16 as 16-bit; a ``.exr`` pattern takes float16/float32 linear frames (OpenEXR).

    Nothing is touched before the first frame: then the folder is made and older files
    of the same pattern that hfrender wrote (a previous render's) are removed, so the
    folder never mixes two renders (the user's own files stay: :func:`remove_stale`);
    ``kept``: frames before ``start`` that an interrupted run of the same settings wrote
    there, kept (``--resume``). Each file is written under a temporary name and renamed
    when complete.
    """

    def __init__(self, pattern: str, size: tuple[int, int], start: int = 0,
                 kept: int = 0, exr_kept: dict | None = None) -> None:
        check_output(pattern, size)  # (exr_kept: an EXR input's pixel aspect, primaries)
        self.pattern, self.size, self.index, self.exr_kept = pattern, size, start, exr_kept
        self.frames_written, self.kept = 0, kept
        self.passes: Any = None  # output frame -> its EXR's channels beside the colour

    @property
    def frames_in_output(self) -> int:
        return self.kept + self.frames_written

    def _prepare(self) -> None:
        Path(self.pattern).parent.mkdir(parents=True, exist_ok=True)
        if not self.kept:
            remove_stale(self.pattern)

    def write(self, frame: np.ndarray) -> None:
        if self.frames_written == 0:
            self._prepare()
        path = self.pattern % self.index
        tmp = f"{path}.part"
        try:
            write_picture(tmp, frame, self.exr_kept, sequence_id(self.pattern),
                          None if self.passes is None else self.passes(self.index))
            os.replace(tmp, path)  # a file either is a whole frame or is not there
        except OSError as exc:
            said = os_said(exc, tmp)  # (its size: whether the file size limit was met)
            Path(tmp).unlink(missing_ok=True)
            raise WriteFailed(f"cannot write {path}: {said}") from None
        self.index += 1
        self.frames_written += 1

    def close(self) -> None:
        pass


def open_writer(path: str, fps: float, size: tuple[int, int], codec: str | None = None,
                gop: int | None = None, encoding: object = None,
                name: str | None = None, pix_fmt_in: str = "rgb24",
                audio_from: Soundtrack | None = None) -> FrameWriter:
    """A PNG sequence for a ``%d`` pattern (lossless: ``codec`` and ``gop`` do not apply),
    else a video (``name``: what its messages call it, the output a temporary ``path``
    becomes; ``audio_from``: its soundtrack)."""
    if is_sequence(path):
        return PngSequenceWriter(path, size)
    return VideoWriter(path, fps, size, codec, gop, encoding=encoding, name=name,
                       pix_fmt_in=pix_fmt_in, audio_from=audio_from)


class MemoryWriter(Closing):
    """Keeps frames in a list (stills, tests, library use)."""

    def __init__(self) -> None:
        self.frames: list[np.ndarray] = []

    @property
    def frames_written(self) -> int:
        return len(self.frames)

    def write(self, frame: np.ndarray) -> None:
        self.frames.append(np.array(frame, copy=True))

    def close(self) -> None:
        pass
