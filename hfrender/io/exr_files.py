"""OpenEXR files (linear float light): frames written with their passes, and read back:
the colour (a multilayer or multi-part file's too), a depth pass, the channels and
attributes a header holds, over the picture's display window. Through the official OpenEXR
bindings (``pip install 'hfrender[exr]'``), imported only when an EXR is written or read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from hfrender.errors import InputError
from hfrender.io.frame_marks import SOFTWARE


class MissingExtra(InputError):
    """An optional part is not installed (the message names the extra)."""


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
