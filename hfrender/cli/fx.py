"""``hfrender fx``: effects on existing footage (the work is in :mod:`hfrender.engine.fx`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from typing import Any

from hfrender.backends import CHOICES
from hfrender.cli.common import (
    BACKEND_HELP,
    auto_or_int,
    check_encoder,
    finished_anyway,
    first_line,
    interrupted_code,
    kept_apart,
    ray_address,
    ray_retries,
    sequence_name,
    sigterm_interrupts,
)
from hfrender.cli.options import flag_said, flags_as_given, number
from hfrender.config import DOF_METHODS, ConfigError
from hfrender.disparity import KINDS
from hfrender.errors import FLAG, HFRenderError, as_given
from hfrender.frame_range import n_frames
from hfrender.io.container_fit import codec_warned
from hfrender.io.depth_fit import RESIZES
from hfrender.io.encoding import Encoding
from hfrender.io.sequence_names import check_output_name, files_said, is_picture
from hfrender.progress import progress_bar
from hfrender.shutter_curve import CURVES, SHUTTER


def add_parser(sub: argparse._SubParsersAction, encoder_options: Any,
               fps: Callable[[str], float]) -> None:
    """``hfrender fx`` and its options (``encoder_options``: --crf and the others, as
    render has them; ``fps``: the type of ``--fps``)."""
    fx = sub.add_parser("fx", help="motion blur / depth of field on existing footage",
                        description="Apply motion blur and depth of field to a video, a "
                        "PNG sequence or an EXR sequence (streamed: never the whole clip in "
                        "memory).")
    fx.add_argument("input", metavar="INPUT", type=sequence_name,
                    help="a video file, or frames/%%05d.png (or frames/#####.png, or the "
                         "folder of one sequence: PNG, EXR, TIFF or JPEG; one PNG file: one "
                         "frame), or "
                         "frames/%%04d.exr: float linear light, kept as float into -o "
                         "out/%%04d.exr (16-bit codes into PNG, video)")
    fx.add_argument("-o", "--output", required=True, type=sequence_name,
                    help=".mp4 .mov .mkv .ts .webm .gif, or out/%%05d.png (one frame: "
                         "out.png)")
    g = fx.add_argument_group("motion blur")
    g.add_argument("--motion-blur", type=number(int), default=None, metavar="N",
                   help="blend windows of N frames")
    g.add_argument("--stride", type=number(int), default=1, metavar="S",
                   help="frames between windows (default 1: keep the frame rate and "
                        "count, like tmix; S: output fps = input fps / S; --stride N with "
                        "--motion-blur N: a 360-degree shutter)")
    g.add_argument("--weights", choices=CURVES, default="box",
                   help="the weights of a window's N frames (box)")
    g.add_argument("--vectors", metavar="VECTORS", type=sequence_name, default=None,
                   help="blur each frame along its own motion vectors: EXR frames with "
                        "forward.u/forward.v (hfrender render --passes velocity, Nuke) or "
                        "Blender's Vector pass, Z from the same files when present "
                        "(frames/%%04d.exr: the footage's own files will do)")
    g.add_argument("--shutter", type=number(float), default=None, metavar="DEG",
                   help="with --vectors: degrees the shutter is open, centred on each frame "
                        f"({SHUTTER:g})")
    g.add_argument("--max-length", type=number(float), default=None, metavar="PX",
                   help="with --vectors: clamp longer vectors to PX pixels a frame, keeping "
                        "their direction (default: no clamp)")
    g.add_argument("--gamma-space", action="store_true",
                   help="blend code values as ffmpeg tmix does, the depth of field's too "
                        "(default: linear light)")
    _dof_options(fx.add_argument_group("depth of field (from a depth pass)"))
    o = fx.add_argument_group("engine and output")
    o.add_argument("--backend", choices=CHOICES, default=None,
                   help=BACKEND_HELP)
    o.add_argument("--codec", default=None, help="any ffmpeg encoder (video outputs only)")
    o.add_argument("--fps", type=fps, default=None,
                   help="frame rate of an image sequence (30; 30000/1001 or 29.97); for a "
                   "video, the rate its frames are read at instead of its own (conformed: "
                   "a raw stream's, a mislabelled file's)")
    o.add_argument("--workers", default=None, metavar="auto|N",
                   help="fusion threads (auto: 2 with --depth on 2+ cores, else 1)")
    o.add_argument("--resume", action="store_true",
                   help="continue an interrupted run of the same settings (video outputs "
                        "and image sequences)")
    o.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="encode the segments as Ray tasks: on a Ray started here (no "
                        "ADDRESS), or on a cluster ('auto' or its address)")
    o.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    encoder_options(fx)
    fx.set_defaults(func=cmd_fx)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _dof_options(d: Any) -> None:
    """fx's depth-of-field options, into the argument group ``d``."""
    d.add_argument("--depth", metavar="DEPTH", type=sequence_name,
                   help=".npy/.npz, or a 16-bit PNG or EXR sequence (a folder or "
                        "depth/%%05d.png); one frame ((H, W) or (1, H, W) .npy, one image) "
                        "serves all")
    # None: not given (they need --depth); the defaults apply in hfrender.cli.fx
    d.add_argument("--depth-scale", type=number(float), default=None,
                   help="multiply depth values to get metres (1; 0.001 for millimetres)")
    d.add_argument("--depth-range", default=None, metavar="NEAR,FAR",
                   help="a depth pass normalised to 0..1 (Blender's Map Range or Normalize): "
                        "its 0 is NEAR metres, its 1 (white) FAR")
    d.add_argument("--depth-zero-is-sky", action="store_true", default=None,
                   help="read depth 0 as sky (a depth sensor's or a PNG's 'no reading')")
    d.add_argument("--depth-kind", choices=KINDS, default=None,
                   help="distance (default: metres from the camera) or disparity: a depth "
                        "estimator's relative inverse depth (near is large), blurred by "
                        "--max-blur and focused by --focus-pixel or --focus-disparity")
    d.add_argument("--focus-disparity", type=number(float), default=None, metavar="D",
                   help="with --depth-kind disparity: the disparity in focus (an integer "
                        "map's scaled to 0..1)")
    d.add_argument("--max-blur", type=number(float), default=None, metavar="PX",
                   help="with --depth-kind disparity: the largest circle of confusion's "
                        "diameter over the first frame, in pixels (the same scale for every "
                        "frame)")
    d.add_argument("--depth-resize", choices=RESIZES, default=None,
                   help="scale a depth pass of another size (a depth estimator's) to the "
                        "footage: nearest keeps edges hard, linear smooths slopes (in 1/z)")
    d.add_argument("--focus-distance", type=number(float), default=None, metavar="M",
                   help="distance in focus, in metres (inf: focused at infinity)")
    d.add_argument("--focus-pixel", default=None, metavar="X,Y",
                   help="focus each frame on its depth at this pixel (autofocus on a point; "
                        "instead of --focus-distance)")
    real = number(float)
    d.add_argument("--f-stop", type=real, default=None, metavar="N", help="aperture, e.g. 2.8")
    d.add_argument("--focal-length-mm", type=real, default=None, metavar="MM",
                   help="the lens's focal length (50)")
    d.add_argument("--sensor-width-mm", type=real, default=None, metavar="MM",
                   help="the width of the sensor (36), the frame's, with the focal length "
                        "the field of view")
    d.add_argument("--max-coc-px", type=number(float), default=None, metavar="PX",
                   help="cap the blur diameter (bounds its cost)")
    d.add_argument("--aperture-blades", type=number(int), default=None, metavar="N",
                   help="bokeh shape: 0 round (default), 3-64 a polygon of N blades")
    d.add_argument("--dof-method", choices=DOF_METHODS, default=None,
                   help="fast: depth layers blurred by FFT, cost nearly independent of the "
                        "blur (default; on a GPU the gather where that is sooner); exact: the "
                        "gather, the reference (cost grows with the blur squared)")


