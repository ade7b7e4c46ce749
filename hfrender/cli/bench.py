"""``hfrender bench``: a scene rendered at each granularity x fusion workers, its frames
discarded (the work is in :mod:`hfrender.engine.bench`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hfrender.backends import get_backend
from hfrender.cli.commands import _config_from
from hfrender.cli.common import check_scene_path, empty_path, interrupted_code
from hfrender.cli.options import flag_said
from hfrender.config import MAX_GRANULARITY, ConfigError
from hfrender.errors import as_typed
from hfrender.frame_range import n_frames
from hfrender.progress import progress_bar

MAX_REPEATS = 100  # runs per cell: past it, a grid that runs for days

# render options that bench would take and do nothing with: what to give instead
BENCH_IGNORES = {
    "codec": "bench discards its frames, no encoder runs: leave it out",
    "audio": "bench writes no video to give sound: leave it out",
    "audio_offset": "bench writes no video to give sound: leave it out",
    "resume": "bench writes no video to resume: leave it out",
    "preview": "bench shows no frames: leave it out",
    "stats": "bench prints its own figures: leave it out",
    "granularity": "bench tries its own: give --outputs (output frames per hyperframe)",
    "workers": "bench tries its own: give --grid-workers",
    "bit_depth": "bench discards its frames, no file is written: leave it out",
    "passes": "bench discards its frames, no file is written: leave it out",
}


def cmd_bench(args: argparse.Namespace) -> int:
    from hfrender.engine import bench
    from hfrender.engine.render_setup import usable_cores

    _none_ignored(args)
    bar, args.quiet = not args.quiet, True  # -q: no bar (the cells render quietly anyway)
    config = _config_from(args)
    check_scene_path(args.file)
    # a word: the text (cli.options.number); --repeats past the top was taken (a grid that
    # never ends), and below 1 said "must be an integer >= 1": one flag, one line now
    if not isinstance(args.frames, int) or args.frames < 1:
        raise ConfigError(f"{as_typed('--frames', str(args.frames))} must be an integer >= 1")
    if not isinstance(args.repeats, int) or not 1 <= args.repeats <= MAX_REPEATS:
        raise ConfigError(f"{as_typed('--repeats', str(args.repeats))} must be an integer "
                          f"from 1 to {MAX_REPEATS} (runs per cell, the best kept)")
    outputs = _int_list("outputs", args.outputs)
    _check_outputs(outputs, config)
    # (was: checked after the header, as "workers=99 ... or 'auto'")
    workers = _int_list("grid-workers", args.grid_workers, top=64)
    empty_path("--plot", args.plot, "--plot PNG")
    if args.plot:  # checked before the grid runs, not after
        from hfrender.engine.bench import pyplot

        pyplot()
    asked, args.frames = args.frames, _frames_there(args, config)
    cut = f" (the scene's all; --frames {asked} asked)" if args.frames < asked else ""
    noisy = " (one run a cell: --repeats 3 steadies the figures)" if args.repeats == 1 else ""
    fusion = get_backend(config.backend).name  # (was "fusion auto": which one, unsaid)
    print(f"{Path(args.file).name}: {args.frames} frames{cut} {config.size[0]}x"
          f"{config.size[1]} x {config.samples} samples, fusion {fusion}{noisy}", flush=True)
    progress, finish = progress_bar(not bar, "benchmarking")
    cells: list[bench.Cell] = []  # filled cell by cell: what a Ctrl-C leaves measured
    try:
        try:
            cells, auto, plan = bench.run_grid(args.file, config, args.frames, outputs,
                                               workers, args.scene, args.repeats, progress,
                                               cells)
        finally:
            finish()
    except KeyboardInterrupt as exc:  # (was "hfrender: interrupted", every figure lost)
        return _interrupted(cells, config, len(outputs) * len(workers) + 1, exc)
    except ConfigError as exc:  # a cell's pool too large: said as the --outputs it came from
        raise _refused(exc, cells, config, outputs[len(cells) // len(workers):]) from None
    print(bench.table(cells, auto, plan))
    best = max([*cells, auto], key=lambda c: c.fps)  # auto too: the default, if it is
    # the figures are this machine's (was: unsaid, the GL renderer and the cores alike)
    print(f"measured on {best.machine or 'an unnamed GL renderer'}, "
          f"{n_frames(usable_cores(), 'CPU core')}")
    grain = "" if best is auto else f"--granularity {best.granularity} "
    # the options alone (a command line printed lacked the bench's -s, --size, ...)
    print(f"fastest here: {grain}--workers {best.workers}"
          + (" (granularity auto, the default)" if best is auto else "")
          + ", beside the render settings benched")
    if args.plot:
        bench.plot(cells, auto, args.plot)
        print(f"wrote {args.plot}")
    return 0


def _check_outputs(outputs: list[int], config: Any) -> None:
    """Each ``--outputs`` a granularity hfrender takes (was: the header, then
    "granularity=800000000 must be an integer from 1 to 1048576", an option bench refuses)."""
    from hfrender.engine import bench

    plan = bench.grid_plan(config)
    most = (MAX_GRANULARITY - plan.overlap) // plan.step
    for m in outputs:
        if m > most:
            raise ConfigError(f"--outputs {m}: at most {most} output frames a hyperframe of "
                              f"{MAX_GRANULARITY} sub-frames ({plan.step} an output frame)")


def _refused(exc: ConfigError, cells: list[Any], config: Any, left: list[int]) -> ConfigError:
    """A cell's refusal (its pool past memory) after the cells measured (printed), said
    as the ``--outputs`` value it came from, to lower (was: "lower --granularity", an
    option bench refuses)."""
    if "lower --granularity" not in str(exc) or not left:  # another refusal: as it is
        return exc
    _measured(cells, config)
    said = str(exc).replace("lower --granularity", "lower --outputs")
    return ConfigError(f"--outputs {left[0]}: {said}")


def _measured(cells: list[Any], config: Any) -> None:
    """The table of the cells measured before the grid stopped (none: nothing)."""
    from hfrender.engine import bench

    if cells:
        print(bench.table(cells, None, bench.grid_plan(config)), flush=True)


def _interrupted(cells: list[Any], config: Any, cells_in_all: int,
                 exc: KeyboardInterrupt) -> int:
    """The cells measured before a Ctrl-C (their table, the best of them marked) and one
    line that says how many of the grid's they are; the exit status of an interrupt."""
    _measured(cells, config)
    print(f"interrupted: {len(cells)} of {cells_in_all} cells measured"
          + (" (above; auto's cell not)" if cells else ""), file=sys.stderr)
    return interrupted_code(exc)


