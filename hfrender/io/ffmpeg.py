"""ffmpeg command lines, built by pure functions (a test reads them), and the settings of
the pipes that carry raw frames to and from ffmpeg. Those that read a video (decode,
probe) are in :mod:`hfrender.io.ffmpeg_read`, the join of segments in
:mod:`hfrender.io.ffmpeg_join`.

Every builder takes the ffmpeg binary as ``exe`` (default: imageio-ffmpeg's).
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from hfrender.errors import spelling
from hfrender.io.colour_tags import WIDE, YUV, output_filters
from hfrender.io.container_tags import quicktime_keys, tag_options
from hfrender.io.ffmpeg_binary import ffmpeg_exe
from hfrender.io.soundtrack import Soundtrack, audio_input, audio_options
from hfrender.limits import file_size_limit_said

VIDEO_SUFFIXES = {".mp4": "libx264", ".mov": "libx264", ".mkv": "libx264",
                  ".webm": "libvpx-vp9", ".gif": "gif", ".ts": "libx264"}
X264_LIKE = ("libx264", "libx264rgb", "libx265")
# with --transparent: the encoder of each output type that keeps alpha (straight alpha)
ALPHA_CODECS = {".mov": "prores_ks", ".webm": "libvpx-vp9"}
# (and the lossless FFV1 and Ut Video, asked for by --codec; was: their alpha composited
# over black, said to need .mov or .webm. QuickTime Animation's argb loses its alpha in the
# Matroska segments a render is written in: not here)
ALPHA_PIX_FMTS = {"prores_ks": ("yuva444p10le", ["-profile:v", "4444"]),
                  "libvpx-vp9": ("yuva420p", []), "ffv1": ("rgba64le", []),
                  "utvideo": ("gbrap", []), "png": ("rgba", [])}
# (and PNG in a .mov or .mkv, each frame a picture: rgba, rgba64be for 16-bit frames; was
# refused as keeping no alpha, a user trial)
WIDE_ALPHA = {"png": "rgba64be"}  # the alpha format of 16-bit frames (LOSSLESS_RGB's second)
# lossless encoders' default: RGB that keeps every code of the frames, (8-bit, 16-bit) (was
# yuv420p: FFV1 and Ut Video halved the chroma and went through YUV; --codec png in .mov
# got rgb24 tagged as BT.709 YUV, 16-bit frames cut to 8; user trials); YUV planes (fx's
# 4:2:0 path) stay as they are
LOSSLESS_RGB = {"ffv1": ("bgr0", "rgb48le"), "utvideo": ("gbrp", "gbrp"),
                "png": ("rgb24", "rgb48be")}
ALPHA_FORMATS = ("yuva", "rgba", "bgra", "argb", "abgr", "gbrap", "ya", "pal8")


def keeps_alpha() -> str:
    """What to write instead, where alpha is lost, in the caller's spelling (hf.render's:
    ``.mkv with codec='ffv1'``; was the flags to it too)."""
    said = spelling()
    return (f"write .mov (ProRes 4444), .webm (VP9), .mkv with {said.said('codec', 'ffv1')}, "
            f".mov or .mkv with {said.said('codec', 'png')}, or a PNG sequence "
            f"({said.said('output', 'frames/%05d.png')})")


def holds_alpha(pix_fmt: str) -> bool:
    """Whether an ffmpeg pixel format (``--pix-fmt``) has an alpha plane."""
    return pix_fmt.startswith(ALPHA_FORMATS)


MUXERS = {".mp4": "mp4", ".mov": "mov", ".mkv": "matroska", ".webm": "webm", ".gif": "gif",
          ".ts": "mpegts"}


def bare(line: str) -> str:
    """ffmpeg's ``line`` without its ``[component @ 0x...]`` prefixes, stripped."""
    return re.sub(r"^(\[[^\]]*\]\s*)+", "", line.strip()).strip()


CRASHES = ("SIGSEGV", "SIGILL", "SIGBUS", "SIGABRT")  # a fault in ffmpeg itself


