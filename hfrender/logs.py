"""Filters on the root logger's handlers for a while: what each handler shows of the log
records of a stretch of work (a bench's warnings once, a batch job's named); a span of time
as a log line says it."""

from __future__ import annotations

import contextlib
import io
import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def filtered(make: Callable[[], logging.Filter]) -> Iterator[None]:
    """Each of the root logger's handlers filtered by a ``make()`` of its own while this
    lasts (a record passes every handler's filter in turn; records of every logger reach
    them), taken off after, an error too."""
    filters = [(h, make()) for h in logging.getLogger().handlers]
    for h, f in filters:
        h.addFilter(f)
    try:
        yield
    finally:
        for h, f in filters:
            h.removeFilter(f)


@contextmanager
def silenced() -> Iterator[None]:
    """Nothing said while it lasts: prints to stdout and stderr, warnings, log records (a
    scene's second setup() and update(t) at times looked at only: said by the first
    already; were said twice, stdout's aside). The streams and warnings are the process's:
    calls in threads at once share one silencing, put back as the last of them ends (was:
    each put back what it found, another's sink: an hf.still beside another thread's left
    every later print of the process going nowhere and every warning ignored)."""
    global _held
    with _SILENCE:
        if not _held:  # the first: the streams and warnings replaced
            _stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
            _stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
            _stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("ignore")
        _held += 1  # (this call's hold)
    try:
        with filtered(lambda: _Silent()):
            yield
    finally:
        with _SILENCE:
            _held -= 1
            if not _held:  # the last: what was replaced put back
                _stack.close()


def is_silenced() -> bool:
    """Whether a :func:`silenced` is in force (what is said now goes nowhere)."""
    return _held > 0


_SILENCE = threading.Lock()
_held = 0  # the calls in force
_stack = contextlib.ExitStack()  # what they replaced, while one is (emptied as it is closed)


class _Silent(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


class JobNamed(logging.Filter):
    """A job's warnings begin with its name (a batch's log said them between two jobs'
    lines, whose they were unsaid); a record once, whichever handler sees it first."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.prefix = f"job {name!r}: "

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING and not getattr(record, "hf_job", False):
            record.hf_job = True  # (one naming the job already: as it is)
            said = record.getMessage()  # formatted first: a name may hold "%"
            if not said.startswith(self.prefix[:-2]):
                record.msg, record.args = self.prefix + said, None
        return True


def span(seconds: float) -> str:
    """``45s``, ``1m08s``, ``2h05m``: a span of time as a progress line or a warning says it."""
    s = int(round(seconds))
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else (
        f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s")
