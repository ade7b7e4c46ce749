"""Reading existing footage for ``hfrender fx``: frames, streamed.

Video through imageio-ffmpeg (any format its ffmpeg reads), PNG sequences (a pattern such
as ``in/%05d.png`` or a folder of PNGs), EXR sequences. Frames keep their alpha and their
bit depth (``pix_fmt="rgb"``: RGB or RGBA, uint8, or uint16 where the footage has more than
8 bits: 10-bit video, 16-bit PNGs; float32 linear light from EXR, alpha premultiplied as
EXR holds it; see :mod:`hfrender.io.pixels`). Nothing holds the whole clip in
memory. Depth passes: :mod:`hfrender.io.depth_pass`.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hfrender.io.colour_tags import WIDE, YUV, source_colour
from hfrender.io.exr_footage import check_exr_sizes, exr_frame, is_one_image
from hfrender.io.ffmpeg import bare, frame_pipe_env, widen_pipe
from hfrender.io.ffmpeg_binary import started
from hfrender.io.ffmpeg_read import decode_command, untagged_matrix
from hfrender.io.ffmpeg_temps import remove_temps, temp_file
from hfrender.io.images import png_header, png_whole, unreadable
from hfrender.io.pillow_frames import as_format, pillow_head, read_frame, rgb8
from hfrender.io.pixels import FLOAT, pix_fmt_facts, raw_dtype, raw_format
from hfrender.io.probe import FootageError, VideoInfo, probe
from hfrender.io.sequence_files import sequence_files
from hfrender.io.writers import Closing, raw_frame_shape

# ffmpeg 7's "no decoder found for: none", ffmpeg 6's "Decoder (codec none) not found"
NO_DECODER = re.compile(r"no decoder found|decoder \(.*\) not found", re.IGNORECASE)


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
    kept: bool = False  # not PNG (TIFF, JPEG), its own alpha and depth: its files' headers'
    modes: tuple[str, ...] = ()  # not PNG: each file's, as Pillow opens it (CMYK: as RGB;
    # a TIFF's associated alpha: RGBa, La, made straight as read: pillow_frames.straight)

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
            as_format(read_frame(f, self.modes[self._next] if self.modes else ""), f,
                      self.pix_fmt, self.kept)
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
                 matrix: str | None = None, yuv: bool = False) -> None:
        import tempfile

        self.path, self.pix_fmt, self.frame_bytes = path, pix_fmt, frame_bytes
        self.codec, self.listing = decoder, listing  # listing: an ffconcat file, removed
        self.matrix = matrix  # an untagged HD video's: BT.709, as players read it
        self.yuv = yuv and pix_fmt in WIDE  # 16-bit RGB from YUV: its white made 65535
        self.frames_read = 0
        self.log = tempfile.TemporaryFile()
        try:
            self.proc = started(
                decode_command(listing or path, pix_fmt, decoder=decoder,
                               listing=listing is not None, matrix=matrix, yuv=yuv),
                stdout=subprocess.PIPE, stderr=self.log, start_new_session=True,
                env=frame_pipe_env())
        except BaseException:  # (its log, a temporary file, closed: was left open)
            self.log.close()
            raise
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
            why = stopped_why(self.log.read().decode(errors="replace"))
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


def stopped_why(log: str) -> str:
    """What stopped a decoder, from ffmpeg's ``log``: the line saying it has no decoder
    ("no decoder found for: none", before its last line's "Error opening output files:
    Invalid argument"; not a damaged packet's "Error submitting packet to decoder" before
    it), else its last line."""
    said = [bare(x) for x in log.splitlines()]  # (without "[vist#0:0 @ 0x...]")
    return next((x for x in said if NO_DECODER.search(x)), None) or next(
        (x for x in reversed(said) if x), "the video ended in the middle of a frame")


def start_decoding(path: str, pix_fmt: str) -> _Decoder | None:
    """Start ffmpeg decoding a video file before it is probed (the two overlap); hand
    the result to :func:`open_footage`. None for what is not a file. ``rgb``: 8-bit RGB,
    the likeliest (a deeper or transparent video stops it and starts afresh)."""
    return _Decoder(path, "rgb24" if pix_fmt == "rgb" else pix_fmt) \
        if Path(path).is_file() and not is_one_image(path) else None


def footage_format(pix_fmt: str, info: VideoInfo) -> str:
    """The raw format a video is decoded to: ``pix_fmt``, where ``rgb`` is RGB (RGBA with
    alpha) at 8 bits, or 16 where the video has more than 8 (:mod:`hfrender.io.pixels`)."""
    if pix_fmt != "rgb":
        return pix_fmt
    alpha, deep = pix_fmt_facts(info.pix_fmt)
    return raw_format(alpha or info.vp9_alpha, deep)


def check_folder(path: str) -> None:
    """A folder given as footage holds a sequence of PNG, EXR, TIFF or JPEG images
    (:data:`~hfrender.io.sequence_files.FOLDER_KINDS`): found by their
    names, none opened (a batch's check of every job: was each header read, an EXR's
    first frame decoded, for every fx job before any ran)."""
    if sequence_files(path) is None:
        raise _no_pictures(path)


def _no_pictures(path: str) -> FootageError:
    return FootageError(f"input {path} is a folder with no PNG, EXR, TIFF or JPEG images in "
                        "it (a sequence's folder, or a pattern such as in/%05d.png)")


def open_footage(path: str, fps: float | None = None, pix_fmt: str = "rgb24",
                 decoder: _Decoder | None = None) -> FrameReader:
    """A reader of a video file or a PNG sequence (``fps`` for sequences, default 30; for a
    video, the rate its frames are read at instead of its own: conformed, every frame once).

    ``pix_fmt="rgb"`` keeps the footage's alpha and bit depth (rgb24, rgba, rgb48le or
    rgba64le: see :func:`footage_format`); ``"rgb24"`` is 8-bit RGB whatever the footage.
    ``pix_fmt="yuv420p"`` (video only) hands out the planes as stored, as one
    (3H/2, W, 1) array a frame: blending code values there is what ``tmix`` does, and
    no colour conversion is needed on either side. ``decoder``: one already started by
    :func:`start_decoding` (used if it decodes to the format chosen, else stopped).
    """
    files = sequence_files(path) if not is_one_image(path) else [Path(path)]  # one frame
    if files is not None or not Path(path).is_file():
        if decoder is not None:
            decoder.close()
        if files is None and Path(path).is_dir():
            raise _no_pictures(path)
        if files is None and (path == "-" or Path(path).exists()):  # (was: "not found")
            raise FootageError(f"input {path}: footage is read from a file, not a pipe or "
                               "device (it is probed before it is decoded); save it to a file "
                               "first")
        if files is None:
            raise FootageError(f"input not found: {path}")
        return _open_sequence(path, files, fps or 30.0, pix_fmt)
    info = probe(path)
    fmt = footage_format(pix_fmt, info)
    codec = "libvpx-vp9" if info.vp9_alpha and fmt in ("rgba", "rgba64le") else None
    matrix = untagged_matrix(info.pix_fmt, info.size, fmt)
    # limited-range YUV into 16-bit RGB (full range's white the scaler puts at 65472 of
    # 65535, near enough: the factor would overshoot it, a review)
    yuv = (info.pix_fmt.startswith(YUV) and fmt in WIDE
           and source_colour(info.pix_fmt).get("range") != "pc")
    if decoder is not None and (decoder.pix_fmt, decoder.codec, decoder.matrix,
                                decoder.yuv) != (fmt, codec, matrix, yuv):
        decoder.close()
        decoder = None
    if decoder is None:
        decoder = _Decoder(path, fmt, decoder=codec, matrix=matrix, yuv=yuv)
    decoder.frame_bytes = _frame_bytes(info.size, fmt)
    return VideoFootage(path, fps or info.fps, info.size, info.count, info.has_audio, decoder,
                        fmt, info.pix_fmt)


def _frame_bytes(size: tuple[int, int], pix_fmt: str) -> int:
    return int(np.prod(raw_frame_shape(size, pix_fmt))) * np.dtype(raw_dtype(pix_fmt)).itemsize


def _open_sequence(path: str, files: list[Path], fps: float, pix_fmt: str) -> SequenceFootage:
    """A PNG sequence: its size, alpha and depth from the files' headers (every file's:
    one with alpha or 16 bits decides for all); 16-bit ones are decoded by one ffmpeg.
    Other images (TIFF, JPEG) are read by imageio, their alpha and depth decided alike
    from every file's header as Pillow reads it (was: the first frame's, a later one with
    more refused when reached, frames written; CMYK's K taken for alpha)."""
    if files[0].suffix.lower() == ".exr":
        return _open_exr(path, files, fps)
    first = png_header(files[0])
    if first is None:  # not a PNG (TIFF, JPEG): 16 bits and alpha kept (were dropped
        looks = [pillow_head(f) for f in files]  # unsaid, a trial; each file opened once)
        h, w = rgb8(read_frame(files[0], looks[0][0]), files[0]).shape[:2]
        fmt = raw_format(any(a for _, a, _ in looks), any(d for *_, d in looks))
        return SequenceFootage(path, fps, (w, h), len(files), files,
                               pix_fmt=fmt if pix_fmt == "rgb" else "rgb24",
                               kept=pix_fmt == "rgb", modes=tuple(m for m, *_ in looks))
    heads = [first, *(png_header(f) for f in files[1:])]
    w, h = first[:2]
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
        text = "ffconcat version 1.0\n" + "".join(
            "file '{}'\n".format(str(f.resolve()).replace("'", "'\\''")) for f in files)
        listing = temp_file(".ffconcat", lambda p: p.write_text(text))
        try:  # (an ffmpeg that does not start: its list goes, was left in /tmp)
            decoder = _Decoder(path, fmt, _frame_bytes((w, h), fmt), listing=listing)
        except BaseException:
            remove_temps(listing)
            raise
    return SequenceFootage(path, fps, (w, h), len(files), files, pix_fmt=fmt, decoder=decoder)


def _open_exr(path: str, files: list[Path], fps: float) -> SequenceFootage:
    """An EXR sequence: float32 linear light, RGBA where its first frame has alpha (what
    fx asks of any footage, ``pix_fmt="rgb"``: its own alpha and depth)."""
    first = exr_frame(files[0], 0)
    h, w, c = first.shape
    check_exr_sizes(files, (w, h))
    return SequenceFootage(path, fps, (w, h), len(files), files,
                           pix_fmt="rgbaf32" if c == 4 else "rgbf32", stored=first.dtype)
