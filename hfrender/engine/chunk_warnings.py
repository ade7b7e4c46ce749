"""A Ray chunk's warnings carried back to its driver: a worker's log is its own (Ray's
``log_to_driver`` is off), so what a render there warns of (a scene's own warning in
``update(t)``, a font's missing glyph, the motion hint) was seen by no one. The task
catches its ``hfrender`` loggers' warnings (:func:`caught`) and returns them with its
result; the driver says each distinct one once (:class:`Told`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

from hfrender.logs import is_silenced

CARRIED = 20  # a chunk's distinct warnings carried back, at most (then a count of the rest)
LONGEST = 2000  # characters of one, at most

log = logging.getLogger("hfrender.engine.cluster")


class Caught(logging.Handler):
    """The distinct texts of the warnings of ``hfrender`` and its loggers, in their order
    (a record said while :func:`~hfrender.logs.silenced` is in force is not one);
    ``shown``: each path of the worker's (its chunk's folder, a file laid out there) as the
    driver's user names it, for :attr:`texts`."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.said: list[str] = []
        self.more: set[int] = set()  # the distinct ones past CARRIED (their hashes: a scene
        self.shown: dict[str, str] = {}  # warning with t in its text makes one a sub-frame)
        self.frames = "these frames"  # the chunk's, as the overflow line names them

    def emit(self, record: logging.LogRecord) -> None:
        if is_silenced():
            return
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not format
            text = str(record.msg)
        if text in self.said:
            return
        if len(self.said) < CARRIED:
            self.said.append(text)
        else:
            self.more.add(hash(text))

    def chunk(self, folder: str, shown_as: str, first: int, count: int) -> None:
        """The chunk's folder ``folder`` (a file in it, and itself: a disk's "no room in
        <folder>" kept the worker's path) named as ``shown_as`` (a folder as
        :func:`.chunk_dir.scene_sent` gives it, ending in the separator; "": the driver's
        current one), its output frames ``first .. first + count - 1``."""
        self.shown.update({folder + os.sep: shown_as, folder: shown_as.rstrip(os.sep) or "."})
        self.frames = f"frames {first}-{first + count - 1}"

    @property
    def texts(self) -> list[str]:
        """What was said, the worker's paths as :attr:`shown` names them (the longest
        first), each cut at :data:`LONGEST` characters; past :data:`CARRIED` of them, a last
        line counts the rest."""
        out: list[str] = []
        for text in self.said:
            for path in sorted(self.shown, key=len, reverse=True):
                text = text.replace(path, self.shown[path])
            text = text if len(text) <= LONGEST else text[:LONGEST - 3] + "..."
            if text not in out:
                out.append(text)
        return out + ([f"(and {len(self.more)} more warnings of {self.frames})"]
                      if self.more else [])  # (its frames: two chunks' counts were one line)


class _Others(logging.Handler):
    """A scene's own warnings for ``into`` (:class:`Caught`): the root logger's and its
    module's (``logging.warning``, ``getLogger(__name__)``: were lost on Ray, shown by a
    local run), not hfrender's (caught on its logger, before a batch names its job) nor
    Ray's own."""

    def __init__(self, into: Caught) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.partition(".")[0] not in ("hfrender", "ray"):
            self.into.emit(record)


@contextmanager
def caught() -> Iterator[Caught]:
    """The warnings said while this lasts (by ``hfrender``'s loggers, as they say them:
    before a batch names its job): a handler on the ``hfrender`` logger, taken off after,
    an error too; its :attr:`Caught.texts` once this ends."""
    handler, top, root = Caught(), logging.getLogger("hfrender"), logging.getLogger()
    others = _Others(handler)
    top.addHandler(handler)
    root.addHandler(others)
    try:
        yield handler
    finally:
        top.removeHandler(handler)
        root.removeHandler(others)


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
