"""A sample store's ``store.json`` and chunks checked as they are read
(:mod:`hfrender.io.store`): what reading and exposing them takes, of the types it takes.

The store is a documented folder of plain NumPy files, so one may be damaged, edited by
hand or written by another tool; each such mistake is one line naming the key or the chunk
and what it should be (was: a ``KeyError: 'settings'`` or NumPy's "could not broadcast
input array" from deep inside an exposure, shown as a bug in hfrender).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.sampler import POSITIONS
from hfrender.shutter_curve import CURVES

MANIFEST = "store.json"
MARKER = ".hfrender-store-partial"  # in DIR.partial: ours to remove (a user's never is)
CHUNK_FILE = re.compile(r"c\d{6,}\.npz")  # a chunk's file name (c000000.npz, ...)
PLANES = ("color", "depth", "velocity")
WHY = " (damaged, or not written by hfrender); render it again with --keep-samples"


class StoreError(InputError):
    """A sample store cannot be used as asked (one line: which store and why)."""


def _int(v: Any, low: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def _positive(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v) and v > 0


Check = tuple[str, Callable[[Any], bool], str]  # key, test, what the value should be
TOP: tuple[Check, ...] = (
    ("settings", lambda v: isinstance(v, dict), "an object"),
    ("size", lambda v: isinstance(v, list) and len(v) == 2 and all(_int(x, 1) for x in v),
     "[width, height] in pixels"),
    ("subframes", lambda v: _int(v, 0), "a count of sub-frames"),
    ("planes", lambda v: isinstance(v, list) and "color" in v
     and all(isinstance(x, str) and x in PLANES for x in v),
     f"a list of {', '.join(PLANES)} with color"),
    ("chunks", lambda v: isinstance(v, list), "a list"),
)
SETTINGS: tuple[Check, ...] = (
    ("fps", _positive, "a frame rate > 0"),
    ("shutter", _positive, "an angle in degrees > 0"),
    ("position", lambda v: isinstance(v, str) and v in POSITIONS,
     f"one of {', '.join(POSITIONS)}"),
    ("curve", lambda v: isinstance(v, str) and v in CURVES, f"one of {', '.join(CURVES)}"),
    ("samples", lambda v: _int(v, 1), "a count of sub-frames >= 1"),
    ("first_frame", lambda v: _int(v, 0), "a frame number >= 0"),
    ("frames", lambda v: _int(v, 0), "a count of frames"),
)
CHUNK: tuple[Check, ...] = (
    ("file", lambda v: isinstance(v, str) and v == Path(v).name and v not in ("", ".", ".."),
     "a file name in the store"),
    ("count", lambda v: _int(v, 0), "a count of sub-frames"),
    ("first", lambda v: _int(v, 0), "a sub-frame number"),
)


def _checked(store: Path, where: dict, prefix: str, checks: tuple[Check, ...]) -> None:
    for key, test, what in checks:
        if key not in where:
            raise StoreError(f"{store}: {MANIFEST} lacks {prefix + key!r}{WHY}")
        if not test(where[key]):
            raise StoreError(f"{store}: {MANIFEST}'s {prefix}{key} is {where[key]!r}, not "
                             f"{what}{WHY}")


def check_manifest(store: Path, meta: dict) -> None:
    """``meta`` (a store.json of the right format and version) holds what is read of it."""
    _checked(store, meta, "", TOP)
    _checked(store, meta["settings"], "settings.", SETTINGS)
    lens = meta["settings"].get("lens")
    if lens is not None and not isinstance(lens, dict):
        raise StoreError(f"{store}: {MANIFEST}'s settings.lens is {lens!r}, not an object{WHY}")
    held = 0
    for i, entry in enumerate(meta["chunks"]):
        if not isinstance(entry, dict):
            raise StoreError(f"{store}: {MANIFEST}'s chunks[{i}] is {entry!r}, not an "
                             f"object{WHY}")
        _checked(store, entry, f"chunks[{i}].", CHUNK)
        if entry["first"] != held:
            raise StoreError(f"{store}: {MANIFEST}'s chunks[{i}].first is {entry['first']}, "
                             f"not {held} (the sub-frames before it){WHY}")
        held += entry["count"]
    if held != meta["subframes"]:
        raise StoreError(f"{store}: its chunks hold {held} sub-frames, its {MANIFEST} says "
                         f"{meta['subframes']}{WHY}")


def check_times(store: Path, meta: dict, times: np.ndarray) -> None:
    """times.npy: one time for each sub-frame of the chunks."""
    if times.ndim != 1 or len(times) != meta["subframes"]:
        raise StoreError(f"{store}: its chunks hold {meta['subframes']} sub-frames, its "
                         f"times.npy {times.shape[0] if times.ndim == 1 else times.shape}{WHY}")


def check_chunk(path: Path, entry: dict, arrays: dict[str, np.ndarray],
                size: tuple[int, int], wanted: tuple[str, ...]) -> None:
    """A chunk's arrays of the shapes its entry and the store's size say, ``wanted`` (the
    planes asked for) and its times among them."""
    n, (w, h) = entry["count"], size
    shapes = {"color": (n, h, w, 4), "depth": (n, h, w), "velocity": (n, h, w, 2),
              "times": (n,), "aperture": (n, 2), "shift": (n, 2), "focus_m": (n,),
              "f_stop": (n,)}
    for name, shape in shapes.items():
        if name not in arrays and name in wanted + ("times",):
            raise StoreError(f"{path}: it has no {name}{WHY}")
        if name in arrays and arrays[name].shape != shape:
            raise StoreError(f"{path}: its {name} is of shape {arrays[name].shape}, not "
                             f"{shape} ({n} sub-frames of {w}x{h}){WHY}")


def partial_dir(path: str | Path) -> Path:
    """``DIR.partial``: the store ``path`` while it is written."""
    p = Path(path)
    return p.with_name(p.name + ".partial")
