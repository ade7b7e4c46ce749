"""The render job: scene -> sampler -> renderer -> hyperframes -> fusion -> writer.

The calling thread owns the GL context and draws every sub-frame straight into a pool
slot (``read_into``, no allocation per sub-frame); a fusion thread turns each full
hyperframe into output frames and hands them to the writer in order. Back-pressure comes
from the pool: with every slot in flight, drawing waits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.core import FusionPool
from hfrender.engine.render_setup import (
    check_granularity,
    gl_storage,
    open_output,
    output_settings,
    resolve_dof,
    resume_point,
)
from hfrender.engine.scheduler import SCORES
from hfrender.errors import HFRenderError
from hfrender.hyperframe.builder import HyperFrameBuilder
from hfrender.hyperframe.pool import HyperFrame
from hfrender.io.writers import check_output
from hfrender.optics import Lens
from hfrender.render.contexts import ContextUnavailable, create_context
from hfrender.render.renderer import make_renderer
from hfrender.sampler import Plan, SampleSchedule
from hfrender.scene import Scene, ShaderScene
from hfrender.scene.loader import SceneError, load_scene, located

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class SceneUpdateError(HFRenderError):
    """The scene's own code raised; the message has its file and line, t and the frame."""


@dataclass
class RenderStats:
    output: str
    frames_written: int = 0
    total_frames: int = 0
    subframes: int = 0
    seconds: float = 0.0
    gl_renderer: str = ""
    backend: str = ""
    dof: str = "off"
    granularity: int = 0
    device_to_host_bytes: int = 0
    interrupted: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def fps(self) -> float:
        return self.frames_written / self.seconds if self.seconds > 0 else 0.0


def halton(i: int, base: int) -> float:
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


def _call_scene(scene: Scene, what: str, fn: Callable, *args: Any, t: float | None = None,
                frame: int | None = None) -> Any:
    """``fn(*args)``; an exception becomes a SceneUpdateError naming the scene's file:line,
    t and the output frame."""
    try:
        return fn(*args)
    except Exception as exc:
        where = located(exc, scene.source_path) if scene.source_path else repr(exc)
        when = "" if t is None else f" at t={t:.6g} s (output frame {frame})"
        raise SceneUpdateError(f"scene error in {what}{when}: {where}") from exc


def render(scene_file: str | Path, config: RenderConfig, *, scene_name: str | None = None,
           first_frame: int = 0, count: int | None = None, progress: Progress | None = None,
           writer: Any = None) -> RenderStats:
    """Render output frames ``first_frame ..`` of a scene script into ``config.output``.

    Raises ``SceneError``/``ConfigError``/``WriterError``/``ShaderError`` before anything
    is written; once writing has started, any error or Ctrl-C still finalises the file.
    """
    t0 = time.perf_counter()
    scene = load_scene(scene_file, scene_name)
    total = config.frame_count(scene.duration)
    if config.resume and (first_frame or count is not None or writer is not None):
        raise ConfigError("--resume renders a whole output file")
    count = total - first_frame if count is None else count
    if count < 1 or first_frame < 0:
        raise ConfigError(f"frames {first_frame}..{first_frame + count - 1}: nothing to render "
                          f"(the scene has {total} frames at {config.fps:g} fps)")
    if writer is None:
        check_output(config.output, config.size, config.codec)
    stats = RenderStats(config.output, total_frames=count)
    w, h = config.size
    from hfrender.backends import get_backend

    backend = get_backend(config.backend)
    stats.backend = backend.name
    cuda_device = backend.device_id() if backend.name == "cuda" else None
    try:
        glctx = create_context("glfw" if config.preview else config.gl, size=config.size,
                               visible=config.preview, title=f"hfrender: {Path(scene_file).name}",
                               cuda_device=cuda_device)
    except ContextUnavailable as exc:
        if not config.preview:
            raise
        raise ContextUnavailable(f"--preview needs a window: {exc.args[0].split(';')[0]}; "
                                 "render without --preview") from None
    stats.gl_renderer = glctx.renderer
    renderer = preview = storage = None
    try:
        _call_scene(scene, "setup()", scene.setup)
        if not isinstance(scene, ShaderScene):
            try:
                scene.camera.validate()
            except ValueError as exc:
                raise SceneError(f"{scene.source_path}: {exc}") from None
        dof = stats.dof = resolve_dof(config.dof, scene)
        manifest = None
        if writer is None:
            settings = output_settings(scene_file, config, backend.name, dof, total,
                                       stats.gl_renderer)
            first_frame, manifest = resume_point(config, settings)
            if manifest is not None:
                config = config.with_(granularity=manifest.granularity)
                stats.extra["resumed_at"] = first_frame
                count = total - first_frame
                stats.total_frames = count
                if count == 0:  # every segment was done: only the join is missing
                    open_output(config, settings, manifest, SampleSchedule(
                        config.fps).plan(1), manifest.granularity, total).close()
                    stats.seconds = time.perf_counter() - t0
                    return stats
        schedule = SampleSchedule(config.fps, config.shutter, config.shutter_position,
                                  config.shutter_curve, config.samples, config.jitter,
                                  config.seed, scene.camera.aperture_blades)
        plan = schedule.plan(count, first_frame)
        if schedule.effective_shutter_deg != config.shutter or plan.per_output != config.samples:
            stats.extra["shutter"] = (schedule.effective_shutter_deg, plan.per_output)
            log.warning("shutter %g degrees with %d samples: windows overlap on a shared grid; "
                        "using %g degrees with %d samples per frame", config.shutter,
                        config.samples, schedule.effective_shutter_deg, plan.per_output)
        check_granularity(config, plan, w * h * (4 + (4 if dof == "depth" else 0)))
        renderer = make_renderer(glctx.ctx, scene, config.size, dof == "depth", config.fps)
        renderer.prepare()
        storage = gl_storage(config, glctx, backend.name)
        stats.extra["interop"] = storage is not None
        builder = HyperFrameBuilder.create(
            (h, w, 4), np.uint8, frames_per_output=plan.step, halo=plan.overlap,
            granularity=config.granularity, depth=dof == "depth",
            max_in_flight=config.max_in_flight, storage=storage)
        stats.granularity = builder.pool.capacity
        own_writer = writer is None
        if own_writer:
            writer = open_output(config, settings, manifest, plan, builder.pool.capacity, total)
        lenses: dict[int, Lens] = {}
        if config.preview:
            from hfrender.render.preview import Preview

            preview = Preview(glctx, config.size)
        fuser = FusionPool(plan, writer, config.backend, stats, progress,
                           workers=config.workers, score=SCORES.get(config.schedule),
                           on_frame=None if preview is None else preview.offer)
        fuser.start()
        stats.extra["setup_s"] = time.perf_counter() - t0
        try:
            _draw_all(scene, renderer, plan, builder, fuser, config, dof, lenses, stats, preview)
            last = builder.flush_remaining()
            if last is not None:
                fuser.submit(_with_lenses(last, plan, lenses))
        except BaseException as exc:
            stats.interrupted = isinstance(exc, KeyboardInterrupt)
            _salvage(builder, fuser, plan, lenses)
            exc.hfrender_stats = stats  # type: ignore[attr-defined]  # for the message
            raise
        finally:
            fuser.finish()
            stats.extra["latency_ms"] = 1e3 * fuser.latency_sum / max(1, stats.frames_written)
            stats.extra["pool_mb"] = builder.pool.nbytes / 2**20
            if preview is not None:
                preview.show()  # the last frame stays on screen
                stats.extra["preview_frames"] = preview.shown
            if own_writer:
                writer.close()
                stats.extra["frames_in_output"] = getattr(writer, "frames_in_output",
                                                          stats.frames_written)
            stats.seconds = time.perf_counter() - t0
        if fuser.error is not None:
            raise fuser.error
        return stats
    finally:
        if storage is not None:
            storage.release()
        if preview is not None:
            preview.release()
        if renderer is not None:
            renderer.release()
        glctx.release()


