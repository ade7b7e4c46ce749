"""Drawing many objects of one built-in geometry (cube, plane, a sphere's level) and one
program with a single instanced draw: each object's model matrix, normal matrix, clip
rate (the velocity plane's), linear colour with its emissive, and opacity are a row of a
per-instance buffer that ``mesh.vert`` reads (``i_*``), not uniforms set one object at a
time (was: 5 uniform uploads from Python and a draw call an object a sub-frame). A
surface shader that declares one of those values as a uniform of its own (``uniform mat4
u_model;``) is drawn an object a draw, the uniforms set from its row. Loaded models
(:mod:`hfrender.renderer.models`) keep uniforms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.scene.nodes import drawn_opacity
from hfrender.scene.objects import mesh

# (attribute, its format, bytes a row) in the order of a row: column-major, as uniforms are
_ROW = (("i_model", "16f", 64), ("i_normal_matrix", "9f", 36), ("i_clip_rate", "16f", 64),
        ("i_object", "4f", 16), ("i_opacity", "1f", 4))
FLOATS = sum(size for _, _, size in _ROW) // 4  # 46
KEPT = 48  # geometries whose buffers a context keeps (the fixed ones are 18, and tori's)
# the uniform a surface shader may declare for each part of a row: (name, first, end)
_UNIFORMS = (("u_model", 0, 16), ("u_normal_matrix", 16, 25), ("u_clip_rate", 25, 41),
             ("u_color", 41, 44), ("u_emissive", 44, 45))


def cofactors(m: np.ndarray) -> np.ndarray:
    """det(m) * inverse(m).T of each of ``m`` (N, 3, 3): transforms normals, and stays
    defined for a zero scale; the same arithmetic as the renderer's one-object
    ``_cofactor``, in one stacked product."""
    r0, r1, r2 = m[:, 0], m[:, 1], m[:, 2]
    return np.stack([np.cross(r1, r2), np.cross(r2, r0), np.cross(r0, r1)], axis=1)


def instance_rows(models: np.ndarray, rates: np.ndarray, objects: np.ndarray) -> np.ndarray:
    """(N, FLOATS) float32 rows of N objects: ``models`` and ``rates`` (N, 4, 4) float64,
    ``objects`` (N, 5) linear colour, emissive and opacity."""
    n = len(models)
    rows = np.empty((n, FLOATS), np.float32)
    rows[:, 0:16] = models.transpose(0, 2, 1).reshape(n, 16)
    rows[:, 16:25] = cofactors(models[:, :3, :3]).transpose(0, 2, 1).reshape(n, 9)
    rows[:, 25:41] = rates.transpose(0, 2, 1).reshape(n, 16)
    rows[:, 41:46] = objects
    return rows


def run_rows(items: list, rates: np.ndarray) -> np.ndarray:
    """The instance rows (:func:`instance_rows`) of ``items``, (place, object, world
    matrix) of built-in shapes: a translucent run's, drawn once a side, each at its own
    opacity (its groups' in: :func:`drawn_opacity`)."""
    models = np.stack([model for _, _, model in items])
    objects = np.array([(*obj.linear_color(), float(obj.emissive), drawn_opacity(obj))
                        for _, obj, _ in items])
    return instance_rows(models, rates_at(rates, [i for i, _, _ in items]), objects)


def rates_at(rates: np.ndarray, places: list[int]) -> np.ndarray:
    """(n, 4, 4): the clip rates of the objects at ``places``; none (no motion) where
    ``rates`` has none (no velocity asked, or an object added since)."""
    where = np.asarray(places, np.intp)
    moving = where < len(rates)
    out = np.zeros((len(where), 4, 4))
    out[moving] = np.asarray(rates)[where[moving]]
    return out


class InstancedDrawer:
    """The built-in geometries' buffers, and a vertex array with a per-instance buffer for
    each (program, geometry) drawn, for one context."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.buffers: dict[str, tuple[Any, Any]] = {}  # geometry: (vertices, indices)
        self.vaos: dict[tuple, tuple[Any, Any]] = {}  # (program, geometry): (vao, rows)
        self.one_by_one: dict[int, bool] = {}  # program: its fragment code reads u_model...

    def vao(self, prog: Any, geometry: str) -> tuple[Any, Any]:
        """(the vertex array, its per-instance buffer) of ``geometry`` drawn by ``prog``."""
        key = (id(prog), geometry)
        if geometry in self.buffers:  # the most recently used last
            self.buffers[geometry] = self.buffers.pop(geometry)
        if key not in self.vaos:
            if geometry not in self.buffers:
                self._make_room()
                verts, idx = mesh(geometry)
                self.buffers[geometry] = (self.ctx.buffer(verts.tobytes()),
                                          self.ctx.buffer(idx.tobytes()))
            vbo, ibo = self.buffers[geometry]
            rows = self.ctx.buffer(reserve=FLOATS * 4)
            # a surface shader that ignores the normal lets the compiler drop in_normal
            # (and the normal matrix): a dropped attribute is skipped
            per_vertex = ((vbo, "3f 3f", "in_position", "in_normal") if "in_normal" in prog
                          else (vbo, "3f 3x4", "in_position"))
            fmt = " ".join(f if name in prog else f"{size}x" for name, f, size in _ROW)
            per_instance = (rows, f"{fmt}/i", *(name for name, _, _ in _ROW if name in prog))
            self.vaos[key] = (self.ctx.vertex_array(prog, [per_vertex, per_instance],
                                                    index_buffer=ibo, index_element_size=4),
                              rows)
            self.one_by_one[id(prog)] = any(prog.get(name, None) is not None
                                            for name, _, _ in _UNIFORMS)
        return self.vaos[key]

    def _make_room(self) -> None:
        """Release the least recently used geometries' buffers and vertex arrays while
        :data:`KEPT` are held (a torus's tube changed in update(t) makes a mesh a ratio:
        was one kept on the GPU for each, 1.6 MB a full torus, without end)."""
        while len(self.buffers) >= KEPT:
            oldest = next(iter(self.buffers))
            for key in [k for k in self.vaos if k[1] == oldest]:
                for buffer in self.vaos.pop(key):
                    buffer.release()
            for buffer in self.buffers.pop(oldest):
                buffer.release()

    def draw(self, prog: Any, geometry: str, rows: np.ndarray) -> None:
        """Draw ``geometry`` once for each of ``rows`` (:func:`instance_rows`), in order."""
        import moderngl

        vao, buffer = self.vao(prog, geometry)
        if not self.one_by_one[id(prog)]:
            _write(buffer, rows)
            vao.render(moderngl.TRIANGLES, instances=len(rows))
            return
        for row in rows:  # its fragment code reads a uniform of the row: set, one a draw
            for name, first, end in _UNIFORMS:
                uniform = prog.get(name, None)
                if uniform is not None:
                    uniform.write(row[first:end].tobytes())
            _write(buffer, row[None])
            vao.render(moderngl.TRIANGLES, instances=1)

    def release(self) -> None:
        for obj in [*(b for pair in self.vaos.values() for b in pair),
                    *(b for pair in self.buffers.values() for b in pair)]:
            obj.release()
        self.buffers, self.vaos, self.one_by_one = {}, {}, {}


def _write(buffer: Any, rows: np.ndarray) -> None:
    if rows.nbytes > buffer.size:
        buffer.orphan(rows.nbytes)
    buffer.write(np.ascontiguousarray(rows))
