"""Whether a render fits memory, before any sub-frame is drawn: its pool of hyperframe
slots (in host memory, or the GPU's for GL buffers shared with CUDA) and each frame's own
work (drawing, fusing, encoding; a shader's buffers' float textures) against what this
process may use; a refusal says what to lower, and how far (split out of
:mod:`hfrender.engine.render_setup`)."""

from __future__ import annotations

import logging
from typing import Any

from hfrender.config import ConfigError, RenderConfig
from hfrender.errors import spelling
from hfrender.frame_range import n_frames
from hfrender.hyperframe.pool import slot_count
from hfrender.sampler import Plan, SampleSchedule
from hfrender.sizes import bytes_said

log = logging.getLogger(__name__)

# host memory a render takes per pixel besides its pool: GL's targets and read-back, the
# fusion's float planes, the output frame, the encoder's process (measured at 4096x4096 with
# llvmpipe: about 70 bytes a pixel in hfrender, 30 in ffmpeg)
WORK_BYTES_PER_PIXEL = 100
# and per sub-frame of a window, per fusion worker, where the fusion is heavy (--dof depth,
# reconstruction: each sub-frame decoded to float planes; a trial's 1080p at 8 samples took
# 3.2 GB in all where 0.9 GiB was said, and ran out of memory after passing the check)
HEAVY_BYTES_PER_SAMPLE = 48
# and per shader buffer (shadertoy.com's Buffer tabs): its RGBA 32-bit float texture of the
# output's size (was: not counted; 133 MB each at 4K)
BUFFER_BYTES_PER_PIXEL = 16


def shader_buffers(scene: Any) -> int:
    """How many buffers a shader ``scene`` draws into float textures of the output's size
    (0 for any other scene)."""
    from hfrender.scene import ShaderScene

    return len(scene.buffers) if isinstance(scene, ShaderScene) else 0


