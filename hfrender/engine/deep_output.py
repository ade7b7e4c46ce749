"""Render outputs for compositing: 16-bit PNG and EXR (linear float) sequences.

The output's name and ``--bit-depth`` choose, as Blender's "PNG 8/16 bit" and "OpenEXR
(half/float)" do: a ``.png`` pattern is 8-bit (``--bit-depth 16``: 16-bit), a ``.exr``
pattern is half float (``--bit-depth 32``: full float), linear light with premultiplied
alpha (as EXR defines it; PNG alpha is straight). The renderer's sub-frames are RGBA8;
before fusion a hyperframe is widened losslessly (uint8 code ``c`` -> uint16 ``257 c``,
the same sRGB value; for EXR the decoded linear float32, alpha / 255), so the fusion's
sums are rounded once, to the output's own precision.

With ``--hdr`` the sub-frames are float32 linear light already (values past 1 kept): they
are fused as they are, and the finished frames are encoded to the output's codes (clipped
at white only then) or kept as they are in EXR.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.backends.cpu.color import Transfer
from hfrender.color import ENCODE_INDEX_MAX, decode_table, encode8_table, straight_alpha
from hfrender.config import ConfigError
from hfrender.errors import output_said, spelling
from hfrender.scene import Scene, ShaderScene, past_white
from hfrender.scene.ready import looked_at

log = logging.getLogger(__name__)
DEPTHS = {".png": (8, 16), ".exr": (16, 32)}  # the first: the default


def resolve_hdr(mode: str, output: str, scene: Scene, frame: int = 0,
                fps: float = 30.0) -> tuple[bool, str]:
    """Whether sub-frames are drawn in float linear light, and why: ``on``; ``auto`` for an
    EXR output (linear light past 1 is what it holds) or a scene with an object brighter
    than white (:func:`past_white`) at the animation's start, t = 0, whatever frames are
    drawn: a still, a range or a chunk chooses as the whole render does. The scene is left
    as it was, at output frame ``frame`` (its time ``frame / fps``)."""
    exr = Path(output).suffix.lower() == ".exr"
    if mode == "off" and exr and past_white(scene) is not None:
        said = spelling().said  # (the flags, or hf.render's keywords: hdr='auto')
        log.warning("%s: %s holds no light past white (8-bit sub-frames clip it before the "
                    "blur); %s draws EXR in float", said("hdr", "off"), output_said(output),
                    said("hdr", "auto"))
    if mode != "auto":
        return mode == "on", f"--hdr {mode}"
    if exr:
        return True, "an EXR output"
    bright = _bright_at_start(scene, frame, fps)
    return bright is not None, bright or "nothing in the scene passes white"


def _bright_at_start(scene: Scene, frame: int, fps: float) -> str | None:
    """:func:`past_white` at t = 0, the scene left at output frame ``frame``'s time; where
    update(t) fails at t = 0 (a later range of a scene that divides by t), at that frame."""
    if isinstance(scene, ShaderScene):
        return None
    looked = looked_at(scene, lambda s: (past_white(s),), [0.0], frame, fps)[0]
    return past_white(scene) if looked is None else looked[0]


def output_dtype(output: str, bit_depth: int | None, deep: bool = False,
                 codec: str | None = None, alpha: bool = False) -> np.dtype:
    """The dtype of a render's finished frames (or a still's picture): uint8, uint16
    (16-bit PNG; a video whose encoder writes more than 8 bits, ``deep``), float16 or
    float32 (EXR); ``--bit-depth`` for a video is refused in one line, naming a pixel
    format of more than 8 bits that its encoder (``codec``; ``alpha``: kept) takes, each
    setting named as :func:`~hfrender.errors.spelling` says (``bit_depth=8`` to hf.render)."""
    suffix, spell = Path(output).suffix.lower(), spelling()  # (hf.render's: bit_depth=8)
    if suffix not in DEPTHS:  # (a single PNG or EXR: hfrender still's)
        if bit_depth is not None:  # (a GIF was told of --pix-fmt, which it refuses)
            from hfrender.io.encoding import deeper_format

            what = ("a GIF: 8 bits, a palette of 256 colours" if suffix == ".gif" else
                    "a video, whose encoder's pixel format decides "
                    f"({deeper_format(output, codec, alpha)})")
            raise ConfigError(f"{spell.said('bit_depth', bit_depth)}: {output_said(output)} "
                              f"is {what}; {spell.name('bit_depth')} is for PNG (8, 16) and EXR "
                              "(16, 32) outputs")
        return np.dtype(np.uint16 if deep else np.uint8)
    allowed = DEPTHS[suffix]
    depth = allowed[0] if bit_depth is None else bit_depth
    if depth not in allowed:
        raise ConfigError(f"{spell.said('bit_depth', bit_depth)}: {suffix[1:].upper()} frames "
                          f"are {' or '.join(map(str, allowed))} bits")
    if suffix == ".exr":
        from hfrender.io.exr_files import check_exr

        check_exr()
        return np.dtype(np.float16 if depth == 16 else np.float32)
    return np.dtype(np.uint8 if depth == 8 else np.uint16)


def render_dtype(config: Any) -> np.dtype:
    """:func:`output_dtype` of a render's (or re-exposure's) settings: its video deep where
    its encoder writes more than 8 bits (:func:`hfrender.io.encoding.deep_video`)."""
    from hfrender.io.encoding import Encoding, deep_video

    video = Path(config.output).suffix.lower() not in DEPTHS
    deep = video and deep_video(config.output, config.codec, Encoding.of(config))
    return output_dtype(config.output, config.bit_depth, deep, config.codec,
                        bool(config.transparent))


def fused_dtype(dtype: np.dtype, hdr: bool = False) -> np.dtype:
    """What the fusion computes for an output of ``dtype`` (EXR halves: float32; float
    sub-frames, ``hdr``: float32 whatever the output)."""
    return np.dtype(np.float32) if hdr or dtype == np.float16 else np.dtype(dtype)


def widen(frames: Any, dtype: np.dtype) -> Any:
    """RGBA8 sub-frames (NumPy or CuPy) as ``dtype`` for the fusion: uint16 sRGB codes
    (``257 c``), or float32 linear light (colour decoded, alpha / 255); frames of
    ``dtype`` already (float sub-frames) as they are."""
    xp = np if isinstance(frames, np.ndarray) else __import__("cupy")
    if frames.dtype == dtype:
        return frames
    if dtype == np.uint16:
        return frames.astype(np.uint16) * np.uint16(257)
    out = xp.empty(frames.shape, np.float32)
    out[..., :3] = xp.asarray(decode_table("uint8"))[frames[..., :3]]
    if frames.shape[-1] == 4:
        out[..., 3] = frames[..., 3] * np.float32(1 / 255)
    return out


def finish(frames: np.ndarray, dtype: np.dtype, into: np.ndarray | None = None) -> np.ndarray:
    """Fused frames (host) as written: RGBA made straight for PNG; EXR keeps
    premultiplied linear light, in its float type; float frames for an integer output
    (``--hdr``) encoded to its sRGB codes, clipped at white (into ``into`` where given:
    ``frames`` are then used up; EXR's halves too)."""
    if dtype.kind == "f":
        if into is None or frames.dtype == dtype:
            return frames.astype(dtype, copy=False)
        into[...] = frames
        return into
    if frames.shape[-1] == 4:
        if frames.dtype.kind == "f":  # --hdr: light past its coverage kept as coverage
            frames = light_as_coverage(np, frames)
        frames = straight_alpha(frames)  # float: straight linear light
    if frames.dtype.kind != "f":
        return frames
    into = np.empty(frames.shape, dtype) if into is None else into
    return Transfer(dtype, frames.shape[-1], True).encode(frames, into)


def light_as_coverage(xp: Any, frames: Any) -> Any:
    """Premultiplied float RGBA (``--hdr``) for a straight-alpha file: colour clipped at
    white, and alpha raised to the colour's largest channel where the light passes its
    coverage (a lamp's streak or disc, 20x white over 0.4 of a pixel), so the file
    composited over black gives the render's own light, clipped at white (straight colour
    cannot hold more light than its alpha: divided, it would be cut to white, and lose it).
    """
    rgb = xp.clip(frames[..., :3], np.float32(0), np.float32(1))
    alpha = xp.maximum(frames[..., 3:], rgb.max(axis=-1, keepdims=True))
    return xp.concatenate([rgb, xp.minimum(alpha, np.float32(1))], axis=-1)


def encode8(frames: Any) -> Any:
    """Float linear light (RGB, or RGBA premultiplied) -> 8-bit sRGB codes (RGBA: straight
    alpha), the very codes :func:`finish` gives, in the frames' own array family: on the
    GPU, so that a quarter of the bytes cross to the host (``--hdr`` into 8 bits)."""
    xp = np if isinstance(frames, np.ndarray) else __import__("cupy")
    if frames.shape[-1] == 4:
        frames = light_as_coverage(xp, frames)
    rgb = frames[..., :3]
    if frames.shape[-1] == 4:  # straight colour, as straight_alpha divides it
        alpha = frames[..., 3:]
        rgb = xp.where(alpha > 0, rgb / xp.where(alpha > 0, alpha, np.float32(1)),
                       np.float32(0))
    codes = xp.clip(rgb, np.float32(0), np.float32(1)) * np.float32(ENCODE_INDEX_MAX)
    out = xp.empty(frames.shape, np.uint8)
    out[..., :3] = xp.asarray(encode8_table())[(codes + np.float32(0.5)).astype(np.uint16)]
    if frames.shape[-1] == 4:
        top = xp.clip(frames[..., 3], np.float32(0), np.float32(1)) * np.float32(255)
        out[..., 3] = (top + np.float32(0.5)).astype(np.uint8)
    return out


def block_dtype(dtype: np.dtype, hdr: bool) -> np.dtype:
    """What the engine's recycled output blocks hold: the output's codes where float
    sub-frames are encoded into them (``--hdr`` into 8 or 16 bits), else what the fusion
    computes."""
    return np.dtype(dtype) if hdr and np.dtype(dtype).kind == "u" else fused_dtype(dtype, hdr)
