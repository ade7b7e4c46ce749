"""What the commands share: exit codes, Ctrl-C and SIGTERM as interruptions, the progress
bar, the check that a chosen encoder starts."""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import stat
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError
from hfrender.engine.render_checks import (  # noqa: F401 - the commands' own, re-exported
    auto_or_int,
    check_encoder,
    check_scene_path,
)
from hfrender.engine.stopped import kept_apart  # noqa: F401 - the commands' own, re-exported
from hfrender.errors import (  # noqa: F401 - the commands' own, re-exported
    SYSTEM_SAID,
    HFRenderError,
    SystemRefused,
    as_typed,
    first_line,
    system_refused,
)
from hfrender.io.sequence_names import home_path
from hfrender.io.sequence_names import sequence_name as _sequence_name

EXIT_USAGE, EXIT_FAILED, EXIT_SIGINT, EXIT_SIGTERM, EXIT_SIGHUP = 2, 1, 130, 143, 129


def printable_streams() -> None:
    """stdout and stderr write what their encoding lacks as escapes (a name in UTF-8 on an
    ASCII terminal, ``PYTHONIOENCODING=ascii``): a report never fails on an output's name
    once the output is written. Where Python already passes a file name's undecodable
    bytes through (``surrogateescape``: its C locale), they stay as they are."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop like Ctrl-C (finish what was drawn, finalise), exit 143."""


class HungUp(Terminated):
    """SIGHUP, the terminal closed: stop as SIGTERM does, exit 129."""


BACKEND_HELP = "fusion backend (auto; or the HFRENDER_BACKEND environment variable)"
# the stop asked for inside sigterm_interrupts(), if any: what raised it, kept even where a
# library the work called swallowed the exception (a batch then stops between its jobs)
_asked: list[type[KeyboardInterrupt]] = []


def stop_asked() -> type[KeyboardInterrupt] | None:
    """``KeyboardInterrupt`` or :class:`Terminated` once Ctrl-C or SIGTERM came."""
    return _asked[0] if _asked else None


def on_sigterm(signum, frame):  # noqa: ANN001 - signal handler signature
    stop = HungUp if signum == getattr(signal, "SIGHUP", None) else Terminated
    if stop is HungUp:
        _terminal_gone()
    _asked.append(stop)
    raise stop()


def _terminal_gone() -> None:
    """stdout and stderr that were the closed terminal go to /dev/null: what the run says
    from here on (its progress bar's end, the partial output kept) would fail there (EIO),
    and the run ended as a failure, exit 1, not 129 (a log or a pipe stays as it is)."""
    for fd in (1, 2):
        try:  # (a hung-up terminal is no longer a tty to isatty: a character device)
            if stat.S_ISCHR(os.fstat(fd).st_mode):
                os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
        except OSError:
            pass


STOPPING = "stopping after the work in progress (Ctrl-C again to stop at once)"


def on_sigint(signum, frame):  # noqa: ANN001 - signal handler signature
    """The first Ctrl-C: said at once (the frames being fused may take a while to finish,
    and a silent terminal looks hung), then stops the work; the next one stops it as
    Python does."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _asked.append(KeyboardInterrupt)
    # (a line of its own after a progress bar; in a log, no blank line before it)
    print(("\n" if sys.stderr.isatty() else "") + STOPPING, file=sys.stderr, flush=True)
    raise KeyboardInterrupt


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Inside the block SIGTERM stops the work like Ctrl-C (:class:`Terminated`), and the
    first Ctrl-C says so at once (:func:`on_sigint`; not where Ctrl-C is ignored or handled
    by the program embedding this one); the previous handlers come back after it."""
    _asked.clear()
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    own_int = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    previous_int = signal.signal(signal.SIGINT, on_sigint) if own_int else None
    hup = getattr(signal, "SIGHUP", None)  # as SIGTERM, unless ignored (nohup)
    own_hup = hup is not None and signal.getsignal(hup) == signal.SIG_DFL
    previous_hup = signal.signal(hup, on_sigterm) if own_hup else None
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if own_int:
            signal.signal(signal.SIGINT, previous_int)
        if own_hup:
            signal.signal(hup, previous_hup)


_COMPLETE = {"done": False}


def complete(done: bool = True) -> None:
    """The command's output is in place: a Ctrl-C from here on (in its last line, or as it
    returns) changes nothing, and :func:`hfrender.cli.main` exits 0 (was: 130, or a
    traceback, in the 0.1 s after "wrote ..."). ``done=False``: a new command begins."""
    _COMPLETE["done"] = done


def was_complete() -> bool:
    return _COMPLETE["done"]


