"""The shadows of the lamps with ``shadows=True`` (:class:`~hfrender.scene.lamps.SpotLight`,
:class:`~hfrender.scene.lamps.PointLight`): perspective depth maps from each, drawn and
kept as the directional light's is (a :class:`~hfrender.renderer.shadows.ShadowPass` a
lamp, sharing the sun's depth-only programs: redrawn only when its casters or the lamp
move), read by ``hf_lamps()`` (``shaders/glsl/mesh_header.frag``: ``hf_lamp_shadow()``)
with the same four compared taps, normal offset and slope bias as ``hf_shadow()``.

A spot's map looks along its axis from where it is, its field of view the cone's angle
(and two texels; at most :data:`WIDEST` degrees across: a wider cone's shadows end
there), its near and far planes fitted to the objects' boxes along the axis (near: the
casters' nearest, never under :data:`NEAREST` of far: a caster nearer is drawn at the near
plane's depth, ``GL_DEPTH_CLAMP``, not clipped), its size automatic as the sun's
(:func:`~hfrender.renderer.shadows.map_size`, where the camera sees the scene) or the
lamp's ``shadow_resolution``.

A point lamp's map is six such maps of 90 degrees (and two texels), one along each of
the world's axes (:data:`FACES`: a cube's faces), in one texture of 3 x 2 of them
(:func:`~hfrender.renderer.shadows.tiles`), their near and far planes fitted to the
objects' boxes' distances along the axes (:func:`point_frame`); what lies within the
lamp's ``radius`` casts nothing (its bulb). Each face draws the casters whose box meets
its frustum alone (:func:`~hfrender.renderer.shadows.outside`; a spot's map too). Its
faces' size is automatic (within :data:`POINT_SIZES`: six faces of 1024 are 25 MB of
depth, of 4096 400 MB) or its ``shadow_resolution``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.renderer.shadows import (
    SPOT_MAPS,
    SPOT_UNITS,
    TO_MAP,
    ShadowPass,
    light_axes,
    map_size,
    seen_region,
)
from hfrender.scene.lamps import MAX_LAMPS, Lamp, SpotLight, lit_now

WIDEST = 160.0  # degrees: the widest map a spot draws
NEAREST = 1e-3  # a map's near plane at least this share of its far one (depth precision)
FACES = np.array([(1.0, 0, 0), (-1.0, 0, 0), (0, 1.0, 0), (0, -1.0, 0), (0, 0, 1.0),
                  (0, 0, -1.0)])  # a point lamp's faces' ways (mesh_header.frag's order)
CUBE_AXES = np.stack([light_axes(-way) for way in FACES])  # their right, up, back (rows)
POINT_SIZES = (512, 1024)  # the least and most texels a side of a point lamp's face


def shadowed(scene: Any) -> list[tuple[int, Lamp]]:
    """The lamps lit now that cast shadows, each with its place among the lit lamps (its
    row of ``hf_lamps()``' arrays; more than four refused by
    :func:`~hfrender.renderer.lamps.lamp_uniforms`, drawn first)."""
    return [(k, lamp) for k, lamp in enumerate(lit_now(scene)) if lamp.shadows]


def _perspective(spread: float, size: int, near: float, far: float) -> tuple:
    """(projection, texel) of a map ``spread`` (the tangent of half its angle) across,
    widened by 2 texels each way (the taps at its edge), looking down -z (y flipped, as
    the sun's and the camera's)."""
    spread *= size / (size - 4)
    proj = np.zeros((4, 4))
    proj[0, 0], proj[1, 1], proj[3, 2] = 1 / spread, -1 / spread, -1.0
    proj[2, 2:] = -(far + near) / (far - near), -2 * far * near / (far - near)
    return proj, (2 * spread / size, 1 / size, near, far)


def spot_frame(scene: Any, lamp: SpotLight, aspect: float, lens: tuple,
               seen: list[tuple[np.ndarray, bool]]) -> tuple | None:
    """(view, projection, size, texel) of ``lamp``'s map of ``scene`` as it is now
    (``seen``: its visible objects' boxes, :func:`~hfrender.renderer.shadows.boxes`);
    texel: (a texel's metres 1 m along the axis, its share of the map, near, far). None
    where no opaque object lies in front of the lamp."""
    at, aim = lamp.world_position(), lamp.aim()
    along = [((box - at) @ aim, cast) for box, cast in seen]  # (each box's, once)
    ahead = [d for d, cast in along if cast]
    if not ahead or max(float(d.max()) for d in ahead) <= 0.0:
        return None
    far = float(max(d.max() for d, _ in along)) * 1.01
    near = max(min(float(d.min()) for d in ahead) * 0.99, far * NEAREST)
    spread = math.tan(math.radians(min(lamp.angle, WIDEST)) / 2)
    cam, (eye, forward, pixels) = scene.camera, lens
    middle = float(np.clip(np.median((seen_region(cam, aspect, np.concatenate(
        [box for box, _ in seen])) - at) @ aim), near, far))
    depth = float((at + aim * middle - np.asarray(eye)) @ np.asarray(forward))
    size = map_size(cam, lamp.shadow_resolution, 2 * spread * middle, depth, pixels)
    view = np.eye(4)
    view[:3, :3] = light_axes(-aim)
    view[:3, 3] = -view[:3, :3] @ at
    proj, texel = _perspective(spread, size, near, far)
    return view, proj, size, texel


def point_frame(scene: Any, lamp: Lamp, aspect: float, lens: tuple,
                seen: list[tuple[np.ndarray, bool]]) -> tuple | None:
    """(views, projection, size, texel, sphere) of point ``lamp``'s map of ``scene`` as it
    is now (``seen``: :func:`spot_frame`'s): its six faces' views (:data:`FACES`), their
    one projection (90 degrees), their size and texel (:func:`spot_frame`'s) and the
    sphere within which nothing casts (where it is, its ``radius``). Its near and far
    planes: the boxes' least and most distances along the axes (the casters' least, never
    under the radius's least beyond it nor :data:`NEAREST` of far). None where no opaque
    object is visible."""
    at, casters = lamp.world_position(), [box for box, cast in seen if cast]
    far = max((float(np.abs(box - at).max()) for box, _ in seen), default=0.0) * 1.01
    if not casters or far <= 0.0:
        return None
    gap = min(float(np.maximum(0.0, np.maximum(box.min(0) - at, at - box.max(0))).max())
              for box in casters)  # (a caster's box's least distance along the axes)
    near = max(max(gap, lamp.radius / math.sqrt(3)) * 0.99, far * NEAREST)
    cam, (eye, forward, pixels) = scene.camera, lens
    region = seen_region(cam, aspect, np.concatenate([box for box, _ in seen]))
    middle = float(np.clip(np.median(np.abs(region - at).max(1)), near, far))
    depth = float(np.median((region - np.asarray(eye)) @ np.asarray(forward)))
    size = map_size(cam, lamp.shadow_resolution, 2 * middle, depth, pixels, POINT_SIZES)
    views = np.tile(np.eye(4), (len(FACES), 1, 1))
    views[:, :3, :3], views[:, :3, 3] = CUBE_AXES, -CUBE_AXES @ at
    proj, texel = _perspective(1.0, size, near, far)
    return views, proj, size, texel, (*at.tolist(), float(lamp.radius))


def lamp_maps(sun: ShadowPass, renderer: Any, lamps: list, lens: tuple,
              rates: np.ndarray, seen: list) -> dict:
    """The maps of ``lamps`` (:func:`shadowed`; ``seen``: the visible objects' boxes,
    :func:`~hfrender.renderer.shadows.boxes`) drawn for now, each by a pass of ``sun``'s
    :attr:`~ShadowPass.spots` (made the first time) and bound to its unit; the uniforms
    ``hf_lamps()`` reads them by: ``u_spot_map0..3`` (their units, :data:`SPOT_MAPS`:
    every sub-frame, as :data:`~hfrender.renderer.shadows.OFF` sets them; was left out
    where the sun's map was drawn too, so a program that had drawn no sub-frame without
    it read texture unit 0, whatever was bound there), ``u_lamp_shadow`` (a lamp's map,
    1..4; 0: none),
    ``u_spot_matrix`` (world -> the map's s, t, depth, times w: the distance along the
    axis; a point lamp's from its face's frame, ``u_cube_axes`` times the way from the
    lamp) and ``u_spot_texel`` (:func:`spot_frame`'s texel)."""
    w, h = renderer.size
    framed = [(k, (spot_frame if isinstance(lamp, SpotLight) else point_frame)(
        renderer.scene, lamp, w / h, lens, seen)) for k, lamp in lamps]
    framed = [(k, frame) for k, frame in framed if frame is not None]
    while len(sun.spots) < len(framed):
        sun.spots.append(ShadowPass(sun.ctx, sun.programs))
    which, matrices, texels = [0] * MAX_LAMPS, [np.eye(4)] * len(SPOT_UNITS), \
        [(0.0,) * 4] * len(SPOT_UNITS)
    for slot, (k, frame) in enumerate(framed):  # (4 at most: shadowed)
        sun.spots[slot].keep(renderer, frame[:3] + frame[4:], lens, rates, SPOT_UNITS[slot],
                             seen)
        view = frame[0] if frame[0].ndim == 2 else np.eye(4)  # (a face's: in the shader)
        which[k], matrices[slot], texels[slot] = slot + 1, TO_MAP @ frame[1] @ view, frame[3]
    return {**SPOT_MAPS, "u_lamp_shadow": which, "u_spot_texel": texels,
            "u_spot_matrix": [tuple(m.T.ravel().tolist()) for m in matrices],
            "u_cube_axes": [tuple(a.T.ravel().tolist()) for a in CUBE_AXES]}
