"""The shadows of the spots with ``shadows=True`` (:class:`~hfrender.scene.lamps.SpotLight`):
a perspective depth map from each, drawn and kept as the directional light's is (a
:class:`~hfrender.renderer.shadows.ShadowPass` a spot, sharing the sun's depth-only
programs: redrawn only when its casters or the lamp move), read by ``hf_lamps()``
(``shaders/glsl/mesh_header.frag``) with the same four compared taps, normal offset and
slope bias as ``hf_shadow()``.

A spot's map looks along its axis from where it is, its field of view the cone's angle
(and two texels; at most :data:`WIDEST` degrees across: a wider cone's shadows end
there), its near and far planes fitted to the objects' boxes along the axis (near: the
casters' nearest, never under :data:`NEAREST` of far: a caster nearer is drawn at the near
plane's depth, ``GL_DEPTH_CLAMP``, not clipped), its size automatic as the sun's
(:func:`~hfrender.renderer.shadows.map_size`, where the camera sees the scene) or the
lamp's ``shadow_resolution``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.renderer.shadows import (
    SPOT_UNITS,
    TO_MAP,
    ShadowPass,
    light_axes,
    map_size,
    seen_region,
)
from hfrender.scene.lamps import MAX_LAMPS, SpotLight, lamps_of, lit_now, too_many_shadows

WIDEST = 160.0  # degrees: the widest map a spot draws
NEAREST = 1e-3  # a map's near plane at least this share of its far one (depth precision)


def shadowed(scene: Any) -> list[tuple[int, SpotLight]]:
    """The spots lit now that cast shadows, each with its place among the lit lamps (its
    row of ``hf_lamps()``' arrays); more than four with ``shadows=True`` (set in
    ``update``) refused in one line."""
    too_many_shadows(lamps_of(scene), "the scene has")
    return [(k, lamp) for k, lamp in enumerate(lit_now(scene))
            if isinstance(lamp, SpotLight) and lamp.shadows]


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
    spread *= size / (size - 4)  # (2 texels more each way: the taps at the cone's edge)
    view = np.eye(4)
    view[:3, :3] = light_axes(-aim)
    view[:3, 3] = -view[:3, :3] @ at
    proj = np.zeros((4, 4))  # (y flipped, as the sun's and the camera's)
    proj[0, 0], proj[1, 1], proj[3, 2] = 1 / spread, -1 / spread, -1.0
    proj[2, 2:] = -(far + near) / (far - near), -2 * far * near / (far - near)
    return view, proj, size, (2 * spread / size, 1 / size, near, far)


def spot_maps(sun: ShadowPass, renderer: Any, spots: list, lens: tuple,
              rates: np.ndarray, seen: list) -> dict:
    """The maps of ``spots`` (:func:`shadowed`; ``seen``: the visible objects' boxes,
    :func:`~hfrender.renderer.shadows.boxes`) drawn for now, each by a pass of ``sun``'s
    :attr:`~ShadowPass.spots` (made the first time) and bound to its unit; the uniforms
    ``hf_lamps()`` reads them by: ``u_lamp_shadow`` (a lamp's map, 1..4; 0: none),
    ``u_spot_matrix`` (world -> the map's s, t, depth, times w: the distance along the
    axis) and ``u_spot_texel`` (:func:`spot_frame`'s texel)."""
    w, h = renderer.size
    framed = [(k, spot_frame(renderer.scene, lamp, w / h, lens, seen)) for k, lamp in spots]
    framed = [(k, frame) for k, frame in framed if frame is not None]
    while len(sun.spots) < len(framed):
        sun.spots.append(ShadowPass(sun.ctx, sun.programs))
    which, matrices, texels = [0] * MAX_LAMPS, [np.eye(4)] * len(SPOT_UNITS), \
        [(0.0,) * 4] * len(SPOT_UNITS)
    for slot, (k, (view, proj, size, texel)) in enumerate(framed):  # (4 at most: shadowed)
        sun.spots[slot].keep(renderer, (view, proj, size), lens, rates, SPOT_UNITS[slot])
        which[k], matrices[slot], texels[slot] = slot + 1, TO_MAP @ proj @ view, texel
    return {"u_lamp_shadow": which, "u_spot_texel": texels,
            "u_spot_matrix": [tuple(m.T.ravel().tolist()) for m in matrices]}
