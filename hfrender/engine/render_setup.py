"""Deciding how a render runs, before any sub-frame is drawn: depth-of-field mode,
granularity and memory (the sums: :mod:`hfrender.engine.memory_fit`), where sub-frames
live (host or GL buffers shared with CUDA), and the output: a plain writer, or resumable
segments with a manifest."""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

import hfrender
from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.files_read import with_later_files
from hfrender.engine.memory_fit import (
    BUFFER_BYTES_PER_PIXEL,
    WORK_BYTES_PER_PIXEL,
    check_granularity,
    fitting,
    schedule_for,
)
from hfrender.engine.offload import FusionProcessError, FusionProcesses
from hfrender.errors import BackendUnavailable, spelling
from hfrender.frame_range import kept_as, start_of
from hfrender.hyperframe import shared
from hfrender.hyperframe.builder import DEFAULT_CAP, HyperFrameBuilder
from hfrender.hyperframe.pool import sub_frame_bytes
from hfrender.io import resume
from hfrender.io.encoding import Encoding, effective
from hfrender.io.segments import (
    Manifest,
)
from hfrender.io.sequence_names import is_sequence
from hfrender.limits import usable_cores
from hfrender.sampler import Plan
from hfrender.scene.sources import scene_assets, scene_modules
from hfrender.sizes import bytes_said

log = logging.getLogger(__name__)

# settings that do not change a single pixel or bit of the output
NOT_IN_OUTPUT = ("output", "quiet", "preview", "stats", "workers", "schedule", "granularity",
                 "keep_samples",
                 "max_in_flight", "resume", "gl", "interop", "fusion_process")
# settings the join alone uses (the soundtrack): a --resume after they changed keeps the
# frames and joins them with the sound as it is now
JOIN_ONLY = ("audio", "audio_offset")


def shared_arena(mode: str, backend: str, heavy: bool) -> shared.SharedArena | None:
    """A pool arena that fusion processes can map, where ``--fusion-process`` (``mode``)
    may use them: ``on``, or ``auto`` for a heavy fusion (reconstruction, depth of field
    from depth) on the CPU backend with two cores or more. ``on`` where there can be none
    is refused."""
    if mode == "off":
        return None
    if backend != "cpu" or not shared.available():
        if mode == "on":
            why = (f"the fusion backend is {backend}, and fusion processes fuse on the CPU"
                   if backend != "cpu" else "this system cannot make a memfd (Linux 3.17+)")
            raise ConfigError(f"{spelling().said('fusion_process', 'on')}: {why}; use auto or "
                              "off")
        return None
    if mode == "auto" and not (heavy and usable_cores() >= 2):
        said = spelling().said  # (the flags, or hf.render's keywords: dof='depth')
        log.info("fusion in this process: %s", "one usable core" if heavy else
                 f"{said('fusion_process', 'auto')} takes processes for "
                 f"{said('dof', 'depth')} or reconstruction")
        return None
    return shared.SharedArena()


PIPELINE = 6  # hyperframes, at least, of a clip fused in processes (drawing and fusion overlap)


def pipeline_cap(plan: Plan, storage: Any) -> int:
    """The most sub-frames ``--granularity auto`` puts in a hyperframe: ``DEFAULT_CAP``; for
    fusion processes, few enough that a short clip still makes ``PIPELINE`` hyperframes (of
    two output frames at least): the first is fused while the second is drawn, and the last
    one's fusion, the time no drawing hides, is short."""
    if not isinstance(storage, shared.SharedArena):
        return DEFAULT_CAP
    outputs = max(2, math.ceil(plan.count / PIPELINE))
    return min(DEFAULT_CAP, plan.overlap + outputs * plan.step)


PROCESS_WORKERS = 2  # --workers auto with fusion processes: two hyperframes fused at once
# (the FFTs and much of the reconstruction run on one core; on 2 cores a depth-of-field
# render took 1.79x --dof lens with two against 2.05x with one: benchmarks/RESULTS.md)


def fusion_workers(config: RenderConfig, processes: bool) -> int:
    """``--workers``: as given, or for ``auto`` ``PROCESS_WORKERS`` fusion processes (at
    most one per usable core), else one fusion thread."""
    if config.workers != "auto":
        return int(config.workers)
    return min(PROCESS_WORKERS, usable_cores()) if processes else 1


