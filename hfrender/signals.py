"""The signals that stop a run as Ctrl-C does: SIGINT, SIGTERM and, where there is one,
SIGHUP (the terminal closed: was the default action, as ``kill -9`` ends a run, with no
partial output said or kept in place)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOPS: tuple[int, ...] = tuple(s for s in (signal.SIGINT, signal.SIGTERM,
                                           getattr(signal, "SIGHUP", None)) if s is not None)

_AT_ONCE = {"depth": 0}  # inside stop_at_once(): nothing in progress is worth its wait


@contextmanager
def stop_at_once() -> Iterator[None]:
    """Inside the block the first Ctrl-C stops a run's wait for the work in progress at once
    (``hfrender still``: one picture, in progress until it is whole, so there is nothing to
    keep; an exact gather may take minutes), not after it (:mod:`hfrender.engine.core`)."""
    _AT_ONCE["depth"] += 1
    try:
        yield
    finally:
        _AT_ONCE["depth"] -= 1


def at_once() -> bool:
    """Whether a Ctrl-C stops the work in progress at once (:func:`stop_at_once`)."""
    return _AT_ONCE["depth"] > 0
