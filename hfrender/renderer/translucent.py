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

import functools
import logging
from typing import Any

import numpy as np

from hfrender.errors import spelling
from hfrender.renderer.instances import run_rows
from hfrender.renderer.programs import compile_program, glsl, set_uniform, share_once
from hfrender.renderer.target import Target, _resolve_program, unbind
from hfrender.scene import checks
from hfrender.scene.meshes import is_model
from hfrender.scene.nodes import called_all, drawn_opacity
from hfrender.scene.objects import mesh, world_matrices
from hfrender.scene.text import is_text

log = logging.getLogger(__name__)

# what a render that reads the depth or velocity planes (its ``depth_modes``) does with a
# translucent object, and what draws it right instead, as the caller spells settings
# (hf.render's keywords: were the flags to it too)
def instead(mode: str) -> str:
    """``mode`` (``dof``: depth of field by depth, ``reconstruct``) and what it does with a
    translucent object, then what draws it right."""
    said = spelling()
    if mode == "dof":
        return (f"{said.said('dof', 'depth')} blurs it by the depth of the opaque surface "
                f"behind it: use {said.said('dof', 'lens')}")
    return (f"{said.name('reconstruct')} moves it as the surface behind it moves: use "
            f"{said.said('reconstruct', 'off')}, with more {said.name('samples')}")


def outside(geometry: str, model: np.ndarray) -> str | None:
    """The winding on screen of a built-in shape's faces turned towards the eye (the
    projection flips y: a face counter-clockwise in the mesh is clockwise drawn; the cube's
    faces turn counter-clockwise outward, the sphere's, cylinder's, cone's and torus's
    clockwise; mirrored, the other way);
    None for a plane, which has no far side."""
    if geometry == "plane":
        return None
    outward_ccw = geometry == "cube"
    if np.linalg.det(model[:3, :3]) < 0:
        outward_ccw = not outward_ccw
    return "cw" if outward_ccw else "ccw"


def in_order(objects: list, eye: tuple, forward: tuple) -> list[tuple[int, Any]]:
    """The visible objects of an opacity between 0 and 1, and the texts (whose edges
    blend), as drawn (their groups' opacity and visible in: :func:`drawn_opacity`), with
    their places in ``objects``, farthest first by the view depth of their
    centres (a model's or text's: its bounds' middle); ties keep the scene's order."""
    seen = [(i, obj, drawn_opacity(obj)) for i, obj in enumerate(objects)]
    return by_depth([(i, obj) for i, obj, a in seen
                     if 0.0 < a and (a < 1.0 or is_text(obj.geometry))], eye, forward)


def by_depth(found: list[tuple[int, Any]], eye: tuple, forward: tuple
             ) -> list[tuple[int, Any]]:
    """``found`` (place, object), farthest first as :func:`in_order` lays them."""
    def depth(item: tuple[int, Any]) -> float:
        obj = item[1]
        bounds = getattr(obj, "bounds", None)  # (a model's, a text's)
        middle = np.zeros(3) if bounds is None else np.asarray(bounds).mean(axis=0)
        centre = obj.world_matrix() @ np.append(middle, 1.0)
        return float(np.dot(centre[:3] - np.asarray(eye), np.asarray(forward)))

    return sorted(found, key=depth, reverse=True)  # (reverse keeps equal keys in order)


def runs(renderer: Any, order: list, shared: dict, lens: tuple) -> list[tuple[tuple, list]]:
    """``order`` (:func:`in_order`) cut into runs, each one instanced draw a side, in the
    same order: ((program, :func:`outside`, geometry), [(place, object, world matrix)]).
    Consecutive planes of one program and geometry are a run, whatever their opacities
    (each instance's own: an instanced draw blends instance after instance, as draws one
    by one would); closed shapes too, but
    only while their pictures' bounds (:func:`screen_box`) meet none of the run's before
    them: all far sides then all near sides is then, at every pixel, one shape's far then
    near side, as one by one. A loaded model or a text is a run alone (geometry None)."""
    clip = np.asarray(shared["u_proj"], np.float64) @ np.asarray(shared["u_view"], np.float64)
    found: list[tuple[tuple, list]] = []
    boxes = np.empty((len(order), 4))  # the closed shapes' of the last run: [first:n]
    first = n = 0
    models = world_matrices([obj for _, obj in order])  # (all in one pass, as their levels)
    placed = [(i, obj, models[k]) for k, (i, obj) in enumerate(order)]
    built = [k for k, (_, obj) in enumerate(order)
             if not (is_model(obj.geometry) or is_text(obj.geometry))]
    drawn = renderer.geometries([order[k][1] for k in built], models[built], lens)
    kinds = dict(zip(built, drawn, strict=True))
    for k, (i, obj, model) in enumerate(placed):
        prog = renderer.program_for(obj)
        if k not in kinds:  # a loaded model, a text
            found.append(((prog, None, None), [(i, obj, model)]))
            continue
        geometry = kinds[k]
        front = outside(obj.geometry, model)
        key = (prog, front, geometry)
        if front is not None:
            boxes[n] = screen_box(geometry, clip @ model, renderer.size)
        if found and found[-1][0] == key and (front is None or
                                              not _meets(boxes[n], boxes[first:n])):
            found[-1][1].append((i, obj, model))
        else:
            found.append((key, [(i, obj, model)]))
            first = n
        n += front is not None
    return found


