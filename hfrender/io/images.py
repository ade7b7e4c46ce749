"""Image files beyond 8 bits: 16-bit PNG here, OpenEXR (linear float) in :mod:`.exr_files`.

imageio's Pillow plugin reads and writes 8-bit PNG (Pillow cuts 16-bit RGB to 8 bits), so
16-bit PNGs are written here (NumPy and zlib: the Sub filter, big-endian samples) and read
by ffmpeg (:func:`read_png`; a sequence streams through one ffmpeg, see
:mod:`hfrender.io.footage`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

from hfrender.errors import InputError, pastable
from hfrender.io.exr_files import encode_exr
from hfrender.io.ffmpeg import bare
from hfrender.io.frame_marks import (  # (hfrender's marks: frame_marks)
    EXR_SEQUENCE,
    PNG_MAGIC,
    PNG_MARK,
    SOFTWARE,
    png_sequence_chunk,
)

# PNG colour type -> (channels, alpha)
COLOR_TYPES = {0: (1, False), 2: (3, False), 3: (3, False), 4: (2, True), 6: (4, True)}
ZLIB_LEVEL = 6  # Pillow's default
# a PNG's colour chunks: sRGB (perceptual intent), its codes are sRGB (was: untagged), and
# the gAMA and cHRM the PNG standard asks beside it (11.3.2.5), for readers that know no
# sRGB chunk: gamma 1/2.2 (45455), BT.709's primaries and D65 (were missing: such a reader
# took the codes as of unknown gamma)
SRGB_CHUNKS = ((b"sRGB", b"\0"), (b"gAMA", struct.pack(">I", 45455)),
               (b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000,
                                     6000)))


def _ihdr(path: str | Path) -> tuple[int, int, int, int] | None:
    """(width, height, bit depth, colour type) from a PNG's IHDR; None for what is no PNG."""
    with open(path, "rb") as fh:
        head = fh.read(33)
    if len(head) < 33 or not head.startswith(PNG_MAGIC) or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">IIBB", head[16:26])


def png_header(path: str | Path) -> tuple[int, int, int, bool] | None:
    """(width, height, bit depth, has alpha) from a PNG's IHDR; None for what is no PNG.
    A palette with a ``tRNS`` chunk is not looked for (its alpha counts as none)."""
    head = _ihdr(path)
    if head is None:
        return None
    w, h, depth, kind = head
    return w, h, depth, COLOR_TYPES.get(kind, (3, False))[1]


def png_whole(path: str | Path) -> bool:
    """Whether a PNG's chunks run whole to its ``IEND`` (a cut or overwritten file's do
    not): their lengths alone are read, not their data (a few reads a file)."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        if fh.read(8) != PNG_MAGIC:
            return False
        at = 8
        while at + 12 <= size:
            fh.seek(at)
            length, kind = struct.unpack(">I4s", fh.read(8))
            at += 12 + length
            if kind == b"IEND":
                return at <= size
    return False


def png_colour(path: str | Path) -> tuple[int, int] | None:
    """(bit depth, colour type) from a PNG's IHDR; None for what is no PNG."""
    head = _ihdr(path)
    return None if head is None else head[2:]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png16(frame: np.ndarray, sequence: str | None = None) -> bytes:
    """A (H, W, 3|4) uint16 frame as the bytes of a 16-bit RGB(A) PNG (``sequence``: the
    mark of the sequence it is a frame of, :func:`.frame_marks.sequence_id`)."""
    h, w, c = frame.shape
    if frame.dtype != np.uint16 or c not in (3, 4):
        raise ValueError(f"frame is {frame.dtype} {frame.shape}; a 16-bit PNG takes uint16 "
                         "(H, W, 3 or 4)")
    rows = np.ascontiguousarray(frame, ">u2").view(np.uint8).reshape(h, w * c * 2)
    bpp = c * 2
    filtered = np.empty((h, 1 + rows.shape[1]), np.uint8)
    filtered[:, 0] = 1  # Sub: each byte less the one a pixel to the left
    filtered[:, 1:1 + bpp] = rows[:, :bpp]
    np.subtract(rows[:, bpp:], rows[:, :-bpp], out=filtered[:, 1 + bpp:])
    ihdr = struct.pack(">IIBBBBB", w, h, 16, 6 if c == 4 else 2, 0, 0, 0)
    return (PNG_MAGIC + _chunk(b"IHDR", ihdr)
            + b"".join(_chunk(kind, data) for kind, data in SRGB_CHUNKS)
            + _chunk(b"tEXt", PNG_MARK)
            + (_chunk(b"tEXt", png_sequence_chunk(sequence)) if sequence else b"")
            + _chunk(b"IDAT", zlib.compress(filtered.tobytes(), ZLIB_LEVEL))
            + _chunk(b"IEND", b""))