def finished_anyway(stats: Any, output: str) -> None:
    """The line for a Ctrl-C that came once every frame was in: the work in progress was
    the rest of the output, so it is complete (and the command succeeds)."""
    complete()
    if getattr(stats, "stopped_late", False):
        print(f"hfrender: the interruption came after the last frame was made: {output} is "
              "complete", file=sys.stderr)


def interrupted_code(exc: KeyboardInterrupt) -> int:
    """The exit status of an interrupted command: 143 for SIGTERM, 129 for SIGHUP, 130
    for Ctrl-C."""
    if isinstance(exc, HungUp):
        return EXIT_SIGHUP
    return EXIT_SIGTERM if isinstance(exc, Terminated) else EXIT_SIGINT


def output_notes(stats: Any) -> str:
    """How a summary says the sub-frames were float (``--hdr``, and why where auto chose
    it), and that the output keeps alpha (``--transparent``, or a scene's background
    None)."""
    alpha = ", transparent" if getattr(stats, "transparent", False) else ""
    if not getattr(stats, "hdr", False):
        return alpha
    why = stats.hdr_why
    return (", hdr" if why.startswith("--hdr") else f", hdr ({why})") + alpha


def ray_retries(stats: Any) -> str:
    """How a Ray summary says what was done again: chunks Ray ran again (their worker lost),
    hyperframes the workers split for memory ("" where none: was never said, a leftover)."""
    said = ""
    if stats.reruns:  # runs, not chunks: one chunk run twice more is 2 (the gate's count)
        said += ("; Ray ran a chunk again (a worker lost)" if stats.reruns == 1 else
                 f"; Ray ran chunks again {stats.reruns} times (workers lost)")
    if stats.retries:
        said += (f"; {stats.retries} hyperframe{'' if stats.retries == 1 else 's'} split "
                 "for memory")
    return said


