"""Angles given in degrees where hfrender reads radians, told once a render.

manim's users write ``90 * DEGREES`` and Blender's users read degrees in its panels, so a
first scene's ``rotation=(0, 45, 0)`` is meant as 45 degrees; hfrender reads radians (the
cube turned by 45 rad, 2578 degrees: a wrong picture without a word). :func:`say_degrees`
looks at every object's and group's ``rotation`` at the frame drawn first and at t = 1 s
(``90 * t`` is 0 at t = 0; where the scene's own duration reaches it, a shorter
``--duration`` given or not) and warns, in one line naming the first, of a component that is
a whole number of degrees on a 15-degree step from 15 to 1080 (45, 90, 180, 360, ...): in
radians a turn of more than two, and seldom a round one (a radian spin, ``2 * math.pi *
t``, is never a whole number at those times). At t = 1 s, where an angle is a rate's, only
the rates a degrees user writes, on a 45-degree step from 90 (``90 * t``, ``360 * t``): a
radian propeller's ``30 * t`` or a wheel's ``3 * t / 0.1`` is not told (was, a review).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

from hfrender.logs import silenced
from hfrender.scene import checks
from hfrender.scene.key_times import own_duration
from hfrender.scene.loader import SceneError, SceneUpdateError, call_scene

log = logging.getLogger(__name__)

STEP = 15.0  # degrees: what a hand-written angle in degrees is a multiple of
RATE_STEP, RATE_LEAST = 45.0, 90.0  # ... and a rate in degrees a second, from this
LARGEST = 1080.0  # three turns in degrees: past it, not taken for degrees
LOOK_AT_S = 1.0  # a second in: where "degrees a second" (90 * t) shows its rate


def degrees_like(value: float, rate: bool = False) -> bool:
    """Whether ``value`` (radians, as given) looks like an angle written in degrees
    (``rate``: one turned in 1 s, a rate's: the rounder ones a degrees user writes)."""
    size, step = abs(value), RATE_STEP if rate else STEP
    return (RATE_LEAST if rate else STEP) <= size <= LARGEST and \
        abs(size / step - round(size / step)) < 1e-9


def nodes_of(scene: Any) -> list[Any]:
    """The scene's objects and every group or object they are placed in, each once."""
    seen: dict[int, Any] = {}
    for obj in scene.objects:
        while obj is not None and id(obj) not in seen:
            seen[id(obj)] = obj
            obj = getattr(obj, "parent", None)
    return list(seen.values())


def in_degrees(scene: Any, rate: bool = False) -> tuple[str, tuple, float] | None:
    """(the scene's name for it, its rotation, the component) of the first node whose
    rotation has a :func:`degrees_like` component, or None."""
    nodes = [n for n in nodes_of(scene) if hasattr(n, "rotation")]
    for node, name in zip(nodes, checks.named(scene, nodes), strict=True):
        hit = next((v for v in node.rotation if degrees_like(float(v), rate)), None)
        if hit is not None:
            kind = type(node).__name__
            where = f"{name} (a {kind})" if name else f"the {kind} at {node.position!r}"
            return where, tuple(float(v) for v in node.rotation), float(hit)
    return None


def say_degrees(scene: Any, frame: int, fps: float, seen: Any) -> None:
    """One warning where an angle looks written in degrees, at output frame ``frame``'s
    time or at :data:`LOOK_AT_S` on ``seen``, a copy of the scene (the far look's, at any
    time: no second copy; None, no look there), which the scene drawn never sees."""
    t0 = frame / fps
    found, t = in_degrees(scene, rate=t0 != 0), t0  # (past 0, an angle may be a rate's)
    if found is None and t0 != LOOK_AT_S and LOOK_AT_S <= own_duration(scene):
        found, t = _later(seen, fps), LOOK_AT_S
    if found is None:
        return
    where, rotation, value = found
    file = Path(scene.source_path or type(scene).__name__).name
    log.warning("%s: %s has rotation=%r at t=%g s: angles are radians here (%g rad is %.3g "
                "turns); if %g degrees were meant, math.radians(%g) (manim's %g * DEGREES)",
                file, where, rotation, t, value, abs(value) / math.tau, value, value, value)


def _later(seen: Any, fps: float) -> tuple[str, tuple, float] | None:
    """:func:`in_degrees` of the copy ``seen`` at :data:`LOOK_AT_S`; None where there is no
    copy or its ``update`` refuses that time (the render says it where it draws it)."""
    if seen is None:
        return None
    try:
        with silenced():
            call_scene(seen, "update(t)", seen.update, LOOK_AT_S, t=LOOK_AT_S,
                       frame=round(LOOK_AT_S * fps))
    except (SceneError, SceneUpdateError):
        return None
    return in_degrees(seen, rate=True)
