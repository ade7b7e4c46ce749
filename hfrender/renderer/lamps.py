"""The scene's lights as the surface shaders read them: the directional light's direction
(``u_light_dir``), its light (``u_light_color``) and ``u_ambient``, and the lamps' uniform
arrays (``shaders/glsl/mesh_header.frag``: ``hf_lamps()``), set for every sub-frame from
the scene and the lamps as they are then (a lamp moved, dimmed or recoloured in
``update(t)`` blurs across the shutter as objects do). The scene's side:
:mod:`hfrender.scene.lamps`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.color import srgb_color
from hfrender.renderer.shadows import light_axes
from hfrender.scene.lamps import MAX_LAMPS, SpotLight, lit_at

POINT = -2.0  # a point lamp's cone cosine: below every cosine (lit every way)
NEAREST = 1e-8  # the least distance squared a lamp's light falls off from (radius 0)


def sun(scene: Any, disk: tuple = (0.0, 0.0)) -> np.ndarray:
    """The unit vector towards the directional light (``light_direction`` scaled first:
    (1e200, 1e200, 0) does not overflow); with a ``light_angle``, towards the point
    ``disk`` (x, y on the unit disk: a sub-frame's, :attr:`~hfrender.sampler.Plan.sun`) of
    the sun's disk of that angular diameter around it, mapped so that points even over the
    unit disk are even over the sun's solid angle (r^2 to 1 - cos of the angle off its
    middle); 0, the default: ``light_direction``'s, bit for bit."""
    light = np.asarray(scene.light_direction, np.float64)
    light = light / (np.abs(light).max() or 1.0)
    light = light / (np.linalg.norm(light) or 1.0)
    r2 = disk[0] * disk[0] + disk[1] * disk[1]
    if scene.light_angle == 0.0 or r2 == 0.0:
        return light
    cos = 1.0 - r2 * (1.0 - math.cos(math.radians(scene.light_angle) / 2))
    right, up, _ = light_axes(light)
    side = math.sqrt(max(0.0, 1.0 - cos * cos) / r2)  # (sin of the angle off, over r)
    return cos * light + side * (disk[0] * right + disk[1] * up)


def sun_uniforms(scene: Any, light: np.ndarray) -> dict:
    """The directional light's: ``u_light_dir`` (``light``, :func:`sun`), ``u_light_color``
    (its ``light_color`` in linear light x ``light_strength``: white 1 unless set, so the
    surfaces' sums are bit for bit what they were) and ``u_ambient``."""
    color = np.asarray(srgb_color(scene.light_color), np.float64) * scene.light_strength
    return {"u_light_dir": tuple(light), "u_light_color": tuple(color.tolist()),
            "u_ambient": float(scene.ambient)}


def lamp_uniforms(scene: Any, t: float) -> dict:
    """``u_lamp_count`` and, where lamps are lit at ``t`` (:func:`~hfrender.scene.lamps.
    lit_at`: more than :data:`MAX_LAMPS` refused in one line), the arrays of them:
    ``u_lamp_position`` (world xyz; w: max(radius^2, :data:`NEAREST`)), ``u_lamp_color``
    (linear colour x intensity x its groups' opacity; w: a spot's cosine of half its
    angle, :data:`POINT` for a point lamp) and ``u_lamp_aim`` (a spot's unit direction;
    w: the cosines its edge softens over, Blender's (1 - cos) x blend)."""
    lit = lit_at(scene, t)
    if not lit:
        return {"u_lamp_count": 0}
    rows = np.zeros((3, MAX_LAMPS, 4))
    for k, lamp in enumerate(lit):
        rows[0, k] = (*lamp.world_position(), max(lamp.radius ** 2, NEAREST))
        rows[1, k, :3], rows[1, k, 3] = lamp.linear_light(), POINT
        if isinstance(lamp, SpotLight):
            edge = math.cos(math.radians(lamp.angle) / 2)
            rows[1, k, 3] = edge
            rows[2, k] = (*lamp.aim(), (1.0 - edge) * lamp.blend)
    position, color, aim = ([tuple(row) for row in plane.tolist()] for plane in rows)
    return {"u_lamp_count": len(lit), "u_lamp_position": position, "u_lamp_color": color,
            "u_lamp_aim": aim}
