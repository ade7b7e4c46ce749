"""Objects with an opacity below 1: drawn after every opaque one, back to front by the view
depth of their centres, blended in linear light with premultiplied alpha (``colour * a +
under * (1 - a)``, alpha ``a + under_a * (1 - a)``), depth-tested against the opaque
surfaces and writing no depth or velocity of their own.

A float target (``--hdr``) holds linear light: they blend into it as they are drawn. An
8-bit target holds sRGB codes, which blending cannot decode: they are drawn over nothing
into a float layer (as many samples as the target), and the layer, resolved, is laid over
the resolved opaque picture in linear light (``shaders/glsl/translucent.frag``; the over
operator is associative, so this is blending each in turn onto the picture). Pixels no
translucent object reaches keep their codes exactly.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from hfrender.render.programs import compile_program, glsl, set_uniform, share_once
from hfrender.render.target import Target, _resolve_program
from hfrender.scene.in_view import _named
from hfrender.scene.meshes import is_model
from hfrender.scene.text import is_text

log = logging.getLogger(__name__)

# what a render that reads the depth or velocity planes does with a translucent object,
# and what draws it right instead
INSTEAD = {"--dof depth": "blurs it by the depth of the opaque surface behind it: use "
                          "--dof lens",
           "--reconstruct": "moves it as the surface behind it moves: use --reconstruct off, "
                            "with more --samples"}


def outside(geometry: str, model: np.ndarray) -> str | None:
    """The winding on screen of a built-in shape's faces turned towards the eye (the
    projection flips y: a face counter-clockwise in the mesh is clockwise drawn; the cube's
    faces turn counter-clockwise outward, the sphere's clockwise; mirrored, the other way);
    None for a plane, which has no far side."""
    if geometry == "plane":
        return None
    outward_ccw = geometry == "cube"
    if np.linalg.det(model[:3, :3]) < 0:
        outward_ccw = not outward_ccw
    return "cw" if outward_ccw else "ccw"


def in_order(objects: list, eye: tuple, forward: tuple) -> list[tuple[int, Any]]:
    """The visible objects of an opacity between 0 and 1, and the texts (whose edges
    blend), with their places in ``objects``, farthest first by the view depth of their
    centres (a model's or text's: its bounds' middle); ties keep the scene's order."""
    found = [(i, obj) for i, obj in enumerate(objects) if obj.visible and 0.0 < obj.opacity
             and (obj.opacity < 1.0 or is_text(obj.geometry))]

    def depth(item: tuple[int, Any]) -> float:
        obj = item[1]
        bounds = getattr(obj, "bounds", None)  # (a model's, a text's)
        middle = np.zeros(3) if bounds is None else np.asarray(bounds).mean(axis=0)
        centre = obj.world_matrix() @ np.append(middle, 1.0)
        return float(np.dot(centre[:3] - np.asarray(eye), np.asarray(forward)))

    return sorted(found, key=depth, reverse=True)  # (reverse keeps equal keys in order)


class TranslucentPass:
    """The translucent objects of one renderer's sub-frames (its GL objects made at the
    first: a scene without any makes none)."""

    def __init__(self, ctx: Any, target: Target) -> None:
        self.ctx, self.target = ctx, target
        self.made = False
        self.warned = False
        self.layered = False  # the last draw left a layer to lay over (8-bit)

    def _make(self) -> None:
        ctx, t = self.ctx, self.target
        self.made, self.gl = True, []
        colour = t.ms_planes[0] if t.msaa > 1 else t.color
        if t.hdr:  # blended into the picture itself
            self.draw_fbo = self._keep(ctx.framebuffer([colour], t.zbuffer))
            return
        samples = t.msaa if t.msaa > 1 else 0
        self.layer = self._keep(ctx.texture(t.size, 4, dtype="f4", samples=samples))
        self.draw_fbo = self._keep(ctx.framebuffer([self.layer], t.zbuffer))
        self.clear_fbo = self._keep(ctx.framebuffer([self.layer]))
        self.flat = self.layer  # the layer, one sample a pixel
        if t.msaa > 1:
            self.flat = self._keep(ctx.texture(t.size, 4, dtype="f4"))
            self.flat_fbo = self._keep(ctx.framebuffer([self.flat]))
            self.resolver = self._keep(_resolve_program(ctx, t.msaa, 1))
            self.resolve_vao = self._keep(ctx.vertex_array(self.resolver, []))
        self.under = self._keep(ctx.texture(t.size, 4, dtype="f1"))
        self.picture_fbo = self._keep(ctx.framebuffer([t.color]))
        self.over = self._keep(compile_program(ctx, glsl("fullscreen.vert"),
                                               glsl("translucent.frag"), None))
        self.over_vao = self._keep(ctx.vertex_array(self.over, []))

    def _keep(self, obj: Any) -> Any:
        self.gl.append(obj)
        return obj

    def draw(self, renderer: Any, shared: dict, rates: np.ndarray, lens: tuple) -> None:
        """Draw the scene's translucent objects (after the opaque ones, before the target
        is resolved); ``shared``, ``rates``, ``lens``: as the opaque objects had them."""
        import moderngl

        order = in_order(renderer.scene.objects, lens[0], lens[1])
        self.layered = bool(order) and not self.target.hdr
        if not order:
            return
        self._warn(renderer, next((o for _, o in order if not is_text(o.geometry)), None))
        if not self.made:
            self._make()
        ctx = self.ctx
        if self.layered:
            self.clear_fbo.clear(0.0, 0.0, 0.0, 0.0)
        self.draw_fbo.depth_mask = False
        self.draw_fbo.use()
        ctx.enable(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.blend_func = moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
        mine = dict(shared, hf_linear_out=1 if self.target.hdr else 2)
        ready: set[int] = set()
        for i, obj in order:
            prog = renderer.program_for(obj)
            share_once(prog, ready, mine)
            set_uniform(prog, "u_opacity", float(obj.opacity))
            self._far_then_near(renderer, prog, i, obj, rates, lens)
        ctx.disable(moderngl.BLEND)
        ctx.blend_func = moderngl.DEFAULT_BLENDING

    def _far_then_near(self, renderer: Any, prog: Any, i: int, obj: Any, rates: np.ndarray,
                       lens: tuple) -> None:
        """A closed built-in shape's far side first, then its near side over it (was: both
        in the mesh's triangle order, a sphere's far side laid over its near side in
        bands); a plane, which has no far side, and a loaded model (its parts cull as
        the file says) as they are."""
        import moderngl

        front = None if is_model(obj.geometry) or is_text(obj.geometry) else \
            outside(obj.geometry, obj.world_matrix())
        if front is None:
            renderer.draw_one(prog, i, obj, rates, lens)
            return
        ctx = self.ctx
        ctx.front_face = front
        ctx.enable(moderngl.CULL_FACE)
        for culled in ("front", "back"):  # the faces turned away first
            ctx.cull_face = culled
            renderer.draw_one(prog, i, obj, rates, lens)
        ctx.disable(moderngl.CULL_FACE)
        ctx.front_face, ctx.cull_face = "ccw", "back"

    def lay_over(self) -> None:
        """Lay the layer the last :meth:`draw` left over the resolved picture (nothing to
        do where it left none: a float target, or no translucent object)."""
        import moderngl

        if not self.layered:
            return
        ctx = self.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        if self.flat is not self.layer:  # its samples averaged, in linear light
            self.flat_fbo.use()
            self.layer.use(0)
            set_uniform(self.resolver, "u_color", 0)
            set_uniform(self.resolver, "hf_linear_out", 1)
            self.resolve_vao.render(moderngl.TRIANGLES, vertices=3)
        ctx.copy_framebuffer(self.under, self.picture_fbo)
        self.picture_fbo.use()
        self.under.use(0)
        self.flat.use(1)
        set_uniform(self.over, "u_under", 0)
        set_uniform(self.over, "u_layer", 1)
        self.over_vao.render(moderngl.TRIANGLES, vertices=3)

    def _warn(self, renderer: Any, obj: Any) -> None:
        """One line a render, where it reads the depth or velocity planes, which a
        translucent object leaves to the opaque surface behind it."""
        modes = [m for m in getattr(renderer, "depth_modes", ()) if m in INSTEAD]
        if not modes or self.warned or obj is None:  # (a text writes its depth, velocity)
            return
        self.warned = True
        log.warning("%s has opacity %g: a translucent object writes no depth or velocity, so "
                    "%s", _named(obj), obj.opacity,
                    "; ".join(f"{m} {INSTEAD[m]}" for m in modes))

    def release(self) -> None:
        if self.made:
            for obj in reversed(self.gl):
                obj.release()
        self.made, self.gl = False, []
