"""Drawing a Shadertoy-style fragment shader (:mod:`hfrender.renderer.shadertoy` makes its
program): ``iTime`` the sub-frame's time; a channel the picture its shader names
(``// hfrender: iChannel0 = noise.png``), the buffer (``= bufA.frag``: a pass drawn first,
at the same time, into a float texture), else black."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.channel_textures import (
    buffer_texture,
    channel_texture,
    flat_only,
    sampler_kind,
)
from hfrender.renderer.programs import (
    ShaderError,
    ShaderInputError,
    code_fault,
    compile_program,
    glsl,
    set_uniform,
    shader_error,
    wrapper_errors_at,
)
from hfrender.renderer.shadertoy import (
    DEFINES_MAIN_IMAGE,
    shadertoy_program,
)
from hfrender.renderer.shadertoy_checks import (
    include_in,
    include_line,
    no_main_image,
    old_output,
    shadertoy_hint,
)
from hfrender.renderer.target import Target
from hfrender.scene import ShaderScene
from hfrender.scene.shader_lines import blank_comments
from hfrender.scene.shader_passes import ShaderPass


class ShaderRenderer:
    """Draws a Shadertoy-style fragment shader; ``iTime`` is the sub-frame's time. A shader
    has no geometry, hence no velocity plane. Its buffers (``scene.buffers``) are drawn
    first, each sub-frame, in their order."""

    has_velocity = False

    def __init__(self, ctx: Any, scene: ShaderScene, size: tuple[int, int], with_depth: bool,
                 fps: float = 30.0, hdr: bool = False) -> None:
        self.ctx, self.scene, self.size, self.fps = ctx, scene, size, fps
        self.buffers: dict[Path, tuple[Any, Any]] = {}
        self.passes: list[PassProgram] = []
        try:
            for buffer in scene.buffers:  # (each after those it reads)
                self.passes.append(PassProgram(ctx, buffer, self.buffers))
                self.buffers[self.passes[-1].key] = buffer_texture(ctx, size)
            self.image = PassProgram(ctx, scene, self.buffers)
        except BaseException:
            self.release()
            raise
        self._drop_unread()
        self.target = Target(ctx, size, with_depth, hdr=hdr)

    def _drop_unread(self) -> None:
        """Releases the buffers no drawn pass reads (given to a channel whose code never
        reads it, said by :mod:`~hfrender.renderer.shader_notes`; or read only by such a
        buffer): was drawn all the same each sub-frame, a full-screen pass for nothing."""
        needed = set(self.image.reads)
        for drawn in reversed(self.passes):  # (each after those it reads: readers first)
            if drawn.key in needed:
                needed |= drawn.reads
                continue
            drawn.release()
            texture, fbo = self.buffers.pop(drawn.key)
            fbo.release()
            texture.release()
        self.passes = [p for p in self.passes if p.key in self.buffers]

    def prepare(self) -> None:
        """Nothing to do: the shaders compiled in the constructor."""

    def draw(self, t: float, frame: int, lens_offset_m: tuple[float, float] = (0.0, 0.0),
             jitter_px: tuple[float, float] = (0.0, 0.0)) -> None:
        import moderngl

        w, h = self.size
        self.ctx.disable(moderngl.DEPTH_TEST)
        self.ctx.viewport = (0, 0, w, h)
        inputs = {"iResolution": (float(w), float(h), 1.0), "iTime": float(t),
                  "iTimeDelta": 1.0 / self.fps, "iFrameRate": float(self.fps),
                  "iFrame": int(frame), "iMouse": (0.0, 0.0, 0.0, 0.0),  # no mouse
                  # a fixed day (2000-01-01; months from 0, as in JavaScript) whose clock
                  # runs with iTime: a clock moves, and the render stays a function of time
                  "iDate": (2000.0, 0.0, 1.0, float(t))}
        for drawn in self.passes:  # each buffer at the same time, its pixels the Image's
            fbo = self.buffers[drawn.key][1]
            fbo.use()
            fbo.clear(0.0, 0.0, 0.0, 0.0)  # (what a pixel it discards holds: no feedback)
            drawn.run(inputs, jitter_px if drawn.shader.antialias else (0.0, 0.0), 0)
        self.target.fbo.use()
        self.ctx.viewport = (0, 0, w, h)
        self._clear()
        self.image.run(inputs, jitter_px, int(self.target.hdr))

    def _clear(self) -> None:
        """Black, and no depth (as hfrender's ``main()`` writes): what a pixel the shader
        ``discard``s shows (was: the sub-frame drawn before, a streak cut short on one side
        and the picture a function of what was drawn before it, a trial)."""
        fbo = self.target.fbo
        if self.target.depth is None:
            fbo.clear(0.0, 0.0, 0.0, 1.0)
            return
        on, off = (True,) * 4, (False,) * 4
        for mask, value in (((on, off), 0.0), ((off, on), float("inf"))):
            fbo.color_mask = mask
            fbo.clear(value, 0.0, 0.0, 1.0 if value == 0.0 else 0.0)
        fbo.color_mask = (on, on)

    def read_into(self, color: Any, depth: Any = None, velocity: Any = None) -> None:
        self.target.read_into(color, depth, velocity)

    def release(self) -> None:
        for drawn in [*self.passes, getattr(self, "image", None)]:
            if drawn is not None:
                drawn.release()
        for texture, fbo in self.buffers.values():
            fbo.release()
            texture.release()
        if hasattr(self, "target"):
            self.target.release()


class PassProgram:
    """One pass's program, the Image's or a buffer's (``shader``), its errors told at its
    own file and line; its channels: the pictures it names, the buffers' textures
    (``buffers``: by the buffer's file, drawn before it), else black."""

    def __init__(self, ctx: Any, shader: ShaderPass, buffers: dict[Path, tuple[Any, Any]]
                 ) -> None:
        self.shader, self.own, self.vao = shader, [], None
        self.key = Path(shader.source_path).resolve()  # its buffer's, by its file (once)
        self.prog = compile_pass(ctx, shader, not isinstance(shader, ShaderScene))
        try:
            self._bind(ctx, buffers)
        except BaseException:  # (was: its program, vertex array and pictures kept)
            self.release()
            raise

    def _bind(self, ctx: Any, buffers: dict[Path, tuple[Any, Any]]) -> None:
        """Its vertex array, and its channels' textures bound to their units."""
        shader = self.shader
        self.vao = ctx.vertex_array(self.prog, [])
        given = {}
        for i, (path, _line) in shader.channel_files().items():
            self.own.append(channel_texture(ctx, path, shader.channel_line(i),
                                            sampler_kind(self.prog, f"iChannel{i}")))
            given[i] = self.own[-1]
        for i, (path, _line) in shader.buffer_files().items():
            where = shader.channel_line(i)
            flat_only(sampler_kind(self.prog, f"iChannel{i}"),
                      lambda why, where=where: ShaderInputError(f"{where}: {why}"), "a buffer")
            given[i] = buffers[path.resolve()][0]
        read = [i for i in range(4) if self.prog.get(f"iChannel{i}", None)]
        # the buffers it reads (by their file), as its compiled program keeps their channels
        self.reads = {p.resolve() for i, (p, _) in shader.buffer_files().items() if i in read}
        black = None  # what a channel read and given nothing reads: one texel of 0
        if any(i not in given for i in read):
            black = ctx.texture((1, 1), 4, bytes(4))
            self.own.append(black)
        self.textures = {i: given.get(i, black) for i in read}
        for i in read:  # each its own unit: one may be a samplerCube
            set_uniform(self.prog, f"iChannel{i}", i)
        sizes = self.prog.get("iChannelResolution", None)  # an array, as long as the
        if sizes is not None:  # compiler kept it (up to the last element read)
            sizes.write(np.array([(t.width, t.height, 1) if (t := given.get(i)) else
                                  (0, 0, 0) for i in range(sizes.array_length)],
                                 "f4").tobytes())

    def run(self, inputs: dict[str, Any], jitter_px: tuple[float, float], out: int) -> None:
        """Draw it into the framebuffer in use: shadertoy's ``inputs``, the sub-frame's
        antialiasing offset (its place in the window's pattern, added to fragCoord: the
        sub-frames sample the pixel, as a mesh's do; y up, as fragCoord's) and how its
        colour is written (``hf_linear_out``)."""
        import moderngl

        for name, value in inputs.items():
            set_uniform(self.prog, name, value)
        set_uniform(self.prog, "hf_linear_out", out)
        set_uniform(self.prog, "hf_jitter", (float(jitter_px[0]), float(jitter_px[1])))
        for i, texture in self.textures.items():  # (another may have been bound there)
            texture.use(location=i)
        self.vao.render(moderngl.TRIANGLES, vertices=3)

    def release(self) -> None:
        if self.vao is not None:
            self.vao.release()
        self.prog.release()
        for texture in self.own:
            texture.release()


def compile_pass(ctx: Any, shader: ShaderPass, buffer: bool) -> Any:
    """The program of a pass's shader (with its common file's code; a ``buffer``'s,
    :func:`~hfrender.renderer.shadertoy.shadertoy_program`), an error told at its own file
    and line."""
    path = shader.source_path
    said = no_main_image(shader.source)
    if said is not None:
        raise ShaderInputError(f"{path}: {said}")
    common = shader.common_file()
    said = old_output(shader.source) or include_line(shader.source, common)
    if said is not None:
        raise ShaderInputError(f"{path}:{said}")
    said = common and include_in(shader.common_source, common[0].name, True)
    if said:  # (was: "shader compilation failed: 'cannot include ...'", the Image's file)
        raise ShaderInputError(f"{common[0]}:{said}")
    try:
        return compile_program(ctx, glsl("fullscreen.vert"),
                               shadertoy_program(shader.source, shader.common_source, buffer),
                               path, common and common[0])
    except ShaderError as exc:  # one in hfrender's call: at the user's mainImage
        files = [(common[0], shader.common_source)] if common else []
        fault = code_fault(exc.errors, [*files, (path, shader.source)], exc.column)
        if fault is not None:
            raise ShaderInputError(fault, [fault, *exc.errors]) from None
        hint = shadertoy_hint(str(exc), shader.source, common is not None)
        first, *more = wrapper_errors_at(exc.errors, blank_comments(shader.source),
                                         DEFINES_MAIN_IMAGE, path)
        raise shader_error(first + str(exc)[len(exc.errors[0]):] + hint,
                           [first + hint, *more], [path, common and common[0]]) from None
