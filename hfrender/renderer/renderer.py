"""Drawing one sub-frame of a scene into an offscreen target, and reading it back in place.

The target has up to three colour attachments: RGBA8 (sRGB-encoded colour, the display
values the fusion decodes; with ``hdr`` RGBA32F, linear light that may pass 1), R32F
(linear depth along the view axis, +inf for the background) and RG32F (velocity: each
pixel's screen motion in pixels per second, from the scene's own motion, written by the
same draw). ``read_into`` copies them into caller-provided memory (a hyperframe slot): no
allocation per sub-frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.color import srgb_color
from hfrender.renderer.clip_motion import animated_parts, clip_matrices
from hfrender.renderer.instances import InstancedDrawer, instance_rows, rates_at
from hfrender.renderer.lamps import lamp_uniforms, sun, sun_uniforms
from hfrender.renderer.levels import levels
from hfrender.renderer.models import ModelDrawer, SurfacePrograms, lighting_of, poser
from hfrender.renderer.msaa import msaa_samples
from hfrender.renderer.programs import (
    NoSurfaceShader,
    compile_program,
    glsl,
    set_uniform,
    share_once,
)
from hfrender.renderer.shader_renderer import ShaderRenderer
from hfrender.renderer.shadows import ShadowPass, shadow_map, sun_casts
from hfrender.renderer.surface import say_unlit
from hfrender.renderer.target import Target
from hfrender.renderer.text import TextDrawer, on_picture
from hfrender.renderer.translucent import TranslucentPass, by_depth
from hfrender.scene import Scene, ShaderScene
from hfrender.scene.lamps import lit_now
from hfrender.scene.loader import told_line
from hfrender.scene.meshes import is_model
from hfrender.scene.nodes import drawn_opacity
from hfrender.scene.objects import world_matrices
from hfrender.scene.text import is_text

_NO_RATES = np.zeros((0, 4, 4))  # no velocity asked: every object has no motion


def _cross(a: list, b: list) -> list:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _cofactor(m: np.ndarray) -> np.ndarray:
    """det(m) * inverse(m).T: transforms normals, and stays defined for a zero scale.

    Plain float arithmetic: np.cross costs ~30 us a call, and this runs per object per
    sub-frame."""
    r0, r1, r2 = m.tolist()
    return np.array([_cross(r1, r2), _cross(r2, r0), _cross(r0, r1)])


def _at(exc: BaseException, obj: Any) -> BaseException:
    """``exc`` with its ``where``: the line that set ``obj.shader``
    (:func:`hfrender.scene.checks.caller_line`)."""
    exc.where = getattr(obj, "_shader_at", None)  # type: ignore[attr-defined]
    return exc


class SceneRenderer:
    """Draws a :class:`Scene` (meshes, camera, lights) with a lens offset and pixel jitter."""

    has_velocity = True  # it can write the velocity plane
    transparent = False  # draw no background: alpha 0 there (set by the render job)
    sun_disk = (0.0, 0.0)  # the sub-frame's point of the sun's disk (light_angle; drawer's)
    depth_modes: tuple[str, ...] = ()  # what reads depth or velocity: "dof", "reconstruct"
    #                                    ("--dof depth", "--reconstruct"; set by the job)

    def __init__(self, ctx: Any, scene: Scene, size: tuple[int, int], with_depth: bool,
                 with_velocity: bool = False, msaa: int = 1, hdr: bool = False) -> None:
        self.ctx, self.scene, self.size = ctx, scene, size
        self.target = Target(ctx, size, with_depth, with_velocity, msaa, hdr)
        self.scene_dir = Path(scene.source_path).parent if scene.source_path else None
        self.background = compile_program(ctx, glsl("fullscreen.vert"), glsl("background.frag"),
                                          None)
        self.empty_vao = ctx.vertex_array(self.background, [])
        self.programs = SurfacePrograms(ctx, self.scene_dir, "")  # by the sub-frame's lights
        self.instances = InstancedDrawer(ctx)  # built-in geometries, many objects a draw
        self.models = ModelDrawer(ctx, self.scene_dir)  # loaded models (hf.Mesh)
        self.texts = TextDrawer(ctx, self.scene_dir)  # hf.Text: with the translucent ones
        self.translucent = TranslucentPass(ctx, self.target)  # objects of opacity < 1
        self.shadows: ShadowPass | None = None  # made once shadows (the sun's, a spot's) are on
        self.lens: tuple = ()  # the sub-frame's camera for sizes (_pixels_a_metre), per draw
        self.view_proj = np.eye(4)  # the sub-frame's proj x view, per draw
        # this draw's animated models, by place: (their parts' first row in rates, matrices)
        self.parts: dict[int, tuple[int, list[np.ndarray]]] = {}

    def _light(self, shared: dict) -> None:
        """The surface programs of a sub-frame lit as its uniforms ``shared`` say
        (:func:`lighting_of`): the objects', the models' and the texts'."""
        self.programs.lighting = self.models.programs.lighting = \
            self.texts.programs.lighting = lighting_of(shared)

    def _program(self, shader: str | None) -> Any:
        return self.programs(shader)

    def prepare(self) -> None:
        """Compile every program the scene uses now, so errors come before any drawing (a
        shader no file answers: at the scene's line that named it): those of its lights as
        they stand (:meth:`_light`; the first sub-frame's, unless ``update`` changes them)."""
        self._light({"u_lamp_count": len(lit_now(self.scene)),
                     "u_shadows": int(sun_casts(self.scene))})
        for obj in self.scene.objects:
            try:
                if is_model(obj.geometry):
                    self.models.prepare(obj.shader, obj.geometry)
                elif is_text(obj.geometry):
                    self.texts.prepare(obj)
                else:
                    self.instances.vao(self._program(obj.shader), obj.geometry)
            except NoSurfaceShader as exc:
                path = self.scene.source_path
                raise NoSurfaceShader(f"{path}: {exc}{told_line(_at(exc, obj), path)}") \
                    from None

    def _program_of(self, obj: Any, model_file: bool) -> Any:
        """The program drawing ``obj`` (a shader first named now, in ``update``: its error
        at the line that named it, as the drawing's error tells it)."""
        try:
            return self.models.program(obj.shader) if model_file else self._program(obj.shader)
        except NoSurfaceShader as exc:
            _at(exc, obj)
            raise

    def clip_matrices(self, lens_offset_m: tuple[float, float] = (0.0, 0.0),
                      jitter_px: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """``proj @ view @ model`` of every object as the scene is now, (N, 4, 4) float64,
        then of each part of its animated models (:meth:`Mesh.part_matrices`), in order:
        the velocity plane is their rate of change (:func:`.clip_rates`); its morphed parts'
        weights as they are (not matrices: their rates are the weights'). One stacked
        product: a sub-frame with velocity asks twice, for every object."""
        view, proj = self._camera_matrices(lens_offset_m, jitter_px)
        return clip_matrices(self.scene.objects, view, proj)

    def _camera_matrices(self, offset: tuple[float, float],
                         jitter_px: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        cam, (w, h) = self.scene.camera, self.size
        return (cam.view_matrix(offset),
                cam.projection(w / h, offset, (2 * jitter_px[0] / w, 2 * jitter_px[1] / h)))

    def draw(self, t: float, frame: int, lens_offset_m: tuple[float, float] = (0.0, 0.0),
             jitter_px: tuple[float, float] = (0.0, 0.0),
             clip_rates: np.ndarray | None = None, planes: bool = True) -> None:
        """Draw the scene as it is now; the eye moved ``lens_offset_m`` across the lens.
        ``clip_rates[i]``: d/dt of object i's clip matrix, for the velocity plane (zero
        motion where not given). ``planes`` False: the colour alone, as a target without
        depth and velocity planes draws it (theirs left as they were: nobody reads them)."""
        import moderngl

        scene, cam, ctx = self.scene, self.scene.camera, self.ctx
        (w, h), offset = self.size, lens_offset_m
        view, proj = self._camera_matrices(offset, jitter_px)
        right, up, forward = cam.basis()
        eye = np.asarray(cam.position, np.float64) + right * offset[0] + up * offset[1]
        light = sun(scene, self.sun_disk)  # (unit, towards the light: its sub-frame's)

        rates, lens = _NO_RATES if clip_rates is None else clip_rates, self._pixels_a_metre()
        self.parts = animated_parts(scene.objects)  # (each one's matrices asked once)
        self.lens = lens  # this sub-frame's, for the objects drawn alone (draw_one)
        self.view_proj = proj @ view  # (a morphed model's clip matrix: its weights' sweep)
        shared = {"u_half_size": (w / 2.0, h / 2.0), "u_view": view, "u_proj": proj,
                  **sun_uniforms(scene, light),  # (u_light_dir, u_light_color, u_ambient)
                  "u_eye": tuple(eye), "u_forward": tuple(forward),
                  "u_orthographic": int(cam.orthographic), "u_time": float(t),
                  "hf_linear_out": int(self.target.hdr), "u_opacity": 1.0,
                  **lamp_uniforms(scene, t),  # (more lit than the arrays: refused)
                  **shadow_map(self, light, lens, rates)}  # (before the target's drawing)
        say_unlit(self, shared, t)  # (a scene's own surface leaving its lamps out: once)
        self._light(shared)  # (no lamp: their code out)
        self._draw_background(self.target.drawn_into(planes))
        ctx.enable(moderngl.DEPTH_TEST)
        found = self.draw_objects(shared, lens, rates=rates)  # (each one's opacity read once)
        order = by_depth(found, lens[0], lens[1])  # translucent ones and texts: in_order
        if planes:  # (the texts' depth and velocity: nothing to mark in colour)
            self.texts.mark(self, shared, rates, order)
        self.translucent.draw(self, shared, rates, lens, order)
        self.target.resolve(planes)
        self.translucent.lay_over()

    def _draw_background(self, fbo: Any) -> None:
        """Clear ``fbo`` (the target's: :meth:`Target.drawn_into`) and draw the background
        (colour, or alpha 0; sky depth)."""
        import moderngl

        scene, ctx = self.scene, self.ctx
        fbo.use()
        ctx.viewport = (0, 0, *self.size)
        fbo.clear(depth=1.0)
        ctx.disable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        clear = scene.background is None or self.transparent
        colour = (0.0, 0.0, 0.0) if clear else tuple(float(c) for c in scene.background[:3])
        set_uniform(self.background, "u_background",  # sRGB codes, or linear light
                    srgb_color(colour) if self.target.hdr else colour)
        set_uniform(self.background, "u_alpha", 0.0 if clear else 1.0)
        self.empty_vao.render(moderngl.TRIANGLES, vertices=3)

    def _pixels_a_metre(self) -> tuple:
        """(eye, forward, pixels a metre spans 1 m in front of the eye (anywhere, with an
        orthographic camera)): a sphere's size on the picture, from the camera without its
        lens offset and jitter, so every sub-frame of one time picks the same level."""
        cam, (w, h) = self.scene.camera, self.size
        return (tuple(cam.position), tuple(cam.basis()[2].tolist()),
                abs(float(cam.projection(w / h)[1, 1])) * h / 2)

    def geometries(self, objs: list, models: Any, lens: tuple) -> list[str]:
        """The geometry drawn for each of the built-in objects ``objs`` at its world matrix
        of ``models`` (:func:`levels`, all in one pass: a sphere's or a round shape's
        level; ``lens``: :meth:`_pixels_a_metre`). (One object a call was 46 us: 3,000
        fading particles 125 ms a sub-frame.)"""
        if not objs:
            return []
        return levels([o.geometry for o in objs], np.asarray(models, np.float64), lens,
                      self.scene.camera.orthographic)

    def draw_objects(self, shared: dict, lens: tuple, pick: Any = None,
                     rates: np.ndarray = _NO_RATES) -> list[tuple[int, Any]]:
        """Every visible opaque object, drawn by ``pick(obj, is a model)``'s program (its
        own surface's, :meth:`_program_of`, where not given; the shadow map's depth-only
        one; None: left out, a map's face's): the uniforms all share (``shared``) set once
        per program; a loaded model's own as uniforms, drawn now; the built-in geometries'
        objects grouped by program and geometry (a sphere's by its level, ``lens``:
        :meth:`_pixels_a_metre`), each group one instanced draw, after the models. Objects
        of an opacity below 1 and texts are left to :mod:`hfrender.renderer.translucent`:
        returned, (place, object) in the scene's order (:func:`in_order`'s)."""
        ready: set[int] = set()
        programs: dict[str | None, Any] = {}  # a built-in's, by its shader (pick None)
        drawn, found = [], []  # the built-in ones: (place, object, program), as drawn
        for i, obj in enumerate(self.scene.objects):
            opacity = drawn_opacity(obj)
            if opacity < 1.0 or is_text(obj.geometry):  # (after; hidden: 0)
                if opacity > 0.0:  # (in_order's: a text, or translucent)
                    found.append((i, obj))
                continue
            model_file = is_model(obj.geometry)
            if pick is None and not model_file:  # (its surface's: one a shader a draw)
                if (prog := programs.get(obj.shader)) is None:
                    prog = programs[obj.shader] = self._program_of(obj, False)
            elif (prog := (pick or self._program_of)(obj, model_file)) is None:
                continue  # (left out of a shadow map's face: ShadowPass.program)
            share_once(prog, ready, shared)
            if model_file:  # (its parents' frames in: as clip_matrices)
                self._draw_model(prog, obj, obj.world_matrix(), rates, i)
                continue
            drawn.append((i, obj, prog))
        if drawn:
            self._draw_instanced(drawn, lens, rates)
        return found

    def _draw_instanced(self, drawn: list, lens: tuple, rates: np.ndarray) -> None:
        """The built-in objects ``drawn`` ((place, object, program)), grouped by program
        and geometry (a sphere's by its level: :func:`levels`), each group one instanced
        draw in the order its first object comes; their world matrices and levels found
        for all at once (:func:`world_matrices`)."""
        places = [i for i, _, _ in drawn]
        objs = [obj for _, obj, _ in drawn]
        models = world_matrices(objs)
        kinds = levels([obj.geometry for obj in objs], models, lens,
                       self.scene.camera.orthographic)
        groups: dict[tuple, tuple[Any, list[int]]] = {}  # (program, geometry): objects
        for k, ((_, _, prog), geometry) in enumerate(zip(drawn, kinds, strict=True)):
            groups.setdefault((id(prog), geometry), (prog, []))[1].append(k)
        objects = np.array([(*obj.linear_color(), float(obj.emissive), 1.0) for obj in objs])
        rows = instance_rows(models, rates_at(rates, places), objects)
        for (_, geometry), (prog, members) in groups.items():
            self.instances.draw(prog, geometry, rows[members])

    def _draw_model(self, prog: Any, obj: Any, model: np.ndarray, rates: np.ndarray,
                    i: int) -> None:
        """A loaded model, object ``i``, its values as uniforms; an animated one's parts
        each at its matrix (this draw's, :attr:`parts`) and clip rate (its row of
        ``rates``, else the object's rate times its matrix: an object added since has none)."""
        rate = rates_at(rates, [i])[0]
        _set_object(prog, obj, model, rate)
        if i not in self.parts:
            self.models.render(prog, obj.geometry, model)
            return
        start, moves = self.parts[i]

        def place(k: int) -> np.ndarray:
            own, row = model @ moves[k], start + k
            _set_object(prog, obj, own, rates[row] if row < len(rates) else rate @ moves[k])
            return own

        self.models.render(prog, obj.geometry, model, place, poser(  # (None: rest pose)
            obj.geometry, moves, start, rates, self.view_proj @ model, self.models))

    def program_for(self, obj: Any) -> Any:
        """The program drawing ``obj`` (:meth:`_program_of`; a text's, its drawer's)."""
        if is_text(obj.geometry):
            try:
                return self.texts.program(obj.shader)
            except NoSurfaceShader as exc:
                raise _at(exc, obj) from None
        return self._program_of(obj, is_model(obj.geometry))

    def draw_one(self, prog: Any, i: int, obj: Any, rates: np.ndarray,
                 cover: float = 0.0) -> None:
        """Draw a loaded model or a text, object ``i``, ``obj``, alone with ``prog`` (the
        uniforms all share set already): the translucent pass's, one at a time in its order
        (a text's coverage below ``cover`` dropped: :meth:`TextDrawer.mark`; its raster as
        fine as its size on the picture asks, :func:`~hfrender.renderer.text.on_picture`)."""
        model = obj.world_matrix()
        if is_text(obj.geometry):
            _set_object(prog, obj, model, rates_at(rates, [i])[0])
            self.texts.render(prog, obj, cover, on_picture(
                model, obj.raster().bounds, self.lens, self.scene.camera.orthographic))
        else:
            self._draw_model(prog, obj, model, rates, i)

    def read_into(self, color: Any, depth: Any = None, velocity: Any = None) -> None:
        self.target.read_into(color, depth, velocity)

    def release(self) -> None:
        self.instances.release()
        self.programs.release()
        for obj in [self.empty_vao, self.background]:
            obj.release()
        self.models.release()
        self.texts.release()
        self.translucent.release()
        self.target.release()
        if self.shadows is not None:  # (the scene's shadows on at some time)
            self.shadows.release()


def _set_object(prog: Any, obj: Any, model: np.ndarray, rate: np.ndarray) -> None:
    """An object drawn alone (a model, a text): its values as uniforms."""
    set_uniform(prog, "u_clip_rate", rate)
    set_uniform(prog, "u_model", model)
    set_uniform(prog, "u_normal_matrix", _cofactor(model[:3, :3]))
    set_uniform(prog, "u_color", obj.linear_color())
    set_uniform(prog, "u_emissive", float(obj.emissive))


def make_renderer(ctx: Any, scene: Scene, size: tuple[int, int], with_depth: bool,
                  fps: float, with_velocity: bool = False, msaa: int | str = 1,
                  hdr: bool = False) -> SceneRenderer | ShaderRenderer:
    """The renderer for ``scene``; ``msaa`` samples per pixel for meshes (a shader draws one
    colour per pixel whatever the samples: it gets none); ``hdr``: float sub-frames of
    linear light (``renderer.target.color_dtype``)."""
    samples = msaa_samples(ctx, msaa)  # a shader draws one colour a pixel, but a value the
    if isinstance(scene, ShaderScene):  # context cannot give is refused all the same
        return ShaderRenderer(ctx, scene, size, with_depth, fps, hdr)
    return SceneRenderer(ctx, scene, size, with_depth, with_velocity, samples, hdr)

