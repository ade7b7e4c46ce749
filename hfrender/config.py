"""Render settings: one frozen dataclass, validated once, at the edge.

Values come from the defaults, then a project file (``hfrender.toml``, table ``[render]``,
in the current folder: :mod:`hfrender.project_file` reads it), then command-line flags.
Every field is checked here with a message that names it, its value and what is allowed.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from typing import Any

from hfrender.backends import resolve_name
from hfrender.errors import InputError, Spelling, about, saying, spelling
from hfrender.frame_range import FrameRange, check_frames
from hfrender.io.encoding import Encoding
from hfrender.io.ffmpeg import frame_rate
from hfrender.io.sequence_names import is_sequence
from hfrender.numeric import a_number, as_whole, finite_float, number_said
from hfrender.optics import check_blur_cap
from hfrender.sampler import POSITIONS
from hfrender.shutter_curve import CURVES, MAX_RENDER_SHUTTER

DOF_MODES = ("auto", "lens", "depth", "off")
INTEROP = ("auto", "on", "off")
HDR_MODES = ("auto", "on", "off")  # float sub-frames: light past white kept through the blur
RECONSTRUCT = ("auto", "on", "off")
FUSION_PROCESS = ("auto", "on", "off")
DOF_METHODS = ("fast", "exact")
MAX_SAMPLES = 4096  # sub-frames an output frame may draw at most (--samples, --samples-range)
BIT_DEPTHS = (8, 16, 32)  # --bit-depth: PNG 8|16, EXR 16|32
MSAA = (1, 2, 4, 8, 16)  # samples per pixel OpenGL may offer (the context says how many)
MSAA_CHOICES = ("auto", *map(str, MSAA))
SCHEDULES = ("fifo", "motion")
PASSES = ("depth", "velocity")  # --passes: channels beside an EXR sequence's colour
PRESETS = {"l": ((854, 480), 15.0), "m": ((1280, 720), 30.0), "h": ((1920, 1080), 60.0)}
MIN_FPS = 0.001  # a frame every 1000 s (ffmpeg's rates are fractions of at most 1001)
MAX_FPS = 1000.0  # output frames per second (a 1000 fps render is already a slow-motion one)
FLAGS = ("jitter", "preview", "quiet", "antialias", "resume", "stats", "transparent")  # bools
MAX_FRAMES = 10_000_000  # output frames of one render: 3.8 days at 30 fps
MAX_GRANULARITY = 1 << 20  # sub-frames a hyperframe holds, at most


class ConfigError(InputError):
    """A setting is out of range (one line naming it)."""


@dataclass(frozen=True)
class RenderConfig:
    """Everything one render needs besides the scene itself."""

    output: str = "out.mp4"
    fps: float = 30.0
    size: tuple[int, int] = (640, 360)
    duration: float | None = None  # None: the scene's own
    samples: int | str = 8  # or "auto": per output frame, from its motion (samples_range)
    samples_range: tuple[int, int] = (4, 64)  # --samples auto's bounds
    shutter: float = 180.0
    shutter_position: str = "center"
    shutter_curve: str = "box"
    jitter: bool = False
    dof: str = "auto"  # auto: lens when the camera has an f-stop, else off
    reconstruct: str = "auto"  # motion between sub-frames from velocity (auto: with CUDA fusion)
    max_coc_px: float | None = None
    dof_method: str = "fast"  # --dof depth: fast (layers) or exact (the gather)
    backend: str | None = None  # None: HFRENDER_BACKEND, else auto
    gl: str | None = None
    granularity: int | str = "auto"
    max_in_flight: int = 2
    seed: int = 0
    codec: str | None = None
    preview: bool = False
    quiet: bool = False
    antialias: bool = True  # sub-pixel jitter per sub-frame (a shader's fragCoord too)
    msaa: int | str = "auto"  # coverage samples per pixel per sub-frame (auto: 4 on a GPU)
    hdr: str = "auto"  # float sub-frames (auto: for EXR, or a light past white in the scene)
    interop: str = "auto"  # sub-frames in GL buffers mapped into CUDA (auto: with cuda+NVIDIA)
    workers: int | str = "auto"  # fusion threads or processes (auto: 2 processes, or 1)
    fusion_process: str = "auto"  # CPU fusion in child processes (auto: the heavy kinds)
    schedule: str = "fifo"  # or "motion": fuse the hyperframes that move most first
    resume: bool = False
    stats: bool = False
    keep_samples: str | None = None  # a folder: every sub-frame kept (hfrender reexpose)
    transparent: bool = False  # no background: RGBA out, straight alpha (also background=None)
    crf: int | None = None  # encoder settings (hfrender.io.encoding); None: the default
    preset: str | None = None
    bitrate: str | int | None = None  # bits per second: "8M", "2500k", 800000
    pix_fmt: str | None = None
    bit_depth: int | None = None  # PNG sequences 8|16, EXR 16 (half)|32 (engine/deep_output)
    frames: FrameRange | None = None  # --frames START:END (output frames, END exclusive)
    audio: str | None = None  # a sound file muxed into the video (io/soundtrack.py)
    audio_offset: float = 0.0  # where in it the video's time 0 is (s; < 0: silence first)
    passes: tuple[str, ...] = ()  # EXR channels beside the colour: depth (Z), velocity

    def __post_init__(self) -> None:
        self._check_output()
        fps = _number("fps", self.fps, low=MIN_FPS, high=MAX_FPS)
        # the rate the file is stamped at is the rate drawn at (was: 23.98 drawn at k / 23.98
        # s, stamped at k * 1001 / 24000 s: 0.6 s apart after an hour)
        object.__setattr__(self, "fps", float(frame_rate(fps)))
        size = _wholes(self.size)
        if not (size and all(1 <= v <= 16384 for v in size)):
            shown = ("x".join(map(number_said, self.size)) if isinstance(self.size, tuple)
                     and len(self.size) == 2 else repr(self.size))
            raise about(ConfigError, "size", self.size, " must be WIDTHxHEIGHT with 1..16384 "
                        "pixels each", head=f"size={shown}")
        object.__setattr__(self, "size", size)
        if self.duration is not None:  # (its frames too: said as typed, --duration 1e12)
            self.frame_count(self.duration)
            object.__setattr__(self, "duration", float(self.duration))
        if self.samples != "auto":
            _integer(self, "samples", 1, MAX_SAMPLES, " or 'auto'")
        lo_hi = _wholes(self.samples_range)
        if not (lo_hi and 1 <= lo_hi[0] <= lo_hi[1] <= MAX_SAMPLES):
            raise about(ConfigError, "samples_range", self.samples_range, " must be MIN:MAX "
                        f"with 1 <= MIN <= MAX <= {MAX_SAMPLES}")
        object.__setattr__(self, "samples_range", lo_hi)
        self._check_shutter()
        _choice("shutter_position", self.shutter_position, POSITIONS)
        _choice("shutter_curve", self.shutter_curve, CURVES)
        _choice("dof", self.dof, DOF_MODES)
        _choice("reconstruct", self.reconstruct, RECONSTRUCT)
        _choice("dof_method", self.dof_method, DOF_METHODS)
        if self.msaa != "auto":
            if as_whole(self.msaa) not in MSAA:
                raise about(ConfigError, "msaa", self.msaa, " must be auto or one of "
                            f"{', '.join(map(str, MSAA))}")
            object.__setattr__(self, "msaa", as_whole(self.msaa))
        _choice("interop", self.interop, INTEROP)
        _choice("hdr", self.hdr, HDR_MODES)
        if self.workers != "auto":
            _integer(self, "workers", 1, 64, " or 'auto'")
        _choice("fusion_process", self.fusion_process, FUSION_PROCESS)
        _choice("schedule", self.schedule, SCHEDULES)
        object.__setattr__(self, "passes", parse_passes(self.passes))
        if self.max_coc_px is not None:  # (a negative one said as fx says it: blurs nothing)
            if self.dof == "depth" or self.keep_samples:  # else it is said to do nothing
                check_blur_cap("max_coc_px", self.max_coc_px)  # (cli: --dof depth alone)
            object.__setattr__(self, "max_coc_px", _number("max_coc_px", self.max_coc_px, low=0,
                                                           exclusive=True))
        if self.granularity != "auto":
            _integer(self, "granularity", 1, MAX_GRANULARITY)
        _integer(self, "max_in_flight", 1, 64)
        _integer(self, "seed", 0, 2**63 - 1)
        for name in FLAGS:  # hfrender.toml's jitter = "false" was true (a non-empty string)
            if not isinstance(getattr(self, name), bool) and \
                    type(getattr(self, name)).__name__ != "bool_":  # NumPy's too
                raise about(ConfigError, name, getattr(self, name), " must be true or false")

    def _check_shutter(self) -> None:
        """The shutter, and the count with it; what a line advises is named as the setting
        was given (:func:`~hfrender.errors.spelling`: ``--samples 1`` or ``samples=1``)."""
        said = spelling()  # (the flags, or hf.render's keywords: was "--samples 1" to both)
        if self.samples == "auto" and finite_float(self.shutter) and self.shutter > 360:
            raise ConfigError(f"{said.said('samples', 'auto')} with "
                              f"{said.said('shutter', self.shutter)}: an adaptive count "
                              f"needs a shutter of at most 360 degrees; give "
                              f"{said.form('samples', 'N')}")
        if a_number(self.shutter) and self.shutter == 0:  # what one wanting no blur tries first
            raise about(ConfigError, "shutter", 0, ": for no motion blur (an instant shutter) "
                        f"leave the shutter as it is and give {said.said('samples', 1)} (one "
                        "sub-frame a frame, at the shutter's middle: the frame's time with the "
                        f"default {said.said('shutter_position', 'center')}); a shutter is > 0 "
                        "and <= 5760 degrees")
        object.__setattr__(self, "shutter", _number("shutter", self.shutter, low=0,
                                                    exclusive=True, high=MAX_RENDER_SHUTTER))

    def _check_output(self) -> None:
        """The output's settings: its name, bit depth, encoder, and where it is made
        (backend, OpenGL context), each said as the key given."""
        if not isinstance(self.output, (str, os.PathLike)) or not str(self.output):
            # (hfrender.toml's output = 5 crashed: "expected str, ... not int")
            raise about(ConfigError, "output", self.output, " must be a file name: a video "
                        "(out.mp4) or an image sequence (frames/%05d.png)")
        if self.keep_samples is not None and not (isinstance(self.keep_samples, os.PathLike)
                                                  or str(self.keep_samples).strip()
                                                  and isinstance(self.keep_samples, str)):
            raise about(ConfigError, "keep_samples", self.keep_samples, " must be a folder's "
                        "name: the sample store to write (shot.samples)")
        if self.bit_depth is not None:
            if as_whole(self.bit_depth) not in BIT_DEPTHS:
                raise about(ConfigError, "bit_depth", self.bit_depth, " must be one of "  # (was:
                            f"{', '.join(map(str, BIT_DEPTHS))}")  # left out as if PNG's alone)
            object.__setattr__(self, "bit_depth", as_whole(self.bit_depth))
        check_codec_name(self.codec)
        if self.backend is not None:  # (named at hfrender.toml's key, not later as a flag)
            resolve_name(self.backend)
        if self.gl is not None:
            from hfrender.renderer.contexts import resolve_name as gl_context

            gl_context(self.gl)
        Encoding.of(self)  # the encoder settings' form (the encoder's own: check_encoding)
        if self.frames is not None:
            check_frames(self.frames)
        if self.audio is not None or self.audio_offset != 0:
            self._check_audio()

    def _check_audio(self) -> None:
        """The soundtrack's file name and offset, and an output that holds sound."""
        if self.audio is not None and not (isinstance(self.audio, (str, os.PathLike))
                                           and str(self.audio)):
            raise about(ConfigError, "audio", self.audio, " must be a sound file's name "
                        "(music.wav)")
        off = finite_float(self.audio_offset)
        if off is None:
            raise about(ConfigError, "audio_offset", self.audio_offset, " must be a finite "
                        "number of seconds (where in the sound the video starts; < 0: silence "
                        "first)", head=f"audio_offset={number_said(self.audio_offset)}")
        object.__setattr__(self, "audio_offset", off)
        out, gif = str(self.output), str(self.output).lower().endswith(".gif")
        if self.audio is not None and (gif or is_sequence(out)):
            what = f"GIF ({out})" if gif else f"{out} sequence"
            raise ConfigError(f"{spelling().name('audio')}: a {what} has no sound; render a "
                              "video (.mp4, .mov, .mkv, .webm), or mux it later with ffmpeg "
                              f"{'' if gif else f'-framerate {self.fps:g} '}-i {out} -i "
                              f"{self.audio} -shortest out.mp4")

    @property
    def backend_name(self) -> str:
        """``backend`` as given, else ``HFRENDER_BACKEND``, else ``auto`` (resolved where a
        backend is needed, so that a bad variable stops only what fuses)."""
        return resolve_name(self.backend)

    def frame_count(self, scene_duration: float) -> int:
        duration = self.duration if self.duration is not None else scene_duration
        duration = _number("duration", duration, low=0, exclusive=True)
        frames = max(1, nearest_frame(duration, self.fps))
        if frames > MAX_FRAMES:
            raise saying(ConfigError, partial(_flag_typed, f"duration={duration:g}", (
                f" s at {self.fps:g} fps is {frames:,} frames; hfrender renders at most "
                f"{MAX_FRAMES:,} in one output (lower {spelling().name('duration')} or "
                f"{spelling().name('fps')}, or render it in parts)")))
        return frames

    @property
    def max_samples(self) -> int:
        """Sub-frames a window holds: ``samples``, or the top of the range with ``auto``."""
        return self.samples_range[1] if self.samples == "auto" else int(self.samples)

    def with_(self, **changes: Any) -> RenderConfig:
        return replace(self, **changes)


