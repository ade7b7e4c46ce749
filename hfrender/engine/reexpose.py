"""Re-exposure: the kept sub-frames of a render (a sample store) fused again, with another
shutter and, where the store has depth, another focus, without rendering anything.

Output frame ``k`` of the new exposure opens its shutter at ``k / fps`` plus the position's
offset for the new angle, and takes the kept sub-frames whose strata of the store's
shutter it covers, each weighted by the new shutter curve over the part it covers (a
shutter edge between two sub-frames' times takes the one there in part). Where those are
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
from dataclasses import dataclass, replace
from numbers import Real
from typing import Any

import numpy as np

from hfrender.effects import fuse
from hfrender.engine import deep_output
from hfrender.engine.core import Engine
from hfrender.errors import InputError, InputTypeError
from hfrender.hyperframe.builder import HyperFrameBuilder
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.windows import WindowWeights
from hfrender.io import store as io_store
from hfrender.optics import MIN_BLUR_PX, Lens
from hfrender.sampler import POSITIONS, SampleSchedule
from hfrender.scene.camera import PINHOLE_F_STOP
from hfrender.shutter_curve import CURVES, curve_values

log = logging.getLogger(__name__)
EPS = 1e-9  # seconds: a kept sub-frame this close to a shutter edge is inside it


@dataclass(frozen=True)
class Exposure:
    """How to expose a store again; ``None`` keeps the store's own setting."""

    shutter: float | None = None  # degrees, at most the store's
    position: str | None = None  # start | center | end
    curve: str | None = None  # box | triangle | gaussian
    focus_distance: float | None = None  # metres (a store with depth)
    f_stop: float | None = None


@dataclass
class ExposurePlan:
    """The windows of an exposure over the store's sub-frames, and what goes with them."""

    weights: WindowWeights  # output k: the used sub-frames from starts[k] (counted in `used`)
    spans: np.ndarray  # (count, 2) when each output's shutter opens and closes
    first_frame: int
    lens: Lens | None  # the depth gather's (None: no defocus)
    halo: int
    used: np.ndarray  # (store sub-frames,) bool: some window takes it (the others are skipped)


PLACED = {"start": "opening at each frame's time", "center": "centred on each frame's time",
          "end": "closing at each frame's time"}


def _merged(spans: np.ndarray) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(map(tuple, spans)):
        if out and a <= out[-1][1] + EPS:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _cells(times: np.ndarray, spans: list[tuple[float, float]]
           ) -> tuple[np.ndarray, np.ndarray]:
    """(from, to): the stratum of the shutter each kept sub-frame was drawn in: each of
    ``spans`` (a window's shutter; windows past 360 degrees, which share their sub-frames,
    merged) cut into as many equal parts as it holds kept sub-frames, in order (a jittered
    one lies in its part; a --samples auto window's count is its own)."""
    t = np.asarray(times, np.float64)
    lo, hi = np.full(len(t), -np.inf), np.full(len(t), np.inf)
    span = np.asarray(spans, np.float64).reshape(-1, 2)
    which = np.searchsorted(span[:, 0], t, side="right") - 1
    idx = np.flatnonzero(which >= 0)  # the times are in order: a window's run together
    ws = which[idx]  # (one pass, not one per window: a long store has thousands)
    _, first, count = np.unique(ws, return_index=True, return_counts=True)
    group = np.repeat(np.arange(len(first)), count)
    part = (span[ws, 1] - span[ws, 0]) / count[group]
    lo[idx] = span[ws, 0] + (np.arange(len(ws)) - first[group]) * part
    hi[idx] = lo[idx] + part
    return lo, hi


def _weights(t: np.ndarray, lo: np.ndarray, hi: np.ndarray, a: float, b: float,
             curve: str) -> np.ndarray:
    """The weights of sub-frames at times ``t`` standing for ``[lo, hi]`` in a shutter open
    over ``[a, b]``: the part of each inside it, times the curve there (at the sub-frame's
    time where that is inside, as a render weighs it, else at the part's middle), so that a
    shutter edge between two sub-frames' times takes the one there in part: the angle asked
    for (was: rounded to whole sub-frames, 160 degrees exposed as 180)."""
    lo, hi = np.maximum(lo, a), np.minimum(hi, b)
    w = np.clip(hi - lo, 0.0, None)
    if curve != "box":
        at = np.where((lo <= t) & (t <= hi), t, (lo + hi) / 2)
        w = w * curve_values(curve, np.clip((at - a) / max(b - a, EPS), 0.0, 1.0))
    return w / w.sum()


