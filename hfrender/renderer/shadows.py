"""The directional light's shadows (a scene's ``shadows = True``): a shadow map drawn for
every sub-frame, before its colour, so an object that moves within the shutter casts the
shadow of where it is at that sub-frame's time (a moving shadow blurs as the object does).

The map is the depth, seen from the light, of every opaque object (opacity 1, not a
text: translucent objects and texts cast none, and every opaque one casts, whatever its
shader), drawn by the renderer's own draw of the opaque objects
(:meth:`SceneRenderer.draw_objects`: instanced shapes, models' animated parts, skins
and morphs at the same matrices as their colour) with depth-only programs: ``mesh.vert``
and a fragment shader that writes nothing. Its orthographic frustum is fitted to the
world-space boxes of the visible objects at that time (:func:`~hfrender.scene.in_view.
corners`), so the map's texels spread over the scene's extent: a floor 40 m wide makes
them 2 cm (at :data:`RESOLUTION`). The surface shaders read it through ``hf_shadow()``
(``shaders/glsl/mesh_header.frag``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.renderer.models import DEFINE, defined
from hfrender.renderer.programs import compile_program, glsl
from hfrender.scene.in_view import corners
from hfrender.scene.nodes import drawn_opacity

RESOLUTION = 2048  # the shadow map's texels a side
UNIT = 7  # the texture unit the map is read from (a sampler2DShadow: no other's unit)
OFF = {"u_shadows": 0, "u_shadow_map": UNIT}  # (set even so: samplers of two types on
#                                               unit 0 would make a model's draw an error)
_NOTHING = "#version 330 core\nvoid main() {}\n"  # depth only
_UP = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # the map's up: z, else x (light along z)


def light_frame(light: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """(view, projection, texel): the light's orthographic camera looking along
    ``-light`` (unit, towards the light) at ``points`` (N, 3, world), its box around them
    padded by 2 texels and 1% (the projection flips y, as the camera's does: the models'
    front faces wind alike); texel: one texel's size in metres (the larger side), in the
    map's s-t (1 / :data:`RESOLUTION`) and in its depth (0..1) per metre times a texel."""
    up = _UP[0] if abs(light[2]) < 0.9 else _UP[1]
    right = np.cross(up, light)
    right /= np.linalg.norm(right)
    up = np.cross(light, right)
    view = np.eye(4)
    view[:3, :3] = np.stack([right, up, light])
    seen = points @ view[:3, :3].T
    lo, hi = seen.min(0), seen.max(0)
    pad = (hi - lo) * 0.01 + 1e-3
    lo, hi = lo - pad, hi + pad
    grow = (hi[:2] - lo[:2]) * 2 / (RESOLUTION - 4)
    lo[:2], hi[:2] = lo[:2] - grow, hi[:2] + grow
    middle, half = (hi + lo) / 2, (hi - lo) / 2
    view[:3, 3] = -view[:3, :3] @ middle
    proj = np.diag([1 / half[0], -1 / half[1], -1 / half[2], 1.0])  # looks down -z
    metres = float(2 * half[:2].max() / RESOLUTION)
    return view, proj, np.array([metres, 1 / RESOLUTION, metres / (2 * half[2])])


class ShadowPass:
    """The shadow map, its framebuffer and the depth-only programs, for one renderer."""

    def __init__(self, ctx: Any) -> None:
        import moderngl

        self.ctx = ctx
        self.map = ctx.depth_texture((RESOLUTION, RESOLUTION))
        self.map.compare_func = "<="  # sampler2DShadow: 1 where the point is nearer
        self.map.filter = (moderngl.LINEAR, moderngl.LINEAR)  # 2x2 compared, weighted
        self.map.repeat_x = self.map.repeat_y = False
        self.fbo = ctx.framebuffer(depth_attachment=self.map)
        self.programs = {model: compile_program(ctx, defined(glsl("mesh.vert"), defines),
                                                _NOTHING, None)
                         for model, defines in ((False, ""), (True, DEFINE))}

    def program(self, obj: Any, model_file: bool) -> Any:
        """The depth-only program of ``obj`` (the renderer's ``_program_of``'s place)."""
        return self.programs[model_file]

    def draw(self, renderer: Any, light: np.ndarray, lens: tuple, rates: np.ndarray) -> dict:
        """Draw the map of ``renderer``'s scene as it is now, lit from ``light``; the
        uniforms its surface shaders read it by (:data:`OFF` where nothing is visible).
        ``lens``: the sub-frame's, so a sphere's mesh is the one its colour is drawn with;
        ``rates``: its clip rates, unused by the map but asked with its colour's, so a
        skinned part is posed once for both (:func:`~hfrender.renderer.models.poser`)."""
        import moderngl

        seen = [corners(obj)[:, :3] for obj in renderer.scene.objects if drawn_opacity(obj) > 0]
        if not seen:
            return OFF
        view, proj, texel = light_frame(light, np.concatenate(seen))
        ctx = self.ctx
        self.fbo.use()
        ctx.viewport = (0, 0, RESOLUTION, RESOLUTION)
        self.fbo.clear(depth=1.0)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE)
        ctx.polygon_offset = (1.0, 1.0)  # slope-scaled, with the shaders' own bias
        try:
            renderer.draw_objects({"u_view": view, "u_proj": proj}, lens, self.program, rates)
        finally:
            ctx.polygon_offset = (0.0, 0.0)
        self.map.use(UNIT)
        to_map = np.diag([0.5, 0.5, 0.5, 1.0])
        to_map[:3, 3] = 0.5
        return {"u_shadows": 1, "u_shadow_map": UNIT, "u_light_matrix": to_map @ proj @ view,
                "u_shadow_texel": tuple(texel.tolist())}

    def release(self) -> None:
        for obj in [*self.programs.values(), self.fbo, self.map]:
            obj.release()


def shadow_map(renderer: Any, light: np.ndarray, lens: tuple, rates: np.ndarray) -> dict:
    """The uniforms by which ``renderer``'s surface shaders read its scene's shadow map,
    drawn for now where the scene's ``shadows`` are on (its :class:`ShadowPass` made the
    first time; ``rates``: the sub-frame's clip rates, :meth:`ShadowPass.draw`);
    :data:`OFF` where they are off."""
    if not renderer.scene.shadows:
        return OFF
    if renderer.shadows is None:
        renderer.shadows = ShadowPass(renderer.ctx)
    return renderer.shadows.draw(renderer, light, lens, rates)