def _lens(args: argparse.Namespace):  # noqa: ANN202 - a Lens or None
    """The lens --depth's options make (None without --depth: none of them may be given)."""
    from hfrender.engine.fx_settings import DEPTH_OPTIONS, depth_lens
    from hfrender.lens_args import focus_pixel

    if args.depth is None:
        given = [FLAG.name(k) for k in DEPTH_OPTIONS if getattr(args, k) is not None]
        if given:
            one = len(given) == 1
            names = given[0] if one else f"{', '.join(given[:-1])} and {given[-1]}"
            raise ConfigError(f"{names} {'applies' if one else 'apply'} only with --depth DEPTH "
                              "(depth of field from a depth pass): give --depth, or leave "
                              f"{'it' if one else 'them'} out")
        return None
    if args.focus_pixel is not None:
        args.focus_pixel = focus_pixel(args.focus_pixel, FLAG)
    return depth_lens(vars(args), FLAG.name)


@flags_as_given
def _settings(args: argparse.Namespace):  # noqa: ANN202 - an FxSettings
    """fx's settings of its flags, a bad value named as typed (``--f-stop 0``; was the
    setting's, ``--f-stop 0.0``, ``--aperture-blades=2``)."""
    from hfrender.engine.fx import FxSettings
    from hfrender.engine.fx_settings import check_needs, parse_range

    lens = _lens(args)
    check_needs({"shutter": args.shutter, "max_length": args.max_length,  # (as given:
                 "vectors": args.vectors}, FLAG.name)
    # FxSettings takes --shutter 180 alone for its default)
    if lens is None and args.motion_blur is None and args.vectors is None:
        raise ConfigError("nothing to do: give --motion-blur N (or --vectors VECTORS) and/or "
                          "--depth DEPTH")
    return FxSettings(1 if args.motion_blur is None else args.motion_blur, args.stride,
                      args.weights, not args.gamma_space, args.depth,
                      _or(args.depth_scale, 1.0), lens, args.backend, args.codec, args.fps,
                      auto_or_int("workers", _or(args.workers, "auto")), args.resume,
                      _or(args.dof_method, "fast"),
                      args.crf, args.preset, args.bitrate, args.pix_fmt,
                      bool(args.depth_zero_is_sky), args.focus_pixel, args.depth_resize,
                      None if args.depth_range is None else parse_range(args.depth_range,
                                                                        "--depth-range"),
                      _or(args.depth_kind, "distance"), args.focus_disparity, args.max_blur,
                      args.vectors, _or(args.shutter, SHUTTER), args.max_length)