def crashed(code: int, said: str = "", copying: bool = False) -> str:
    """What to tell of an ffmpeg run that ended with ``code``: for an exit status,
    ``said`` (its complaint; "no message"); for a signal, which, with the way out where
    it is known: ffmpeg faulting while ``copying`` streams (a join) is most likely the
    static ffmpeg of imageio-ffmpeg before 0.8 (7.0.2 faults on any stream copy from
    MPEG-TS, 4.2.2 on the concat protocol; seen on a Xeon Sapphire Rapids and on an H200
    server); SIGKILL is the kernel's out-of-memory killer or a ``kill -9``."""
    if code >= 0:
        return said or "no message"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    told = f": {said}" if said else ""
    if name == "SIGKILL":
        return f"ffmpeg was killed (SIGKILL: out of memory, or kill -9){told}"
    if name == "SIGXFSZ":  # (said no more, a trial)
        return ("ffmpeg was stopped by SIGXFSZ: a file grew past this process's file size "
                f"limit ({file_size_limit_said()}){told}")
    if name not in CRASHES:
        return f"ffmpeg was stopped by {name}{told}"
    if not copying:
        return f"ffmpeg crashed ({name}){told}"
    return (f"ffmpeg crashed ({name}){told}: imageio-ffmpeg before 0.8 brings an ffmpeg that "
            "crashes copying MPEG-TS on some processors; pip install -U "
            "'imageio-ffmpeg>=0.8', or point IMAGEIO_FFMPEG_EXE at another ffmpeg")


# YUV <-> RGB as exactly as 8 bits hold it: rounded, not truncated, and chroma taken at
# full resolution (was swscale's defaults: an 8-bit 4:2:0 clip came back 1-2 luma codes
# darker through fx with no blur at all; 3x the decoder's conversion time, a few ms a 720p
# frame, beside the encoder's)
EXACT_SWS = ("-sws_flags", "accurate_rnd+full_chroma_int+full_chroma_inp")
NTSC_SLACK = 0.005  # 23.976 and 23.98 are 24000/1001 fps, 29.97 is 30000/1001, 59.94 ...
STRIDES = 1001  # an NTSC rate over up to this stride (fx --stride) is said exactly


def frame_rate(fps: float) -> Fraction:
    """``fps`` as the fraction ffmpeg is given: a fractional rate within :data:`NTSC_SLACK`
    of a whole number's 1000/1001 is that (23.976 is 24000/1001, as editors and cameras
    mean it: not 2997/125), 24 is 24, 12.5 is 25/2."""
    whole = round(fps * 1.001)
    off = abs(fps - whole * 1000 / 1001)  # nearer that than the whole number itself
    if fps != int(fps) and off < min(NTSC_SLACK, abs(fps - whole) / 2):
        return Fraction(whole * 1000, 1001)
    near = Fraction(fps).limit_denominator(1001)
    if near and float(near) == fps:  # 25.06 is 1253/50 (not an NTSC rate over 917)
        return near
    for k in range(2, STRIDES):  # such a rate over a stride (23.976 / 7: 24000/7007, was
        whole = round(fps * k * 1.001)  # 167/572, a few ms an hour off)
        if whole and abs(fps * k - whole * 1000 / 1001) < 1e-12 * fps * k:
            return Fraction(whole * 1000, 1001 * k)
    return near or Fraction(fps).limit_denominator(1 << 24)


def sound_under(sound: Soundtrack | None, frames: int, fps: float) -> Soundtrack | None:
    """``sound`` under a video of ``frames`` at ``fps`` (:func:`frame_rate`): cut to their
    length where it is cut (:meth:`.Soundtrack.over`); None: none."""
    return None if sound is None else sound.over(float(frames / frame_rate(fps)))


def codec_params(codec: str, gop: int | None, pix_fmt_in: str = "rgb24"
                 ) -> tuple[str, list[str]]:
    """(output pixel format, encoder options) of an encoder: H.264 at CRF 18 preset medium,
    VP9 at CRF 32, a GIF with a palette made from the whole clip, a lossless one's RGB at
    the depth of the frames (``pix_fmt_in``: :data:`LOSSLESS_RGB`); a keyframe every
    ``gop`` frames when given."""
    params: list[str] = []
    pix_fmt = "yuv420p"
    if codec == "gif":
        pix_fmt = "pal8"
        params += ["-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse",
                   "-loop", "0"]
    elif codec in X264_LIKE:
        params += ["-crf", "18", "-preset", "medium"]
        if codec == "libx264rgb":
            pix_fmt = "rgb24"
    elif codec == "libvpx-vp9":
        params += ["-crf", "32", "-b:v", "0", "-row-mt", "1"]
    elif codec in LOSSLESS_RGB and not pix_fmt_in.startswith(YUV):
        pix_fmt = LOSSLESS_RGB[codec][pix_fmt_in in WIDE]
    if gop and codec != "gif":
        params += ["-g", str(gop)]
        if codec in X264_LIKE:
            params += ["-keyint_min", str(gop), "-sc_threshold", "0"]
    return pix_fmt, params


