"""``hfrender fx``: effects on existing footage (the work is in :mod:`hfrender.engine.fx`)."""

from __future__ import annotations

import argparse
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
    from hfrender.engine.fx import FxSettings, run_fx
    from hfrender.optics import Lens

    if args.motion_blur is None and args.depth is None:
        raise ConfigError("nothing to do: give --motion-blur N and/or --depth DEPTH")
    window = 1 if args.motion_blur is None else args.motion_blur
    if window < 1:
        raise ConfigError(f"--motion-blur {window}: the window must be >= 1 frame")
    if args.stride < 1:
        raise ConfigError(f"--stride {args.stride}: must be >= 1")
    if args.depth_scale <= 0:
        raise ConfigError(f"--depth-scale {args.depth_scale}: must be > 0")
    if args.fps is not None and args.fps <= 0:
        raise ConfigError(f"--fps {args.fps}: must be > 0")
    lens = None
    if args.depth is not None:
        missing = [f for f, v in (("--focus-distance", args.focus_distance),
                                  ("--f-stop", args.f_stop)) if v is None]
        if missing:
            raise ConfigError(f"--depth needs {' and '.join(missing)}")
        try:
            lens = Lens(args.focus_distance, args.f_stop, args.focal_length_mm,
                        args.sensor_width_mm, args.max_coc_px)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    settings = FxSettings(window, args.stride, args.weights, not args.gamma_space, args.depth,
                          args.depth_scale, lens, args.backend, args.codec, args.fps)
    progress, finish = progress_bar(args.quiet)
    import signal

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        stats = run_fx(args.input, args.output, settings, progress)
    except KeyboardInterrupt as exc:
        finish()
        print("interrupted: nothing was written (the output appears only when complete)",
              file=sys.stderr)
        return EXIT_SIGTERM if isinstance(exc, Terminated) else EXIT_SIGINT
    finally:
        finish()
        signal.signal(signal.SIGTERM, previous)
    if not args.quiet:
        print(f"wrote {args.output}: {stats.frames_out} frames at {stats.fps_out:g} fps from "
              f"{stats.frames_in} at {stats.fps_in:g} fps")
    return 0


