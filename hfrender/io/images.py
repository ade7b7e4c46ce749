"""Image files beyond 8 bits: 16-bit PNG and OpenEXR (linear float).

imageio's Pillow plugin reads and writes 8-bit PNG (Pillow cuts 16-bit RGB to 8 bits), so
16-bit PNGs are written here (NumPy and zlib: the Sub filter, big-endian samples) and read
by ffmpeg (:func:`read_png`; a sequence streams through one ffmpeg, see
:mod:`hfrender.io.footage`). EXR through the official OpenEXR bindings (``pip install
'hfrender[exr]'``), imported only when an EXR is written or read.
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from hfrender.errors import InputError, pastable
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


class MissingExtra(InputError):
    """An optional part is not installed (the message names the extra)."""


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


def _openexr():  # noqa: ANN202 - the OpenEXR module
    try:
        import OpenEXR
    except ImportError:
        raise MissingExtra("EXR files need the OpenEXR package: pip install "  # read too
                           "'hfrender[exr]'") from None
    return OpenEXR


def check_exr() -> None:
    """Refuse, in one line naming the extra, when OpenEXR is not installed."""
    _openexr()


# what an EXR says of its picture that a blurred copy of it keeps (a compositor reads an
# anamorphic plate's pixel aspect, and its primaries, from them)
EXR_KEPT = ("pixelAspectRatio", "chromaticities", "whiteLuminance", "adoptedNeutral")


def exr_kept(path: str | Path) -> dict:
    """The :data:`EXR_KEPT` attributes of an EXR's header (its pixels not read)."""
    with _openexr().File(str(path), header_only=True) as f:
        header = f.header()
        return {k: header[k] for k in EXR_KEPT if k in header}


def encode_exr(path: str | Path, frame: np.ndarray, kept: dict | None = None,
               extra: dict | None = None) -> None:
    """A (H, W, 3|4) float16/float32 frame of linear light (premultiplied alpha, as EXR
    defines it) into an EXR file (ZIP compression, scanlines); ``kept``: the input's
    :func:`exr_kept` attributes, written too; ``extra``: more channels by name, (H, W)
    float32 each (a render's passes: ``Z``, ``forward.u``, ...)."""
    exr = _openexr()
    if frame.dtype not in (np.float16, np.float32) or frame.shape[-1] not in (3, 4):
        raise ValueError(f"frame is {frame.dtype} {frame.shape}; EXR takes float16 or "
                         "float32 (H, W, 3 or 4)")
    name = "RGBA" if frame.shape[-1] == 4 else "RGB"
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage,
              "software": SOFTWARE, **(kept or {})}
    channels = {name: np.ascontiguousarray(frame)}
    channels.update({k: np.ascontiguousarray(v) for k, v in (extra or {}).items()})
    with exr.File(header, channels) as f:
        try:
            f.write(str(path))
        except RuntimeError as exc:  # OpenEXR's own: "Failed to write ... No space left"
            code = _errno_of(str(exc))
            if code is None:  # not the system's: raised as it is
                raise
            raise OSError(code, os.strerror(code), str(path)) from None


def _errno_of(said: str) -> int | None:
    """The errno of a system error OpenEXR words in its message, if it words one."""
    import errno

    return next((n for n in (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS,
                             errno.EIO) if os.strerror(n) in said), None)


DEPTH_CHANNELS = ("Z", "depth.Z", "Depth.Z", "depth", "Y", "R", "V")  # a depth pass's, in turn


def depth_channel(names: Iterable[str]) -> str | None:
    """The depth channel among an EXR's channel ``names``: one of :data:`DEPTH_CHANNELS`,
    else a multilayer file's depth pass (``ViewLayer.Depth.Z``, or ``Depth.V`` from
    Blender's File Output node; of several view layers the first by name; then a pass
    whose name holds "depth", such as Blender's ``Denoising Depth.Z``), else the file's
    only channel if it names no pass. Other passes' channels (``Mist.Z``, 0-1;
    ``Normal.Z``, ``Vector.Z``, ``Position.Z``) are no distance: never taken."""
    return _depth_choice(names)[1]


def _depth_choice(names: Iterable[str]) -> tuple[int, str | None]:
    """(how sure, 0 most, the name) of :func:`depth_channel`: a Z or a depth pass is 0; Y,
    R, V or a lone channel 1 (in a multi-part file another part's Z comes first)."""
    names = sorted(names)
    name = next((n for n in DEPTH_CHANNELS if n in names), None)
    if name is not None:
        return int(name in ("Y", "R", "V")), name
    passes = [(n.lower().split(".")[-2], n) for n in names
              if n.lower().endswith((".z", ".v")) and n.count(".") >= 1]
    for wanted in (lambda p: p == "depth", lambda p: "depth" in p):
        name = next((n for p, n in passes if wanted(p)), None)
        if name is not None:
            return 0, name
    return 1, names[0] if len(names) == 1 and "." not in names[0] else None


def _depth_part(parts: list[Iterable[str]]) -> tuple[int, str | None]:
    """(part, channel) of a file's depth: the surest of its parts' (was: part 0's alone,
    so a multi-part file's beauty R was read as depth beside its depth part's Z)."""
    ranked = [(*_depth_choice(names), i) for i, names in enumerate(parts)]
    _, name, part = min(ranked, key=lambda r: (r[1] is None, r[0], r[2]))
    return part, name


