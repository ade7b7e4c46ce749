"""One writer of an output at a time: a second hfrender of this user writing the same file
or sequence (two shells, two batches) is refused in one line."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from hfrender.errors import InputError, output_said
from hfrender.io.outputs import temporary
from hfrender.io.sequence_names import is_sequence, typed_output

log = logging.getLogger(__name__)

# seconds a lock is waited for whose holder (the pid its file names) has ended: a run killed
# (kill -9, the OOM killer) while a child it started was between its fork and its exec left
# the lock with that child a moment longer (an flock belongs to the open file, which the
# child shares until it closes its descriptors: milliseconds, more on a loaded machine)
ENDED_HOLDER_WAIT = 10.0
WRITING = "is writing it; wait for it to finish, or write elsewhere"  # a writer's refusal


class OutputBusy(InputError):
    """Another hfrender is writing the same output."""


class _LeftHeld(BlockingIOError):
    """The lock of a run that has ended (``pid``), held still by processes it started
    (``children``: their pids, where they can be found) past :data:`ENDED_HOLDER_WAIT`."""

    def __init__(self, pid: int, children: list[int]) -> None:
        super().__init__(f"pid {pid}")
        self.pid, self.children = pid, children

    def line(self, head: str, doing: str, tail: str) -> str:
        """The one line saying so, after ``head`` (``-o out.mp4``): ``doing`` what the run
        did (``writing it``)."""
        they = (f"processes it started (pids {', '.join(map(str, self.children))}) hold"
                if len(self.children) > 1 else "a process it started "
                f"{f'(pid {self.children[0]}) ' if self.children else ''}holds")
        return (f"{head}: the hfrender {doing} (pid {self.pid}) has ended, but "
                f"{they} its lock still; end that one{tail}")


@contextmanager
def output_lock(output: str, what: str | None = None, doing: str = WRITING,
                key: str = "output") -> Iterator[None]:
    """Hold ``output`` while this run writes it: a second hfrender of this user writing the
    same file or sequence (two shells, two batches) is refused in one line, not left to mix
    its frames in. A lock file per output (keyed by its temporary name: ``%05d`` and
    ``%5d`` are one) in the user's own folder of the temporary folder, ``flock``ed: the
    system lets it go when the process ends, however it ends, and the children sharing
    its file with it (forked, not yet started) with them; a lock whose holder has ended is
    waited for (:data:`ENDED_HOLDER_WAIT`), not refused. Where it cannot be taken
    (no ``fcntl``, the temporary folder not writable), the run goes on unlocked, said once.
    A refusal names it after ``what`` (``batch``), else as the caller names the setting
    ``key`` (:func:`hfrender.errors.output_said`: ``-o out.mp4`` to the command,
    ``output='out.mp4'`` to hf.render; was ``-o`` to both)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = lock_path(output)  # (a refusal names it as typed, in the caller's words)
    head = output_said(typed_output(output), what, key)
    try:
        fh = _locked(path, fcntl)
    except _LeftHeld as left:
        verb, _, rest = doing.partition(";")
        raise OutputBusy(left.line(head, verb.removeprefix("is "), ", or write "
                                   "elsewhere" if "elsewhere" in rest else "")) from None
    except BlockingIOError as busy:
        raise _writer_refused(head, str(busy), doing) from None
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


def _writer_refused(head: str, who: str, doing: str) -> OutputBusy:
    """The refusal of a run writing the output ``head`` names, held by ``who`` (``pid N``;
    empty: readers)."""
    if not who:  # held by readers (they write no pid): an fx, a reexpose
        return OutputBusy(f"{head}: another hfrender is reading it (an fx of it, a reexpose "
                          "of a store); wait for it to finish, or write elsewhere")
    return OutputBusy(f"{head}: another hfrender ({who}) {doing}")


def _reader_refused(path: str, what: str, who: str) -> OutputBusy:
    """The refusal of a run reading ``path`` (``what`` names it), a writer ``who`` holding it."""
    return OutputBusy(f"{what} {typed_output(path)}: another hfrender ({who}) is writing it; "
                      "wait for it to finish")


def busy_now(output: str, sources: list[tuple[str, str | None]], what: str | None = None,
             doing: str = WRITING) -> OutputBusy | None:
    """The refusal :func:`holding` (``output``, ``sources``, ``what``; :func:`output_lock`'s
    ``doing``) would meet now, in its words, found by looking alone: no lock file made, no
    lock kept but for a moment (``batch --dry-run``); None where it would hold them all (a
    holder that has ended: it waits for that one, :data:`ENDED_HOLDER_WAIT`)."""
    locks = {lock_path(output)}
    for name, source in sources:
        if source and lock_path(source) not in locks:
            locks.add(lock_path(source))
            who = _held_now(lock_path(source), shared=True)
            if who is not None:
                return _reader_refused(source, name, who)
    who = _held_now(lock_path(output), shared=False)
    return None if who is None else _writer_refused(output_said(typed_output(output), what),
                                                    who, doing)