def imageio_v3():  # noqa: ANN201 - the module imageio.v3
    """``imageio.v3``, with pillow_heif known to be missing where it is. imageio's Pillow
    plugin imports pillow_heif at every file it opens; where it is not installed, each
    such import searches the path under that module's import lock, and a Ctrl-C landing
    inside the search can leave the lock held (CPython), so that the next frame written on
    another thread waits forever: a hang on Ctrl-C. ``sys.modules[name] = None`` is
    Python's documented mark of a module that cannot be imported (no search, no lock)."""
    if "pillow_heif" not in sys.modules and importlib.util.find_spec("pillow_heif") is None:
        sys.modules["pillow_heif"] = None
    import imageio.v3 as iio

    return iio


def png8_bytes(frame: np.ndarray, sequence: str | None = None) -> bytes:
    """An 8-bit frame (H, W, C) as the bytes of a PNG (imageio's Pillow) marked as
    hfrender's (and ``sequence``'s frame, where given)."""
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    for kind, data in SRGB_CHUNKS:  # (Pillow writes them before the pixels)
        info.add(kind, data)
    info.add_text("Software", SOFTWARE)
    if sequence:
        info.add(b"tEXt", png_sequence_chunk(sequence))
    return imageio_v3().imwrite("<bytes>", np.ascontiguousarray(frame), extension=".png",
                                pnginfo=info)


def write_png8(path: str | Path, frame: np.ndarray) -> None:
    """An 8-bit frame (H, W, C) as a PNG file marked as hfrender's."""
    Path(path).write_bytes(png8_bytes(frame))


def write_picture(path: str | Path, frame: np.ndarray, exr_kept: dict | None = None,
                  sequence: str | None = None, extra: dict | None = None) -> None:
    """A finished frame as its dtype is written: float as EXR (with ``exr_kept`` and
    ``extra`` channels, see :func:`encode_exr`), uint16 as a 16-bit PNG, uint8 as an 8-bit
    PNG; ``sequence``: the mark of the sequence it is a frame of."""
    if frame.dtype.kind == "f":
        mark = {EXR_SEQUENCE: sequence} if sequence else {}
        encode_exr(path, frame, {**(exr_kept or {}), **mark}, extra)
    elif frame.dtype == np.uint16:
        Path(path).write_bytes(encode_png16(frame, sequence))
    else:
        Path(path).write_bytes(png8_bytes(frame, sequence))


def read_png(path: str | Path) -> np.ndarray:
    """A PNG as (H, W, C) with its own depth: uint16 for 16-bit files (decoded by ffmpeg),
    else imageio's uint8; C is 3, or 4 with alpha (grey is given as RGB)."""
    head = png_header(path)
    if head is None:
        raise InputError(f"{path}: not a PNG file")
    w, h, depth, alpha = head
    if depth <= 8:
        img = imageio_v3().imread(path)
        if img.ndim == 2:
            img = np.repeat(img[..., None], 3, axis=-1)
        elif img.shape[-1] == 2:  # grey and alpha
            img = np.concatenate([np.repeat(img[..., :1], 3, axis=-1), img[..., 1:]], -1)
        return img
    from hfrender.io.ffmpeg_binary import ffmpeg_exe

    fmt = "rgba64le" if alpha else "rgb48le"
    res = subprocess.run([ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-i",
                          str(path), "-f", "rawvideo", "-pix_fmt", fmt, "-"],
                         capture_output=True, check=False)
    c = 4 if alpha else 3
    if res.returncode != 0 or len(res.stdout) != w * h * c * 2:
        said = res.stderr.decode(errors="replace").strip().splitlines()  # its decoder's
        first = bare(said[0]) if said else ""  # line, not "Nothing
        raise InputError(f"cannot read {path}: a damaged PNG"  # was written" at the end
                         + (f" (ffmpeg: {first})" if first else ""))
    return np.frombuffer(res.stdout, "<u2").reshape(h, w, c).copy()


def unreadable(path: Path, exc: Exception, what: str = "", hint: str = "") -> str:
    """One line for an image that its plugin could not decode (imageio found none that
    opens it: damaged, or another format; or the plugin's own reason, then ``hint``)."""
    lines = str(exc).strip().splitlines()
    said = lines[0] if lines else ""
    kind = f"{path.suffix.lstrip('.').upper()} " if path.suffix else ""
    # a kind no plugin here reads (a whole DPX was said "damaged", a footage trial); its
    # line makes png/ first (ffmpeg does not) and quotes the folder as a shell takes it
    if "Could not find a backend" in said and path.suffix and not _pillow_reads(path.suffix):
        return (f"cannot read {what}{path}: hfrender reads no {kind}images (PNG, EXR, "
                "and what Pillow reads: TIFF, JPEG): convert them first, to 16-bit PNGs in "
                "a folder png/ (mkdir -p png && ffmpeg -pattern_type glob -i "
                f"{pastable(f'{path.parent}/*{path.suffix}')} -pix_fmt rgb48be png/%04d.png)")
    why = ("damaged, or another format" if not said or "Could not find a backend" in said else
           f"damaged: {said}" if re.search(r"truncat|broken|corrupt", said, re.I) else
           said + hint)
    return f"cannot read {what}{path}: it is no readable {kind}image ({why})"


def _pillow_reads(suffix: str) -> bool:
    """Whether Pillow reads files named ``suffix`` (".jpg", ".tif": yes; ".dpx": no)."""
    from PIL import Image

    return suffix.lower() in Image.registered_extensions()
