"""Drawing a Shadertoy-style fragment shader (:mod:`hfrender.render.shadertoy` makes its
program): ``iTime`` the sub-frame's time, shadertoy.com's channels black."""

from __future__ import annotations

from typing import Any

from hfrender.render.programs import ShaderError, compile_program, glsl, set_uniform
from hfrender.render.shadertoy import no_main_image, shadertoy_hint, shadertoy_program
from hfrender.render.target import Target
from hfrender.scene import ShaderScene


class ShaderRenderer:
    """Draws a Shadertoy-style fragment shader; ``iTime`` is the sub-frame's time. A shader
    has no geometry, hence no velocity plane."""

    has_velocity = False

    def __init__(self, ctx: Any, scene: ShaderScene, size: tuple[int, int], with_depth: bool,
                 fps: float = 30.0, hdr: bool = False) -> None:
        self.ctx, self.scene, self.size, self.fps = ctx, scene, size, fps
        said = no_main_image(scene.source)
        if said is not None:
            raise ShaderError(f"{scene.source_path}: {said}")
        self.target = Target(ctx, size, with_depth, hdr=hdr)
        try:
            self.prog = compile_program(ctx, glsl("fullscreen.vert"),
                                        shadertoy_program(scene.source), scene.source_path)
        except ShaderError as exc:
            hint = shadertoy_hint(str(exc))
            raise ShaderError(f"{exc}{hint}", [exc.errors[0] + hint, *exc.errors[1:]]) \
                from None
        self.vao = ctx.vertex_array(self.prog, [])
        self.channels = [n for n in (f"iChannel{i}" for i in range(4)) if self.prog.get(n, None)]
        # shadertoy.com's channels read black: one texel of 0 (nothing else bound there)
        self.black = ctx.texture((1, 1), 4, bytes(4)) if self.channels else None
        for name in self.channels:  # each its own unit: one may be a samplerCube
            set_uniform(self.prog, name, int(name[-1]))

    def prepare(self) -> None:
        """Nothing to do: the shader compiled in the constructor."""

    def draw(self, t: float, frame: int, lens_offset_m: tuple[float, float] = (0.0, 0.0),
             jitter_px: tuple[float, float] = (0.0, 0.0)) -> None:
        import moderngl

        w, h = self.size
        self.target.fbo.use()
        self.ctx.viewport = (0, 0, w, h)
        self.ctx.disable(moderngl.DEPTH_TEST)
        set_uniform(self.prog, "iResolution", (float(w), float(h), 1.0))
        set_uniform(self.prog, "iTime", float(t))
        set_uniform(self.prog, "iTimeDelta", 1.0 / self.fps)
        set_uniform(self.prog, "iFrameRate", float(self.fps))
        set_uniform(self.prog, "iFrame", int(frame))
        set_uniform(self.prog, "iMouse", (0.0, 0.0, 0.0, 0.0))  # no mouse in a render
        set_uniform(self.prog, "hf_linear_out", int(self.target.hdr))
        # the sub-frame's antialiasing offset (its place in the window's pattern), added to
        # fragCoord: the sub-frames sample the pixel, as a mesh's do (y up, as fragCoord's)
        set_uniform(self.prog, "hf_jitter", (float(jitter_px[0]), float(jitter_px[1])))
        # a fixed day (2000-01-01; months from 0, as in JavaScript) whose clock runs with
        # iTime: a clock shader moves, and the render stays a function of time alone
        set_uniform(self.prog, "iDate", (2000.0, 0.0, 1.0, float(t)))
        for name in self.channels:  # (another texture may have been bound there since)
            self.black.use(location=int(name[-1]))
        self.vao.render(moderngl.TRIANGLES, vertices=3)

    def read_into(self, color: Any, depth: Any = None, velocity: Any = None) -> None:
        self.target.read_into(color, depth, velocity)

    def release(self) -> None:
        self.vao.release()
        self.prog.release()
        self.target.release()
        if self.black is not None:
            self.black.release()
