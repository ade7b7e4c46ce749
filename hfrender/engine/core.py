"""Fusion workers and the writer thread of a render.

Hyperframes go through a :class:`~hfrender.engine.scheduler.Scheduler` to ``workers`` fusion
threads; their output frames go through a :class:`~hfrender.engine.scheduler.ReorderBuffer` to
one writer thread, strictly in order. A hyperframe whose fusion runs out of memory
(``MemoryError``, CUDA out-of-memory) is split in half and retried, down to one frame;
the windows of each half are the same windows, so the output does not change. Any other
error stops the render at once; the render thread sees it at its next submission.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender.effects import fuse
from hfrender.engine.scheduler import Closed, ReorderBuffer, Scheduler, Score
from hfrender.errors import HFRenderError
from hfrender.hyperframe.pool import HyperFrame
from hfrender.sampler import Plan

log = logging.getLogger(__name__)


class FusionError(HFRenderError):
    """Fusing a hyperframe failed for a reason other than memory (the message says why)."""


def out_of_memory(exc: BaseException) -> bool:
    """MemoryError, and CuPy's OutOfMemoryError (or any '...OutOfMemory...' of a backend)."""
    return isinstance(exc, MemoryError) or "OutOfMemory" in type(exc).__name__


class FusionPool:
    """``workers`` fusion threads and a writer thread around one render."""

    def __init__(self, plan: Plan, writer: Any, backend: str, stats: Any,
                 progress: Callable[[int, int], None] | None = None, workers: int = 1,
                 score: Score | None = None, on_frame: Callable[[np.ndarray], None] | None = None,
                 fuse_fn: Callable = fuse) -> None:
        self.plan, self.writer, self.backend, self.stats = plan, writer, backend, stats
        self.progress, self.on_frame, self.fuse_fn = progress, on_frame, fuse_fn
        self.scheduler = Scheduler(score)
        # fused frames waiting for the writer: bounded, so a slow writer holds back fusion
        # (and, through the pool, drawing) instead of piling frames up
        self.reorder = ReorderBuffer(plan.first_frame, capacity=max(64, 4 * workers))
        self.error: BaseException | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, name=f"hfrender-fusion-{i}",
                                          daemon=True) for i in range(workers)]
        self._writer = threading.Thread(target=self._write, name="hfrender-writer", daemon=True)
        self.first_drawn: dict[int, float] = {}  # output frame -> when its first sub-frame was
        self.latency_sum = 0.0

    def start(self) -> None:
        for t in self._threads:
            t.start()
        self._writer.start()

    def submit(self, hyper: HyperFrame) -> None:
        """Queue a full hyperframe; raises the first error of a worker or the writer."""
        if self.error is not None:
            hyper.release()
            raise self.error
        try:
            self.scheduler.put(hyper)
        except Closed:  # a worker failed between the check and the put: its error counts
            hyper.release()
            if self.error is not None:
                raise self.error from None
            raise

    def finish(self) -> None:
        """No more hyperframes: let the workers drain the queue, then write what is ready."""
        self.scheduler.close()
        for t in self._threads:
            t.join()
        self._done.set()
        self._writer.join()

    def _fail(self, exc: BaseException) -> None:
        if not isinstance(exc, (HFRenderError, KeyboardInterrupt)):
            wrapped = FusionError(f"fusion failed: {type(exc).__name__}: {exc}")
            wrapped.__cause__ = exc
            exc = wrapped
        with self._lock:
            if self.error is None:
                self.error = exc
        self.scheduler.close()
        self.reorder.close()
        for hyper in self.scheduler.drain():
            hyper.release()

    def _work(self) -> None:
        while True:
            try:
                hyper = self.scheduler.get()
            except Closed:
                return
            if self.error is not None:
                hyper.release()
                continue
            try:
                self._fuse_or_split(hyper)
            except BaseException as exc:  # noqa: BLE001 - reported by the render thread
                hyper.release()
                self._fail(exc)

    def _fuse_or_split(self, hyper: HyperFrame) -> None:
        try:
            k0, frames = self._fuse(hyper)
        except BaseException as exc:
            cut = self._split_point(hyper) if out_of_memory(exc) else None
            if cut is None:
                raise
            log.warning("fusion of %d sub-frames ran out of memory (%s): splitting in two",
                        hyper.frame_count, type(exc).__name__)
            parts = hyper.split(cut, halo=self.plan.overlap)
            with self._lock:
                self.stats.extra["retries"] = self.stats.extra.get("retries", 0) + 1
            for part in parts:
                part.retry_count = hyper.retry_count + 1
                try:
                    self._fuse_or_split(part)
                except BaseException:
                    part.release()
                    raise
            return
        hyper.release()
        for i, frame in enumerate(frames):
            self.reorder.put(self.plan.first_frame + k0 + i, frame)

    def _split_point(self, hyper: HyperFrame) -> int | None:
        """Where to cut so that each half holds whole windows: at a window's last frame
        (the next window then starts ``overlap`` frames earlier, which the second half
        carries). The window end nearest the middle; None with a single window."""
        ends = self.plan.weights.ends() - hyper.first_index
        inside = ends[(ends > hyper.halo) & (ends < hyper.frame_count)]
        if len(inside) == 0:
            return None
        return int(inside[np.argmin(np.abs(inside - hyper.frame_count / 2))])

    def _fuse(self, hyper: HyperFrame) -> tuple[int, list[np.ndarray]]:
        k0, windows = self.plan.weights.in_span(hyper.first_index, hyper.halo,
                                                hyper.frame_count)
        if windows.count == 0:
            return k0, []
        out = self.fuse_fn(hyper, windows, lens=hyper.lenses, backend=self.backend)
        out = out[..., :3]
        if not isinstance(out, np.ndarray):  # on the GPU: only finished frames come back
            out = out.get()
            with self._lock:
                self.stats.device_to_host_bytes += out.nbytes
        return k0, list(np.ascontiguousarray(out))

    def _write(self) -> None:
        try:
            while True:
                ready = self.reorder.pop_ready()
                for k, frame in ready:
                    self.writer.write(frame)
                    self.stats.frames_written += 1
                    drawn = self.first_drawn.pop(k, None)
                    if drawn is not None:
                        self.latency_sum += time.perf_counter() - drawn
                    if self.on_frame is not None:
                        self.on_frame(frame)
                    if self.progress is not None:
                        self.progress(self.stats.frames_written, self.stats.total_frames)
                if not ready:
                    if self._done.is_set() and not self.reorder.pop_ready_peek():
                        return
                    self.reorder.wait(0.05)
        except BaseException as exc:  # noqa: BLE001 - reported by the render thread
            self._fail(exc)
