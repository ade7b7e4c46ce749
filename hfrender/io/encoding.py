"""Quality and encoder settings: ``--crf``, ``--preset``, ``--bitrate``, ``--pix-fmt``.

:class:`Encoding` holds them (None: the output's default, as without them) and checks their
form when made; :meth:`Encoding.apply` turns them into the encoder's options (a pure
function, used by :func:`hfrender.io.ffmpeg.encode_command`); :func:`check_encoding` asks
the ffmpeg binary what the chosen encoder takes (``ffmpeg -h encoder=NAME``: its pixel
formats and private options such as ``-crf`` and ``-preset``) and refuses the rest in one
line, before anything is rendered.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hfrender.errors import InputError, about, spelling
from hfrender.io.even_size import fitting_size
from hfrender.io.sequence_names import is_picture, is_sequence
from hfrender.numeric import whole_number

FLAGS = {"crf": "--crf", "preset": "--preset", "bitrate": "--bitrate", "pix_fmt": "--pix-fmt"}
CRF_MAX = 63  # the widest range of any encoder (VP9, AV1); each encoder's own is checked too
X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                "slower", "veryslow", "placebo")  # x264's and x265's (ffmpeg lists no values)
X264_CRF_MAX = 51  # x264 and x265 (8-bit); ffmpeg's option says "to FLT_MAX"
BITRATE = re.compile(r"[1-9]\d*(\.\d+)?[kKM]?|0\.\d*[1-9]\d*[kKM]")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class EncodingError(InputError):
    """An encoder setting the output or its encoder does not take (one line)."""


def _refused(name: str, value: object, why: str) -> InputError:
    """The encoder setting ``name``'s ``value`` refused (``why``: ``must be ...``): named by
    its flag (``--crf 99 must be ...``), as
    hfrender.toml or a jobs file spells it there (``crf = 99``: :func:`hfrender.errors.about`;
    was ``--crf 99`` in a file that has no flags)."""
    return about(EncodingError, name, value, f" {why}", head=f"{FLAGS[name]} {value!r}")


@dataclass(frozen=True)
class Encoding:
    """Quality settings for the video encoder; None leaves the output's default."""

    crf: int | None = None
    preset: str | None = None
    bitrate: str | int | None = None  # bits per second: 8M, 2500k, 800000
    pix_fmt: str | None = None
    alpha: bool = False  # --transparent: frames are RGBA (straight alpha), kept by the encoder
    source: str = ""  # fx: the footage's pixel format as ffmpeg describes it, whose colour
    #                   tags its YUV planes keep when they pass through (io.ffmpeg)
    sar: str = "1:1"  # fx: the footage's pixel aspect, kept (anamorphic: 4:3)
    timecode: str = ""  # fx at stride 1: the footage's timecode, kept in .mov and .mp4
    tags: tuple[tuple[str, str], ...] = ()  # fx: the footage's creation time, place ...

    def __post_init__(self) -> None:
        if self.crf is not None and not (whole_number(self.crf) and 0 <= self.crf <= CRF_MAX):
            raise _refused("crf", self.crf, f"must be an integer from 0 to {CRF_MAX} (lower "
                                            "is better quality; 0-51 for libx264 and libx265)")
        b = self.bitrate
        if b is not None and not ((whole_number(b) and b > 0)
                                  or (isinstance(b, str) and BITRATE.fullmatch(b))):
            raise _refused("bitrate", b, "must be a rate in bits per second such as 8M, 2500k "
                                         "or 800000")
        for name in ("preset", "pix_fmt"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, str) and NAME.fullmatch(v)):
                raise _refused(name, v, "must be a name such as "
                                        f"{'slow' if name == 'preset' else 'yuv444p'}")

    @classmethod
    def of(cls, settings: Any) -> Encoding:
        """The encoder settings of a RenderConfig or FxSettings (fields of these names)."""
        return cls(*(getattr(settings, name, None) for name in FLAGS),
                   alpha=bool(getattr(settings, "transparent", False)))

    def __bool__(self) -> bool:
        return any(getattr(self, name) is not None for name in FLAGS)

    def given(self) -> str:
        """The settings as their caller gave them: the flags, ``--crf 20 --preset slow``;
        hf.render's keywords, ``crf=20, preset='slow'`` (was the flags to both)."""
        said = spelling()
        return (" " if said.flags else ", ").join(
            f"{FLAGS[n]} {getattr(self, n)}" if said.flags else said.said(n, getattr(self, n))
            for n in FLAGS if getattr(self, n) is not None)

    def apply(self, codec: str, pix_fmt: str, params: list[str], sequence: bool = False
              ) -> tuple[str, list[str]]:
        """(pixel format, options) of ``codec`` with these settings over its defaults
        (``pix_fmt``, ``params`` from :func:`hfrender.io.ffmpeg.codec_params`); ``sequence``:
        the output is a sequence of pictures, not a video (``png`` is both)."""
        if self.alpha:
            pix_fmt, params = _with_alpha(codec, pix_fmt, params, sequence)
        if not self:
            return pix_fmt, params
        if codec == "png" and not sequence:  # in a video (.mov, .mkv): its pixel format
            given = " ".join(f"{FLAGS[n]} {getattr(self, n)}" for n in FLAGS
                             if n != "pix_fmt" and getattr(self, n) is not None)
            if given:
                raise EncodingError(f"{given}: png (lossless) has no quality settings; "
                                    "leave it out, or choose a codec that has them "
                                    "(libx264, prores_ks)")
            return self.pix_fmt, params
        if codec in ("gif", "png", "exr"):
            them = "them" if sum(getattr(self, n) is not None for n in FLAGS) > 1 else "it"
            raise EncodingError(f"{self.given()}: {_what(codec)} has no quality settings; "
                                f"leave {them} out, or write a video (.mp4, .webm)")
        x264 = codec in ("libx264", "libx264rgb", "libx265")
        if self.crf is not None and self.bitrate is not None and x264:
            said = spelling()
            crf, rate = said.name("crf"), said.name("bitrate")
            raise EncodingError(f"{said.said('crf', self.crf)} with "
                                f"{said.said('bitrate', self.bitrate)}: {codec} takes a "
                                f"constant quality ({crf}) or an average bitrate ({rate}), "
                                "not both")
        out = list(params)
        if self.crf is not None:
            _put(out, "-crf", str(self.crf))
        if self.bitrate is not None:
            if self.crf is None and "-crf" in out:  # the default CRF gives way to the rate
                i = out.index("-crf")
                del out[i:i + 2]
            _put(out, "-b:v", str(self.bitrate))  # VP9 with --crf: constrained quality
        if self.preset is not None:
            _put(out, "-preset", self.preset)
        return self.pix_fmt or pix_fmt, out