def output_format(codec: str, gop: int | None, encoding: Any = None,
                  pix_fmt_in: str = "rgb24") -> tuple[str, list[str]]:
    """(output pixel format, encoder options) of ``codec`` with ``encoding``'s settings
    for frames of ``pix_fmt_in``; a default format the encoder does not take is its own
    first (QuickTime Animation's rgb24: was yuv420p asked, its colour converted and
    tagged as YUV, a review)."""
    pix_fmt, params = codec_params(codec, gop, pix_fmt_in)
    if encoding is not None:
        pix_fmt, params = encoding.apply(codec, pix_fmt, params)
    if getattr(encoding, "pix_fmt", None) is None and codec not in ("gif", "png", "exr"):
        from hfrender.io.encoding import encoder_info

        takes = encoder_info(codec).pix_fmts
        pix_fmt = pix_fmt if not takes or pix_fmt in takes else takes[0]
    return pix_fmt, params


def encode_command(path: str, fps: float, size: tuple[int, int], codec: str, *,
                   gop: int | None = None, pix_fmt_in: str = "rgb24",
                   audio_from: Soundtrack | None = None, container: str | None = None,
                   timing_file: str | None = None, ts_offset: float | None = None,
                   exe: str | None = None, encoding: Any = None,
                   segment: bool = False, tags_file: str | None = None) -> list[str]:
    """ffmpeg reading raw ``pix_fmt_in`` frames of ``size`` on stdin and encoding them to
    ``path`` with ``codec``. ``audio_from``: a file's soundtrack to keep; ``container``:
    the name whose suffix chooses the muxer (when ``path`` is a temporary name);
    ``timing_file``: a filter script giving each frame its time (variable frame rate);
    ``ts_offset``: seconds added to every timestamp (a segment's place in the whole);
    ``encoding``: an :class:`hfrender.io.encoding.Encoding` (--crf, --preset, ...);
    ``segment``: a segment of a joined output, in its container: no index moved first (a
    rewrite of every segment), no timecode track, no container tags (creation time,
    place: :mod:`hfrender.io.container_tags`): the join gives the output those; else
    ``tags_file`` holds them (:func:`.container_tags.write_tags`; None: no tags). A
    YUV output from RGB frames is converted and tagged as BT.709 (:func:`colour_options`:
    in the timing file's chain, which the caller writes, when there is one)."""
    pix_fmt, params = output_format(codec, gop, encoding, pix_fmt_in)
    colour, tags = output_filters(pix_fmt_in, pix_fmt, codec, encoding)
    rate = frame_rate(fps)
    sound = audio_from if codec != "gif" else None
    meta_in, meta = tag_options(None if segment else tags_file, 1 if sound is None else 2,
                                getattr(encoding, "tags", ()), container or path)
    audio = meta_in  # (an input's options before any output's)
    if sound is not None:
        audio = [*audio_input(sound), *meta_in, "-map", "0:v:0", "-map", "1:a?",
                 *audio_options(audio_from, container or path)]
    fmt = ["-f", MUXERS[Path(container).suffix.lower()]] if container else []
    timing = []
    if timing_file is not None and codec != "gif":  # frame k is shown at its own time
        timing = ["-/vf", timing_file, "-fps_mode", "passthrough", "-enc_time_base:v",
                  "filter"]
    elif colour is not None:
        timing = ["-vf", colour]
    offset = ["-output_ts_offset", f"{ts_offset:.6f}"] if ts_offset is not None else []
    whole = [] if segment else [
        *player_options(container or path, codec, getattr(encoding, "timecode", ""),
                        getattr(encoding, "tags", ())), *meta]
    return [ffmpeg_exe(exe), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "rawvideo", "-pix_fmt", pix_fmt_in, "-s", f"{size[0]}x{size[1]}",
            "-r", str(rate), "-avioflags", "direct",  # frames read whole from the pipe
            "-i", "-", *audio, *EXACT_SWS, "-c:v", codec, "-pix_fmt", pix_fmt,
            *params, *timing, *tags, *whole, *offset, *fmt,
            *mark_options(container or path), path]


