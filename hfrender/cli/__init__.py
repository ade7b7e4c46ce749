"""The ``hfrender`` command: parses, resolves config, dispatches. No rendering logic here.

The commands live in :mod:`hfrender.cli.commands` (info, render, still), :mod:`.bench` and
:mod:`hfrender.cli.fx`.
"""

from __future__ import annotations

import os

# The command blends with NumPy and never calls BLAS, but OpenBLAS starts a thread per core
# when NumPy loads and spins them for a while: ~0.1 s of CPU a run, taken from the video
# encoder on a small machine. Set before NumPy loads (hfrender/__init__ does not load it).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from contextlib import AbstractContextManager as ContextManager  # noqa: E402
from contextlib import nullcontext  # noqa: E402
from typing import NoReturn  # noqa: E402

import hfrender  # noqa: E402
from hfrender.cli.batch import cmd_batch  # noqa: E402
from hfrender.cli.bench import BENCH_IGNORES, cmd_bench  # noqa: E402
from hfrender.cli.commands import cmd_render  # noqa: E402
from hfrender.cli.common import (  # noqa: E402
    EXIT_FAILED,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_USAGE,
    PLAIN,
    VERBOSE,
    Said,
    Terminated,
    batch_file_first,
    complete,
    dashed_values_joined,
    first_line,
    interrupted_code,
    printable_streams,
    ray_alone_before_a_file,
    sequence_name,
    system_refused,
    was_complete,
)
from hfrender.cli.docs import add_parser as add_docs_parser  # noqa: E402
from hfrender.cli.fx import add_parser as add_fx_parser  # noqa: E402
from hfrender.cli.habits import SIZE_FLAGS, ffmpeg_options, habit_hints  # noqa: E402
from hfrender.cli.info import cmd_info  # noqa: E402
from hfrender.cli.options import (  # noqa: E402
    encoder_options,
    flag_said,
    fps_arg,
    number,
    render_options,
)
from hfrender.cli.reexpose import add_parser as add_reexpose_parser  # noqa: E402
from hfrender.cli.still import cmd_still, picture_name  # noqa: E402
from hfrender.errors import (  # noqa: E402
    FLAG,
    BackendUnavailable,
    HFRenderError,
    InputError,
    LimitTooLow,
    ToolUnavailable,
    as_given,
    meant,
    too_few_open_files,
    units_note,
)
from hfrender.io.sequence_names import home_path  # noqa: E402
from hfrender.limits import OPEN_FILES_NEEDED, open_files_limit  # noqa: E402
from hfrender.renderer.contexts import ContextUnavailable  # noqa: E402

__all__ = ["EXIT_FAILED", "EXIT_SIGINT", "EXIT_SIGTERM", "EXIT_USAGE", "Terminated",
           "build_parser", "main"]


# options of another command, not this one's: what they are (was: "did you mean
# --preset?" for fx's --preview)
ELSEWHERE = {"preview": "--preview is a render's window of its frames; this command shows none",
             "keep-samples": "--keep-samples is a render's: this command keeps no sub-frames"}
