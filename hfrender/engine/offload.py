"""Fusion in child processes, beside the drawing: two interpreters, two GILs.

On the CPU backend a render's drawing and its fusion are both Python; in one process they
take turns on one GIL (moderngl holds it in every call), so a render costs the drawing
*plus* the fusion. :class:`FusionProcesses` runs the fusion in child processes instead.
The pool's arena is a :class:`~hfrender.hyperframe.shared.SharedArena` the children map,
so a hyperframe crosses as a few offsets; only the finished frames come back (pickled, a
few MB a hyperframe).

A child is a fresh interpreter that imports this ``hfrender`` (not ``multiprocessing``: a
spawned child re-imports the user's ``__main__``, which would render again in a script
without a ``__main__`` guard; and not from the working directory, which may hold another
copy). It runs in its own session, so a terminal's Ctrl-C reaches the render alone (which
decides what is still fused and written); it ends when told or when the parent's end of
its socket closes (``kill -9`` of the parent included). With each reply it sends back the
log records it made and any error, which the parent raises as its own (a ``MemoryError``
still splits the hyperframe).
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from hfrender.errors import HFRenderError, spelling
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.shared import SharedArena, describe, open_arena

log = logging.getLogger(__name__)

STOP_S = 5.0  # how long children may take to end when told before they are killed
PACKAGE = Path(__file__).resolve().parents[1]  # this hfrender: the children import it
# the child's first statements: not the working directory on its path (where ``python -c``
# puts it, unless -P / PYTHONSAFEPATH), this package's folder first while ``hfrender`` is
# imported (its submodules follow ``hfrender.__path__``), then the path as it was
BOOT = ("import sys; r = sys.argv[1]\n"
        "if not getattr(sys.flags, 'safe_path', False) and sys.path[:1] == ['']:\n"
        "    del sys.path[0]\n"
        "sys.path.insert(0, r); import hfrender; sys.path.remove(r)\n"
        "from hfrender.engine.offload import main; main(sys.argv[2:])")


class FusionProcessError(HFRenderError):
    """A fusion process ended before it answered (killed, out of memory, a crash), or could
    not start."""


class FusionProcessUnavailable(FusionProcessError):
    """A fusion process started but cannot fuse for this render (its imports failed, or it
    imported another hfrender): nothing was fused there, the render may fuse itself."""


class _Child:
    def __init__(self, proc: subprocess.Popen, conn: Connection) -> None:
        self.proc, self.conn = proc, conn
        self.greeted = False  # its first message (it started, and which hfrender) read
        self.dead: str | None = None  # why it takes no more calls


class FusionProcesses:
    """``count`` child processes that fuse hyperframes of ``arena``; :meth:`call` from any
    thread (each call takes an idle child), :meth:`close` when the job is done. A child
    imports the modules ``preload`` names as it starts (while the first hyperframe is
    drawn), not at its first call."""

    def __init__(self, arena: SharedArena, count: int = 1,
                 preload: tuple[str, ...] = ()) -> None:
        if arena.fd is None:
            raise ValueError("the arena has no memory yet: make the pool first")
        self.arena, self.preload = arena, preload
        self._idle: queue.SimpleQueue[_Child] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self.children: list[_Child] = []
        try:
            for _ in range(count):
                self.children.append(self._start())
        except BaseException:
            self.close()
            raise
        for child in self.children:
            self._idle.put(child)

    @property
    def pids(self) -> list[int]:
        return [c.proc.pid for c in self.children]

    def _start(self) -> _Child:
        level = logging.getLogger("hfrender").getEffectiveLevel()
        # the fusion makes no large BLAS calls: OpenBLAS's threads would only cost the
        # child's start (half its CPU) and spin beside the drawing
        env = dict(os.environ)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        mine, theirs = socket.socketpair()
        try:
            with theirs:
                args = (theirs.fileno(), self.arena.fd, self.arena.size, level)
                proc = subprocess.Popen(
                    [sys.executable, "-c", BOOT, str(PACKAGE.parent), *map(str, args),
                     *self.preload], pass_fds=args[:2], stdin=subprocess.DEVNULL, env=env,
                    start_new_session=True)
        except BaseException:
            mine.close()
            raise
        return _Child(proc, Connection(mine.detach()))

    def call(self, fn: Callable[..., Any], hyper: HyperFrame, *args: Any,
             **kwargs: Any) -> Any:
        """``fn(hyper, *args, **kwargs)`` in an idle child (``fn`` importable by name);
        its result, or its error raised here. A call cut short after its message went
        (Ctrl-C, no memory for the reply) costs the child: it is replaced by a new one, so
        no later call reads an earlier call's reply."""
        message = (fn, describe(hyper, self.arena), args, kwargs)
        child = self._idle.get()
        answered = False
        try:
            if child.dead is not None:
                raise FusionProcessError(child.dead)
            self._greet(child)
            child.conn.send(message)
            ok, value, records = child.conn.recv()
            answered = True
        except (EOFError, OSError):
            child.dead = child.dead or self._ended(child)
            raise FusionProcessError(child.dead) from None
        finally:
            if not (answered or child.dead):
                try:
                    child = self._replace(child)
                finally:
                    self._idle.put(child)
            else:
                self._idle.put(child)
        for name, level, text in records:
            logging.getLogger(name).log(level, "%s", text)
        if not ok:
            if sys.version_info < (3, 11) and not isinstance(value, HFRenderError):
                log.error("%s", "".join(getattr(value, "__notes__", ())))  # 3.10 shows no notes
            raise value
        return value

    def _greet(self, child: _Child) -> None:
        """Read the child's first message: the folder of the hfrender it imported, or why
        it could not start."""
        if child.greeted:
            return
        first = child.conn.recv()
        child.greeted = True
        kind, value = first if isinstance(first, tuple) and len(first) == 2 else (None, first)
        if kind == "failed":
            child.dead = (f"the fusion process could not start: "
                          f"{type(value).__name__}: {value}")
        elif kind != "hello":
            child.dead = f"the fusion process said {first!r} instead of hello"
        elif Path(value) != PACKAGE:
            child.dead = (f"the fusion process imported hfrender from {value}, this process "
                          f"from {PACKAGE}")
        if child.dead is not None:
            raise FusionProcessUnavailable(child.dead)

    def _replace(self, child: _Child) -> _Child:
        """A new child in place of one whose conversation was cut short (the old one, marked
        dead, where none can start or the processes were closed meanwhile)."""
        child.dead = "the fusion process was stopped after a call was cut short"
        child.proc.kill()
        child.proc.wait()
        child.conn.close()
        if self._closed:
            return child
        try:
            new = self._start()
        except Exception as exc:  # noqa: BLE001 - told to the next call
            child.dead = f"the fusion process could not be started again: {exc}"
            return child
        with self._lock:
            if not self._closed:
                self.children = [new if c is child else c for c in self.children]
                return new
        new.proc.kill()  # close() ran while it started: it never takes a call
        new.proc.wait()
        new.conn.close()
        return child

    @staticmethod
    def _ended(child: _Child) -> str:
        try:
            code = child.proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            code = None
        how = ("has stopped answering" if code is None else
               f"was killed by signal {-code}" if code < 0 else f"exited with code {code}")
        said = spelling()  # (the caller's: hf.render's keywords, the command's flags)
        hint = (f" (SIGKILL: often the system out of memory; lower {said.name('granularity')}"
                f" or {said.name('size')})") if code == -signal.SIGKILL else ""
        return f"the fusion process (pid {child.proc.pid}) {how} before it answered{hint}"

    def _take_idle(self) -> list[_Child]:
        """The idle children, taken (no call can take them until they are put back)."""
        idle = []
        while True:
            try:
                idle.append(self._idle.get(block=False))
            except queue.Empty:
                return idle

    def abort(self) -> None:
        """Kill each child in a call (the job failed, or a second Ctrl-C: what it fuses is
        thrown away), so that the call raises at once (was: waited for, 392 s of an exact
        depth of field after "Ctrl-C again to stop at once"); the idle ones stay."""
        idle = self._take_idle()
        with self._lock:
            busy = [c for c in self.children if not any(c is i for i in idle)]
        for child in busy:
            child.dead = child.dead or ("the fusion process was stopped: the job failed or "
                                        "was interrupted")
            child.proc.kill()
        for child in idle:
            self._idle.put(child)

    def close(self) -> None:
        """End every child: an idle one is told to stop, one still in a call (a second
        Ctrl-C) is killed; any left after ``STOP_S`` in all are killed. A later call raises.
        Safe to call twice."""
        with self._lock:
            children, self.children, self._closed = self.children, [], True
        idle = self._take_idle()
        for child in children:
            child.dead = child.dead or "the fusion processes were closed"
            if any(child is c for c in idle):
                try:
                    child.conn.send(None)
                except OSError:
                    pass
                child.conn.close()
            else:
                child.proc.kill()
        deadline = time.monotonic() + STOP_S
        for child in children:
            try:
                child.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.proc.kill()
                child.proc.wait()
        for child in idle:
            self._idle.put(child)


