"""A Ray chunk's warnings carried back to its driver: a worker's log is its own (Ray's
``log_to_driver`` is off), so what a render there warns of (a scene's own warning in
``update(t)``, its ``warnings.warn``, a font's missing glyph, the motion hint) was seen by
no one. The task catches its log's warnings and Python's (:func:`caught`) and returns them
with its result, or with its error (:func:`carried`), or with its stop
(:func:`stopped_with`); the driver says each distinct one once (:class:`Told`), a failed
render's before its error."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hfrender.logs import is_silenced

CARRIED = 20  # a chunk's distinct warnings carried back, at most (then a count of the rest)
LONGEST = 2000  # characters of one, at most

log = logging.getLogger("hfrender.engine.cluster")
CARRIED_ON = "hf_warnings"  # an error's attribute: the warnings its chunk said before it


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
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not format
            text = str(record.msg)
        self.add(text)

    def warned(self, message: Warning | str, category: type[Warning], filename: str,
               lineno: int, file: object = None, line: str | None = None) -> None:
        """A ``warnings.warn``'s first line as a local run prints it: ``shot.py:12:
        UserWarning: the bulb hums`` (its file named as :attr:`shown` says)."""
        self.add(f"{filename}:{lineno}: {category.__name__}: {message}")

    def add(self, text: str) -> None:
        """``text`` said, unless said already or while :func:`~hfrender.logs.silenced`."""
        if is_silenced() or text in self.said:
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
        self.named(folder, shown_as)
        self.frames = f"frames {first}-{first + count - 1}"

    def named(self, folder: str, shown_as: str) -> None:
        """The folder ``folder`` (and a file in it) named as ``shown_as`` in :attr:`texts`
        (the driver's scene folder as its chunks name it: their warnings are its own)."""
        self.shown.update({folder + os.sep: shown_as, folder: shown_as.rstrip(os.sep) or "."})

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
    before a batch names its job; a scene's loggers; ``warnings.warn``, still shown as it
    was): a handler on the ``hfrender`` logger, taken off after, an error too; its
    :attr:`Caught.texts` once this ends, and on an error raised through it
    (:func:`carried`: a failed or stopped chunk's were lost)."""
    handler, top, root = Caught(), logging.getLogger("hfrender"), logging.getLogger()
    others = _Others(handler)
    with warnings.catch_warnings():  # (showwarning put back after)
        warnings.showwarning = _shown_by(handler, warnings.showwarning)
        top.addHandler(handler)
        root.addHandler(others)
        try:
            yield handler
        except BaseException as exc:
            _carry(exc, handler.texts)
            raise
        finally:
            top.removeHandler(handler)
            root.removeHandler(others)


def _shown_by(handler: Caught, show: Callable[..., None]) -> Callable[..., None]:
    """``warnings.showwarning`` that tells ``handler``, then shows as ``show`` did."""
    def shown(*args: object, **kwargs: object) -> None:
        handler.warned(*args, **kwargs)
        show(*args, **kwargs)
    return shown


def _carry(exc: BaseException, texts: list[str]) -> None:
    if texts:
        try:  # (picklable: Ray sends the error back with them)
            setattr(exc, CARRIED_ON, texts)
        except (AttributeError, TypeError):  # an error that takes no attribute: as it is
            pass


def carried(exc: BaseException) -> list[str]:
    """The warnings a chunk said before ``exc`` (:func:`caught`), read from Ray's wrapping
    of it (a ``RayTaskError``'s ``cause``) too; [] for none."""
    said = getattr(exc, CARRIED_ON, None)
    if said is None:
        said = getattr(getattr(exc, "cause", None), CARRIED_ON, None)
    return list(said or ())


def stopped_with(texts: list[str]) -> dict:
    """What a chunk told to stop gives back (:func:`.ray_wait.gated`): no work, the
    warnings it said before; :func:`is_stopped` knows it."""
    return {"stopped": True, "warnings": texts}


def is_stopped(result: object) -> bool:
    """Whether a task's ``result`` is a stopped chunk's (:func:`stopped_with`)."""
    return isinstance(result, dict) and result.get("stopped") is True


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
