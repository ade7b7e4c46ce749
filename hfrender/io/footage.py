"""Reading existing footage for ``hfrender fx``: frames and depth passes, streamed.

Video through imageio-ffmpeg (any format its ffmpeg reads), PNG sequences (a pattern such
as ``in/%05d.png`` or a folder of PNGs); depth as NumPy ``.npy``/``.npz`` (memory-mapped),
16-bit PNG sequences or EXR sequences where imageio reads them, scaled to metres. Nothing
holds the whole clip in memory.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.io.writers import frame_pipe_env, pattern_files, raw_frame_shape, widen_pipe


class FootageError(InputError):
    """Input that cannot be read or does not fit (one line for the user)."""


@dataclass
class Footage:
    path: str
    fps: float
    size: tuple[int, int]  # (width, height)
    count: int
    has_audio: bool
    frames: Iterator[np.ndarray]  # (H, W, 3) uint8 RGB, or (3H/2, W, 1) yuv420p planes
    pix_fmt: str = "rgb24"
    source_pix_fmt: str = "rgb24"

    def read_into(self, buf: np.ndarray) -> bool:
        """Fill ``buf`` with the next frame; False at the end (no allocation per frame)."""
        frame = next(self.frames, None)
        if frame is None:
            return False
        buf[...] = frame
        return True

    def close(self) -> None:
        """Stop reading (a decoder process is ended)."""


class _Decoder:
    """ffmpeg decoding to raw frames on a pipe, read straight into the caller's buffers."""

    def __init__(self, path: str, pix_fmt: str, frame_bytes: int = 0) -> None:
        import tempfile

        import imageio_ffmpeg

        self.path, self.pix_fmt, self.frame_bytes = path, pix_fmt, frame_bytes
        self.frames_read = 0
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
             "-i", str(Path(path).resolve()),  # absolute: a "name:x" is not a protocol
             "-map", "0:V:0", "-fps_mode", "passthrough",  # every frame once, even VFR
             "-f", "rawvideo", "-pix_fmt", pix_fmt,
             "-avioflags", "direct", "-"],  # a frame a write, not 32 KiB ones: fewer wake-ups
            stdout=subprocess.PIPE, stderr=self.log, start_new_session=True,
            env=frame_pipe_env())
        widen_pipe(self.proc.stdout)

    def read_into(self, buf: np.ndarray) -> bool:
        """Read a whole frame; False at the end of the video. An ffmpeg that stops with an
        error (a damaged file) is an error here too, not a shorter video."""
        view = memoryview(buf).cast("B")
        got = 0
        while got < self.frame_bytes:
            n = self.proc.stdout.raw.readinto(view[got:])
            if not n:
                break
            got += n
        if got == self.frame_bytes:
            self.frames_read += 1
            return True
        code = self.proc.wait()
        if got or code != 0:
            self.log.seek(0)
            said = [x.strip() for x in self.log.read().decode(errors="replace").splitlines()]
            why = next((x for x in reversed(said) if x), "the video ended in the middle of a "
                       "frame")
            self.close()
            raise FootageError(f"{self.path}: decoding stopped after {self.frames_read} "
                               f"frames: {why}")
        self.close()
        return False

    def frames(self, shape: tuple) -> Iterator[np.ndarray]:
        while True:
            buf = np.empty(shape, np.uint8)
            if not self.read_into(buf):
                return
            yield buf

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def _natural(name: str) -> list:
    """Sort key: frame_2 before frame_10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _sequence_files(path: str) -> list[Path] | None:
    p = Path(path)
    if p.is_dir():
        files = sorted((f for f in p.iterdir() if f.suffix.lower() in (".png", ".exr")),
                       key=lambda f: _natural(f.name))
        return files or None
    if "%" in p.name:
        rx = pattern_files(p.name)
        if rx is None:
            return None
        found = sorted((int(mm.group(1)), f) for f in (p.parent.iterdir() if p.parent.is_dir()
                                                        else []) if (mm := rx.match(f.name)))
        for (a, _), (b, _) in zip(found, found[1:], strict=False):
            if b != a + 1:
                raise FootageError(f"{path}: frame {a + 1} is missing (the sequence jumps "
                                   f"from {a} to {b})")
        return [f for _, f in found] or None
    return None


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

    @property
    def native_yuv420p(self) -> bool:
        """Stored as 8-bit 4:2:0 with even sides: it can be blended as it is."""
        w, h = self.size
        fmt = self.pix_fmt
        return (fmt == "yuv420p" or fmt.startswith("yuv420p(")) and w % 2 == 0 and h % 2 == 0


def probe(path: str) -> VideoInfo:
    """Rate, size, frame count, pixel format and audio of a video, in one ffmpeg run.

    The packets of the first video stream are stream-copied to nowhere: counted, not
    decoded (imageio-ffmpeg's ``count_frames_and_secs`` decodes the whole video), and the
    header of that run gives the rest. Cached per file version: a second look is free.
    """
    st = os.stat(path)
    info = _probe(str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
    if isinstance(info, str):
        raise FootageError(f"cannot read {path} as video: {info}")
    return info


@lru_cache(maxsize=16)
def _probe(path: str, mtime_ns: int, size: int) -> VideoInfo | str:
    """The facts, or what ffmpeg said when it could not read the file."""
    import imageio_ffmpeg

    # framecrc: one line per packet with its timestamps ("0, dts, pts, duration, size, crc")
    res = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-nostats",
                          "-i", path, "-map", "0:V:0", "-c", "copy", "-f", "framecrc", "-"],
                         capture_output=True, text=True, errors="replace")
    # packets an edit list hides (flag 0x4, "discard": a stream-copied trim) never decode
    pts = [int(m.group(1)) for m in re.finditer(
        r"^0,\s*-?\d+,\s*(-?\d+),(?:[^\n]*?F=0x([0-9a-fA-F]+))?", res.stdout, re.M)
        if not (m.group(2) and int(m.group(2), 16) & 4)]
    tb = re.search(r"^#tb 0: (\d+)/(\d+)", res.stdout, re.M)
    head = res.stderr.split("Stream mapping:")[0]  # the input's streams
    video = _first_video(head)
    if res.returncode != 0 or not pts or video is None:
        return (res.stderr.strip().splitlines() or ["no video stream"])[-1].strip()
    fps, (w, h), pix_fmt, turn = video
    if round(abs(turn)) % 180 == 90:  # decoding turns the picture upright
        w, h = h, w
    has_audio = re.search(r"^\s*Stream #\d+:\d+.*: Audio: ", head, re.M) is not None
    times, start = None, 0.0
    if tb and len(pts) >= 2 and min(pts) > -(2**62):  # AV_NOPTS_VALUE: no timestamps
        unit = int(tb.group(1)) / int(tb.group(2))
        order = sorted(pts)
        times = _uneven([(p - order[0]) * unit for p in order])
        fps = _exact_rate(fps, (order[-1] - order[0]) * unit, len(order) - 1, unit)
        begin = re.search(r"Duration: .*?, start: (-?[\d.]+)", head)  # the file's start
        start = max(0.0, order[0] * unit - float(begin.group(1))) if begin else 0.0
    return VideoInfo(fps, (w, h), len(pts), pix_fmt, has_audio, times,
                     start if start > 1e-3 else 0.0)


def _uneven(t: list[float]) -> tuple[float, ...] | None:
    """The frame times when they are not evenly spaced (variable frame rate); None for a
    constant rate or repeated timestamps."""
    if len(t) < 3 or any(b <= a for a, b in zip(t, t[1:], strict=False)):
        return None
    step = t[-1] / (len(t) - 1)
    if max(abs(x - k * step) for k, x in enumerate(t)) <= min(1e-3, step / 4):
        return None
    return tuple(t)


def _exact_rate(printed: float, span: float, steps: int, unit: float) -> float:
    """ffmpeg prints "23.98 fps" for 24000/1001. When the timestamps (``steps`` frame
    intervals over ``span`` seconds, each rounded to ``unit``) rule the printed rate out,
    its whole number or that x 1000/1001, whichever they allow, is taken instead."""
    if span <= 0:
        return printed
    measured = steps / span
    tolerance = measured * unit / span * 1.01  # both ends rounded to the unit
    if abs(printed - measured) <= tolerance:
        return printed
    whole = round(printed)
    near = min((whole, whole * 1000 / 1001), key=lambda r: abs(r - measured))
    return near if abs(near - measured) <= tolerance else printed


def _first_video(head: str) -> tuple[float, tuple[int, int], str, float] | None:
    """Rate, size, pixel format and display rotation of the first video stream (not a
    cover picture) in ffmpeg's description of an input; None if it has none."""
    lines = head.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"\s*Stream #\d+:\d+.*: Video: ", line) or "(attached pic)" in line:
            continue
        # "h264 (High) (avc1 / 0x31637661), yuv420p(tv, progressive), 1280x720 [SAR 1:1
        # DAR 16:9], 2 kb/s, 29.97 fps, 29.97 tbr, 30k tbn": commas inside () do not split
        fields = [f.strip() for f in re.split(r",\s*(?![^()]*\))", line.split(" Video: ", 1)[1])]
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
        return (rate.get("fps") or rate["tbr"], (int(size.group(1)), int(size.group(2))),
                fields[1] if len(fields) > 1 else "", float(turn.group(1)) if turn else 0.0)
    return None