class _Records(logging.Handler):
    """The child's log records, kept for the next reply."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.kept.append((record.name, record.levelno, record.getMessage()))

    def take(self) -> list[tuple[str, int, str]]:
        kept, self.kept = self.kept, []
        return kept


def _note(exc: BaseException, text: str) -> None:
    """``exc.add_note(text)`` (Python 3.11), or the same ``__notes__`` on 3.10."""
    add = getattr(exc, "add_note", None)
    if add is not None:
        add(text)
    else:
        exc.__notes__ = [*getattr(exc, "__notes__", ()), text]


def _portable(exc: BaseException) -> BaseException:
    """``exc`` with the child's traceback as a note; when it does not survive pickling, its
    nearest built-in class (a MemoryError stays one: the engine splits on it) naming it."""
    note = "in the fusion process:\n" + "".join(traceback.format_exception(exc))
    try:
        _note(exc, note)
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception that does not pickle is replaced
        text = f"{type(exc).__name__}: {exc}"
        for base in type(exc).__mro__:
            if base.__module__ == "builtins":
                try:
                    stand_in = base(text)
                    break
                except TypeError:  # a built-in that takes other arguments
                    continue
        _note(stand_in, note)
        return stand_in


def _hello(conn: Connection, preload: Sequence[str]) -> bool:
    """Import ``preload`` and say so, with this hfrender's folder (or why not: False)."""
    try:
        for name in preload:
            importlib.import_module(name)
        message = ("hello", str(PACKAGE))
    except Exception as exc:  # noqa: BLE001 - told to the parent, which raises it
        message = ("failed", _portable(exc))
    try:
        conn.send(message)
    except OSError:  # the parent closed first (an error before the first hyperframe)
        return False
    return message[0] == "hello"