def player_options(output: str, codec: str, timecode: str = "",
                   tags: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """What players need of an MP4 or MOV: its index (moov) before its media, ``-movflags
    +faststart`` (was after it, as ffmpeg writes it: a browser played nothing until the
    whole file was down, a user trial), and ``-tag:v hvc1`` for HEVC: Apple's players
    (QuickTime, Safari, iOS) play no other (ffmpeg writes hev1); and an editor, the
    footage's ``timecode`` (:func:`timecode_options`); the footage's QuickTime keys among
    its ``tags`` (:func:`.container_tags.quicktime_keys`). A whole output's, not a segment's."""
    if Path(output).suffix.lower() not in (".mp4", ".mov"):
        return []
    hevc = codec == "libx265" or codec.startswith("hevc")
    return ["-movflags", "+faststart" + quicktime_keys(tags),
            *(["-tag:v", "hvc1"] if hevc else []),
            *timecode_options(output, timecode)]


def timing_script(times: Sequence[float], pix_fmt_in: str, codec: str, gop: int | None,
                  encoding: Any = None) -> str:
    """The filter script of an output whose frame k is shown at ``times[k]``
    (``encode_command``'s ``timing_file``): its filters (:func:`output_filters`), then the
    frames' times: the one chain an output takes."""
    chain, _ = output_filters(pix_fmt_in, output_format(codec, gop, encoding, pix_fmt_in)[0],
                              codec, encoding)
    return (f"{chain}," if chain else "") + timestamps_filter(times)


def timecode_options(output: str, timecode: str) -> list[str]:
    """The options giving ``output`` the footage's ``timecode`` (a .mov's or .mp4's tmcd
    track: an editor conforms the clip by it); none for other containers or none given."""
    if timecode and Path(output).suffix.lower() in (".mov", ".mp4"):
        return ["-timecode", timecode]
    return []


def mark_options(name: str) -> list[str]:
    """The mark every video hfrender writes carries (a GIF cannot): a file at an output
    without it is the user's (:func:`hfrender.io.work_names.check_not_foreign`). MPEG-TS
    keeps no comment: its service provider says it (a review: every re-render of a .ts
    was refused)."""
    if Path(name).suffix.lower() == ".ts":
        return ["-metadata", "service_provider=hfrender"]
    return ["-metadata", "comment=hfrender"]


def widen_pipe(stream: Any) -> None:
    """A 1 MiB pipe instead of 64 KiB: fewer wake-ups for megabyte frames (Linux only)."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
    except (ImportError, OSError, ValueError):
        pass


def frame_pipe_env() -> dict[str, str]:
    """The environment of an ffmpeg that moves megabyte raw frames through a pipe.

    glibc's malloc gives a freed block back to the kernel once the free space at the top
    of a heap passes a threshold that follows the block sizes seen (~2.8 MB for 720p
    4:2:0 frames), and the next frame then faults its pages in again, each cleared anew.
    Fixed thresholds keep freed frames for reuse: over 240 frames of 720p that saved
    ~0.3 s of CPU in the decoder and encoder together (``benchmarks/RESULTS.md``). Other C
    libraries ignore these variables, and values the user set win.
    """
    env = dict(os.environ)
    env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))  # glibc's largest
    env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 30))
    return env


def timestamps_filter(times: Sequence[float]) -> str:
    """An ffmpeg filter giving frame ``N`` the time ``times[N]`` (seconds): variable frame
    rate footage keeps its timing. Runs of even spacing become one linear piece each,
    found by a balanced tree of comparisons on ``N`` (a handful of pieces for a screen
    recording that dropped a few frames; never more than one per frame)."""
    runs: list[tuple[int, float, float]] = []  # (first frame, its time, step)
    i, n = 0, len(times)
    while i < n:  # a last frame on its own keeps the step before it (for any frame after)
        step = times[i + 1] - times[i] if i + 1 < n else (runs[-1][2] if runs else 0.0)
        j = i + 1
        while j + 1 < n and abs(times[j + 1] - times[j] - step) < 1e-7:
            j += 1
        runs.append((i, times[i], step))
        i = j + 1

    def tree(lo: int, hi: int) -> str:
        if hi - lo == 1:
            first, t, step = runs[lo]
            return f"{t:.9f}+(N-{first})*{step:.9f}"
        mid = (lo + hi) // 2
        return f"if(lt(N,{runs[mid][0]}),{tree(lo, mid)},{tree(mid, hi)})"

    return f"settb=1/90000,setpts='({tree(0, len(runs))})/TB+0.5'\n"  # +0.5: rounded