def _with_alpha(codec: str, pix_fmt: str, params: list[str], sequence: bool
                ) -> tuple[str, list[str]]:
    """The pixel format and options that keep alpha (``--transparent``); PNG in a video
    keeps 16-bit frames' (its default for them, ``pix_fmt``: rgb48be) as rgba64be."""
    from hfrender.io.ffmpeg import ALPHA_PIX_FMTS, LOSSLESS_RGB, WIDE_ALPHA, keeps_alpha

    if codec == "exr" or codec == "png" and sequence:  # a sequence keeps its alpha channel
        return pix_fmt, params
    if codec not in ALPHA_PIX_FMTS:
        raise EncodingError(f"{spelling().on('transparent')}: {codec} keeps no alpha; "
                            f"{keeps_alpha()}")
    fmt, extra = ALPHA_PIX_FMTS[codec]
    if codec in WIDE_ALPHA and pix_fmt == LOSSLESS_RGB[codec][1]:
        fmt = WIDE_ALPHA[codec]
    return fmt, [*params, *extra]


def _put(params: list[str], option: str, value: str) -> None:
    """Set ``option`` to ``value`` in place (replacing its default), else append it."""
    if option in params:
        params[params.index(option) + 1] = value
    else:
        params += [option, value]


def _what(codec: str) -> str:
    return {"png": "PNG (lossless)", "exr": "EXR (lossless float)",
            "gif": "a GIF (its palette is made from the clip)"}.get(codec, codec)


