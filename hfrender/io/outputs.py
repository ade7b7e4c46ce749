"""Putting a finished output in place: written under a temporary name beside it, renamed
when complete, so that a file which looks complete is complete (and an older one at the
same path is untouched until then)."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from hfrender.errors import os_said, output_said, pastable
from hfrender.io.durable import sync_all, sync_file, sync_folder
from hfrender.io.partial_record import mark_partial, ours, record_of, recorded_frames
from hfrender.io.sequence_commit import commit_sequence
from hfrender.io.sequence_names import FIELD, is_sequence, pattern_files
from hfrender.io.writers import WriteFailed, WriterError, folder_output
from hfrender.signals import STOPS

log = logging.getLogger(__name__)


def _tag(output: str) -> str:
    """A sequence's pattern as a folder name, its width kept as Blender writes it:
    ``a_%04d.png`` -> ``a_####.png`` (``%d``: ``#``), so that sequences of two widths in
    one folder have a temporary and a partial folder each."""
    name = Path(output).name
    if pattern_files(name) is None:
        return name
    return FIELD.sub(lambda m: "#" * max(1, int(m.group(2) or 1)), name, count=1)


def temporary(output: str) -> str:
    """Where ``output`` is written until it is complete: a hidden name beside it; for an
    image sequence, a hidden folder of its own inside the sequence's folder
    (``OUT/.a_####.png.partial/a_%04d.png``)."""
    out = Path(output).resolve()
    if is_sequence(output):
        return str(out.parent / f".{_tag(output)}.partial" / out.name)
    return str(out.with_name(f".{out.name}.partial{out.suffix}"))


def partial_name(output: str) -> str:
    """Where an unfinished run's frames go to be watched, the output and an older file there
    left alone: ``NAME.partial.EXT`` beside it (a sequence: ``OUT/a_####.png.partial/``)."""
    out = Path(output).resolve()
    if is_sequence(output):
        return str(out.parent / f"{_tag(output)}.partial" / out.name)
    return str(out.with_name(f"{out.stem}.partial{out.suffix}"))


def check_partial_free(output: str, what: str | None = None) -> None:
    """Where an interrupted run of ``output`` would keep its frames (:func:`partial_name`)
    holds no file but hfrender's own: a file of that name that is not (a user's, another
    job's output) is one line, before any work, never written over."""
    from hfrender.io.work_names import check_work_names

    check_work_names(output, what)  # (its hidden folders and files: removed unsaid before)
    partial = Path(partial_name(output))
    if not is_sequence(output) and partial.exists() and not ours(partial):
        raise WriterError(f"{output_said(output, what)}: {partial} exists and is not a "
                          "partial output this hfrender wrote, but an interrupted run would "
                          "keep its frames there: move it, or write to another name (an older "
                          "hfrender's partial output can be deleted)")


def ours_partial(output: str) -> Path | None:
    """A video ``output``'s partial output (:func:`partial_name`) that hfrender wrote, if
    there is one (what :func:`remove_partial` removes once the output is complete)."""
    old = Path(partial_name(output))
    return old if not is_sequence(output) and old.exists() and ours(old) else None


def remove_partial(output: str) -> None:
    """An older run's :func:`partial_name`, once the output itself is complete (a file of
    that name that hfrender did not write stays)."""
    old = Path(partial_name(output))
    if is_sequence(output):
        shutil.rmtree(old.parent, ignore_errors=True)
    elif ours(old) or not old.exists():  # a record whose partial is gone goes too
        old.unlink(missing_ok=True)
        record_of(old).unlink(missing_ok=True)


def kept_partial(output: str, since: float) -> str | None:
    """The partial output an unfinished run of ``output`` that began at ``since`` (a
    ``time.time()``) kept (:func:`keep_partial`): a video hfrender wrote, or a sequence's
    folder of frames, written since then (an older run's is not this one's), or where its
    folder was made read-only under the run, what it left at :func:`temporary` (was: not
    named); None where there is none."""
    for partial, hidden in ((Path(partial_name(output)), False),
                            (Path(temporary(output)), True)):
        try:  # (what cannot be read is not named: this is said beside an error)
            if is_sequence(output):
                files = list(partial.parent.iterdir()) if partial.parent.is_dir() else []
                new = any(f.stat().st_mtime >= since for f in files)
            else:
                new = (hidden or ours(partial)) and partial.stat().st_mtime >= since
        except OSError:
            new = False
        if new:
            return str(partial)
    return None


def partial_frames(output: str) -> int:
    """The frames of the partial output (:func:`partial_name`) an interrupted run of
    ``output`` kept: a video's that hfrender wrote, as its record says; a sequence's frames
    in its folder; 0 where there is none."""
    partial = Path(partial_name(output))
    if not is_sequence(output):
        return recorded_frames(partial) if ours(partial) else 0
    rx = pattern_files(partial.name)
    try:
        return sum(1 for f in partial.parent.iterdir() if rx and rx.match(f.name))
    except OSError:
        return 0


def outweighs(output: str, frames: int) -> int | None:
    """The frames an earlier run of ``output`` kept in its partial output, where they are
    more than ``frames`` (an unfinished run's): that partial output stays and this run's
    frames are not kept there (were: put in its place, the fewer frames kept, though the
    run had said it stays until the run is complete); else None."""
    held = partial_frames(output)
    return held if held > frames else None


def keep_partial(tmp: str, output: str, frames: int) -> str | None:
    """Move what an unfinished run wrote under ``tmp`` (``frames``) to :func:`partial_name`,
    unless an earlier run's there holds more (:func:`outweighs`: it stays, ``tmp`` goes);
    the partial output's path (None when there was nothing to keep). Where it cannot be
    moved (its folder made read-only under the run), a video's stays at ``tmp``, whose path
    is returned, a sequence's in its hidden folder (None: the run's line names it)."""
    dst = partial_name(output)
    src = Path(tmp).parent if is_sequence(output) else Path(tmp)
    if not src.exists():
        return None
    if outweighs(output, frames) is not None:  # (a sequence's: its manifest too, so that
        discard(tmp)  # --resume goes on after the frames that stay)
        return dst
    target = Path(dst).parent if is_sequence(output) else Path(dst)
    if is_sequence(output):
        shutil.rmtree(target, ignore_errors=True)  # an older run's partial frames
    elif target.exists() and not ours(target):  # checked before the run: not since?
        raise WriteFailed(f"{target} is not hfrender's: the unfinished frames stay in "
                          f"{pastable(src)}")  # (as a shell takes it: a space, a '#')
    try:
        os.replace(src, target)
    except OSError as exc:  # a folder made read-only under the run: the frames stay in src,
        log.debug("%s stays (%s)", src, exc.strerror or exc)  # as the run's line says (was:
        return None if is_sequence(output) else str(src)  # "could not be kept", and not named)
    if not is_sequence(output):
        try:
            mark_partial(target, frames)
        except OSError as exc:  # a full disk: unrecorded, it would stand in the next run's
            target.unlink(missing_ok=True)  # way as a file not hfrender's
            record_of(target).unlink(missing_ok=True)
            log.warning("the unfinished output could not be kept (%s)", exc.strerror or exc)
            return None
    return dst


def uninterrupted(step: Callable[[], None]) -> KeyboardInterrupt | None:
    """``step()``, putting an output in place (segments joined by stream copy, files
    renamed), with Ctrl-C, SIGTERM and SIGHUP held until it ends, so that it is never left half
    done (nor the output said not written when it was); then the held one is handled as it
    would have been, and the interruption it raised returned (the command then knows the
    output is whole). Handlers, not a signal mask: Python runs them in the main thread
    whichever thread the signal reaches."""
    if threading.current_thread() is not threading.main_thread():
        step()
        return None
    came: list[int] = []
    kinds = STOPS
    before = {kind: signal.signal(kind, lambda signum, frame: came.append(signum))
              for kind in kinds}
    try:
        step()
    finally:
        for kind, handler in before.items():
            signal.signal(kind, handler)
    return _handled(came[0], before[came[0]]) if came else None


def _handled(signum: int, handler: object) -> KeyboardInterrupt | None:
    """A held signal given to the handler it found (the default one: sent again)."""
    try:
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            os.kill(os.getpid(), signum)
    except KeyboardInterrupt as exc:
        return exc
    return None


def commit(tmp: str, output: str, keep_others: bool = False) -> None:
    """Put the complete ``tmp`` in place of ``output`` (a sequence: its frames, and only
    those, replacing an older render's; with ``keep_others``, a range of frames, the
    pattern's other files stay); an older partial output goes."""
    try:
        if is_sequence(output):
            sync_all(Path(tmp).parent)  # its frames' data on the disk before any is renamed
            commit_sequence(tmp, output, keep_others)
        else:  # through a link at the output, to its file (was: the link replaced)
            sync_file(tmp)
            os.replace(tmp, Path(output).resolve())
        sync_folder(Path(output).resolve().parent)  # and the renames
    except OSError as exc:
        where = exc.filename2 or exc.filename or output
        raise WriteFailed(f"cannot put {where} in place: {exc.strerror or exc}") from None
    remove_partial(output)


def missing_folder(output: str) -> Path | None:
    """The outermost of ``output``'s folders that does not exist yet (a sequence's folders
    are made when its first frame is written), or None: what :func:`discard` removes
    again when a run leaves nothing there."""
    folder, top = Path(output).absolute().parent, None  # as the system reads it: "new/.."
    while not folder.exists() and folder != folder.parent:
        folder, top = folder.parent, folder
    return top


def make_folder(output: str) -> Path | None:
    """Make ``output``'s folder where it is missing (as a batch, an image sequence and a
    sample store make theirs); returns the outermost folder made (:func:`missing_folder`),
    which :func:`discard` removes again when a run leaves nothing there. One line where it
    cannot be made (:func:`check_writable` said why before any work, as a rule)."""
    made = missing_folder(output)
    parent = Path(output).absolute().parent  # as the system reads it: "new/../x.gif" too
    if not parent.is_dir():
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WriterError(f"{output_said(output)}: cannot make folder {Path(output).parent}: "
                              f"{exc.strerror or exc}") from None
    return made


def discard(tmp: str, made: Path | None = None) -> None:
    """Remove what an unfinished run wrote under ``tmp``, and the folders it made for it
    (``made``, :func:`missing_folder` before the run) where they are left empty."""
    if is_sequence(tmp):
        shutil.rmtree(Path(tmp).parent, ignore_errors=True)
    else:
        Path(tmp).unlink(missing_ok=True)
    take_back(made)


def take_back(made: Path | None) -> None:
    """The folders a run made (``made``: :func:`missing_folder` before it; all below it are
    the run's), deepest first, where they are left empty."""
    if made is None:
        return
    for folder, _, _ in os.walk(made, topdown=False):  # (made last; links not followed)
        try:
            os.rmdir(folder)  # only an empty one
        except OSError:
            pass


def check_writable(output: str, what: str | None = None) -> None:
    """Can a file be made where ``output`` goes? One line naming the folder and why not
    (a read-only folder or mount, /proc, a missing folder, a folder where the file goes),
    before any work is done."""
    folder = Path(output).absolute().parent
    while not os.path.lexists(folder) and folder != folder.parent:  # made when writing starts
        folder = folder.parent
    _names_fit(output, what, folder)  # (first: a path past the limit fails any look at it)
    if Path(output).is_dir() and not is_sequence(output):  # (renamed onto at the end)
        raise WriterError(folder_output(output, what))
    if not folder.is_dir():  # was: an internal error (FileExistsError) once the work began
        why = (f"it is a link to {os.readlink(folder)}, which does not exist"
               if folder.is_symlink() and not folder.exists() else "it is a file")
        raise WriterError(f"{output_said(output, what)}: cannot make folder {folder}: {why}")
    if refused := cannot_make(Path(temporary(output)).parent):  # (through links)
        raise WriterError(f"{output_said(output, what)}: cannot write in {refused}")


def cannot_make(folder: Path) -> str | None:
    """``FOLDER: why`` no file can be made in ``folder`` (or the nearest folder above it
    that is there), a file made and removed to see; None where one can."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if _LOOKING.get():
        return _looked(folder)
    try:
        fd, probe = tempfile.mkstemp(prefix=".hfrender-probe-", dir=folder)
    except OSError as exc:
        return f"{folder}: " + {
            errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
            errno.EPERM: "permission denied", errno.ENOSPC: "the disk is full",
            errno.ENOENT: "no file can be made there (No such file or directory)",
        }.get(exc.errno, exc.strerror or str(exc))
    os.close(fd)
    os.unlink(probe)
    return None


_LOOKING: ContextVar[bool] = ContextVar("hfrender_looking_only", default=False)


@contextmanager
def looking_only() -> Iterator[None]:
    """:func:`cannot_make` answers without making a file meanwhile (``batch --dry-run``:
    nothing made, not a folder's time changed): :func:`_looked`."""
    token = _LOOKING.set(True)
    try:
        yield
    finally:
        _LOOKING.reset(token)


def _looked(folder: Path) -> str | None:
    """:func:`cannot_make`'s answer from looking alone: a read-only file system, a folder
    this user may not write in (as the system's permissions say: root passes, and a full
    disk is not seen)."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"{folder}: the file system is read-only"
    except (OSError, AttributeError):  # (AttributeError: Windows has no statvfs)
        pass
    return None if os.access(folder, os.W_OK | os.X_OK) else f"{folder}: permission denied"


def _names_fit(output: str, what: str | None, folder: Path) -> None:
    """The names hfrender writes beside ``output`` (the longest: ``.NAME.partial.EXT``'s
    record, ``.NAME.partial.EXT.hfrender``) fit the file system's limits, checked before
    any work (was: an internal error, "File name too long", once frames were made)."""
    longest = str(record_of(Path(partial_name(output))))
    name_max, path_max = _limit(folder, "PC_NAME_MAX", 255), _limit(folder, "PC_PATH_MAX", 4096)
    too_long = [part for part in Path(longest).parts if len(os.fsencode(part)) > name_max]
    if too_long:
        raise WriterError(f"{output_said(output, what)}: the name is too long: hfrender writes "
                          f"{Path(too_long[-1]).name[:24]}... ({len(os.fsencode(too_long[-1]))} "
                          f"bytes) beside it, past this file system's {name_max}; give a "
                          "shorter name")
    if len(os.fsencode(longest)) >= path_max:
        raise WriterError(f"{output_said(output, what)}: the path is too long: hfrender writes "
                          f"{len(os.fsencode(longest))} bytes' paths beside it, past this "
                          f"system's {path_max - 1}; give a shorter one")


def _limit(folder: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(folder, name)
    except (OSError, ValueError, AttributeError):  # (AttributeError: Windows has none)
        return default


def write_image(output: str, image: object) -> None:
    """Write a PNG (8 or 16 bits, as ``image``'s dtype) or an EXR (float16 or float32)
    whole or not at all (a temporary name beside it, then renamed)."""
    import numpy as np

    from hfrender.io.images import write_picture

    out = Path(output).resolve()  # (through a link, as commit)
    tmp = Path(temporary(output))
    made = make_folder(output)
    try:
        write_picture(tmp, np.asarray(image))
        sync_file(tmp)
        os.replace(tmp, out)
        sync_folder(out.parent)
    except OSError as exc:
        said = os_said(exc, tmp)  # (its size: whether the file size limit was met)
        discard(str(tmp), made)
        raise WriteFailed(f"cannot write {output}: {said}") from None
