"""Exceptions that callers may want to tell apart from real bugs."""

from __future__ import annotations

import errno
import json
import math
import numbers
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import partial


class HFRenderError(Exception):
    """Base class of hfrender's own errors."""


class InputError(HFRenderError, ValueError):
    """Bad input: a value out of range, a file that cannot be used.

    The message is one line naming the value and what is allowed. A ``ValueError``, so
    callers that catch ``ValueError`` keep catching it; a plain ``ValueError`` raised
    inside hfrender is a bug, never this.
    """


class InputTypeError(InputError, TypeError):
    """Bad input of the wrong type (an array of a dtype hfrender does not take, ...).

    Also a ``TypeError``, so callers that catch ``TypeError`` keep catching it.
    """


class InputErrors(InputError):
    """Several bad inputs found together (the jobs of a jobs file, each checked): ``lines``,
    one line each (the same line once), the first of them first in the message."""

    def __init__(self, errors: list[BaseException]) -> None:
        self.lines = list(dict.fromkeys(first_line(e) for e in errors))
        super().__init__("\n".join(self.lines))


class BackendUnavailable(HFRenderError, RuntimeError):
    """A backend cannot run here (missing package, no device, not built for this input).

    ``backend="auto"`` catches this and falls back; a bug inside a backend is never
    turned into this exception.
    """


class ToolUnavailable(HFRenderError, RuntimeError):
    """A program or package this work needs is missing or broken here (ffmpeg, an optional
    package): the command says which and how to get it, before any work (exit 2)."""