@dataclass(frozen=True)
class EncoderInfo:
    """What ``ffmpeg -h encoder=NAME`` says: pixel formats and private options."""

    pix_fmts: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)  # name -> (type, low, high, named values)


@cache
def encoder_info(codec: str) -> EncoderInfo:
    """The pixel formats and private options of ``codec`` in imageio-ffmpeg's ffmpeg."""
    from hfrender.io.ffmpeg_binary import ffmpeg_exe

    try:
        res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-h", f"encoder={codec}"],
                             capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return EncoderInfo()
    return parse_encoder_help(res.stdout)


def parse_encoder_help(text: str) -> EncoderInfo:
    """:class:`EncoderInfo` from the text of ``ffmpeg -h encoder=NAME``."""
    pix_fmts: tuple[str, ...] = ()
    options: dict = {}
    last: str | None = None
    for line in text.splitlines():
        if line.strip().startswith("Supported pixel formats:"):
            pix_fmts = tuple(line.split(":", 1)[1].split())
            continue
        m = re.match(r"  -(\S+)\s+<(\w+)>\s.*?(?:\(from (\S+) to (\S+)\))?(?: \(default|$)",
                     line)
        if m:
            last = m.group(1)
            options[last] = (m.group(2), _num(m.group(3)), _num(m.group(4)), [])
            continue
        v = re.match(r" {5,}(\S+)\s", line)
        if v and last is not None:
            options[last][3].append(v.group(1))
        elif not line.startswith(" " * 5):
            last = None
    return EncoderInfo(pix_fmts, options)


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:  # FLT_MAX, INT_MAX, ...: no bound
        return None


def effective(output: str, codec: str | None, encoding: Encoding) -> dict:
    """The encoder settings ``output`` gets from ``--codec`` and ``encoding`` (its alpha
    kept or not: a render's --transparent, the footage's in fx), each default filled in
    (a video's; none for GIF and frames): what a resumed output compares, so that a
    default given by its name (``--crf 18``, ``--preset medium``) is the default left out."""
    from hfrender.io.ffmpeg import codec_params

    codec = chosen_encoder(output, codec, encoding.alpha)
    if codec is None or codec in ("gif", "png", "exr"):
        return {}
    pix_fmt, params = encoding.apply(codec, *codec_params(codec, None))
    given = dict(zip(params[::2], params[1::2], strict=False))  # (GIF's alone are not pairs)
    return {"codec": codec, "pix_fmt": pix_fmt, "crf": given.get("-crf"),
            "preset": given.get("-preset"), "bitrate": given.get("-b:v")}


def deep_video(output: str, codec: str | None, encoding: Encoding) -> bool:
    """Whether ``output`` is a video whose encoder writes more than 8 bits (``--pix-fmt
    yuv420p10le``, ProRes): its frames are handed over as 16-bit codes (was: 8-bit, its
    10 bits holding 8 bits' steps): the pixel format its command line asks
    (:func:`hfrender.io.ffmpeg.output_format`, the encoder's own where it takes no other)."""
    from hfrender.io.ffmpeg import output_format
    from hfrender.io.pixels import pix_fmt_facts

    chosen = chosen_encoder(output, codec, encoding.alpha)
    if chosen is None or chosen in ("gif", "exr") or chosen == "png" and _pictures(output):
        return False
    try:
        return pix_fmt_facts(output_format(chosen, None, encoding)[0])[1]
    except EncodingError:  # settings the encoder refuses: said where the output is checked
        return False


