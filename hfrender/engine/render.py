"""The render job: scene -> sampler -> renderer -> hyperframes -> the engine -> writer.

:class:`RenderJob` decides everything before a sub-frame is drawn
(:meth:`~RenderJob.prepare`: the scene, its checks, the schedule, the pool, the output;
:mod:`.render_prepare`), then :meth:`~RenderJob.run` draws: the calling thread owns the GL
context and draws every sub-frame straight into a pool slot (``read_into``, no allocation
per sub-frame), its lens committed with it; the engine fuses full hyperframes on its threads
and writes the frames in order. Back-pressure comes from the pool: with every slot in
flight, drawing waits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine import deep_output
from hfrender.engine.buffers import OutputBuffers
from hfrender.engine.core import Engine
from hfrender.engine.draw import SubframeDrawer
from hfrender.engine.passes import FramePasses
from hfrender.engine.render_checks import check_resume_keeping
from hfrender.engine.render_fusion import RenderFusion
from hfrender.engine.render_output import RenderOutput
from hfrender.engine.render_prepare import RenderPreparation
from hfrender.engine.render_setup import fusion_workers
from hfrender.engine.render_stats import RenderStats
from hfrender.engine.scheduler import SCORES
from hfrender.plan_stream import PlanStream
from hfrender.sampler import Plan

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class RenderJob(RenderPreparation):
    """Output frames ``first_frame ..`` of a scene script, into ``config.output`` (or into
    ``writer``, which the caller closes). ``prepare()`` raises ``SceneError``/
    ``ConfigError``/``WriterError``/``ShaderError`` before anything is written; once
    ``run()`` writes, any error or Ctrl-C still finalises what was written."""

    def __init__(self, scene_file: str | Path, config: RenderConfig, *,
                 scene_name: str | None = None, first_frame: int = 0, count: int | None = None,
                 progress: Progress | None = None, writer: Any = None,
                 gl_device: int | None = None, scene: Any = None,
                 stop: Callable[[], None] | None = None, slow_said: bool | None = None,
                 hints: int | None = None) -> None:
        """``slow_said``: whether a slow look at the scene before the first frame is said
        (:func:`~hfrender.scene.slow_check.said_if_slow`; None: unless ``config.quiet``; a
        still's and a batch job's, quiet of their own, as their command's ``--quiet``).
        ``gl_device``: the EGL device (its CUDA ordinal among all GPUs: a Ray task's GPU,
        which ``CUDA_VISIBLE_DEVICES`` renumbers for CUDA but not for EGL). ``scene``: already
        loaded and set up by another job (``still --compare``: ``setup()`` runs once).
        ``stop``: called before each sub-frame, raises to stop (a Ray chunk told to).
        ``hints``: the frames from ``first_frame`` the hints look over (a Ray chunk's: the
        rest of the output for the first chunk, 0 for the others; None: those rendered,
        or, with ``stop``, the first alone)."""
        check_resume_keeping(config)
        if config.resume and (first_frame or count is not None or writer is not None):
            raise ConfigError("--resume renders a whole output file")
        self.scene_file, self.config, self.scene_name = scene_file, config, scene_name
        self.first_frame, self.count, self.progress = first_frame, count, progress
        self.writer, self.own_writer = writer, writer is None
        self.gl_device, self.given_scene, self.stop = gl_device, scene, stop
        self.hints = hints
        self.slow_said = not config.quiet if slow_said is None else slow_said
        self.output: RenderOutput | None = None
        self.stats = RenderStats(config.output)
        self.glctx = self.renderer = self.storage = self.preview = self.builder = None
        self.processes: Any = None  # fusion processes (--fusion-process)
        self.keyframe_granularity: int | None = None  # --resume: the interrupted run's
        self.drawer: SubframeDrawer | None = None
        self.keeper: Any = None  # --keep-samples
        self.passes: FramePasses | None = None  # --passes
        self.probe: Any = None  # --samples auto
        self.plan: PlanStream | None = None
        self.settings: dict | None = None  # what the output depends on (resume checks it)
        self.manifest: Any = None
        self.nothing_left = False  # a resume whose every segment was done
        self.resumed = 0  # output frames the interrupted run made (--resume)
        self._drawing: int | None = None  # the output frame being drawn
        self._t0 = time.perf_counter()

    # --- drawing ---------------------------------------------------------------------------
    def run(self) -> RenderStats:
        """Draw, fuse and write; the stats (raises the first error, after finalising)."""
        if self.glctx is None:
            self.prepare()
        try:
            if self.nothing_left:  # every segment was done: only the join is missing
                out = RenderOutput(self.config, self.settings, self.manifest, 1, 1,
                                   self.first_frame, self.first_frame)
                out.finish()
                self.stats.frames_in_output, self.stats.segments = out.frames, out.segments
            else:
                self._run_engine()
        finally:
            self.stats.seconds = time.perf_counter() - self._t0
            self.release()
        return self.stats

    def _engine(self) -> Engine:
        plan, config = self.plan, self.config
        capacity, preview = self.builder.pool.capacity, self.preview
        dtype = deep_output.render_dtype(config)
        return Engine(RenderFusion(plan, self.backend.name, self.stats, config.dof_method,
                                   config.transparent, dtype, self.processes,
                                   fallback=config.fusion_process == "auto",
                                   passes=self.passes, reconstruct=self.stats.reconstruct),
                      self.writer,
                      first_frame=plan.first_frame, total=self.resumed + self.count,
                      kept=self.resumed,
                      workers=fusion_workers(config, self.processes is not None),
                      score=SCORES.get(config.schedule),
                      buffers=OutputBuffers(-(-capacity // plan.step) + 1,
                                            self.builder.pool.frame_shape,
                                            deep_output.block_dtype(dtype, self.stats.hdr)),
                      progress=self.progress,
                      on_frame=None if preview is None else preview.offer,
                      before_submit=None if self.keeper is None else self.keeper.add)

    def _run_engine(self) -> None:
        stats = self.stats
        engine = self._engine().start()
        stats.setup_s = time.perf_counter() - self._t0
        error: BaseException | None = None
        try:
            engine.drive(lambda: self._produce(engine), lambda: self._salvage(engine))
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after finalising
            error = exc
        stats.stopped_late = engine.stats.stopped_late
        if self.keeper is not None:
            error = self.keeper.close(error, self.count, stats)
        stats.frames_written = engine.stats.frames_written
        stats.retries, stats.latency_ms = engine.stats.retries, engine.stats.latency_ms
        if self.preview is not None:
            self.preview.show()  # the last frame stays on screen
            stats.preview_frames = self.preview.shown
        if self.own_writer:
            try:
                self.output.settle(error, self.stats)
            except BaseException as exc:  # noqa: BLE001 - as above
                error = error or exc
        if error is not None:
            raise error

    def _produce(self, engine: Engine) -> None:
        """Every sub-frame drawn; the last hyperframe handed over, full or not."""
        self._draw(engine)
        self._hand_over_rest(engine)

    def _hand_over_rest(self, engine: Engine) -> None:
        last = self.builder.flush_remaining()
        if last is not None:
            self._submit(engine, last)

    def _submit(self, engine: Engine, hyper: Any) -> None:
        """``hyper`` to fusion, once the output's manifest names the files the scene read."""
        if self.output is not None:  # (a font update(t) gave its sub-frames: --resume's)
            self.output.files_read()
        engine.submit(hyper)

    def _salvage(self, engine: Engine) -> None:
        """After an error or Ctrl-C: fuse what the half-filled hyperframe already completes."""
        self.builder.cancel()
        try:
            self._hand_over_rest(engine)
        except KeyboardInterrupt as exc:  # a further Ctrl-C (submit waits on the writer)
            engine.fail(exc)  # stop at once, as it says
        except BaseException:  # noqa: BLE001 - the first error is the one reported
            pass

    def _draw(self, engine: Engine) -> None:
        """Every sub-frame of the stream, a chunk of output frames at a time."""
        for base, skip, plan in self.plan.chunks():
            for j in range(skip, len(plan.times)):
                self._draw_one(engine, plan, j, base + j)

    def _draw_one(self, engine: Engine, plan: Plan, j: int, index: int) -> None:
        """Sub-frame ``j`` of ``plan`` (``index`` of the stream) into the next slot."""
        if self.stop is not None:
            self.stop()
        k = plan.first_frame + int(plan.output[j])
        if k != self._drawing:  # the first sub-frame of output frame k: its latency starts
            engine.mark_started(k)
            self._drawing = k
        if plan.drawn is not None and not plan.drawn[j]:  # --samples auto: an unused slot
            hyper, host_bytes = self.drawer.skip(plan, j), 0
        else:
            hyper, host_bytes = self.drawer.draw(plan, j, index, k)
            self.stats.subframes += 1
        self.stats.device_to_host_bytes += host_bytes
        if hyper is not None:
            self._submit(engine, hyper)
        if self.preview is not None and not self.preview.show():  # (was said at -v alone)
            log.warning("the preview window was closed: the render stops, as at a Ctrl-C")
            raise KeyboardInterrupt


def render(scene_file: str | Path, config: RenderConfig, *, scene_name: str | None = None,
           first_frame: int = 0, count: int | None = None, progress: Progress | None = None,
           writer: Any = None) -> RenderStats:
    """``RenderJob(...).prepare().run()``: see :class:`RenderJob`."""
    return RenderJob(scene_file, config, scene_name=scene_name, first_frame=first_frame,
                     count=count, progress=progress, writer=writer).prepare().run()
