"""The one engine every job runs on: producer -> scheduler -> fusion workers -> reorder -> writer.

A job's producer (the GL draw loop of a render, the decoder of ``hfrender fx``) fills
hyperframes from a pool on the calling thread and hands each full one to
:meth:`Engine.submit`. ``workers`` fusion threads take them from a :class:`~.Scheduler`
(FIFO, or by a score) and turn their windows into blocks of output frames; a
:class:`~.ReorderBuffer` hands them, in frame order, to one writer thread.

What a job brings is a :class:`Fusion`: which outputs a hyperframe computes and how. A
hyperframe whose fusion runs out of memory (``MemoryError``, CUDA out-of-memory) is split
at a window boundary and each half retried, down to a single window
(:class:`~hfrender.engine.split_retry.SplitRetry`); the windows are the same, so the output
does not change. Any other error stops the job at once.

Errors travel one way, in one object: the first failure of any thread completes a
:class:`concurrent.futures.Future`; the producer sees it at its next submission, and
:meth:`Engine.finish` raises it. Nothing polls: every wait is on a condition that a
release, a write or the failure itself signals.
"""

from __future__ import annotations

import contextvars
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hfrender.engine.buffers import OutputBuffers
from hfrender.engine.scheduler import Closed, ReorderBuffer, Scheduler, Score
from hfrender.engine.split_retry import SplitRetry
from hfrender.hyperframe.frame import HyperFrame, Status
from hfrender.hyperframe.windows import WindowWeights
from hfrender.signals import at_once

Progress = Callable[[int, int], None]


class Fusion(Protocol):
    """What a job fuses: the outputs of a hyperframe and how to compute them."""

    def windows(self, hyper: HyperFrame) -> tuple[int, WindowWeights]:
        """``(first output, windows)`` that ``hyper`` computes, starts relative to it."""
        ...

    def fuse(self, hyper: HyperFrame, windows: WindowWeights, out: np.ndarray,
             first: int = 0) -> np.ndarray:
        """The output frames of ``windows`` (host memory, ``windows.count`` of them),
        written into ``out`` where the job can; ``first``: the first of them, as
        :meth:`windows` said (the engine passes it on)."""
        ...


class FrameWriter(Protocol):
    """Where finished frames go, in order: a video, segments, a PNG sequence, memory."""

    frames_written: int

    def write(self, frame: np.ndarray) -> None: ...

    def close(self) -> None: ...


@dataclass
class EngineStats:
    """What the engine measured (the job's own figures live on the job's stats)."""

    frames_written: int = 0
    total_frames: int = 0
    retries: int = 0  # hyperframes split after running out of memory
    latency_s: float = 0.0  # summed: first sub-frame drawn -> frame written
    stopped_late: bool = False  # a Ctrl-C came once every frame was in: the output is whole

    @property
    def latency_ms(self) -> float:
        return 1e3 * self.latency_s / max(1, self.frames_written)


def ctrl_c_announced() -> bool:
    """Whether a first Ctrl-C is the command's "stopping after the work in progress" (its
    own handler is in place), not Python's plain KeyboardInterrupt (a library's caller,
    who expects it to stop the work at once)."""
    return signal.getsignal(signal.SIGINT) not in (signal.default_int_handler, None)


