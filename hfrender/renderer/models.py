"""Drawing loaded models (:mod:`hfrender.scene.meshes`): buffers and textures uploaded once
per renderer, programs compiled with ``HF_MODEL`` defined (UVs, vertex colours, a texture,
flat or smooth normals), so the built-in geometries keep their programs unchanged."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.programs import glsl, set_uniform, surface_source
from hfrender.renderer.skinning import INFLUENCES, PartShape, ShaderPose, shader_pose, unfit
from hfrender.renderer.surface import lighting_calls, surface_program, unlit_calls
from hfrender.scene.meshes import Part, model_data
from hfrender.scene.model_animation import weight_row_count
from hfrender.scene.model_morphs import morph_rows, weights_of
from hfrender.scene.model_skins import facing, posed, skin_starts

GL_SRGB8_ALPHA8 = 0x8C43  # textures are decoded from sRGB by the sampler (mipmaps too)
DEFINE = "#define HF_MODEL 1\n"
log = logging.getLogger(__name__)
_STILL = np.zeros((4, 4))  # a posed skin's u_clip_rate: its vertices carry their rates
_ATTRIBUTES = (("in_position", "3f", "3x4"), ("in_normal", "3f", "3x4"),
               ("in_uv", "2f", "2x4"), ("in_color", "4f2", "4x2"))


_LEFT_OUT = {"hf_lamps": "#define HF_NO_LAMPS 1\n", "hf_shadow": "#define HF_NO_SUN_SHADOW 1\n"}


def lighting_of(shared: dict) -> str:
    """The defines of a sub-frame's lighting, from its uniforms ``shared``: the lamps' code
    (``HF_NO_LAMPS``) and the sun's shadow taps (``HF_NO_SUN_SHADOW``) compiled out where
    none is lit, none cast (``shaders/glsl/mesh_header.frag``). llvmpipe runs the code of
    a branch under a mask whatever the uniform says: with that code a sub-frame of the demo
    took 1.9x the time. What the two leave out adds 0 or multiplies by 1: the pictures are
    the full programs' bit for bit."""
    return ("" if shared.get("u_lamp_count") else _LEFT_OUT["hf_lamps"]) + \
        ("" if shared.get("u_shadows") else _LEFT_OUT["hf_shadow"])


def lighting_for(lighting: str, calls: frozenset[str]) -> str:
    """The defines of ``lighting`` (:func:`lighting_of`'s) that change a program whose
    surface ``calls`` those of ``hf_lamps`` and ``hf_shadow``: none for one calling
    neither (``unlit``: one program whatever the lights)."""
    return "".join(line for call, line in _LEFT_OUT.items() if call in calls and line in lighting)


class SurfacePrograms:
    """Surface programs (:func:`mesh_program`) by shader and the sub-frame's
    :attr:`lighting` (:func:`lighting_of`; "": every light's code, unless set:
    :meth:`SceneRenderer.prepare` sets the scene's as it stands, so that it compiles the
    programs its first sub-frame draws with where ``update`` leaves the lights as they
    were), each compiled when first asked; one shader's programs differ in the defines
    its calls read alone (:func:`lighting_for`, the calls found in its file when first
    asked: these programs', a render's; one for a surface calling neither
    ``hf_lamps`` nor ``hf_shadow``; was a program each lighting, and the full one in
    ``prepare`` for a scene never lit so). Iterating gives the shaders' names;
    ``default``: the shader of ``None`` (a text's ``unlit``)."""

    def __init__(self, ctx: Any, scene_dir: Path | None, defines: str,
                 default: str | None = None) -> None:
        self.ctx, self.scene_dir, self.defines, self.default = ctx, scene_dir, defines, default
        self.lighting = ""
        self.made: dict[tuple[str | None, str], Any] = {}
        self.calls: dict[str | None, frozenset[str]] = {}  # (its file read once: a render's)
        self.unlit: dict[str | None, tuple[Path, tuple[str, ...]]] = {}  # (the same)

    def __call__(self, shader: str | None) -> Any:
        named = shader or self.default
        if named not in self.calls:
            self.calls[named] = lighting_calls(named, self.scene_dir)
        key = (shader, lighting_for(self.lighting, self.calls[named]))
        if key not in self.made:
            self.made[key] = mesh_program(self.ctx, named, self.scene_dir,
                                          self.defines + key[1])
        return self.made[key]

    def __iter__(self) -> Any:
        return iter(dict.fromkeys(shader for shader, _ in self.made))

    def lacks(self, shader: str | None) -> tuple[Path, tuple[str, ...]]:
        """:func:`~hfrender.renderer.surface.unlit_calls` of ``shader``, its file read once
        a render as for :attr:`calls` (was: at every sub-frame lit by a lamp or the sun)."""
        if shader not in self.unlit:
            self.unlit[shader] = unlit_calls(shader, self.scene_dir)
        return self.unlit[shader]

    def release(self) -> None:
        for prog in self.made.values():
            prog.release()
        self.made, self.calls, self.unlit = {}, {}, {}


