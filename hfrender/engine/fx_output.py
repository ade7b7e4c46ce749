"""Where an fx job's frames go, and how the output appears only when it is complete.

Constant-rate video outputs (mp4, mov, mkv, webm) longer than one segment are written as
segments of ``SEGMENT_SECONDS`` each with a manifest, in a work folder beside the output:
after Ctrl-C, SIGTERM or ``kill -9`` the whole segments stay, ``--resume`` makes only what
is missing, and the output is joined (with the soundtrack) once every frame is there.
An image sequence keeps its finished frames with a manifest (:mod:`hfrender.io.resume`):
``--resume`` goes on after them. Other outputs (up to one segment long: a kill costs no
more than a segment would; GIF; footage with variable frame times, which the join would
not keep exact) are written in one piece under a temporary name and renamed at the end.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import hfrender
from hfrender.engine.fx_notes import frames_alone
from hfrender.engine.fx_settings import FxSettings
from hfrender.io import outputs, resume
from hfrender.io.disk_room import check_room
from hfrender.io.encoding import Encoding, check_encoding, chosen_encoder, effective
from hfrender.io.exr_files import exr_kept
from hfrender.io.ffmpeg import ALPHA_PIX_FMTS, holds_alpha
from hfrender.io.footage import FootageError
from hfrender.io.picture_output import PictureWriter
from hfrender.io.pixels import ALPHA, FLOAT, RAW
from hfrender.io.probe import soundtrack
from hfrender.io.segments import (
    Manifest,
    SegmentedWriter,
    fresh_work_dir,
    one_piece_why,
    resumable,
    say_partial_goes,
    work_dir,
)
from hfrender.io.sequence_commit import check_frames_there
from hfrender.io.sequence_files import output_start
from hfrender.io.sequence_names import is_picture, is_sequence
from hfrender.io.vector_pass import dropped_channels
from hfrender.io.writers import PngSequenceWriter, VideoWriter, check_output

SEGMENT_SECONDS = 10  # what a kill -9 can cost; each segment is one encoder run

log = logging.getLogger(__name__)


def segment_frames(fps: float) -> int:
    """Output frames per fx segment (``SEGMENT_SECONDS`` of them, read when called)."""
    return max(1, round(SEGMENT_SECONDS * fps))


def keeps_alpha(output: str, codec: str | None, out_pix_fmt: str | None = None) -> bool:
    """Whether ``output`` keeps alpha: a PNG sequence, or a video whose encoder has an
    alpha format (.mov: ProRes 4444, .webm: VP9, unless ``codec`` says otherwise) and no
    ``out_pix_fmt`` (--pix-fmt) without alpha (was: its straight colour written unsaid)."""
    if is_sequence(output) or is_picture(output):
        return True
    return chosen_encoder(output, codec, True) in ALPHA_PIX_FMTS and (
        out_pix_fmt is None or holds_alpha(out_pix_fmt))


def written_format(pix_fmt: str, output: str, codec: str | None,
                   out_pix_fmt: str | None = None) -> tuple[str, bool]:
    """(raw format of the frames written, alpha kept) for footage decoded to ``pix_fmt``:
    an output without alpha takes RGB (the premultiplied colour: over black). Float
    footage (EXR) stays float into an EXR sequence; anything else takes its light encoded
    as 16-bit sRGB codes (a 16-bit PNG; a video's encoder makes its own depth from them)."""
    if pix_fmt in FLOAT and not output.lower().endswith(".exr"):
        pix_fmt = "rgba64le" if pix_fmt == "rgbaf32" else "rgb48le"
    if pix_fmt not in ALPHA or keeps_alpha(output, codec, out_pix_fmt):
        return pix_fmt, pix_fmt in ALPHA
    return {"rgba": "rgb24", "rgba64le": "rgb48le", "rgbaf32": "rgbf32"}[pix_fmt], False


def raw_format(s: FxSettings, output: str, native_yuv420p: bool) -> str:
    """What the decoder hands the engine: the 4:2:0 planes as stored when code values are
    blended into a video (as tmix does: no colour conversion either way, half the bytes
    through the pipes), else ``rgb``: RGB (RGBA with alpha) at the footage's depth (8 or
    16 bits, :func:`hfrender.io.footage.footage_format`). ``native_yuv420p``: the footage
    is stored so (before the probe: whether it is a video file at all)."""
    planes = (not s.linear_light and s.depth is None and not is_sequence(output)
              and not is_picture(output)  # one PNG: RGB codes (were the planes, a crash)
              and Path(output).suffix.lower() != ".gif" and native_yuv420p)
    return "yuv420p" if planes else "rgb"


def fx_encoding(s: FxSettings, alpha: bool, info: Any) -> Encoding:
    """An fx output's encoder settings: --crf, --preset, --bitrate, --pix-fmt; the alpha
    kept; the colour tags, the pixel aspect and the container's tags (creation time,
    place: :mod:`hfrender.io.container_tags`) of the video ``info`` (None: a sequence)."""
    return replace(Encoding.of(s), alpha=alpha, source=info.pix_fmt if info else "",
                   sar=info.sar if info else "1:1",
                   timecode=info.timecode if info and s.stride == 1 else "",
                   tags=info.tags if info else ())


def file_identity(path: str) -> dict:
    """What identifies an input file for a resume: where it is, its size and its time."""
    st = os.stat(path)
    return {"path": str(Path(path).resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


class FxOutput:
    """The writer of an fx job and the fate of its output (``finish`` or ``abandon``)."""

    def __init__(self, output: str, source: str, s: FxSettings, footage: Any, info: Any,
                 backend: str, stats: Any) -> None:
        self.output, self.source, self.s, self.footage, self.info = output, source, s, \
            footage, info
        self.backend, self.stats = backend, stats
        # the footage's alpha and depth, kept where the output holds them
        self.pix_fmt_in, alpha = written_format(footage.pix_fmt, output, s.codec, s.pix_fmt)
        # --crf, --preset, --bitrate, --pix-fmt; the colour tags of the video's planes
        self.encoding = fx_encoding(s, alpha, info)
        check_encoding(output, s.codec, self.encoding)
        self.times, self.offset = self._timing()
        stats.variable_in = info is not None and info.times is not None
        stats.variable = stats.variable_in and not frames_alone(output)  # they keep no times
        self.fps_out = footage.fps / s.stride
        self.segment_frames = segment_frames(self.fps_out)
        one_piece = stats.total <= self.segment_frames  # a kill -9 costs a segment anyway
        self.segmented = (resumable(output) and info is not None and self.times is None
                          and self.offset == 0 and not one_piece)
        self.sequence = is_sequence(output)  # its finished frames kept for --resume too
        self.keeps_work = self.segmented or self.sequence
        self.start = self.reused = 0
        self.writer: Any = None
        self.tmp: str | None = None
        if s.resume and not self.keeps_work:
            if not resumable(output):
                why = one_piece_why(output)
            elif info is None:
                why = ("a video from an image sequence is written in one piece; frames "
                       "(out/%05d.png) can be resumed")
            elif one_piece:
                why = f"a clip of up to {SEGMENT_SECONDS} s is written in one piece"
            else:
                why = "variable frame rate footage keeps its frame times only in one piece"
            raise resume.one_piece(output, why, "run")

    def _timing(self) -> tuple[list | None, float]:
        """Frame times to keep (variable frame rate: each output frame at the time of its
        window's first frame, every stride-th) and the video's start after its sound;
        (None, 0.0) for plain constant-rate footage."""
        info, s = self.info, self.s
        if info is None:
            return None, 0.0
        keep = (list(info.times)[::s.stride][:self.stats.total] if info.times is not None
                else None)
        if keep is None and info.start <= 0:
            return None, 0.0
        fps_out = self.footage.fps / s.stride
        return keep or [k / fps_out for k in range(self.stats.total)], info.start

    def settings(self) -> dict:
        """What the output depends on: a resumed run must match all of it (a sequence's
        input or depth pass by each of its frames)."""
        from hfrender.engine.batch_paths import input_identity
        from hfrender.io.sequence_files import DEPTH_KINDS

        s = self.s
        fields = {**s.output_settings(), **effective(self.output, s.codec, self.encoding)}
        fields.update(backend=self.backend, input=input_identity(Path(self.source)),
                      depth=input_identity(Path(s.depth), DEPTH_KINDS) if s.depth else None,
                      codec=check_output(self.output, self.footage.size, s.codec,
                                         pix_fmt=s.pix_fmt),
                      input_pix_fmt=self.footage.pix_fmt, total_frames=self.stats.total,
                      hfrender=hfrender.__version__)
        return fields

    def open(self) -> None:
        footage, s, stats = self.footage, self.s, self.stats
        fps_out = self.fps_out
        if not self.segmented:
            self.tmp = outputs.temporary(self.output)
            self.made = outputs.make_folder(self.output)
            if self.sequence:
                self._open_sequence()
            elif is_picture(self.output):  # one frame, one picture
                self.writer = PictureWriter(self.tmp)
            else:
                say_partial_goes(self.output)  # a GIF's: not resumed, said it goes
                audio = soundtrack(footage.path, self.info)
                self.writer = VideoWriter(self.tmp, fps_out, footage.size, s.codec,
                                          audio_from=audio, container=self.output,
                                          pix_fmt_in=self.pix_fmt_in, times=self.times,
                                          start=self.offset, encoding=self.encoding)
            return
        settings = self.settings()
        if s.resume:
            self.start, manifest = resume.resume_from(self.output, settings, "run")
            stats.resumed_at = self.start
            self.reused = len(manifest.segments)
        else:
            fresh_work_dir(self.output)  # an older interrupted run's goes
            manifest = Manifest(settings, stats.total, self.segment_frames, 0)
        audio = soundtrack(footage.path, self.info)
        self.writer = SegmentedWriter(self.output, fps_out, footage.size, s.codec, None,
                                      manifest, work_dir(self.output), self.start,
                                      pix_fmt_in=self.pix_fmt_in, audio_from=audio,
                                      join_unfinished=False, encoding=self.encoding)

    def _open_sequence(self) -> None:
        """An image sequence, numbered as the input's frames are (1001...), its manifest
        beside the frames; ``--resume``: after those an interrupted run finished."""
        first = self.stats.first = output_start(self.source)
        check_frames_there(self.output, first, self.stats.total)  # (--resume too: a review)
        if self.s.resume:
            self.start, _ = resume.resume_from(self.output, self.settings(), "run", first)
            self.stats.resumed_at = self.start
        check_room(self.output, self.stats.total - self.start, self.footage.size,  # (was:
                   *self._written_sample(), fewer=False)  # unsaid; a --resume's, unsaid too)
        if self.s.resume:  # (its kept frames stay where they are where that refuses)
            resume.take_back(self.output)
        else:
            resume.begin_sequence(self.output, self.tmp,
                                  Manifest(self.settings(), self.stats.total, 1, 0))
        files = getattr(self.footage, "files", None)  # (was: an EXR's pixel aspect lost)
        kept = exr_kept(files[0]) if files and self.output.lower().endswith(".exr") and \
            files[0].suffix.lower() == ".exr" else None
        others = [] if kept is None else dropped_channels(files[0], self.s.vectors, self.s.depth)
        if others:  # (was: dropped unsaid: a multilayer file's passes)
            log.warning("%s holds %s besides its colour: the output's EXRs hold the colour "
                        "alone", files[0].name, ", ".join(others[:6]) + (
                            f" and {len(others) - 6} more" if len(others) > 6 else ""))
        self.writer = PngSequenceWriter(self.tmp, self.footage.size, first + self.start,
                                        self.start, kept)

    def _written_sample(self) -> tuple[int, int]:
        """(channels, bytes a sample) of the frames written: RGB or RGBA, 8 or 16 bits; an
        EXR's floats as stored in the input's (was: always 8-bit RGB, a 16-bit PNG or
        alpha's frames weighed at a third to half of what they take)."""
        channels, dtype = RAW[self.pix_fmt_in]
        stored = getattr(self.footage, "stored", None) if self.pix_fmt_in in FLOAT else None
        return channels, np.dtype(stored or dtype).itemsize

    def finish(self) -> None:
        """Every frame was written: finalise, and put the output in place (a sequence's
        writer stays until its frames are: if that fails, :meth:`abandon` keeps them)."""
        writer = self.writer
        if not self.sequence:
            self.writer = None
        if self.tmp is None:  # the join
            late = outputs.uninterrupted(writer.close)
            self.stats.segments = (len(writer.manifest.segments) - self.reused, self.reused)
        else:  # an encoder's last frames (a Ctrl-C stops it), then the files in place
            writer.close()
            late = outputs.uninterrupted(lambda: outputs.commit(self.tmp, self.output))
            self.writer = None
        self.stats.stopped_late = self.stats.stopped_late or late is not None
        if self.tmp is None and not writer.complete:
            made = sum(seg["count"] for seg in writer.manifest.segments)
            raise FootageError(f"{self.source}: the decoder gave {made} output frames of the "
                               f"{self.stats.total} its probe promised; the video is damaged")

    def abandon(self) -> None:
        """An error or Ctrl-C: no output appears; whole segments stay for ``--resume``."""
        writer, self.writer = self.writer, None
        try:
            if writer is not None:
                writer.close()
        except Exception:  # noqa: BLE001 - the error that stopped the run is the one told
            pass
        finally:
            if self.sequence and writer is not None and writer.frames_in_output:
                self.stats.partial = outputs.keep_partial(self.tmp, self.output,
                                                          writer.frames_in_output)
                self.stats.frames_kept = writer.frames_in_output
            elif self.tmp is not None:
                outputs.discard(self.tmp, self.made)
            elif writer is not None:
                self.stats.output_kept = bool(writer.manifest.segments)
                if not self.stats.output_kept:  # nothing whole to resume from
                    shutil.rmtree(writer.folder, ignore_errors=True)


class ChunkOutput:
    """A chunk's output: frames ``first ..`` into a writer its caller closes (a segment,
    kept: what is queued is fused, as :class:`FxOutput`'s segments are)."""

    segmented = keeps_work = True

    def __init__(self, first: int, count: int, writer: Any) -> None:
        self.start, self.writer = first, writer

    def open(self) -> None:
        pass

    def finish(self) -> None:
        pass

    def abandon(self) -> None:
        pass


def conformed(source: str, info: Any, fps: float) -> Any:
    """A video's frames read at ``fps`` (``--fps``: as an editor's "interpret footage",
    every frame once, evenly: a raw stream's or a mislabelled file's rate; was refused, a
    footage trial); its sound kept as it is, said where their lengths then part."""
    if info.has_audio and abs(fps - info.fps) > info.fps * 1e-3:
        log.warning("%s: --fps %g reads its %d frames over %.3f s (its own rate, %.4g fps: "
                    "%.3f s); its sound is kept as it is, so they part", source, fps,
                    info.count, info.count / fps, info.fps, info.count / info.fps)
    return replace(info, fps=float(fps), times=None)