def serve(conn: Connection, arena_fd: int, size: int, level: int,
          preload: Sequence[str] = ()) -> None:
    """The child: fuse what the parent sends until told to stop or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    arena = open_arena(arena_fd, size)
    records = _Records()
    top = logging.getLogger("hfrender")
    top.setLevel(level or logging.DEBUG)  # NOTSET: everything, as the parent's root shows
    top.addHandler(records)
    top.propagate = False
    if not _hello(conn, preload):
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        fn, shared, args, kwargs = message
        try:
            reply = (True, fn(shared.open(arena), *args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            reply = (False, _portable(exc))
        try:
            conn.send(reply + (records.take(),))
        except OSError:  # the parent is gone (BrokenPipeError is one)
            return
        except Exception as exc:  # noqa: BLE001 - a result that cannot be sent
            try:
                conn.send((False, _portable(exc), records.take()))
            except OSError:
                return


def main(argv: Sequence[str]) -> None:
    """The child's entry (``BOOT``): socket, arena descriptor and size, log level, the
    modules to preload."""
    sock, fd, nbytes, level = map(int, argv[:4])
    serve(Connection(sock), fd, nbytes, level, argv[4:])
    # every reply is sent: skip the interpreter's teardown (~30 ms with NumPy loaded, at
    # the end of every render); an error above still ends with its traceback
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None where the descriptor was closed
            stream.flush()
    os._exit(0)