def start_decoding(path: str, pix_fmt: str) -> _Decoder | None:
    """Start ffmpeg decoding a video file before it is probed (the two overlap); hand
    the result to :func:`open_footage`. None for what is not a file."""
    return _Decoder(path, pix_fmt) if Path(path).is_file() else None


def open_footage(path: str, fps: float | None = None, pix_fmt: str = "rgb24",
                 decoder: _Decoder | None = None) -> Footage:
    """Frames of a video file or a PNG sequence (``fps`` for sequences, default 30).

    ``pix_fmt="yuv420p"`` (video only) hands out the planes as stored, as one
    (3H/2, W, 1) array a frame: blending code values there is what ``tmix`` does, and
    no colour conversion is needed on either side. ``decoder``: one already started by
    :func:`start_decoding` (used if it decodes to ``pix_fmt``, else stopped).
    """
    if decoder is not None and decoder.pix_fmt != pix_fmt:
        decoder.close()
        decoder = None

    files = _sequence_files(path)
    if files is not None:
        import imageio.v3 as iio

        first = _rgb8(iio.imread(files[0]), files[0])
        h, w = first.shape[:2]

        def seq() -> Iterator[np.ndarray]:
            for f in files:
                img = _rgb8(iio.imread(f), f)
                if img.shape[:2] != (h, w):
                    raise FootageError(f"{f}: {img.shape[1]}x{img.shape[0]}, but the sequence "
                                       f"starts at {w}x{h}")
                yield img

        return Footage(path, fps or 30.0, (w, h), len(files), False, seq())
    if not Path(path).is_file():
        raise FootageError(f"input not found: {path}")
    info = probe(path)
    w, h = info.size
    shape = raw_frame_shape((w, h), pix_fmt)
    if decoder is None:
        decoder = _Decoder(path, pix_fmt)
    decoder.frame_bytes = int(np.prod(shape))
    footage = Footage(path, info.fps, (w, h), info.count, info.has_audio,
                      decoder.frames(shape), pix_fmt, info.pix_fmt)
    footage.read_into = decoder.read_into  # type: ignore[method-assign]
    footage.close = decoder.close  # type: ignore[method-assign]
    return footage


