"""EXR frames as footage (``hfrender fx``): float linear light, one file a frame, checked
as it is read (NaN or infinite values, channels of no float type, a sequence of two
types); an EXR file alone is a sequence of one frame."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.io.probe import FootageError


def is_one_image(path: str) -> bool:
    """A PNG or EXR file: footage of one frame, read as a sequence of one (at ``--fps``, 30
    unless given; ffmpeg reads a PNG as a video at its image demuxer's 25 fps, and an EXR's
    light as codes). An animated PNG (APNG) is a video: ffmpeg reads its frames."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".exr") or not Path(path).is_file():
        return False
    return suffix == ".exr" or not _animated(Path(path))


def _animated(path: Path) -> bool:
    """Whether a PNG file is an APNG: an ``acTL`` chunk before its first ``IDAT`` (its
    chunks walked, however much text comes first: a review)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(8)  # the signature
            while len(head := fh.read(8)) == 8:
                kind = head[4:]
                if kind in (b"acTL", b"IDAT", b"IEND"):
                    return kind == b"acTL"
                fh.seek(int.from_bytes(head[:4], "big") + 4, 1)  # its data and CRC
    except OSError:
        pass
    return False


def exr_frame(path: Path, channels: int, stored: Any = None) -> np.ndarray:
    """An EXR file's RGB(A) as float32 (with ``channels`` 4 and none in the file: opaque;
    0: as the file has them, in its float type); NaN or infinite values, channels of no
    float type, and 32-bit light in a sequence that starts in half (``stored``: it is
    written as half) are one line each."""
    from hfrender.io.exr_files import read_exr

    try:
        img = read_exr(path)
    except Exception as exc:  # noqa: BLE001 - OpenEXR's message, or no R, G, B
        said = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if not said.startswith("damaged") and \
                re.search(r"part|chunk|scanline|corrupt|truncat|unexpected end", said, re.I):
            said = f"damaged or cut short (OpenEXR: {said})"  # (was: its words alone)
        raise FootageError(f"cannot read {path}: {said}") from None
    if img.dtype.kind != "f":
        raise FootageError(f"{path}: {img.dtype} channels; fx reads EXR light as half or "
                           "32-bit float")
    if stored == np.float16 and img.dtype != np.float16:
        raise FootageError(f"{path} is {img.dtype}, but the sequence's first frame is half "
                           "(float16), which the output keeps: save the sequence in one type")
    img = img.astype(np.float32, copy=False) if channels else img
    if channels == 4 and img.shape[-1] == 3:
        img = np.concatenate([img, np.ones(img.shape[:2] + (1,), np.float32)], axis=-1)
    elif channels == 3 and img.shape[-1] == 4:
        raise FootageError(f"{path} has alpha, but the sequence's first frame has none")
    bad = ~np.isfinite(img)
    if bad.any():
        y, x = (int(v) for v in np.argwhere(bad)[0][:2])
        raise FootageError(f"{path}: {int(bad.sum())} NaN or infinite value(s), the first at "
                           f"pixel ({x}, {y}); fx needs finite light")
    return img


def check_exr_sizes(files: list[Path], size: tuple[int, int]) -> None:
    """Every EXR of a sequence pictures ``size`` (w, h), told from the headers before any
    work (was: found mid-stream, after frames were made); a header that cannot be read is
    left to the frame's own read, which says why."""
    import OpenEXR

    for f in files[1:]:
        try:
            with OpenEXR.File(str(f), header_only=True) as exr:
                (x0, y0), (x1, y1) = exr.header()["displayWindow"]
        except Exception:  # noqa: BLE001 - damaged: said when the frame is read
            continue
        w, h = int(x1) - int(x0) + 1, int(y1) - int(y0) + 1
        if (w, h) != tuple(size):
            raise FootageError(f"{f}: {w}x{h}, but the sequence starts at "
                               f"{size[0]}x{size[1]}")