# the lens options of footage and sample stores, on a scene's command: where its lens is
SCENE_COMMANDS = ("render", "still", "bench")
CAMERA = {o: f"a scene's lens is its camera's: self.camera.{o.replace('-', '_')} in setup() "
             f"or update(t) (--{o} is {whose})" for o, whose in (
                 ("f-stop", "fx's, for footage, and reexpose's"),
                 ("focus-distance", "fx's, for footage, and reexpose's"),
                 ("aperture-blades", "fx's, for footage"),
                 ("focal-length-mm", "fx's, for footage"))}


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line, as hfrender's own are (not the whole
    usage first), with the nearest option for a misspelt one. A long option's prefix is not
    taken for it (was: ``--res 160x90`` read as ``--resume``, "unrecognized arguments:
    160x90"): a shortened name is told its option."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def parse_known_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201
        self.argv = list(sys.argv[1:] if args is None else args)  # (its habits' hints)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        words = message.partition("unrecognized arguments: ")[2].split()
        known = [o[2:] for o in self._option_string_actions if o.startswith("--")]
        names = [w[2:].partition("=")[0] for w in words if w.startswith("--")]
        command = self.prog.split()[-1] if " " in self.prog else ""
        told = {**ELSEWHERE, **(CAMERA if self.prog.split()[-1] in SCENE_COMMANDS else {})}
        other = [told[n] for n in names if n in told and n not in known]
        sized = "size" in known and command in SCENE_COMMANDS  # (its hint: habits.py)
        near = [f"--{m}" for n in names if n not in ELSEWHERE
                and not (sized and f"--{n}" in SIZE_FLAGS)
                for m in meant(n, known)]  # (not their dashes)
        near = list(dict.fromkeys(near + ffmpeg_options(words, known, command)))  # once each
        units = "".join(units_note(n, near[0]) for n in names[:1] if near)
        hint = "".join(f"; {h}" for h in other[:1]) + (
            f"; did you mean {', '.join(near)}?{units}" if near else "") + "".join(
            f"; {h}" for h in habit_hints(message, words, known, command,
                                          getattr(self, "argv", None)))
        # one prefix for every refusal, argparse's and hfrender's own (was "hfrender fx:
        # error: argument ..." beside "hfrender: error: --crf x: ..."); the command's --help
        self.exit(EXIT_USAGE, f"hfrender: error: {message}{hint} (see {self.prog} --help)\n")


def _open_files_checked(command: str | None) -> None:
    """A run refused up front, in one line, where this shell's ``ulimit -n`` is below what
    a run needs (was: "no ffmpeg on this machine", or an internal error's traceback from a
    pipe opened midway); a lower soft limit raised to it where the hard one allows."""
    if command in (None, "info", "docs"):
        return
    before, now = open_files_limit()
    if now < OPEN_FILES_NEEDED:
        raise too_few_open_files(now, OPEN_FILES_NEEDED)
    if now != before:
        logging.getLogger("hfrender.cli").info(
            "open files: raised the soft limit from %d to %d (ulimit -n)", before, now)


def _holding(args: argparse.Namespace) -> ContextManager[None]:
    """The output an fx or reexpose writes, held for the run (one writer at a time:
    :func:`hfrender.io.output_lock.output_lock`; a render holds its own once its settings are
    resolved: ``-o`` may come from hfrender.toml), and what it reads (no writer meanwhile:
    :func:`hfrender.io.output_lock.input_lock`); refused first where too few files may be
    open (:func:`_open_files_checked`)."""
    from hfrender.io.output_lock import fx_sources, holding

    _open_files_checked(getattr(args, "command", None))
    output = getattr(args, "output", None)  # render's: its config's (cmd_render)
    if args.command not in ("fx", "reexpose") or not output:
        return nullcontext()
    if args.command == "reexpose":
        return holding(output, [("STORE", args.store)])
    return holding(output, fx_sources(args.input, args.depth, args.vectors))


VERBOSE_HELP = "log what hfrender decides; an error's traceback too"  # before or after COMMAND
# (was unsaid in --help, where the defaults it changes are stated; docs/rendering.md said it)
PROJECT_DEFAULTS = ("The defaults stated above are hfrender's own: an hfrender.toml in the "
                    "current folder changes them (its [render] table, keys the long options' "
                    "names: fps = 24), and a flag given here overrides it.")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hfrender",
        description="Physically based motion blur and depth of field, fused in hyperframes.",
    )
    parser.add_argument("--version", action="version", version=f"hfrender {hfrender.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser("info", help="show GL contexts, fusion backends, ffmpeg and versions",
                          description="What this machine offers hfrender: its OpenGL "
                          "contexts (and MSAA), fusion backends, CPU cores, memory, "
                          "ffmpeg and its encoders, and versions.")
    info.set_defaults(func=cmd_info)

    r = sub.add_parser("render", help="render a scene script or a Shadertoy-style shader",
                       description="Render FILE (a Python scene or a .frag shader) to a video.",
                       epilog=PROJECT_DEFAULTS)
    r.add_argument("-o", "--output", default=None, type=sequence_name,
                   help=".mp4 .mov .mkv .ts .webm .gif, or frames/%%05d.png (or %%05d.exr: "
                        "linear light) (default out.mp4)")
    render_options(r)
    encoder_options(r)
    r.add_argument("--frames", default=None, metavar="START:END",
                   help="render only output frames START..END-1 (either side may be empty: "
                        "10: or :20); a video of them starts at time 0, PNG files keep "
                        "their frame numbers")
    r.add_argument("--keep-samples", default=None, metavar="DIR", type=home_path,
                   help="also keep every sub-frame in a sample store DIR, to expose it "
                        "again later (hfrender reexpose): render over the widest shutter "
                        "you may want")
    r.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="render the segments as Ray tasks: on a Ray started here (no "
                        "ADDRESS), or on a cluster ('auto' or its address)")
    r.set_defaults(func=cmd_render)

    _still_parser(sub)

    _bench_parser(sub)
    add_fx_parser(sub, encoder_options, fps_arg)
    _batch_parser(sub)
    add_reexpose_parser(sub, encoder_options)
    add_docs_parser(sub)
    for command in sub.choices.values():  # -v after the command too (hfrender render -v ...)
        command.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                             help=VERBOSE_HELP)
    return parser


