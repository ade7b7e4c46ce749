"""Fusion in child processes, beside the drawing: two interpreters, two GILs.

On the CPU backend a render's drawing and its fusion are both Python; in one process they
take turns on one GIL (moderngl holds it in every call), so a render costs the drawing
*plus* the fusion. :class:`FusionProcesses` runs the fusion in child processes instead.
The pool's arena is a :class:`~hfrender.hyperframe.shared.SharedArena` the children map,
so a hyperframe crosses as a few offsets; only the finished frames come back (pickled, a
few MB a hyperframe).

A child is ``python -m hfrender.engine.offload`` (not ``multiprocessing``: a spawned child
re-imports the user's ``__main__``, which would render again in a script without a
``__main__`` guard). It ignores Ctrl-C (the parent decides what is still fused and
written), ends when told or when the parent's end of its socket closes (``kill -9`` of the
parent included), and sends back with each reply the log records it made and any error,
which the parent raises as its own (a ``MemoryError`` still splits the hyperframe).
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
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from hfrender.errors import HFRenderError
from hfrender.hyperframe.pool import HyperFrame
from hfrender.hyperframe.shared import SharedArena, describe, open_arena

log = logging.getLogger(__name__)

STOP_S = 5.0  # how long a child may take to end when told before it is killed


class FusionProcessError(HFRenderError):
    """A fusion process ended before it answered (killed, out of memory, a crash)."""


class _Child:
    def __init__(self, proc: subprocess.Popen, conn: Connection) -> None:
        self.proc, self.conn = proc, conn


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
        mine, theirs = socket.socketpair()
        level = logging.getLogger("hfrender").getEffectiveLevel()
        root = str(Path(__file__).resolve().parents[2])  # where ``hfrender`` is imported from
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH")) if p))
        # the fusion makes no large BLAS calls: OpenBLAS's threads would only cost the
        # child's start (half its CPU) and spin beside the drawing
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        with theirs:
            args = (theirs.fileno(), self.arena.fd, self.arena.size, level)
            proc = subprocess.Popen([sys.executable, "-m", __name__, *map(str, args),
                                     *self.preload],
                                    pass_fds=args[:2], stdin=subprocess.DEVNULL, env=env)
        return _Child(proc, Connection(mine.detach()))

    def call(self, fn: Callable[..., Any], hyper: HyperFrame, *args: Any,
             **kwargs: Any) -> Any:
        """``fn(hyper, *args, **kwargs)`` in an idle child (``fn`` importable by name);
        its result, or its error raised here."""
        message = (fn, describe(hyper, self.arena), args, kwargs)
        child = self._idle.get()
        try:
            child.conn.send(message)
            ok, value, records = child.conn.recv()
        except (EOFError, OSError):
            raise FusionProcessError(self._ended(child)) from None
        finally:
            self._idle.put(child)
        for name, level, text in records:
            logging.getLogger(name).log(level, "%s", text)
        if not ok:
            raise value
        return value

    @staticmethod
    def _ended(child: _Child) -> str:
        try:
            code = child.proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            code = None
        how = ("has stopped answering" if code is None else
               f"was killed by signal {-code}" if code < 0 else f"exited with code {code}")
        hint = " (SIGKILL: often the system out of memory; lower --granularity or --size)" \
            if code == -signal.SIGKILL else ""
        return f"the fusion process (pid {child.proc.pid}) {how} before it answered{hint}"

    def close(self) -> None:
        """End every child (told first, killed after ``STOP_S``); safe to call twice."""
        for child in self.children:
            try:
                child.conn.send(None)
            except OSError:
                pass
            child.conn.close()
        for child in self.children:
            try:
                child.proc.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                child.proc.kill()
                child.proc.wait()
        self.children = []


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


def _portable(exc: BaseException) -> BaseException:
    """``exc`` with the child's traceback as a note; when it does not survive pickling, its
    nearest built-in class (a MemoryError stays one: the engine splits on it) naming it."""
    note = "in the fusion process:\n" + "".join(traceback.format_exception(exc))
    try:
        exc.add_note(note)
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
        stand_in.add_note(note)
        return stand_in


def serve(conn: Connection, arena_fd: int, size: int, level: int,
          preload: Sequence[str] = ()) -> None:
    """The child: fuse what the parent sends until told to stop or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in preload:
        importlib.import_module(name)
    arena = open_arena(arena_fd, size)
    records = _Records()
    top = logging.getLogger("hfrender")
    top.setLevel(level)
    top.addHandler(records)
    top.propagate = False
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
        except (BrokenPipeError, ConnectionError):
            return
        except Exception as exc:  # noqa: BLE001 - a result that cannot be sent
            conn.send((False, _portable(exc), records.take()))


if __name__ == "__main__":
    sock, fd, nbytes, lvl = map(int, sys.argv[1:5])
    serve(Connection(sock), fd, nbytes, lvl, sys.argv[5:])