def cmd_fx(args: argparse.Namespace) -> int:
    from hfrender.engine.fx import FxJob

    check_output_name(args.output)  # (was: -o out.mp4/ wrote out.mp4)
    ray_address(args.ray)  # (--ray '': was run here, unsaid)
    settings = _settings(args)
    if not is_picture(args.output):  # (one picture's: as a sequence's, when it is opened)
        # the footage's size is not known yet
        check_encoder(args.output, args.codec, encoding=Encoding.of(settings))
    codec_warned(args.output, args.codec)
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
            _interrupted(job.stats, args.output)
            return interrupted_code(exc)
        except HFRenderError as exc:  # the one line says where the frames made are, its
            said = as_given(exc, lambda key: flag_said(getattr(args, "words", None), key),
                            spell=FLAG)  # settings named as flags, as typed (was: 'give
            # max_length=', 'depth not found: abc')
            if not getattr(job.stats, "partial", None):
                if said is exc:
                    raise
                raise said from exc
            raise type(said)(f"{first_line(said)}; {_kept(job.stats, args.output)}") from exc
        finally:
            finish()
    finished_anyway(stats, args.output)
    if args.quiet:
        return 0
    if args.ray:
        print(f"wrote {args.output}: {n_frames(stats.frames)} on Ray ({stats.workers} CPUs), "
              f"{stats.segments_made} segment{'' if stats.segments_made == 1 else 's'} made, "
              f"{stats.segments_reused} reused; "
              f"{stats.seconds:.1f} s{ray_retries(stats)}")
        return 0
    if stats.resumed_at is not None:
        print(f"resumed at output frame {stats.resumed_at}")
    rate = (f"at a variable rate (about {stats.fps_in:.3g} fps)" if stats.variable_in else
            f"at {stats.fps_in:g} fps") + (", each at its frame's time" if stats.variable else "")
    out_rate = f"about {stats.fps_out:.3g}" if stats.variable else f"{stats.fps_out:g}"
    print(f"wrote {files_said(args.output, stats.first, stats.total)}: "
          f"{n_frames(stats.total)} at {out_rate} fps from "
          f"{stats.frames_in} {rate}")
    return 0


def _kept(stats: Any, output: str) -> str:
    return kept_apart(stats.frames_kept, stats.partial, output)


def _interrupted(stats: object, output: str) -> None:
    again = "hfrender " + shlex.join(sys.argv[1:])
    if "--resume" not in sys.argv[1:]:
        again += " --resume"
    if getattr(stats, "partial", None):
        print(f"interrupted: {_kept(stats, output)}; continue with: {again}", file=sys.stderr)
    elif getattr(stats, "output_kept", False):  # (was: "nothing was written to the
        from hfrender.io.segments import frames_in_segments  # output yet", the frames unsaid)

        kept = frames_in_segments(output)
        print(f"interrupted: the {n_frames(kept)} in whole segments {'is' if kept == 1 else 'are'}"
              f" kept ({output} is not written yet): continue with: {again}", file=sys.stderr)
    else:
        print("interrupted: nothing was written (the output appears only when complete)",
              file=sys.stderr)