def nearest(name: str, names: object, n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The ``n`` of ``names`` nearest ``name`` (difflib's ratio at least ``cutoff``),
    nearest first, whatever the case of either: what a "did you mean" offers."""
    import difflib

    folded: dict[str, str] = {}
    for known in names:  # type: ignore[attr-defined]
        folded.setdefault(str(known).lower(), str(known))
    return [folded[m] for m in difflib.get_close_matches(str(name).lower(), folded, n, cutoff)]


# options of the tools hfrender is compared with, far in spelling from hfrender's own
OTHER_TOOLS = {"width": ["size"], "height": ["size"], "resolution": ["size"], "res": ["size"],
               "frame-rate": ["fps"], "framerate": ["fps"], "frame_rate": ["fps"],
               "motion-blur-samples": ["samples"], "spp": ["samples"],
               "aperture": ["f-stop"], "fstop": ["f-stop"], "shutter-angle": ["shutter"],
               # Unreal's Movie Render Queue: its sub-frames, and the coverage of each
               # (was: --keep-samples, a folder's option, for either)
               "temporal-samples": ["samples"], "temporal-sample-count": ["samples"],
               "spatial-samples": ["msaa"], "spatial-sample-count": ["msaa"],
               "shutter-speed": ["shutter"]}
# what another tool's option measures otherwise than the one meant (a shutter speed's
# 48 is 1/48 s; --shutter 48 would be 48 degrees)
OTHER_UNITS = {"shutter-speed": "an angle in degrees: a shutter speed of 1/S s at F fps is "
                                "360 F / S (1/48 s at 24 fps: 180)"}


def units_note(name: str, offered: str) -> str:
    """`` (shutter is an angle in degrees: ...)`` after "did you mean ``offered``?" where
    another tool's ``name`` (dashes or underscores) measures otherwise; else ""."""
    units = OTHER_UNITS.get(name.replace("_", "-"))
    return f" ({offered} is {units})" if units else ""


def meant(name: str, known: list[str]) -> list[str]:
    """The options ``known`` (spelt with dashes) that a misspelt or another tool's ``name``
    may mean (another tool's that this command lacks, none: fx's --width is not its
    --depth)."""
    if name in OTHER_TOOLS:
        return [m for m in OTHER_TOOLS[name] if m in known]
    return nearest(name, known)


def unknown_key(where: str, raw: str, names: list[str], of: str = "") -> str:
    """The line for a key a file does not take, as a jobs file and ``hfrender.toml`` both
    say it: ``{where}: unknown field 'sampels'{of}; did you mean 'samples'?`` (``of``: `` for
    a render job``), with the units of another tool's name meant; ``; known: ...`` (``names``,
    spelt with dashes) where none is near (was hfrender.toml's "did you mean sampels ->
    samples?")."""
    head = f"{where}: unknown field {raw!r}{of}"
    near = meant(raw.replace("_", "-"), names)
    if near:
        return f"{head}; did you mean {near[0]!r}?{units_note(raw, near[0])}"
    return f"{head}; known: {', '.join(names)}"


def first_line(exc: BaseException) -> str:
    """The message's first line; for an error a Ray task raised, its cause's (Ray's own
    first line names only the task and its process)."""
    cause = getattr(exc, "cause", None)
    if "RayTaskError" in type(exc).__name__ and isinstance(cause, BaseException):
        exc = cause
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def out_of_memory(exc: BaseException) -> bool:
    """MemoryError, a backend's '...OutOfMemory...' (CuPy's), a thread that cannot start
    (what an address-space limit gives: was an internal error, a trial)."""
    return isinstance(exc, MemoryError) or "OutOfMemory" in type(exc).__name__ or \
        isinstance(exc, RuntimeError) and "can't start new thread" in str(exc)


# what the system says of a file a run cannot write as it goes (a full disk, a folder made
# read-only or replaced by a file under it, a file size limit): one line, not an "internal
# error"; in a batch, the job's (was a bug's traceback there, a trial)
SYSTEM_SAID = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EACCES,
               errno.EPERM, errno.EISDIR, errno.ENOTDIR, errno.EFBIG}  # (EFBIG: ulimit -f)


class SystemRefused(HFRenderError):
    """An OSError of :data:`SYSTEM_SAID` met midway, said as one line (-v: its traceback)."""


class LimitTooLow(HFRenderError, RuntimeError):
    """A limit of the shell's (``ulimit -n``) below what any run needs, refused up front."""


def too_few_open_files(limit: int, needed: int) -> LimitTooLow:
    """The line for a run refused up front: ``limit`` files open at once, ``needed``."""
    return LimitTooLow(
        f"this shell lets a process open at most {limit} files at once (ulimit -n {limit}); "
        f"an hfrender run needs {needed} (pipes to ffmpeg, fusion processes, segments, "
        "locks): raise it (ulimit -n 1024), then run the same command again")


def _open_files_said(exc: OSError) -> str:
    """What a run met out of open files midway says of the limit, and what to do."""
    if exc.errno == errno.ENFILE:
        return " (the whole system's limit, fs.file-max); run again once other programs close some"
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError):  # (Windows)
        soft = "its limit"
    return (f" (ulimit -n {soft}: this process's limit; its --workers open more); raise it "
            "(ulimit -n 1024), then run again")


def _too_large_said(exc: OSError, path: str | os.PathLike | None) -> str:
    """What a file too large (EFBIG) met: this process's file size limit, with its value
    (was "File too large" alone), where the file at ``path`` (else ``exc``'s) reached it;
    else the file system's largest file (was the limit's whenever one was set: a file
    system's own cap under a larger ulimit -f); both where the file's size is unknown."""
    if exc.errno != errno.EFBIG:
        return ""
    from hfrender.limits import NO_LIMIT, file_size_limit, file_size_limit_said

    limit, full = file_size_limit(), "more than this file system holds in one file"
    try:
        size: int | None = os.stat(path if path is not None else exc.filename).st_size
    except (OSError, TypeError, ValueError):  # (gone, or no file named)
        size = None
    if limit >= NO_LIMIT or (size is not None and size < limit):
        return f" ({full})"
    said = f"this process's file size limit: {file_size_limit_said()}"
    return f" ({said})" if size is not None else f" ({said}; or {full})"


