"""``hfrender fx --vectors``: motion vectors (and Z) from EXR frames, in hfrender's own
convention (:func:`hfrender.vector_blur`: pixels a frame, x to the right, y down).

Two layouts are read:

* Nuke's ``forward.u`` / ``forward.v`` (what ``hfrender render --passes velocity`` writes):
  the motion to the next frame in pixels, u to the right and **v up**: velocity
  ``(u, -v)``.
* Blender's ``Vector`` pass (``Vector.X/Y/Z/W``, in a multilayer file ``ViewLayer.Vector.X``
  ...): Cycles writes ``XY = previous - current`` and ``ZW = current - next`` positions in
  raster pixels, y up (``primitive_motion_vector`` in blender/blender's
  ``intern/cycles/kernel/geom/primitive.h``: ``motion_pre - motion_center``,
  ``motion_center - motion_post``). Both point *against* the motion; the velocity at the
  frame is their mean negated, the central difference ``(next - previous) / 2``:
  ``(-(X + Z) / 2, (Y + W) / 2)`` with y down.

``Z`` (hfrender's and Nuke's) or Blender's ``Depth.Z`` beside them orders the streaks
(nearer covers farther); without one the blur is :func:`hfrender.vector_blur`'s without
depth.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hfrender import validate
from hfrender.io.exr_files import (
    _depth_choice,
    _depth_part,
    _openexr,
    displayed,
    exr_other_channels,
)
from hfrender.io.probe import FootageError
from hfrender.io.sequence_files import DEPTH_KINDS, VECTOR_KINDS, sequence_files

NUKE = ("forward.u", "forward.v")
BLENDER = ("Vector.X", "Vector.Y", "Vector.Z", "Vector.W")


def nuke_velocity(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Nuke's ``forward.u``, ``forward.v`` (v up) -> (H, W, 2) pixels a frame, y down."""
    return np.stack([u, -np.asarray(v)], axis=-1).astype(np.float32, copy=False)


def blender_velocity(x: np.ndarray, y: np.ndarray, z: np.ndarray,
                     w: np.ndarray) -> np.ndarray:
    """Blender's ``Vector`` pass (XY: previous - current, ZW: current - next, y up) ->
    (H, W, 2) pixels a frame, y down: the motion over the frame centred on it."""
    vx = (np.asarray(x, np.float32) + z) * np.float32(-0.5)
    vy = (np.asarray(y, np.float32) + w) * np.float32(0.5)
    return np.stack([vx, vy], axis=-1)


def _layout(names: list[str]) -> tuple[str, list[str]] | None:
    """("nuke" or "blender", the channels to read) among a part's channel ``names``."""
    if all(n in names for n in NUKE):
        return "nuke", list(NUKE)
    layers = sorted(n[:-len(BLENDER[0])] for n in names if n.endswith(BLENDER[0]))
    for layer in layers:  # "" or "ViewLayer." ...
        if layer == "" or layer.endswith("."):
            want = [layer + c for c in BLENDER]
            if all(n in names for n in want):
                return "blender", want
    return None


class VectorPass:
    """The motion-vector files of an fx run, one a footage frame: checked before any work
    (:meth:`check`: their count, size and channels), read one by one (:meth:`read`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        files = [Path(path)] if Path(path).is_file() else sequence_files(path, VECTOR_KINDS)
        if not files:
            raise FootageError(f"--vectors {path}: no such file or EXR sequence (give the "
                               "frames holding the motion vectors, e.g. frames/%04d.exr)")
        if any(f.suffix.lower() != ".exr" for f in files):
            raise FootageError(f"--vectors {path}: motion vectors are channels of EXR "
                               "frames (forward.u/forward.v, or Blender's Vector pass)")
        self.files = files
        self.has_z = False
        self.size: tuple[int, int] | None = None  # (w, h) every file must have: check's
        self._first: tuple[np.ndarray, np.ndarray | None] | None = None  # check's read of 0

    def check(self, size: tuple[int, int], count: int) -> None:
        """Enough files for ``count`` frames of ``size`` (w, h), the first with vectors;
        whether it holds a Z (:attr:`has_z`): said before any frame is made."""
        if len(self.files) < count:
            raise FootageError(f"--vectors {self.path}: {len(self.files)} file(s) for "
                               f"{count} frames of footage; give one a frame")
        self.size = tuple(size)
        self._first = self.read(0)  # handed to the run's read(0): the file read once
        self.has_z = self._first[1] is not None

    def read(self, i: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Frame ``i``'s velocity (H, W, 2) float32 pixels a frame (y down) and its Z
        (H, W) metres, or None where the file has none; a file of another size than the
        footage's (once :meth:`check` has it) one line."""
        first, self._first = self._first, None  # (let go at the first read: a resumed run)
        if i == 0 and first is not None:
            return first
        path = self.files[i]
        try:
            with _openexr().File(str(path), separate_channels=True) as f:
                parts = [dict(p.channels) for p in f.parts]
                headers = [dict(p.header) for p in f.parts]  # (emptied once it is closed)
        except Exception as exc:  # noqa: BLE001 - OpenEXR's words, one line
            said = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise FootageError(f"cannot read --vectors {path}: {said}") from None
        found = next(((i, *lay) for i, p in enumerate(parts)
                      if (lay := _layout(list(p))) is not None), None)
        if found is None:
            names = sorted({n for p in parts for n in p})
            raise FootageError(f"{path}: no motion vectors: neither forward.u and forward.v "
                               "(Nuke; hfrender render --passes velocity) nor Vector.X/Y/Z/W "
                               f"(Blender's Vector pass) among its channels {', '.join(names)}")
        at, kind, names = found
        planes = [self._plane(parts[at][n], headers[at], 0.0) for n in names]
        vel = nuke_velocity(*planes) if kind == "nuke" else blender_velocity(*planes)
        if self.size is not None and vel.shape[1::-1] != self.size:
            raise FootageError(f"--vectors {path}: {vel.shape[1]}x{vel.shape[0]}, but the "
                               f"footage is {self.size[0]}x{self.size[1]}")
        if not np.isfinite(vel).all():
            raise FootageError(f"{path}: NaN or infinite motion vectors; they must be finite "
                               "pixels a frame")
        return vel, self._checked_z(path, self._depth(parts, headers))

    def _checked_z(self, path: Path, z: np.ndarray | None) -> np.ndarray | None:
        """A file's Z as a distance > 0 (inf: sky), and one where the first file had one,
        else one line naming the file (was: 'depth contains NaN' mid-run, no file named)."""
        if z is None:
            if self.has_z:
                raise FootageError(f"{path}: no Z, though {self.files[0].name} has one: give "
                                   "every --vectors file its Z, or none")
            return None
        bad = ~(z > 0)  # (NaN too)
        if bad.any():
            y, x = (int(i) for i in np.argwhere(bad)[0])
            raise FootageError(f"{path}: its Z has {int(bad.sum())} value(s) NaN or <= 0, the "
                               f"first {float(z[y, x])!r} {validate.at(y, x)}; Z must be a "
                               "distance > 0 from the camera (inf for sky), not 1/Z")
        return z

    @staticmethod
    def _plane(channel: object, header: dict, fill: float) -> np.ndarray:
        return displayed(header, np.asarray(channel.pixels, np.float32), fill)

    def _depth(self, parts: list[dict], headers: list[dict]) -> np.ndarray | None:
        """The Z of the file (:func:`_z`), or None."""
        found = _z([list(p) for p in parts])
        return None if found is None else self._plane(parts[found[0]][found[1]],
                                                      headers[found[0]], np.inf)