def _still_parser(sub: argparse._SubParsersAction) -> None:
    st = sub.add_parser("still", help="render one frame to a PNG or EXR (optionally beside "
                        "the same frame without effects)",
                        description="Render one output frame of FILE (frame 0 unless -t or "
                        "-f) to a PNG or EXR, with the effects a render of the same options "
                        "gives it.", epilog=PROJECT_DEFAULTS)
    st.add_argument("-o", "--output", default="still.png", type=picture_name,
                    help="PNG (8 or 16 bits: --bit-depth) or EXR (linear light) to write "
                         "(still.png)")
    when = st.add_mutually_exclusive_group()
    when.add_argument("-t", "--time", type=number(float), default=None, metavar="S",
                      help="the frame at this time, in seconds (0)")
    when.add_argument("-f", "--frame", type=number(int), default=None, metavar="N",
                      help="output frame N (at the render's fps; frame N is at N/fps s)")
    st.add_argument("--compare", action="store_true",
                    help="put the frame without effects (pinhole, instant shutter) on the left")
    render_options(st, video=False)
    st.add_argument("--passes", default=None, metavar="LIST",
                    help="not in a still, one picture: render the frame alone for its EXR "
                         "with passes (hfrender render FILE --frames N:N+1 -o "
                         "frames/%%04d.exr --passes LIST)")
    st.set_defaults(func=cmd_still)


def _bench_parser(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", help="throughput, latency and memory over granularity x "
                       "fusion workers, best marked",
                       description="Render FILE at each granularity (--outputs) x fusion "
                       "workers (--grid-workers), its frames discarded, and print each "
                       "cell's throughput, latency and memory, the best marked, beside the "
                       "default's.")
    b.add_argument("--frames", type=number(int), default=48, metavar="N",
                   help="output frames per cell (48)")
    b.add_argument("--outputs", default="1,2,4,8,16", metavar="LIST",
                   help="granularities to try, in output frames per hyperframe (1,2,4,8,16)")
    b.add_argument("--grid-workers", default="1,2", metavar="LIST",
                   help="fusion worker counts to try (1,2)")
    b.add_argument("--repeats", type=number(int), default=1, metavar="N",
                   help="runs per cell, the best kept (1; at most 100)")
    b.add_argument("--plot", metavar="PNG", help="also plot fps per granularity (matplotlib)")
    render_options(b)
    for action in b._actions:  # parsed, to say what to give instead (cmd_bench); not shown
        if action.dest in BENCH_IGNORES:
            action.help = argparse.SUPPRESS
        elif action.dest == "quiet":
            action.help = "no progress bar (the figures are printed)"
    b.set_defaults(func=cmd_bench, output="bench.mp4")


def _batch_parser(sub: argparse._SubParsersAction) -> None:
    bt = sub.add_parser("batch", help="run the render and fx jobs of a jobs file",
                        description="Run every job of JOBS (TOML: [defaults] and [[job]] "
                        "entries). Options (before or after the file) override it for every "
                        "job; --summary FILE writes the results as JSON; --ray [ADDRESS] "
                        "runs the jobs' chunks on a Ray cluster (alone: a Ray started here; "
                        "auto: the one 'ray start' began); --quiet; --dry-run: what a run "
                        "would do with each job now, doing nothing (exit 1: one would fail).")
    bt.add_argument("jobs", metavar="JOBS", help="a jobs file (.toml)")
    bt.add_argument("options", nargs=argparse.REMAINDER, metavar="...",
                    help="--summary FILE, --ray [ADDRESS], --quiet, --dry-run, and overrides "
                    "such as --samples 4")
    bt.set_defaults(func=cmd_batch)


EXIT_SIGPIPE = 141  # the shell's status of a process whose output pipe closed
MAX_ERRORS = 20  # lines of errors found together (a jobs file's): the rest counted