def _salvage(builder: HyperFrameBuilder, fuser: FusionPool, plan: Plan,
             lenses: dict[int, Lens]) -> None:
    """After an error or Ctrl-C: fuse what the half-filled hyperframe already completes."""
    builder.cancel()
    try:
        last = builder.flush_remaining()
        if last is not None:
            fuser.submit(_with_lenses(last, plan, lenses))
    except BaseException:  # noqa: BLE001 - the first error is the one reported
        pass


def _with_lenses(hyper: HyperFrame, plan: Plan, lenses: dict[int, Lens]) -> HyperFrame:
    """Attach each sub-frame's lens (depth mode) and forget those no later one needs."""
    if lenses:
        hyper.lenses = [lenses[hyper.first_index + i] for i in range(hyper.frame_count)]
        for j in range(hyper.first_index, hyper.first_index + hyper.frame_count - plan.overlap):
            lenses.pop(j, None)
    return hyper


def _draw_all(scene: Scene, renderer: Any, plan: Plan, builder: HyperFrameBuilder,
              fuser: FusionPool, config: RenderConfig, dof: str, lenses: dict[int, Lens],
              stats: RenderStats, preview: Any = None) -> None:
    mesh = not isinstance(scene, ShaderScene)
    jitter = config.antialias and mesh
    camera = scene.camera
    previous_k = None
    for j, t in enumerate(plan.times):
        t = float(t)
        k = plan.first_frame + int(plan.output[j])
        if k != previous_k:  # the first sub-frame of output frame k: its latency starts
            fuser.first_drawn[k] = time.perf_counter()
            previous_k = k
        _call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
        offset = (0.0, 0.0)
        if mesh:  # the camera as update(t) left it: checked at every sub-frame
            _call_scene(scene, "the camera", camera.validate, t=t, frame=k)
            if dof == "lens":
                radius = camera.aperture_radius_m()
                offset = (float(plan.lens[j, 0]) * radius, float(plan.lens[j, 1]) * radius)
        i = (plan.first_frame * plan.step + j) % plan.per_output  # global: chunks agree
        jit = (halton(i + 1, 2) - 0.5, halton(i + 1, 3) - 0.5) if jitter else (0.0, 0.0)
        _call_scene(scene, "drawing", renderer.draw, t, k, offset, jit, t=t, frame=k)
        color, depth = builder.reserve(t)
        renderer.read_into(color, depth)
        if isinstance(color, np.ndarray):  # read back to host memory (no interop)
            stats.device_to_host_bytes += color.nbytes + (0 if depth is None else depth.nbytes)
        if dof == "depth":
            lenses[j] = scene.camera.lens(config.max_coc_px)
        stats.subframes += 1
        hyper = builder.commit()
        if hyper is not None:
            fuser.submit(_with_lenses(hyper, plan, lenses))
        if preview is not None and not preview.show():
            log.info("preview window closed: stopping")
            raise KeyboardInterrupt
