"""The sun's penumbra at each pixel of a probe sub-frame, found on the GL side
(``shaders/glsl/penumbra.frag``) for :func:`hfrender.engine.penumbra.penumbra_px`: was the
whole shadow map read back (up to 4096x4096 float32, ~130 ms), padded (~28 ms) and gathered
3x3 in NumPy at every finite pixel (~70 ms) once a probe; now one pass over the picture
reads the texels its pixels land on and gives back a pixel-sized plane (two floats a
pixel). The same figures to 1e-6 of the width (tests/test_penumbra_probe.py): in double
precision where the GL has it (4.0 on: Mesa's llvmpipe, NVIDIA, AMD, Intel), as NumPy's
float64 did, a map depth sampled in the shader rounding at most a float step from
glGetTexImage's; in float where it has not (3.3: the same to 3e-7 on the tests' plates).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.renderer.programs import compile_program, glsl
from hfrender.renderer.shadows import UNIT
from hfrender.renderer.target import unbind


class PenumbraPass:
    """The program, and a plane of the picture's size it writes (made on the first
    :meth:`plane`, again for another size); ``double`` None: as the GL has them."""

    def __init__(self, ctx: Any, double: bool | None = None) -> None:
        self.ctx = ctx
        self.double = ctx.version_code >= 400 if double is None else double
        _, _, body = glsl("penumbra.frag").partition("\n")
        version = "#version 400 core\n" if self.double else "#version 330 core\n"
        self.program = compile_program(ctx, glsl("fullscreen.vert"), version + body, None)
        self.vao = ctx.vertex_array(self.program, [])
        self.size, self.out, self.fbo, self.read = (0, 0), None, None, np.empty(0)
        self.held: tuple | None = None  # penumbra_px's last: (what it was of, depth, widest)

    def _make(self, size: tuple[int, int]) -> None:
        if size == self.size:
            return
        self._drop()
        self.size = size
        self.out = self.ctx.texture(size, 2, dtype="f4")
        self.fbo = self.ctx.framebuffer([self.out])
        self.read = np.empty((size[1], size[0], 2), np.float32)

    def _set(self, name: str, value: Any) -> None:
        uniform = self.program.get(name, None)
        if uniform is None:  # (one the compiler left out)
            return
        if isinstance(value, int):
            uniform.value = value
        else:  # double or float, as the program's; matrices column-major
            uniform.write(np.asarray(value, np.float64 if self.double else np.float32).T
                          .tobytes())

    def plane(self, renderer: Any, spread: float) -> np.ndarray:
        """(h, w) float64: the penumbra, in output pixels, at each pixel of the probe
        sub-frame ``renderer`` last drew (its depth plane and the sun's map, kept by its
        :class:`~hfrender.renderer.shadows.ShadowPass`), its scene's sun's disk seen
        ``spread`` (2 tan(light_angle / 2)) across a metre; 0 where lit, sky or off the
        map."""
        import moderngl

        shadows, ctx = renderer.shadows, self.ctx
        self._make(renderer.size)
        view, proj = renderer._camera_matrices((0.0, 0.0), (0.0, 0.0))
        to_map, metres, texel = shadows.seen_by
        ortho = bool(renderer.scene.camera.orthographic)
        self._set("u_world", np.linalg.inv(view))
        self._set("u_to_map", to_map)
        self._set("u_unproject", (proj[0, 0], proj[1, 1], *proj[:2, 3 if ortho else 2]))
        self._set("u_sizes", (*renderer.size, shadows.size, 0.0))
        self._set("u_scales", (metres, texel, spread, renderer._pixels_a_metre()[2]))
        for name, value in (("u_orthographic", int(ortho)), ("u_depth", 0), ("u_map", UNIT)):
            self._set(name, value)
        renderer.target.depth.use(0)
        shadows.map.use(UNIT)
        shadows.map.compare_func = ""  # (its depths as they are: texelFetch)
        try:
            self.fbo.use()
            ctx.viewport = (0, 0, *self.size)
            ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)
            self.vao.render(moderngl.TRIANGLES, vertices=3)
            self.fbo.read_into(self.read, components=2, dtype="f4")
        finally:
            shadows.map.compare_func = "<="  # (sampler2DShadow's, as ShadowPass made it)
        return self.read[..., 0].astype(np.float64) + self.read[..., 1]

    def _drop(self) -> None:
        unbind(self.ctx, (self.fbo,))  # (bound since its pass: the next made would fail)
        for obj in (self.fbo, self.out):
            if obj is not None:
                obj.release()

    def release(self) -> None:
        self._drop()
        self.vao.release()
        self.program.release()