def main(argv: Sequence[str] | None = None) -> int:
    complete(False)
    printable_streams()
    root = logging.getLogger()
    level = root.level  # (-v's INFO put back after: main called in a process, a later call
    try:  #                logged INFO; a test's capture, a tool's own logging)
        return _main(argv)
    except KeyboardInterrupt as exc:  # before (or after) a command's own handling of it
        if was_complete():  # its output in place already: nothing was stopped
            return 0
        print(f"hfrender: interrupted{_in_scene(exc)}", file=sys.stderr)
        return interrupted_code(exc)
    except BrokenPipeError:  # stdout's reader went (hfrender info | head): quietly, as ls
        _quiet_stdout()  # Python's own flush at exit would fail on it again
        return EXIT_SIGPIPE
    finally:
        root.setLevel(level)


def _in_scene(exc: KeyboardInterrupt) -> str:
    """`` in loop.py:9, update(t=1.967)`` where a Ctrl-C stopped the scene's own code (a
    still of a scene that hangs), else ``""``."""
    loader = sys.modules.get("hfrender.scene.loader")  # (none: no scene ran)
    place = loader.stopped_place(exc) if loader is not None else ""
    return f" in {place}" if place else ""


def _scene_typed(exc: BaseException, words: Sequence[str]) -> BaseException:
    """A scene name the file lacks, named as typed (``--scene X``, ``-s ''``; was "FILE: no
    Scene named 'X'", the flag unnamed); any other error as it is."""
    loader = sys.modules.get("hfrender.scene.loader")  # (loaded where it was raised)
    if loader is None or not isinstance(exc, loader.SceneError):
        return exc
    return as_given(exc, lambda key: flag_said(words, key) if key == "scene" else None,
                    spell=FLAG)


def _quiet_stdout() -> None:
    """stdout sent to /dev/null from here on (a pipe gone, a full disk)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a captured stdout)
        pass


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words = batch_file_first(ray_alone_before_a_file(
        dashed_values_joined(sys.argv[1:] if argv is None else argv)))
    args, extra = parser.parse_known_args(words)
    args.words = words  # (a bad value named as typed: cli.options.flags_as_given)
    if extra:  # told by the command's own parser: it knows the options to suggest
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        own = commands.choices.get(getattr(args, "command", None) or "", parser)
        own.error(f"unrecognized arguments: {' '.join(extra)}")
    said = logging.StreamHandler()  # stderr, as the errors
    said.setFormatter(Said(VERBOSE if args.verbose else PLAIN))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        handlers=[said])
    if not getattr(args, "func", None):  # usage, as an error is (was: on stdout)
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        with _holding(args):
            try:
                return int(args.func(args))
            except OSError as exc:  # a full disk, a folder changed under the run: one line
                refused = None if was_complete() else system_refused(exc)
                if refused is None:
                    raise
                raise refused from exc
    except HFRenderError as exc:  # hfrender's own: one line (-v: the traceback too)
        exc = _scene_typed(exc, words)
        if args.verbose:
            traceback.print_exception(exc, file=sys.stderr)
        lines = getattr(exc, "lines", None) or [first_line(exc)]  # InputErrors: each one
        if args.verbose:  # a shader's compile errors: each one (one line without -v)
            lines = getattr(exc, "errors", None) or lines
        for line in lines[:MAX_ERRORS]:
            print(f"hfrender: error: {line}", file=sys.stderr)
        if len(lines) > MAX_ERRORS:
            print(f"hfrender: error: and {len(lines) - MAX_ERRORS} more", file=sys.stderr)
        refused = (InputError, ContextUnavailable, BackendUnavailable, ToolUnavailable,
                   LimitTooLow)
        return EXIT_USAGE if isinstance(exc, refused) else EXIT_FAILED
    except MemoryError as exc:  # what the checks up front could not foresee
        if args.verbose:
            traceback.print_exception(exc, file=sys.stderr)
        print("hfrender: error: out of memory: this process may not use more; lower --size, "
              "--samples or --granularity (or --workers)", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:
        raise
    except Exception as exc:  # anything else (a plain ValueError too) is a bug in hfrender
        if isinstance(exc, OSError) and was_complete():  # the report, not the work, failed
            print(f"hfrender: error: the output is complete, but its report could not be "
                  f"printed: {exc.strerror or exc}", file=sys.stderr)
            _quiet_stdout()  # (Python's own flush at exit would fail on it again)
            return EXIT_FAILED
        traceback.print_exception(exc, file=sys.stderr)
        print(f"hfrender: internal error: {type(exc).__name__}: {first_line(exc)} — this is a "
              "bug in hfrender; please report it with the command and the traceback above",
              file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