def mesh_program(ctx: Any, shader: str | None, scene_dir: Path | None, defines: str) -> Any:
    """The surface program of ``shader`` over ``mesh.vert`` and ``mesh_header.frag`` with
    ``defines`` after their ``#version`` lines (lines unmoved in every part: each is
    numbered by ``#line``, :func:`glsl`'s and the user's): a loaded model's (``HF_MODEL``),
    a text's."""
    source, path = surface_source(shader, scene_dir)
    return surface_program(ctx, defined(glsl("mesh.vert"), defines),
                           defined(glsl("mesh_header.frag"), defines), source, path)


def defined(source: str, defines: str) -> str:
    """``source`` with ``defines`` after its ``#version`` line (its lines numbered as
    before: :func:`glsl` numbers them by ``#line`` after it)."""
    first, _, rest = source.partition("\n")
    return f"{first}\n{defines}{rest}"


def vertex_array(ctx: Any, prog: Any, vbo: Any, ibo: Any, rated: Any = None,
                 shape: PartShape | None = None) -> Any:
    """``prog``'s vertex array of rows of :data:`hfrender.scene.meshes.VERTEX` in ``vbo``
    and 32-bit indices in ``ibo``: the attributes the compiler dropped (a surface shader
    without normals) skipped; ``rated``: a skinned part's vertices' clip rates (vec4), as
    posed in NumPy; ``shape``: its unposed vertices, joints and weights, posed in the
    shader."""
    kept = [a for a in _ATTRIBUTES if a[0] in prog]
    fmt = " ".join(used if name in prog else skip for name, used, skip in _ATTRIBUTES)
    buffers = [(vbo, fmt, *(a[0] for a in kept))]
    if rated is not None and "in_skin_rate" in prog:
        buffers.append((rated, "4f", "in_skin_rate"))
    buffers += [] if shape is None else shape.buffers(prog)
    return ctx.vertex_array(prog, buffers, index_buffer=ibo, index_element_size=4)


