"""Re-exposure: the kept sub-frames of a render (a sample store) fused again, with another
shutter and, where the store has depth, another focus, without rendering anything.

Each output frame takes the kept sub-frames its new shutter covers, weighted by the new
shutter curve (planned by :mod:`hfrender.engine.exposure`). Where those are
the times a fresh render with these settings would draw (16 samples over 360 degrees
re-exposed at 180 from the shutter's start: the first 8), the frames are a fresh render's
but for the sub-pixel antialiasing pattern, whose offsets are a window's. A store with velocity
reconstructs the motion between the kept sub-frames over the new shutter
(:mod:`hfrender.backends.cpu.reconstruct`); a store with depth (``--dof depth`` or ``off``)
can be defocused with a new focus and f-stop by the depth gather.

The job runs on the one engine: the store's chunks are the producer, pushed into pool slots
with their depth and velocity; the windows are the exposure's, over the store's sub-frames.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from hfrender.config import FUSION_PROCESS
from hfrender.engine.core import Engine
from hfrender.engine.exposure import Exposure, ExposurePlan, plan_exposure
from hfrender.engine.offload import FusionProcesses
from hfrender.engine.render_fusion import RenderFusion
from hfrender.engine.render_setup import PIPELINE, shared_arena, start_processes
from hfrender.engine.render_stats import RenderStats
from hfrender.errors import KEYWORD, InputError, spelt
from hfrender.hyperframe.builder import DEFAULT_CAP, HyperFrameBuilder
from hfrender.hyperframe.frame import HyperFrame, per_frame
from hfrender.hyperframe.windows import WindowWeights
from hfrender.io import store as io_store
from hfrender.optics import Lens
from hfrender.sampler import POSITIONS
from hfrender.scene.camera import PINHOLE_F_STOP
from hfrender.shutter_curve import CURVES

log = logging.getLogger(__name__)
class ReexposeFusion(RenderFusion):
    """The exposure's windows over the kept sub-frames, fused as a render's are (here, or
    in fusion processes: ``processes``): the motion between them reconstructed over the
    new shutter where the store has velocity, each defocused with the lens
    :func:`kept_lenses` gave it."""

    def __init__(self, plan: ExposurePlan, backend: str, dof_method: str = "fast",
                 transparent: bool = False, dtype: Any = np.uint8,
                 processes: Any = None, fallback: bool = True) -> None:
        super().__init__(plan, backend, RenderStats(output=""), dof_method, transparent,
                         dtype, processes, fallback)  # RGBA out straight, as rendered

    def windows(self, hyper: HyperFrame) -> tuple[int, WindowWeights]:
        return self.plan.weights.in_span(hyper.first_index, hyper.halo, hyper.frame_count)

    def shutter_spans(self, first: int, count: int) -> np.ndarray:
        return self.plan.spans[first : first + count]


def kept_lenses(base: Lens | None, e: Exposure) -> Callable[[dict, int], Lens | None]:
    """Sub-frame ``i`` of a chunk's lens for the depth gather: the lens it was drawn with
    (a store of ``--dof depth`` keeps each: a focus pull's moves), with the exposure's new
    focus or f-stop in its place where given; ``base`` where the store kept none."""
    def lens_of(chunk: dict, i: int) -> Lens | None:
        if base is None or "focus_m" not in chunk:
            return base
        kept = float(chunk["f_stop"][i])  # NaN: a pinhole there, sharp as it was drawn
        if e.f_stop is None and kept != kept:
            return replace(base, focus_distance=math.inf, f_stop=PINHOLE_F_STOP)
        f_stop = e.f_stop if e.f_stop is not None else kept
        focus = float(chunk["focus_m"][i]) if e.focus_distance is None else e.focus_distance
        return replace(base, focus_distance=focus if focus == focus else base.focus_distance,
                       f_stop=float(f_stop))
    return lens_of


def replay(store: io_store.SampleStore, builder: HyperFrameBuilder,
           used: np.ndarray | None = None,
           lens_of: Callable[[dict, int], Lens | None] | None = None) -> Iterator[HyperFrame]:
    """The kept sub-frames (those ``used``, default all) pushed into ``builder``'s slots
    with the planes its pool holds, each with ``lens_of(chunk, i)`` (default none); the
    full hyperframes."""
    pool = builder.pool
    planes = ("color",) + ("depth",) * pool.has_depth + ("velocity",) * pool.has_velocity
    for index, entry in enumerate(store.chunks):
        first, n = entry["first"], entry["count"]
        if used is not None and not used[first : first + n].any():
            continue
        chunk = store.read(index, planes)
        color, depth, velocity = (chunk.get(p) for p in io_store.PLANES)
        aperture, shift = chunk.get("aperture"), chunk.get("shift")
        for i, t in enumerate(chunk["times"]):
            if used is not None and not used[first + i]:
                continue
            target = builder.reserve(float(t), None if lens_of is None else lens_of(chunk, i),
                                     (0.0, 0.0) if aperture is None else tuple(aperture[i]),
                                     (0.0, 0.0) if shift is None else tuple(shift[i]))
            target.color[...] = color[i]
            if target.depth is not None:
                target.depth[...] = depth[i]
            if target.velocity is not None:
                target.velocity[...] = velocity[i]
            hyper = builder.commit()
            if hyper is not None:
                yield hyper
    last = builder.flush_remaining()
    if last is not None:
        yield last


def run_exposure(store: io_store.SampleStore, e: Exposure, writer: Any, *,
                 backend: str | None = None, workers: int = 1, dof_method: str = "fast",
                 progress: Callable[[int, int], None] | None = None,
                 dtype: Any = np.uint8, processes: str = "auto") -> dict:
    """Expose ``store`` with ``e`` into ``writer`` (frames in order, of ``dtype``: uint8,
    or float16/32 linear light for EXR); the figures. ``processes`` (``--fusion-process``):
    a heavy exposure (depth of field, reconstruction) on the CPU fuses in ``workers``
    child processes (``auto``, with two cores or more), as a render does: threads share
    one interpreter, and re-exposing a depth store took as long as rendering it."""
    from hfrender.backends import get_backend

    t0 = time.perf_counter()
    plan = plan_exposure(store, e)
    recon = "velocity" in store.planes and "depth" in store.planes
    backend = get_backend(backend).name
    builder, children = _exposure_pool(store, plan, recon, backend, workers, processes)
    count = 0 if children is None else len(children.children)
    fusion = ReexposeFusion(plan, backend, dof_method, bool(store.settings.get("transparent")),
                            dtype, children, fallback=processes == "auto")
    try:
        engine = Engine(fusion, writer, first_frame=0, total=plan.weights.count, workers=workers,
                        progress=progress).start()

        def produce() -> None:
            for hyper in replay(store, builder, plan.used, kept_lenses(plan.lens, e)):
                engine.submit(hyper)

        engine.drive(produce, builder.cancel)
    finally:
        if children is not None:  # before the arena they map goes
            children.close()
    return {"frames": engine.stats.frames_written, "seconds": time.perf_counter() - t0,
            "subframes": store.subframes, "used": int(plan.used.sum()),
            "reconstructed": recon,
            "processes": count if fusion.processes is not None else 0}  # (fell back: 0)


def _exposure_pool(store: io_store.SampleStore, plan: ExposurePlan, recon: bool,
                   backend: str, workers: int, processes: str
                   ) -> tuple[HyperFrameBuilder, FusionProcesses | None]:
    """The pool the kept sub-frames are pushed into and, where ``processes`` says so, the
    fusion processes that map it (``auto``: for more than one hyperframe's sub-frames);
    then hyperframes of a sixth of the sub-frames used at most, so that the chunks'
    reading overlaps the fusion and the last one is short."""
    used = int(plan.used.sum())  # auto: not for one hyperframe's (a child's start costs
    # about what threads fuse of it)
    mode = "off" if processes == "auto" and used <= DEFAULT_CAP else processes
    arena = shared_arena(mode, backend, recon or plan.lens is not None)
    cap = DEFAULT_CAP if arena is None else min(DEFAULT_CAP,
                                                plan.halo + max(1, -(-used // PIPELINE)))
    w, h = store.size
    builder = HyperFrameBuilder.create(
        (h, w, 4), store.color_dtype, frames_per_output=1, halo=plan.halo, granularity="auto",
        depth=recon or plan.lens is not None, velocity=recon, max_in_flight=1 + workers,
        storage=arena, cap=cap)
    return builder, None if arena is None else start_processes(processes, arena, workers)


class SampleStore(io_store.SampleStore):
    """A sample store (``hfrender render ... --keep-samples DIR``), for library use::

        store = hf.SampleStore.open("shot.samples")
        for hyper in store.hyperframes(): ...      # the kept sub-frames, as hyperframes
        frames = store.expose(shutter=90, position="start")   # (N, H, W, 3) uint8
    """

    def hyperframes(self, granularity: int = 64) -> Iterator[HyperFrame]:
        """The kept sub-frames in hyperframes of ``granularity`` (free-standing copies)."""
        builder = HyperFrameBuilder.create(
            (self.size[1], self.size[0], 4), self.color_dtype, granularity=granularity,
            depth="depth" in self.planes, velocity="velocity" in self.planes)
        for hyper in replay(self, builder):
            copy = replace(hyper, **per_frame(hyper, np.array), slot=None, pool=None)
            hyper.release()
            yield copy

    def expose(self, *, shutter: float | None = None, curve: str | None = None,
               position: str | None = None, focus_distance: float | None = None,
               f_stop: float | None = None, backend: str | None = None, workers: int = 2,
               dtype: Any = np.uint8, fusion_process: str = "auto") -> np.ndarray:
        """The output frames of another exposure, ``(N, H, W, 3)`` (RGBA, straight alpha,
        from a ``--transparent`` render's store) of ``dtype``: ``uint8`` or ``uint16``
        sRGB codes, or ``float16``/``float32`` linear light (an ``--hdr`` store's light
        past white kept, as EXR keeps it). ``workers`` fusion threads, or processes
        (``fusion_process``: ``auto`` for a refocused or reconstructed store on the CPU,
        ``on``, ``off``): nothing is drawn, so they have the cores."""
        from hfrender import validate
        from hfrender.io.writers import MemoryWriter
        workers, sink = validate.integer(workers, "workers", 1), MemoryWriter()  # (0 was a
        # NumPy "need at least one array to stack", -1 a pool's internal names)
        dtype = _exposed_dtype(dtype)
        if fusion_process not in FUSION_PROCESS:
            raise InputError(f"fusion_process={fusion_process!r} must be one of "
                             f"{', '.join(FUSION_PROCESS)}")
        try:
            with spelt(KEYWORD):  # its warnings name a render's settings as hf.render's
                run_exposure(self, Exposure(shutter, position, curve, focus_distance, f_stop),
                             sink, backend=backend, workers=workers, dtype=dtype,
                             processes=fusion_process)
        except InputError as exc:  # named as this call's keywords, not the command's options
            raise type(exc)(as_keywords(str(exc))) from None
        return np.stack(sink.frames)


EXPOSED_DTYPES = ("uint8", "uint16", "float16", "float32")


def _exposed_dtype(dtype: Any) -> np.dtype:
    """``dtype`` of :meth:`SampleStore.expose`, one of :data:`EXPOSED_DTYPES`."""
    try:
        named = np.dtype(dtype)
    except TypeError:
        named = None
    if named is None or named.name not in EXPOSED_DTYPES:
        raise InputError(f"dtype={dtype!r}: exposed frames are "
                         f"{', '.join(EXPOSED_DTYPES)}")
    return named


def as_keywords(message: str) -> str:
    """``message`` with the reexpose command's options named as :meth:`SampleStore.expose`'s
    keywords (``--shutter 720`` -> ``shutter=720``)."""
    names = {"shutter-position": "position", "shutter-curve": "curve", "shutter": "shutter",
             "focus-distance": "focus_distance", "f-stop": "f_stop"}  # (longest first)
    message = re.sub(rf"--(shutter-position|shutter-curve) ({'|'.join(POSITIONS + CURVES)})\b",
                     lambda m: f"{names[m.group(1)]}={m.group(2)!r}", message)
    value = r"(?: (?=[\d'\".-]|inf|nan|None|True|False))?"  # a value follows: name=value
    return re.sub(rf"--({'|'.join(names)}){value}",
                  lambda m: names[m.group(1)] + "=" * m.group(0).endswith(" "), message)