def _z(parts: list[list[str]]) -> tuple[int, str] | None:
    """(part, channel) of a file's Z (hfrender's and Nuke's ``Z``, ``depth.Z``, Blender's
    ``Depth.Z``), or None: only a channel that surely is depth (never R or Y)."""
    for i, names in enumerate(parts):
        sure, name = _depth_choice(names)
        if name is not None and sure == 0:
            return i, name
    return None


def channels_read(path: str | Path) -> list[str]:
    """The channels of the EXR ``path`` that --vectors reads (its vectors, its Z), from its
    header alone, spelt as :func:`hfrender.io.exr_files.exr_other_channels` spells them (a
    multi-part file's with its part's name)."""
    with _openexr().File(str(path), header_only=True) as f:
        parts = [[c.name for c in p.header["channels"]] for p in f.parts]
        named = [str(p.header.get("name") or i) for i, p in enumerate(f.parts)]
    spelt = (lambda i, n: f"{named[i]}.{n}") if len(parts) > 1 else (lambda i, n: n)
    found = next(((i, lay[1]) for i, names in enumerate(parts)
                  if (lay := _layout(names)) is not None), None)
    read = [] if found is None else [spelt(found[0], n) for n in found[1]]
    z = _z(parts)
    return read + ([] if z is None else [spelt(*z)])


def dropped_channels(frame: str | Path, vectors: str | None,
                     depth: str | None = None) -> list[str]:
    """The channels of the footage's EXR ``frame`` besides its colour that an fx run's
    output does not hold (:func:`~hfrender.io.exr_files.exr_other_channels`), but those
    ``--vectors`` reads where its first file is that very frame (hfrender's own EXRs:
    colour, Z, forward.u/v: nothing of them is lost), and the depth channel ``--depth``
    reads where its first file is (``fx frames/%04d.exr --depth frames/%04d.exr``: was
    said dropped, the Z just read as the depth)."""
    others = exr_other_channels(frame)
    read = channels_read(frame) if others and _first_is(vectors, frame, VECTOR_KINDS) else []
    if others and _first_is(depth, frame, DEPTH_KINDS):
        read += _depth_read(frame)
    return [n for n in others if n not in read]


def _first_is(pattern: str | None, frame: str | Path, kinds: tuple[str, ...]) -> bool:
    """Whether the first file of the sequence (or the one file) ``pattern`` (a folder: its
    files of ``kinds``) is ``frame``."""
    if pattern is None:
        return False
    files = sequence_files(pattern, kinds) or [Path(pattern)]
    return files[0].resolve() == Path(frame).resolve()


def _depth_read(frame: str | Path) -> list[str]:
    """The channel :func:`~hfrender.io.exr_files.read_exr_depth` reads from ``frame``, spelt
    as :func:`~hfrender.io.exr_files.exr_other_channels` spells it (none: [])."""
    with _openexr().File(str(frame), header_only=True) as f:
        parts = [[c.name for c in p.header["channels"]] for p in f.parts]
        named = [str(p.header.get("name") or i) for i, p in enumerate(f.parts)]
    part, name = _depth_part(parts)
    return [] if name is None else [f"{named[part]}.{name}" if len(parts) > 1 else name]
