"""A Ray chunk's warnings carried back to its driver: a worker's log is its own (Ray's
``log_to_driver`` is off), so what a render there warns of (a scene's own warning in
``update(t)``, a font's missing glyph, the motion hint) was seen by no one. The task
catches its ``hfrender`` loggers' warnings (:func:`caught`) and returns them with its
result; the driver says each distinct one once (:class:`Told`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from hfrender.logs import is_silenced

CARRIED = 20  # a chunk's distinct warnings carried back, at most (then a count of the rest)
LONGEST = 2000  # characters of one, at most

log = logging.getLogger("hfrender.engine.cluster")


class _Caught(logging.Handler):
    """The distinct texts of the warnings of ``hfrender`` and its loggers, in their order;
    a record said while :func:`~hfrender.logs.silenced` is in force is not one."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.texts: list[str] = []
        self.more = 0

    def emit(self, record: logging.LogRecord) -> None:
        if is_silenced():
            return
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not format
            text = str(record.msg)
        text = text if len(text) <= LONGEST else text[:LONGEST - 3] + "..."
        if text in self.texts:
            return
        if len(self.texts) < CARRIED:
            self.texts.append(text)
        else:
            self.more += 1


@contextmanager
def caught() -> Iterator[list[str]]:
    """The warnings said while this lasts (by ``hfrender``'s loggers, as they say them:
    before a batch names its job), as a list filled as this ends; a handler on the
    ``hfrender`` logger, taken off after, an error too. Past :data:`CARRIED` of them, a
    last line counts the rest."""
    handler, top = _Caught(), logging.getLogger("hfrender")
    texts: list[str] = []
    top.addHandler(handler)
    try:
        yield texts
    finally:
        top.removeHandler(handler)
        texts[:] = handler.texts + ([f"(and {handler.more} more warnings of these frames)"]
                                    if handler.more else [])


class Told:
    """What the driver has said (seeded with its own warnings, :func:`caught` as it
    prepares: those a chunk says again are not repeated); :meth:`tell` says a chunk's."""

    def __init__(self, said: list[str] | None = None) -> None:
        self.said = set(said or ())

    def tell(self, chunk: dict) -> None:
        """Each of the warnings ``chunk`` carried back not said yet, once."""
        for text in chunk.get("warnings") or ():
            if text not in self.said:
                self.said.add(text)
                log.warning("%s", text)
