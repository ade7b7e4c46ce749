"""The sample store: every sub-frame of a render, kept to be exposed again later.

A store is a folder that NumPy reads without hfrender::

    store.json      {"format": "hfrender-sample-store", "version": 1 (2: float16 colour,
                     --hdr), "settings": {...},
                     "size": [W, H], "subframes": N, "planes": ["color", "depth", ...],
                     "chunks": [{"file": "c000000.npz", "first": 0, "count": 60,
                                 "sha256": "..."}, ...]}
    times.npy       (N,) float64: every sub-frame's time in seconds, in drawing order
    c000000.npz     one chunk of sub-frames (a zip of .npy files, deflate level 1):
                      color    (n, H, W, 4) uint8   sRGB-encoded, as drawn (--hdr:
                                            float16, linear light, past 1 where brighter)
                      depth    (n, H, W)    float32 metres along the view axis, inf: sky
                      velocity (n, H, W, 2) float32 pixels per second (x right, y down)
                      times    (n,)         float64 seconds
                      aperture (n, 2)       float64 the point on the unit aperture disk each
                                            sub-frame was drawn from (--dof lens)
                      shift    (n, 2)       float64 pixels (x right, y down) each sub-frame's
                                            antialiasing offset moved its picture (stores
                                            from before it was kept have none: 0)
                      focus_m, f_stop (n,)  float64 the lens of each sub-frame (depth mode; dof off:
                                            the camera's, f_stop NaN for a pinhole)

    >>> meta = json.load(open("store/store.json"))
    >>> chunk = np.load("store/" + meta["chunks"][0]["file"]); chunk["color"].shape

``settings`` holds what the sub-frames were drawn with (fps, shutter, samples, position,
curve, jitter, seed, depth-of-field mode and lens, the output frames covered). Each chunk's
SHA-256 is checked when it is read. A store is written into ``DIR.partial`` and renamed to
``DIR`` when complete (an older store there is replaced only then), so ``DIR`` is always a
whole store; ``DIR.partial`` is one still being written, or an interrupted one. Deflate
level 1 keeps most of level 6's saving at a fraction of its time (``benchmarks/reexpose.py``).
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import logging
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import output_said, pastable, spelling
from hfrender.io.store_manifest import (
    CHUNK_FILE,
    MANIFEST,
    MARKER,
    PLANES,
    StoreError,
    check_chunk,
    check_manifest,
    check_times,
    partial_dir,
)
from hfrender.io.store_target import check_target
from hfrender.io.writers import WriteFailed
from hfrender.sizes import bytes_said

log = logging.getLogger(__name__)
FORMAT = "hfrender-sample-store"
VERSION = 1
FLOAT_VERSION = 2  # a store of float16 colour (--hdr): one an hfrender that reads only
#                    version 1 refuses, instead of reading its colour as 8-bit codes
VERSIONS = (VERSION, FLOAT_VERSION)
LEVEL = 1  # deflate level of the chunks


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=LEVEL) as zf:
        for name, arr in arrays.items():
            member = io.BytesIO()
            np.save(member, np.ascontiguousarray(arr), allow_pickle=False)
            zf.writestr(name + ".npy", member.getvalue())
    return buf.getvalue()


class StoreWriter:
    """Writes a store chunk by chunk (compressed on a thread of its own, at most two chunks
    waiting); :meth:`finish` puts the complete store at ``path``."""

    def __init__(self, path: str | Path, settings: dict, size: tuple[int, int]) -> None:
        check_target(path)
        self.path, self.tmp = Path(path), partial_dir(path)
        # its maker's way of naming the store, for the lines of its own thread, which
        # writes the chunks (was --keep-samples to hf.render's caller there)
        self.spell = spelling()
        if self.tmp.is_dir():  # an older interrupted store of ours (check_target saw MARKER)
            log.warning("%s: removing %s, an interrupted render's unfinished store (a store "
                        "cannot be resumed)", output_said(path, key="keep_samples"),
                        self.tmp)  # (was: unsaid)
            shutil.rmtree(self.tmp)
        try:
            self.tmp.mkdir(parents=True)
            (self.tmp / MARKER).write_text("an hfrender sample store being written\n")
        except OSError as exc:  # a full disk: the store named, nothing left (was: "cannot
            shutil.rmtree(self.tmp, ignore_errors=True)  # write a file", a trial)
            raise WriteFailed(self._cannot(exc)) from None
        version = FLOAT_VERSION if settings.get("hdr") else VERSION
        self.meta: dict[str, Any] = {"format": FORMAT, "version": version,
                                     "settings": settings, "size": list(size), "subframes": 0,
                                     "planes": [], "chunks": []}
        self.times: list[np.ndarray] = []
        self.bytes = 0
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="hfrender-store")
        self._pending: list[Future] = []
        self._lock = threading.Lock()
        self.room_made = False  # its disk was full: the unfinished store removed (failed)

    def add(self, arrays: dict[str, np.ndarray]) -> None:
        """One chunk: ``color`` and ``times`` at least (copied now: the caller's memory may
        be reused at once)."""
        planes = [p for p in PLANES if p in arrays]
        if not self.meta["chunks"]:
            self.meta["planes"] = planes
        elif planes != self.meta["planes"]:
            raise ValueError(f"chunk planes {planes} differ from {self.meta['planes']}")
        own = {k: np.array(v) for k, v in arrays.items()}
        n = len(own["times"])
        entry = {"file": f"c{len(self.meta['chunks']):06d}.npz",
                 "first": self.meta["subframes"], "count": n}
        self.meta["chunks"].append(entry)
        self.meta["subframes"] += n
        self.times.append(own["times"].astype(np.float64))
        while len(self._pending) >= 2:
            self._pending.pop(0).result()
        self._pending.append(self._pool.submit(self._write, entry, own))

    def _write(self, entry: dict, arrays: dict[str, np.ndarray]) -> None:
        if self.room_made:  # (the pool's one thread: set by an earlier chunk's write)
            return
        data = _npz_bytes(arrays)
        try:
            (self.tmp / entry["file"]).write_bytes(data)
        except OSError as exc:  # a full disk: one line, not a bug's traceback
            raise self.failed(exc) from None
        with self._lock:
            entry["sha256"] = hashlib.sha256(data).hexdigest()
            self.bytes += len(data)

    def _drain(self) -> None:
        try:
            for job in self._pending:
                job.result()
        finally:
            self._pending = []
            self._pool.shutdown(wait=True)

    def failed(self, exc: OSError) -> WriteFailed:
        """The store's write error, in one line naming where what was kept stays; a full
        disk's unfinished store (neither exposed nor resumed) removed at once (was: kept, and
        the output's finished frames on that disk lost: no partial video, a trial)."""
        said = self._cannot(exc)
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            return WriteFailed(f"{said} (what was kept so far is in {pastable(self.tmp)}; "
                               "delete it, or free the space and render again)")
        self.room_made = True  # (no chunk written after)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return WriteFailed(f"{said} (its unfinished {self.tmp} was removed, leaving the room "
                           "to the output's frames; a store holds a whole render: keep one on "
                           "a disk with room, or render without "
                           f"{self.spell.without('keep_samples', str(self.path))})")

    def _cannot(self, exc: OSError) -> str:
        return f"{self.spell.said('keep_samples', str(self.path))}: cannot write the sample " \
            f"store: {exc.strerror or exc}"

    def finish(self, frames: int) -> None:
        """Every chunk written: the manifest, then the store in place (an older one at the
        path is removed only now)."""
        self._drain()
        self.meta["frames"] = frames
        try:
            np.save(self.tmp / "times.npy", np.concatenate(self.times) if self.times
                    else np.zeros(0))
            (self.tmp / MANIFEST).write_text(json.dumps(self.meta, indent=1))
        except OSError as exc:
            raise self.failed(exc) from None
        (self.tmp / MARKER).unlink()
        aside = None
        if self.path.exists():  # the older store: into a fresh folder of our own, then gone
            aside = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.old-",
                                          dir=self.path.resolve().parent))
            self.path.rename(aside / "store")
        self.tmp.rename(self.path)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)

    def abandon(self) -> None:
        """After an error or Ctrl-C: what was written stays in ``DIR.partial``."""
        self._drain()