class ModelDrawer:
    """Programs, buffers, textures and vertex arrays of loaded models for one context.
    ``shader_posing``: skinned and morphed parts posed in the vertex shader
    (:mod:`hfrender.renderer.skinning`); False: in NumPy (:func:`~hfrender.scene.
    model_skins.posed`, the reference), their vertices written at each pose."""

    def __init__(self, ctx: Any, scene_dir: Path | None) -> None:
        self.ctx, self.scene_dir, self.shader_posing = ctx, scene_dir, True
        self.programs = SurfacePrograms(ctx, scene_dir, DEFINE)
        self.uploads: dict[str, list[tuple[Any, Any, Any, Any, Part, Any]]] = {}
        self.vaos: dict[tuple, Any] = {}
        self.posed: dict[int, tuple] = {}  # the pose a part's buffers hold, by their id
        # each posed part's last pose, by (geometry, its object's first row, part): poser's
        self.kept: dict[tuple, tuple] = {}  # (a sub-frame's shadow map and colour: once)

    def program(self, shader: str | None) -> Any:
        return self.programs(shader)

    def _upload(self, geometry: str) -> list[tuple[Any, Any, Any, Any, Part, Any, Any]]:
        """Each part's (vertices, indices, base colour texture, emissive texture, part, its
        vertices' clip rates: a skinned or morphed part's, else None; its
        :class:`~hfrender.renderer.skinning.PartShape`: one that fits the shader's posing,
        else None): a texture made once an image, shared by the parts (and uses) that
        show it."""
        if geometry not in self.uploads:
            made: dict[int, Any] = {}  # id of a Part's image (held by the model) -> texture

            def texture(image: np.ndarray | None) -> Any:
                if image is not None and id(image) not in made:
                    made[id(image)] = self._texture(image)
                return None if image is None else made[id(image)]

            parts = model_data(geometry).parts
            moved = [part.skin is not None or part.morph is not None for part in parts]
            why = [unfit(self.ctx, part) if p else None
                   for part, p in zip(parts, moved, strict=True)]
            self.uploads[geometry] = [
                (self.ctx.buffer(part.vertices.tobytes()), self.ctx.buffer(part.indices.tobytes()),
                 texture(part.texture), texture(part.emission_texture), part,
                 self.ctx.buffer(reserve=16 * len(part.vertices)) if p else None,
                 PartShape(self.ctx, part) if p and w is None else None)
                for part, p, w in zip(parts, moved, why, strict=True)]
            if self.shader_posing:
                _say_numpy_posed(geometry, [w for w in why if w is not None])
        return self.uploads[geometry]

    def _texture(self, image: np.ndarray) -> Any:
        """An sRGB image (H, W, 4 uint8, GL row order) as a mipmapped texture."""
        import moderngl

        h, w = image.shape[:2]
        texture = self.ctx.texture((w, h), 4, image.tobytes(), internal_format=GL_SRGB8_ALPHA8)
        texture.build_mipmaps()
        texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
        return texture

    def _vao(self, prog: Any, geometry: str, index: int) -> Any:
        key = (id(prog), geometry, index)
        if key not in self.vaos:
            vbo, ibo, *_, rated, shape = self._upload(geometry)[index]
            self.vaos[key] = vertex_array(self.ctx, prog, vbo, ibo, rated, shape)
        return self.vaos[key]

    def prepare(self, shader: str | None, geometry: str) -> None:
        """Compile and upload now, so that errors come before any drawing."""
        prog = self.program(shader)
        for i in range(len(self._upload(geometry))):
            self._vao(prog, geometry, i)

    def render(self, prog: Any, geometry: str, model: np.ndarray,
               place: Callable[[int], np.ndarray] | None = None,
               pose: Callable[[int], tuple] | None = None) -> None:
        """Draw every part of the model with ``prog`` (its other uniforms set already);
        ``place(i)``, where given, sets part i's own matrices and returns its model matrix
        (an animated model's); ``pose(i)``, where given, skinned part i's vertices posed
        and their clip rates (None: unknown), :func:`~hfrender.scene.model_skins.posed`'s,
        or its :class:`~hfrender.renderer.skinning.ShaderPose` (else it is drawn in its
        rest pose) and how its joints turn its faces
        (:func:`~hfrender.scene.model_skins.facing`)."""
        import moderngl

        whole = _front(model) if place is None else None  # (a still model's: once)
        for i, upload in enumerate(self._upload(geometry)):
            _, _, texture, glow, part, *_ = upload
            front = whole or _front(place(i))  # type: ignore[misc]
            found = None if pose is None or (part.skin or part.morph) is None else pose(i)
            self._pose(prog, upload, found)
            front = _turned(front, part, found)
            set_uniform(prog, "u_textured", int(texture is not None))
            set_uniform(prog, "u_flat_normals", int(not part.smooth))
            set_uniform(prog, "u_material_emission", part.emission)
            set_uniform(prog, "u_emission_textured", int(glow is not None))
            if texture is not None:
                texture.use(0)
                set_uniform(prog, "u_base_texture", 0)
            if glow is not None:  # (unit 1: the base colour's stays bound beside it)
                glow.use(1)
                set_uniform(prog, "u_emission_texture", 1)
            culled = not part.double_sided and front is not None
            if culled:
                self.ctx.front_face = front
                self.ctx.enable(moderngl.CULL_FACE)
            self._vao(prog, geometry, i).render(moderngl.TRIANGLES)
            if culled:
                self.ctx.disable(moderngl.CULL_FACE)
                self.ctx.front_face = "ccw"

    def shaded(self, geometry: str) -> set[int]:
        """The parts (by place) of ``geometry`` posed in the shader now."""
        return {k for k, u in enumerate(self._upload(geometry)) if u[6] is not None} \
            if self.shader_posing else set()

    def _pose(self, prog: Any, upload: tuple, found: tuple | None) -> None:
        """A skinned or morphed part's buffers as posed (``found``: its vertices and their
        clip rates, :func:`~hfrender.scene.model_skins.posed`'s), or back at rest (None)
        where a pose was written: the buffers are the model's, shared by the Meshes that
        show it; posed in the shader (``found[0]`` a :class:`~hfrender.renderer.skinning.
        ShaderPose`): its joints' texture written, its uniforms set."""
        vbo, part, rated, shape = upload[0], upload[4], upload[5], upload[6]
        if found is not None and isinstance(found[0], ShaderPose):
            if self.posed.get(id(shape)) is not found:
                shape.write(found[0])
                self.posed[id(shape)] = found
            shape.use(prog, found[0])
            set_uniform(prog, "u_skinned", 0)
            if found[0].rated and part.skin is not None:
                set_uniform(prog, "u_clip_rate", _STILL)
            return
        set_uniform(prog, "u_posing", 0)
        rates = None if found is None else found[1]
        if found is not None and self.posed.get(id(vbo)) is not found:  # (held: not again)
            vbo.write(found[0].tobytes())
            if rates is not None:
                rated.write(rates.tobytes())
            self.posed[id(vbo)] = found
        elif found is None and self.posed.pop(id(vbo), None) is not None:
            vbo.write(part.vertices.tobytes())
        if rates is not None and part.skin is not None:  # (the whole of its motion: its
            set_uniform(prog, "u_clip_rate", _STILL)  # joints' rows have the Mesh's)
        set_uniform(prog, "u_skinned", int(rates is not None))

    def release(self) -> None:
        for obj in self.vaos.values():
            obj.release()
        self.programs.release()
        made = {id(obj): obj for parts in self.uploads.values() for u in parts
                for obj in (*u[:4], *u[5:]) if obj is not None}  # (a shared texture: once)
        for obj in made.values():
            obj.release()
        self.vaos, self.uploads = {}, {}
        self.posed, self.kept = {}, {}  # (keyed by buffers' ids, which new ones may take)