def output_name(text: str, what: str = "a file (out.mp4) or frames (frames/%05d.png)") -> str:
    """A path that is not empty (``-o ''`` was called a folder: the current one, as the
    path library has it; ``what``: what to name instead)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is an empty path; name {what}")
    return home_path(text)  # (-o=~/out.mp4: no shell expanded it)


def ray_address(text: object) -> None:
    """``--ray``'s value refused where it is blank (``--ray "$ADDR"``, the variable unset:
    was run here, unsaid); ``--ray`` alone is Ray started here."""
    if isinstance(text, str) and not text.strip():
        raise ConfigError(f"{as_typed('--ray', text)}: no address; give a cluster's ('auto' "
                          "or HOST:PORT), or --ray alone for a Ray started here")


def empty_path(flag: str, text: object, form: str) -> None:
    """A path given empty (or blank) refused as ``--summary '': an empty path; name a file:
    --summary FILE`` (``form``; was taken, nothing written, unsaid)."""
    if isinstance(text, str) and not text.strip():
        raise ConfigError(f"{as_typed(flag, text)}: an empty path; name a file: {form}")


def sequence_name(text: str) -> str:
    """``-o``'s type: :func:`output_name`, then
    :func:`hfrender.io.sequence_names.sequence_name`."""
    return _sequence_name(output_name(text))


# a value argparse takes for an option (it reads only "-5" and "-1.5" as numbers)
_DASHED_VALUE = re.compile(r"-\d[\d.]*[,:x].*")


def dashed_values_joined(argv: Sequence[str]) -> list[str]:
    """``--focus-pixel -1,5`` as ``--focus-pixel=-1,5`` (``--frames -5:10``, and a negative
    number argparse takes for an option, ``--shutter -inf``, ``--duration -1e3``, the same),
    so that the option's own check names the value and what is allowed, not argparse's
    "expected one argument"."""
    out: list[str] = []
    for arg in argv:
        prev = out[-1] if out else ""
        if ((_DASHED_VALUE.fullmatch(arg) or _negative_number(arg)) and prev.startswith("-")
                and "=" not in prev
                and len(prev) > 1 and not prev[1].isdigit()):
            out[-1] = f"{prev}={arg}" if prev.startswith("--") else prev + arg
        else:
            out.append(arg)
    return out


def _negative_number(word: str) -> bool:
    """Whether ``word`` is a negative number as Python reads one (``-inf``, ``-nan``,
    ``-1e3``), which argparse takes for an option unless it is ``-1`` or ``-0.5``."""
    try:
        float(word)
    except ValueError:
        return False
    return word.startswith("-")


def batch_file_first(argv: Sequence[str]) -> list[str]:
    """``batch --ray jobs.toml``: a batch's options given before its jobs file go after it,
    where the batch reads them (was: "unrecognized arguments: --ray", a batch user's
    trial). The jobs file: the first word after ``batch`` that names a ``.toml``, or else
    the first that names a file that is there (``jobs`` of no suffix: was "unrecognized
    arguments", a leftover), and is no option's value (a review: ``--summary more.toml
    shots.toml`` ran more.toml and wrote its summary over shots.toml; ``--depth d.png
    shots`` read d.png as the jobs file); one after ``--ray`` (its address optional) last."""
    out = list(argv)
    at = next((i for i, w in enumerate(out) if not w.startswith("-")), None)
    if at is None or out[at] != "batch":
        return out
    words = [i for i in range(at + 1, len(out))
             if not out[i].startswith("-") and not _takes_value(out[i - 1])]
    there = sorted((i for i in words if os.path.isfile(out[i])),
                   key=lambda i: out[i - 1] == "--ray")  # (--ray auto: a file named auto)
    file = next((i for i in words if out[i].lower().endswith(".toml")), next(iter(there), None))
    if file is None or file == at + 1:
        return out
    return out[:at + 1] + [out[file]] + out[at + 1:file] + out[file + 1:]


def _takes_value(word: str) -> bool:
    """Whether a batch's option ``word`` (``--samples``, not ``--samples=4``) takes the
    next word as its value (``cli.batch_words.overrides_of``): not a flag (``--jitter``)."""
    from hfrender.engine.batch import FX_OPTIONS, RENDER_OPTIONS

    key = word[2:].replace("-", "_")
    kind = RENDER_OPTIONS.get(key, FX_OPTIONS.get(key))
    return word.startswith("--") and "=" not in word and (key == "summary" or
                                                          kind not in (None, bool))


def ray_alone_before_a_file(argv: Sequence[str]) -> list[str]:
    """``--ray scene.py -o x.mp4``: ``--ray`` alone, the file the command's (argparse took
    the file as the address, then asked for FILE). A Ray address is never a file there,
    nor a frame pattern."""
    out = list(argv)
    command = next((w for w in out if not w.startswith("-")), None)
    if command not in ("render", "fx"):  # batch reads its own --ray, after the jobs file
        return out
    for i, arg in enumerate(out[:-1]):
        after = out[i + 1]
        if arg == "--ray" and (os.path.exists(after) or "%" in after or "#" in after):
            out[i] = "--ray=local"
    return out


PLAIN = "hfrender: %(levelname)s: %(message)s"  # the command line's log lines
VERBOSE = "%(levelname)s %(name)s: %(message)s"  # -v's


class Said(logging.Formatter):
    """A warning as ``hfrender: warning: ...``, like an error's line (with -v, the level
    and the logger's name, as before). Another library's record with a traceback is one
    line too, its name and the exception's words after its own (trimesh without scipy:
    ``hfrender: warning: trimesh: unable to use sparse matrix, falling back!
    (ModuleNotFoundError: No module named 'scipy')``, was that and 12 lines of traceback);
    -v keeps the traceback, and so does a user's own code (:func:`installed`)."""

    def format(self, record: logging.LogRecord) -> str:
        if self._fmt.startswith("hfrender: "):
            fields = {**record.__dict__, "levelname": record.levelname.lower()}
            library = record.name.partition(".")[0]
            if record.exc_info and library != "hfrender" and installed(record.pathname):
                fields.update(msg=f"{library}: {record.getMessage()}"
                                  f"{briefly(record.exc_info[1])}",
                              args=None, exc_info=None, exc_text=None, stack_info=None)
            record = logging.makeLogRecord(fields)
        return super().format(record)


def installed(path: str) -> bool:
    """Whether ``path`` (a log record's source file) is an installed package's or the
    standard library's (``concurrent.futures``'): a user's own code (a scene, a script:
    ``root``, ``__main__``) keeps its traceback."""
    if any(part in ("site-packages", "dist-packages") for part in Path(path).parts):
        return True
    paths = sysconfig.get_paths()
    return any(path.startswith(paths[k] + os.sep) for k in ("stdlib", "platstdlib"))


def briefly(exc: BaseException | None) -> str:
    """`` (Kind: its first line)`` of an exception, after a library's words."""
    if exc is None:
        return ""
    words = str(exc).strip().splitlines()
    return f" ({type(exc).__name__}{': ' + words[0] if words else ''})"


def in_processes(count: int) -> str:
    """Where the fusion ran, when not in the command's own process (--fusion-process)."""
    if not count:
        return ""
    return " in a child process" if count == 1 else f" in {count} child processes"


def per_frame(fps: float | None) -> str:
    """A summary's speed: ``30.8 frames/s``, or under a frame a second ``127.7 s a frame``
    (was ``0.0 frames/s`` for a 4K frame, a trial)."""
    if not fps:
        return "no frame made"
    return f"{fps:.1f} frames/s" if fps >= 1 else f"{1 / fps:.1f} s a frame"
