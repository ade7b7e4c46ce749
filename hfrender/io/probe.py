"""Probing a video file: rate, size, frame count, pixel format, audio, frame times.

One ffmpeg run lists the packets of the first video stream (counted, not decoded) and
describes the streams; the facts are read from both (the container's tags from a second,
exact: :func:`hfrender.io.container_tags.read_tags`). Cached per file version.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from hfrender.errors import InputError
from hfrender.io.container_tags import read_tags
from hfrender.io.ffmpeg import Soundtrack, bare
from hfrender.io.ffmpeg_binary import ffmpeg_exe
from hfrender.io.ffmpeg_read import probe_command


class FootageError(InputError):
    """Input that cannot be read or does not fit (one line for the user)."""


@dataclass(frozen=True)
class VideoInfo:
    """What one probe of a video file says (sizes as decoded: display rotation applied)."""

    fps: float
    size: tuple[int, int]
    count: int
    pix_fmt: str
    has_audio: bool
    times: tuple[float, ...] | None = None  # seconds from the first frame, if unevenly spaced
    start: float = 0.0  # seconds from the file's start (its audio) to the first frame
    vp9_alpha: bool = False  # VP9 with an alpha channel (alpha_mode 1): libvpx decodes it
    sar: str = "1:1"  # the pixels' aspect (anamorphic footage: 4:3, its picture 16:9)
    timecode: str = ""  # its first frame's, as a camera or an editor stamped it (01:00:00:00)
    audio_tracks: int = 0
    subtitle_tracks: int = 0
    cut_short: str = ""  # the demuxer's words where the file ends before its data does
    audio_codecs: tuple[str, ...] = ()  # each audio track's, as ffmpeg names it ("aac")
    codec: str = ""  # the video's, as ffmpeg names it ("h264", "dvvideo")
    video_tracks: int = 1  # video streams, cover pictures not counted: fx reads the first
    tags: tuple[tuple[str, str], ...] = ()  # the file's creation time, place, title ...
    # (and its video stream's language, title: io.container_tags.video_tags)
    chapters: int = 0  # its chapters (an edit's, a camera's): kept as its soundtrack is

    @property
    def native_yuv420p(self) -> bool:
        """Stored as 8-bit 4:2:0 with even sides: it can be blended as it is."""
        w, h = self.size
        fmt = self.pix_fmt
        return ((fmt == "yuv420p" or fmt.startswith("yuv420p(")) and w % 2 == 0 and h % 2 == 0
                and not self.vp9_alpha)


def probe(path: str) -> VideoInfo:
    """Rate, size, frame count, pixel format and audio of a video, in one ffmpeg run
    (its container tags in a second).

    The packets of the first video stream are stream-copied to nowhere: counted, not
    decoded (imageio-ffmpeg's ``count_frames_and_secs`` decodes the whole video), and the
    header of that run gives the rest. Cached per file version: a second look is free.
    """
    st = os.stat(path)
    info = "it is empty (0 bytes)" if st.st_size == 0 else _probe(
        str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
    if isinstance(info, str):
        scene = " (a scene: hfrender render)" if Path(path).suffix.lower() in (
            ".py", ".frag", ".glsl", ".fs") else ""
        raise FootageError(f"cannot read {path} as video{scene}: {info}")
    return info


@lru_cache(maxsize=16)
def _probe(path: str, mtime_ns: int, size: int) -> VideoInfo | str:
    """The facts, or what ffmpeg said when it could not read the file."""
    # framecrc: one line per packet with its timestamps ("0, dts, pts, duration, size, crc")
    res = subprocess.run(probe_command(path), capture_output=True, text=True,
                         errors="replace")
    # packets an edit list hides (flag 0x4, "discard": a stream-copied trim) never decode
    packets = [(int(m.group(1)), int(m.group(2) or "0", 16)) for m in re.finditer(
        r"^0,\s*-?\d+,\s*(-?\d+),(?:[^\n]*?F=0x([0-9a-fA-F]+))?", res.stdout, re.M)]
    # the input's streams (an older ffmpeg lists its output's, Output #0, before the
    # mapping when it copies: its video was counted as the input's second)
    head = res.stderr.split("Stream mapping:")[0].split("\nOutput #")[0]
    if packets and packets[-1][1] & 2 and _cut_short(res.stderr) and \
            re.search(r"Video: (h264|hevc)\b", head):  # cut short, its last packet corrupt:
        packets.pop()  # H.264's decoder drops it (was counted, and its time made the rate
    pts = [p for p, flags in packets if not flags & 4]  # variable; MJPEG's draws it, part)
    tb = re.search(r"^#tb 0: (\d+)/(\d+)", res.stdout, re.M)
    video = _first_video(head)
    others = sorted(set(OTHER_STREAMS.findall(head))) if video is None else []
    if others:  # a file ffmpeg reads, of other streams alone
        return f"no video stream (it holds {' and '.join(k.lower() for k in others)} only)"
    if res.returncode != 0 or not pts or video is None:
        cut = _cut_short(res.stderr)
        if cut and video is not None:
            return f"it is cut short (ffmpeg: {cut}) before its first whole frame"
        if video is None and "matches no streams" in res.stderr:
            return "it holds no video stream (no frames)"
        if "moov atom not found" in res.stderr and _boxes(path):
            kind = Path(path).suffix or "file"
            return (f"its index (the MP4's moov atom) is missing: a {kind} cut short "
                    "before it was finished (a stopped recording, an unfinished copy) can be "
                    "read only when written with its index first (-movflags +faststart)")
        said = [x.strip() for x in res.stderr.splitlines() if x.strip()
                and not STATS.match(x.strip())]
        last = (said or ["no video stream"])[-1]
        if last.endswith("Invalid data found when processing input"):
            return "no video file ffmpeg can read (damaged, or another kind of file)"
        return last
    fps, (w, h), pix_fmt, turn, vp9_alpha, sar, codec = video
    if round(abs(turn)) % 180 == 90:  # decoding turns the picture upright
        w, h = h, w
        sar = ":".join(sar.split(":")[::-1])
    audio, subtitles = _tracks(head)
    times, start = None, 0.0
    if tb and len(pts) >= 2 and min(pts) > -(2**62):  # AV_NOPTS_VALUE: no timestamps
        unit = int(tb.group(1)) / int(tb.group(2))
        order = sorted(pts)
        times = _uneven([(p - order[0]) * unit for p in order])
        fps = _exact_rate(fps, (order[-1] - order[0]) * unit, len(order) - 1, unit)
        if times is not None:  # no one rate: its mean (ffmpeg's guess said 25 for a GIF of
            fps = _mean_rate(times, head)  # 24 fps, its delays 40, 40 and 50 ms)
        begin = re.search(r"Duration: .*?, start: (-?[\d.]+)", head)  # the file's start
        start = max(0.0, order[0] * unit - float(begin.group(1))) if begin else 0.0
    stamp = re.search(r"^\s*timecode\s*:\s*(\d+:\d\d:\d\d[:;.]\d+)\s*$", head, re.M)
    return VideoInfo(fps, (w, h), len(pts), pix_fmt, audio > 0, times,
                     start if start > 1e-3 else 0.0, vp9_alpha, sar,
                     stamp.group(1) if stamp else "", audio, subtitles,
                     _cut_short(res.stderr), _audio_codecs(head), codec, _videos(head),
                     read_tags(path), len(re.findall(r"^\s*Chapter #\d+:\d+: ", head, re.M)))


# what ffmpeg's demuxers say of a file that ends before the data its index lists (an MP4's
# or MOV's moov, a Matroska cluster's size): an unfinished download or copy
CUT_SHORT = re.compile(r"(?:\] |: )(partial file|File ended prematurely)$", re.I | re.M)


def _cut_short(said: str) -> str:
    """The demuxer's words where the packets' copy found the file cut short ("" if not)."""
    found = CUT_SHORT.search(said.split("Stream mapping:", 1)[-1])
    return found.group(1) if found else ""


def soundtrack(path: str | Path, info: VideoInfo | None) -> Soundtrack | None:
    """The audio tracks of the video at ``path`` (``info``: its probe; ``None``: not a
    video), to carry into an output, and its chapters with them (ffmpeg takes them from
    the first input that has any: the soundtrack's; a file of chapters and no audio is
    such an input all the same, else its chapters were lost); ``None`` where it has
    neither."""
    if info is None or not (info.has_audio or info.chapters):
        return None
    return Soundtrack(str(Path(path).resolve()), info.audio_codecs)


def audio_file(path: str, said: str, start: float = 0.0) -> Soundtrack:
    """A render's ``--audio`` file as a soundtrack from ``start`` seconds (negative: silence
    first), cut to the video's length; one line, led by ``said`` (``--audio music.wav``),
    where it is missing, unreadable or holds no audio stream."""
    if not Path(path).is_file():
        raise FootageError(f"{said}: no such file")
    codecs = _sound(path)[0]
    if isinstance(codecs, str):
        raise FootageError(f"{said}: {codecs}")
    return Soundtrack(str(Path(path).resolve()), codecs, start, cut=True)


def sound_seconds(path: str) -> float | None:
    """How long the sound file at ``path`` is (None: not said)."""
    return _sound(path)[1]


def _sound(path: str) -> tuple[tuple[str, ...] | str, float | None]:
    st = os.stat(path)
    return _sound_codecs(str(Path(path).resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _sound_codecs(path: str, mtime_ns: int, size: int
                  ) -> tuple[tuple[str, ...] | str, float | None]:
    """The audio tracks' codecs of the file at ``path``, or why it has none to give; and
    its length in seconds (None where ffmpeg says none)."""
    res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", path], capture_output=True,
                         text=True, errors="replace")
    head = res.stderr.split("At least one output file")[0]
    seconds = _duration(head)
    codecs = _audio_codecs(head)
    if codecs:
        return codecs, seconds
    if re.search(r"^\s*Stream #", head, re.M):
        return "it holds no audio stream", seconds
    said = [x.strip() for x in head.splitlines() if x.strip()]
    why = (said or ["no message"])[-1]
    if why.endswith("Invalid data found when processing input"):
        why = "not a sound file ffmpeg can read (damaged, or another kind of file)"
    return f"cannot read it as audio: {bare(why)}", seconds


def _tracks(head: str) -> tuple[int, int]:
    """(audio tracks, subtitle tracks) of the input, as ffmpeg lists its streams."""
    kinds = OTHER_STREAMS.findall(head)
    return kinds.count("Audio"), kinds.count("Subtitle")


def _videos(head: str) -> int:
    """How many video streams the input has, as ffmpeg lists them: cover pictures
    (attached pics, an album's or a podcast's art) are no footage and not counted."""
    return sum("(attached pic)" not in line for line in re.findall(
        r"^\s*Stream #\d+:\d+.*: Video: .*$", head, re.M))


def _audio_codecs(head: str) -> tuple[str, ...]:
    """Each audio track's codec, as ffmpeg names it."""
    return tuple(re.findall(r"^\s*Stream #\d+:\d+.*: Audio: (\w+)", head, re.M))


