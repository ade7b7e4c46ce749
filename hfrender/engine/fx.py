"""``hfrender fx``: motion blur and depth of field on existing footage, on the one engine.

The producer is the decoder: frames are read one by one (video or PNG sequence) straight
into the slots of hyperframes whose last ``window - 1`` frames are carried into the next as
halo; the engine fuses and writes them. With stride 1 the output keeps the input's frame
count and rate, as ``ffmpeg -vf tmix`` does: the first ``window - 1`` windows reach before
the clip, and, as in tmix (checked against ffmpeg 9), the first frame stands in for the
frames before it (the producer puts it there ``window - 1`` extra times); a stride S turns
F fps into F/S fps with windows of ``window`` frames (``--motion-blur 8 --stride 8``:
240 fps footage to 30 fps with a 360-degree shutter). The soundtrack is kept, and at
stride 1 so are the frame times of variable frame rate footage.

Constant-rate video outputs are written as segments with a manifest (``--resume``
continues after Ctrl-C, SIGTERM or ``kill -9``, re-encoding only what is missing) and
joined when complete; other outputs under a temporary name, renamed at the end. Either
way the output appears only when it is complete.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.backends import get_backend
from hfrender.color import premultiply
from hfrender.engine.buffers import OutputBuffers
from hfrender.engine.core import Engine
from hfrender.engine.fx_checks import (
    alpha_of,
    check_files,
    check_footage,
    output_count,
    outputs_per_hyperframe,
)
from hfrender.engine.fx_fusion import FxFusion, stream_pad
from hfrender.engine.fx_notes import keeps_sound
from hfrender.engine.fx_output import (
    ChunkOutput,
    FxOutput,
    conformed,
    raw_format,
    written_format,
)
from hfrender.engine.fx_settings import FxSettings
from hfrender.hyperframe.builder import HyperFrameBuilder
from hfrender.hyperframe.frame import HyperFrame
from hfrender.io.depth_pass import DepthReader
from hfrender.io.exr_footage import is_one_image
from hfrender.io.ffmpeg import VIDEO_SUFFIXES
from hfrender.io.footage import (
    FootageError,
    open_footage,
    probe,
    start_decoding,
)
from hfrender.io.pixels import FLOAT, raw_dtype
from hfrender.io.writers import ffmpeg_encoders, raw_frame_shape

__all__ = ["FxJob", "FxSettings", "FxStats", "run_fx"]

log = logging.getLogger(__name__)

# hyperframes fused at once: one per fusion worker, the next filling meanwhile (one worker:
# a pool of 2 slots)
EARLY_OUTPUTS = 4  # the first outputs leave one by one: the encoder starts ~60 ms sooner
Progress = Callable[[int, int], None]


@dataclass
class FxStats:
    frames_in: int = 0
    frames_out: int = 0  # written by this run
    fps_in: float = 0.0
    fps_out: float = 0.0
    total: int = 0  # output frames of the whole clip
    first: int = 0  # the number of an image sequence's first (the footage's: 1001 ..)
    resumed_at: int | None = None  # the first output frame a --resume fused
    retries: int = 0
    seconds: float = 0.0
    output_kept: bool = False  # an interruption kept segments for --resume
    partial: str | None = None  # where an interrupted image sequence's frames are kept
    frames_kept: int = 0  # how many (for --resume)
    segments: tuple[int, int] = (0, 0)  # (made by this run, reused from an interrupted one)
    stopped_late: bool = False  # a Ctrl-C came once every frame was in: the output is whole
    variable: bool = False  # the footage's frame rate varies: each frame keeps its time
    variable_in: bool = False  # it varies, kept or not


class FxJob:
    """Effects on ``source`` into ``output``: ``prepare()`` opens and checks everything
    (errors before a frame is read), ``run()`` streams it through the engine."""

    def __init__(self, source: str, output: str, settings: FxSettings,
                 progress: Progress | None = None, chunk: tuple[int, int, Any] | None = None
                 ) -> None:
        """``chunk``: ``(first, count, writer)``: only output frames ``first .. first +
        count - 1``, into ``writer`` (a segment, on a Ray worker); ``output`` then only
        names the kind of video."""
        if not isinstance(settings, FxSettings):
            raise TypeError(f"settings must be FxSettings, not {type(settings).__name__}")
        self.source, self.output, self.s, self.progress = source, output, settings, progress
        self.chunk, self._t0 = chunk, time.perf_counter()
        self.footage = self.depth = self.out = self.vectors = None
        self.alpha: str | None = None  # footage with alpha: "keep" or "drop" (FxFusion)
        self.alpha_note: str | None = None  # its warning, once a frame is see-through
        self.stats = FxStats()

    def prepare(self) -> FxJob:
        # the encoder list and the fusion backend (the CUDA check imports CuPy) load while
        # ffmpeg probes the input and starts decoding: off the path to the first frame
        s = self.s
        if self.chunk is None:
            check_files(self.source, self.output, s)
        setup = ThreadPoolExecutor(1, thread_name_prefix="hfrender-fx-setup")
        # (a video's alone: frames in and out need no ffmpeg, as a render's need none)
        video_out = Path(self.output).suffix.lower() in VIDEO_SUFFIXES
        encoders = setup.submit(ffmpeg_encoders if video_out else frozenset)
        backend = setup.submit(get_backend, s.backend)
        early = None
        try:
            video = Path(self.source).is_file() and not is_one_image(self.source)  # or frames
            # ffmpeg starts decoding while the probe runs, in the format it will most
            # likely allow
            early = start_decoding(self.source, raw_format(s, self.output, video))
            self.info = probe(self.source) if video else None
            if self.info is not None and s.input_fps is not None:
                self.info = conformed(self.source, self.info, s.input_fps)
            self.footage = open_footage(
                self.source, s.input_fps,
                raw_format(s, self.output, self.info is not None and self.info.native_yuv420p),
                early)
            early = None
            encoders.result()
            self.s, self.depth, self.vectors = check_footage(self.source, self.output, s,
                                                             self.footage)
            self.alpha, self.alpha_note = alpha_of(self.source, self.output, self.s,
                                                   self.footage, self.info)
            self.backend = backend.result().name
            self._plan()
            if self.chunk is not None:
                self.out = ChunkOutput(*self.chunk)
            else:
                self.out = FxOutput(self.output, self.source, self.s, self.footage, self.info,
                                    self.backend, self.stats)
            self.out.open()
        except BaseException:
            for reader in (self.footage, early):
                if reader is not None:
                    reader.close()  # the decoder stops, also after an error
            raise
        finally:
            setup.shutdown(wait=False, cancel_futures=True)  # an error is told at once
        return self

    def _plan(self) -> None:
        footage, s, stats = self.footage, self.s, self.stats
        stats.frames_in, stats.fps_in = footage.count, footage.fps
        stats.fps_out = footage.fps / s.stride
        stats.total = output_count(footage.count, s)
        self.pad = stream_pad(s)
        self.shape = raw_frame_shape(footage.size, footage.pix_fmt)
        self.dtype = np.dtype(raw_dtype(footage.pix_fmt))  # uint16: the 16-bit working format
        # what is written: float footage's light as 16-bit codes, or as its EXR's floats
        self.codes = np.dtype(raw_dtype(written_format(footage.pix_fmt, self.output,
                                                       s.codec, s.pix_fmt)[0]))
        if self.codes.kind == "f":
            self.codes = np.dtype(getattr(footage, "stored", None) or self.codes)
        w, h = footage.size
        frame_bytes = int(np.prod(self.shape)) * self.dtype.itemsize + \
            (h * w * 4 if self.depth or self.vectors else 0) + (h * w * 8 if self.vectors else 0)
        self.per = outputs_per_hyperframe(frame_bytes, s)
        end = stats.total if self.chunk is None else self.chunk[0] + self.chunk[1]
        self.end = min(end, stats.total)
        self.last = (self.end - 1) * s.stride + s.window - 1  # the last frame a window needs

    def run(self) -> FxStats:
        if self.out is None:
            self.prepare()
        stats = self.stats
        try:
            start = self.out.start
            if start < self.end:
                self._stream(start)
            if stats.frames_out == 0 and start == 0:
                raise FootageError(f"{self.source}: no frame came out of the decoder")
            self._short(start)
            self.out.finish()
        except BaseException:
            self.out.abandon()
            raise
        finally:
            self.footage.close()
            stats.seconds = time.perf_counter() - self._t0
        return stats

    def _short(self, start: int) -> None:
        """Fewer frames out than the probe listed (damaged frames the decoder skips): said,
        and counted as made (was: "wrote 90 frames" of 60, the picture ahead of the sound
        from the damage on, without a word; a video editor's trial)."""
        stats, want = self.stats, self.end - start
        if self.chunk is not None or stats.frames_out >= want:
            return
        cut = getattr(getattr(self, "info", None), "cut_short", "")  # (its end said already)
        stats.total = start + stats.frames_out
        if cut:
            return
        sync = ("its picture runs ahead of its sound; repair the footage to keep them in step"
                if keeps_sound(self.output, getattr(self, "info", None)) else
                "its frames come earlier than the footage's; repair the footage to keep its "
                "timing")
        log.warning("%s: the decoder gave fewer than the %d frames its index lists (damaged "
                    "ones are skipped), so %s has %d frames of %d, and from the first damaged "
                    "frame on %s", self.source, self.footage.count, self.output,
                    start + stats.frames_out, self.end, sync)

    def _stream(self, start: int) -> None:
        s, stats = self.s, self.stats
        skip = start * s.stride  # padded frames that no output still to make needs
        builder = HyperFrameBuilder.create(
            self.shape, self.dtype, frames_per_output=s.stride, halo=s.window - 1,
            granularity=s.window - 1 + self.per * s.stride, depth=self.depth is not None
            or getattr(self.vectors, "has_z", False), velocity=self.vectors is not None,
            max_in_flight=s.workers, first_index=skip, lead_in=s.window - 1 if start else 0)
        codes = self.codes if self.codes != self.dtype else None
        static = self.depth is not None and self.depth.static
        engine = Engine(FxFusion(s, self.alpha, codes, static, self.alpha_note),
                        self.out.writer,
                        first_frame=start, total=self.end, kept=start, workers=s.workers,
                        buffers=OutputBuffers(self.per, self.shape, self.codes),
                        progress=self.progress, held=1 + s.workers)
        engine.start()
        try:
            engine.drive(lambda: self._produce(builder, engine, skip), builder.cancel,
                         keep_queued=self.out.keeps_work)  # else Ctrl-C throws it all away
        finally:
            stats.frames_out, stats.retries = engine.stats.frames_written, engine.stats.retries
            stats.stopped_late = engine.stats.stopped_late

    def _produce(self, builder: HyperFrameBuilder, engine: Engine, skip: int) -> None:
        """Decode into the slots: frame i of the clip is frame ``pad + i`` of the stream
        (frame 0 fills 0..pad); frames before ``skip`` are read and dropped."""
        footage, pad, s = self.footage, self.pad, self.s
        depth = DepthReader(self.depth) if self.depth is not None else None
        scratch = None
        i = 0
        early = EARLY_OUTPUTS if skip == 0 else 0
        while True:
            p = pad + i
            if p > self.last:  # a chunk: no window it makes needs more
                break
            if p < skip:  # a resumed run: no window still to make needs this frame
                scratch = np.empty(self.shape, self.dtype) if scratch is None else scratch
                if not footage.read_into(scratch):
                    break
                if depth is not None:
                    depth.next(i)
            elif i == 0 and self.vectors is None:  # frame 0, and where it stands in for
                # the frames before the clip (--vectors: none before it; reserved, below)
                color = np.empty(self.shape, self.dtype)
                if not footage.read_into(color):
                    break
                self._premultiply(color)
                d = depth.next(0, self.shape[:2]) if depth is not None else None
                for q in range(skip, pad + 1):
                    self._submit(engine, builder.push(color, float(q), d))
                if early and pad + 1 >= s.window:  # output 0 is complete
                    self._submit(engine, builder.emit_now())
                    early -= 1
            else:
                color, dplane, vplane = builder.reserve(float(p))
                if not footage.read_into(color):  # straight into the hyperframe slot
                    builder.cancel()
                    break
                self._premultiply(color)
                if vplane is not None:  # (and Z, where its files hold one)
                    vplane[...], z = self.vectors.read(i)
                    if dplane is not None:
                        dplane[...] = z
                elif dplane is not None:
                    depth.into(dplane, i)
                hyper = builder.commit()
                if hyper is None and early and p >= s.window - 1 \
                        and (p - s.window + 1) % s.stride == 0:  # an output is complete
                    hyper = builder.emit_now()
                    early -= 1
                self._submit(engine, hyper)
            i += 1
        self._submit(engine, builder.flush_remaining())

    def _premultiply(self, frame: np.ndarray) -> None:
        """Straight alpha (as PNG, ProRes 4444 and VP9 hold it) -> premultiplied in the
        space the fusion blends in (linear light, or code values with --gamma-space), in
        place (``hf.motion_blur(premultiplied=False)`` does it in float32)."""
        if self.alpha is not None and self.footage.pix_fmt not in FLOAT:  # EXR's is already
            frame[...] = premultiply(frame, self.s.linear_light)

    @staticmethod
    def _submit(engine: Engine, hyper: HyperFrame | None) -> None:
        if hyper is not None:
            engine.submit(hyper)


def run_fx(source: str, output: str, settings: FxSettings,
           progress: Progress | None = None) -> FxStats:
    """``FxJob(...).prepare().run()``: see :class:`FxJob`."""
    return FxJob(source, output, settings, progress).prepare().run()

