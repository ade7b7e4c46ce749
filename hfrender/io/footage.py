"""Reading existing footage for ``hfrender fx``: frames, streamed.

Video through imageio-ffmpeg (any format its ffmpeg reads), PNG sequences (a pattern such
as ``in/%05d.png`` or a folder of PNGs), EXR sequences. Frames keep their alpha and their
bit depth (``pix_fmt="rgb"``: RGB or RGBA, uint8, or uint16 where the footage has more than
8 bits: 10-bit video, 16-bit PNGs; float32 linear light from EXR, alpha premultiplied as
EXR holds it; see :mod:`hfrender.io.pixels`). Nothing holds the whole clip in
memory. Depth passes: :mod:`hfrender.io.depth_pass`.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hfrender.io.exr_footage import exr_frame, is_exr_file
from hfrender.io.ffmpeg import decode_command, frame_pipe_env, untagged_matrix, widen_pipe
from hfrender.io.images import imageio_v3, png_header, png_whole, unreadable
from hfrender.io.pixels import FLOAT, pix_fmt_facts, raw_dtype, raw_format
from hfrender.io.probe import FootageError, VideoInfo, probe
from hfrender.io.sequence_names import FIELD, pattern_files
from hfrender.io.writers import Closing, raw_frame_shape


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
    stored: Any = None  # an EXR sequence's float type (its first frame's): float16, float32

    def __post_init__(self) -> None:
        self._next = 0

    def read_into(self, buf: np.ndarray) -> bool:
        """Fill ``buf`` with the next frame; False at the end."""
        if self.decoder is not None:
            return self._decoded_into(buf)
        if self._next >= len(self.files):
            return False
        f = self.files[self._next]
        img = exr_frame(f, buf.shape[-1], self.stored) if self.pix_fmt in FLOAT else \
            _rgb8(_imread(f), f, alpha=buf.shape[-1] == 4)
        if img.shape[:2] != (self.size[1], self.size[0]):
            raise FootageError(f"{f}: {img.shape[1]}x{img.shape[0]}, but the sequence "
                               f"starts at {self.size[0]}x{self.size[1]}")
        buf[...] = img
        self._next += 1
        return True

    def _decoded_into(self, buf: np.ndarray) -> bool:
        """The next frame from the one ffmpeg of 16-bit files. Its concat demuxer passes
        over a file it cannot decode, and the next file would stand in for it: each file
        is looked over as its frame comes (:func:`.images.png_whole`), and a sequence that
        ends short of its files is an error."""
        k = self.decoder.frames_read
        if not self.decoder.read_into(buf):
            if k < len(self.files):
                raise FootageError(f"{self.path}: ffmpeg decoded {k} of its {len(self.files)} "
                                   "files: one of them is damaged")
            return False
        if k < len(self.files) and not png_whole(self.files[k]):
            self.decoder.close()
            raise FootageError(unreadable(self.files[k], Exception("truncated, or overwritten")))
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
                 decoder: str | None = None, listing: str | None = None,
                 matrix: str | None = None) -> None:
        import tempfile

        self.path, self.pix_fmt, self.frame_bytes = path, pix_fmt, frame_bytes
        self.codec, self.listing = decoder, listing  # listing: an ffconcat file, removed
        self.matrix = matrix  # an untagged HD video's: BT.709, as players read it
        self.frames_read = 0
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            decode_command(listing or path, pix_fmt, decoder=decoder,
                           listing=listing is not None, matrix=matrix),
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
        self.log.close()  # ffmpeg's log: its errors were read where they came
        listing = getattr(self, "listing", None)
        if listing is not None:
            Path(listing).unlink(missing_ok=True)


def sequence_files(path: str) -> list[Path] | None:
    """The files of an image sequence (a folder, or a pattern such as ``in/%05d.png``) in
    frame order; None if ``path`` is not one."""
    p = Path(path)
    if p.is_dir():
        pattern = folder_pattern(p)
        return sequence_files(str(p / pattern)) if pattern else None
    if "%" in p.name:
        rx = pattern_files(p.name)
        if rx is None:
            return None
        there = list(p.parent.iterdir()) if p.parent.is_dir() else []
        found = sorted((int(mm.group(1)), f) for f in there if (mm := rx.match(f.name)))
        if not found:
            _near_miss(path, there)
        for (a, _), (b, _) in zip(found, found[1:], strict=False):
            if b != a + 1:
                raise FootageError(f"{path}: frame {a + 1} is missing (the sequence jumps "
                                   f"from {a} to {b})")
        return [f for _, f in found] or None
    return None


def folder_pattern(folder: Path) -> str | None:
    """The pattern of the one image sequence in ``folder`` (``f.%04d.png``: its files' last
    number the frame's), so that a folder is read as that pattern is, gaps refused; None
    for no image; one line where the folder holds another file or sequence beside it (a
    slate, an earlier output), which a folder read whole would take in as frames."""
    alike: dict[str, list[str]] = {}  # names alike but for their numbers
    for f in folder.iterdir():
        if f.suffix.lower() in (".png", ".exr"):
            alike.setdefault(re.sub(r"\d+", "#", f.name), []).append(f.name)
    groups: dict[tuple[str, str], list[int]] = {}
    for names in alike.values():
        for key, width in _frame_numbers(names):
            groups.setdefault(key, []).append(width)
    if not groups:
        return None
    if len(groups) > 1 or -1 in next(iter(groups.values())):
        names = sorted(a + ("#" if -1 not in w else "") + b for (a, b), w in groups.items())
        most = max(sorted(groups), key=lambda k: len(groups[k]))  # the longest, for example
        raise FootageError(f"{folder} holds more than one image sequence ({', '.join(names)}"
                           f"); give the one to read as a pattern, e.g. "
                           f"{folder / _as_pattern(most, set(groups[most]))}")
    key, widths = next(iter(groups.items()))
    return _as_pattern(key, set(widths))


def _frame_numbers(names: list[str]) -> list[tuple[tuple[str, str], int]]:
    """((the name before and after its frame number), the number's width) of names alike
    but for their numbers: the frame number is the one that changes from name to name
    (``s2.1001_v2.png``: 1001), else the last; width -1 for a name without one."""
    runs = [list(re.finditer(r"\d+", n)) for n in names]
    if not runs[0]:
        return [((n, ""), -1) for n in names]
    varying = [i for i in range(len(runs[0])) if len({r[i].group() for r in runs}) > 1]
    k = varying[0] if len(varying) == 1 else -1
    return [((n[:r[k].start()], n[r[k].end():]), len(r[k].group()))
            for n, r in zip(names, runs, strict=True)]


def _as_pattern(key: tuple[str, str], widths: set[int]) -> str:
    """``head%0Nd.tail`` where every number is N digits wide, else ``head%d.tail``."""
    head, tail = key
    return f"{head}%0{min(widths)}d{tail}" if len(widths) == 1 and -1 not in widths \
        else f"{head}%d{tail}"


def sequence_start(path: str) -> int:
    """The number of an image sequence's first frame: a pattern's field in its first file
    (``shot.%04d_v2.png``: 1001 of ``shot.1001_v2.png``; a folder's, through its pattern,
    :func:`folder_pattern`); 0 for a video or a name without one."""
    p = Path(path)
    pattern = folder_pattern(p) if p.is_dir() else None
    if pattern:
        p = p / pattern
    if "%" not in p.name:
        return 0
    files, rx = sequence_files(str(p)), pattern_files(p.name)
    m = rx.match(files[0].name) if files and rx is not None else None
    return int(m.group(1)) if m else 0


def start_decoding(path: str, pix_fmt: str) -> _Decoder | None:
    """Start ffmpeg decoding a video file before it is probed (the two overlap); hand
    the result to :func:`open_footage`. None for what is not a file. ``rgb``: 8-bit RGB,
    the likeliest (a deeper or transparent video stops it and starts afresh)."""
    return _Decoder(path, "rgb24" if pix_fmt == "rgb" else pix_fmt) \
        if Path(path).is_file() and not is_exr_file(path) else None


def footage_format(pix_fmt: str, info: VideoInfo) -> str:
    """The raw format a video is decoded to: ``pix_fmt``, where ``rgb`` is RGB (RGBA with
    alpha) at 8 bits, or 16 where the video has more than 8 (:mod:`hfrender.io.pixels`)."""
    if pix_fmt != "rgb":
        return pix_fmt
    alpha, deep = pix_fmt_facts(info.pix_fmt)
    return raw_format(alpha or info.vp9_alpha, deep)


def _near_miss(path: str, there: list[Path]) -> None:
    """A pattern of another width than the files beside it (in/%05d.png for Blender's
    0001.png ...): the pattern that reads them, in one line, rather than 'not found'."""
    p = Path(path)
    loose = pattern_files(p.name, any_width=True)
    names = sorted(f.name for f in there if loose.match(f.name))
    if not names:
        return
    widths = {len(loose.match(n).group(1)) for n in names}
    spec = f"%0{widths.pop()}d" if len(widths) == 1 else "%d"
    hint = str(p.parent / FIELD.sub(spec, p.name, count=1))
    raise FootageError(f"{path}: no file has the names this pattern prints; {p.parent} holds "
                       f"{names[0]} ... ({len(names)} files): give {hint}, or the folder")


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
    files = sequence_files(path) if not is_exr_file(path) else [Path(path)]  # one frame
    if files is not None or not Path(path).is_file():
        if decoder is not None:
            decoder.close()
        if files is None and Path(path).is_dir():
            raise FootageError(f"input {path} is a folder with no PNG or EXR images in it "
                               "(a sequence's folder, or a pattern such as in/%05d.png)")
        if files is None:
            raise FootageError(f"input not found: {path}")
        return _open_sequence(path, files, fps or 30.0, pix_fmt)
    info = probe(path)
    fmt = footage_format(pix_fmt, info)
    codec = "libvpx-vp9" if info.vp9_alpha and fmt in ("rgba", "rgba64le") else None
    matrix = untagged_matrix(info.pix_fmt, info.size, fmt)
    if decoder is not None and (decoder.pix_fmt, decoder.codec, decoder.matrix) != (
            fmt, codec, matrix):
        decoder.close()
        decoder = None
    if decoder is None:
        decoder = _Decoder(path, fmt, decoder=codec, matrix=matrix)
    decoder.frame_bytes = _frame_bytes(info.size, fmt)
    return VideoFootage(path, info.fps, info.size, info.count, info.has_audio, decoder,
                        fmt, info.pix_fmt)


def _frame_bytes(size: tuple[int, int], pix_fmt: str) -> int:
    return int(np.prod(raw_frame_shape(size, pix_fmt))) * np.dtype(raw_dtype(pix_fmt)).itemsize


def _open_sequence(path: str, files: list[Path], fps: float, pix_fmt: str) -> SequenceFootage:
    """A PNG sequence: its size, alpha and depth from the files' headers (every file's:
    one with alpha or 16 bits decides for all); 16-bit ones are decoded by one ffmpeg."""
    if files[0].suffix.lower() == ".exr":
        return _open_exr(path, files, fps)
    heads = [png_header(f) for f in files]
    if heads[0] is None:  # not a PNG: as imageio reads it
        h, w = _rgb8(_imread(files[0]), files[0]).shape[:2]
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
    if fmt in ("rgb48le", "rgba64le"):  # ffmpeg would pass over a file that is no PNG
        bad = next((f for f, head in zip(files, heads, strict=True) if head is None), None)
        if bad is not None:
            raise FootageError(unreadable(bad, Exception("")))
        import tempfile

        fd, listing = tempfile.mkstemp(prefix="hfrender-", suffix=".ffconcat")
        with os.fdopen(fd, "w") as fh:
            fh.write("ffconcat version 1.0\n" + "".join(
                "file '{}'\n".format(str(f.resolve()).replace("'", "'\\''")) for f in files))
        decoder = _Decoder(path, fmt, _frame_bytes((w, h), fmt), listing=listing)
    return SequenceFootage(path, fps, (w, h), len(files), files, pix_fmt=fmt, decoder=decoder)


def _open_exr(path: str, files: list[Path], fps: float) -> SequenceFootage:
    """An EXR sequence: float32 linear light, RGBA where its first frame has alpha (what
    fx asks of any footage, ``pix_fmt="rgb"``: its own alpha and depth)."""
    first = exr_frame(files[0], 0)
    h, w, c = first.shape
    return SequenceFootage(path, fps, (w, h), len(files), files,
                           pix_fmt="rgbaf32" if c == 4 else "rgbf32", stored=first.dtype)


def _imread(path: Path) -> np.ndarray:
    """An image file of a sequence through imageio; what it cannot read, one line (a
    YCbCr TIFF: "chroma subsampling not supported")."""
    try:
        return imageio_v3().imread(path)
    except Exception as exc:  # noqa: BLE001 - whatever the plugin says
        raise FootageError(unreadable(path, exc, hint="; save the sequence as RGB PNG")
                           ) from None


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