STATS = re.compile(r"frame=|\[out#|video:\d")  # ffmpeg's summary of what it wrote: no reason
OTHER_STREAMS = re.compile(r"^\s*Stream #\d+:\d+.*: (Audio|Subtitle|Data): ", re.M)


def _uneven(t: list[float]) -> tuple[float, ...] | None:
    """The frame times when they are not evenly spaced (variable frame rate); None for a
    constant rate or repeated timestamps."""
    if len(t) < 3 or any(b <= a for a, b in zip(t, t[1:], strict=False)):
        return None
    step = t[-1] / (len(t) - 1)
    if max(abs(x - k * step) for k, x in enumerate(t)) <= min(1e-3, step / 4):
        return None
    return tuple(t)


def _mean_rate(times: tuple[float, ...], head: str) -> float:
    """Frames a second of variable-rate footage: its frames over its duration where the
    file's duration is the video's (its last frame's time and about one frame more: a GIF's
    last delay counted), else its intervals over their span."""
    n, span = len(times), times[-1] - times[0]
    duration = _duration(head)
    if duration is not None and span < duration <= span + 2 * span / (n - 1):
        return n / duration
    return (n - 1) / span


def _duration(head: str) -> float | None:
    """The input's duration in seconds, as ffmpeg says it (None where it says none)."""
    m = re.search(r"Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)", head)
    return int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3]) if m else None


