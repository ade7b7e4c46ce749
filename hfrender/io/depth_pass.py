"""Reading a depth pass for ``hfrender fx --depth``: NumPy ``.npy`` (memory-mapped) or
``.npz`` (its ``depth`` array, or its only one), 16-bit PNG sequences (the first channel)
or EXR sequences (the depth channel), scaled to metres, frame by frame; one frame (an
(H, W) array, or one image) stands for every frame of a locked-off shot. Fitted to the
footage (its size, count, frame numbers and values checked): :mod:`.depth_fit`.
"""

from __future__ import annotations

import itertools
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hfrender import validate
from hfrender.disparity import Disparity, inverse
from hfrender.errors import InputError
from hfrender.io.depth_paths import no_depth, say_channel, say_one_of_many
from hfrender.io.exr_files import read_exr_depth
from hfrender.io.images import imageio_v3, png_colour, read_png, unreadable
from hfrender.io.probe import FootageError
from hfrender.io.sequence_files import DEPTH_KINDS, sequence_files

# times a factor, or (near, far): a normalised pass's; or a disparity map's inverse
Scale = float | tuple[float, float] | Disparity


@dataclass
class DepthPass:
    path: str
    count: int
    size: tuple[int, int]
    frames: Iterator[np.ndarray]  # (H, W) float32 metres
    first: np.ndarray  # the first of them (what the units and the focus are checked on)
    note: str | None = None  # what looks wrong with the units (said, not refused)
    static: bool = False  # one depth frame for every frame of the footage (a locked-off shot)
    files: list[Path] | None = None  # a sequence's, each frame's (named in its errors)
    focus: float | None = None  # a disparity map's: the stand-in metres of its focus
    array: np.ndarray | None = None  # an .npy's or .npz's frames as stored (checked whole)
    # an .npy's or .npz's metres under footage pixel (x, y) in every frame, read without
    # making whole frames (its focus pixel checked before a frame is written)
    column: Callable[[int, int], np.ndarray] | None = None

    def file(self, i: int) -> Path:
        """The file frame ``i`` is read from (a sequence's, or the pass's one file)."""
        return Path(self.path) if self.files is None else self.files[i]