def os_said(exc: OSError, path: str | os.PathLike | None = None) -> str:
    """What the system said of ``exc``, with the file size limit's value where the file
    (``path``, read before it is removed) reached it (``File too large (this process's
    file size limit: 4096 bytes (4.1 KB), ulimit -f 4)``; was "File too large" alone)."""
    return f"{exc.strerror or exc}{_too_large_said(exc, path)}"


def system_refused(exc: BaseException) -> SystemRefused | None:
    """``exc`` as one line where it is what the system says of a file (see above), or of
    too many open files, else None: ``cannot write A (-> B): No space left on device``."""
    if not isinstance(exc, OSError):
        return None
    where = " -> ".join(str(f) for f in (exc.filename, exc.filename2) if f)
    if exc.errno in (errno.EMFILE, errno.ENFILE):  # (an os.pipe's: no file named)
        said = SystemRefused(f"cannot open {where or 'a file or pipe'}: "
                             f"{exc.strerror or exc}{_open_files_said(exc)}")
    elif exc.errno in SYSTEM_SAID:
        said = SystemRefused(f"cannot write {where or 'a file'}: {os_said(exc)}")
    else:
        return None
    said.__cause__ = exc  # (what a batch's failed job reads: a remake's figures)
    return said


SHORT = {"output": "-o", "scene_class": "-s"}  # the flags a line names by their short form


@dataclass(frozen=True)
class Spelling:
    """How a message names a setting: as a flag (``--dof-method``, ``--dof depth``,
    ``--samples N``), as a keyword (``dof_method``, ``dof='depth'``, ``samples=N``) or as a
    jobs file's key (``toml``: ``dof-method``, ``max-length = 4``, ``max-length = N``);
    ``given(key)``: the setting and its value as typed where known (:func:`as_given`)."""

    flags: bool
    toml: bool = False
    given: Callable[[str], str | None] | None = field(default=None, compare=False)

    def name(self, key: str) -> str:
        dashed = key.replace("_", "-")
        return SHORT.get(key, "--" + dashed) if self.flags else dashed if self.toml else key

    def said(self, key: str, value: object) -> str:
        if self.toml:
            return f"{self.name(key)} = {toml_said(value)}"
        if not self.flags:  # a NumPy number as the number (was: shutter=np.float64(720.0))
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            return f"{key}={_number_said(float(value))}" if number and not isinstance(
                value, numbers.Integral) else f"{key}={int(value) if number else shown(value)}"
        return f"{self.name(key)} {value:g}" if isinstance(value, float) else \
            f"{self.name(key)} {value}"

    def on(self, key: str) -> str:
        """A switch turned on: ``--resume``, ``resume=True``, ``resume = true``."""
        return self.said(key, True) if self.toml else self.name(key) if self.flags \
            else f"{key}=True"

    def without(self, key: str, value: object) -> str:
        """The setting as "render without ..." names it: the flag alone (``--passes``), else
        with its value (``passes='depth'``, ``passes = "depth"``)."""
        return self.name(key) if self.flags else self.said(key, value)

    def form(self, key: str, placeholder: str) -> str:
        """The setting with a stand-in for its value: ``--samples N``, ``samples=N``,
        ``samples = N``."""
        return f"{self.name(key)} {'= ' * self.toml}{placeholder}" if self.flags or \
            self.toml else f"{key}={placeholder}"


FLAG, KEYWORD, TOML = Spelling(True), Spelling(False), Spelling(False, toml=True)


