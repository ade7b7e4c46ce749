"""Reading existing footage for ``hfrender fx``: frames and depth passes, streamed.

Video through imageio-ffmpeg (any format its ffmpeg reads), PNG sequences (a pattern such
as ``in/%05d.png`` or a folder of PNGs). Frames keep their alpha and their bit depth
(``pix_fmt="rgb"``: RGB or RGBA, uint8, or uint16 where the footage has more than 8 bits:
10-bit video, 16-bit PNGs; see :mod:`hfrender.io.pixels`); depth as NumPy
``.npy``/``.npz`` (memory-mapped), 16-bit PNG sequences or EXR sequences where imageio
reads them, scaled to metres. Nothing holds the whole clip in memory.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hfrender import validate
from hfrender.io.ffmpeg import decode_command, frame_pipe_env, widen_pipe
from hfrender.io.images import png_header
from hfrender.io.pixels import pix_fmt_facts, raw_dtype, raw_format
from hfrender.io.probe import FootageError, VideoInfo, probe
from hfrender.io.writers import Closing, pattern_files, raw_frame_shape


class FrameReader(Protocol):
    """The contract of every footage reader: what it holds, frames into the caller's
    buffers, and a context manager that stops the reading (a decoder process ends)."""

    path: str
    fps: float
    size: tuple[int, int]  # (width, height)
    count: int
    has_audio: bool
    pix_fmt: str  # "rgb24": (H, W, 3) frames; "yuv420p": (3H/2, W, 1) planes as stored;
    # rgba (H, W, 4); rgb48le, rgba64le: uint16 (hfrender.io.pixels.RAW)

    def read_into(self, buf: np.ndarray) -> bool: ...

    def close(self) -> None: ...

    def __enter__(self) -> FrameReader: ...

    def __exit__(self, *exc: object) -> None: ...


@dataclass
class SequenceFootage(Closing):
    """A PNG (or EXR) sequence, read file by file."""

    path: str
    fps: float
    size: tuple[int, int]
    count: int
    files: list[Path]
    has_audio: bool = False
    pix_fmt: str = "rgb24"
    decoder: _Decoder | None = None  # 16-bit PNGs: ffmpeg decodes the whole sequence

    def __post_init__(self) -> None:
        self._next = 0

    def read_into(self, buf: np.ndarray) -> bool:
        """Fill ``buf`` with the next frame; False at the end."""
        import imageio.v3 as iio

        if self.decoder is not None:
            return self.decoder.read_into(buf)
        if self._next >= len(self.files):
            return False
        f = self.files[self._next]
        img = _rgb8(iio.imread(f), f, alpha=buf.shape[-1] == 4)
        if img.shape[:2] != (self.size[1], self.size[0]):
            raise FootageError(f"{f}: {img.shape[1]}x{img.shape[0]}, but the sequence "
                               f"starts at {self.size[0]}x{self.size[1]}")
        buf[...] = img
        self._next += 1
        return True

    def close(self) -> None:
        self._next = len(self.files)
        if self.decoder is not None:
            self.decoder.close()


@dataclass
class VideoFootage(Closing):
    """A video file decoded by ffmpeg straight into the caller's buffers."""

    path: str
    fps: float
    size: tuple[int, int]
    count: int
    has_audio: bool
    decoder: _Decoder
    pix_fmt: str = "rgb24"
    source_pix_fmt: str = "rgb24"

    def read_into(self, buf: np.ndarray) -> bool:
        return self.decoder.read_into(buf)

    def close(self) -> None:
        self.decoder.close()


class _Decoder:
    """ffmpeg decoding to raw frames on a pipe, read straight into the caller's buffers."""

    def __init__(self, path: str, pix_fmt: str, frame_bytes: int = 0,
                 decoder: str | None = None, listing: str | None = None) -> None:
        import tempfile

        self.path, self.pix_fmt, self.frame_bytes = path, pix_fmt, frame_bytes
        self.codec, self.listing = decoder, listing  # listing: an ffconcat file, removed
        self.frames_read = 0
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            decode_command(listing or path, pix_fmt, decoder=decoder,
                           listing=listing is not None),
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

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        listing = getattr(self, "listing", None)
        if listing is not None:
            Path(listing).unlink(missing_ok=True)


