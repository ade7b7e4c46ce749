"""``hfrender fx``: effects on existing footage (the work is in :mod:`hfrender.engine.fx`)."""

from __future__ import annotations

import argparse
import sys

from hfrender.cli.common import (
    auto_or_int,
    check_encoder,
    interrupted_code,
    progress_bar,
    sigterm_interrupts,
)
from hfrender.config import ConfigError
from hfrender.errors import InputError
from hfrender.frame_range import n_frames
from hfrender.io.encoding import Encoding

# the depth-of-field options, which mean something only with --depth
LENS_FLAGS = (("--focus-distance", "focus_distance"), ("--f-stop", "f_stop"),
              ("--focal-length-mm", "focal_length_mm"), ("--sensor-width-mm", "sensor_width_mm"),
              ("--max-coc-px", "max_coc_px"), ("--aperture-blades", "aperture_blades"),
              ("--depth-scale", "depth_scale"), ("--depth-zero-is-sky", "depth_zero_is_sky"),
              ("--dof-method", "dof_method"))


def _as_flags(message: str) -> str:
    """A :class:`hfrender.optics.Lens` error in the command line's words: ``f_stop=0.0``
    becomes ``--f-stop 0.0``."""
    for flag, dest in LENS_FLAGS:
        message = message.replace(f"{dest}=", f"{flag} ")
    return message


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def cmd_fx(args: argparse.Namespace) -> int:
    from hfrender.engine.fx import FxJob, FxSettings
    from hfrender.optics import Lens, check_blades

    lens = None
    if args.depth is None:
        given = [flag for flag, dest in LENS_FLAGS if getattr(args, dest) is not None]
        if given:
            one = len(given) == 1
            names = given[0] if one else f"{', '.join(given[:-1])} and {given[-1]}"
            raise ConfigError(f"{names} {'applies' if one else 'apply'} only with --depth DEPTH "
                              "(depth of field from a depth pass): give --depth, or leave "
                              f"{'it' if one else 'them'} out")
        if args.motion_blur is None:
            raise ConfigError("nothing to do: give --motion-blur N and/or --depth DEPTH")
    else:
        missing = [f for f, v in (("--focus-distance", args.focus_distance),
                                  ("--f-stop", args.f_stop)) if v is None]
        if missing:
            raise ConfigError(f"--depth needs {' and '.join(missing)}")
        try:
            lens = Lens(args.focus_distance, args.f_stop, _or(args.focal_length_mm, 50.0),
                        _or(args.sensor_width_mm, 36.0), args.max_coc_px,
                        check_blades("--aperture-blades", _or(args.aperture_blades, 0)))
        except InputError as exc:  # the library's names (focus_distance=2) as flags
            raise InputError(_as_flags(str(exc))) from None
    settings = FxSettings(1 if args.motion_blur is None else args.motion_blur, args.stride,
                          args.weights, not args.gamma_space, args.depth,
                          _or(args.depth_scale, 1.0), lens, args.backend, args.codec, args.fps,
                          auto_or_int("workers", _or(args.workers, "auto")), args.resume,
                          _or(args.dof_method, "fast"),
                          args.crf, args.preset, args.bitrate, args.pix_fmt,
                          bool(args.depth_zero_is_sky))
    # the footage's size is not known yet
    check_encoder(args.output, args.codec, encoding=Encoding.of(settings))
    progress, finish = progress_bar(args.quiet, "fx")
    if args.ray:
        from hfrender.engine.cluster_fx import ClusterFx

        job = ClusterFx(args.input, args.output, settings,
                        None if args.ray == "local" else args.ray, progress)
    else:
        job = FxJob(args.input, args.output, settings, progress)
    with sigterm_interrupts():
        try:
            stats = job.prepare().run()
        except KeyboardInterrupt as exc:
            finish()
            _interrupted(job.stats)
            return interrupted_code(exc)
        finally:
            finish()
    if args.quiet:
        return 0
    if args.ray:
        print(f"wrote {args.output}: {n_frames(stats.frames)} on Ray ({stats.workers} CPUs), "
              f"{stats.segments_made} segments made, {stats.segments_reused} reused; "
              f"{stats.seconds:.1f} s")
        return 0
    if stats.resumed_at is not None:
        print(f"resumed at output frame {stats.resumed_at}")
    print(f"wrote {args.output}: {n_frames(stats.total)} at {stats.fps_out:g} fps from "
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