def _units_note(path: str, first: np.ndarray, scale: Scale) -> str | None:
    """A warning for integer depth taken as metres (``scale`` 1) whose first frame reaches
    past :data:`hfrender.validate.UNLIKELY_METRES` (millimetres, most likely)."""
    largest = validate.unlikely_metres(first) if scale == 1.0 else None
    if largest is None:
        return None
    return (f"depth {path} is {first.dtype}, its first frame up to {largest:g} m at "
            "--depth-scale 1: if these are millimetres, pass --depth-scale 0.001; if it is "
            "normalised to 0..1 (Blender's Map Range), --depth-range NEAR,FAR (an inverse "
            "depth, or disparity, from a depth estimator is no distance: near is large there; "
            "pass --depth-kind disparity)")


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
    except (OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as exc:  # a damaged
        raise refuse(_one_line(exc)) from None  # header, a truncated file or archive


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _read_image(path: str | Path) -> np.ndarray:
    """One frame of a depth sequence (H, W), its first channel: an EXR's depth channel
    (OpenEXR), a 16-bit colour PNG through ffmpeg (Pillow cuts 16-bit RGB to 8 bits), any
    other image through imageio."""
    if Path(path).suffix.lower() == ".exr":
        return read_exr_depth(path)
    kind = png_colour(path) if Path(path).suffix.lower() == ".png" else None
    if kind is not None and kind[0] == 16 and kind[1] in (2, 4, 6):  # Pillow: 8 bits
        return read_png(path)[..., 0]
    d = imageio_v3().imread(path)
    return d[..., 0] if d.ndim == 3 else d


def _metres(frame: np.ndarray, scale: Scale, zero_is_sky: bool,
            real: type[np.floating] = np.float32) -> np.ndarray:
    """A frame of the pass in metres (float32; ``real`` np.float64: the values as given, a
    refused frame's, named so): times ``scale``, or with ``scale`` (near, far) a pass
    normalised to 0..1 (its integer type's largest value 1) from near to far; 0 is
    sky (inf) with ``zero_is_sky`` (a depth sensor's pixels of no reading, a PNG's sky); a
    disparity map (``scale`` a :class:`Disparity`), its inverse (stand-in metres times s)."""
    if isinstance(scale, Disparity):
        return inverse(frame)
    if isinstance(scale, tuple):
        near, far = scale
        one = np.iinfo(frame.dtype).max if frame.dtype.kind in "iu" else 1.0
        d = np.asarray(frame, real)
        out = d * real((far - near) / one) + real(near)
        out[np.isposinf(d)] = np.inf  # a float pass's sky, FAR < NEAR too (was: -inf, refused)
        return out
    with np.errstate(over="ignore"):  # past float32 (a renderer's FLT_MAX sky): inf, sky
        out = np.asarray(frame, real) * real(scale)
    if zero_is_sky:
        out[out == 0] = np.inf
    return out


def _note(path: str, first: np.ndarray, scale: Scale) -> str | None:
    """What looks wrong with an image depth pass's first frame: 8 bits, or millimetres."""
    if first.dtype == np.uint8:  # 256 steps of depth: each step a jump in blur
        return (f"depth {path} is 8-bit: 256 depths at most, so the blur changes in steps "
                "along a slanted surface; write 16-bit PNG or EXR depth")
    return _units_note(path, first, scale)


def _read_one(path: Path) -> np.ndarray:
    """One image of a depth pass, the first or any later one; what cannot be read (a
    damaged file: imageio finds no plugin that opens it), one line naming the file."""
    try:
        return _read_image(path)
    except InputError:  # already one line naming the file (a missing extra too)
        raise
    except OSError as exc:
        if exc.strerror:  # the file itself: permissions, a folder, a disk error
            raise FootageError(f"cannot read depth {path}: {exc.strerror}") from None
        raise FootageError(unreadable(path, exc, "depth ")) from None
    except Exception as exc:  # noqa: BLE001 - whatever the plugin says
        raise FootageError(unreadable(path, exc, "depth ")) from None


def _static(path: str, frame: np.ndarray, scale: Scale, zero_is_sky: bool,
            stored: bool = False) -> DepthPass:
    """One depth frame (H, W) for every frame of the footage (``stored``: an array's, kept
    as its ``array`` of one frame)."""
    metres = _metres(frame, scale, zero_is_sky)
    return DepthPass(path, 1, (int(frame.shape[1]), int(frame.shape[0])),
                     itertools.repeat(metres), metres, _note(path, frame, scale), static=True,
                     array=frame[None] if stored else None)


def open_depth(path: str, scale: Scale = 1.0, zero_is_sky: bool = False) -> DepthPass:
    """A depth pass: ``.npy``/``.npz`` (N, H, W), or a 16-bit PNG / EXR sequence, in metres
    (times ``scale``, or from near to far, ``scale`` (near, far), where it is normalised to
    0..1; 0 read as sky with ``zero_is_sky``); an (H, W) array or one image:
    the depth of every frame (``static``)."""
    p = Path(path)
    if p.suffix.lower() in (".npy", ".npz"):
        if not p.is_file():
            raise no_depth(path)
        arr = _load_numpy(p, path)
        if arr.dtype.kind not in "fiu":
            raise FootageError(f"{path}: depth has dtype {arr.dtype}; it must be numeric "
                               "(float32 metres)")
        if arr.ndim == 4 and arr.shape[-1] == 1:
            arr = arr[..., 0]
        if arr.ndim == 3 and arr.shape[-1] <= 4 < arr.shape[-2]:  # (H, W, C): no width of 4
            if arr.shape[-1] != 1:
                raise FootageError(f"{path}: depth has shape {arr.shape}, {arr.shape[-1]} "
                                   "channels; a depth pass is one: (frames, height, width), "
                                   "or (height, width) for every frame")
            arr = arr[..., 0]  # one frame, one channel: every frame's
        if arr.ndim == 4 and arr.shape[1] == 1:  # a tensor's (N, 1, H, W)
            arr = arr[:, 0]
        if arr.ndim == 3 and arr.shape[0] == 1:  # one frame, batched: as hf.depth_of_field
            arr = arr[0]  # takes it (was: "has 1 frame, the footage 48", a trial)
        if arr.ndim == 2:  # one depth frame: every frame's
            return _static(path, arr, scale, zero_is_sky, stored=True)
        if arr.ndim != 3:
            raise FootageError(f"{path}: depth must have shape (frames, height, width), or "
                               f"(height, width) for every frame; got {arr.shape}")
        first = _metres(arr[0] if len(arr) else arr, scale, zero_is_sky)
        rest = (_metres(arr[i], scale, zero_is_sky) for i in range(1, len(arr)))
        return DepthPass(path, int(arr.shape[0]), (int(arr.shape[2]), int(arr.shape[1])),
                         itertools.chain([first] if len(arr) else [], rest), first,
                         _units_note(path, arr[0] if len(arr) else arr, scale), array=arr,
                         column=lambda x, y: _metres(arr[:, y, x], scale, zero_is_sky))
    files = sequence_files(path, DEPTH_KINDS)  # (a folder's JPEG previews: no depth)
    if files is None and p.is_file() and p.suffix.lower() in (".png", ".exr"):
        say_channel(path, p, "its")  # (was: said of a sequence alone)
        say_one_of_many(path, p)
        return _static(path, _read_one(p), scale, zero_is_sky)  # one image: every frame's
    if files is None:
        raise no_depth(path)
    return _sequence(path, files, scale, zero_is_sky)


def _sequence(path: str, files: list[Path], scale: Scale, zero_is_sky: bool) -> DepthPass:
    """The depth pass of an image sequence's ``files``, in order."""
    first = _read_one(files[0])
    metres = _metres(first, scale, zero_is_sky)

    def seq() -> Iterator[np.ndarray]:
        yield metres  # the first file read once
        for f in files[1:]:
            yield _metres(_read_one(f), scale, zero_is_sky)

    say_channel(path, files[0], "each EXR's")
    return DepthPass(path, len(files), (first.shape[1], first.shape[0]), seq(), metres,
                     _note(path, first, scale), files=files)


class DepthReader:
    """A depth pass's frames as footage takes them, one after another: each checked against
    the footage's size, or copied into a hyperframe's plane. A one-frame pass for a shot is
    copied into each of a pool's planes once (0.92 ms a 1280x720 frame): they keep it, as
    nothing writes a depth plane but this and the builder's copies of its frames."""

    def __init__(self, depth: DepthPass) -> None:
        self.frames, self.static = iter(depth.frames), depth.static
        self.filled: set[int] = set()  # the planes (their addresses) that hold a static pass

    def next(self, i: int, shape: tuple | None = None) -> np.ndarray:
        """The depth of frame ``i``, checked against the footage's ``shape`` (H, W)."""
        d = next(self.frames, None)
        if d is None:
            raise FootageError(f"the depth pass ends at frame {i}, the footage goes on")
        if shape is not None and d.shape != tuple(shape):
            raise FootageError(f"depth frame {i} is {d.shape[1]}x{d.shape[0]}, the footage "
                               f"{shape[1]}x{shape[0]}: they must match")
        return d

    def into(self, plane: np.ndarray, i: int) -> None:
        """The depth of frame ``i`` into ``plane``, a hyperframe slot's."""
        d = self.next(i, plane.shape)
        at = plane.__array_interface__["data"][0]
        if not (self.static and at in self.filled):
            plane[...] = d
            if self.static:
                self.filled.add(at)
