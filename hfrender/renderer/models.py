"""Drawing loaded models (:mod:`hfrender.scene.meshes`): buffers and textures uploaded once
per renderer, programs compiled with ``HF_MODEL`` defined (UVs, vertex colours, a texture,
flat or smooth normals), so the built-in geometries keep their programs unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.programs import glsl, set_uniform, surface_source
from hfrender.renderer.surface import surface_program
from hfrender.scene.meshes import Part, model_data

GL_SRGB8_ALPHA8 = 0x8C43  # textures are decoded from sRGB by the sampler (mipmaps too)
_DEFINE = "#define HF_MODEL 1\n"
_ATTRIBUTES = (("in_position", "3f", "3x4"), ("in_normal", "3f", "3x4"),
               ("in_uv", "2f", "2x4"), ("in_color", "4f2", "4x2"))


def mesh_program(ctx: Any, shader: str | None, scene_dir: Path | None, defines: str) -> Any:
    """The surface program of ``shader`` over ``mesh.vert`` and ``mesh_header.frag`` with
    ``defines`` after their ``#version`` lines (lines unmoved in the user's part: it is
    numbered by ``#line``): a loaded model's (``HF_MODEL``), a text's."""
    def defined(source: str) -> str:
        first, _, rest = source.partition("\n")
        return f"{first}\n{defines}{rest}"

    source, path = surface_source(shader, scene_dir)
    return surface_program(ctx, defined(glsl("mesh.vert")), defined(glsl("mesh_header.frag")),
                           source, path)


def vertex_array(ctx: Any, prog: Any, vbo: Any, ibo: Any) -> Any:
    """``prog``'s vertex array of rows of :data:`hfrender.scene.meshes.VERTEX` in ``vbo``
    and 32-bit indices in ``ibo``: the attributes the compiler dropped (a surface shader
    without normals) skipped."""
    kept = [a for a in _ATTRIBUTES if a[0] in prog]
    fmt = " ".join(used if name in prog else skip for name, used, skip in _ATTRIBUTES)
    return ctx.vertex_array(prog, [(vbo, fmt, *(a[0] for a in kept))], index_buffer=ibo,
                            index_element_size=4)


class ModelDrawer:
    """Programs, buffers, textures and vertex arrays of loaded models for one context."""

    def __init__(self, ctx: Any, scene_dir: Path | None) -> None:
        self.ctx, self.scene_dir = ctx, scene_dir
        self.programs: dict[str | None, Any] = {}
        self.uploads: dict[str, list[tuple[Any, Any, Any, Part]]] = {}
        self.vaos: dict[tuple, Any] = {}

    def program(self, shader: str | None) -> Any:
        if shader not in self.programs:
            self.programs[shader] = mesh_program(self.ctx, shader, self.scene_dir, _DEFINE)
        return self.programs[shader]

    def _upload(self, geometry: str) -> list[tuple[Any, Any, Any, Part]]:
        if geometry not in self.uploads:
            import moderngl

            parts = []
            for part in model_data(geometry).parts:
                texture = None
                if part.texture is not None:
                    h, w = part.texture.shape[:2]
                    texture = self.ctx.texture((w, h), 4, part.texture.tobytes(),
                                               internal_format=GL_SRGB8_ALPHA8)
                    texture.build_mipmaps()
                    texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
                parts.append((self.ctx.buffer(part.vertices.tobytes()),
                              self.ctx.buffer(part.indices.tobytes()), texture, part))
            self.uploads[geometry] = parts
        return self.uploads[geometry]

    def _vao(self, prog: Any, geometry: str, index: int) -> Any:
        key = (id(prog), geometry, index)
        if key not in self.vaos:
            vbo, ibo, _, _ = self._upload(geometry)[index]
            self.vaos[key] = vertex_array(self.ctx, prog, vbo, ibo)
        return self.vaos[key]

    def prepare(self, shader: str | None, geometry: str) -> None:
        """Compile and upload now, so that errors come before any drawing."""
        prog = self.program(shader)
        for i in range(len(self._upload(geometry))):
            self._vao(prog, geometry, i)

    def render(self, prog: Any, geometry: str, model: np.ndarray) -> None:
        """Draw every part of the model with ``prog`` (its other uniforms set already)."""
        import moderngl

        # the projection flips y (GL's row 0 is the image's top): a front face, counter-
        # clockwise in the file, is clockwise on screen, and the other way when mirrored
        front = "ccw" if np.linalg.det(model[:3, :3]) < 0 else "cw"
        for i, (_, _, texture, part) in enumerate(self._upload(geometry)):
            set_uniform(prog, "u_textured", int(texture is not None))
            set_uniform(prog, "u_flat_normals", int(not part.smooth))
            set_uniform(prog, "u_material_emission", part.emission)
            if texture is not None:
                texture.use(0)
                set_uniform(prog, "u_base_texture", 0)
            if not part.double_sided:
                self.ctx.front_face = front
                self.ctx.enable(moderngl.CULL_FACE)
            self._vao(prog, geometry, i).render(moderngl.TRIANGLES)
            if not part.double_sided:
                self.ctx.disable(moderngl.CULL_FACE)
                self.ctx.front_face = "ccw"

    def release(self) -> None:
        for obj in [*self.vaos.values(), *self.programs.values()]:
            obj.release()
        for vbo, ibo, texture, _ in (u for parts in self.uploads.values() for u in parts):
            for obj in (vbo, ibo, texture):
                if obj is not None:
                    obj.release()
        self.vaos, self.programs, self.uploads = {}, {}, {}