class SampleStore:
    """A complete store, opened for reading: ``SampleStore.open(path)``."""

    def __init__(self, path: Path, meta: dict, times: np.ndarray) -> None:
        self.path, self.meta, self.times = path, meta, times
        self.opened = _identity(path / MANIFEST)  # which store.json was read
        self.settings: dict = meta["settings"]
        self.size: tuple[int, int] = tuple(meta["size"])  # type: ignore[assignment]
        self.planes: list[str] = meta["planes"]
        self.chunks: list[dict] = meta["chunks"]

    @classmethod
    def open(cls, path: str | Path) -> SampleStore:
        p = Path(path)
        if not str(path).strip():  # (was ".: not a sample store", the current folder)
            raise StoreError(f"{pastable(path)}: an empty path; name the sample store (the "
                             "folder render --keep-samples wrote)")
        # one being written (its name alone was taken for it: a missing one is no folder)
        writing = p.name.endswith(".partial") and (p / MARKER).is_file()
        if writing or (not p.exists() and partial_dir(p).is_dir()):
            raise StoreError(f"{p}: this sample store is still being written (or its render "
                             f"was interrupted): {_unfinished(p if writing else partial_dir(p))}")
        manifest = p / MANIFEST
        if not manifest.is_file():
            why = f"not a sample store (no {MANIFEST})" if p.exists() else "no such folder"
            raise StoreError(f"{p}: {why}; make one with hfrender render ... --keep-samples "
                             "DIR")
        try:
            meta = json.loads(manifest.read_text())
        except (OSError, ValueError) as exc:
            raise StoreError(f"{manifest}: unreadable ({exc})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise StoreError(f"{p}: {MANIFEST} is not an hfrender sample store")
        if meta.get("version") not in VERSIONS:
            raise StoreError(f"{p}: sample store version {meta.get('version')!r}; this "
                             f"hfrender reads versions {' and '.join(map(str, VERSIONS))}")
        check_manifest(p, meta)  # (was: a KeyError's traceback, for a key it lacks)
        try:
            times = np.load(p / "times.npy")
        except FileNotFoundError:  # (was: "unreadable ([Errno 2] ...)")
            raise StoreError(f"{p}: times.npy (its sub-frames' times) missing; render it again "
                             "with --keep-samples") from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{p}: times.npy unreadable ({exc})") from None
        check_times(p, meta, times)
        gone = [c["file"] for c in meta["chunks"] if not (p / c["file"]).is_file()]
        if gone:  # (was: found where the exposure reached it, frames written before it)
            raise StoreError(f"{p}: {gone[0]}{f' and {len(gone) - 1} more' if gone[1:] else ''}"
                             f" of its {len(meta['chunks'])} chunks missing; render it again "
                             "with --keep-samples")
        return cls(p, meta, times)

    @property
    def subframes(self) -> int:
        return int(self.meta["subframes"])

    @property
    def color_dtype(self) -> np.dtype:
        """What its colour is replayed as: float32 linear light for a ``--hdr`` store (kept
        as float16), else uint8 sRGB codes."""
        return np.dtype(np.float32 if self.settings.get("hdr") else np.uint8)

    def read(self, index: int, planes: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Chunk ``index``'s arrays (only ``planes`` of the images, with the per-sub-frame
        values, when given: the others are not decompressed), its checksum verified."""
        entry = self.chunks[index]
        f = self.path / entry["file"]
        try:
            data = f.read_bytes()
        except OSError as exc:
            self._check_same()
            raise StoreError(f"{f}: unreadable ({exc})") from None
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            self._check_same()
            raise StoreError(f"{f}: damaged (its SHA-256 differs from {MANIFEST}'s)")
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files
                      if planes is None or k in planes or k not in PLANES}
        check_chunk(f, entry, arrays, self.size, ("color",) if planes is None else planes)
        return arrays

    def _check_same(self) -> None:
        """A chunk that does not match: where the store itself was replaced since it was
        opened (a render's --keep-samples finished into it), said so (was: "damaged", of a
        sound store, a trial)."""
        if _identity(self.path / MANIFEST) != self.opened:
            raise StoreError(f"{self.path}: the store was replaced while it was read (a render "
                             "with --keep-samples put a new one there); run this again to "
                             "read the new one")

    def __iter__(self) -> Iterator[dict[str, np.ndarray]]:
        for i in range(len(self.chunks)):
            yield self.read(i)

    def nbytes(self) -> int:
        return sum((self.path / c["file"]).stat().st_size for c in self.chunks)


def _unfinished(tmp: Path) -> str:
    """What an unfinished store ``tmp`` holds, and what it lacks (was: "it has no manifest
    yet", not what was kept nor what to do)."""
    chunks = sorted(f for f in tmp.iterdir() if CHUNK_FILE.fullmatch(f.name))
    held = f"{len(chunks)} chunk{'s' * (len(chunks) != 1)}"
    if chunks:
        held += f" ({bytes_said(sum(f.stat().st_size for f in chunks))}"
        for f in reversed(chunks[-2:]):  # the last may be half written
            try:
                with np.load(f, allow_pickle=False) as z:
                    held += f", sub-frames up to {float(np.max(z['times'])):.3f} s"
                break
            except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
                continue
        held += ")"
    return (f"{tmp} holds {held} and no {MANIFEST}, which its render writes when it "
            "completes; an interrupted store cannot be exposed nor resumed: render again with "
            "--keep-samples")


def _identity(path: Path) -> tuple[int, int, int] | None:
    """Which file is at ``path`` (its inode, time and size), None where there is none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size
