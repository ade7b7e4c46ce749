"""Lamps: point and spot lights (Blender's Point and Spot lamps), added with ``self.add``
as objects are, set from ``t`` in ``update(t)`` as objects are, and placed in a parent's
frame (``parent=group``) as objects are. They light the ``lambert`` and ``toon`` surfaces
(and a scene's own shader through ``hf_lamps()``) on top of the scene's directional light;
they are not drawn themselves. Any number are added; up to :data:`MAX_LAMPS` light at a
time (:func:`lit_at`). A lamp with ``shadows=True`` casts shadows (up to
:data:`MAX_SHADOWED` lit at a time, spots and point lamps together: a spot a perspective
depth map, a point lamp six of 90 degrees, one a face of a cube, in one texture;
:mod:`hfrender.renderer.lamp_shadows`).
The renderer's side: uniform arrays, :mod:`hfrender.renderer.lamps`.

Units: ``intensity`` is the light a surface facing the lamp 1 m away receives, in the
scene's linear units (1: a white surface there shows white, as the directional light at
full strength shows it), falling off as the inverse square of the distance, never nearer
than ``radius`` (``max(d, radius)``: no infinite light at the lamp).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hfrender.color import display_color, srgb_color
from hfrender.errors import InputError
from hfrender.scene import checks
from hfrender.scene.nodes import PLACE_CHECKS, Placed, groups_opacity

log = logging.getLogger(__name__)
_SAID: set[tuple[str, str, int]] = set()  # idle shadow settings, said once (say_idle_shadows)
MAX_LAMPS = 8  # lit at a time: the shaders' arrays (shaders/glsl/mesh_header.frag: HF_MAX_LAMPS)
MAX_SHADOWED = 4  # lit lamps casting shadows at a time (mesh_header.frag: u_spot_map0..3)
POINT_MOST = 4096  # a point lamp's shadow_resolution at most (its map: 3 x 2 faces)
DOWN = (0.0, -1.0, 0.0)  # a spot's direction unless given (y is up; Blender's points down)


@dataclass(eq=False)
class Lamp(Placed):
    """A light at ``position`` (metres; in its ``parent``'s frame where it has one) of
    ``color`` (a display colour, as an object's) times ``intensity`` (>= 0: the light on a
    surface facing it 1 m away), falling off as 1 / max(d, radius)^2. ``visible = False``
    switches it off (so does a hidden Group it lies in; a Group's ``opacity`` scales its
    light, 0 off, as it fades the Group's objects). Never drawn: a lamp is seen by
    what it lights. ``shadows``: cast by the opaque objects (a point lamp's by those
    beyond its ``radius``: not its bulb), its map ``shadow_resolution`` texels a side (a
    point lamp's each of its six faces; None: from the output's size; without shadows
    warned of: :func:`say_idle_shadows`)."""

    position: tuple = (0.0, 0.0, 0.0)
    color: tuple = (1.0, 1.0, 1.0)
    intensity: float = 1.0
    radius: float = 0.1
    visible: bool = True
    parent: Placed | None = field(default=None, kw_only=True, repr=False)
    shadows: bool = field(default=False, kw_only=True)
    shadow_resolution: int | None = field(default=None, kw_only=True)

    rotation = (0.0, 0.0, 0.0)  # the frame it gives a child: its place alone
    scale = 1.0

    @classmethod
    def value_checks(cls) -> dict:
        return _CHECKS

    def world_position(self) -> np.ndarray:
        """Where it is in the world (its parents' frames in)."""
        frame, own = self._parents_frame(), np.asarray(self.position, np.float64)
        return own if frame is None else frame[:3, :3] @ own + frame[:3, 3]

    def linear_light(self) -> np.ndarray:
        """Its colour in linear light times its intensity and the opacity of the Groups it
        lies in (:func:`~hfrender.scene.nodes.groups_opacity`: a group faded to 0.5 halves
        its lamps' light, as it halves its objects' opacity; hidden, or faded to 0: none);
        0 while it is not ``visible``."""
        share = groups_opacity(self) * self.intensity if self.visible else 0.0
        return np.asarray(srgb_color(tuple(self.color[:3])), np.float64) * share


@dataclass(eq=False)
class PointLight(Lamp):
    """A lamp shining every way (Blender's Point lamp); with ``shadows=True`` its map is
    six 90-degree faces (a cube's), each ``shadow_resolution`` (256..:data:`POINT_MOST`)
    texels a side."""

    @classmethod
    def value_checks(cls) -> dict:
        return _POINT_CHECKS


@dataclass(eq=False)
class SpotLight(Lamp):
    """A lamp shining in a cone (Blender's Spot lamp): along ``direction`` (in its parent's
    frame), or at ``target`` where one is given (a point in the world, or an object or
    group: its place), ``angle`` degrees across (Blender's Spot Size, 0..180), its edge
    softened over ``blend`` (0..1: 0 sharp, 1 from the axis out; Blender's Blend)."""

    direction: tuple = DOWN
    target: Any = None
    angle: float = 45.0
    blend: float = 0.15

    def aim(self) -> np.ndarray:
        """The unit direction it shines along, in the world."""
        if self.target is not None:
            at = self.target
            at = at._frame()[:3, 3] if isinstance(at, Placed) else np.asarray(at, np.float64)
            way = at - self.world_position()
        else:
            frame = self._parents_frame()
            way = np.asarray(self.direction, np.float64)
            way = way if frame is None else frame[:3, :3] @ way
        length = float(np.linalg.norm(way))
        return way / length if length > 0 else np.asarray(DOWN)  # (at its target: down)


def _direction(what: str, value: object) -> tuple:
    way = checks.vector3(what, value, "(x, y, z) the spot shines along")
    if not math.hypot(*way) > 0.0:
        raise InputError(f"{what}={checks.shown(value)} has no direction (a length of 0); "
                         "give (x, y, z) the spot shines along, or a target")
    return way


def _target(what: str, value: object) -> object:
    if value is None or isinstance(value, Placed):
        return value
    return checks.vector3(what, value, "(x, y, z): a point to shine at (or an object, or "
                          "None)")


def _angle(what: str, value: object) -> float:
    value = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
    if not (checks.real(value) and 0.0 < value < 180.0):
        raise InputError(f"{what}={checks.shown(value)} must be a number of degrees between "
                         "0 and 180, both left out (the cone's full angle: Blender's Spot "
                         "Size)")
    return float(value)


def _resolution(what: str, value: object) -> int | None:
    from hfrender.scene import shadow_resolution  # (the scene's own rule: at run time)

    return shadow_resolution(what, value)


def _point_resolution(what: str, value: object) -> int | None:
    from hfrender.scene import shadow_resolution

    return shadow_resolution(what, value, POINT_MOST, " (each of its map's six faces)")


def _radius(what: str, value: object) -> float:
    """A lamp's radius: a size, and past 1e18 the places' and sizes' line, as an object's
    (1e39 was taken: its square infinite in float32, the lamp gave no light)."""
    radius = checks.finite(what, value, low=0.0, meaning="metres: the light is never "
                           "nearer than this")
    checks.drawable(what, value, [radius])
    return radius


_CHECKS = {
    "position": PLACE_CHECKS["position"],
    "color": lambda what, v: display_color(v, what),
    "intensity": lambda what, v: checks.finite(what, v, low=0.0, meaning="the light on a "
                                               "surface facing the lamp 1 m away",
                                               brightness=True),
    "radius": lambda what, v: _radius(what, v),
    "visible": checks.flag,
    "direction": _direction,
    "target": _target,
    "angle": _angle,
    "blend": lambda what, v: checks.fraction(what, v, "0 a sharp edge, 1 soft from the axis "
                                             "out"),
    "shadows": checks.flag,
    "shadow_resolution": _resolution,
}
_POINT_CHECKS = {**_CHECKS, "shadow_resolution": _point_resolution}


def lamps_of(scene: Any) -> list[Lamp]:
    """The lamps added to ``scene``, in the order added."""
    return scene.__dict__.get("_lamps", [])


def put(scene: Any, lamp: Lamp) -> None:
    """``lamp`` added to ``scene`` (as many as wanted: :data:`MAX_LAMPS` counts those lit
    at a time, :func:`lit_at`; was: every lamp added, a street of 12 keyed on and off 8 at
    a time refused at the 9th)."""
    scene.__dict__.setdefault("_lamps", []).append(lamp)


def lit_at(scene: Any, t: float) -> list[Lamp]:
    """:func:`lit_now`, the scene at ``t``; more than :data:`MAX_LAMPS` of them, or more
    than :data:`MAX_SHADOWED` with shadows among them, refused in one line naming
    ``t`` and the count (the shaders' arrays and maps hold that many)."""
    lit = lit_now(scene)
    if len(lit) > MAX_LAMPS:
        raise InputError(f"at t={t:.6g} s the scene has {len(lit)} lamps lit; up to "
                         f"{MAX_LAMPS} light at once (hf.PointLight and hf.SpotLight "
                         "together): switch one off (visible=False or intensity=0) while "
                         "the others are lit")
    count = sum(lamp.shadows for lamp in lit)
    if count > MAX_SHADOWED:
        raise InputError(f"at t={t:.6g} s the scene has {count} lit lamps with shadows=True; "
                         f"up to {MAX_SHADOWED} cast shadows at once (hf.PointLight and "
                         "hf.SpotLight together, a depth map each): set shadows=False (or "
                         "visible=False) on one")
    return lit


def say_idle_shadows(scene: Any, t: float) -> None:
    """A warning, once a scene class and lamp, for each lamp with a ``shadow_resolution``
    but ``shadows=False`` as the scene is at ``t`` (was: taken without a word, and no map
    drawn: only a lamp with shadows=True draws one), and once a scene class for a
    ``light_angle`` while its ``shadows`` are off (was: taken without a word, the scene
    lit as before: the angle softens shadows that are not cast)."""
    cls, names = type(scene), checks.named(scene, lamps_of(scene))
    said = (cls.__module__, cls.__qualname__, -1)
    if scene.light_angle and not scene.shadows and said not in _SAID:
        _SAID.add(said)
        log.warning("%s.light_angle=%g softens the sun's shadows, but the scene's "
                    "shadows=False (as at t=%.6g s): it casts none, and the angle only "
                    "averages the light's n·l over its disk; set shadows = True (in the "
                    "class body, setup() or update(t)), or leave light_angle 0",
                    cls.__name__, scene.light_angle, t)
    for k, (lamp, name) in enumerate(zip(lamps_of(scene), names, strict=True)):
        said = (cls.__module__, cls.__qualname__, k)
        if lamp.shadows or lamp.shadow_resolution is None or said in _SAID:
            continue
        _SAID.add(said)
        log.warning("%s: %s.shadow_resolution=%d does nothing while its shadows=False (as "
                    "at t=%.6g s): only a lamp with shadows=True draws a map; set "
                    "shadows=True, or leave shadow_resolution None", cls.__name__,
                    name or f"its lamp {k + 1}", lamp.shadow_resolution, t)


def lit_now(scene: Any) -> list[Lamp]:
    """The lamps giving light as the scene is now: ``visible``, ``intensity`` above 0 and a
    colour not black, in no Group that is hidden or faded to opacity 0 (a Group passes its
    ``visible`` and ``opacity`` to its lamps as to its objects: :meth:`Lamp.linear_light`)."""
    return [lamp for lamp in lamps_of(scene) if lamp.linear_light().max() > 0.0]


def most_light(obj: Any, lamps: list[Lamp]) -> float:
    """The most light ``lamps`` can give a point of ``obj`` (a factor of its colour, as the
    directional light's 1 at most), where its surface is lit by them (``lambert``, its own
    or a model's default; ``toon`` cuts its bands at white, ``unlit`` takes none): each
    lamp's brightest channel over its distance squared to the box around ``obj`` (or its
    radius squared, nearer), a spot taken as lighting every way. 0 for a text (``unlit``
    unless it names a shader) and another shader."""
    from hfrender.scene.in_view import corners  # (it reads the scene package: at run time)

    if obj.shader not in (None, "lambert") or type(obj).__name__ == "Text":
        return 0.0
    box = corners(obj)[:, :3]
    lo, hi, total = box.min(0), box.max(0), 0.0
    for lamp in lamps:
        at = lamp.world_position()
        gap = float(np.linalg.norm(np.maximum(0.0, np.maximum(lo - at, at - hi))))
        total += float(lamp.linear_light().max()) / max(gap * gap, lamp.radius ** 2, 1e-8)
    return total