def _exact_rate(printed: float, span: float, steps: int, unit: float) -> float:
    """ffmpeg prints "23.98 fps" for 24000/1001. When the timestamps (``steps`` frame
    intervals over ``span`` seconds, each rounded to ``unit``) rule the printed rate out,
    its whole number or that x 1000/1001, whichever they allow, is taken instead; where
    neither fits, the timestamps' own rate (a raw DV file printed "60k fps" for 25: read
    at 60000 fps, a footage trial), as a whole number or x 1000/1001 where it is one."""
    if span <= 0:
        return printed
    measured = steps / span
    tolerance = measured * unit / span * 1.01  # both ends rounded to the unit
    if abs(printed - measured) <= tolerance:
        return printed
    wild = printed > 1000 or not 0.5 < printed / measured < 2  # (DV's 60k for 25; a rate
    for whole in (round(printed), round(measured)) if wild else (round(printed),):  # near
        near = min((whole, whole * 1000 / 1001), key=lambda r: abs(r - measured))  # it, a
        if whole and abs(near - measured) <= tolerance:  # timestamp repeated, stands)
            return near
    return measured if wild else printed


def _top_level(text: str) -> list[str]:
    """``text`` split at its commas outside parentheses, nested ones too: "yuv420p(tv,
    bt709, top coded first (swapped))" is one field (was cut at "(tv", its tags and field
    order lost)."""
    fields, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            fields.append(text[start:i].strip())
            start = i + 1
    return [*fields, text[start:].strip()]