def fusion_processes(config: RenderConfig, arena: Any, plan: Plan,
                     capacity: int) -> FusionProcesses | None:
    """The fusion processes (:func:`fusion_workers`) when the pool's arena is shared;
    ``auto`` also needs two hyperframes or more (with one, drawing and fusion cannot
    overlap)."""
    if not isinstance(arena, shared.SharedArena):
        return None
    new = max(1, capacity - plan.overlap)  # sub-frames a hyperframe adds
    if config.fusion_process == "auto" and math.ceil(plan.subframes / new) < 2:
        log.info("fusion in this process: one hyperframe (drawing and fusion cannot overlap)")
        return None
    return start_processes(config.fusion_process, arena, fusion_workers(config, True))


def start_processes(mode: str, arena: shared.SharedArena, count: int) -> FusionProcesses | None:
    """``count`` fusion processes mapping ``arena``; where none can start, None (said) for
    ``--fusion-process auto``, refused in one line for ``on``."""
    try:
        return FusionProcesses(arena, count, preload=("hfrender.engine.render_fusion",
                                                      "hfrender.backends.cpu"))
    except OSError as exc:  # no process could start (a process limit, no memory)
        if mode == "on":
            raise FusionProcessError(f"{spelling().said('fusion_process', 'on')}: no fusion "
                                     f"process could start ({exc})") from None
        log.warning("no fusion process could start (%s): fusing in this process", exc)
        return None


GPU_POOL_SHARE = 0.25  # of the GPU's free memory for GL-buffer slots: fusion temporaries
# (decoded linear light, defocused frames) take about ten times one slot's colour bytes


def pool_memory(storage: Any) -> int | None:
    """Bytes the pool may take: the GPU's share for GL-buffer slots shared with CUDA, else
    None (what this process may use of host memory, see ``free_memory_bytes``)."""
    if getattr(getattr(storage, "mapper", None), "name", "") != "cuda":
        return None
    free, _total = storage.mapper.cupy.cuda.runtime.memGetInfo()
    return int(free * GPU_POOL_SHARE)



def refuse_past_memory(config: RenderConfig, buffers: int = 0) -> None:
    """Before the GL context and the scene's setup: a size whose own work alone
    (:data:`.memory_fit.WORK_BYTES_PER_PIXEL`, and a shader's ``buffers``' float textures) is
    past what this process may use, whatever the pool, is refused in
    :func:`.memory_fit.fitting`'s line, its least pool (one hyperframe in flight) counted
    (was: after them, 16384x16384 took 24 s and 6.4 GB before its refusal, a trial)."""
    from hfrender.hyperframe.builder import free_memory_bytes

    w, h = config.size
    per = WORK_BYTES_PER_PIXEL + BUFFER_BYTES_PER_PIXEL * buffers
    if per * w * h > free_memory_bytes() * 0.8:  # (no pool fits: check_granularity refuses)
        check_granularity(config.with_(max_in_flight=1), schedule_for(config).plan(1),
                          sub_frame_bytes((h, w, 4), np.uint8), None, False,
                          fusion_workers(config, False), buffers)


def make_builder(config: RenderConfig, plan: Plan, storage: Any, depth: bool,
                 velocity: bool = False, color: Any = np.uint8,
                 buffers: int = 0) -> tuple[HyperFrameBuilder, Any]:
    """The pool and its builder, in GL buffers shared with CUDA where they are used (sized
    from the GPU's free memory) or in host memory; ``--interop auto`` falls back to host
    memory when the GL buffers cannot be made or registered (``on`` says why, in one line).
    ``color``: the sub-frames' colour dtype (uint8 sRGB codes, float32 with --hdr);
    ``buffers``: a shader's (:func:`.memory_fit.shader_buffers`), counted in the frame's work.
    Returns (builder, the storage it uses)."""
    w, h = config.size
    free = pool_memory(storage)
    frame_bytes = sub_frame_bytes((h, w, 4), color, depth, velocity)
    config = fitting(config, plan, frame_bytes, free, depth or velocity,
                     fusion_workers(config, isinstance(storage, shared.SharedArena)), buffers)
    cap = pipeline_cap(plan, storage)
    least = plan.overlap + plan.step if config.granularity == "auto" else config.granularity
    try:
        if hasattr(storage, "most_frames"):  # GL buffers: what CUDA maps in full
            cap = min(cap, storage.most_frames(frame_bytes, least))
        made = HyperFrameBuilder.create(
            (h, w, 4), color, frames_per_output=plan.step, halo=plan.overlap,
            granularity=config.granularity, depth=depth, velocity=velocity,
            max_in_flight=config.max_in_flight, storage=storage, free_bytes=free,
            cap=cap)
        log.info("hyperframe pool: %d sub-frames a hyperframe, %s in all",  # (-v: a
                 made.pool.capacity, bytes_said(made.pool.nbytes))  # trial missed it)
        return made, storage
    except BackendUnavailable as exc:
        if storage is None:
            raise
        storage.release()
        if config.interop == "on":
            raise ConfigError(f"{spelling().said('interop', 'on')}: {exc}") from None
        log.warning("%s: %s; sub-frames go through host memory",
                    spelling().said("interop", "auto"), exc)
        return make_builder(config, plan, None, depth, velocity, color, buffers)


