"""Drawing a Shadertoy-style fragment shader (:mod:`hfrender.renderer.shadertoy` makes its
program): ``iTime`` the sub-frame's time; a channel the picture its shader names
(``// hfrender: iChannel0 = noise.png``), else black."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.programs import (
    ShaderError,
    compile_program,
    glsl,
    set_uniform,
    wrapper_errors_at,
)
from hfrender.renderer.shadertoy import (
    DEFINES_MAIN_IMAGE,
    no_main_image,
    old_output,
    shadertoy_hint,
    shadertoy_program,
)
from hfrender.renderer.target import Target
from hfrender.scene import ShaderScene
from hfrender.scene.shader_lines import blank_comments


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
        said = old_output(scene.source)
        if said is not None:
            raise ShaderError(f"{scene.source_path}:{said}")
        self.target = Target(ctx, size, with_depth, hdr=hdr)
        try:
            common = scene.common_file()
            self.prog = compile_program(ctx, glsl("fullscreen.vert"),
                                        shadertoy_program(scene.source, scene.common_source),
                                        scene.source_path, common and common[0])
        except ShaderError as exc:  # one in hfrender's call: at the user's mainImage
            hint = shadertoy_hint(str(exc), scene.source, common is not None)
            first, *more = wrapper_errors_at(exc.errors, blank_comments(scene.source),
                                             DEFINES_MAIN_IMAGE, scene.source_path)
            raise ShaderError(first + str(exc)[len(exc.errors[0]):] + hint,
                              [first + hint, *more]) from None
        self.vao = ctx.vertex_array(self.prog, [])
        self.channels = [n for n in (f"iChannel{i}" for i in range(4)) if self.prog.get(n, None)]
        # a channel the shader gives no picture reads black: one texel of 0
        self.black = ctx.texture((1, 1), 4, bytes(4)) if self.channels else None
        self.pictures = {i: channel_texture(ctx, path, f"{scene.source_path}:{line}", i,
                                            _kind(self.prog, f"iChannel{i}"))
                         for i, (path, line) in scene.channel_files().items()}
        for name in self.channels:  # each its own unit: one may be a samplerCube
            set_uniform(self.prog, name, int(name[-1]))
        sizes = self.prog.get("iChannelResolution", None)  # an array, as long as the
        if sizes is not None:  # compiler kept it (up to the last element read)
            sizes.write(np.array([(t.width, t.height, 1) if (t := self.pictures.get(i)) else
                                  (0, 0, 0) for i in range(sizes.array_length)],
                                 "f4").tobytes())

    def prepare(self) -> None:
        """Nothing to do: the shader compiled in the constructor."""

    def draw(self, t: float, frame: int, lens_offset_m: tuple[float, float] = (0.0, 0.0),
             jitter_px: tuple[float, float] = (0.0, 0.0)) -> None:
        import moderngl

        w, h = self.size
        self.target.fbo.use()
        self.ctx.viewport = (0, 0, w, h)
        self.ctx.disable(moderngl.DEPTH_TEST)
        self._clear()
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
            self.pictures.get(int(name[-1]), self.black).use(location=int(name[-1]))
        self.vao.render(moderngl.TRIANGLES, vertices=3)

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
        self.vao.release()
        self.prog.release()
        self.target.release()
        for texture in [self.black, *self.pictures.values()]:
            if texture is not None:
                texture.release()


SAMPLER_2D = 0x8B5E  # GL_SAMPLER_2D: the kind of channel a picture fills


def channel_texture(ctx: Any, path: Path, where: str, channel: int, kind: int | None = None
                    ) -> Any:
    """A picture for a channel as shadertoy.com samples its textures: 8-bit RGBA, its bottom
    row at v = 0, repeated, mipmapped (``where``: the shader's line that gives it; ``kind``:
    the channel's sampler, as the program declares it, where it reads it)."""
    import moderngl

    def refused(why: str) -> ShaderError:
        return ShaderError(f"{where}: iChannel{channel} = {path}: {why}")

    if kind is not None and kind != SAMPLER_2D:  # (was: black, unsaid, a trial)
        raise refused("the shader declares this channel a cube map or a 3D texture; a "
                      "picture fills a 2D channel (sampler2D) only")
    rgba = _rgba8(_picture(path, refused, int(ctx.info.get("GL_MAX_TEXTURE_SIZE", 1 << 30))))
    h, w = rgba.shape[:2]
    texture = ctx.texture((w, h), 4, np.ascontiguousarray(rgba[::-1]).tobytes())
    texture.repeat_x = texture.repeat_y = True
    texture.build_mipmaps()
    texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
    return texture


def _picture(path: Path, refused: Any, most: int = 1 << 30) -> np.ndarray:
    """The picture in ``path`` as a viewer shows it (Pillow): upright by its EXIF
    orientation, its palette, transparency (a colour key too), 1-bit and CMYK as RGBA (were
    read raw: a 1-bit picture almost black, CMYK's bytes as colour, a trial); 16-bit grey as
    its numbers; an animation's first frame. One past ``most`` a side (the GL's largest
    texture: it drew black, a trial) is refused before it is decoded."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not path.is_file():
        raise refused("no such file (a path from the shader's folder)")
    try:
        with Image.open(path) as opened:
            if max(opened.size) > most:
                raise refused(f"{opened.size[0]}x{opened.size[1]}, more than this GL's "
                              f"largest texture ({most} a side); scale it down")
            img = ImageOps.exif_transpose(opened)
            if img.mode in ("I;16", "I;16B", "I;16L", "I"):
                return np.clip(np.asarray(img), 0, 65535).astype(np.uint16)
            keep = img.mode in ("RGB", "RGBA", "L", "LA", "F") and "transparency" not in img.info
            return np.asarray(img if keep else img.convert("RGBA"))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise refused("not a picture hfrender reads (PNG, JPEG, WebP, a GIF's first frame, "
                      "...; not EXR or video; at most 178 million pixels)") from None


def _rgba8(picture: np.ndarray) -> np.ndarray:
    """A picture as (H, W, 4) uint8 codes: grey spread to RGB, opaque where it has no
    alpha, 16-bit and float scaled (as a browser shows them: codes, not light)."""
    if picture.dtype == np.uint16:
        picture = (picture.astype(np.uint32) * 255 + 32767) // 65535
    elif picture.dtype.kind == "f":
        picture = np.clip(picture, 0.0, 1.0) * 255 + 0.5
    picture = picture.astype(np.uint8)
    if picture.ndim == 2:
        picture = picture[..., None]
    c = picture.shape[-1]
    colour = picture[..., :1].repeat(3, -1) if c < 3 else picture[..., :3]
    alpha = picture[..., 3:4] if c == 4 else picture[..., 1:2] if c == 2 else \
        np.full(picture.shape[:2] + (1,), 255, np.uint8)
    return np.concatenate([colour, alpha], axis=-1)


def _kind(prog: Any, name: str) -> int | None:
    """The GL type of the sampler ``name`` where the program reads it."""
    uniform = prog.get(name, None)
    return None if uniform is None else uniform.gl_type