def _first_video(head: str
                 ) -> tuple[float, tuple[int, int], str, float, bool, str, str] | None:
    """Rate, size, pixel format, display rotation, VP9 alpha, pixel aspect and codec of the
    first video stream (not a cover picture) in ffmpeg's description of an input; None if
    it has none."""
    lines = head.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"\s*Stream #\d+:\d+.*: Video: ", line) or "(attached pic)" in line:
            continue
        # "h264 (High) (avc1 / 0x31637661), yuv420p(tv, progressive), 1280x720 [SAR 1:1
        # DAR 16:9], 2 kb/s, 29.97 fps, 29.97 tbr, 30k tbn": commas inside () do not split
        fields = _top_level(line.split(" Video: ", 1)[1])
        size = next((m for f in fields if (m := re.match(r"(\d+)x(\d+)\b", f))), None)
        rate: dict[str, float] = {}
        for f in fields:
            if m := re.fullmatch(r"([\d.]+)(k?) (fps|tbr)", f):
                rate[m.group(3)] = float(m.group(1)) * (1000 if m.group(2) else 1)
        if size is None or not (rate.get("fps") or rate.get("tbr")):
            continue  # a stream hfrender cannot read: perhaps the next one
        block = []
        for more in lines[i + 1:]:
            if re.match(r"\s*Stream #", more):
                break
            block.append(more)
        turn = re.search(r"rotation of (-?[\d.]+) degrees", "\n".join(block))
        vp9_alpha = fields[0].startswith("vp9") and re.search(  # ALPHA_MODE as hfrender's
            r"^\s*alpha_mode\s*:\s*1\s*$", "\n".join(block), re.M | re.I) is not None  # own
        # "[SAR 4:3 DAR 16:9]" is the codec's; a container's own follows it, unbracketed,
        # and players use that one
        # and players use that one; reduced (a GIF's 64:64 is square: was warned of as
        sar = re.findall(r"SAR ([1-9]\d*):([1-9]\d*) ", line)  # squeezed, a trial)
        aspect = Fraction(int(sar[-1][0]), int(sar[-1][1])) if sar else Fraction(1)
        return (rate.get("fps") or rate["tbr"], (int(size.group(1)), int(size.group(2))),
                fields[1] if len(fields) > 1 else "", float(turn.group(1)) if turn else 0.0,
                vp9_alpha, f"{aspect.numerator}:{aspect.denominator}",
                fields[0].split(" ")[0])
    return None


def _boxes(path: str) -> bool:
    """Whether ``path`` begins as an MP4/MOV does: a box of a type those files open with
    (a cut-short one's first boxes are whole; a text file renamed .mp4 has none)."""
    with open(path, "rb") as f:
        head = f.read(8)
    return head[4:8] in (b"ftyp", b"mdat", b"free", b"wide", b"skip", b"moov", b"pnot")
