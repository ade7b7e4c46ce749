"""The directional light's shadows (a scene's ``shadows = True``): a shadow map drawn for
every sub-frame, before its colour, so an object that moves within the shutter casts the
shadow of where it is at that sub-frame's time (a moving shadow blurs as the object does).

The map is the depth, seen from the light, of every opaque object (opacity 1, not a
text: translucent objects and texts cast none, and every opaque one casts, whatever its
shader), drawn by the renderer's own draw of the opaque objects
(:meth:`SceneRenderer.draw_objects`: instanced shapes, models' animated parts, skins
and morphs at the same matrices as their colour) with depth-only programs: ``mesh.vert``
and a fragment shader that writes nothing, of the casters whose box meets the map's
frustum (:func:`outside`: the same depths, bit for bit; a point lamp's each face's). Its
orthographic frustum (:func:`fit`) is fitted across the light to the part of the visible
objects' boxes (:func:`~hfrender.scene.in_view.corners`) that the camera sees, along it
to all of them (was: all of them
either way, so a 100 m floor spread the map's texels over 100 m); its size follows the
output's pixels (:func:`map_size`). The surface shaders read it through ``hf_shadow()``
(``shaders/glsl/mesh_header.frag``). A :class:`ShadowPass` draws and keeps the lamps' maps
too (``SpotLight(shadows=True)``, ``PointLight(shadows=True)``:
:mod:`hfrender.renderer.lamp_shadows`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.renderer.gl_raw import clip_distance, depth_clamp
from hfrender.renderer.models import DEFINE, defined
from hfrender.renderer.programs import compile_program, glsl
from hfrender.scene.in_view import corners
from hfrender.scene.lamps import MAX_LAMPS, MAX_SHADOWED
from hfrender.scene.nodes import drawn_opacity
from hfrender.scene.text import is_text

SIZES = (512, 4096)  # the least and most texels a side of an automatic map (map_size)
STEP = 256  # its sizes' step
UNIT = 7  # the texture unit the map is read from (a sampler2DShadow: no other's unit)
SPOT_UNITS = tuple(range(UNIT + 1, UNIT + 1 + MAX_SHADOWED))  # the lamps' maps' units
SPOT_MAPS = {f"u_spot_map{k}": unit for k, unit in enumerate(SPOT_UNITS)}  # their samplers
# every sampler's unit is set on every sub-frame, by OFF and by all built on it (samplers of
# two types on unit 0 would make a model's draw an error; one left unset reads unit 0)
OFF = {"u_shadows": 0, "u_shadow_map": UNIT, "u_lamp_shadow": [0] * MAX_LAMPS, **SPOT_MAPS}
TO_MAP = np.array([[0.5, 0, 0, 0.5], [0, 0.5, 0, 0.5], [0, 0, 0.5, 0.5], [0, 0, 0, 1.0]])
ATLAS = (3, 2)  # a point lamp's map: its six faces' tiles across and up (hf_lamp_shadow)
_NOTHING = "#version 330 core\nvoid main() {}\n"  # depth only
_DEPTH_ONLY = "#define HF_DEPTH_ONLY 1\n"  # (mesh.vert: u_clip_sphere)
_UP = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # the map's up: z, else x (light along z)
_EDGES = np.array([(a, a | bit) for a in range(8) for bit in (1, 2, 4) if not a & bit])
_SIGNS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)


def light_axes(light: np.ndarray) -> np.ndarray:
    """(3, 3): the map's right, up and ``light`` (unit, towards the light), as rows."""
    up = _UP[0] if abs(light[2]) < 0.9 else _UP[1]
    right = np.cross(up, light)
    right /= np.linalg.norm(right)
    return np.stack([right, np.cross(light, right), light])


def light_frame(axes: np.ndarray, lo: np.ndarray, hi: np.ndarray, size: int) -> tuple[
        np.ndarray, np.ndarray, np.ndarray]:
    """(view, projection, texel): the light's orthographic camera along ``axes``
    (:func:`light_axes`) around the box ``lo``..``hi`` in its frame, padded by 2 texels and
    1% (the projection flips y, as the camera's does: the models' front faces wind alike),
    a map of ``size`` texels a side; texel: one texel's size in metres (the larger side),
    in the map's s-t (1 / ``size``) and in its depth (0..1) per metre times a texel."""
    view = np.eye(4)
    view[:3, :3] = axes
    pad = (hi - lo) * 0.01 + 1e-3
    lo, hi = lo - pad, hi + pad
    grow = (hi[:2] - lo[:2]) * 2 / (size - 4)
    lo[:2], hi[:2] = lo[:2] - grow, hi[:2] + grow
    middle, half = (hi + lo) / 2, (hi - lo) / 2
    view[:3, 3] = -axes @ middle
    proj = np.diag([1 / half[0], -1 / half[1], -1 / half[2], 1.0])  # looks down -z
    metres = float(2 * half[:2].max() / size)
    return view, proj, np.array([metres, 1 / size, metres / (2 * half[2])])