def nearest_frame(seconds: float, fps: float) -> int:
    """The frame nearest ``seconds`` at ``fps``, halves up (Python's round takes them to
    even), a product's float error not counted (0.58 s at 25 fps is 14.4999... : 15): a
    fraction within 1e-12 of the frame (1e-6 at most) below a half counts as one. The
    margin is the fraction's alone (was added to the frame: 1e12 s at 30 fps, 30 too many)."""
    x = seconds * fps
    whole = math.floor(x)
    return whole + (x - whole >= 0.5 - min(1e-12 * max(1.0, abs(x)), 1e-6))


def parse_samples(text: str) -> int | str:
    """``--samples``: an integer or ``auto``."""
    if str(text).strip() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise about(ConfigError, "samples", text, " must be an integer from 1 to 4096 or "
                    "'auto'") from None


def parse_range(text: str) -> tuple[int, int]:
    """``--samples-range MIN:MAX``."""
    m = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", str(text))
    if not m:
        raise about(ConfigError, "samples_range", text, " must be MIN:MAX, e.g. 4:64")
    return int(m.group(1)), int(m.group(2))


def parse_passes(value: object) -> tuple[str, ...]:
    """``--passes depth,velocity`` (or a list of names): each pass named once, in order."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        raise about(ConfigError, "passes", value, " must name passes: depth, velocity or "
                    "depth,velocity")
    names = tuple(dict.fromkeys(i.strip() for i in items if i.strip()))
    bad = [n for n in names if n not in PASSES]
    if bad:
        raise about(ConfigError, "passes", value, f": {bad[0]!r} is no pass; choose from "
                    f"{', '.join(PASSES)} (depth,velocity for both)")
    return names


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", str(text))
    if not m:
        raise about(ConfigError, "size", text, " must be WIDTHxHEIGHT, e.g. 640x360")
    return int(m.group(1)), int(m.group(2))


def parse_fps(value: object) -> object:
    """A frame rate as a file gives it: a number, or a fraction as text (``"24000/1001"``,
    as ``--fps`` takes it); anything else as it is (its type is checked where it is used)."""
    if isinstance(value, str):
        try:
            return float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError, OverflowError):
            raise about(ConfigError, "fps", value, " must be a number or a fraction such as "
                        "30000/1001") from None
    return value


def check_codec_name(codec: object) -> None:
    """A codec given is a name (render's and fx's: was an empty one taken by fx, unsaid)."""
    if codec is not None and not (isinstance(codec, str) and codec):
        raise about(ConfigError, "codec", codec, " must be an ffmpeg encoder's name, such as "
                    "libx264")


def _flag_typed(head: str, rest: str, spell: Spelling) -> str:
    """``--duration 1e12`` as typed where a command's flag gave it (was ``duration=1e+12``
    there), else ``head`` (a keyword's, ``duration=1e+09``; a file's), then ``rest``."""
    typed = spell.given("duration") if spell.given else None
    return (typed if typed and typed.startswith("--") else head) + rest


def _number(name: str, v: object, low: float, exclusive: bool = False,
            high: float | None = None) -> float:
    """``v`` as a float, where it is a finite real number (:func:`finite_float`: a Decimal
    or Fraction too) in range; else one line naming it (10**400: was an OverflowError)."""
    f = finite_float(v)
    if f is None or not (f > low if exclusive else f >= low) or (high is not None and f > high):
        span = f"> {low:g}" if exclusive else f">= {low:g}"
        if high is not None:
            span += f" and <= {high:g}"
        raise about(ConfigError, name, v, f" must be a finite number {span}",
                    head=f"{name}={number_said(v)}")
    return f


def _integer(config: RenderConfig, name: str, low: int, high: int, also: str = "") -> None:
    """``config``'s ``name`` set to its int, a whole number of any kind (:func:`as_whole`)
    from ``low`` to ``high``; else one line naming it."""
    v = getattr(config, name)
    n = as_whole(v)
    if n is None or not low <= n <= high:
        raise about(ConfigError, name, v, f" must be an integer from {low} to {high}{also}",
                    head=f"{name}={number_said(v)}")
    object.__setattr__(config, name, n)


def _wholes(pair: object) -> tuple[int, int] | None:
    """A tuple of two whole numbers (:func:`as_whole`) as ints, else None."""
    if not (isinstance(pair, tuple) and len(pair) == 2):
        return None
    a, b = map(as_whole, pair)
    return None if a is None or b is None else (a, b)


def _choice(name: str, v: object, allowed: tuple) -> None:
    if v not in allowed:
        raise about(ConfigError, name, v, f" must be one of {', '.join(map(str, allowed))}")