def _check_exposure(s: dict, e: Exposure) -> None:
    number = isinstance(e.shutter, Real) and not isinstance(e.shutter, bool)
    if e.shutter is not None and not (number and math.isfinite(e.shutter) and e.shutter > 0):
        raise (InputError if number else InputTypeError)(
            f"--shutter {e.shutter!r}: an angle in degrees > 0, at most the "
            f"{s['shutter']:g} the store holds")
    for option, value, inf in (("--focus-distance", e.focus_distance, True),
                               ("--f-stop", e.f_stop, False)):  # focused at infinity: inf
        if value is not None and not (isinstance(value, Real) and not isinstance(value, bool)
                                      and (math.isfinite(value) or inf) and value > 0):
            raise InputError(f"{option} {value!r}: " + ("a distance > 0 in metres, or inf"
                             if inf else "a finite number > 0"))  # (f_stop=0.0 ...)
    if e.shutter is not None and e.shutter > s["shutter"] + 1e-9:
        raise InputError(f"--shutter {e.shutter:.10g}: the store holds sub-frames over "
                         f"{s['shutter']:g} degrees only; expose at most that (render with "
                         "a wider shutter to choose wider ones later)")
    if e.position is not None and e.position not in POSITIONS:
        raise InputError(f"--shutter-position {e.position!r}: choose one of "
                         f"{', '.join(POSITIONS)}")
    if e.curve is not None and e.curve not in CURVES:
        raise InputError(f"--shutter-curve {e.curve!r}: choose one of {', '.join(CURVES)}")
    _lopsided_lens(s, e)
    refocus = e.focus_distance is not None or e.f_stop is not None
    if refocus and (s.get("dof") == "lens" or not s.get("depth")):
        if s.get("dof") == "lens":
            raise InputError("--focus-distance/--f-stop: this store's sub-frames were drawn "
                             "through the lens (--dof lens): their focus is fixed; render with "
                             "--dof depth or --dof off and --keep-samples to refocus later")
        raise InputError("--focus-distance/--f-stop: this store's sub-frames have no depth "
                         "(a shader scene draws none): only its shutter can change")


def _lopsided_lens(s: dict, e: Exposure) -> None:
    """A warning for a ``--dof lens`` store exposed otherwise than it was drawn: each
    sub-frame holds one point of the aperture, spread over the whole shutter, so another
    shutter, position or curve weighs the lens unevenly (a fresh render's 8 points are
    spread evenly; the first 8 of 16 are not: out-of-focus parts shift a pixel or two)."""
    narrower = e.shutter is not None and e.shutter < s["shutter"] - 1e-9
    if s.get("dof") == "lens" and (narrower or e.curve not in (None, s.get("curve"))
                                   or e.position not in (None, s.get("position"))):
        log.warning("this store was drawn through the lens (--dof lens): each sub-frame holds "
                    "one point of the aperture, so another shutter weighs them unevenly and "
                    "out-of-focus parts shift (a pixel or two); to re-expose freely, render "
                    "with --dof depth (or off) and --keep-samples")


def _lens(s: dict, e: Exposure) -> Lens | None:
    """The depth gather's lens: the new focus and f-stop over the store's lens, or the
    render's own depth-of-field lens (``--dof depth``), or none."""
    if e.focus_distance is None and e.f_stop is None and s.get("dof") != "depth":
        return None
    lens = s.get("lens") or {}
    cap = lens.get("max_coc_px")
    if cap is not None and cap < MIN_BLUR_PX:  # kept before such caps were refused
        if e.focus_distance is None and e.f_stop is None:
            return None  # as it rendered: its depth blurred nothing
        raise InputError(f"the store's depth of field is capped at max_coc_px={cap:g}, which "
                         f"blurs nothing: it cannot be refocused; keep it again with "
                         f"--max-coc-px {MIN_BLUR_PX:g} or more")
    focus = e.focus_distance if e.focus_distance is not None else lens.get("focus_distance")
    f_stop = e.f_stop if e.f_stop is not None else lens.get("f_stop")
    if focus is None and f_stop is None:  # a --dof depth store's camera was a pinhole at
        focus, f_stop = math.inf, PINHOLE_F_STOP  # first: sharp, each sub-frame its own lens
    elif focus is None or f_stop is None:
        raise InputError("the store's camera has no f-stop: give both --focus-distance and "
                         "--f-stop")
    return Lens(focus, f_stop, s.get("focal_length_mm", 50.0), s.get("width_mm", 36.0),
                lens.get("max_coc_px"), lens.get("aperture_blades", 0))


