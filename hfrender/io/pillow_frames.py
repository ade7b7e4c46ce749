"""The frames of a sequence that is neither PNG nor EXR (TIFF, JPEG: what Pillow reads),
for :mod:`hfrender.io.footage`: each file's alpha and depth from its header, its pixels
through imageio, in the sequence's raw format (:mod:`hfrender.io.pixels`), alpha straight
(a TIFF's associated alpha made so: :func:`straight`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hfrender.io.images import imageio_v3, unreadable
from hfrender.io.pixels import ALPHA
from hfrender.io.probe import FootageError

# Pillow's modes with alpha (a palette's: PA; premultiplied: RGBa, La)
ALPHA_MODES = ("RGBA", "LA", "PA", "RGBa", "La")
# a TIFF's associated alpha (ExtraSamples 1), its mode as :func:`pillow_head` gives it: Pillow
# opens an 8 or 16-bit RGB one as RGBA (its pixels made straight, 8 bits), imageio's TIFF
# plugin hands out the codes as stored, premultiplied (were taken for straight, a trial)
PREMULTIPLIED = {"RGBA": "RGBa", "LA": "La", "RGBa": "RGBa", "La": "La"}
# modes read as RGB: Pillow hands a CMYK JPEG or TIFF to imageio as 4 channels, and K was
# taken for alpha (solid red read as [55 225 225 0], see-through)
TO_RGB = ("CMYK", "YCbCr", "LAB", "HSV")


def pillow_head(path: Path) -> tuple[str, bool, bool]:
    """(Pillow's mode, has alpha, 16 bits) of an image file, from its header alone (its
    pixels not decoded) where it says 8 or 16 bits a sample (``I;16`` modes: 16; a TIFF
    with associated alpha: RGBa or La, :data:`PREMULTIPLIED`, whatever its depth); any
    other (a float or 32-bit int TIFF, one Pillow does not open) is read whole, and
    refused unless 8 or 16 bits (:func:`supported`; was: counted 16-bit, read black), or
    imageio's words for one it cannot read (a DPX's: no plugin here reads it)."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            mode, bits = im.mode, getattr(im, "tag_v2", {}).get(258, (8,))
            extra = getattr(im, "tag_v2", {}).get(338, ()) if im.format == "TIFF" else ()
            if (extra if isinstance(extra, tuple) else (extra,))[:1] == (1,):
                mode = PREMULTIPLIED.get(mode, mode)  # (its alpha: the first extra sample)
            palette = getattr(im.palette, "mode", "") if mode == "P" else ""
    except Exception:  # noqa: BLE001 - not Pillow's: as imageio reads it, or its words
        mode, bits, palette = "", (), ""
    widths = bits if isinstance(bits, tuple) else (bits,)
    if mode.startswith("I;16") or mode not in ("", "I", "F") and all(
            b <= 8 or b == 16 for b in widths):
        alpha = mode in ALPHA_MODES or palette == "RGBA"
        return mode, alpha, mode.startswith("I;16") or max(widths) == 16
    img = supported(read_frame(path, mode), path)
    return mode, img.ndim == 3 and img.shape[-1] in (2, 4), img.dtype == np.uint16


def read_frame(path: Path, mode: str = "") -> np.ndarray:
    """An image file of a sequence through imageio, CMYK (:data:`TO_RGB`) as RGB, a TIFF of
    associated alpha (``mode`` RGBa or La) read as stored by imageio's TIFF plugin and made
    straight (:func:`straight`); what it cannot read, one line (a YCbCr TIFF: "chroma
    subsampling not supported")."""
    how = {"mode": "RGB"} if mode in TO_RGB else {"plugin": "TIFF"} if mode in (
        "RGBa", "La") else {}
    try:
        img = imageio_v3().imread(path, **how)
    except Exception as exc:  # noqa: BLE001 - whatever the plugin says
        raise FootageError(unreadable(path, exc, hint="; save the sequence as RGB PNG")
                           ) from None
    return straight(img) if "plugin" in how else img


def straight(img: np.ndarray) -> np.ndarray:
    """Premultiplied ``img`` (its last channel alpha; 8 or 16 bits) with straight colour:
    divided by alpha, rounded, at most white; black where alpha is 0. Any other image as
    it is (refused where it is read: :func:`supported`)."""
    if img.dtype not in (np.uint8, np.uint16) or img.ndim != 3 or img.shape[-1] not in (2, 4):
        return img
    top = np.iinfo(img.dtype).max
    alpha = img[..., -1:].astype(np.int64)
    colour = (img[..., :-1].astype(np.int64) * top + alpha // 2) // np.maximum(alpha, 1)
    colour = np.where(alpha > 0, np.minimum(colour, top), 0)
    return np.concatenate([colour, alpha], axis=-1).astype(img.dtype)


def as_format(img: np.ndarray, where: Path, fmt: str, kept: bool) -> np.ndarray:
    """An image of a sequence in the sequence's raw format ``fmt``; where that is the
    files' own (``kept``: decided from every file's header), a frame with alpha or 16 bits
    its header did not say is refused, not dropped (not ``kept``: ``fmt`` was asked for,
    8-bit RGB whatever the files); one not 8 or 16 bits, refused (:func:`supported`)."""
    img = supported(img, where)
    alpha, deep = img.ndim == 3 and img.shape[-1] in (2, 4), img.dtype == np.uint16
    more = "alpha" if alpha and fmt not in ALPHA else "16 bits" if deep and fmt in (
        "rgb24", "rgba") else ""
    if more and kept:
        raise FootageError(f"{where} reads with {more} its header does not say: save the "
                           "sequence as PNG")
    if fmt not in ("rgb48le", "rgba64le"):
        return rgb8(img, where, alpha=fmt == "rgba")
    img = as_rgb(img)
    img = img.astype(np.uint16) * 257 if img.dtype == np.uint8 else img
    if fmt == "rgba64le" and img.shape[-1] == 3:
        img = np.concatenate([img, np.full(img.shape[:2] + (1,), 65535, np.uint16)], -1)
    return np.ascontiguousarray(img)


def supported(img: np.ndarray, where: Any) -> np.ndarray:
    """``img`` if 8 or 16 bits (uint8, uint16); any other (float32, int32: a 32-bit TIFF),
    one line naming the file."""
    if img.dtype != np.uint8 and img.dtype != np.uint16:
        raise FootageError(f"{where}: {img.dtype} images are not supported; use 8 or 16 bits")
    return img


def as_rgb(img: np.ndarray) -> np.ndarray:
    """Grey (and grey and alpha) as RGB (RGBA): grey repeated to three channels."""
    img = img[..., None] if img.ndim == 2 else img
    if img.shape[-1] in (1, 2):
        img = np.concatenate([np.repeat(img[..., :1], 3, axis=-1), img[..., 1:]], axis=-1)
    return img


def rgb8(img: np.ndarray, where: Any, alpha: bool = False) -> np.ndarray:
    """8-bit RGB (RGBA with ``alpha``: opaque where the file has none) of an image."""
    img = as_rgb(supported(img, where))
    if img.dtype == np.uint16:
        img = (img.astype(np.uint32) * 255 + 32767) // 65535
    if alpha and img.shape[-1] == 3:
        img = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, img.dtype)], axis=-1)
    return np.ascontiguousarray(img[..., :4 if alpha else 3].astype(np.uint8))