def shown(value: object) -> str:
    """``repr`` on one line, cut short: for error messages (NumPy's repr of an array is
    several lines: a ``window=`` given ``np.argwhere(...)`` was said over 9)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def about(kind: type[InputError], key: str, value: object, rest: str,
          head: str | None = None) -> InputError:
    """An error of ``kind`` about the setting ``key``: ``head`` (default ``key=value``, as
    the Python API spells it) then ``rest`` (`` must be ...``); a command or a file names it
    as its user gave it instead (:func:`as_given`)."""
    return saying(kind, partial(_headed, key, rest, head or f"{key}={shown(value)}"))


def _headed(key: str, rest: str, head: str, spell: Spelling) -> str:
    """An :func:`about` line as ``spell`` says it: its setting as typed, where known."""
    return (spell.given and spell.given(key) or head) + rest


def saying(kind: type[InputError], said: Callable[[Spelling], str],
           spell: Spelling = KEYWORD) -> InputError:
    """An error of ``kind`` saying ``said(spell)``, that :func:`as_given` says again as its
    caller names settings (``said`` picklable, a partial of module functions: Ray's)."""
    exc = kind(said(spell))
    exc.respell = said  # type: ignore[attr-defined]
    return exc


def as_given(exc: BaseException, given: Callable[[str], str | None] | None = None,
             spell: Spelling = KEYWORD) -> BaseException:
    """``exc`` (of :func:`saying`, or a Ray task's cause) saying settings as ``spell`` does,
    each as ``given(key)`` typed it where it says (``--fps 0``); else ``exc`` itself."""
    own = exc if hasattr(exc, "respell") else getattr(exc, "cause", None)
    said, spell = getattr(own, "respell", None), replace(spell, given=given)
    if said is None or said(spell) == str(own):
        return exc
    return saying(type(own), said, spell)  # type: ignore[arg-type]


_SPELLING: ContextVar[Spelling] = ContextVar("hfrender_spelling", default=FLAG)


def _number_said(value: float) -> str:
    """``value`` short (``720``) where that is the number, else in full (was ``:g`` alone:
    shutter=360.0000001 said "shutter=360: ... at most 360 degrees")."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def spelling() -> Spelling:
    """How this thread's messages name settings now: the command's flags, unless inside
    :func:`spelt` (``hf.render``/``hf.still``: the keywords their caller gave; was
    "give --samples 1" to a Python caller)."""
    return _SPELLING.get()


def output_said(output: object, what: str | None = None, key: str = "output") -> str:
    """An output as a line names it: after ``what`` (``--summary``, a jobs file's ``output``)
    where given, else as :func:`spelling` says the setting ``key``, ``-o out.mp4`` to a
    command and ``output='out.mp4'`` to hf.render (was ``-o`` to both; ``keep_samples``:
    ``--keep-samples s`` and ``keep_samples='s'``)."""
    return f"{what} {output}" if what is not None else spelling().said(key, str(output))


@contextmanager
def spelt(spell: Spelling) -> Iterator[None]:
    """Messages made inside name settings as ``spell`` does (:func:`spelling`)."""
    token = _SPELLING.set(spell)
    try:
        yield
    finally:
        _SPELLING.reset(token)


def as_typed(flag: str, text: str) -> str:
    """``flag`` and its value as a shell takes it: quoted where empty or holding a space
    (``--codec ''``, ``--samples 'a b'``; were ``--codec  must be``, the value unseen)."""
    return f"{flag} {shlex.quote(text)}"


def pastable(path: object) -> str:
    """``path`` as a shell takes it, for a line naming a file or folder to open, remove or
    give back: quoted where it holds a space, a ``#`` (a comment's start) or another
    character a shell reads (``'out/####.png.partial/%04d.png'``), else as it is (was: bare,
    pasted as ``out/`` alone)."""
    return shlex.quote(str(path))


def toml_said(value: object) -> str:
    """``value`` as a TOML file spells it (``true``, ``"a"``, ``[16, 4]``; was Python's
    ``True``, ``'a'``), for the line that names a key of a file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # (TOML's basic strings escape so)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(map(toml_said, value))}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_said(v)}" for k, v in value.items()) + "}"
    if isinstance(value, int) and abs(value) > sys.float_info.max:  # (was its 401 digits)
        return digits_said(value)
    return str(value)  # ints, floats, dates as TOML writes them


def digits_said(value: int) -> str:
    """An int too long to say in full by its first digits and length: ``100000... (401
    digits)`` (:func:`hfrender.numeric.number_said`'s, for one past a float's range)."""
    return f"{str(value)[:6]}... ({len(str(abs(value)))} digits)"