def deeper_format(output: str, codec: str | None, alpha: bool = False) -> str:
    """How ``output`` gets more than 8 bits, said where ``--bit-depth`` is refused for a
    video: a ``--pix-fmt`` its encoder takes, ``yuv420p10le`` where it takes it (H.264,
    VP9, FFV1), else its first deep one (with ``alpha``: with alpha): PNG's rgb48be,
    rgba64be, ProRes' yuv422p10le (was yuv420p10le for each, which they refuse; a trial)."""
    from hfrender.io.pixels import pix_fmt_facts

    chosen = chosen_encoder(output, codec, alpha)
    takes = encoder_info(chosen).pix_fmts if chosen else ()
    if not takes or "yuv420p10le" in takes:
        return f"e.g. {spelling().said('pix_fmt', 'yuv420p10le')}"
    deep = [f for f in takes if pix_fmt_facts(f)[1]]
    fmt = next((f for f in deep if pix_fmt_facts(f)[0] == alpha), deep[0] if deep else None)
    return f"e.g. {spelling().said('pix_fmt', fmt)}" if fmt else \
        f"{chosen}'s are 8 bits a channel"


def _pictures(output: str) -> bool:
    """Whether ``output`` is pictures, not a video: a sequence, or one (fx's ``out.png``)."""
    return is_sequence(output) or is_picture(output)


def chosen_encoder(output: str, codec: str | None, alpha: bool = False) -> str | None:
    """The encoder an output uses: ``codec``, the suffix's default (with ``alpha``: the one
    that keeps it), ``png`` or ``exr`` for a sequence (None for an output type
    :func:`~hfrender.io.writers.check_output` refuses; one picture, fx's ``out.png``, as
    a sequence)."""
    from hfrender.io.ffmpeg import ALPHA_CODECS, VIDEO_SUFFIXES

    if _pictures(output):
        return "exr" if Path(output).suffix.lower() == ".exr" else "png"
    suffix = Path(output).suffix.lower()
    if codec is None and alpha and suffix in ALPHA_CODECS:
        return ALPHA_CODECS[suffix]
    return codec or VIDEO_SUFFIXES.get(suffix)


def check_encoding(output: str, codec: str | None, encoding: Encoding | None) -> None:
    """Refuse, in one line, settings that ``output``'s encoder (``codec``, else the
    output's default) does not take: a CRF out of its range or where it has none, a preset
    it does not know or where it has none, a pixel format it does not take."""
    chosen = chosen_encoder(output, codec, bool(encoding and encoding.alpha))  # (.mov with
    if not encoding or chosen is None:  # alpha: ProRes 4444, whose pixel formats count)
        return
    encoding.apply(chosen, "", [], _pictures(output))  # GIF, PNG, --crf with --bitrate
    info = encoder_info(chosen)
    if encoding.crf is not None:
        _check_crf(chosen, info, encoding.crf)
    if encoding.preset is not None:
        _check_preset(chosen, info, encoding.preset)
    if encoding.pix_fmt is not None and info.pix_fmts and encoding.pix_fmt not in info.pix_fmts:
        raise EncodingError(f"{spelling().said('pix_fmt', encoding.pix_fmt)}: {chosen} "
                            f"takes {', '.join(info.pix_fmts)}")  # (was --pix-fmt to hf.render)


def _check_crf(codec: str, info: EncoderInfo, crf: int) -> None:
    if "crf" not in info.options:
        said = spelling()  # (the command's flags, hf.render's keywords: were the flags)
        raise EncodingError(f"{said.said('crf', crf)}: {codec} has no CRF (constant quality) "
                            f"setting; use {said.form('bitrate', 'RATE')}, or leave "
                            f"{said.name('crf')} out")
    _, low, high = info.options["crf"][:3]
    low = max(0, int(low or 0))
    high = X264_CRF_MAX if codec in ("libx264", "libx264rgb", "libx265") or high is None \
        else int(high)
    if not low <= crf <= high:
        raise EncodingError(f"{spelling().said('crf', crf)}: {codec} takes a CRF from {low} "
                            f"to {high} (lower is better quality)")


def _check_preset(codec: str, info: EncoderInfo, preset: str) -> None:
    if "preset" not in info.options:
        raise EncodingError(f"{spelling().said('preset', preset)}: {codec} has no presets; "
                            f"leave {spelling().name('preset')} out")
    kind, low, high, names = info.options["preset"]
    if codec in ("libx264", "libx264rgb", "libx265"):
        names = list(X264_PRESETS)
    if names:
        if preset not in names:
            raise EncodingError(f"{spelling().said('preset', preset)}: {codec} presets are "
                                f"{', '.join(names)}")
    elif kind == "int" and low is not None and high is not None:
        if not (re.fullmatch(r"-?\d+", preset) and low <= int(preset) <= high):
            raise EncodingError(f"{spelling().said('preset', preset)}: {codec} presets are "
                                f"the integers {low:g} to {high:g}")