def gl_mapper(kind: str) -> Any:
    """The mapper that publishes GL-buffer slots: ``cuda`` (interop) or ``host`` (tests)."""
    from hfrender.renderer.gl_slots import CudaMapper, HostMapper

    return CudaMapper() if kind == "cuda" else HostMapper()


def gl_storage(config: RenderConfig, glctx: Any, backend: str) -> Any:
    """Sub-frames in GL buffers shared with CUDA, when the fusion runs there (or asked)."""
    from hfrender.renderer.gl_slots import GLBufferStorage

    vendor = str(glctx.ctx.info.get("GL_VENDOR", ""))
    if config.interop == "off" or (config.interop == "auto" and not (
            backend == "cuda" and "NVIDIA" in vendor.upper())):
        return None
    if config.interop == "on" and backend != "cuda":
        raise ConfigError(f"{spelling().said('interop', 'on')}: the fusion backend is "
                          f"{backend}; GL-CUDA interop needs the cuda backend (an NVIDIA GPU)")
    try:
        return GLBufferStorage(glctx.ctx, gl_mapper("cuda"))
    except BackendUnavailable as exc:  # no cuda-python, or one without cuda.bindings
        if config.interop == "on":
            raise ConfigError(f"{spelling().said('interop', 'on')}: {exc}") from None
        log.warning("%s: %s; sub-frames go through host memory",
                    spelling().said("interop", "auto"), exc)
        return None


def output_settings(scene_file: str | Path, config: RenderConfig, backend: str, dof: str,
                    total: int, gl_renderer: str = "", scene: Any = None) -> dict:
    """What the output depends on: a resumed render must match all of it. ``total``: the
    whole render's frames (a range's are its ``frames``); ``scene``, set up: the files its
    objects read (its shaders, models)."""
    settings = {k: v for k, v in asdict(config).items()
                if k not in NOT_IN_OUTPUT and k not in JOIN_ONLY}
    settings["size"], settings["samples_range"] = list(config.size), list(config.samples_range)
    settings["passes"] = list(config.passes)  # (as JSON keeps it, for --resume's match)
    settings["frames"] = kept_as(config.frames, total)  # (the whole: as left out)
    settings.update(effective(config.output, config.codec, Encoding.of(config)),
                    scene_sha256=hashlib.sha256(Path(scene_file).read_bytes()).hexdigest(),
                    hfrender=hfrender.__version__, backend=backend, dof=dof,
                    total_frames=total, gl_renderer=gl_renderer)
    # 16-bit frames into a deep video: a run that handed it 8-bit ones is not resumed
    frames_in = frames_format(config)
    if frames_in in ("rgb48le", "rgba64le") and not is_sequence(config.output):
        settings["frames_in"] = frames_in
    modules = scene_modules(scene_file)  # the scene's own modules it imports, if any
    if modules:
        settings["scene_modules"] = modules
    files = scene_assets(scene) if scene is not None else {}
    if files:
        settings["scene_files"] = files
    return settings


def resume_point(config: RenderConfig, settings: dict, scene_file: str | Path
                 ) -> tuple[int, Manifest | None]:
    """(first frame to render, manifest) of an interrupted render of the same settings
    (``settings`` given the files its scene read later, :func:`.files_read.with_later_files`)."""
    if not config.resume:
        return 0, None
    with_later_files(settings, config.output, scene_file)
    return resume.resume_from(config.output, settings, "render", start_of(config.frames))


def frames_format(config: RenderConfig) -> str:
    """The raw format a render's video frames go to ffmpeg in: 16-bit codes where its
    encoder writes more than 8 bits (:func:`.deep_output.render_dtype`), RGBA with alpha."""
    from hfrender.engine.deep_output import render_dtype
    from hfrender.io.pixels import raw_format

    return raw_format(config.transparent, render_dtype(config) == np.uint16)


def keyframe_interval(granularity: int, plan: Plan) -> int:
    """Output frames per hyperframe: keyframes (and segments) align with hyperframes."""
    return max(1, (granularity - plan.overlap) // plan.step)
