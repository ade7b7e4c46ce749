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
from hfrender.scene.lamps import MAX_LAMPS, SpotLight, lit_now

POINT = -2.0  # a point lamp's cone cosine: below every cosine (lit every way)
NEAREST = 1e-8  # the least distance squared a lamp's light falls off from (radius 0)


def sun(scene: Any) -> np.ndarray:
    """The unit vector towards the directional light (``light_direction`` scaled first:
    (1e200, 1e200, 0) does not overflow)."""
    light = np.asarray(scene.light_direction, np.float64)
    light = light / (np.abs(light).max() or 1.0)
    return light / (np.linalg.norm(light) or 1.0)


def sun_uniforms(scene: Any, light: np.ndarray) -> dict:
    """The directional light's: ``u_light_dir`` (``light``, :func:`sun`), ``u_light_color``
    (its ``light_color`` in linear light x ``light_strength``: white 1 unless set, so the
    surfaces' sums are bit for bit what they were) and ``u_ambient``."""
    color = np.asarray(srgb_color(scene.light_color), np.float64) * scene.light_strength
    return {"u_light_dir": tuple(light), "u_light_color": tuple(color.tolist()),
            "u_ambient": float(scene.ambient)}


def lamp_uniforms(scene: Any) -> dict:
    """``u_lamp_count`` and, where a lamp is on (``visible``, ``intensity`` above 0), the
    arrays of :data:`MAX_LAMPS`: ``u_lamp_position`` (world xyz; w: max(radius^2,
    :data:`NEAREST`)), ``u_lamp_color`` (linear colour x intensity; w: a spot's cosine of
    half its angle, :data:`POINT` for a point lamp) and ``u_lamp_aim`` (a spot's unit
    direction; w: the cosines its edge softens over, Blender's (1 - cos) x blend)."""
    lit = lit_now(scene)
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