def read_exr_depth(path: str | Path) -> np.ndarray:
    """An EXR depth pass (H, W): its :func:`depth_channel` (Blender's ``Depth.Z``, Nuke's
    ``depth.Z``, a multilayer file's ``ViewLayer.Depth.Z``, else Y or R, else its only
    channel)."""
    exr = _openexr()
    with exr.File(str(path), separate_channels=True) as f:
        part, name = _depth_part([p.channels for p in f.parts])
        if name is None:
            names = sorted({n for p in f.parts for n in p.channels})
            raise InputError(f"{path}: no depth channel (Z, Depth.Z, Y or R) among "
                             f"{', '.join(names)} (a mist, normal or vector pass is "
                             "no distance: render the Z / Depth pass)")
        chosen = f.parts[part]  # (nothing in its data window: sky)
        return displayed(chosen.header, np.asarray(chosen.channels[name].pixels), np.inf)


def displayed(header: dict, pixels: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """An EXR's pixels (its data window: a compositor's bounding box) where they lie in
    its display window, the picture's frame, ``fill`` around them (EXR's own reading:
    transparent black)."""
    (dx0, dy0), (dx1, dy1) = ((int(v[0]), int(v[1])) for v in header["dataWindow"])
    (wx0, wy0), (wx1, wy1) = ((int(v[0]), int(v[1])) for v in header["displayWindow"])
    if (dx0, dy0, dx1, dy1) == (wx0, wy0, wx1, wy1):
        return pixels
    out = np.full((wy1 - wy0 + 1, wx1 - wx0 + 1) + pixels.shape[2:], fill, pixels.dtype)
    y0, x0, y1, x1 = max(dy0, wy0), max(dx0, wx0), min(dy1, wy1), min(dx1, wx1)
    if y0 <= y1 and x0 <= x1:
        out[y0 - wy0:y1 - wy0 + 1, x0 - wx0:x1 - wx0 + 1] = \
            pixels[y0 - dy0:y1 - dy0 + 1, x0 - dx0:x1 - dx0 + 1]
    return out


def exr_other_channels(path: str | Path) -> list[str]:
    """The channels of an EXR besides the colour :func:`read_exr` reads (a multilayer
    file's passes: ``Depth.Z``, ``Normal.X``, ...), from its header alone."""
    with _openexr().File(str(path), header_only=True) as f:
        parts = [[c.name for c in p.header["channels"]] for p in f.parts]
        named = [str(p.header.get("name") or i) for i, p in enumerate(f.parts)]
    found = next(((i, layer) for i, names in enumerate(parts)
                  for layer in _colour_layers(names)), None)
    colour = set() if found is None else {found[1] + n for n in "RGBA"}
    part = (lambda i: f"{named[i]}.") if len(parts) > 1 else (lambda i: "")  # its part's too
    return [part(i) + n for i, names in enumerate(parts) for n in names
            if found is None or i != found[0] or n not in colour]


def exr_depth_channel(path: str | Path) -> str | None:
    """The name of the channel :func:`read_exr_depth` reads from ``path``."""
    with _openexr().File(str(path), header_only=True) as f:  # its pixels not read
        part, name = _depth_part([[c.name for c in p.header["channels"]] for p in f.parts])
        own = f.parts[part].header.get("name") if len(f.parts) > 1 else None
        return None if name is None else f"{name} (of part {own!r})" if own else name


def read_exr(path: str | Path) -> np.ndarray:
    """An EXR's RGB(A) channels as (H, W, 3|4), in the file's own type, over its display
    window (:func:`displayed`)."""
    exr = _openexr()
    with exr.File(str(path), separate_channels=True) as f:
        if not f.parts:  # (OpenEXR reads a file cut short as one of no parts)
            raise InputError("damaged or cut short (OpenEXR finds no part in it)")
        found = next(((p, layer) for p in f.parts for layer in _colour_layers(p.channels)),
                     None)  # the first part, and layer, with colour (was: part 0's R, G, B)
        if found is None:
            has = sorted({n for p in f.parts for n in p.channels})
            lack = [n for n in "RGB" if n not in has]
            raise InputError(f"no {', '.join(lack) or 'R, G, B'} channel"
                             f"{'s' * (len(lack) != 1)} (it has {', '.join(has)}): a colour "
                             "EXR holds R, G and B")
        part, layer = found
        names = [layer + n for n in "RGBA" if layer + n in part.channels]
        return displayed(part.header, np.stack([part.channels[n].pixels for n in names], -1))


def _colour_layers(channels: Iterable[str]) -> list[str]:
    """The prefixes of ``channels`` that hold R, G and B: "" (plain), then a multilayer
    file's (Blender's ``ViewLayer.Combined.``: its Combined pass first)."""
    names = set(channels)
    layers = sorted({n[:-1] for n in names if n.endswith(".R")} | ({""} if "R" in names else
                                                                    set()))
    whole = [p for p in layers if p + "G" in names and p + "B" in names]
    return sorted(whole, key=lambda p: (p != "", "combined" not in p.lower(), p))


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