def plan_exposure(store: io_store.SampleStore, e: Exposure) -> ExposurePlan:
    """Which kept sub-frames each output frame takes, with what weight (see module)."""
    s = store.settings
    _check_exposure(s, e)
    fps, first, count = s["fps"], s["first_frame"], s["frames"]
    # the store's count: past 360 degrees it picks the grid, and so the angle, a render of
    # these settings draws (was 1: 540 degrees spanned 720, its own exposure 55 codes off)
    n = s["samples"] if isinstance(s["samples"], int) else 1  # (auto: at most 360 degrees)
    kept = SampleSchedule(fps, s["shutter"], s["position"], "box", n)
    new = SampleSchedule(fps, e.shutter if e.shutter is not None else s["shutter"],
                         e.position or s["position"], e.curve or s["curve"], n)
    ks = first + np.arange(count)
    spans = new.shutter_spans(ks)
    covered = _merged(kept.shutter_spans(ks))
    times = store.times
    cells = _cells(times, covered if s["shutter"] > 360 else kept.shutter_spans(ks).tolist())
    starts, rows = np.zeros(count, np.int64), []
    for i, (a, b) in enumerate(spans):
        if not any(lo - EPS <= a and b <= hi + EPS for lo, hi in covered):
            ka, kb = kept.shutter_spans(ks[i:i + 1])[0]
            fix = (f"the store's --shutter-position {s['position']} fits it"
                   if (e.position or s["position"]) != s["position"] else
                   "a narrower shutter fits it")
            raise InputError(f"output frame {first + i}: its shutter (from {a:.4f} to {b:.4f} s) "
                             f"reaches past the kept sub-frames (from {ka:.4f} to {kb:.4f} s: "
                             f"the store's {s['shutter']:g} degrees {PLACED[s['position']]}); "
                             f"{fix}")
        j0 = int(np.searchsorted(times, a - EPS, side="left"))
        j1 = int(np.searchsorted(times, b + EPS, side="right"))
        if j1 <= j0:
            raise InputError(f"output frame {first + i}: no kept sub-frame inside its "
                             f"shutter (from {a:.4f} to {b:.4f} s); the store has too few samples "
                             "for so narrow a shutter")
        j0 -= int(j0 > 0 and cells[1][j0 - 1] > a + EPS)  # a neighbour's span reaches in
        j1 += int(j1 < len(times) and cells[0][j1] < b - EPS)
        starts[i] = j0
        rows.append(_weights(times[j0:j1], cells[0][j0:j1], cells[1][j0:j1], a, b,
                             new.curve))
    width = max(len(r) for r in rows)
    dense = np.zeros((count, width))
    used = np.zeros(len(times), bool)
    for i, r in enumerate(rows):
        dense[i, : len(r)] = r
        used[starts[i] : starts[i] + len(r)] = True
    compact = np.cumsum(used) - 1  # a store index -> its place among the used ones
    # a window ending among a hyperframe's new sub-frames starts at most width - 1 before
    return ExposurePlan(WindowWeights(compact[starts], dense), spans, first, _lens(s, e),
                        width - 1, used)


