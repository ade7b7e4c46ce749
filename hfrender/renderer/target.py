"""The offscreen target a sub-frame is drawn into (colour, depth, velocity; multisampled
where asked, then resolved), and its read-back into caller-provided memory (a hyperframe
slot): no allocation per sub-frame. The attachments: see :mod:`hfrender.renderer.renderer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.renderer.programs import compile_program, glsl, set_uniform


def _read(fbo: Any, dest: Any, components: int, attachment: int, dtype: str) -> None:
    if hasattr(dest, "buffer") and hasattr(dest, "offset"):  # a GLRegion
        fbo.read_into(dest.buffer, components=components, attachment=attachment, dtype=dtype,
                      write_offset=dest.offset)
    else:
        fbo.read_into(dest, components=components, attachment=attachment, dtype=dtype)


def _planes(ctx: Any, size: tuple[int, int], with_depth: bool, with_velocity: bool,
            samples: int, color: str = "f1") -> list[Any]:
    """Colour (``color``: "f1" sRGB codes, "f4" linear light), then depth and velocity
    where asked (velocity sits at attachment 2, after depth): ``samples`` per pixel (0:
    single-sample textures)."""
    planes = [ctx.texture(size, 4, dtype=color, samples=samples)]
    if with_depth or with_velocity:
        planes.append(ctx.texture(size, 1, dtype="f4", samples=samples))
    if with_velocity:
        planes.append(ctx.texture(size, 2, dtype="f4", samples=samples))
    return planes


class Target:
    """Where a sub-frame is drawn (``draw_fbo``) and read from (``fbo``). With ``msaa`` > 1
    the draw goes to multisampled planes and :meth:`resolve` averages them into the
    single-sample ones (``shaders/glsl/msaa_resolve.frag``). ``hdr``: colour in float
    linear light (``color_dtype`` float32), else sRGB codes (uint8)."""

    def __init__(self, ctx: Any, size: tuple[int, int], with_depth: bool,
                 with_velocity: bool = False, msaa: int = 1, hdr: bool = False) -> None:
        self.ctx, self.size, self.msaa, self.hdr = ctx, size, msaa, hdr
        self.read_as = "f4" if hdr else "f1"
        self.color_dtype = np.dtype(np.float32 if hdr else np.uint8)
        planes = _planes(ctx, size, with_depth, with_velocity, 0, self.read_as)
        self.color = planes[0]
        self.depth = planes[1] if len(planes) > 1 else None
        self.velocity = planes[2] if len(planes) > 2 else None
        self.ms_planes: list[Any] = []
        self.resolver = self.resolve_vao = None
        if msaa > 1:
            self.ms_planes = _planes(ctx, size, with_depth, with_velocity, msaa, self.read_as)
            self.zbuffer = ctx.depth_renderbuffer(size, samples=msaa)
            self.draw_fbo = ctx.framebuffer(self.ms_planes, self.zbuffer)
            self.fbo = ctx.framebuffer(planes)
            self.resolver = _resolve_program(ctx, msaa, len(planes))
            self.resolve_vao = ctx.vertex_array(self.resolver, [])
        else:
            self.zbuffer = ctx.depth_renderbuffer(size)
            self.fbo = self.draw_fbo = ctx.framebuffer(planes, self.zbuffer)
        self.alone = _colour_alone(self) if len(planes) > 1 else None

    def drawn_into(self, planes: bool = True) -> Any:
        """The framebuffer a sub-frame is drawn into: with the depth and velocity planes,
        or (``planes`` False) its colour alone, as a target without them (their values
        left as they were: for a sub-frame whose planes nobody reads)."""
        return self.draw_fbo if planes or self.alone is None else self.alone[0]

    def resolve(self, planes: bool = True) -> None:
        """The multisampled draw into the planes :meth:`read_into` reads (nothing to do
        without MSAA); ``planes`` False: the colour alone (:meth:`drawn_into`)."""
        if self.resolver is None:
            return
        import moderngl

        fbo, resolver, vao = (self.fbo, self.resolver, self.resolve_vao) \
            if planes or self.alone is None else self.alone[1:]
        fbo.use()
        self.ctx.viewport = (0, 0, *self.size)
        self.ctx.disable(moderngl.DEPTH_TEST)
        names = ("u_color", "u_depth", "u_velocity")[: len(self.ms_planes) if planes else 1]
        for unit, name in enumerate(names):
            self.ms_planes[unit].use(unit)
            set_uniform(resolver, name, unit)
        set_uniform(resolver, "hf_linear_out", int(self.hdr))
        vao.render(moderngl.TRIANGLES, vertices=3)

    def read_into(self, color: Any, depth: Any = None, velocity: Any = None) -> None:
        """Copy the sub-frame into ``color`` (and ``depth``, ``velocity``): host arrays, or
        GL regions (a buffer and an offset: then the copy stays on the GPU)."""
        _read(self.fbo, color, 4, 0, self.read_as)
        for dest, plane, what, components, attachment in (
                (depth, self.depth, "depth", 1, 1), (velocity, self.velocity, "velocity", 2, 2)):
            if dest is None:
                continue
            if plane is None:
                raise ValueError(f"{what} requested but the renderer was made without it")
            _read(self.fbo, dest, components, attachment, "f4")

    def release(self) -> None:
        alone = [o for o in reversed(self.alone or ()) if o is not None]  # (vao, program, fbos)
        unbind(self.ctx, (self.fbo, self.draw_fbo, *alone))
        fbos = [self.fbo] if self.fbo is self.draw_fbo else [self.fbo, self.draw_fbo]
        for obj in (*fbos, *alone, self.resolve_vao, self.resolver, self.color, self.depth,
                    self.velocity, *self.ms_planes, self.zbuffer):
            if obj is not None:
                obj.release()


def _colour_alone(t: Target) -> tuple:
    """(the framebuffer drawn into, the one resolved into, its resolver and their vertex
    array; the last three None without MSAA) for a sub-frame drawn without its depth and
    velocity planes: the colour plane (and depth buffer) shared with the full framebuffers,
    so no program changes (the shaders' other outputs go to no plane)."""
    if t.msaa <= 1:
        return t.ctx.framebuffer([t.color], t.zbuffer), None, None, None
    resolver = _resolve_program(t.ctx, t.msaa, 1)
    return (t.ctx.framebuffer([t.ms_planes[0]], t.zbuffer), t.ctx.framebuffer([t.color]),
            resolver, t.ctx.vertex_array(resolver, []))


def unbind(ctx: Any, fbos: tuple) -> None:
    """The default framebuffer bound where one of ``fbos``, about to be released, is:
    moderngl rebinds the framebuffer bound before it makes one, and the next one made on
    this context would get GL_INVALID_OPERATION for a deleted one."""
    if ctx.fbo in fbos:
        ctx.detect_framebuffer(0).use()


def _resolve_program(ctx: Any, msaa: int, planes: int) -> Any:
    defines = [f"#define HF_SAMPLES {msaa}"]
    defines += ["#define HF_DEPTH"] if planes > 1 else []
    defines += ["#define HF_VELOCITY"] if planes > 2 else []
    version, _, body = glsl("msaa_resolve.frag").partition("\n")
    return compile_program(ctx, glsl("fullscreen.vert"),
                           "\n".join([version, *defines, body]), None)
