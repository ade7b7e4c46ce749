"""A channel's picture (``// hfrender: iChannel0 = noise.png``) as shadertoy.com samples its
textures, and a buffer's float texture as it samples its buffers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.renderer.programs import ShaderInputError

SAMPLER_2D = 0x8B5E  # GL_SAMPLER_2D: the kind of channel a picture fills


def channel_texture(ctx: Any, path: Path, where: str, kind: int | None = None) -> Any:
    """A picture for a channel as shadertoy.com samples its textures: 8-bit RGBA, its bottom
    row at v = 0, repeated, mipmapped (``where``: the shader's line that gives it,
    :meth:`~hfrender.scene.shader_passes.ShaderPass.channel_line`; ``kind``: the channel's
    sampler, as the program declares it, where it reads it)."""
    import moderngl

    def refused(why: str) -> ShaderInputError:  # (at the user's line: bad input, exit 2)
        return ShaderInputError(f"{where}: {why}")

    flat_only(kind, refused, "a picture")
    rgba = _rgba8(_picture(path, refused, int(ctx.info.get("GL_MAX_TEXTURE_SIZE", 1 << 30))))
    h, w = rgba.shape[:2]
    texture = ctx.texture((w, h), 4, np.ascontiguousarray(rgba[::-1]).tobytes())
    texture.repeat_x = texture.repeat_y = True
    texture.build_mipmaps()
    texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
    return texture


def flat_only(kind: int | None, refused: Any, what: str) -> None:
    """A channel the program declares a cube map or a 3D texture (its sampler's ``kind``)
    refused, as ``what`` (a picture, a buffer) fills a 2D one (was: black, unsaid, a
    trial)."""
    if kind is not None and kind != SAMPLER_2D:
        raise refused(f"the shader declares this channel a cube map or a 3D texture; {what} "
                      "fills a 2D channel (sampler2D) only")


def buffer_texture(ctx: Any, size: tuple[int, int]) -> tuple[Any, Any]:
    """(texture, framebuffer) of a buffer (shadertoy.com's Buffer tabs): RGBA 32-bit float
    of the output's size, sampled as shadertoy.com samples its buffers, linear and clamped
    to the edge, no mipmaps."""
    import moderngl

    texture = ctx.texture(size, 4, dtype="f4")
    texture.repeat_x = texture.repeat_y = False
    texture.filter = (moderngl.LINEAR, moderngl.LINEAR)
    return texture, ctx.framebuffer(color_attachments=[texture])


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
    except ShaderInputError:  # (its own refusal: an InputError is a ValueError too)
        raise
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


def sampler_kind(prog: Any, name: str) -> int | None:
    """The GL type of the sampler ``name`` where the program reads it."""
    uniform = prog.get(name, None)
    return None if uniform is None else uniform.gl_type
