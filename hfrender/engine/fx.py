"""``hfrender fx``: motion blur and depth of field on existing footage, streamed.

Frames are read one by one (video or PNG sequence), packed into hyperframes whose last
``window - 1`` frames are carried into the next as halo, fused, and written. With stride 1
the output keeps the input's frame count and rate, as ``ffmpeg -vf tmix`` does: the first
``window - 1`` windows reach before the clip, and, as in tmix (checked against ffmpeg 9),
the first frame stands in for the frames before it; a stride S turns F fps into F/S
fps with windows of ``window`` frames (``--motion-blur 8 --stride 8``: 240 fps footage to
30 fps with a 360-degree shutter). The soundtrack is kept, and at stride 1 so are the frame
times of variable frame rate footage. The output appears only when it
is complete: it is written under a temporary name and renamed at the end.
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.backends import get_backend
from hfrender.effects import fuse, motion_blur
from hfrender.hyperframe.builder import HyperFrameBuilder, auto_granularity, free_memory_bytes
from hfrender.hyperframe.pool import slot_count
from hfrender.hyperframe.windows import sliding_in_span
from hfrender.io.footage import (
    FootageError,
    open_depth,
    open_footage,
    probe,
    start_decoding,
)
from hfrender.io.writers import (
    VideoWriter,
    check_output,
    ffmpeg_encoders,
    is_sequence,
    open_writer,
    raw_frame_shape,
)
from hfrender.optics import Lens
from hfrender.sampler import curve_weights

log = logging.getLogger(__name__)

IN_FLIGHT = 1  # hyperframes fused at once, the next filling meanwhile: a pool of 2 slots

@dataclass
class FxSettings:
    window: int = 1
    stride: int = 1
    weights: str = "box"
    linear_light: bool = True
    depth: str | None = None
    depth_scale: float = 1.0
    lens: Lens | None = None
    backend: str = "auto"
    codec: str | None = None
    input_fps: float | None = None  # for PNG sequences


@dataclass
class FxStats:
    frames_in: int = 0
    frames_out: int = 0
    fps_in: float = 0.0
    fps_out: float = 0.0


def run_fx(source: str, output: str, s: FxSettings,
           progress: Callable[[int, int], None] | None = None) -> FxStats:
    # the encoder list and the fusion backend (the CUDA check imports CuPy) load while
    # ffmpeg probes the input and starts decoding: off the path to the first frame
    setup = ThreadPoolExecutor(1, thread_name_prefix="hfrender-fx-setup")
    encoders = setup.submit(ffmpeg_encoders)
    backend = setup.submit(get_backend, s.backend)
    footage = early = None
    try:
        # code values of 4:2:0 video blend where they are, as tmix does: no colour
        # conversion into RGB and back, and half the bytes through the pipes. ffmpeg starts
        # decoding while the probe runs, in the format the probe will most likely allow
        video = Path(source).is_file()  # else an image sequence
        yuv = (not s.linear_light and s.depth is None and not is_sequence(output)
               and Path(output).suffix.lower() != ".gif" and video)
        early = start_decoding(source, "yuv420p" if yuv else "rgb24")
        info = probe(source) if video else None
        yuv = yuv and info is not None and info.native_yuv420p
        footage = open_footage(source, s.input_fps, "yuv420p" if yuv else "rgb24", early)
        encoders.result()
        depth = _check(footage, output, s)
        backend.result()
        fps_out = footage.fps / s.stride
        total = footage.count if s.stride == 1 else (footage.count - s.window) // s.stride + 1
        stats = FxStats(footage.count, 0, footage.fps, fps_out)
        tmp = _temporary(output)
        audio = str(Path(footage.path).resolve()) if footage.has_audio else None
        # variable frame rate footage keeps its frame times at stride 1 (a stride sets a
        # new, constant rate), and video that starts after the sound still does
        keep = info.times if info is not None and s.stride == 1 else None
        times, start = None, 0.0
        if info is not None and (keep or info.start > 0):
            times, start = keep or [k / fps_out for k in range(total)], info.start
        try:
            writer = _open(tmp, output, fps_out, footage.size, s.codec, audio, footage.pix_fmt,
                           times, start)
            background = _Background(writer)  # encoding overlaps decoding and blending
            try:
                _stream(footage, depth, s, background, stats, total, progress)
            finally:
                background.close()
            if stats.frames_out == 0:
                raise FootageError(f"{source}: no frame came out of the decoder")
            _commit(tmp, output)
        except BaseException:
            _discard(tmp)
            raise
    finally:
        for reader in (footage, early):
            if reader is not None:
                reader.close()  # the decoder stops, also after an error
        setup.shutdown(wait=False, cancel_futures=True)  # an error is told at once
    return stats


def _outputs_per_hyperframe(frame_bytes: int, s: FxSettings) -> int:
    """Output frames per hyperframe: 8 for short windows; for long overlapping windows up
    to 32, since each hyperframe starts its running sums afresh and copies ``window - 1``
    halo frames; fewer when memory is short (the pool holds ``slot_count(IN_FLIGHT)``
    slots)."""
    halo = s.window - 1
    want = min(max(8, s.window), 32) if s.stride < s.window else 8
    slots = slot_count(IN_FLIGHT)
    g = auto_granularity(frame_bytes, frames_per_output=s.stride, halo=halo, slots=slots,
                         cap=halo + want * s.stride)
    need, free = slots * g * frame_bytes, free_memory_bytes()
    if need > free:
        raise FootageError(f"--motion-blur {s.window} --stride {s.stride} holds {g} frames "
                           f"per hyperframe, {need / 2**30:.1f} GiB in all; "
                           f"{free / 2**30:.1f} GiB is free: use a shorter window or stride")
    return (g - halo) // s.stride


def _check(footage: Any, output: str, s: FxSettings) -> Any:
    """Everything that can be said wrong before a frame is read; the depth pass, if any."""
    w, h = footage.size
    if s.window > footage.count:
        raise FootageError(f"--motion-blur {s.window} is longer than the input "
                           f"({footage.count} frames)")
    depth = None
    if s.depth is not None:
        depth = open_depth(s.depth, s.depth_scale)
        if depth.size != footage.size:
            raise FootageError(f"depth {s.depth} is {depth.size[0]}x{depth.size[1]}, the "
                               f"footage {w}x{h}: they must match")
        if depth.count != footage.count:
            raise FootageError(f"depth {s.depth} has {depth.count} frames, the footage "
                               f"{footage.count}: one depth frame per frame is needed")
    check_output(output, footage.size, s.codec)
    return depth


def _stream(footage: Any, depth: Any, s: FxSettings, writer: Any, stats: FxStats, total: int,
            progress: Callable[[int, int], None] | None) -> None:
    w, h = footage.size
    weights = curve_weights(s.weights, s.window)
    halo = s.window - 1
    shape = raw_frame_shape(footage.size, footage.pix_fmt)
    per = _outputs_per_hyperframe(int(np.prod(shape)) + (h * w * 4 if depth else 0), s)
    builder = HyperFrameBuilder.create(shape, np.uint8, frames_per_output=s.stride,
                                       halo=halo, granularity=halo + per * s.stride,
                                       depth=depth is not None, max_in_flight=IN_FLIGHT)
    depth_frames = iter(depth.frames) if depth is not None else None

    def emit(frames: np.ndarray, recycle: bool = False) -> None:
        writer.write(frames, recycle)
        stats.frames_out += len(frames)
        if progress is not None:
            progress(stats.frames_out, total)

    firsts: list[tuple[np.ndarray, Any]] = []
    lead: list[np.ndarray] = []  # the window of output k, filled in place

    def lead_in(color: np.ndarray, dplane: Any) -> None:
        """Stride 1: output k < window - 1 reaches before the clip; frame 0 stands in for
        the frames before it, as in tmix. Emitted as soon as frame k is decoded (on the
        decoding thread), so the encoder starts while the first hyperframe fills."""
        firsts.append((color, dplane))
        k = len(firsts) - 1
        if k == 0:
            lead.append(np.empty((s.window,) + color.shape, color.dtype))
            if dplane is not None:
                lead.append(np.empty((s.window,) + dplane.shape, dplane.dtype))
        for i, j in enumerate([0] * (halo - k) + list(range(k + 1))):
            for buf, plane in zip(lead, firsts[j], strict=False):
                buf[i] = plane
        emit(_blend(lead[0], lead[1] if len(lead) > 1 else None, s.window, 1, weights, s,
                    None, 0))
        if k == halo - 1:  # the last window reaching before the clip
            firsts.clear()
            lead.clear()

    def process(hyper: Any) -> None:
        try:
            _, ww = sliding_in_span(weights, s.stride, hyper.first_index, hyper.halo,
                                    hyper.frame_count)
            if ww.count:
                first = int(ww.starts[0])
                span = hyper.frames[first: int(ww.starts[-1]) + s.window]
                out = writer.buffer(per, shape)[:ww.count]  # reused: no fresh pages a frame
                emit(_blend(span, hyper.depth, s.window, s.stride, weights, s, hyper.lenses,
                            first, out), recycle=True)
        finally:  # also after an error or Ctrl-C: the decoder may be waiting for this slot
            hyper.release()

    full: queue.Queue = queue.Queue()
    stop = threading.Event()

    def produce() -> None:  # decoding fills the next slots while this thread blends
        try:
            while not stop.is_set():
                color, dplane = builder.reserve(float(builder.frames_pushed))
                if not footage.read_into(color):  # straight into the hyperframe slot
                    builder.cancel()
                    break
                if dplane is not None:
                    d = next(depth_frames, None)
                    if d is None:
                        raise FootageError(f"the depth pass ends at frame "
                                           f"{builder.frames_pushed}, the footage goes on")
                    if d.shape != dplane.shape:
                        raise FootageError(f"depth frame {builder.frames_pushed} is "
                                           f"{d.shape}, expected {dplane.shape}")
                    dplane[...] = d
                if s.stride == 1 and builder.frames_pushed < halo:
                    lead_in(color, dplane)  # the slot is not handed on before frame halo
                done = builder.commit()
                if done is not None:
                    full.put(done)
            last = builder.flush_remaining()
            if last is not None:
                full.put(last)
            full.put(None)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the consumer
            full.put(exc)

    reader = threading.Thread(target=produce, name="hfrender-fx-decode", daemon=True)
    reader.start()
    try:
        while True:
            item = full.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            if s.lens is not None:
                item.lenses = [s.lens] * item.frame_count
            process(item)
    finally:
        stop.set()
        while reader.is_alive():  # let a producer waiting for a slot see the stop
            try:
                item = full.get(timeout=0.05)
            except queue.Empty:
                continue
            if item is not None and not isinstance(item, BaseException):
                item.release()
        footage.close()


class _Background:
    """The writer on its own thread: batches of frames go through a short queue, errors come
    back on the next call. Output buffers are recycled once written (``buffer``): the
    fusion writes into memory that is already mapped instead of faulting in fresh pages
    for every hyperframe, which on two cores cost more than the blending itself."""

    def __init__(self, writer: Any, depth: int = 1) -> None:
        self.writer = writer
        self.q: queue.Queue = queue.Queue(maxsize=depth)
        self.free: queue.Queue = queue.Queue()
        self.made = 0
        self.limit = depth + 1  # one being filled while the queue holds the others
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="hfrender-fx-write", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            item = self.q.get()
            if item is None:
                return
            frames, recycle = item
            if self.error is None:
                try:
                    for f in frames:
                        self.writer.write(f)
                except BaseException as exc:  # noqa: BLE001 - re-raised in write/close
                    self.error = exc
            if recycle:
                self.free.put(frames.base if frames.base is not None else frames)

    def buffer(self, count: int, shape: tuple) -> np.ndarray:
        """An output buffer of ``count`` frames: a recycled one, or a new one up to the limit."""
        if self.made < self.limit and self.free.empty():
            self.made += 1
            return np.empty((count,) + shape, np.uint8)
        while True:
            if self.error is not None:
                raise self.error
            try:
                return self.free.get(timeout=0.1)
            except queue.Empty:
                continue

    def write(self, frames: np.ndarray, recycle: bool = False) -> None:
        """Queue ``frames`` (N frames) for writing; ``recycle``: a view of a ``buffer``."""
        if self.error is not None:
            raise self.error
        self.q.put((frames, recycle))

    def close(self) -> None:
        self.q.put(None)
        self.thread.join()
        self.writer.close()
        if self.error is not None:
            raise self.error


def _blend(frames: np.ndarray, depth: Any, window: int, stride: int, weights: np.ndarray,
           s: FxSettings, lenses: Any, offset: int, out: np.ndarray | None = None) -> np.ndarray:
    """Windows of ``frames`` (and depth of field from the depth pass, when given)."""
    if s.lens is None:
        return motion_blur(frames, window, stride=stride, weights=weights,
                           linear_light=s.linear_light, backend=s.backend, out=out)
    from hfrender.hyperframe.pool import HyperFrame
    from hfrender.hyperframe.windows import WindowWeights

    n = frames.shape[0]
    d = depth[offset: offset + n]
    count = (n - window) // stride + 1
    ww = WindowWeights.sliding(np.asarray(weights, np.float64), count, stride)
    return fuse(HyperFrame(frames, d), ww, lens=s.lens, linear_light=s.linear_light,
                backend=s.backend, out=out)


def _temporary(output: str) -> str:
    out = Path(output).resolve()
    if is_sequence(output):
        return str(out.parent.with_name(f".{out.parent.name or 'frames'}.partial") / out.name)
    return str(out.with_name(f".{out.name}.partial{out.suffix}"))


def _open(tmp: str, output: str, fps: float, size: tuple[int, int], codec: str | None,
          audio: str | None, pix_fmt: str = "rgb24", times: Any = None,
          start: float = 0.0) -> Any:
    if is_sequence(output):
        return open_writer(tmp, fps, size, codec)
    return VideoWriter(tmp, fps, size, codec, audio_from=audio, container=output,
                       pix_fmt_in=pix_fmt, times=times, start=start)


def _commit(tmp: str, output: str) -> None:
    if is_sequence(output):
        from hfrender.io.writers import remove_stale

        src, dst = Path(tmp).parent, Path(output).resolve().parent
        dst.mkdir(parents=True, exist_ok=True)
        remove_stale(str(dst / Path(output).name))  # an older render's frames
        for f in sorted(src.iterdir()):
            os.replace(f, dst / f.name)
        shutil.rmtree(src, ignore_errors=True)
    else:
        os.replace(tmp, output)


def _discard(tmp: str) -> None:
    if is_sequence(tmp):
        shutil.rmtree(Path(tmp).parent, ignore_errors=True)
    else:
        Path(tmp).unlink(missing_ok=True)
