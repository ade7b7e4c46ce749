"""The record beside a partial output hfrender wrote (``.NAME.partial.EXT.hfrender``): its
size, time, a fingerprint of its content and the frames it holds; what tells hfrender's
own partial output (to replace or remove) from a user's file of that name, and what an
interrupted run weighs its own frames against (:func:`.outputs.keep_partial`)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def record_of(partial: Path) -> Path:
    """Beside a partial output hfrender wrote, the record that says so: its size and time
    (a file of that name hfrender did not write, or changed since, is the user's)."""
    return partial.with_name(f".{partial.name}.hfrender")


def mark_partial(partial: str | Path, frames: int | None = None) -> None:
    """Record ``partial`` (just written, holding ``frames``; None: not counted) as
    hfrender's own, to replace or remove later."""
    st = Path(partial).stat()
    record_of(Path(partial)).write_text(f"{st.st_size} {st.st_mtime_ns} "
                                        f"{fingerprint(Path(partial))}"
                                        f"{'' if frames is None else f' {frames}'}\n")


def fingerprint(path: Path, span: int = 1 << 20) -> str:
    """A hash of the file's first and last ``span`` bytes: the same file after ``touch`` or
    a copy (whose time is new), without reading all of a long video."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        digest.update(fh.read(span))
        fh.seek(max(0, path.stat().st_size - span))
        digest.update(fh.read(span))
    return digest.hexdigest()[:32]


def ours(partial: Path) -> bool:
    """Whether ``partial`` is the file hfrender recorded: its size, and its time or (was:
    refused after a ``touch`` or a copy) its content."""
    try:
        size, mtime, *rest = record_of(partial).read_text().split()
        st = partial.stat()
        if st.st_size != int(size):
            return False
        return st.st_mtime_ns == int(mtime) or rest[:1] == [fingerprint(partial)]
    except (OSError, ValueError):
        return False


def recorded_frames(partial: Path) -> int:
    """The frames hfrender's ``partial`` holds: as its record says, or (an older
    hfrender's record, which did not say) as a probe counts them; 0 where it cannot be
    read (a run that keeps any frames then replaces it)."""
    try:
        rest = record_of(partial).read_text().split()[3:]
        if rest:
            return int(rest[0])
    except (OSError, ValueError):
        return 0
    from hfrender.errors import HFRenderError
    from hfrender.io.probe import probe

    try:
        return probe(str(partial)).count
    except (HFRenderError, OSError):
        return 0