def screen_box(geometry: str, clip: np.ndarray, size: tuple) -> np.ndarray:
    """Pixel bounds (x0, y0, x1, y1) of a built-in ``geometry`` drawn by ``clip`` (this
    sub-frame's ``u_proj @ u_view @ model``): its mesh's bounding box's corners projected,
    a pixel more each way; the whole plane where a corner lies at or behind the eye."""
    w, h = size
    p = _corners(geometry) @ clip.T
    if not (p[:, 3] > 1e-6).all():
        return np.array([-np.inf, -np.inf, np.inf, np.inf])
    x, y = (p[:, 0] / p[:, 3] + 1) * w / 2, (p[:, 1] / p[:, 3] + 1) * h / 2
    box = np.array([x.min() - 1, y.min() - 1, x.max() + 1, y.max() + 1])
    return box if np.isfinite(box).all() else np.array([-np.inf, -np.inf, np.inf, np.inf])


@functools.cache
def _corners(geometry: str) -> np.ndarray:
    """The 8 corners (homogeneous, (8, 4)) of a built-in geometry's bounding box."""
    v = mesh(geometry)[0][:, :3].astype(np.float64)
    lo, hi = v.min(axis=0), v.max(axis=0)
    return np.array([[(lo, hi)[a][0], (lo, hi)[b][1], (lo, hi)[c][2], 1.0]
                     for a in (0, 1) for b in (0, 1) for c in (0, 1)])


def _meets(box: np.ndarray, others: np.ndarray) -> bool:
    """Whether pixel bounds ``box`` meet any of ``others`` (an edge shared counts)."""
    return bool(((box[0] <= others[:, 2]) & (others[:, 0] <= box[2])
                 & (box[1] <= others[:, 3]) & (others[:, 1] <= box[3])).any())


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

    def draw(self, renderer: Any, shared: dict, rates: np.ndarray, lens: tuple,
             order: list) -> None:
        """Draw the scene's translucent objects, ``order`` (:func:`in_order`), after the
        opaque ones, before the target is resolved; ``shared``, ``rates``, ``lens``: as the
        opaque objects had them."""
        import moderngl

        self.layered = bool(order) and not self.target.hdr
        if not order:
            return
        self._warn(renderer, order)
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
        for (prog, front, geometry), items in runs(renderer, order, shared, lens):
            share_once(prog, ready, mine)
            self._far_then_near(renderer, prog, (front, geometry), items, rates)
        ctx.disable(moderngl.BLEND)
        ctx.blend_func = moderngl.DEFAULT_BLENDING

    def _far_then_near(self, renderer: Any, prog: Any, kind: tuple, items: list,
                       rates: np.ndarray) -> None:
        """A run of closed built-in shapes (``kind``: their :func:`outside` and geometry):
        their far sides first, then their near sides over them (was: both in the mesh's
        triangle order, a sphere's far side laid over its near side in bands); a run of
        planes, which have no far side, as they are, and a loaded model or a text (its
        parts cull as the file says) alone, its opacity a uniform (a run's, each
        instance's own: :func:`~hfrender.renderer.instances.run_rows`)."""
        import moderngl

        front, geometry = kind
        if geometry is None:
            set_uniform(prog, "u_opacity", drawn_opacity(items[0][1]))
            renderer.draw_one(prog, *items[0][:2], rates)
            return
        rows = run_rows(items, rates)
        if front is None:
            renderer.instances.draw(prog, geometry, rows)
            return
        ctx = self.ctx
        ctx.front_face = front
        ctx.enable(moderngl.CULL_FACE)
        for culled in ("front", "back"):  # the faces turned away first
            ctx.cull_face = culled
            renderer.instances.draw(prog, geometry, rows)
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

    def _warn(self, renderer: Any, order: list) -> None:
        """One line a render, where it reads the depth or velocity planes, which a
        translucent object (``order``'s, not a text's: it writes its depth, velocity)
        leaves to the opaque surface behind it."""
        modes = [m for m in getattr(renderer, "depth_modes", ()) if m in ("dof", "reconstruct")]
        if not modes or self.warned:
            return
        objs = [o for _, o in sorted(order, key=lambda item: item[0]) if not is_text(o.geometry)]
        if objs:
            self.warned = True
            log.warning("%s: a translucent object writes no depth or velocity, so %s",
                        _translucent(getattr(renderer, "scene", None), objs),
                        "; ".join(instead(m) for m in modes))

    def release(self) -> None:
        if self.made:  # (was: its picture's framebuffer left bound, released: the next
            unbind(self.ctx, tuple(self.gl))  # renderer made here got GL_INVALID_OPERATION)
            for obj in reversed(self.gl):
                obj.release()
        self.made, self.gl = False, []


def _translucent(scene: Any, objs: list) -> str:
    """The translucent ``objs`` (the scene's order) as its warning names them, by the
    scene's names (:func:`checks.named`), else where they are, and their opacity as drawn:
    one (``self.glass (a Plane) has opacity 0.5``), or several counted, the first 3 named
    (was: the first alone, as if it were the one: six panels, one named)."""
    seen = [drawn_opacity(o) for o in objs]
    groups = any(a != float(o.opacity) for a, o in zip(seen, objs, strict=True))
    if len(objs) == 1:
        own = f" (its own {float(objs[0].opacity):g} times its groups')" if groups else ""
        return f"{called_all(scene, objs)[0]} has opacity {seen[0]:g}{own}"
    low, high = min(seen), max(seen)
    names = checks.named(scene, objs)
    listed = checks.listed([n or o.by_place() for n, o in zip(names, objs, strict=True)])
    return (f"{len(objs)} translucent objects ({listed}) have opacity {low:g}"
            + (f" to {high:g}" if high > low else "") + (" (their groups' in)" if groups
                                                          else ""))
