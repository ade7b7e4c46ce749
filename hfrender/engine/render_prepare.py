"""A render job made ready: everything decided or refused before a sub-frame is drawn.

:class:`RenderPreparation` is the first half of :class:`~hfrender.engine.render.RenderJob`:
:meth:`~RenderPreparation.prepare` loads and checks the scene, opens the GL context, picks
the modes, plans the sub-frames (:class:`~hfrender.plan_stream.PlanStream`), makes the
renderer, the pool and the output, or finds where a ``--resume`` goes on;
:meth:`~RenderPreparation.release` frees what it made (also after an error).
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from hfrender.config import ConfigError
from hfrender.engine import deep_output
from hfrender.engine import render_modes as modes
from hfrender.engine.adaptive import adaptive_probe
from hfrender.engine.draw import SubframeDrawer
from hfrender.engine.keep import keeper_for, keeps_depth
from hfrender.engine.memory_fit import schedule_for, shader_buffers
from hfrender.engine.passes import CHANNELS, FramePasses, check_passes
from hfrender.engine.render_checks import check_job_output
from hfrender.engine.render_output import RenderOutput
from hfrender.engine.render_setup import (
    fusion_processes,
    gl_storage,
    keyframe_interval,
    make_builder,
    output_settings,
    refuse_past_memory,
    resume_point,
    shared_arena,
)
from hfrender.errors import InputError, spelling
from hfrender.frame_range import frame_chunk
from hfrender.io import outputs
from hfrender.io.disk_room import check_room
from hfrender.io.sequence_commit import check_frames_there
from hfrender.io.store_target import check_target
from hfrender.logs import silenced
from hfrender.plan_stream import PlanStream
from hfrender.renderer.contexts import ContextUnavailable, create_context
from hfrender.renderer.renderer import make_renderer
from hfrender.renderer.shader_notes import shader_notes
from hfrender.scene import ShaderScene
from hfrender.scene.loader import SceneError, load_scene, told_line
from hfrender.scene.ready import first_look, set_up
from hfrender.scene.slow_check import said_if_slow

log = logging.getLogger("hfrender.engine.render")  # its lines named as before the move

P = TypeVar("P", bound="RenderPreparation")


class RenderPreparation:
    """The preparing half of :class:`~hfrender.engine.render.RenderJob` (which sets the
    attributes these read, in its ``__init__``, and draws what they made ready)."""

    def prepare(self: P) -> P:
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
            self._check_room()
        if config.keep_samples is not None:
            check_target(config.keep_samples, config.output if self.own_writer else None)
        self.backend = get_backend(config.backend)
        stats.total_frames, stats.backend = self.count, self.backend.name
        refuse_past_memory(config, shader_buffers(self.scene))  # (before context and setup)
        self._open_context()
        try:
            # (an update(t) that hangs, a long clip's motion hint: not silent)
            with said_if_slow(not self.slow_said):
                self._prepare_scene()
                if self.own_writer and self._resume():
                    return self
                self._prepare_drawing()
        except BaseException:
            self.release()
            raise
        return self

    def _check_room(self) -> None:
        """An image sequence's frames against its disk's free space, before any work
        (:func:`~hfrender.io.disk_room.check_room`; a --resume's kept frames not again)."""
        config = self.config
        channels = 4 if modes.resolve_transparent(config, self.scene).transparent else 3
        depth = deep_output.render_dtype(config).itemsize
        channels += sum(len(CHANNELS[p]) for p in config.passes) * 4 / depth  # float32 each
        left = self.count - (outputs.partial_frames(config.output) if config.resume else 0)
        check_room(config.output, left, config.size, channels, depth)

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
            on = spelling().on("preview")  # (the flag, or hf.render's preview=True)
            raise ContextUnavailable(f"{on} needs a window: {why}; render without {on} (and "
                                     "hfrender.toml's preview = true)") from None
        self.stats.gl_renderer = self.glctx.renderer

    def _prepare_scene(self) -> None:
        scene, first, config = self.scene, self.first_frame, self.config
        if self.given_scene is None:  # set up by the job that loaded it
            set_up(scene, config.duration)
            # a Ray chunk's look is silent: its driver looked over every chunk's frames and
            # said it (the chunk's warnings are said by the driver: words of another frame)
            with silenced() if self.stop is not None else nullcontext():
                first_look(scene, first, config.fps, config.size, first + self.count - 1,
                           again=self.stop is None)  # (its driver set it up twice)
        if not isinstance(scene, ShaderScene):
            try:
                scene.camera.validate()
            except InputError as exc:  # the file named once: by its line, where it is told
                at = told_line(exc, scene.source_path)
                raise SceneError(f"{exc}{at}" if at else f"{scene.source_path}: {exc}") from None
        self.dof = self.stats.dof = modes.resolve_dof(config.dof, scene, first, config.fps)
        self.stats.hdr, self.stats.hdr_why = deep_output.resolve_hdr(
            config.hdr, config.output, scene, first, config.fps)
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

    def hint_count(self) -> int:
        """The frames from the first that the hints look over (:func:`adaptive_probe`): the
        render's, as given (``hints``: a Ray chunk's, the whole rest of the output for the
        first chunk, 0 for the others: said once, as a local run says them), else those
        it renders (a chunk given none: its first frame alone, as before)."""
        if self.hints is not None:
            return self.hints
        return self.count if self.stop is None else 1

    def _prepare_drawing(self) -> None:
        config, stats = self.config, self.stats
        depth = self.dof == "depth"
        schedule = schedule_for(config, self.scene.camera.aperture_blades)
        velocity = stats.reconstruct = modes.resolve_reconstruct(config.reconstruct, self.scene,
                                                                 self.backend.name)
        decided = replace(config, hdr="on" if stats.hdr else "off")  # what auto came to
        self.probe = adaptive_probe(self.glctx.ctx, self.scene, decided, schedule, self.dof,
                                    velocity, self.first_frame, self.hint_count())
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
        if self.given_scene is None:  # once (not for still --compare's plain frame), once
            shader_notes(config, self.scene)  # compiled: a refused shader's error said alone
        self.renderer.transparent = config.transparent
        self.renderer.depth_modes = ("dof",) * depth + ("reconstruct",) * velocity
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
