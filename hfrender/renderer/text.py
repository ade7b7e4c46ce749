"""Drawing text (:mod:`hfrender.scene.text`): each raster uploaded once per renderer (a new
one written into the texture of the upload going out where their sizes match: a counter's
next string) as a single-channel coverage texture (mipmapped and filtered trilinearly,
so small text stays smooth) on a quad of the loaded models' vertex layout; the raster's
level (2, 4, ... times finer, :func:`level`) from the size a raster pixel takes on the
picture in each sub-frame (:func:`on_picture`), so that large text stays sharp. Drawn by
the models' program with ``HF_TEXT`` defined: the colour times the coverage, premultiplied
(``shaders/glsl/mesh_main.frag``).

Text is drawn with the translucent objects (:mod:`hfrender.renderer.translucent`), its
coverage times its opacity its alpha: smooth edges over whatever lies behind, and alpha in
a ``--transparent`` output. Before them, :meth:`TextDrawer.mark` writes its depth and
velocity (not its colour, nor the depth test's buffer) where it covers at least half a
pixel, so ``--reconstruct`` and ``--dof depth`` see it as any object.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.models import SurfacePrograms, vertex_array
from hfrender.renderer.programs import set_uniform, share_once
from hfrender.scene.nodes import drawn_opacity
from hfrender.scene.text import Raster, is_text, level_key

_DEFINE = "#define HF_MODEL 1\n#define HF_TEXT 1\n"
_QUAD = np.array([0, 1, 2, 0, 2, 3], np.uint32)
KEPT = 64  # rasters kept uploaded (a counter's text changes every frame: the oldest go)
KEPT_PIXELS = 1 << 27  # and their pixels at most (128 MB; more with their mipmaps)
MOST_LEVEL = 5  # a raster 32 times finer at most: a 4096 px font, some 2,800 px cap height
LEVEL_PIXELS = 1 << 25  # a finer raster's pixels at most (32 MB)
UNLIT = "unlit"  # a text's surface shader unless it names one (shaders/glsl/unlit.glsl)
MARK_COVER = 0.5  # depth and velocity where coverage x opacity reaches this


def _fitted(coverage: np.ndarray, most: int) -> np.ndarray:
    """``coverage`` averaged down to at most ``most`` pixels a side (the GL's largest
    texture: a longer line or more lines drew nothing), on the same quad and UVs."""
    h, w = coverage.shape
    if max(h, w) <= most:
        return coverage
    from PIL import Image

    k = most / max(h, w)
    size = (min(most, max(1, round(w * k))), min(most, max(1, round(h * k))))
    return np.asarray(Image.fromarray(coverage).resize(size, Image.Resampling.BOX))


def on_picture(model: np.ndarray, bounds: np.ndarray, lens: tuple,
               orthographic: bool) -> float:
    """Picture pixels a pixel of a text's level-0 raster spans at most: its ``model``
    matrix's larger step across the quad (``bounds``), at the depth of the quad's nearest
    corner (inf at or behind the eye); ``lens``: the renderer's (eye, forward, pixels a
    metre spans 1 m away), from the camera without its lens offset or jitter, so that
    every sub-frame of one time draws the same level."""
    m = np.asarray(model, np.float64)
    step = max(float(np.linalg.norm(m[:3, 0])), float(np.linalg.norm(m[:3, 1])))
    eye, forward, pixels = lens
    if orthographic:
        return step * pixels
    (x0, y0, _), (x1, y1, _) = bounds
    corners = m[:3, :3] @ np.array([[x0, x1, x1, x0], [y0, y0, y1, y1], [0.0] * 4])
    depth = float(((corners + m[:3, 3:] - np.reshape(eye, (3, 1))).T @ forward).min())
    return step * pixels / depth if depth > 0.0 else math.inf


def level(scale: float, shape: tuple[int, int], most: int) -> int:
    """The raster level for a text whose level-0 raster (``shape``) has pixels ``scale``
    picture pixels wide: the least whose pixels are no wider than the picture's (2 **
    level >= ``scale``: drawn no larger than rasterised, its edges a pixel wide), up to
    :data:`MOST_LEVEL` and as far as its raster stays within the GL's largest texture
    (``most`` pixels a side) and :data:`LEVEL_PIXELS`. Level 0 (today's 128 px font,
    mipmapped where smaller) for any text at most that large on the picture."""
    h, w = shape
    k = 0
    while (k < MOST_LEVEL and (1 << k) < scale and max(h, w) << (k + 1) <= most
           and (h * w) << (2 * k + 2) <= LEVEL_PIXELS):
        k += 1
    return k


class TextDrawer:
    """Programs, quads and coverage textures of a renderer's texts."""

    def __init__(self, ctx: Any, scene_dir: Path | None) -> None:
        self.ctx, self.scene_dir = ctx, scene_dir
        self.programs = SurfacePrograms(ctx, scene_dir, _DEFINE, UNLIT)
        self.uploads: OrderedDict[str, tuple[Any, Any, Any]] = OrderedDict()
        self.vaos: dict[tuple, Any] = {}
        self.most = int(ctx.info.get("GL_MAX_TEXTURE_SIZE", 1 << 30))  # pixels a side

    def program(self, shader: str | None) -> Any:
        """A text's program: its ``shader``'s, or ``unlit`` (a title shows its colour
        whatever the light; was: lit as a plane, white grey 207 by default)."""
        return self.programs(shader)

    def _upload(self, key: str, make: Callable[[], Raster]) -> tuple[Any, Any, Any]:
        """The buffers and texture of the raster ``key``, uploaded from ``make()`` where
        not kept uploaded (a finer raster is not made again while its upload is kept: was,
        past the LEVELS_KEPT rasters raster_at keeps, each text's at every draw)."""
        if key in self.uploads:
            self.uploads.move_to_end(key)
            return self.uploads[key]
        raster = make()
        coverage = np.ascontiguousarray(_fitted(raster.coverage, self.most)[::-1])
        made = self._reused(key, coverage, raster) or self._made(coverage, raster)
        self.uploads[key] = made
        while len(self.uploads) > KEPT or (len(self.uploads) > 1 and sum(
                t.width * t.height for _, _, t in self.uploads.values()) > KEPT_PIXELS):
            gone, old = self.uploads.popitem(last=False)
            for k in [k for k in self.vaos if k[1] == gone]:
                self.vaos.pop(k).release()
            for obj in old:
                obj.release()
        return made

    def _made(self, coverage: np.ndarray, raster: Raster) -> tuple[Any, Any, Any]:
        """New buffers and a new mipmapped texture for ``coverage`` (bottom row first)."""
        import moderngl

        h, w = coverage.shape
        texture = self.ctx.texture((w, h), 1, coverage)
        texture.build_mipmaps()
        texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
        texture.repeat_x = texture.repeat_y = False
        return (self.ctx.buffer(raster.vertices.tobytes()), self.ctx.buffer(_QUAD.tobytes()),
                texture)

    def _reused(self, key: str, coverage: np.ndarray, raster: Raster) -> tuple | None:
        """Where the upload kept longest goes out now (:data:`KEPT` held) and its texture
        is ``coverage``'s size (a counter's next string, most often), its buffers, texture
        and vertex arrays written again for ``key`` (was: a texture and buffers made and
        ones released each time; the mipmaps are built again as before), or None."""
        if len(self.uploads) < KEPT:
            return None
        gone, old = next(iter(self.uploads.items()))
        vbo, _, texture = old
        if (texture.width, texture.height) != coverage.shape[::-1]:
            return None
        del self.uploads[gone]
        for k in [k for k in self.vaos if k[1] == gone]:
            self.vaos[k[0], key] = self.vaos.pop(k)
        texture.write(coverage)
        texture.build_mipmaps()
        vbo.write(raster.vertices.tobytes())
        return old

    def _vao(self, prog: Any, key: str, make: Callable[[], Raster]) -> tuple[Any, Any]:
        """(the vertex array, the texture) of the raster ``key`` (:meth:`_upload`)."""
        vbo, ibo, texture = self._upload(key, make)
        if (id(prog), key) not in self.vaos:
            self.vaos[id(prog), key] = vertex_array(self.ctx, prog, vbo, ibo)
        return self.vaos[id(prog), key], texture

    def prepare(self, obj: Any) -> None:
        """Compile and upload now, so that errors come before any drawing."""
        raster = obj.raster()
        self._vao(self.program(obj.shader), raster.key, lambda: raster)

    def render(self, prog: Any, obj: Any, cover: float = 0.0, scale: float = 0.0) -> None:
        """Draw ``obj``'s quad with ``prog`` (its other uniforms set already), dropping
        what covers less than ``cover`` (with its opacity), from the raster of its
        :func:`level` for ``scale`` (:func:`on_picture`)."""
        import moderngl

        base = obj.raster()
        k = level(scale, base.coverage.shape, self.most)
        vao, texture = self._vao(prog, level_key(base.key, k), lambda: obj.raster(k))
        texture.use(0)
        set_uniform(prog, "u_base_texture", 0)
        set_uniform(prog, "u_textured", 0)
        set_uniform(prog, "u_flat_normals", 0)
        set_uniform(prog, "u_cover_cut", float(cover))
        vao.render(moderngl.TRIANGLES)

    def mark(self, renderer: Any, shared: dict, rates: np.ndarray, order: list) -> None:
        """Write every drawn text's depth and velocity (not its colour, nor the depth
        buffer) where it covers at least :data:`MARK_COVER` of a pixel, farthest first as
        their colours are laid (``order``: :func:`~hfrender.renderer.translucent.in_order`'s),
        so where texts overlap the one drawn on top has the last word (was: the scene's
        order, a far text's depth under a near one); nothing where the target has neither
        plane."""
        if renderer.target.depth is None:
            return
        texts = [(i, obj) for i, obj in order if is_text(obj.geometry)]
        if not texts:
            return
        fbo = renderer.target.draw_fbo
        masks = fbo.color_mask
        fbo.color_mask = ((False,) * 4, *masks[1:])
        fbo.depth_mask = False
        fbo.use()
        ready: set[int] = set()
        for i, obj in texts:
            prog = renderer.program_for(obj)
            share_once(prog, ready, shared)
            set_uniform(prog, "u_opacity", drawn_opacity(obj))
            renderer.draw_one(prog, i, obj, rates, MARK_COVER)
        fbo.color_mask, fbo.depth_mask = masks, True
        fbo.use()

    def release(self) -> None:
        for obj in [*self.vaos.values(), *(o for made in self.uploads.values() for o in made)]:
            obj.release()
        self.programs.release()
        self.vaos, self.uploads = {}, OrderedDict()