_SAID: set[str] = set()  # models whose parts posed in NumPy were said (once a process)


def _say_numpy_posed(geometry: str, why: list[str]) -> None:
    """Once a model: its parts past the shader's limits (:func:`~hfrender.renderer.skinning.
    unfit`'s ``why``), posed in NumPy each sub-frame instead (was: unsaid, only slower)."""
    if not why or geometry in _SAID:
        return
    _SAID.add(geometry)
    n = len(why)
    fix = (f"; export it with at most {INFLUENCES} influences a vertex (Blender: Bone "
           "Influences) to pose it in the shader") if "joints a vertex" in why[0] else ""
    log.warning("%s: %d skinned or morphed part%s of it %s %s: %s posed in NumPy every "
                "sub-frame instead (the same pixels, slower: some 2-7 ms a sub-frame for "
                "10,000 vertices)%s", model_data(geometry).path.name, n, "s" * (n != 1),
                "has" if n == 1 else "have (the first)", why[0],
                "it is" if n == 1 else "they are", fix)


def poser(geometry: str, moves: list[np.ndarray], start: int, rates: np.ndarray,
          clip: np.ndarray, drawer: ModelDrawer | None = None) -> Callable[[int], tuple]:
    """:meth:`ModelDrawer.render`'s ``pose`` of a model at its :meth:`Mesh.part_matrices`
    ``moves``, whose clip rates are ``rates``' rows from ``start`` (fewer: its posed
    parts' vertices without rates, moving with the Mesh), ``clip`` the Mesh's clip matrix
    now (proj x view x model). ``drawer``: the parts it poses in the shader
    (:meth:`ModelDrawer.shaded`: their :class:`~hfrender.renderer.skinning.ShaderPose`,
    the rest NumPy's); its :attr:`ModelDrawer.kept`: a part's pose found for these very
    ``moves`` and ``rates`` (and ``clip``) is not found again: a sub-frame's shadow map and
    its colour pass pose it once."""
    parts = model_data(geometry).parts
    joints, shapes = skin_starts(parts), morph_rows(parts)
    kept = None if drawer is None else drawer.kept
    shaded = set() if drawer is None else drawer.shaded(geometry)

    def rows(at: int, n: int) -> np.ndarray | None:
        return np.asarray(rates[start + at:start + at + n]) if start + at + n <= len(
            rates) else None

    def pose(k: int) -> tuple:
        key = (geometry, start, k, k in shaded)  # (a pose of NumPy's or the shader's)
        held = None if kept is None else kept.get(key)
        if held is not None and held[0] is moves and held[1] is rates and np.array_equal(
                held[2], clip):
            return held[3]
        found = posing(k)
        if kept is not None:
            kept[key] = (moves, rates, clip, found)
        return found

    def posing(k: int) -> tuple:
        part, matrices, moving, shape = parts[k], None, None, None
        if part.skin is not None:
            at, n = joints[k], len(part.skin.joints)
            matrices, moving = np.stack(moves[at:at + n]), rows(at, n)
        if part.morph is not None:
            at, count = shapes[k]
            n = weight_row_count(count)
            spin = rows(at, n)
            shape = (weights_of(moves[at:at + n], count),
                     None if spin is None else weights_of(spin, count),
                     clip if part.skin is not None else clip @ moves[k])
        found = (shader_pose(part, matrices, moving, shape), None) if k in shaded else \
            posed(part, matrices, moving, shape)
        return *found, 1 if matrices is None else facing(part.skin, matrices)

    return pose


def _turned(front: str, part: Part, found: tuple | None) -> str | None:
    """The winding of part's front faces on screen (``front``: its model matrix's), its
    pose ``found`` (:func:`poser`'s) in: turned where its joints all mirror, or where its
    node's rest transform does (its faces were turned for it, and a pose leaves that
    transform out), not both; None where some of its joints mirror and some do not (its
    faces face either way: drawn without culling)."""
    if found is None or part.skin is None:
        return front
    turn = found[2] * (-1 if part.skin.mirrored else 1)
    return None if turn == 0 else front if turn > 0 else "ccw" if front == "cw" else "cw"


def _front(model: np.ndarray) -> str:
    """The winding of a front face on screen: the projection flips y (GL's row 0 is the
    image's top), so a front face, counter-clockwise in the file, is clockwise there, and
    the other way where ``model`` mirrors."""
    return "ccw" if np.linalg.det(model[:3, :3]) < 0 else "cw"