RGB_CODECS = ("gif", "png", "qtrle", "bmp", "tiff", "libx264rgb")  # no chroma planes


def chroma_steps(codec: str, pix_fmt: str) -> tuple[int, int]:
    """What ``codec`` in ``pix_fmt`` needs the (width, height) to be multiples of: its
    chroma subsampling's (4:2:0 2, 2; 4:2:2 2, 1; 4:1:1 4, 1; 4:1:0 4, 4); none in VP8,
    VP9, FFV1 (lossless: odd sizes too, a trial) and RGB. ProRes 4:2:2 needs an even width
    (prores_ks wrote an odd one, its last column decoded green; prores_aw refuses it)."""
    if codec in RGB_CODECS or codec in ("libvpx-vp9", "libvpx", "ffv1") or \
            pix_fmt.startswith(("rgb", "bgr", "gbr", "gray", "ya", "pal")):
        return 1, 1
    for marks, steps in ((("444", "nv24", "nv42", "p41"), (1, 1)),
                         (("422", "nv16", "nv20", "p21", "y21", "yuyv", "uyvy", "yvyu"), (2, 1)),
                         (("411",), (4, 1)), (("410",), (4, 4))):
        if any(m in pix_fmt for m in marks):
            return steps
    return 2, 2  # 4:2:0, the default


def full_chroma(codec: str, pix_fmt: str) -> str | None:
    """The 4:4:4 pixel format ``codec`` takes nearest ``pix_fmt``, which any size fits:
    its depth kept (yuv420p10le's yuv444p10le; was yuv444p for each, which ProRes and
    DNxHD refuse, a trial); None where ``pix_fmt`` is one or the encoder takes none."""
    if "444" in pix_fmt:
        return None
    takes = encoder_info(codec).pix_fmts
    same = re.sub(r"4[12][0-2]", "444", pix_fmt)
    return next((f for f in (same, "yuv444p", *takes) if f.startswith("yuv444")
                 and (not takes or f in takes)), None)


def odd_size_refusal(codec: str, pix_fmt: str, size: tuple[int, int], for_footage: bool,
                     size_of: str | None) -> str | None:
    """The line refusing ``size`` where ``codec`` in ``pix_fmt`` needs its chroma steps
    (:func:`chroma_steps`), with what to do instead (``for_footage``: to the footage;
    ``size_of``: whose size it is where the command cannot change it); None where it fits."""
    sw, sh = chroma_steps(codec, pix_fmt)
    if not (size[0] % sw or size[1] % sh):
        return None
    what, size_is = {(2, 2): ("an even width and height", "an even size"),
                     (2, 1): ("an even width", "an even width"),
                     (4, 1): ("a width that is a multiple of 4", "a width of 4n"),
                     (4, 4): ("sides that are multiples of 4", "sides of 4n")}[sw, sh]
    if for_footage:
        fix, seq = f"crop or pad the footage to {size_is}", "out/%05d.png"
    else:  # (reexpose has no --size: was "use 16x8" there too)
        (fw, fh), ratio = fitting_size(size, (sw, sh))  # (641x359: 640x360, 16:9)
        fix = "" if size_of else f"use {fw}x{fh}" + (f" ({ratio})" if ratio else "")
        seq = "frames/%05d.png"
    full, said = full_chroma(codec, pix_fmt), spelling()  # (yuv444p10le's depth, kept)
    fixes = [fix] * bool(fix) + [f"{'' if fix else 'give '}{said.said('pix_fmt', full)}"] * \
        bool(full) + [f"write a PNG sequence ({said.said('output', seq)})"]
    whose = f" ({size_of})" if size_of else ""
    return (f"size {size[0]}x{size[1]}{whose}: {codec} video in {pix_fmt} needs {what}; "
            f"{', or '.join(fixes)}")
