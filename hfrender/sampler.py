"""Which sub-frames to draw, and the weight of each in each output frame.

The one place where time is decided. Output frame ``k`` at ``fps`` is exposed while the
shutter is open: ``shutter_deg / 360 / fps`` seconds, placed at the ``start`` of ``k/fps``,
``center``\\ ed on it, or ending (``end``) at it. ``samples`` stratified times fall inside
(optionally jittered with a seeded RNG), each weighted by the shutter curve; lens positions
for lens depth of field are stratified points on the aperture. Above 360 degrees the
windows overlap: sub-frames sit on one global grid and are shared, never drawn twice. What
is decided travels to the fusion backends as a :class:`~hfrender.hyperframe.windows.WindowWeights`;
a long render plans it a chunk at a time (:class:`~hfrender.plan_stream.PlanStream`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from hfrender.errors import InputError
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import check_blades, polygon_edge
from hfrender.shutter_curve import curve_values, weights_of

POSITIONS = ("start", "center", "end")
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))
SUN = 5  # the sun's disk's dimension: its order seeded (seed, 5), its turn (seed, 6)


def halton(i: int, base: int) -> float:
    """The ``i``-th point (from 1) of the radical inverse in ``base``: in [0, 1)."""
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


@lru_cache(maxsize=64)
def pixel_offsets(n: int) -> np.ndarray:
    """The sub-pixel offsets ``(n, 2)`` (x, y in pixels, in (-0.5, 0.5)) of a window of
    ``n`` sub-frames, for antialiasing: in each axis one per ``1/n`` strip of the pixel, at
    its middle (the strips taken in the order of Halton's points in base 2 and 3). Their
    mean is exactly 0 (was: Halton's points less 0.5, whose mean sat up to a sixth of a
    pixel off, so that an edge moved with the sample count); one sub-frame is the pixel's
    centre."""
    order = np.arange(1, n + 1)
    xy = [np.argsort(np.argsort([halton(int(i), b) for i in order])) for b in (2, 3)]
    out = (np.stack(xy, axis=1) + 0.5) / n - 0.5
    out.setflags(write=False)
    return out


def _grid(shutter_deg: float, samples: int) -> tuple[int, int]:
    """(grid points per frame, points per window) for a shutter above 360 degrees.

    The window spans ``shutter / 360`` frame intervals on a grid shared by all frames, so
    ``window / per_frame`` should equal that ratio. The pair nearest to ``samples`` that
    hits the angle exactly is taken when one exists with a window within [samples/2,
    2 samples]; otherwise the nearest grid (the angle moves a little: the summary says so).
    """
    ratio = shutter_deg / 360.0
    best = None
    for per_frame in range(1, 4 * samples + 1):
        window = round(ratio * per_frame)
        if window < 1 or not samples / 2 <= window <= 2 * samples:
            continue
        if abs(window / per_frame - ratio) < 1e-9 and (
                best is None or abs(window - samples) < abs(best[1] - samples)):
            best = (per_frame, window)
    if best is not None:
        return best
    per_frame = max(1, round(samples / ratio))
    return per_frame, max(1, round(ratio * per_frame))


def hash_uniform(seed: int, idx: np.ndarray) -> np.ndarray:
    """Uniform numbers in [0, 1): a pure function of (seed, index) (SplitMix64)."""
    with np.errstate(over="ignore"):
        z = (np.asarray(idx, np.int64).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
             + np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0xBF58476D1CE4E5B9)
             + np.uint64(0x632BE59BD9B4E019))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


@dataclass(frozen=True)
class Plan:
    """The sub-frames of a run of output frames and how they fuse.

    ``times[j]`` and ``lens[j]`` (a point on the unit aperture disk) are sub-frame ``j``'s,
    and ``sun[j]``: a point on the unit disk, where on the sun's disk its light comes from
    (a scene's ``light_angle``: stratified as the lens's, in an order and turn of its own);
    ``output[j]`` is the output frame it is drawn for (the first one, where windows share
    it); ``weights`` maps sub-frames to output frames (indices relative to sub-frame 0).
    """

    first_frame: int
    times: np.ndarray
    lens: np.ndarray
    output: np.ndarray
    weights: WindowWeights
    per_output: int  # sub-frames in one window
    overlap: int  # sub-frames a window shares with the previous one (the halo)
    drawn: np.ndarray | None = None  # per sub-frame: drawn (False: an unused slot, weight 0)
    sun: np.ndarray | None = None  # (None: the sun's middle for every sub-frame)

    @property
    def step(self) -> int:
        """New sub-frames per output frame (the window minus what it shares)."""
        return self.per_output - self.overlap

    @property
    def count(self) -> int:
        return self.weights.count


@dataclass(frozen=True)
class SampleSchedule:
    """Sub-frame times, lens positions and weights for output frames at ``fps``.

    Parameters
    ----------
    fps : output frames per second (> 0)
    shutter_deg : shutter angle (> 0); 180 is the film standard, 360 a fully open shutter,
        above 360 consecutive windows overlap
    position : ``start`` | ``center`` | ``end``: where the open shutter sits around ``k/fps``
    curve : ``box`` | ``triangle`` | ``gaussian`` | a sequence of ``samples`` weights
    samples : sub-frames per output frame (>= 1)
    jitter : move each sample randomly inside its stratum (seeded by ``seed``)
    seed : seeds jitter and the lens pattern's rotation
    aperture_blades : 0 for a round aperture, else the number of blades (>= 3)
    """

    fps: float = 30.0
    shutter_deg: float = 180.0
    position: str = "center"
    curve: str | tuple = "box"
    samples: int = 8
    jitter: bool = False
    seed: int = 0
    aperture_blades: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.fps, (int, float)) and math.isfinite(self.fps) and self.fps > 0):
            raise InputError(f"fps={self.fps!r} must be a number > 0")
        sh = self.shutter_deg
        if not (isinstance(sh, (int, float)) and math.isfinite(sh) and sh > 0):
            raise InputError(f"shutter={sh!r} must be an angle in degrees > 0")
        if self.position not in POSITIONS:
            raise InputError(f"shutter position={self.position!r}: use one of "
                             f"{', '.join(POSITIONS)}")
        if not (isinstance(self.samples, int) and not isinstance(self.samples, bool)
                and self.samples >= 1):
            raise InputError(f"samples={self.samples!r} must be an integer >= 1")
        check_blades("aperture_blades", self.aperture_blades)
        if isinstance(self.curve, str):
            weights_of(self.curve, 1)  # validates the name
        else:
            weights_of(np.asarray(self.curve), self.window)

    @property
    def overlapping(self) -> bool:
        return self.shutter_deg > 360.0

    @property
    def per_frame(self) -> int:
        """Grid points per frame interval when windows overlap."""
        return _grid(self.shutter_deg, self.samples)[0]

    @property
    def window(self) -> int:
        """Sub-frames per output frame (above 360 degrees: ``samples`` or near it)."""
        if not self.overlapping:
            return self.samples
        return _grid(self.shutter_deg, self.samples)[1]

    @property
    def effective_shutter_deg(self) -> float:
        """The angle actually used: above 360 it is rounded to the sub-frame grid."""
        if not self.overlapping:
            return float(self.shutter_deg)
        return 360.0 * self.window / self.per_frame

    @property
    def shutter_seconds(self) -> float:
        return self.effective_shutter_deg / 360.0 / self.fps

    def shutter_spans(self, ks: np.ndarray) -> np.ndarray:
        """``(len(ks), 2)``: when output frame ``k``'s shutter opens and closes, seconds."""
        opens = np.asarray(ks, np.float64) / self.fps + self._open_offset()
        return np.stack([opens, opens + self.shutter_seconds], axis=1)

    def frame_at(self, t: float) -> int:
        """The output frame whose open shutter's middle is nearest ``t`` (a shader's
        ``iFrame``): where windows overlap (above 360 degrees) a sub-frame is shared by
        several frames, and this names one whatever range is rendered; never below 0, as
        on Shadertoy (frame 0's first sub-frames lie before its time)."""
        middle = self._open_offset() + self.shutter_seconds / 2
        return max(0, math.floor((t - middle) * self.fps + 0.5))  # frames start at 0

    def _open_offset(self) -> float:
        """Seconds from ``k/fps`` to the shutter opening."""
        return {"start": 0.0, "center": -0.5, "end": -1.0}[self.position] * self.shutter_seconds

    def plan(self, count: int, first_frame: int = 0) -> Plan:
        """The sub-frames of output frames ``first_frame .. first_frame + count - 1``.

        Pure function of the schedule and the frame range: a chunk of a render plans the
        same sub-frames as the whole render does for those frames.
        """
        if count < 1:
            raise InputError(f"count={count!r}: plan at least one output frame")
        rng_rot = np.random.default_rng([self.seed, 1]).random() * 2 * math.pi
        window = self.window
        ks = first_frame + np.arange(count)
        if not self.overlapping:
            step = window  # no sharing: each output frame has its own samples
            strata = np.broadcast_to(np.arange(window), (count, window))
            g = ks[:, None] * window + strata  # (the sub-frames' indices: jitter, lens, sun)
            jit = self._jitter(g)
            u = (strata + 0.5 + jit) / window
            times = ks[:, None] / self.fps + self._open_offset() + u * self.shutter_seconds
            lens_idx = self._lens_order(g, window)
            output = np.repeat(np.arange(count), window)
        else:
            step = self.per_frame
            g = first_frame * step + np.arange((count - 1) * step + window)  # global grid
            dt = 1.0 / (self.fps * step)
            jit = self._jitter(g)
            times = (g + 0.5 + jit) * dt + self._open_offset()
            i = np.arange(window)
            u = (i[None, :] + 0.5 + self._jitter(ks[:, None] * step + i)) / window
            lens_idx = self._lens_order(g, window)
            output = np.minimum((g - first_frame * step) // step, count - 1)
        rows = self._weights(u)
        weights = WindowWeights(np.arange(count, dtype=np.int64) * step, rows)
        lens = self._lens_points(lens_idx.ravel(), window, rng_rot)
        return Plan(first_frame, np.asarray(times, np.float64).ravel(), lens,
                    np.asarray(output, np.int64), weights, window, max(0, window - step),
                    sun=self._sun_points(np.ravel(g), window))

    def plan_counts(self, counts: np.ndarray, first_frame: int = 0) -> Plan:
        """As :meth:`plan`, output frame ``first_frame + i`` drawing ``counts[i]`` (at most
        ``samples``) sub-frames stratified over its shutter (``--samples auto``); each window
        keeps ``samples`` slots, those past its count unused (weight 0, not drawn)."""
        if self.overlapping or not isinstance(self.curve, str):
            raise InputError("an adaptive sample count needs a shutter of at most 360 degrees "
                             "and a named shutter curve")
        counts = np.asarray(counts, np.int64)
        window, count = self.samples, len(counts)
        if count < 1 or counts.min() < 1 or counts.max() > window:
            raise InputError(f"sample counts must be from 1 to {window}; got {counts!r}")
        ks = first_frame + np.arange(count)
        i = np.arange(window)[None, :]
        n = counts[:, None]
        used = i < n
        jit = self._jitter(ks[:, None] * window + i)
        u = (np.minimum(i, n - 1) + 0.5 + jit) / n
        times = ks[:, None] / self.fps + self._open_offset() + u * self.shutter_seconds
        rows = np.where(used, curve_values(self.curve, np.clip(u, 0.0, 1.0)), 0.0)
        rows /= rows.sum(axis=1, keepdims=True)
        rng_rot = np.random.default_rng([self.seed, 1]).random() * 2 * math.pi
        lens, sun = np.zeros((count * window, 2)), np.zeros((count * window, 2))
        for f, c in enumerate(counts.tolist()):  # (each frame's points: as many as it draws)
            idx, cut = ks[f] * c + np.arange(c), slice(f * window, f * window + c)
            lens[cut] = self._lens_points(self._lens_order(idx, c), c, rng_rot)
            sun[cut] = self._sun_points(idx, c)
        weights = WindowWeights(np.arange(count, dtype=np.int64) * window, rows)
        return Plan(first_frame, np.asarray(times, np.float64).ravel(), lens,
                    np.repeat(np.arange(count), window), weights, window, 0, used.ravel(), sun)

    def _jitter(self, idx: np.ndarray) -> np.ndarray:
        """Per-sub-frame offsets in [-0.5, 0.5) strata, a pure function of the index."""
        if not self.jitter:
            return np.zeros(np.shape(idx))
        return hash_uniform(self.seed, np.asarray(idx)) - 0.5

    def _weights(self, u: np.ndarray) -> np.ndarray:
        if isinstance(self.curve, str):
            w = curve_values(self.curve, np.clip(u, 0.0, 1.0))
        else:
            w = np.broadcast_to(np.asarray(self.curve, np.float64), u.shape).copy()
        return w / w.sum(axis=1, keepdims=True)

    def _lens_order(self, idx: np.ndarray, window: int, dim: int = 3) -> np.ndarray:
        """Which of the ``window`` aperture points each sub-frame uses: every window uses
        each point once, in an order decorrelated from time (``dim``: :data:`SUN`, the
        sun's disk's order, decorrelated from the lens's too)."""
        perm = np.random.default_rng([self.seed, dim]).permutation(window)
        return perm[np.asarray(idx) % window]

    def _sun_points(self, idx: np.ndarray, window: int) -> np.ndarray:
        """The points on the sun's unit disk of the sub-frames ``idx`` (as the lens's: each
        of ``window`` stratified points once a window, round, in their own order and turn)."""
        turn = np.random.default_rng([self.seed, SUN + 1]).random() * 2 * math.pi
        return self._lens_points(self._lens_order(idx, window, SUN), window, turn, 0)

    def _lens_points(self, m: np.ndarray, window: int, rotation: float,
                     blades: int | None = None) -> np.ndarray:
        """Point ``m`` of ``window`` stratified points on the unit aperture (Vogel spiral);
        one point alone is the centre (was 0.71 of the radius off it: a still of one
        sample moved whatever is out of focus, a trial)."""
        r = np.sqrt((m + 0.5) / window) if window > 1 else np.zeros(np.shape(m))
        theta = m * GOLDEN_ANGLE + rotation
        blades = self.aperture_blades if blades is None else blades  # (the sun's: round)
        if blades:
            r = r * polygon_edge(theta, blades)
        return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)
