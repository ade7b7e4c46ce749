"""Planning a re-exposure (:mod:`hfrender.engine.reexpose`): which kept sub-frames of a
sample store each output frame of the new exposure takes, with what weight, and the lens
its depth is defocused with; every refusal of the exposure asked, before any work.

Output frame ``k`` opens its shutter at ``k / fps`` plus the position's offset for the new
angle, and takes the kept sub-frames whose strata of the store's shutter it covers, each
weighted by the new shutter curve over the part it covers (a shutter edge between two
sub-frames' times takes the one there in part).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from numbers import Real

import numpy as np

from hfrender.errors import InputError, InputTypeError, about, spelling
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


def check_exposure(s: dict, e: Exposure) -> None:
    """The refusals of :func:`plan_exposure` that ``e``'s values (and the settings ``s`` of
    the store) make alone, said before any work; a bad value is an :func:`about` error of
    its setting (``f_stop``), which the command names as typed (``--f-stop 0``)."""
    _check_exposure(s, e)
    _lens(s, e)


def _check_exposure(s: dict, e: Exposure) -> None:
    if e.shutter is not None:
        _shutter(s, e.shutter)
    for key, value, inf in (("focus_distance", e.focus_distance, True),
                            ("f_stop", e.f_stop, False)):  # focused at infinity: inf
        if value is not None and not (isinstance(value, Real) and not isinstance(value, bool)
                                      and (math.isfinite(value) or inf) and value > 0):
            raise about(InputError, key, value, " must be " + (
                        "a distance > 0 in metres, or inf" if inf else "a finite number > 0"),
                        head=f"--{key.replace('_', '-')} {value!r}")
    if e.position is not None and e.position not in POSITIONS:
        raise InputError(f"--shutter-position {e.position!r} must be one of "
                         f"{', '.join(POSITIONS)}")
    if e.curve is not None and e.curve not in CURVES:
        raise InputError(f"--shutter-curve {e.curve!r} must be one of {', '.join(CURVES)}")
    refocus = e.focus_distance is not None or e.f_stop is not None
    if refocus and (s.get("dof") == "lens" or not s.get("depth")):
        if s.get("dof") == "lens":
            raise InputError("--focus-distance/--f-stop: this store's sub-frames were drawn "
                             "through the lens (--dof lens): their focus is fixed; render with "
                             "--dof depth or --dof off and --keep-samples to refocus later")
        raise InputError("--focus-distance/--f-stop: this store's sub-frames have no depth "
                         "(a shader scene draws none): only its shutter can change")


def _shutter(s: dict, value: object) -> None:
    """A re-exposure's shutter: degrees > 0, at most the store's; else a line said as a
    render's check says it (``--shutter x must be a finite number > 0 ...``, a word an
    :class:`InputTypeError`), the bound the store's (was render's "<= 5760", a store of 180
    refusing 0 so), or one past the store's naming what it holds."""
    number = isinstance(value, Real) and not isinstance(value, bool)
    if not (number and math.isfinite(value) and value > 0):  # type: ignore[arg-type]
        raise about(InputError if number else InputTypeError, "shutter", value,
                    f" must be a finite number > 0 and at most the {s['shutter']:g} the store "
                    "holds", head=f"--shutter {value!r}")
    if value > s["shutter"] + 1e-9:  # type: ignore[operator]
        raise about(InputError, "shutter", value, f": the store holds sub-frames over "
                    f"{s['shutter']:g} degrees only; expose at most that (render with a wider "
                    "shutter to choose wider ones later)", head=f"--shutter {value:.10g}")


def _lopsided_lens(s: dict, e: Exposure) -> None:
    """A warning for a ``--dof lens`` store exposed otherwise than it was drawn, in the
    caller's spelling (the command's flags, SampleStore.expose's keywords): each
    sub-frame holds one point of the aperture, spread over the whole shutter, so another
    shutter, position or curve weighs the lens unevenly (a fresh render's 8 points are
    spread evenly; the first 8 of 16 are not: out-of-focus parts shift a pixel or two)."""
    narrower = e.shutter is not None and e.shutter < s["shutter"] - 1e-9
    if s.get("dof") == "lens" and (narrower or e.curve not in (None, s.get("curve"))
                                   or e.position not in (None, s.get("position"))):
        said = spelling()  # (SampleStore.expose's: hf.render's keywords)
        log.warning("this store was drawn through the lens (%s): each sub-frame holds one "
                    "point of the aperture, so another shutter weighs them unevenly and "
                    "out-of-focus parts shift (a pixel or two); to re-expose freely, render "
                    "with %s (or %s) and %s", said.said("dof", "lens"), said.said("dof", "depth"),
                    "off" if said.flags else "'off'", said.name("keep_samples"))


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
    # a focus within the focal length: the Lens's error of focus_distance, which the command
    # names as typed (--focus-distance 0.01)
    return Lens(focus, f_stop, s.get("focal_length_mm", 50.0), s.get("width_mm", 36.0),
                lens.get("max_coc_px"), lens.get("aperture_blades", 0))


def _apart(times: np.ndarray, j: int, fps: float) -> str:
    """How far apart the kept sub-frames around a shutter that holds none lie (``j``: the
    first after it; before the first or after the last, the first or last two): their own
    times, jittered or of --samples auto's count too."""
    if len(times) < 2:
        return "the store has too few samples for so narrow a shutter"
    j = min(max(j, 1), len(times) - 1)  # (was: no figure at the store's first and last frame)
    t0, t1 = float(times[j - 1]), float(times[j])
    deg = (t1 - t0) * fps * 360
    return (f"the kept sub-frames around it lie {deg:.4g} degrees apart ({_secs(t0, t1)} "
            f"s): a shutter of {deg:.4g} degrees or more holds one")


def _secs(a: float, b: float) -> str:
    """``a and b`` (``to`` too) in seconds with the decimals that tell them apart (a
    0.5-degree shutter was "from 0.0000 to 0.0000 s")."""
    places = 4 if b - a >= 1e-4 else min(12, 1 - math.floor(math.log10(max(b - a, 1e-12))))
    return f"{a:.{places}f} and {b:.{places}f}"


def plan_exposure(store: io_store.SampleStore, e: Exposure) -> ExposurePlan:
    """Which kept sub-frames each output frame takes, with what weight (see module)."""
    s = store.settings
    _check_exposure(s, e)
    _lopsided_lens(s, e)  # (here alone: reexpose checks first, and said it twice)
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
        if j1 <= j0:  # (was: "too few samples for so narrow a shutter", no figure)
            raise InputError(f"output frame {first + i}: no kept sub-frame inside its "
                             f"shutter (from {_secs(a, b).replace(' and ', ' to ')} s); "
                             f"{_apart(times, j0, fps)} "
                             "(or keep more --samples)")
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
