"""A Ray task told to stop by its gate (:mod:`hfrender.engine.ray_wait`): another chunk of
its render failed, so what it draws is thrown away; it stops at its next sub-frame (a
render's) or frame written (fx's) and returns, its work discarded (was: it ran to its end,
the failed render's driver waiting for it, a batch's cluster kept busy).

Not ``ray.cancel``, whose race with a task's end ends the driver in Ray 2.60 (see
:mod:`~hfrender.engine.ray_wait`): the task asks its gate, from a thread of its own, whether
its render failed, and ends itself where its work is between frames.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)
POLL_S = 0.25  # how often a running task asks its gate whether to stop


class Stopped(Exception):
    """Raised in a task told to stop; its gate's task returns nothing to keep, only the
    warnings it said (:func:`.chunk_warnings.stopped_with`)."""


_told: threading.Event | None = None  # the task running in this worker process (one at once)


def check() -> None:
    """In a task: raise :class:`Stopped` where its gate told it to stop; else nothing (and
    nothing outside a watched task)."""
    told = _told
    if told is not None and told.is_set():
        raise Stopped("told to stop: another chunk of its render failed")


@contextmanager
def watched(ask: Callable[[], bool], every: float = POLL_S) -> Iterator[threading.Event]:
    """While the block runs: ``ask()`` every ``every`` seconds, from a thread, whether to stop
    (an ``ask`` that fails, its gate gone, lets the task run on); :func:`check` raises once it
    said so. Each task has an event of its own: a late answer of a task that ended tells no
    other task its worker runs next."""
    global _told
    told, ended = threading.Event(), threading.Event()

    def watch() -> None:
        while not ended.wait(every):
            try:
                if ask():
                    told.set()
                    return
            except Exception as exc:  # noqa: BLE001 - its gate gone: the task runs on
                log.debug("asking the gate: %s", exc)
                return

    _told = told
    thread = threading.Thread(target=watch, name="hfrender-stop-watch", daemon=True)
    thread.start()
    try:
        yield told
    finally:
        ended.set()
        if _told is told:
            _told = None


def stoppable(writer: Any) -> Any:
    """``writer``, :func:`check` called before each frame it writes (an fx chunk's)."""
    return _Stoppable(writer)


class _Stoppable:
    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def write(self, frame: Any) -> None:
        check()
        self._writer.write(frame)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)
