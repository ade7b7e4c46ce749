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
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError
from hfrender.writer import widen_pipe

PIPE_WAIT = 0.003  # seconds: a 1 MiB pipe fills in about this long at full decoding speed


class FootageError(HFRenderError):
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

    def __init__(self, path: str, pix_fmt: str, frame_bytes: int) -> None:
        import tempfile

        import imageio_ffmpeg

        self.path, self.frame_bytes = path, frame_bytes
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-i", path,
             "-map", "0:v:0", "-fps_mode", "passthrough",  # every frame once, even VFR
             "-f", "rawvideo", "-pix_fmt", pix_fmt, "-"],
            stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        self.pipe_bytes = widen_pipe(self.proc.stdout)

    def read_into(self, buf: np.ndarray) -> bool:
        """Read a whole frame. A read that finds the pipe less than full means ffmpeg is
        behind: waiting a moment lets it fill the pipe, so a frame takes a few big reads
        instead of one per 32 KiB that ffmpeg writes (each a wake-up of both sides, on
        cores the encoder needs). A full pipe is read again at once: no throughput lost."""
        view = memoryview(buf).cast("B")
        got = 0
        while got < self.frame_bytes:
            n = self.proc.stdout.raw.readinto(view[got:])
            if not n:
                break
            got += n
            if got < self.frame_bytes and n < self.pipe_bytes:
                time.sleep(PIPE_WAIT)
        if got == 0:
            self.close()
            return False
        if got < self.frame_bytes:
            self.close()
            raise FootageError(f"{self.path}: the video ended in the middle of a frame")
        return True

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
        m = re.search(r"%0?(\d*)d", p.name)
        if not m:
            return None
        head, tail = p.name[: m.start()], p.name[m.end():]
        rx = re.compile(re.escape(head) + r"(\d+)" + re.escape(tail) + "$")
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
    from imageio_ffmpeg._parsing import parse_ffmpeg_header

    res = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-nostats", "-i", path,
                          "-map", "0:v:0", "-c", "copy", "-f", "null", "-",
                          "-progress", "pipe:1"], capture_output=True, text=True,
                         errors="replace")
    frames = re.findall(r"^frame=(\d+)", res.stdout, re.M)
    head = res.stderr.split("Stream mapping:")[0]  # the input's streams only
    if res.returncode != 0 or not frames or " Video: " not in head:
        return (res.stderr.strip().splitlines() or ["no video stream"])[-1].strip()
    try:
        meta = parse_ffmpeg_header(head)
        w, h = meta["size"]
    except (IndexError, ValueError, AttributeError):
        return "ffmpeg describes the video stream in a way hfrender does not understand"
    turn = re.search(r"rotation of (-?[\d.]+) degrees", head)  # decoding turns the picture
    if turn and round(abs(float(turn.group(1)))) % 180 == 90:
        w, h = h, w
    return VideoInfo(float(meta["fps"]), (int(w), int(h)), int(frames[-1]),
                     str(meta.get("pix_fmt", "")), "audio_codec" in meta)


def open_footage(path: str, fps: float | None = None, pix_fmt: str = "rgb24") -> Footage:
    """Frames of a video file or a PNG sequence (``fps`` for sequences, default 30).

    ``pix_fmt="yuv420p"`` (video only) hands out the planes as stored, as one
    (3H/2, W, 1) array a frame: blending code values there is what ``tmix`` does, and
    no colour conversion is needed on either side.
    """

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
    shape = (h, w, 3) if pix_fmt == "rgb24" else (h * 3 // 2, w, 1)
    decoder = _Decoder(path, pix_fmt, int(np.prod(shape)))
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