def _frames_there(args: argparse.Namespace, config: Any) -> int:
    """``--frames`` (a count, from frame 0), at most the scene's (was: "frames 0..47:
    nothing to render" after the header, for a scene of 15)."""
    from hfrender.scene.loader import load_scene

    seconds = config.duration or load_scene(args.file, args.scene).duration
    return min(args.frames, config.frame_count(seconds))


def _none_ignored(args: argparse.Namespace) -> None:
    """A render option bench would take and do nothing with refused, named as typed
    (``--codec ''``: was ``--codec :``), with what to give instead."""
    for key, instead in BENCH_IGNORES.items():
        value = getattr(args, key)
        if value not in (None, False):
            flag = f"--{key.replace('_', '-')}"
            given = flag if value is True else flag_said(getattr(args, "words", None), key) or \
                as_typed(flag, str(value))
            raise ConfigError(f"{given}: {instead}")


def _int_list(name: str, text: str, top: int | None = None) -> list[int]:
    """``--NAME 1,2,4``'s integers, each >= 1 (and at most ``top``); one line if not (an
    empty item too: ``1,,2`` was taken as ``1,2``)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1 or (top is not None and max(values) > top):
        most = f" and <= {top}" if top is not None else ""
        raise ConfigError(f"{as_typed('--' + name, text)} must be a comma-separated list of "
                          f"integers >= 1{most}")
    return values