def _rgb8(img: np.ndarray, where: Any) -> np.ndarray:
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=-1)
    if img.dtype == np.uint16:
        img = (img.astype(np.uint32) * 255 + 32767) // 65535
    if img.dtype != np.uint8 and img.dtype != np.uint32:
        raise FootageError(f"{where}: {img.dtype} images are not supported; use 8 or 16 bits")
    return np.ascontiguousarray(img[..., :3].astype(np.uint8))


@dataclass
class DepthPass:
    path: str
    count: int
    size: tuple[int, int]
    frames: Iterator[np.ndarray]  # (H, W) float32 metres


def open_depth(path: str, scale: float = 1.0) -> DepthPass:
    """A depth pass: ``.npy``/``.npz`` (N, H, W), or a 16-bit PNG / EXR sequence."""
    p = Path(path)
    if p.suffix.lower() in (".npy", ".npz"):
        if not p.is_file():
            raise FootageError(f"depth not found: {path}")
        if p.suffix.lower() == ".npy":
            arr = np.load(p, mmap_mode="r")
        else:
            archive = np.load(p)
            arr = archive["depth"] if "depth" in archive.files else archive[archive.files[0]]
        if arr.ndim == 4 and arr.shape[-1] == 1:
            arr = arr[..., 0]
        if arr.ndim != 3:
            raise FootageError(f"{path}: depth must have shape (frames, height, width); got "
                               f"{arr.shape}")
        frames = (np.asarray(arr[i], np.float32) * np.float32(scale) for i in range(len(arr)))
        return DepthPass(path, int(arr.shape[0]), (int(arr.shape[2]), int(arr.shape[1])),
                         frames)
    files = _sequence_files(path)
    if files is None:
        raise FootageError(f"depth {path}: use a .npy or .npz file, or a 16-bit PNG / EXR "
                           "sequence (a folder or a pattern such as depth/%05d.png)")
    import imageio.v3 as iio

    try:
        first = iio.imread(files[0])
    except Exception as exc:  # noqa: BLE001 - whatever the plugin says
        raise FootageError(f"cannot read {files[0]}: {exc}") from None

    def seq() -> Iterator[np.ndarray]:
        for f in files:
            d = iio.imread(f)
            if d.ndim == 3:
                d = d[..., 0]
            yield d.astype(np.float32) * np.float32(scale)

    return DepthPass(path, len(files), (first.shape[1], first.shape[0]), seq())