def _inside(a: np.ndarray, b: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """The parts of the segments ``a``-``b`` (K, 3 each) on the inside (>= 0) of every one
    of ``planes`` (P, 4: normal, offset), as their ends (2 a segment, none for one wholly
    outside)."""
    fa, fb = a @ planes[:, :3].T + planes[:, 3], b @ planes[:, :3].T + planes[:, 3]
    tol = 1e-9 * (1.0 + float(np.abs(planes[:, 3]).max()))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(fa != fb, fa / (fa - fb), 0.0)
    start = np.where((fa < -tol) & (fb >= -tol), s, 0.0).max(1)
    end = np.where((fa >= -tol) & (fb < -tol), s, 1.0).min(1)
    keep = ~((fa < -tol) & (fb < -tol)).any(1) & (start <= end)
    step = (b - a)[keep]
    return np.concatenate([a[keep] + start[keep, None] * step,
                           a[keep] + end[keep, None] * step])


def _planes(matrix: np.ndarray) -> np.ndarray:
    """(6, 4): the sides of a camera's frustum, ``matrix`` its proj x view, facing in."""
    rows = [matrix[3] + sign * matrix[k] for k in range(3) for sign in (1, -1)]
    planes = np.array(rows)
    return planes / np.linalg.norm(planes[:, :3], axis=1, keepdims=True)


def outside(matrix: np.ndarray, boxes: np.ndarray, sphere: tuple | None) -> np.ndarray:
    """Which of ``boxes`` (K, 8, 3: :func:`boxes`' corners) draw nothing into the map seen
    by ``matrix`` (its projection x view): those wholly outside one of its sides, beyond
    its far plane or behind its eye (w < 0: a perspective map's; not those before its
    near plane, drawn at depth 0: ``GL_DEPTH_CLAMP``), or within ``sphere`` (x, y, z,
    radius: clipped by ``mesh.vert``; None: none is)."""
    rows = [matrix[3] + sign * matrix[k] for k in range(2) for sign in (1, -1)]
    rows += [matrix[3] - matrix[2]] + [matrix[3]] * bool(np.abs(matrix[3, :3]).max() > 0)
    planes = np.array(rows)
    planes /= np.linalg.norm(planes[:, :3], axis=1, keepdims=True)
    tol = 1e-9 * (1.0 + float(np.abs(planes[:, 3]).max()))
    out = ((boxes @ planes[:, :3].T + planes[:, 3]) < -tol).all(1).any(1)
    if sphere is not None:
        reach = np.linalg.norm(boxes - np.asarray(sphere[:3]), axis=2).max(1)
        out |= reach < sphere[3] * (1.0 - 1e-6)
    return out


def seen_region(camera: Any, aspect: float, points: np.ndarray) -> np.ndarray:
    """Where the camera's frustum meets the world box around ``points`` (N, 3): the ends of
    the frustum's edges in it and of its edges in the frustum (the corners of what lies
    in both); ``points`` themselves where they meet nowhere."""
    matrix = camera.projection(aspect) @ camera.view_matrix()
    far = np.column_stack([_SIGNS, np.ones(8)]) @ np.linalg.inv(matrix).T
    frustum = far[:, :3] / far[:, 3:]
    lo, hi = points.min(0), points.max(0)
    box = np.where(_SIGNS > 0, hi, lo)
    sides = np.concatenate([np.column_stack([np.eye(3), -lo]),
                            np.column_stack([-np.eye(3), hi])])
    found = np.concatenate([_inside(frustum[_EDGES[:, 0]], frustum[_EDGES[:, 1]], sides),
                            _inside(box[_EDGES[:, 0]], box[_EDGES[:, 1]], _planes(matrix))])
    return found if len(found) else points


def map_size(cam: Any, fixed: int | None, extent: float, depth: float, pixels: float,
             sizes: tuple[int, int] = SIZES) -> int:
    """The map's texels a side: ``fixed`` (a ``shadow_resolution``), else as many as make a
    texel no larger than half an output pixel where the map's middle is seen (``depth``
    from the eye; ``pixels``: a metre's 1 m in front of it, :meth:`SceneRenderer.
    _pixels_a_metre`) across the map's ``extent`` (metres), in :data:`STEP` s within
    ``sizes`` (a texel of a whole pixel put a slanted light's edge 1-2 px off)."""
    if fixed is not None:
        return int(fixed)
    pixel = (1.0 if cam.orthographic else max(depth, cam.near)) / pixels
    want = STEP * math.ceil(2 * extent / pixel / STEP)  # (a texel: half a pixel or less)
    return int(min(max(want, sizes[0]), sizes[1]))


def boxes(scene: Any) -> list[tuple[np.ndarray, bool]]:
    """Each visible object's box (:func:`~hfrender.scene.in_view.corners`, (8, 3) in the
    world) and whether it casts (:func:`casts`), as ``scene`` is now: found once a
    sub-frame for the sun's map (:func:`fit`) and every lamp's."""
    return [(corners(obj)[:, :3], casts(obj)) for obj in scene.objects
            if drawn_opacity(obj) > 0]


def fit(scene: Any, aspect: float, light: np.ndarray, lens: tuple,
        seen: list[tuple[np.ndarray, bool]]) -> tuple | None:
    """(axes, lo, hi, size) of the map of ``scene`` as it is now (:func:`light_frame`'s):
    across the light, the part of the visible objects' boxes (``seen``: :func:`boxes`) the
    camera sees (what can be shadowed: :func:`seen_region`, widened by the eye's travel
    over the aperture and a pixel's jitter; a caster beyond it shades nothing seen), along
    it every one of them (the casters between them and the light); None where nothing is
    visible."""
    if not seen:
        return None
    points, cam = np.concatenate([box for box, _ in seen]), scene.camera
    axes, (eye, forward, pixels) = light_axes(light), lens
    region = seen_region(cam, aspect, points)
    far = float(((region - eye) @ np.asarray(forward)).max())
    pad = (1.0 if cam.orthographic else max(far, cam.near)) / pixels  # (jitter: < 1 px)
    if cam.has_dof:  # the eye moved across the lens: the frustum turns about the focus
        pad += cam.aperture_radius_m() * (1.0 + far / cam.focus_distance)
    near, span = region @ axes.T, points @ axes.T
    lo, hi = span.min(0), span.max(0)
    lo[:2], hi[:2] = np.maximum(lo[:2], near[:, :2].min(0) - pad), \
        np.minimum(hi[:2], near[:, :2].max(0) + pad)
    middle = (lo[:2] + hi[:2]) / 2 @ axes[:2] + near[:, 2].mean() * axes[2]
    depth = float((middle - eye) @ np.asarray(forward))
    return axes, lo, hi, map_size(cam, scene.shadow_resolution, float((hi - lo)[:2].max()),
                                  depth, pixels)


def tiles(count: int, size: int) -> list[tuple[int, int, int, int]]:
    """The viewports of ``count`` maps of ``size`` texels a side in one texture: 1, or a
    point lamp's six faces, face ``f`` at column ``f % 3``, row ``f // 3`` (:data:`ATLAS`)."""
    cols = 1 if count == 1 else ATLAS[0]
    return [(f % cols * size, f // cols * size, size, size) for f in range(count)]


def casts(obj: Any) -> bool:
    """Whether ``obj`` casts shadows (the sun's and the lamps'): drawn opaque (opacity 1,
    :func:`~hfrender.scene.nodes.drawn_opacity`: visible, its groups too), not a text."""
    return drawn_opacity(obj) >= 1.0 and not is_text(obj.geometry)


def culled(renderer: Any, seen: list) -> tuple[list[int], np.ndarray]:
    """(ids, corners (K, 8, 3)) of the casters a map's face may leave out: ``seen``'s
    (:func:`boxes`: each visible object's; the casters' in the scene's order, as
    :meth:`SceneRenderer.draw_objects` draws them) but the animated models' (their boxes
    the rest pose's)."""
    drawn = [(i, obj) for i, obj in enumerate(renderer.scene.objects) if casts(obj)]
    boxes_of = [box for box, cast in seen if cast]
    kept = [(id(obj), box) for (i, obj), box in zip(drawn, boxes_of, strict=True)
            if i not in renderer.parts]
    return [k for k, _ in kept], np.array([box for _, box in kept]).reshape(-1, 8, 3)


def casting(renderer: Any, box: tuple, lens: tuple) -> bytes:
    """All that the map drawn of ``renderer``'s scene now depends on: its frustum ``box``
    (its view, projection and size: the light in them), the camera's ``lens`` (a sphere's
    mesh: its level),
    and each opaque object's geometry, place and animated parts' matrices (skins, morph
    weights: :attr:`SceneRenderer.parts`, this draw's). The same bytes, the same map:
    sub-frames at other times or lens points of a scene whose casters stand still (a
    turntable's camera aside) draw it once."""
    held = [np.concatenate([np.ravel(part) for part in box]).tobytes(), repr(lens).encode()]
    for i, obj in enumerate(renderer.scene.objects):
        if not casts(obj):
            continue
        held += [repr(obj.geometry).encode(), obj.world_matrix().tobytes()]
        if i in renderer.parts:
            held += [np.asarray(m, np.float64).tobytes() for m in renderer.parts[i][1]]
    return b"|".join(held)


class ShadowPass:
    """A shadow map, its framebuffer and the depth-only programs, for one renderer: the
    directional light's, holding the shadowed lamps' (:attr:`spots`, sharing its programs:
    :mod:`hfrender.renderer.lamp_shadows`). A point lamp's map is six square faces in one
    texture, :data:`ATLAS` of them across and up (:func:`tiles`)."""

    def __init__(self, ctx: Any, programs: dict | None = None) -> None:

        self.ctx, self.size, self.map, self.fbo = ctx, 0, None, None
        self.faces, self.made = 1, (0, 1)  # the maps it holds (6: a point lamp's), as made
        self.key = b""  # what the map was drawn of (casting)
        self.own = programs is None  # (a lamp's are its sun's)
        self.programs = programs or {
            model: compile_program(ctx, defined(glsl("mesh.vert"), _DEPTH_ONLY + defines),
                                   _NOTHING, None)
            for model, defines in ((False, ""), (True, DEFINE))}
        self.spots: list[ShadowPass] = []
        self.left_out: set[int] = set()  # the casters the face drawn now leaves out (ids)
        self.seen_by: tuple | None = None  # the sun's map's world -> (s, t, depth), the
        #      metres of its depth 0..1 and of a texel (engine/penumbra.py reads it back)
        self.penumbra: Any = None  # (its PenumbraPass: renderer/penumbra_pass.py, once asked)

    def _make(self, size: int) -> None:
        """The map and its framebuffer, ``size`` texels a side, :attr:`faces` of them
        (those of another size gone)."""
        import moderngl

        if (size, self.faces) == self.made:
            return
        self._drop()
        cols, rows = (1, 1) if self.faces == 1 else ATLAS
        self.key, self.size, self.made = b"", size, (size, self.faces)
        self.map = self.ctx.depth_texture((size * cols, size * rows))
        self.map.compare_func = "<="  # sampler2DShadow: 1 where the point is nearer
        self.map.filter = (moderngl.LINEAR, moderngl.LINEAR)  # 2x2 compared, weighted
        self.map.repeat_x = self.map.repeat_y = False
        self.fbo = self.ctx.framebuffer(depth_attachment=self.map)

    def _drop(self) -> None:
        for obj in (self.fbo, self.map):
            if obj is not None:
                obj.release()

    def program(self, obj: Any, model_file: bool) -> Any:
        """The depth-only program of ``obj`` (the renderer's ``_program_of``'s place); None
        for one the face drawn now leaves out (:meth:`_draw`: not drawn)."""
        return None if id(obj) in self.left_out else self.programs[model_file]

    def draw(self, renderer: Any, light: np.ndarray, lens: tuple, rates: np.ndarray,
             seen: list) -> dict:
        """The directional light's map of ``renderer``'s scene as it is now (``seen``:
        :func:`boxes`), lit from ``light`` (:meth:`keep`); the uniforms its surface shaders
        read it by, over :data:`OFF`'s (OFF alone where nothing is visible), so each
        sampler's unit is set."""

        w, h = renderer.size
        box = fit(renderer.scene, w / h, light, lens, seen)
        self.seen_by = None
        if box is None:
            return OFF
        view, proj, texel = light_frame(*box)
        self.keep(renderer, (view, proj, box[3]), lens, rates, UNIT, seen)
        self.seen_by = (TO_MAP @ proj @ view, float(texel[0] / texel[2]), float(texel[0]))
        return {**OFF, "u_shadows": 1, "u_light_matrix": TO_MAP @ proj @ view,
                "u_shadow_texel": tuple(texel.tolist())}

    def keep(self, renderer: Any, box: tuple, lens: tuple, rates: np.ndarray,
             unit: int, seen: list) -> None:
        """The map of ``box`` (view, projection, texels a side; a point lamp's: its six
        faces' views and its sphere, :meth:`_draw`) drawn unless the one drawn last is of
        the same (:func:`casting`), bound to ``unit``; ``seen``: the visible objects'
        boxes (:func:`boxes`, each face's casters culled by). ``lens``: the sub-frame's,
        so a sphere's mesh is the one its colour is drawn with; ``rates``: its clip rates,
        unused by the map but asked with its colour's, so a skinned part is posed once for
        both (:func:`~hfrender.renderer.models.poser`)."""
        views = np.reshape(box[0], (-1, 4, 4))
        self.faces = len(views)
        self._make(box[2])
        key = casting(renderer, box, lens)
        if key != self.key:  # (another time, or anything in it moved: drawn anew)
            self.key = key
            self._draw(renderer, (views, box[1], box[3] if len(box) > 3 else None), lens,
                       rates, culled(renderer, seen))
        self.map.use(unit)

    def _draw(self, renderer: Any, frame: tuple, lens: tuple, rates: np.ndarray,
              casters: tuple) -> None:
        """Draw the map of ``frame``: (views, proj, sphere), seen by ``proj`` and each of
        ``views`` (1, or a point lamp's six faces, each in its tile: :func:`tiles`);
        ``sphere`` (x, y, z, radius): what lies within it casts nothing (a point lamp's
        bulb; None: all). A face draws the ``casters`` (:func:`culled`) not wholly
        :func:`outside` it (was: every caster, each face; llvmpipe clipped the rest): the
        depths the same, bit for bit."""
        import moderngl

        ctx, (views, proj, sphere), (ids, corners_of) = self.ctx, frame, casters
        self.fbo.use()
        self.fbo.clear(depth=1.0)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.CULL_FACE)
        ctx.polygon_offset = (1.0, 1.0)  # slope-scaled, with the shaders' own bias
        depth_clamp(True)  # (a caster nearer a spot than its map's near plane, at most
        clip_distance(sphere is not None)  # 1/1000 of its far one, casts at depth 0: was
        # clipped); (llvmpipe clips by gl_ClipDistance even while it is off: radius 0 then)
        shared = {"u_proj": proj, "u_clip_sphere": sphere or (0.0,) * 4}
        try:
            for view, viewport in zip(views, tiles(len(views), self.size), strict=True):
                ctx.viewport = viewport
                self.left_out = {ids[k] for k in np.flatnonzero(
                    outside(proj @ view, corners_of, sphere))}
                renderer.draw_objects({**shared, "u_view": view}, lens, self.program, rates)
        finally:
            self.left_out = set()
            ctx.polygon_offset = (0.0, 0.0)
            depth_clamp(False)
            clip_distance(False)

    def release(self) -> None:
        for obj in self.programs.values() if self.own else ():
            obj.release()
        for spot in self.spots:
            spot.release()
        if self.penumbra is not None:
            self.penumbra.release()
        self._drop()


def shadow_map(renderer: Any, light: np.ndarray, lens: tuple, rates: np.ndarray) -> dict:
    """The uniforms by which ``renderer``'s surface shaders read its scene's shadow maps,
    drawn for now: the directional light's where the scene's ``shadows`` are on and it
    gives light (:func:`sun_casts`), its shadowed lamps' that are lit
    (:func:`~hfrender.renderer.lamp_shadows.lamp_maps`); its :class:`ShadowPass` made the
    first time; ``rates``: the sub-frame's clip rates, :meth:`ShadowPass.keep`).
    :data:`OFF` where neither casts. A sun that does not cast leaves no map to probe
    (``seen_by`` None: was the last drawn map's, read by engine/penumbra.py)."""
    from hfrender.renderer.lamp_shadows import lamp_maps, shadowed  # (it builds on this)

    scene = renderer.scene
    lamps, casts_too = shadowed(scene), sun_casts(scene)
    if not casts_too and renderer.shadows is not None:
        renderer.shadows.seen_by = None
    if not casts_too and not lamps:
        return OFF
    if renderer.shadows is None:
        renderer.shadows = ShadowPass(renderer.ctx)
    seen = boxes(scene)  # (once for every map: was found again for each spot's)
    sun = renderer.shadows.draw(renderer, light, lens, rates, seen) if casts_too else OFF
    return {**sun, **lamp_maps(renderer.shadows, renderer, lamps, lens, rates, seen)}


def sun_casts(scene: Any) -> bool:
    """Whether the directional light's map is drawn: the scene's ``shadows`` on and the
    light it gives above 0 (``light_strength`` and ``light_color``; was: drawn at 0 too,
    shading nothing: ``hf_shadow()`` is 1 without it)."""
    return bool(scene.shadows) and scene.light_strength > 0 and max(scene.light_color) > 0
