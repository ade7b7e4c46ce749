"""``--samples auto``: how many sub-frames each output frame needs, from a probe.

Three probe sub-frames per output frame, drawn with the velocity plane where its shutter
opens, at its middle and where it closes, give ``D``, the largest distance any pixel moves
while the shutter is open (a small fast object counts as much as a large one: it is a
per-pixel maximum, not an image difference; and an object that crosses into or out of the
picture while the shutter is open is seen at an end, where the middle may miss it); with
lens depth of field the largest circle of confusion ``C`` counts too, and with a scene's
``light_angle`` its sun's widest penumbra ``P`` (:mod:`hfrender.engine.penumbra`) as ``C``.
The frame draws ``N = clamp(max(ceil(D / gap), ceil((C / GAP_DOF_PX) ** 2)), MIN, MAX)``
sub-frames, ``gap`` being what the quality harness (``benchmarks/quality.py``) shows is
enough: :data:`GAP_RECON_PX` between sub-frames when reconstruction fills the motion
between them, :data:`GAP_PLAIN_PX` without it. Lens positions cover the aperture's disc,
so their spacing shrinks with the square root of N.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.config import MAX_SAMPLES, ConfigError
from hfrender.engine.draw import SubframeDrawer
from hfrender.engine.penumbra import penumbra_px
from hfrender.engine.strobe_scan import first_strobe, hint_frames
from hfrender.errors import HFRenderError, spelling
from hfrender.renderer.renderer import SceneRenderer
from hfrender.sampler import SampleSchedule
from hfrender.scene import ShaderScene, past_white
from hfrender.scene.loader import call_scene

log = logging.getLogger(__name__)

# pixels of motion between sub-frames, with reconstruction: the largest gap whose worst
# frame stays near 1 dB above 45 dB on the quality harness (`quality.py --gaps`: 4 px
# 46.5 dB, 6 px 46.0 dB, 8 px 45.7 dB with one sample per pixel; 49.7 dB at 6 px with 4)
GAP_RECON_PX = 6.0
GAP_PLAIN_PX = 1.0  # without it (plain sampling strobes beyond about a pixel)
GAP_DOF_PX = 4.0  # spacing of lens positions across the largest circle of confusion
JUMP = 2  # motion past this many picture sides while the shutter is open: a jump (a cut)
# sub-frames this far apart at a frame's fastest pixels show as copies: said (motion_hint)
COPIES_PLAIN_PX = 8.0
COPIES_RECON_PX = 4 * GAP_RECON_PX
HINT_WIDTH = 640  # the widest probe the hint draws (at the first frame)
CLIP_WIDTH = 160  # and at the frames spread over the rest (strobe_scan: ~4 ms a frame)


def needed(displacement_px: float, coc_px: float, reconstruct: bool,
           bounds: tuple[int, int]) -> int:
    """Sub-frames for a frame whose pixels move up to ``displacement_px`` over the shutter
    and blur up to ``coc_px`` (lens depth of field; 0 without)."""
    gap = GAP_RECON_PX if reconstruct else GAP_PLAIN_PX
    n = max(math.ceil(displacement_px / gap), math.ceil((coc_px / GAP_DOF_PX) ** 2), 1)
    return int(min(max(n, bounds[0]), bounds[1]))


class SampleProbe:
    """``probe(first, count)``: the sub-frames each of those output frames needs (call it
    from the thread that owns the GL context)."""

    def __init__(self, ctx: Any, scene: Any, config: Any, schedule: SampleSchedule,
                 dof: str, reconstruct: bool, size: tuple[int, int] | None = None) -> None:
        self.scene, self.config, self.schedule = scene, config, schedule
        self.dof, self.reconstruct = dof, reconstruct
        self.size = size or config.size  # (a hint's probe: smaller, its speeds scaled back)
        self.renderer = SceneRenderer(ctx, scene, self.size, True, with_velocity=True)
        self.renderer.prepare()
        self.drawer = SubframeDrawer(scene, self.renderer, None, None, config, dof, True)
        self.drawer.watch_dof = False  # (the render's own drawer says it, once)
        w, h = self.size
        self._color = np.empty((h, w, 4), np.uint8)
        self._depth = np.empty((h, w), np.float32)
        self._velocity = np.empty((h, w, 2), np.float32)
        self.probes = 0
        self.capped = 0  # frames that wanted more than --samples-range allows
        self.wanted: tuple[int, int, str] = (0, 0, "")  # the most: (count, frame, cause)
        self._last: tuple[float, tuple[float, float, float]] = (math.nan, (0.0, 0.0, 0.0))

    def __call__(self, first: int, count: int) -> np.ndarray:
        spans = self.schedule.shutter_spans(first + np.arange(count))
        return np.array([self._frame(first + i, spans[i]) for i in range(count)])

    def _frame(self, k: int, span: np.ndarray) -> int:
        """The sub-frames frame ``k`` needs, from probes where its shutter (``span``, open
        and close times) opens, is half open and closes."""
        open_, close = float(span[0]), float(span[1])
        times = (open_, 0.5 * (open_ + close), close) if close > open_ else (open_,)
        seen = [self._last[1] if t == self._last[0] else self._one(k, t) for t in times]
        self._last = (times[-1], seen[-1])  # a 360-degree shutter opens where the last closed
        speed, coc, sun = np.max(seen, axis=0)
        motion = needed(speed * (close - open_), 0.0, self.reconstruct, (1, 10**9))
        if coc and _float_light(self.config, self.scene):
            coc *= 2  # float copies of a light past white stay apart: half the spacing
        blur = needed(0.0, coc, self.reconstruct, (1, 10**9))
        soft = needed(0.0, sun, self.reconstruct, (1, 10**9))  # the sun's points: as the lens's
        lo, hi = self.config.samples_range
        most, cause = max((motion, "motion"), (blur, "blur"), (soft, "soft shadows"))
        if most > hi:  # told once, at the end
            self.capped += 1
            self.wanted = max(self.wanted, (most, k, cause))
        return min(max(most, lo), hi)  # needed() of them all, within the range

    def told(self) -> str | None:
        """What the range's cap left short (None: nothing): the frames it capped, the most
        one wanted, and what gives it."""
        if not self.capped:
            return None
        want, k, cause = self.wanted
        lo, hi = self.config.samples_range
        spell, frames = spelling(), f"{self.capped} frame{'s' if self.capped > 1 else ''}"
        said = (f"{frames} wanted more sub-frames than {spell.name('samples_range')} allows "
                f"({hi}), frame {k} the most: about {want}, for its {cause}, so they may show "
                "steps; ")
        depth = spell.said("dof", "depth")
        if want > MAX_SAMPLES:  # past any range: a jump between two probes, or a blur
            return said + (f"more than any count ({MAX_SAMPLES}): a cut between two "
                           "sub-frames (nothing to mend: its frame draws the most) or an "
                           "object faster than they can follow" if cause == "motion" else
                           f"more than any count ({MAX_SAMPLES}): give {depth}"
                           if cause == "blur" else f"more than any count ({MAX_SAMPLES}): "
                           "a smaller light_angle")
        other = {"blur": f", or {depth}", "soft shadows": ""}.get(
            cause, "" if self.reconstruct else f", or {spell.said('reconstruct', 'on')}")
        return said + f"raise the cap ({spell.said('samples_range', f'{lo}:{want}')}){other}"

    def _one(self, k: int, t: float) -> tuple[float, float, float]:
        """(the largest speed in pixels per second, the largest circle of confusion, the
        widest penumbra of the sun's soft shadows: :func:`penumbra_px`) in a probe
        sub-frame at time ``t``."""
        scene, w, h = self.scene, *self.size
        call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
        self.renderer.draw(t, k, clip_rates=self.drawer._clip_rates(t, k, (0.0, 0.0),
                                                                     (0.0, 0.0)))
        self.renderer.read_into(self._color, self._depth, self._velocity)
        self.probes += 1
        speed = float(np.sqrt((self._velocity.astype(np.float64) ** 2).sum(-1)).max())
        coc = 0.0
        if self.dof == "lens":
            lens = scene.camera.lens(None, aspect=w / h, pinhole=True)
            finite = self._depth[np.isfinite(self._depth)]
            if finite.size:
                coc = float(np.max(lens.coc_px(finite, w)))
        return speed, coc, penumbra_px(self.renderer, self._depth)

    def release(self) -> None:
        """The GL objects go; what the cap left short is said, once a render."""
        self.renderer.release()
        said = self.told()
        if said is not None:
            log.warning("%s", said)
            self.capped = 0


def adaptive_probe(ctx: Any, scene: Any, config: Any, schedule: SampleSchedule, dof: str,
                   reconstruct: bool, first: int = 0, count: int = 1) -> SampleProbe | None:
    """The probe of a ``--samples auto`` render (None for a fixed count, after a hint
    where lens depth of field at frame ``first`` wants many more: :func:`lens_hint`, or
    motion in its frames ``first .. first + count - 1``: :func:`motion_hint`; ``count``
    0: no hint, a Ray chunk's whose first chunk gives them)."""
    if config.samples != "auto":
        if count < 1:
            return None
        if dof == "lens" and not isinstance(scene, ShaderScene):
            lens_hint(ctx, scene, config, schedule, first)
        if not isinstance(scene, ShaderScene) and config.max_samples > 1:
            motion_hint(ctx, scene, config, schedule, reconstruct, first, count)
        return None
    if isinstance(scene, ShaderScene):
        said = spelling()
        raise ConfigError(f"{said.said('samples', 'auto')}: {Path(scene.source_path).name} is "
                          "a fragment shader, with no velocity to measure its motion by; give "
                          f"{said.form('samples', 'N')}")
    return SampleProbe(ctx, scene, config, schedule, dof, reconstruct)


def lens_hint(ctx: Any, scene: Any, config: Any, schedule: SampleSchedule, k: int) -> None:
    """A warning where frame ``k``'s largest circle of confusion (its depth at the middle
    of its shutter, drawn at the render's size: at a quarter of it, a lamp of 3 px was
    missed, and its copies went unsaid) spreads the
    lens positions a frame draws more than twice :data:`GAP_DOF_PX` apart: they show as
    separate copies (8 of a lamp at f/1.4), where ``--samples auto`` or ``--dof depth``
    blur it smoothly."""
    w, h = config.size
    renderer = SceneRenderer(ctx, scene, (w, h), True)
    try:
        renderer.prepare()
        span = schedule.shutter_spans(np.array([k]))[0]
        t = 0.5 * float(span[0] + span[1])
        call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
        depth = np.empty((h, w), np.float32)
        renderer.draw(t, k)
        renderer.read_into(np.empty((h, w, 4), np.uint8), depth)
    finally:
        renderer.release()
    finite = depth[np.isfinite(depth)]
    lens = scene.camera.lens(None, aspect=w / h, pinhole=True)
    coc = float(np.max(lens.coc_px(finite, w))) if finite.size else 0.0
    count = config.max_samples
    if _float_light(config, scene):
        _bright_hint(k, coc, count)
        return
    want, said = needed(0.0, coc, False, (1, 10**9)), spelling()
    depth = said.said("dof", "depth")
    if count == 1 and coc > 2 * GAP_DOF_PX:
        log.warning("frame %d blurs up to %.0f px (its largest circle of confusion), but one "
                    "sample is one lens position, its centre: no depth of field; %s, or %s "
                    "(from one sample)", k, coc, said.said("samples", max(8, want)), depth)
    elif coc / math.sqrt(count) > 2 * GAP_DOF_PX:
        auto = _auto(want, config.samples_range)
        fix = (f"{auto} or {depth} blur it smoothly" if auto else
               f"{depth} blurs it smoothly (about {want} lens positions would)")
        log.warning("frame %d blurs up to %.0f px (its largest circle of confusion): %d lens "
                    "positions show as copies about %.0f px apart; %s", k, coc, count,
                    coc / math.sqrt(count), fix)


def motion_hint(ctx: Any, scene: Any, config: Any, schedule: SampleSchedule,
                reconstruct: bool, k: int, count: int = 1) -> None:
    """A warning, once, where the frames ``k .. k + count - 1``'s fastest pixels first move
    so far while the shutter is open that the render's fixed sub-frames show as separate
    copies (:data:`COPIES_PLAIN_PX` apart, or :data:`COPIES_RECON_PX` with reconstruction:
    a propeller's blades as 8 copies 19 px apart went unsaid, where lens depth of field's
    copies were said, a trial), and what would blur it. Frame ``k`` is probed at most
    :data:`HINT_WIDTH` wide (0.42 s at 1080p else), at its first, middle and last
    sub-frames' times (the render's own: not the shutter's ends, which a scene may not
    take); the frames :func:`~hfrender.engine.strobe_scan.hint_frames` spreads over the
    rest at most :data:`CLIP_WIDTH` wide, at the middle of their shutters (was: frame
    ``k`` alone, so a title at rest, then fast, strobed unsaid), and the first that shows
    copies between the last that did not and it
    (:func:`~hfrender.engine.strobe_scan.first_strobe`). A hint, so a scene that fails
    there is left to the render to say."""
    if getattr(scene, "_impure", False):  # update(t) said not a pure function of t: its
        log.debug("no motion hint: update(t) is not a pure function of t")  # state jumps
        return  # between any two times, a "jump" the warning already tells the cause of
    w, h = config.size
    samples = config.max_samples
    limit = COPIES_RECON_PX if reconstruct else COPIES_PLAIN_PX

    def strobes(moved: float) -> bool:
        return moved > JUMP * max(w, h) or moved / samples > limit

    near = _HintProbe(ctx, scene, config, schedule, reconstruct, HINT_WIDTH)
    try:
        moved, sun = near.moved(k)
    except HFRenderError as exc:  # (said by the render where it draws that time)
        log.debug("no motion hint: %s", exc)
        return
    finally:
        near.release()
    frames = hint_frames(k, count)
    found = (k, moved) if strobes(moved) else None
    if found is None and len(frames) > 1:
        far = _HintProbe(ctx, scene, config, schedule, reconstruct, CLIP_WIDTH)
        try:
            found = first_strobe(lambda j, whole: far.moved(j, whole)[0], frames, strobes)
        finally:
            far.release()
            if near.left is not None:  # the scene as frame k's probes left it (was: at the
                # last frame probed: a store kept that camera's f-stop, None, as the first's)
                t = near.left[1]
                call_scene(scene, "update(t)", scene.update, t, t=t, frame=k)
    if found is not None:
        _say_motion(*found, config, reconstruct)
    _sun_hint(k, sun, samples, config, scene.light_angle)


class _HintProbe:
    """:func:`motion_hint`'s probe, at most ``widest`` wide: ``moved(k)`` (its GL objects
    made there, so that a scene failing as they are is caught where its frames are)."""

    def __init__(self, ctx: Any, scene: Any, config: Any, schedule: SampleSchedule,
                 reconstruct: bool, widest: int) -> None:
        w, h = config.size
        self.f = max(1, math.ceil(w / widest))  # (its speeds scaled back by it)
        self.schedule, self.samples = schedule, config.max_samples
        self._make = lambda: SampleProbe(ctx, scene, config, schedule, "off", reconstruct,
                                         (max(1, w // self.f), max(1, h // self.f)))
        self.probe: SampleProbe | None = None  # (its lens: not measured here)
        self.left: tuple[int, float] | None = None

    def moved(self, k: int, whole: bool = True) -> tuple[float, float]:
        """(the pixels frame ``k`` moves while its shutter is open, its sun's widest
        penumbra) at the render's size, probed at its first, middle and last sub-frames'
        times (``whole``: its middle alone else, a third of the time)."""
        span = self.schedule.shutter_spans(np.array([k]))[0]
        open_, close = float(span[0]), float(span[1])
        step = (close - open_) / self.samples
        middle = 0.5 * (open_ + close)
        times = ((open_ + step / 2, middle, close - step / 2) if whole else (middle,)) \
            if step else ()
        self.probe = self.probe or self._make()
        seen = [self.probe._one(k, t) for t in times]
        self.left = (k, times[-1]) if times else self.left  # (the scene left there)
        speed, sun = (max((one[i] for one in seen), default=0.0) for i in (0, 2))
        return speed * self.f * (close - open_), sun * self.f

    def release(self) -> None:
        if self.probe is not None:
            self.probe.release()


def _say_motion(k: int, moved: float, config: Any, reconstruct: bool) -> None:
    """The motion hint's words for frame ``k``, whose fastest pixels move ``moved`` px
    while its shutter is open."""
    w, h = config.size
    count = config.max_samples
    if moved > JUMP * max(w, h):  # no motion a shutter blurs: a jump, which no count or
        # reconstruction smooths (was: "166667 px ... --reconstruct on blurs it", a trial)
        log.warning("frame %d: something jumps while the shutter is open (%.0f times the "
                    "picture's width at once): a cut? it shows as copies from both sides of "
                    "it; a cut falls between two frames' shutters at a frame's time k / fps "
                    "with %s, at (k + 1/2) / fps with the centred shutter (of at most 360 "
                    "degrees)", k, moved / w, spelling().said("shutter_position", "start"))
    else:
        log.warning("frame %d moves up to %.0f px while the shutter is open: its %d "
                    "sub-frames show as copies about %.0f px apart; %s", k, moved, count,
                    moved / count, _motion_fix(config, reconstruct, moved))


def _sun_hint(k: int, wide: float, count: int, config: Any, angle: float) -> None:
    """A warning where the sun's penumbra on frame ``k`` (``wide`` px: :func:`penumbra_px`)
    spreads its ``count`` points of the disk more than twice :data:`GAP_DOF_PX` apart, as
    :func:`lens_hint` says of the lens's (was: 8 copies of a shadow under light_angle 20,
    drawn without a word at the default count, a new user's trial)."""
    if wide / math.sqrt(count) <= 2 * GAP_DOF_PX:
        return
    want = needed(0.0, wide, False, (1, 10**9))
    fix = _auto(want, config.samples_range) or \
        f"{spelling().said('samples', MAX_SAMPLES)}, or a smaller light_angle"
    log.warning("frame %d's soft shadows spread up to %.0f px (light_angle %g, the sun's "
                "penumbra): its %d points of the sun's disk show as copies about %.0f px "
                "apart; %s blurs them smoothly", k, wide, angle, count,
                wide / math.sqrt(count), fix)


def _auto(want: int, samples_range: tuple[int, int]) -> str | None:
    """``--samples auto`` where it draws ``want`` sub-frames within ``samples_range``
    (``(about N here)``), else with the range that does (``--samples-range 4:N (the range
    now stops at 64)``), in the caller's spelling (hf.render's: ``samples='auto',
    samples_range='4:N'``; were the flags to it too); None past any count."""
    lo, most = samples_range
    said = spelling()
    auto = said.said("samples", "auto")
    if want <= most:
        return f"{auto} (about {want} here)"
    ranged = said.said("samples_range", f"{lo}:{want}")
    return (f"{auto}{' ' if said.flags else ', '}{ranged} (the range now stops at {most})"
            if want <= MAX_SAMPLES else None)


def _motion_fix(config: Any, reconstruct: bool, moved: float) -> str:
    """What blurs motion of ``moved`` px a frame smoothly: ``--samples auto`` (within its
    range, or the range to give it), ``--reconstruct on``."""
    want = needed(moved, 0.0, reconstruct, (1, 10**9))
    on = None if reconstruct else spelling().said("reconstruct", "on")
    ways = [w for w in (_auto(want, config.samples_range), on) if w]
    if not ways:
        return "more than any count of sub-frames would: an object faster than they follow"
    return " or ".join(ways) + (" blur it smoothly" if len(ways) > 1 else " blurs it smoothly")


def _float_light(config: Any, scene: Any) -> bool:
    """Whether the sub-frames are float (``config.hdr``, as decided) and hold light past
    white as the scene is now: its lens copies stay apart where 8-bit ones fade together."""
    return config.hdr != "off" and past_white(scene) is not None


def _bright_hint(k: int, coc: float, count: int) -> None:
    """:func:`lens_hint` for a scene with light past white (``--hdr``): each lens position's
    copy of such a light is still brighter than white where 8-bit copies would fade into
    one another, so copies show from :data:`GAP_DOF_PX` / 2 apart."""
    gap = coc / math.sqrt(count)
    if gap <= GAP_DOF_PX / 2:
        return
    want, said = math.ceil((coc / (GAP_DOF_PX / 2)) ** 2), spelling()
    log.warning("frame %d blurs up to %.0f px (its largest circle of confusion): a light "
                "brighter than white shows each of the %d lens positions as a copy about "
                "%.0f px apart (each copy still brighter than white); %s blurs it into a disc "
                "in one pass%s", k, coc, count, gap, said.said("dof", "depth"),
                f", or {said.said('samples', want)}" if want <= MAX_SAMPLES else "")