def _natural(name: str) -> list:
    """Sort key: frame_2 before frame_10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def sequence_files(path: str) -> list[Path] | None:
    """The files of an image sequence (a folder, or a pattern such as ``in/%05d.png``) in
    frame order; None if ``path`` is not one."""
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


def start_decoding(path: str, pix_fmt: str) -> _Decoder | None:
    """Start ffmpeg decoding a video file before it is probed (the two overlap); hand
    the result to :func:`open_footage`. None for what is not a file. ``rgb``: 8-bit RGB,
    the likeliest (a deeper or transparent video stops it and starts afresh)."""
    return _Decoder(path, "rgb24" if pix_fmt == "rgb" else pix_fmt) \
        if Path(path).is_file() else None


def footage_format(pix_fmt: str, info: VideoInfo) -> str:
    """The raw format a video is decoded to: ``pix_fmt``, where ``rgb`` is RGB (RGBA with
    alpha) at 8 bits, or 16 where the video has more than 8 (:mod:`hfrender.io.pixels`)."""
    if pix_fmt != "rgb":
        return pix_fmt
    alpha, deep = pix_fmt_facts(info.pix_fmt)
    return raw_format(alpha or info.vp9_alpha, deep)


def open_footage(path: str, fps: float | None = None, pix_fmt: str = "rgb24",
                 decoder: _Decoder | None = None) -> FrameReader:
    """A reader of a video file or a PNG sequence (``fps`` for sequences, default 30).

    ``pix_fmt="rgb"`` keeps the footage's alpha and bit depth (rgb24, rgba, rgb48le or
    rgba64le: see :func:`footage_format`); ``"rgb24"`` is 8-bit RGB whatever the footage.
    ``pix_fmt="yuv420p"`` (video only) hands out the planes as stored, as one
    (3H/2, W, 1) array a frame: blending code values there is what ``tmix`` does, and
    no colour conversion is needed on either side. ``decoder``: one already started by
    :func:`start_decoding` (used if it decodes to the format chosen, else stopped).
    """
    files = sequence_files(path)
    if files is not None or not Path(path).is_file():
        if decoder is not None:
            decoder.close()
        if files is None:
            raise FootageError(f"input not found: {path}")
        return _open_sequence(path, files, fps or 30.0, pix_fmt)
    info = probe(path)
    fmt = footage_format(pix_fmt, info)
    codec = "libvpx-vp9" if info.vp9_alpha and fmt in ("rgba", "rgba64le") else None
    if decoder is not None and (decoder.pix_fmt != fmt or decoder.codec != codec):
        decoder.close()
        decoder = None
    if decoder is None:
        decoder = _Decoder(path, fmt, decoder=codec)
    decoder.frame_bytes = _frame_bytes(info.size, fmt)
    return VideoFootage(path, info.fps, info.size, info.count, info.has_audio, decoder,
                        fmt, info.pix_fmt)


def _frame_bytes(size: tuple[int, int], pix_fmt: str) -> int:
    return int(np.prod(raw_frame_shape(size, pix_fmt))) * np.dtype(raw_dtype(pix_fmt)).itemsize


def _open_sequence(path: str, files: list[Path], fps: float, pix_fmt: str) -> SequenceFootage:
    """A PNG sequence: its size, alpha and depth from the files' headers (every file's:
    one with alpha or 16 bits decides for all); 16-bit ones are decoded by one ffmpeg."""
    import imageio.v3 as iio

    heads = [png_header(f) for f in files]
    if heads[0] is None:  # not a PNG (EXR): as imageio reads it
        h, w = _rgb8(iio.imread(files[0]), files[0]).shape[:2]
        return SequenceFootage(path, fps, (w, h), len(files), files)
    w, h = heads[0][:2]
    for f, head in zip(files, heads, strict=True):
        if head is not None and head[:2] != (w, h):
            raise FootageError(f"{f}: {head[0]}x{head[1]}, but the sequence starts at "
                               f"{w}x{h}")
    if pix_fmt != "rgb":
        return SequenceFootage(path, fps, (w, h), len(files), files)
    fmt = raw_format(any(hd is not None and hd[3] for hd in heads),
                     any(hd is not None and hd[2] > 8 for hd in heads))
    decoder = None
    if fmt in ("rgb48le", "rgba64le"):
        import tempfile

        fd, listing = tempfile.mkstemp(prefix="hfrender-", suffix=".ffconcat")
        with os.fdopen(fd, "w") as fh:
            fh.write("ffconcat version 1.0\n" + "".join(
                "file '{}'\n".format(str(f.resolve()).replace("'", "'\\''")) for f in files))
        decoder = _Decoder(path, fmt, _frame_bytes((w, h), fmt), listing=listing)
    return SequenceFootage(path, fps, (w, h), len(files), files, pix_fmt=fmt, decoder=decoder)


def _rgb8(img: np.ndarray, where: Any, alpha: bool = False) -> np.ndarray:
    """8-bit RGB (RGBA with ``alpha``: opaque where the file has none) of an image."""
    if img.ndim == 2:
        img = img[..., None]
    if img.shape[-1] in (1, 2):  # grey, grey and alpha
        img = np.concatenate([np.repeat(img[..., :1], 3, axis=-1), img[..., 1:]], axis=-1)
    if img.dtype == np.uint16:
        img = (img.astype(np.uint32) * 255 + 32767) // 65535
    if img.dtype != np.uint8 and img.dtype != np.uint32:
        raise FootageError(f"{where}: {img.dtype} images are not supported; use 8 or 16 bits")
    if alpha and img.shape[-1] == 3:
        img = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, img.dtype)], axis=-1)
    return np.ascontiguousarray(img[..., :4 if alpha else 3].astype(np.uint8))


@dataclass
class DepthPass:
    path: str
    count: int
    size: tuple[int, int]
    frames: Iterator[np.ndarray]  # (H, W) float32 metres
    note: str | None = None  # what looks wrong with the units (said, not refused)


def _units_note(path: str, first: np.ndarray, scale: float) -> str | None:
    """A warning for integer depth taken as metres (``scale`` 1) whose first frame reaches
    past :data:`hfrender.validate.UNLIKELY_METRES` (millimetres, most likely)."""
    largest = validate.unlikely_metres(first) if scale == 1.0 else None
    if largest is None:
        return None
    return (f"depth {path} is {first.dtype}, its first frame up to {largest:g} m at "
            "--depth-scale 1: if these are millimetres, pass --depth-scale 0.001")


NUMPY_MAGIC = (b"\x93NUMPY", b"PK\x03\x04", b"PK\x05\x06")  # .npy; .npz (a zip), empty


def _load_numpy(p: Path, path: str) -> np.ndarray:
    """The depth array of a ``.npy`` (memory-mapped) or ``.npz`` (its ``depth`` array, else
    the first); what is no such file (text, a pickle, a truncated file) is one line."""
    def refuse(why: str) -> FootageError:
        return FootageError(f"{path}: not a NumPy .npy/.npz file ({why}); write depth with "
                            "numpy.save or numpy.savez")

    try:
        with open(p, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise FootageError(f"cannot read depth {path}: {exc.strerror or exc}") from None
    if not head.startswith(NUMPY_MAGIC):
        raise refuse(f"it starts with {head!r}" if head else "it is empty")
    try:
        loaded = np.load(p, mmap_mode="r")  # an .npz ignores mmap_mode
        if isinstance(loaded, np.ndarray):
            return loaded
        names = loaded.files
        if not names:
            raise refuse("the archive holds no array")
        if "depth" not in names and len(names) > 1:
            raise FootageError(f"{path} holds {len(names)} arrays ({', '.join(names)}) and "
                               "none named depth: save the pass as numpy.savez(path, "
                               "depth=...)")
        name = "depth" if "depth" in names else names[0]
        arr = loaded[name]
        if not isinstance(arr, np.ndarray):
            raise refuse(f"the archive's {name} is no .npy array")
        return arr
    except FootageError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc) or "Python objects" in str(exc):
            raise refuse("it holds Python objects, not numbers") from None
        raise refuse(_one_line(exc)) from None
    except (OSError, EOFError, KeyError) as exc:  # a damaged header or a truncated archive
        raise refuse(_one_line(exc)) from None


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def open_depth(path: str, scale: float = 1.0) -> DepthPass:
    """A depth pass: ``.npy``/``.npz`` (N, H, W), or a 16-bit PNG / EXR sequence."""
    p = Path(path)
    if p.suffix.lower() in (".npy", ".npz"):
        if not p.is_file():
            raise FootageError(f"depth not found: {path}")
        arr = _load_numpy(p, path)
        if arr.dtype.kind not in "fiu":
            raise FootageError(f"{path}: depth has dtype {arr.dtype}; it must be numeric "
                               "(float32 metres)")
        if arr.ndim == 4 and arr.shape[-1] == 1:
            arr = arr[..., 0]
        if arr.ndim != 3:
            raise FootageError(f"{path}: depth must have shape (frames, height, width); got "
                               f"{arr.shape}")
        frames = (np.asarray(arr[i], np.float32) * np.float32(scale) for i in range(len(arr)))
        return DepthPass(path, int(arr.shape[0]), (int(arr.shape[2]), int(arr.shape[1])),
                         frames, _units_note(path, arr[0] if len(arr) else arr, scale))
    files = sequence_files(path)
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

    return DepthPass(path, len(files), (first.shape[1], first.shape[0]), seq(),
                     _units_note(path, first, scale))