class _Thread(threading.Thread):
    """A daemon thread whose end can be waited for again after a Ctrl-C interrupted the
    wait (``Thread.join`` cannot: interrupted, it marks a running thread as ended, 3.11's
    bpo-45274 handling). It runs in a copy of its maker's context: a line made there names
    settings as the caller does (:func:`hfrender.errors.spelling`; was the flags to
    hf.render's caller: "lower --samples or --size")."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.work, self.ended = target, threading.Event()
        self.context = contextvars.copy_context()

    def run(self) -> None:
        try:
            self.context.run(self.work)
        finally:
            self.ended.set()


class Engine(SplitRetry):
    """Fusion threads and a writer thread around one job (see the module's notes).

    Parameters
    ----------
    fusion : the job's windows and fusion
    writer : where output frames go, in order (closed by the job, not here)
    first_frame : global index of the first output frame written
    total : output frames expected (for progress), with ``kept`` ones
    kept : output frames an interrupted run made (a resume): progress counts from there
    workers : fusion threads
    score : priority of a hyperframe (None: FIFO)
    buffers : recycled output blocks (None: each block allocated)
    progress : ``progress(written, total)`` from the writer thread
    on_frame : called with every frame written (a preview window)
    held : hyperframes submitted and not yet written before the producer is held back
    before_submit : sees each hyperframe as it is submitted, still the producer's (a sample
        store keeps its sub-frames)
    """

    def __init__(self, fusion: Fusion, writer: FrameWriter, *, first_frame: int = 0,
                 total: int = 0, workers: int = 1, score: Score | None = None,
                 buffers: OutputBuffers | None = None, progress: Progress | None = None,
                 on_frame: Callable[[np.ndarray], None] | None = None,
                 held: int | None = None,
                 before_submit: Callable[[HyperFrame], None] | None = None,
                 kept: int = 0) -> None:
        self.fusion, self.writer, self.buffers = fusion, writer, buffers
        self.kept, self.before_submit = kept, before_submit
        self.progress, self.on_frame = progress, on_frame
        self.stats = EngineStats(total_frames=total)
        self.scheduler = Scheduler(score)
        self.reorder = ReorderBuffer(first_frame)
        self.held = held if held is not None else 2 + 2 * workers
        self.failure: Future = Future()
        self.first_drawn: dict[int, float] = {}  # output frame -> its first sub-frame drawn
        self._ends: deque[int] = deque()  # one past the outputs of each hyperframe in flight
        self._planned: dict[int, tuple] = {}  # the windows submit found, for the worker
        self._lock = threading.Lock()
        self._threads = [_Thread(self._work, f"hfrender-fusion-{i}") for i in range(workers)]
        self._threads.append(_Thread(self._write, "hfrender-writer"))
        self._started = self._finished = False

    # --- the producer's side -----------------------------------------------------------
    def start(self) -> Engine:
        """Start the threads; progress told at once (the frames kept, of all): a bar and
        its rate from the start (was: from the first frame written, 14 s into 18, a trial)."""
        for t in self._threads:
            t.start()
        self._started = True
        if self.progress is not None and self.stats.total_frames > 0:
            self.progress(self.kept, self.stats.total_frames)
        return self

    def submit(self, hyper: HyperFrame) -> None:
        """Queue a full hyperframe; waits while ``held`` earlier ones are not yet written (a
        slow writer holds the producer back); raises the first failure of any thread."""
        try:
            while len(self._ends) >= self.held:
                self.reorder.wait_written(self._ends.popleft())
            self._raise_failure()
            if self.before_submit is not None:
                self.before_submit(hyper)
            k0, windows = self.fusion.windows(hyper)
            self._planned[id(hyper)] = (hyper, k0, windows)  # held: its id stays its own
            self._ends.append(k0 + windows.count)
            self.scheduler.put(hyper)
        except BaseException:
            hyper.release()
            self._raise_failure()
            raise

    def mark_started(self, k: int) -> None:
        """Output frame ``k``'s first sub-frame was drawn now (for the latency figure)."""
        self.first_drawn[k] = time.perf_counter()

    def finish(self, stopping: bool = False) -> EngineStats:
        """No more hyperframes: fuse what is queued, write what is in order, raise the first
        failure (the frames before it are written).

        A Ctrl-C while it waits is the one :func:`~hfrender.cli.common.on_sigint` announced
        ("stopping after the work in progress"): the queued frames are still fused and
        written (not where no handler announced it, :func:`ctrl_c_announced`: there it is a
        further one); a further one stops that at once (nothing more is fused, the writer
        stops; ``stopping``: the producer was interrupted already, so any Ctrl-C here is a
        further one). Either way every thread has ended when this returns or raises:
        nothing writes into an output the job then closes; only one more Ctrl-C stops the
        wait itself (a hung thread). The Ctrl-C is raised after, unless every frame was
        written anyway (:attr:`EngineStats.stopped_late`: the output is whole)."""
        if not self._finished:
            self._finished = True
            self.scheduler.close()
        interrupt = self._join(stopping)
        if self._whole_despite(interrupt):
            return self.stats
        self._raise_failure()
        if interrupt is not None:
            raise interrupt
        return self.stats

    def _join(self, stopping: bool) -> KeyboardInterrupt | None:
        """Wait for every thread; a Ctrl-C while waiting is returned. A further one makes
        the engine fail (it stops after the hyperframes being fused) and waits for that;
        one more stops waiting (a thread that hangs, a writer on a stalled disk: the
        threads are daemons, and the job's output is left as it is)."""
        interrupts: list[KeyboardInterrupt] = []
        stopping = stopping or not ctrl_c_announced()  # a library's caller: at once
        while self._started:
            try:
                for t in self._threads[:-1]:
                    t.ended.wait()
                self.reorder.close()
                self._threads[-1].ended.wait()
                break
            except KeyboardInterrupt as exc:
                interrupts.append(exc)
                asked = len(interrupts) + stopping  # Ctrl-Cs so far, the producer's too
                if asked == 2 or at_once():  # (a still's: its one picture is all in progress)
                    self.fail(exc)
                if asked >= 3 or at_once():
                    raise
        return interrupts[0] if interrupts else None

    @property
    def complete(self) -> bool:
        """Every frame the job expects (``total``, with the ``kept`` ones) is written."""
        return self.kept + self.stats.frames_written >= self.stats.total_frames > 0

    def _whole_despite(self, interrupt: BaseException | None) -> bool:
        """Whether ``interrupt`` is a Ctrl-C that came once every frame was in, with no
        other failure: the output is whole (:attr:`EngineStats.stopped_late`, said so)."""
        whole = isinstance(interrupt, KeyboardInterrupt) and self.complete and \
            self.error in (None, interrupt)
        self.stats.stopped_late = self.stats.stopped_late or whole
        return whole

    def drive(self, produce: Callable[[], None], cancel: Callable[[], None],
              keep_queued: bool = True) -> EngineStats:
        """Run the producer on this thread, then :meth:`finish`; after a failure of the
        producer (or Ctrl-C) ``cancel()`` first, and what is queued is still fused and
        written; not after Ctrl-C with ``keep_queued`` False (an output that an interrupted
        run throws away: only the hyperframes being fused end). The first error, the
        producer's or the engine's, is raised after both; not a Ctrl-C that came when the
        producer had handed over every frame (:attr:`EngineStats.stopped_late`)."""
        error: BaseException | None = None
        try:
            produce()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after finishing
            error = exc
            cancel()
            if not keep_queued and isinstance(exc, KeyboardInterrupt):
                self.fail(exc)  # the queue dropped, the writer stopped
        try:
            self.finish(stopping=isinstance(error, KeyboardInterrupt))
        except BaseException as exc:  # noqa: BLE001 - the first error is the one reported
            error = error or exc
        if self._whole_despite(error):
            error = None
        if error is not None:
            raise error
        return self.stats

    def _raise_failure(self) -> None:
        if self.failure.done():
            raise self.failure.exception()

    @property
    def error(self) -> BaseException | None:
        return self.failure.exception() if self.failure.done() else None

    # --- the threads ---------------------------------------------------------------------
    def fail(self, exc: BaseException) -> None:
        """Record the first failure and wake every wait: nothing is fused after it."""
        with self._lock:
            if not self.failure.done():
                self.failure.set_exception(exc)
        self.scheduler.close()
        self.reorder.close()
        for hyper in self.scheduler.drain():
            hyper.status = Status.FAILED
            hyper.release()
        self._planned.clear()  # nothing queued is fused any more, nor what a process fuses:
        getattr(self.fusion, "abort", lambda: None)()  # (it was waited for, minutes of it)

    def _work(self) -> None:
        while True:
            try:
                hyper = self.scheduler.get()
            except Closed:
                return
            if self.failure.done():
                hyper.release()
                continue
            hyper.status = Status.PROCESSING
            try:
                self._fuse_or_split(hyper)
            except BaseException as exc:  # noqa: BLE001 - raised in the producer's thread
                self.fail(exc)

    def _write(self) -> None:
        try:
            while True:
                item = self.reorder.take()
                if item is None:
                    return
                k0, block = item
                for i, frame in enumerate(block):
                    self.writer.write(frame)
                    self._written(k0 + i, frame)
                if self.buffers is not None:
                    self.buffers.give(block)
        except BaseException as exc:  # noqa: BLE001 - raised in the producer's thread
            self.fail(exc)

    def _written(self, k: int, frame: np.ndarray) -> None:
        stats = self.stats
        stats.frames_written += 1
        drawn = self.first_drawn.pop(k, None)
        if drawn is not None:
            stats.latency_s += time.perf_counter() - drawn
        if self.on_frame is not None:
            self.on_frame(frame)
        if self.progress is not None:
            self.progress(self.kept + stats.frames_written, stats.total_frames)
