"""``hfrender fx``: effects on existing footage (the work is in :mod:`hfrender.engine.fx`)."""

from __future__ import annotations

import argparse
import signal
import sys

from hfrender.cli.common import (
    EXIT_SIGINT,
    EXIT_SIGTERM,
    Terminated,
    on_sigterm,
    progress_bar,
)
from hfrender.config import ConfigError


def cmd_fx(args: argparse.Namespace) -> int:
    from hfrender.engine.fx import FxJob, FxSettings
    from hfrender.optics import Lens

    if args.motion_blur is None and args.depth is None:
        raise ConfigError("nothing to do: give --motion-blur N and/or --depth DEPTH")
    lens = None
    if args.depth is not None:
        missing = [f for f, v in (("--focus-distance", args.focus_distance),
                                  ("--f-stop", args.f_stop)) if v is None]
        if missing:
            raise ConfigError(f"--depth needs {' and '.join(missing)}")
        lens = Lens(args.focus_distance, args.f_stop, args.focal_length_mm,
                    args.sensor_width_mm, args.max_coc_px)
    settings = FxSettings(1 if args.motion_blur is None else args.motion_blur, args.stride,
                          args.weights, not args.gamma_space, args.depth, args.depth_scale,
                          lens, args.backend, args.codec, args.fps, args.workers, args.resume)
    progress, finish = progress_bar(args.quiet)
    job = FxJob(args.input, args.output, settings, progress)
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        stats = job.prepare().run()
    except KeyboardInterrupt as exc:
        finish()
        _interrupted(job.stats)
        return EXIT_SIGTERM if isinstance(exc, Terminated) else EXIT_SIGINT
    finally:
        finish()
        signal.signal(signal.SIGTERM, previous)
    if not args.quiet:
        if stats.resumed_at is not None:
            print(f"resumed at output frame {stats.resumed_at}")
        print(f"wrote {args.output}: {stats.total} frames at {stats.fps_out:g} fps from "
              f"{stats.frames_in} at {stats.fps_in:g} fps")
    return 0


def _interrupted(stats: object) -> None:
    if getattr(stats, "output_kept", False):
        again = "hfrender " + " ".join(sys.argv[1:])
        if "--resume" not in again.split():
            again += " --resume"
        print("interrupted: nothing was written to the output yet; the finished segments "
              f"are kept: continue with: {again}", file=sys.stderr)
    else:
        print("interrupted: nothing was written (the output appears only when complete)",
              file=sys.stderr)
