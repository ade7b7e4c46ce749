"""The render job: scene -> sampler -> renderer -> hyperframes -> the engine -> writer.

:class:`RenderJob` decides everything before a sub-frame is drawn (:meth:`~RenderJob.prepare`:
the scene, its checks, the schedule, the pool, the output), then :meth:`~RenderJob.run`
draws: the calling thread owns the GL context and draws every sub-frame straight into a
pool slot (``read_into``, no allocation per sub-frame), its lens committed with it; the
engine fuses full hyperframes on its threads and writes the frames in order.
Back-pressure comes from the pool: with every slot in flight, drawing waits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine import deep_output
from hfrender.engine import render_modes as modes
from hfrender.engine.adaptive import adaptive_probe
from hfrender.engine.buffers import OutputBuffers
from hfrender.engine.core import Engine
from hfrender.engine.draw import SubframeDrawer
from hfrender.engine.keep import keeper_for, keeps_depth
from hfrender.engine.passes import FramePasses, check_passes
from hfrender.engine.render_checks import check_job_output, check_resume_keeping
from hfrender.engine.render_fusion import RenderFusion
from hfrender.engine.render_output import RenderOutput
from hfrender.engine.render_setup import (
    fusion_processes,
    fusion_workers,
    gl_storage,
    keyframe_interval,
    make_builder,
    output_settings,
    refuse_past_memory,
    resume_point,
    schedule_for,
    shader_buffers,
    shared_arena,
)
from hfrender.engine.render_stats import RenderStats
from hfrender.engine.scheduler import SCORES
from hfrender.errors import InputError
from hfrender.frame_range import frame_chunk
from hfrender.io import outputs
from hfrender.io.sequence_commit import check_frames_there
from hfrender.io.store_target import check_target
from hfrender.plan_stream import PlanStream
from hfrender.renderer.contexts import ContextUnavailable, create_context
from hfrender.renderer.renderer import make_renderer
from hfrender.renderer.shader_notes import shader_notes
from hfrender.sampler import Plan
from hfrender.scene import ShaderScene
from hfrender.scene.loader import SceneError, load_scene, told_line
from hfrender.scene.ready import first_look, set_up

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class RenderJob:
    """Output frames ``first_frame ..`` of a scene script, into ``config.output`` (or into
    ``writer``, which the caller closes). ``prepare()`` raises ``SceneError``/
    ``ConfigError``/``WriterError``/``ShaderError`` before anything is written; once
    ``run()`` writes, any error or Ctrl-C still finalises what was written."""

    def __init__(self, scene_file: str | Path, config: RenderConfig, *,
                 scene_name: str | None = None, first_frame: int = 0, count: int | None = None,
                 progress: Progress | None = None, writer: Any = None,
                 gl_device: int | None = None, scene: Any = None,
                 stop: Callable[[], None] | None = None) -> None:
        """``gl_device``: the EGL device (its CUDA ordinal among all GPUs: a Ray task's GPU,
        which ``CUDA_VISIBLE_DEVICES`` renumbers for CUDA but not for EGL). ``scene``: already
        loaded and set up by another job (``still --compare``: ``setup()`` runs once).
        ``stop``: called before each sub-frame, raises to stop (a Ray chunk told to)."""
        check_resume_keeping(config)
        if config.resume and (first_frame or count is not None or writer is not None):
            raise ConfigError("--resume renders a whole output file")
        self.scene_file, self.config, self.scene_name = scene_file, config, scene_name
        self.first_frame, self.count, self.progress = first_frame, count, progress
        self.writer, self.own_writer = writer, writer is None
        self.gl_device, self.given_scene, self.stop = gl_device, scene, stop
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

    # --- before drawing ------------------------------------------------------------------
    def prepare(self) -> RenderJob:
        """Everything that can be decided or refused before the first sub-frame."""
        from hfrender.backends import get_backend

        config, stats = self.config, self.stats
        self.scene = self.given_scene or load_scene(self.scene_file, self.scene_name,
                                                    config.duration)
        self.total = config.frame_count(self.scene.duration)
        self.first_frame, self.count = frame_chunk(config, self.total, self.first_frame, self.count)
        if self.count < 1 or self.first_frame < 0 or self.first_frame + self.count > self.total:
            raise ConfigError(f"frames {self.first_frame}..{self.first_frame + self.count - 1}: "
                              f"nothing to render (the scene has {self.total} frames at "
                              f"{config.fps:g} fps)")
        if self.count == 1:  # one hyperframe: a still's pool of 2 slots (a trial: 1080p at
            self.config = config = config.with_(max_in_flight=1)  # 256 refused for 3)
        deep_output.render_dtype(config)  # --bit-depth, OpenEXR
        check_passes(config, self.scene)
        if self.own_writer:  # a class's background None: transparent (setup()'s: later)
            check_job_output(modes.resolve_transparent(config, self.scene), self.scene,
                             config.transparent)
            outputs.check_writable(config.output)
            outputs.check_partial_free(config.output)
            check_frames_there(config.output, self.first_frame, self.count)
        if config.keep_samples is not None:
            check_target(config.keep_samples, config.output if self.own_writer else None)
        self.backend = get_backend(config.backend)
        stats.total_frames, stats.backend = self.count, self.backend.name
        refuse_past_memory(config, shader_buffers(self.scene))  # (before context and setup)
        self._open_context()
        try:
            self._prepare_scene()
            if self.own_writer and self._resume():
                return self
            self._prepare_drawing()
        except BaseException:
            self.release()
            raise
        return self

    def _open_context(self) -> None:
        config = self.config
        cuda_device = self.backend.device_id() if self.backend.name == "cuda" else None
        if self.gl_device is not None and cuda_device is not None:
            cuda_device = self.gl_device
        try:
            self.glctx = create_context("glfw" if config.preview else config.gl,
                                        size=config.size, visible=config.preview,
                                        title=f"hfrender: {Path(self.scene_file).name}",
                                        cuda_device=cuda_device)
        except ContextUnavailable as exc:
            if not config.preview:
                raise
            why = exc.args[0].split(";")[0]
            raise ContextUnavailable(f"--preview needs a window: {why}; render without "
                                     "--preview (and hfrender.toml's preview = true)") from None
        self.stats.gl_renderer = self.glctx.renderer

    def _prepare_scene(self) -> None:
        scene, first, config = self.scene, self.first_frame, self.config
        if self.given_scene is None:  # set up by the job that loaded it
            set_up(scene, config.duration)
            first_look(scene, first, config.fps, config.size, first + self.count - 1,
                       again=self.stop is None)  # (a Ray chunk's: its driver set it up twice)
        if not isinstance(scene, ShaderScene):
            try:
                scene.camera.validate()
            except InputError as exc:  # the file named once: by its line, where it is told
                at = told_line(exc, scene.source_path)
                raise SceneError(f"{exc}{at}" if at else f"{scene.source_path}: {exc}") from None
        self.dof = self.stats.dof = modes.resolve_dof(config.dof, scene, first, config.fps)
        self.stats.hdr, self.stats.hdr_why = deep_output.resolve_hdr(
            config.hdr, config.output, scene, first, config.fps)
        if self.given_scene is None:  # once: not again for still --compare's plain frame
            shader_notes(self.config, scene)
        asked = self.config.transparent
        self.config = modes.resolve_samples(modes.resolve_transparent(self.config, scene), scene)
        self.stats.transparent = bool(self.config.transparent)
        if self.own_writer and self.config.transparent and not asked:
            check_job_output(self.config, self.scene, asked)

    def _resume(self) -> bool:
        """Where a --resume starts (True: every segment was done, only the join is left)."""
        config = self.config
        self.settings = output_settings(self.scene_file, config, self.backend.name, self.dof,
                                        self.total, self.stats.gl_renderer, self.scene)
        start, self.manifest = resume_point(config, self.settings, self.scene_file)
        if self.manifest is None:
            return False
        if self.manifest.total_frames != self.count:  # a chunk written by a library call
            raise ConfigError(f"--resume: {config.output} was begun as frames up to "
                              f"{self.manifest.total_frames - 1} only, not the whole "
                              f"{self.count}; render without --resume")
        # the keyframes continue as they were; the pool is sized afresh (the same frames)
        self.keyframe_granularity = self.manifest.granularity
        self.first_frame, self.count = self.first_frame + start, self.count - start  # range
        self.resumed = start
        self.stats.resumed_at, self.stats.total_frames = self.first_frame, self.count
        self.nothing_left = self.count == 0
        return self.nothing_left

    def _prepare_drawing(self) -> None:
        config, stats = self.config, self.stats
        depth = self.dof == "depth"
        schedule = schedule_for(config, self.scene.camera.aperture_blades)
        velocity = stats.reconstruct = modes.resolve_reconstruct(config.reconstruct, self.scene,
                                                                 self.backend.name)
        decided = replace(config, hdr="on" if stats.hdr else "off")  # what auto came to
        self.probe = adaptive_probe(self.glctx.ctx, self.scene, decided, schedule, self.dof,
                                    velocity, self.first_frame)
        self.plan = plan = PlanStream(schedule, self.first_frame, self.count, counts=self.probe)
        passes = self.passes = FramePasses.of(config, plan) if self.own_writer else None
        if schedule.effective_shutter_deg != config.shutter or \
                plan.per_output != config.max_samples:
            stats.shutter = (schedule.effective_shutter_deg, plan.per_output)
            log.warning("shutter %g degrees with %d samples: windows overlap on a shared grid; "
                        "using %g degrees with %d samples per frame", config.shutter,
                        config.samples, schedule.effective_shutter_deg, plan.per_output)
        stats.no_velocity = isinstance(self.scene, ShaderScene)
        keep = keeps_depth(config, self.scene, self.dof) or bool(passes and passes.depth)
        moves = velocity or bool(passes and passes.velocity)  # the velocity plane drawn
        self.renderer = make_renderer(self.glctx.ctx, self.scene, config.size, depth or keep,
                                      config.fps, moves, config.msaa, stats.hdr)
        stats.msaa = self.renderer.target.msaa
        self.renderer.prepare()
        self.renderer.transparent = config.transparent
        self.renderer.depth_modes = ("--dof depth",) * depth + ("--reconstruct",) * velocity
        gl = self.storage = gl_storage(config, self.glctx, self.backend.name)
        arena = None if gl is not None else shared_arena(config.fusion_process, self.backend.name,
                                                         depth or velocity)
        self.builder, self.storage = make_builder(
            config, plan, arena if gl is None else gl, depth or velocity or keep, moves,
            self.renderer.target.color_dtype, shader_buffers(self.scene))
        self.drawer = SubframeDrawer(self.scene, self.renderer, self.builder, plan, config,
                                     self.dof, moves, None if velocity else passes)
        self.drawer.watch_white = not stats.hdr and config.hdr == "auto"
        stats.interop = self.storage is not None and self.storage is not arena
        self.processes = fusion_processes(config, self.storage, plan, self.builder.pool.capacity)
        stats.fusion_processes = 0 if self.processes is None else len(self.processes.children)
        stats.granularity = self.builder.pool.capacity
        stats.pool_mb = self.builder.pool.nbytes / 2**20
        if self.own_writer:
            keyframes = self.keyframe_granularity or self.builder.full_capacity
            self.output = RenderOutput(config, self.settings, self.manifest,
                                       keyframe_interval(keyframes, plan), keyframes,
                                       self.first_frame + self.count,
                                       self.first_frame, self.scene)
            self.writer = self.output.writer
            self.writer.passes = None if passes is None else passes.channels
        if config.preview:
            from hfrender.renderer.preview import Preview

            self.preview = Preview(self.glctx, config.size)
        # last: its folder and thread exist only once nothing else can refuse the render
        drawn = replace(decided, msaa=self.renderer.target.msaa)  # what auto came to
        self.keeper = keeper_for(drawn, self.scene, self.dof, schedule, self.first_frame,
                                 self.count, depth or velocity or keep, self.drawer)

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

    def release(self) -> None:
        """Free the GL objects and the context (also after an error)."""
        if self.processes is not None:  # before the arena they map goes
            self.processes.close()
            self.processes = None
        for part in (self.storage, self.preview, self.probe, self.renderer, self.glctx):
            if part is None:
                continue
            try:  # best effort: after a CUDA fault a release may fail; the rest still goes
                part.release()
            except Exception as exc:  # noqa: BLE001 - the render's own error is the one told
                log.warning("releasing %s: %s", type(part).__name__, exc)
        if self.keeper is not None and self.keeper.open:  # a render that never ran
            self.keeper.close(KeyboardInterrupt(), 0, self.stats)
        self.storage = self.preview = self.renderer = self.probe = self.glctx = None
        self.builder = self.drawer = None  # the pool (was: held while an error's traceback was)


def render(scene_file: str | Path, config: RenderConfig, *, scene_name: str | None = None,
           first_frame: int = 0, count: int | None = None, progress: Progress | None = None,
           writer: Any = None) -> RenderStats:
    """``RenderJob(...).prepare().run()``: see :class:`RenderJob`."""
    return RenderJob(scene_file, config, scene_name=scene_name, first_frame=first_frame,
                     count=count, progress=progress, writer=writer).prepare().run()
