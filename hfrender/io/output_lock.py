"""One writer of an output at a time: a second hfrender of this user writing the same file
or sequence (two shells, two batches) is refused in one line."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from hfrender.errors import InputError
from hfrender.io.outputs import temporary
from hfrender.io.sequence_names import is_sequence

log = logging.getLogger(__name__)


class OutputBusy(InputError):
    """Another hfrender is writing the same output."""


@contextmanager
def output_lock(output: str, what: str = "-o",
                doing: str = "is writing it; wait for it to finish, or write elsewhere"
                ) -> Iterator[None]:
    """Hold ``output`` while this run writes it: a second hfrender of this user writing the
    same file or sequence (two shells, two batches) is refused in one line, not left to mix
    its frames in. A lock file per output (keyed by its temporary name: ``%05d`` and
    ``%5d`` are one) in the user's own folder of the temporary folder, ``flock``ed: the
    system lets it go when the process ends, however it ends. Where it cannot be taken
    (no ``fcntl``, the temporary folder not writable), the run goes on unlocked, said once."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = lock_path(output)
    try:
        fh = _locked(path, fcntl)
    except BlockingIOError as busy:
        if not str(busy):  # held by readers (they write no pid): an fx, a reexpose
            raise OutputBusy(f"{what} {output}: another hfrender is reading it (an fx of "
                             "it, a reexpose of a store); wait for it to finish, or write "
                             "elsewhere") from None
        raise OutputBusy(f"{what} {output}: another hfrender ({busy}) {doing}") from None
    except OSError as exc:
        log.warning("%s is not locked against a second run writing it: %s", output,
                    exc.strerror or exc)
        yield
        return
    with fh:
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:  # removed while held (was: a file an output, never removed: 57,109 of
            path.unlink(missing_ok=True)  # them in a trial's temporary folder)


def lock_path(output: str) -> Path:
    """The lock file of ``output`` (keyed by its temporary name) in the user's own folder
    of the temporary folder."""
    held = str(Path(temporary(output)).parent if is_sequence(output) else temporary(output))
    key = hashlib.sha1(os.fsencode(held)).hexdigest()[:20]  # (a name not in UTF-8 too)
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"hfrender-locks-{uid}" / f"{key}.lock"


@contextmanager
def input_lock(path: str, what: str) -> Iterator[None]:
    """Hold ``path`` (an fx's footage, a reexpose's sample store) while it is read, as
    :func:`output_lock` holds an output, but shared: readers together, never beside a
    writer. One writing it already: refused in one line (was: an fx read a sequence while
    a render replaced it, and wrote a clip of old, new and mixed frames, a trial); one
    that would write it meanwhile is refused. Where it cannot be taken, unlocked."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    lock = lock_path(path)
    try:
        fh = _locked(lock, fcntl, shared=True)
    except BlockingIOError as busy:
        raise OutputBusy(f"{what} {path}: another hfrender ({busy}) is writing it; wait for "
                         "it to finish") from None
    except OSError:
        yield
        return
    with fh:
        try:
            yield
        finally:  # the last reader removes it (a writer waiting takes a new one)
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                lock.unlink(missing_ok=True)
            except OSError:
                pass


def holding(output: str, sources: list[tuple[str, str | None]],
            what: str = "-o") -> ExitStack:
    """``output`` held for writing (:func:`output_lock`) and each of ``sources`` (what names
    it, its path; None: none), read by the run, held for reading (:func:`input_lock`):
    an fx's footage and depth pass (:func:`fx_sources`), a reexpose's store, from the
    command line and in a batch alike."""
    held = ExitStack()
    try:
        locks = {lock_path(output)}  # (onto its input: refused as such, later)
        for name, source in sources:
            if source and lock_path(source) not in locks:
                locks.add(lock_path(source))
                held.enter_context(input_lock(source, name))
        held.enter_context(output_lock(output, what))
    except BaseException:
        held.close()
        raise
    return held


def fx_sources(footage: str, depth: str | None, vectors: str | None = None,
               names: tuple[str, ...] = ("INPUT", "--depth", "--vectors")
               ) -> list[tuple[str, str | None]]:
    """What an fx reads, for :func:`holding` (``names``: how the run names them; its motion
    vectors: were not held, rewritten under a run): a folder of frames as its pattern."""
    return [(names[0], _as_pattern(footage)), (names[1], depth and _as_pattern(depth)),
            (names[2], vectors and _as_pattern(vectors))]


def _as_pattern(path: str) -> str:
    """A folder of one image sequence as its pattern (``fr/`` -> ``fr/%04d.png``: what a
    render writing it holds; a review), else ``path``."""
    from hfrender.errors import HFRenderError
    from hfrender.io.sequence_files import folder_pattern

    try:
        pattern = folder_pattern(Path(path)) if Path(path).is_dir() else None
    except (OSError, HFRenderError):  # (said by fx itself)
        pattern = None
    return str(Path(path) / pattern) if pattern else path


def _locked(path: Path, fcntl: Any, shared: bool = False) -> IO[str]:
    """``path`` opened and ``flock``ed (``shared``: a reader's lock), the file still the
    one at ``path`` once locked (a run that let it go removed it: the next one's is a new
    file); BlockingIOError naming the holder where another process holds it (empty: its
    readers)."""
    path.parent.mkdir(mode=0o700, exist_ok=True)
    for _ in range(100):
        fh = open(path, "a+")
        try:
            fcntl.flock(fh, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            who = fh.read().strip() or ("another process" if shared else "")
            fh.close()
            raise BlockingIOError(who) from None
        try:
            if os.fstat(fh.fileno()).st_ino == os.stat(path).st_ino:
                return fh
        except FileNotFoundError:  # removed by its holder as this one took it: again
            pass
        fh.close()
    raise OSError(f"{path} keeps changing")