def check_granularity(config: RenderConfig, plan: Plan, frame_bytes: int,
                      free: int | None = None, heavy: bool = False,
                      workers: int = 1, buffers: int = 0) -> None:
    """A granularity must hold the halo and whole output frames; the pool must fit memory
    (``free``: bytes it may take on the GPU; default: in host memory), and the frame's
    own work (:data:`WORK_BYTES_PER_PIXEL`, :data:`HEAVY_BYTES_PER_SAMPLE` for each of
    ``workers`` fusing a ``heavy`` window, :data:`BUFFER_BYTES_PER_PIXEL` for each of a
    shader's ``buffers``) what this process may use of host memory. A refusal lowering
    ``--samples`` says the most that fit (:func:`_most_samples`)."""
    if config.granularity != "auto":
        g, need = config.granularity, plan.overlap + plan.step
        if g < need or (g - plan.overlap) % plan.step:
            ok = plan.overlap + plan.step * max(1, (g - plan.overlap) // plan.step)
            raise ConfigError(  # (was granularity=12 to the command too)
                f"{spelling().said('granularity', g)}: a hyperframe holds {plan.overlap} "
                f"carried sub-frames plus whole output frames of {plan.step}; use {ok} or "
                f"{ok + plan.step}")
    said = _past_memory(config, plan, frame_bytes, free, heavy, workers, buffers)
    if said is None:
        return
    most = _most_samples(config, frame_bytes, free, heavy, workers, buffers)
    fit = f" (at most {most} fit at {config.size[0]}x{config.size[1]})" if most else ""
    spell = spelling()  # (hf.render's keywords: were the flags to it too)
    knobs = [spell.name(k) + fit * (k == "samples") for k in ["granularity"] * (
        config.granularity != "auto") + ["samples"] * (plan.per_output > 1) + ["size"]]
    lower = (", ".join(knobs[:-1]) + " or " if len(knobs) > 1 else "") + knobs[-1] + (
        f" (or {spell.said('reconstruct', 'off')}, or {spell.said('dof', 'lens')})" if heavy
        else "")  # (--samples at 1 too, was)
    raise ConfigError(f"{said}: lower {lower}")


def _past_memory(config: RenderConfig, plan: Plan, frame_bytes: int, free: int | None,
                 heavy: bool, workers: int, buffers: int) -> str | None:
    """What :func:`check_granularity` refuses for memory, up to its "lower ..."; None
    where the pool and the frame's work fit."""
    from hfrender.hyperframe.builder import free_memory_bytes

    slots = slot_count(config.max_in_flight)
    frames = plan.overlap + plan.step if config.granularity == "auto" else config.granularity
    pool = slots * frames * frame_bytes
    per = WORK_BYTES_PER_PIXEL + heavy * workers * HEAVY_BYTES_PER_SAMPLE * plan.per_output
    textures = BUFFER_BYTES_PER_PIXEL * buffers * config.size[0] * config.size[1]
    work = per * config.size[0] * config.size[1] + textures
    host = free_memory_bytes() * 0.8  # (was: compared with 80%, the whole said, a trial)
    sub = "sub-frame"  # (was: "slots of 1 sub-frames", "with 1 sub-frames per ...", a trial)
    slotted = f"{bytes_said(pool)} for {slots} hyperframe slots of {n_frames(frames, sub)}"
    drawn = f"{bytes_said(work)} to draw, fuse and encode each frame" + (
        f", {bytes_said(textures)} of it the float textures of {buffers} shader "
        f"buffer{'s' * (buffers > 1)}" if buffers else "")
    w, h = config.size
    what = f"{w}x{h} with {n_frames(plan.per_output, sub)} per output frame"
    # the pool in the GPU's memory (was: all of it said, 80% compared: 201 MB "more than 210")
    if free is not None and pool > 0.8 * free:
        return (f"{what} needs {slotted}, more than the {bytes_said(0.8 * free)} of the GPU's "
                "memory it may take")
    need = pool + work if free is None else work
    if need > host:
        parts = f"{slotted} and {drawn}" if free is None else drawn
        return (f"{what} needs {bytes_said(need)} ({parts}), more than the "
                f"{bytes_said(host)} this process may use")
    return None


def _most_samples(config: RenderConfig, frame_bytes: int, free: int | None, heavy: bool,
                  workers: int, buffers: int) -> int | None:
    """The most ``--samples`` below the config's whose pool and work fit as it is (its
    size, hyperframes in flight), by bisection (was: "lower --samples" alone); None where
    not even one does (the frame's work alone), with ``--samples auto``, or a granularity
    given (its pool the same whatever the samples, and they must divide it)."""
    def fits(samples: int) -> bool:
        try:
            tried = config.with_(samples=samples)
            plan = schedule_for(tried).plan(1)
        except ConfigError:
            return False
        return _past_memory(tried, plan, frame_bytes, free, heavy, workers, buffers) is None

    if config.granularity != "auto" or not isinstance(config.samples, int) or not fits(1):
        return None
    lo, hi = 1, config.samples  # lo fits, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def fitting(config: RenderConfig, plan: Plan, frame_bytes: int, free: int | None,
            heavy: bool, workers: int, buffers: int = 0) -> RenderConfig:
    """``config`` where its pool and work fit memory (:func:`check_granularity`), else with
    the most hyperframes in flight below its own that fit (down to one: a pool of 2 slots,
    not 3; drawing waits more on fusion), said with -v (was: 8K at 48 samples refused, 2
    slots fitting, a trial); else the 2 slots' refusal, the least the render could run
    with."""
    for in_flight in range(config.max_in_flight, 0, -1):
        tried = config.with_(max_in_flight=in_flight)
        try:
            check_granularity(tried, plan, frame_bytes, free, heavy, workers, buffers)
        except ConfigError:
            if in_flight == 1:
                raise
            continue
        if in_flight < config.max_in_flight:
            log.info("hyperframe pool: %d slots do not fit this process's memory; %d do "
                     "(drawing waits on fusion more)", slot_count(config.max_in_flight),
                     slot_count(in_flight))
        return tried
    raise AssertionError("max_in_flight >= 1")  # (a RenderConfig's check)


def schedule_for(config: RenderConfig, aperture_blades: int = 0) -> SampleSchedule:
    """The sample schedule of a render's settings (the one place they are mapped)."""
    return SampleSchedule(config.fps, config.shutter, config.shutter_position,
                          config.shutter_curve, config.max_samples, config.jitter, config.seed,
                          aperture_blades)
