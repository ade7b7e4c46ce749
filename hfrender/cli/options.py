"""The options the commands share: a render's scene, size, time, effects and engine
(``render``, ``still``, ``batch``'s overrides), and a video encoder's quality."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from hfrender.backends import CHOICES
from hfrender.cli.common import BACKEND_HELP
from hfrender.config import (
    DOF_METHODS,
    DOF_MODES,
    FUSION_PROCESS,
    HDR_MODES,
    INTEROP,
    PRESETS,
    RECONSTRUCT,
    SCHEDULES,
    RenderConfig,
)
from hfrender.errors import InputError, as_given, as_typed
from hfrender.renderer.contexts import CONTEXTS
from hfrender.sampler import POSITIONS
from hfrender.shutter_curve import CURVES, MAX_RENDER_SHUTTER

T = TypeVar("T")
GL_HELP = "OpenGL context (egl; or the HFRENDER_GL environment variable)"


SHORT_FLAGS = {"time": "-t", "frame": "-f", "scene": "-s"}  # (still's -t 1e309, -f '')


def flag_said(words: Sequence[str] | None, key: str) -> str | None:
    """The setting ``key`` as the command line gave it, its flag (long or short, as typed)
    and the value as typed (``--fps 0``, ``--samples-range 16:4``, ``-t 1e309``; the last
    where given twice), else None (not given there: from hfrender.toml, a preset)."""
    flag, said = "--" + key.replace("_", "-"), None
    names = (flag, SHORT_FLAGS.get(key, flag))
    for i, word in enumerate(words or ()):
        if word in names and i + 1 < len(words or ()):
            said = as_typed(word, words[i + 1])  # type: ignore[index]
        elif word.startswith(flag + "="):
            said = as_typed(flag, word[len(flag) + 1:])
    return said


def flags_as_given(settings: Callable[[argparse.Namespace], T]
                   ) -> Callable[[argparse.Namespace], T]:
    """``settings(args)``, whose refusal of a flag's value names it as typed (was: as the
    setting holds it, ``fps=0.0`` for ``--fps 0``, ``samples_range=(16, 4)`` for
    ``--samples-range 16:4``)."""
    @functools.wraps(settings)
    def named(args: argparse.Namespace) -> T:
        try:
            return settings(args)
        except InputError as exc:
            said = as_given(exc, lambda key: flag_said(getattr(args, "words", None), key))
            if said is exc:
                raise
            raise said from None
    return named


def number(kind: type) -> Callable[[str], Any]:
    """A numeric flag's type: its number, else the text as typed, which the setting's own
    check refuses in its one line, naming the flag, the text and what it takes
    (``--shutter x must be degrees in (0, 720] ...``; was argparse's "invalid float value:
    'x'", what is allowed unsaid). Every command's numeric flags take it."""
    def typed(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            return text
    typed.__name__ = kind.__name__  # (argparse's name for it)
    return typed


def fps_arg(text: str) -> float:
    """``--fps``: a number (29.97) or a fraction (30000/1001)."""
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a frame rate: give a number "
                                         "(29.97) or a fraction (30000/1001)") from None


DRAFT = ((320, 180), 4)  # the draft the help of a cheaper preset points to: size, samples


def _preset_help(width: int, height: int, fps: float, base: RenderConfig | None = None) -> str:
    """``-ql``'s help: its size and rate, and its cost against the default's (manim's -ql
    is its quick preview; here 854x480 at 15 fps is 0.89x the default: no draft), and the
    draft's share of the default's drawing, from ``base``'s (the defaults') size and samples
    (was written out, "1/8", whatever the defaults); none offered where it is no cheaper."""
    base = base or RenderConfig()
    cost = width * height * fps / (base.size[0] * base.size[1] * base.fps)
    (dw, dh), ds = DRAFT
    share = Fraction(dw * dh * ds, base.size[0] * base.size[1] * base.max_samples)
    draft = (f" (no draft: --size {dw}x{dh} --samples {ds} draws {share.numerator}/"
             f"{share.denominator} of the default's)" if cost < 1 and share < 1 else "")
    return (f"{height}p{fps:g}: {width}x{height} at {fps:g} fps, {cost:.2g}x the "
            f"default's pixels x frames{draft}")


def render_options(r: argparse.ArgumentParser, video: bool = True) -> None:
    """The scene, size, time, effects and engine options; ``video=False`` (``still``: one
    frame to a PNG) leaves out what only a video render uses: --schedule, --codec,
    --stats, --preview, --resume."""
    r.add_argument("file", metavar="FILE",
                   help="a scene script (.py) or a Shadertoy-style shader (.frag, .glsl, .fs)")
    r.add_argument("-s", "--scene", metavar="NAME", help="the Scene class, if FILE has several")
    q = r.add_argument_group("size and time")
    q.add_argument("--fps", type=fps_arg, default=None,
                   help="output frames per second (30; 24000/1001 or 23.976)")
    q.add_argument("--size", default=None, metavar="WxH", help="picture size (640x360)")
    q.add_argument("--duration", type=number(float), default=None, metavar="S",
                   help="seconds (default: the scene's duration)")
    preset = q.add_mutually_exclusive_group()
    for key, ((pw, ph), pfps) in PRESETS.items():
        preset.add_argument(f"-q{key}", dest="quality", action="store_const", const=key,
                            help=_preset_help(pw, ph, pfps))
    effect_options(r)
    e = r.add_argument_group("engine")
    e.add_argument("--backend", choices=CHOICES, default=None,
                   help=BACKEND_HELP)
    e.add_argument("--gl", choices=CONTEXTS, default=None, help=GL_HELP)
    e.add_argument("--granularity", default=None, metavar="auto|N",
                   help="sub-frames per hyperframe (auto: from free memory)")
    e.add_argument("--workers", default=None, metavar="auto|N",
                   help="fusion workers: threads, or child processes with --fusion-process "
                        "(auto: 2 processes where the fusion runs in processes, else 1 thread)")
    e.add_argument("--fusion-process", choices=FUSION_PROCESS, default=None,
                   help="fuse on the CPU in a child process per worker, beside the drawing "
                        "(auto: for --reconstruct and --dof depth, with 2+ cores and 2+ "
                        "hyperframes)")
    if video:
        e.add_argument("--schedule", choices=SCHEDULES, default=None,
                       help="order of fusion: fifo, or motion (most motion first); frames "
                            "are always written in order")
    e.add_argument("--seed", type=number(int), default=None,
                   help="seeds jitter and the lens pattern")
    if video:
        e.add_argument("--codec", default=None,
                       help="any ffmpeg encoder, e.g. h264_nvenc (video outputs only)")
    e.add_argument("--interop", choices=INTEROP, default=None,
                   help="keep sub-frames on the GPU (GL buffers mapped into CUDA); auto: when "
                        "fusing with CUDA on NVIDIA")
    if video:
        e.add_argument("--stats", action="store_true",
                       help="print bytes copied device-to-host, peak memory and other "
                       "figures at the end")
        e.add_argument("--preview", action="store_true",
                       help="show frames in a window as they come")
        sound_options(r)
        e.add_argument("--resume", action="store_true",
                       help="continue an interrupted render of the same settings (.mp4, "
                            ".mov, .mkv and .webm videos, and image sequences)")
        e.add_argument("--passes", default=None, metavar="LIST",
                       help="compositing passes in each EXR frame (-o frames/%%04d.exr) "
                            "beside the colour: depth (a Z channel, metres; what fx --depth "
                            "reads), velocity (forward.u, forward.v: pixels a frame), or "
                            "depth,velocity")
    e.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar, no summary" if video else "print nothing on success")


def effect_options(r: argparse.ArgumentParser) -> None:
    """Motion blur and depth of field (and what they are drawn into)."""
    m = r.add_argument_group("motion blur and depth of field")
    m.add_argument("--samples", default=None, metavar="N|auto",
                   help="sub-frames per output frame (8); auto: each frame as many as its "
                        "motion (and lens blur, soft shadows) needs, within --samples-range")
    m.add_argument("--samples-range", default=None, metavar="MIN:MAX",
                   help="bounds of --samples auto (4:64)")
    m.add_argument("--shutter", type=number(float), default=None, metavar="DEG",
                   help=f"shutter angle in degrees, up to {MAX_RENDER_SHUTTER:g} (180); above "
                        "360 windows overlap")
    m.add_argument("--shutter-position", choices=POSITIONS, default=None,
                   help="where the open shutter sits around each frame's time (center)")
    m.add_argument("--shutter-curve", choices=CURVES, default=None,
                   help="the shutter's weights over its time (box)")
    m.add_argument("--jitter", action="store_true", help="jitter sub-frame times (seeded)")
    m.add_argument("--msaa", default=None, metavar="auto|N",  # (a bad one: the setting's line)
                   help="coverage samples per pixel in each sub-frame: 1, 2, 4, 8 or 16, "
                        "up to what the OpenGL device offers (hfrender info says: llvmpipe "
                        "4); more is refused, before any frame; averaged in linear light: "
                        "smooth edges, moving ones at their "
                        "sub-pixel place; 1: off; auto (default): 4 on a GPU, 1 on a "
                        "software rasteriser such as llvmpipe (where 4 costs about 2.4x)")
    m.add_argument("--hdr", choices=HDR_MODES, default=None,
                   help="draw sub-frames in float linear light, so a light brighter than "
                        "white keeps its brightness through the blur (a bright streak, a "
                        "bright bokeh disc; values past 1 in EXR) and is clipped only in the "
                        "finished frame; auto (default): on for EXR outputs and for scenes "
                        "with an emissive object whose light passes white (colour x (1 + "
                        "emissive) > 1; a model's glTF emission too); off: 8-bit display "
                        "colour (on costs a CPU render "
                        "about 1.25x the time)")
    m.add_argument("--dof", choices=DOF_MODES, default=None,
                   help="lens: move the camera across the aperture (exact); depth: thin-lens "
                        "gather from each sub-frame's depth; auto: lens if the camera has an "
                        "f-stop (default)")
    m.add_argument("--transparent", action="store_true",
                   help="no background: RGBA with straight alpha, blended like light by "
                        "motion blur and depth of field (PNG, .mov ProRes 4444, .webm VP9)")
    m.add_argument("--bit-depth", type=number(int), default=None, metavar="8|16|32",
                   help="image sequences and stills for compositing: PNG 8 (default) or 16 "
                        "bits; EXR (-o frames/%%04d.exr: linear light, premultiplied alpha) "
                        "16 (half, default) or 32 (float)")
    m.add_argument("--reconstruct", choices=RECONSTRUCT, default=None,
                   help="reconstruct the motion between sub-frames from the renderer's "
                        "velocity and depth (few sub-frames, smooth blur); auto (default): "
                        "on where fusion runs on CUDA, for scenes with geometry")
    m.add_argument("--dof-method", choices=DOF_METHODS, default=None,
                   help="--dof depth: fast, depth layers blurred by FFT, cost nearly "
                        "independent of the blur (default; on a GPU the gather where that is "
                        "sooner); exact, the gather, the reference (cost grows with the blur "
                        "squared)")
    m.add_argument("--max-coc-px", type=number(float), default=None, metavar="PX",
                   help="cap the depth-mode blur diameter (bounds its cost)")


def sound_options(r: argparse.ArgumentParser) -> None:
    """--audio and --audio-offset: a video render's soundtrack."""
    a = r.add_argument_group("sound")
    a.add_argument("--audio", default=None, metavar="FILE",
                   help="a sound file (music.wav, .mp3, a video's sound) muxed into the "
                        "video, cut to its length (AAC in .mp4/.mov, Opus in .webm; kept "
                        "where the container holds its codec: a lossy one copied, to the "
                        "packet the video ends in)")
    a.add_argument("--audio-offset", type=number(float), default=None, metavar="S",
                   help="where in the sound file the video's time 0 is, in seconds (0; "
                        "negative: silence first); a --frames range starts at its own time")


def encoder_options(parser: argparse.ArgumentParser) -> None:
    """--crf, --preset, --bitrate, --pix-fmt (default: the output's own settings)."""
    g = parser.add_argument_group("encoder quality (video outputs; default: the output's)")
    g.add_argument("--crf", type=number(int), default=None, metavar="N",
                   help="constant quality, lower is better (libx264/libx265 0-51, default "
                        "18; libvpx-vp9 0-63, default 32)")
    g.add_argument("--preset", default=None, metavar="NAME",
                   help="encoder speed preset, e.g. slow (libx264/libx265: medium)")
    g.add_argument("--bitrate", default=None, metavar="RATE",
                   help="average bitrate in bits per second, e.g. 8M, 2500k")
    g.add_argument("--pix-fmt", default=None, metavar="NAME",
                   help="output pixel format, e.g. yuv444p (default yuv420p)")