class ReexposeFusion:
    """The exposure's windows over the kept sub-frames, fused by the backend."""

    def __init__(self, plan: ExposurePlan, backend: str, reconstruct: bool,
                 dof_method: str = "fast", transparent: bool = False,
                 dtype: Any = np.uint8) -> None:
        self.plan, self.backend = plan, backend
        self.reconstruct, self.dof_method = reconstruct, dof_method
        self.transparent = transparent  # RGBA out, straight alpha (as the render wrote)
        self.dtype = np.dtype(dtype)  # what is written: uint8, or an EXR's float16/32

    def windows(self, hyper: HyperFrame) -> tuple[int, WindowWeights]:
        return self.plan.weights.in_span(hyper.first_index, hyper.halo, hyper.frame_count)

    def fuse(self, hyper: HyperFrame, windows: WindowWeights, out: Any,
             first: int = 0) -> np.ndarray:
        shutter = self.plan.spans[first : first + windows.count] if self.reconstruct else None
        lens = None
        if self.plan.lens is not None:  # each sub-frame's own (a focus pull), else the one
            lens = [x if x is not None else self.plan.lens for x in hyper.lenses or
                    [None] * hyper.frame_count]
        wide = deep_output.fused_dtype(self.dtype, hyper.frames.dtype.kind == "f")
        if wide != hyper.frames.dtype:  # an 8-bit store into EXR: its light decoded first
            hyper, out = replace(hyper, frames=deep_output.widen(hyper.frames, wide)), None
        frames = fuse(hyper, windows, lens=lens, backend=self.backend, out=out,
                      shutter=shutter, dof_method=self.dof_method)
        # RGBA made straight; a --hdr store's float light encoded, clipped at white only
        # now (kept past it in EXR)
        return deep_output.finish(frames[..., : 4 if self.transparent else 3], self.dtype)


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
        aperture = chunk.get("aperture")
        for i, t in enumerate(chunk["times"]):
            if used is not None and not used[first + i]:
                continue
            target = builder.reserve(float(t), None if lens_of is None else lens_of(chunk, i),
                                     (0.0, 0.0) if aperture is None else tuple(aperture[i]))
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
                 dtype: Any = np.uint8) -> dict:
    """Expose ``store`` with ``e`` into ``writer`` (frames in order, of ``dtype``: uint8,
    or float16/32 linear light for EXR); the figures."""
    t0 = time.perf_counter()
    plan = plan_exposure(store, e)
    w, h = store.size
    planes = store.planes
    recon = "velocity" in planes and "depth" in planes
    builder = HyperFrameBuilder.create(
        (h, w, 4), store.color_dtype, frames_per_output=1, halo=plan.halo, granularity="auto",
        depth=recon or plan.lens is not None, velocity=recon, max_in_flight=1 + workers)
    count = plan.weights.count
    transparent = bool(store.settings.get("transparent"))
    engine = Engine(ReexposeFusion(plan, backend, recon, dof_method, transparent, dtype),
                    writer,
                    first_frame=0,
                    total=count, workers=workers, progress=progress).start()

    def produce() -> None:
        for hyper in replay(store, builder, plan.used, kept_lenses(plan.lens, e)):
            engine.submit(hyper)

    engine.drive(produce, builder.cancel)
    return {"frames": engine.stats.frames_written, "seconds": time.perf_counter() - t0,
            "subframes": store.subframes, "used": int(plan.used.sum()),
            "reconstructed": recon}


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
            copy = replace(hyper, frames=np.array(hyper.frames),
                           depth=None if hyper.depth is None else np.array(hyper.depth),
                           velocity=None if hyper.velocity is None else np.array(hyper.velocity),
                           timestamps=np.array(hyper.timestamps),
                           apertures=np.array(hyper.apertures), slot=None, pool=None)
            hyper.release()
            yield copy

    def expose(self, *, shutter: float | None = None, curve: str | None = None,
               position: str | None = None, focus_distance: float | None = None,
               f_stop: float | None = None, backend: str | None = None, workers: int = 2
               ) -> np.ndarray:
        """The output frames of another exposure, ``(N, H, W, 3)`` uint8 (``workers``
        fusion threads: nothing is drawn, so they have the cores)."""
        from hfrender import validate
        from hfrender.io.writers import MemoryWriter
        workers, sink = validate.integer(workers, "workers", 1), MemoryWriter()  # (0 was a
        # NumPy "need at least one array to stack", -1 a pool's internal names)
        try:
            run_exposure(self, Exposure(shutter, position, curve, focus_distance, f_stop),
                         sink, backend=backend, workers=workers)
        except InputError as exc:  # named as this call's keywords, not the command's options
            raise type(exc)(as_keywords(str(exc))) from None
        return np.stack(sink.frames)


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
