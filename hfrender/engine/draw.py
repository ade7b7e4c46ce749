"""Drawing one sub-frame of a render into the next hyperframe slot.

The scene is updated to the sub-frame's time, the camera checked, the eye moved across the
aperture (``--dof lens``) and jittered by a sub-pixel (antialiasing); with a velocity plane
the scene is also updated a moment before and after, and the rate of change of every
object's clip matrix (a central difference in float64) goes to the draw, which writes each
pixel's exact screen motion beside its colour and depth. The renderer reads the result
straight into the slot (``read_into``).
"""

from __future__ import annotations

import logging
import math
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import spelling
from hfrender.logs import span
from hfrender.plan_stream import PlanStream
from hfrender.renderer.clip_motion import clip_rates
from hfrender.sampler import Plan, pixel_offsets
from hfrender.scene import ShaderScene, past_white
from hfrender.scene.loader import call_scene

log = logging.getLogger(__name__)
VELOCITY_DT = 1e-5  # seconds either side of a sub-frame for the velocity's difference
SLOW_DRAW_S = 5.0  # a sub-frame that takes longer to draw is said, once, with the time at
# that pace (was: a shader's 70 s still went by with no word beyond its progress bar)


def _fill(plane: Any, value: float) -> None:
    """Fill a host plane, or a GL region (a buffer and an offset) of float32 values."""
    if isinstance(plane, np.ndarray):
        plane[...] = value
    else:
        plane.buffer.write(np.full(plane.nbytes // 4, value, np.float32).tobytes(),
                           offset=plane.offset)


class SubframeDrawer:
    """Draws the sub-frames of ``stream`` with ``renderer`` into ``builder``'s slots."""

    def __init__(self, scene: Any, renderer: Any, builder: Any, stream: PlanStream,
                 config: Any, dof: str, velocity: bool, passes: Any = None) -> None:
        """``passes``: a render's --passes (FramePasses), whose planes alone need the depth
        and velocity of the sub-frames it keeps (:meth:`_reads`)."""
        self.scene, self.renderer, self.builder = scene, renderer, builder
        self.stream, self.config, self.dof, self.velocity = stream, config, dof, velocity
        self.passes, self._kept = passes, (None, None)  # (a plan, its sub-frames kept)
        self.mesh = not isinstance(scene, ShaderScene)
        self.focus_log: dict[float, tuple[float, float]] | None = None  # a store's (keep.py)
        self.watch_white = False  # 8-bit sub-frames chosen by --hdr auto: say once if an
        #                           object's light passes white later in the render
        # --dof auto saw no f-stop at t = 0: say once if one is set later
        self.watch_dof = dof == "off" and getattr(config, "dof", None) == "auto" and self.mesh
        self.watch_slow = stream is not None  # say once if a sub-frame draws slowly

    def draw(self, plan: Plan, j: int, index: int, k: int) -> tuple[Any, int]:
        """Sub-frame ``j`` of ``plan`` (``index`` of the stream) for output frame ``k``:
        drawn and read into the slot. Returns (the full hyperframe or None, bytes read back
        to host memory)."""
        scene, config = self.scene, self.config
        t = float(plan.times[j])
        call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
        if self.watch_white:
            self._watch_white(t)
        if self.watch_dof and scene.camera.has_dof:
            self.watch_dof = False
            said = spelling().said  # (the flags, or hf.render's keywords: dof='lens')
            log.warning("at t=%.3f s the camera has an f-stop: %s saw none at t = 0, the "
                        "animation's start, and renders without depth of field; set f_stop "
                        "from t = 0 (in setup()), or give %s", t, said("dof", "auto"),
                        said("dof", "lens"))
        if self.focus_log is not None:  # the camera's focus now, for a sample store
            cam = scene.camera
            self.focus_log[t] = (cam.focus_distance, math.nan if cam.f_stop is None
                                 else cam.f_stop)
        offset = self._lens_offset(plan, j, t, k) if self.mesh else (0.0, 0.0)
        if self.mesh and plan.sun is not None:  # where on the sun's disk its light is from
            self.renderer.sun_disk = (float(plan.sun[j, 0]), float(plan.sun[j, 1]))
        jit = (0.0, 0.0)
        if config.antialias and (self.mesh or scene.antialias):  # the same pattern in
            jit = self._pixel_offset(plan, j, index)  # every window (a shader's fragCoord
            # too, where its own line does not say antialias = false)
        reads = self._reads(plan, j)  # (depth, velocity) read back
        rates = self._clip_rates(t, k, offset, jit) if self.velocity and reads[1] else None
        shown = self.stream.schedule.frame_at(t) if self.stream.schedule.overlapping else k
        draw_args = (t, shown, offset, jit) if rates is None else (t, shown, offset, jit, rates)
        draw = self.renderer.draw if any(reads) else partial(self.renderer.draw, planes=False)
        start = time.perf_counter()  # the GL's time: the draw and its read (not the wait
        call_scene(scene, "drawing", draw, *draw_args, t=t, frame=k)  # for a free slot
        took = time.perf_counter() - start  # between them)
        target = self.builder.reserve(t, self._depth_lens(), tuple(plan.lens[j]),
                                      self._picture_shift(jit))
        target = (target[0], *(p if read else None
                               for p, read in zip(target[1:], reads, strict=True)))
        start = time.perf_counter()
        self.renderer.read_into(*target)
        if self.watch_slow:
            self._watch_slow(took + time.perf_counter() - start)
        host = sum(p.nbytes for p in target if isinstance(p, np.ndarray))
        return self.builder.commit(), host

    def _reads(self, plan: Plan, j: int) -> tuple[bool, bool]:
        """Whether sub-frame ``j``'s depth and velocity are drawn and read back: every
        sub-frame's where --dof depth, --reconstruct (then the drawer has no ``passes``) or
        --keep-samples reads them, else only those of the sub-frames --passes keeps, one a
        frame (was: every one's, a render with passes 1.5x a plain one's time); the others
        draw their colour alone, as a render without passes (was: the GL drew both planes
        for each). A plane the slot lacks is read into none either way."""
        if self.passes is None or self.config.keep_samples is not None:
            return True, True
        if self._kept[0] is not plan:
            self._kept = plan, self.passes.kept(plan)
        kept = bool(self._kept[1][j])
        return kept or self.dof == "depth", kept

    def _pixel_offset(self, plan: Plan, j: int, index: int) -> tuple[float, float]:
        """Sub-frame ``j``'s antialiasing offset: its place in its window's pattern, of as
        many points as the window draws (``--samples auto``: its count, the first slots)."""
        s = self.stream
        n, i = s.per_output, (s.first_frame * s.step + index) % s.per_output
        if plan.drawn is not None:  # (windows of at most 360 degrees: they do not overlap)
            start = j - j % n
            n = int(plan.drawn[start:start + n].sum())
        x, y = pixel_offsets(n)[i] - _weighted_centre(plan, j, n)
        return float(x), float(y)

    def _picture_shift(self, jit: tuple[float, float]) -> tuple[float, float]:
        """Where the antialiasing offset ``jit`` moved the sub-frame's picture, in its pixels
        (x, y down; what reconstruction warps from): a perspective camera's frustum and a
        shader's fragCoord move by ``jit`` (y up), so the picture moves the other way; an
        orthographic camera's projection moves the picture itself."""
        sign = 1.0 if self.mesh and self.scene.camera.orthographic else -1.0
        return sign * jit[0], -sign * jit[1]

    def _watch_white(self, t: float) -> None:
        bright = past_white(self.scene)
        if bright is not None:
            self.watch_white = False
            said = spelling().said  # (the flags, or hf.render's keywords: hdr='on')
            log.warning("at t=%.3f s %s: the sub-frames are 8-bit (%s saw nothing past white "
                        "at t = 0, the animation's start), so its light is clipped before the "
                        "blur; render with %s to keep it", t, bright, said("hdr", "auto"),
                        said("hdr", "on"))

    def _watch_slow(self, took: float) -> None:
        """Said once: a sub-frame that took over :data:`SLOW_DRAW_S` to draw, and the time
        the sub-frames of this run take at that pace (a still shows no progress until it is
        done: a slow shader looked like a hang)."""
        if took <= SLOW_DRAW_S:
            return
        self.watch_slow = False
        source = getattr(self.scene, "source_path", None)
        what = Path(source).name if not self.mesh and source else "the scene"
        n = self.stream.subframes
        log.warning("one sub-frame took %.1f s to draw (the GL drawing %s: not a hang); "
                    "this run draws %d sub-frame%s for %d frame%s, about %s at that pace (a "
                    "smaller %s or fewer %s draws faster)", took, what, n, "s" * (n != 1),
                    self.stream.count, "s" * (self.stream.count != 1), span(n * took),
                    spelling().name("size"), spelling().name("samples"))

    def skip(self, plan: Plan, j: int) -> Any:
        """Sub-frame ``j``'s slot left undrawn (``--samples auto``: a window of fewer
        sub-frames than it holds; its weight is 0; its time NaN: drawn at no time, which a
        sample store reads as "skip"). Returns the full hyperframe or None."""
        target = self.builder.reserve(float("nan"), self._depth_lens())
        # float colour (--hdr) too: a slot's old bytes may read as NaN, which a weight of
        # 0 does not take away (and the fusion's check refuses)
        color = target.color if self.renderer.target.hdr else None
        for plane, value in ((color, 0.0), (target.depth, np.inf), (target.velocity, 0.0)):
            if plane is not None:  # valid, though weightless: sky, still
                _fill(plane, value)
        return self.builder.commit()

    def _depth_lens(self) -> Any:
        """The camera's thin lens as it is now, for ``--dof depth`` (None otherwise)."""
        if self.dof != "depth":
            return None
        config = self.config
        return self.scene.camera.lens(config.max_coc_px, aspect=config.size[0] / config.size[1],
                                      pinhole=True)  # (f_stop None at this time: sharp)

    def _clip_rates(self, t: float, k: int, offset: tuple, jit: tuple) -> np.ndarray:
        """d/dt of every object's clip matrix at ``t``; the scene is left at ``t``."""
        scene, h = self.scene, VELOCITY_DT
        mats, objects = [], []
        for when in (t - h, t + h):
            call_scene(scene, "update(t)", scene.update, when, t=when, frame=k)
            mats.append(call_scene(scene, "drawing", self.renderer.clip_matrices, offset, jit,
                                   t=t, frame=k))  # (a parent not in the scene: as drawn)
            objects.append(list(scene.objects))
        call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
        return clip_rates(mats[0], mats[1], 2 * h, (*objects, scene.objects))

    def _lens_offset(self, plan: Plan, j: int, t: float, k: int) -> tuple[float, float]:
        """The camera as update(t) left it, checked at every sub-frame; its offset across
        the aperture in lens mode."""
        camera = self.scene.camera
        call_scene(self.scene, "the camera", camera.validate, t=t, frame=k)
        if self.dof != "lens":
            return (0.0, 0.0)
        radius = camera.aperture_radius_m()
        return (float(plan.lens[j, 0]) * radius, float(plan.lens[j, 1]) * radius)


def _weighted_centre(plan: Plan, j: int, n: int) -> np.ndarray:
    """Where the pattern of ``n`` points sits once weighted by the shutter curve of the
    window holding sub-frame ``j`` (its slots take the pattern in order): taken off every
    offset, so that an edge stays where it is (a triangle or gaussian curve weighs the
    pattern's points unevenly: edges moved up to 0.1 px with the sample count, a trial).
    0 for a flat curve (bit for bit as before) and for overlapping windows (a sub-frame in
    several, each its own weights)."""
    if plan.overlap or n < 2:
        return np.zeros(2)
    k = int(np.searchsorted(plan.weights.starts, j, side="right")) - 1
    w = plan.weights.rows[k][:n]
    if k < 0 or not w.any() or np.all(w == w[0]):
        return np.zeros(2)
    return (w[:, None] * pixel_offsets(n)).sum(axis=0) / w.sum()