def _held_now(path: Path, shared: bool) -> str | None:
    """What holds lock file ``path`` against a reader's (``shared``) or a writer's lock now
    (``pid N``; empty: readers; ``another process``), its lock tried and let go at once;
    None where none does, or its holder has ended, or there is no such file. (For the
    instant the lock is tried, a run starting then is refused as held by another: a dry
    run's look, taken as harmless.)"""
    try:
        import fcntl

        fh = open(path)  # (read alone: its time and size as they were)
    except (ImportError, OSError):
        return None
    with fh:
        try:
            fcntl.flock(fh, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            who = _holder(fh)
            pid = int(who[4:]) if who.startswith("pid ") and who[4:].isdigit() else 0
            if pid and process_ended(pid):
                return None
            return who or ("another process" if shared else "")
        except OSError:
            return None
        fcntl.flock(fh, fcntl.LOCK_UN)
    return None


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
    that would write it meanwhile is refused, at once, as reading it (a killed writer's pid
    left in the file is cleared once held). Where it cannot be taken, unlocked."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    lock = lock_path(path)
    try:
        fh = _locked(lock, fcntl, shared=True)
    except _LeftHeld as left:
        raise OutputBusy(left.line(f"{what} {typed_output(path)}", "writing it", "")) from None
    except BlockingIOError as busy:
        raise _reader_refused(path, what, str(busy)) from None
    except OSError:
        yield
        return
    with fh:
        if _holder(fh):  # a killed writer's "pid N" (readers write none): cleared, or the
            fh.truncate(0)  # next writer waited for it and named this reader its child
        try:
            yield
        finally:  # the last reader removes it (a writer waiting takes a new one)
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                lock.unlink(missing_ok=True)
            except OSError:
                pass


def holding(output: str, sources: list[tuple[str, str | None]],
            what: str | None = None) -> ExitStack:
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
    from hfrender.io.sequence_files import DEPTH_KINDS, FOLDER_KINDS, VECTOR_KINDS

    return [(names[0], _as_pattern(footage, FOLDER_KINDS)),
            (names[1], depth and _as_pattern(depth, DEPTH_KINDS)),
            (names[2], vectors and _as_pattern(vectors, VECTOR_KINDS))]


def _as_pattern(path: str, kinds: tuple[str, ...]) -> str:
    """A folder of one image sequence (of ``kinds``) as its pattern (``fr/`` ->
    ``fr/%04d.png``: what a render writing it holds; a review), else ``path``."""
    from hfrender.errors import HFRenderError
    from hfrender.io.sequence_files import folder_pattern

    try:
        pattern = folder_pattern(Path(path), kinds) if Path(path).is_dir() else None
    except (OSError, HFRenderError):  # (said by fx itself)
        pattern = None
    return str(Path(path) / pattern) if pattern else path


def _locked(path: Path, fcntl: Any, shared: bool = False) -> IO[str]:
    """``path`` opened and ``flock``ed (``shared``: a reader's lock), the file still the
    one at ``path`` once locked (a run that let it go removed it: the next one's is a new
    file); BlockingIOError naming the holder where another process holds it (empty: its
    readers); a holder that has ended is waited for (:func:`_after_ended`)."""
    path.parent.mkdir(mode=0o700, exist_ok=True)
    how = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
    for _ in range(100):
        fh = open(path, "a+")
        try:
            try:
                fcntl.flock(fh, how)
            except BlockingIOError:
                _after_ended(fh, fcntl, how, shared)
        except BaseException:
            fh.close()
            raise
        try:
            if os.fstat(fh.fileno()).st_ino == os.stat(path).st_ino:
                return fh
        except FileNotFoundError:  # removed by its holder as this one took it: again
            pass
        fh.close()
    raise OSError(f"{path} keeps changing")


def _after_ended(fh: IO[str], fcntl: Any, how: int, shared: bool) -> None:
    """``fh`` locked (``how``) once its holder lets it go, where the run its file names
    has ended (its children hold it: see :data:`ENDED_HOLDER_WAIT`; was: refused as
    "another hfrender (pid N) is writing it", N the killed run's); BlockingIOError naming
    the holder where that run lives (at once, as ever) or another takes it meanwhile,
    :class:`_LeftHeld` where the lock is held still after the wait."""
    end = time.monotonic() + ENDED_HOLDER_WAIT
    who = _holder(fh)
    while True:
        pid = int(who[4:]) if who.startswith("pid ") and who[4:].isdigit() else 0
        if not pid or not process_ended(pid):
            raise BlockingIOError(who or ("another process" if shared else ""))
        if time.monotonic() > end:
            raise _LeftHeld(pid, _holding_pids(fh))
        time.sleep(0.01)
        try:
            fcntl.flock(fh, how)
            return
        except BlockingIOError:
            who = _holder(fh)


def _holder(fh: IO[str]) -> str:
    """What a lock file says of its holder: ``pid N`` (a writer), else empty (readers)."""
    fh.seek(0)
    return fh.read().strip()


def process_ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie, not yet waited for, too)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return True
    except (OSError, IndexError):
        pass
    try:  # (no /proc)
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # (another user's: alive)
        pass
    return False


def _holding_pids(fh: IO[str]) -> list[int]:
    """The other processes with ``fh``'s file open (from /proc; [] where there is none)."""
    mine = os.fstat(fh.fileno())
    found = []
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            same = os.stat(fd)
        except OSError:
            continue
        pid = int(fd.parts[2])
        if (same.st_ino, same.st_dev) == (mine.st_ino, mine.st_dev) and pid != os.getpid():
            found.append(pid)
    return sorted(set(found))
