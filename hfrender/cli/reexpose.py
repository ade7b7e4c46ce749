"""``hfrender reexpose STORE -o OUTPUT``: a kept render exposed again (another shutter, and
with depth another focus) without rendering."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from hfrender.cli.common import (
    BACKEND_HELP,
    auto_or_int,
    check_encoder,
    complete,
    in_processes,
    interrupted_code,
    kept_apart,
    sequence_name,
    sigterm_interrupts,
)
from hfrender.cli.options import flags_as_given, number
from hfrender.config import FUSION_PROCESS, RenderConfig
from hfrender.engine.settings import shutter_in_frames
from hfrender.errors import HFRenderError, first_line
from hfrender.frame_range import n_frames
from hfrender.io.encoding import Encoding
from hfrender.io.sequence_names import check_output_name, files_said, home_path
from hfrender.progress import progress_bar
from hfrender.sampler import POSITIONS
from hfrender.shutter_curve import CURVES

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction, encoder_options: Any) -> None:
    rx = sub.add_parser("reexpose", help="expose a kept render again: another shutter or "
                        "focus, without rendering",
                        description="Fuse the sub-frames kept by hfrender render ... "
                        "--keep-samples STORE again, with another shutter (at most the "
                        "store's) and, for a store with depth, another focus.")
    rx.add_argument("store", metavar="STORE", type=home_path, help="a sample store folder")
    rx.add_argument("-o", "--output", required=True, type=sequence_name,
                    help=".mp4 .mov .mkv .ts .webm .gif, or frames/%%05d.png (or "
                    "frames/#####.png), or frames/%%05d.exr (linear light)")
    rx.add_argument("--shutter", type=number(float), default=None, metavar="DEG",
                    help="shutter angle (default: the store's; at most the store's)")
    rx.add_argument("--shutter-position", choices=POSITIONS, default=None,
                    help="where the shutter opens (default: the store's)")
    rx.add_argument("--shutter-curve", choices=CURVES, default=None,
                    help="the shutter's weights over time (default: the store's)")
    rx.add_argument("--focus-distance", type=number(float), default=None, metavar="M",
                    help="refocus (a store with depth), metres; inf: at infinity")
    rx.add_argument("--f-stop", type=number(float), default=None, metavar="N",
                    help="another aperture (a store with depth)")
    rx.add_argument("--dof-method", choices=("fast", "exact"), default="fast",
                    help="a store with depth: its depth of field by fast, depth layers "
                         "blurred by FFT, or exact, the gather (fast)")
    rx.add_argument("--backend", default=None, choices=("auto", "cpu", "cuda"),
                    help=BACKEND_HELP)
    rx.add_argument("--codec", default=None, help="any ffmpeg encoder")
    rx.add_argument("--workers", default="auto", metavar="auto|N",
                    help="fusion workers: child processes (--fusion-process), else threads "
                         "(auto: 2; nothing is drawn, they have the cores)")
    rx.add_argument("--bit-depth", type=number(int), default=None, metavar="8|16|32",
                    help="image sequences: PNG 8 (default) or 16 bits; EXR 16 (half, "
                         "default) or 32 (float)")
    rx.add_argument("--fusion-process", choices=FUSION_PROCESS, default="auto",
                    help="fuse on the CPU in a child process per worker (auto: where the "
                         "store is defocused or reconstructed, over 64 sub-frames are used, "
                         "with 2+ cores)")
    rx.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    encoder_options(rx)
    rx.set_defaults(func=cmd_reexpose)


def cmd_reexpose(args: argparse.Namespace) -> int:
    from hfrender.engine.deep_output import render_dtype
    from hfrender.engine.exposure import check_exposure
    from hfrender.engine.reexpose import Exposure, SampleStore
    from hfrender.engine.render_output import RenderOutput
    from hfrender.io.outputs import check_partial_free, check_writable
    from hfrender.io.sequence_commit import check_frames_there
    from hfrender.io.store_target import check_not_inside
    from hfrender.io.writers import check_output

    workers = auto_or_int("workers", args.workers)  # (was: auto refused, named in errors)
    args.workers = 2 if workers == "auto" else workers
    check_output_name(args.output)  # (was: -o out.mp4/ wrote out.mp4)
    store = SampleStore.open(args.store)
    check_not_inside(args.store, args.output)
    s = store.settings
    config = flags_as_given(lambda a: RenderConfig(  # (was: --crf 'x', the value's repr)
        output=a.output, fps=s["fps"], size=tuple(store.size), codec=a.codec,
        workers=a.workers, quiet=a.quiet, crf=a.crf, preset=a.preset, bitrate=a.bitrate,
        pix_fmt=a.pix_fmt, transparent=bool(s.get("transparent")),
        bit_depth=a.bit_depth))(args)  # (bit depth: was none; 8-bit PNG, half EXR)
    dtype = render_dtype(config)  # (--bit-depth for a video refused, before any work;
    # a video of more than 8 bits takes 16-bit frames)
    if Path(args.output).suffix.lower() == ".exr" and not s.get("hdr"):
        log.warning("%s holds 8-bit sub-frames (rendered without --hdr): the EXR's light "
                    "stops at white", args.store)
    exposure = Exposure(args.shutter, args.shutter_position, args.shutter_curve,
                        args.focus_distance, args.f_stop)
    flags_as_given(lambda _: check_exposure(s, exposure))(args)  # (was: --f-stop 0.0)
    if args.shutter is not None:
        shutter_in_frames(args.shutter)
    check_output(config.output, config.size, config.codec, alpha=config.transparent,
                 pix_fmt=config.pix_fmt, alpha_from=f"{args.store} (a --transparent render)",
                 size_of="the store's",  # (was: "one picture: hfrender still", of scenes)
                 every_frame="; reexpose exposes every frame the store holds")
    check_encoder(config.output, config.codec, config.size, config.fps,
                  encoding=Encoding.of(config))
    check_partial_free(config.output)
    check_writable(config.output)  # (was: an internal error for -o /proc/x.mp4)
    gop = max(1, round(s["fps"]))  # a keyframe a second
    first = int(s["first_frame"])  # a store of --frames A:B: PNG files keep their numbers
    check_frames_there(config.output, first, int(s["frames"]))  # (a user's picture there,
    # another sequence's frame: as a render refuses them, a review)
    out = RenderOutput(config, {"reexpose": str(args.store), **exposure.__dict__}, None, gop,
                       1, first + s["frames"], first)
    figures = _expose(args, store, exposure, out, dtype)
    if isinstance(figures, int):  # interrupted: its exit status
        return figures
    complete()
    if not args.quiet:
        used, kept = figures["used"], figures["subframes"]
        where = ", fused" + in_processes(figures["processes"]) if figures["processes"] else ""
        print(f"wrote {files_said(args.output, first, figures['frames'])}: "  # (was the
              f"{n_frames(figures['frames'])} from "  # pattern, exr/%04d.exr: no file)
              f"{f'{used} of the ' if used < kept else ''}{kept} kept sub-frames"
              f"{' (reconstructed)' if figures['reconstructed'] else ''}"
              f"{', hdr' if s.get('hdr') else ''}{_exposed(exposure)}; "
              f"{figures['seconds']:.1f} s{where}")
    return 0


def _exposed(e: Any) -> str:
    """What the exposure changed, as said after the figures: ``, shutter 90 degrees,
    focus 2 m, f/2`` (nothing: as kept)."""
    said = [f"shutter {e.shutter:.10g} degrees" if e.shutter is not None else "",
            f"shutter position {e.position}" if e.position is not None else "",
            f"{e.curve} shutter curve" if e.curve is not None else "",
            "" if e.focus_distance is None else "focus at infinity"
            if e.focus_distance == float("inf") else f"focus {e.focus_distance:.10g} m",
            f"f/{e.f_stop:.10g}" if e.f_stop is not None else ""]
    return "".join(f", {part}" for part in said if part)


def _expose(args: argparse.Namespace, store: Any, exposure: Any, out: Any,
            dtype: Any) -> dict | int:
    """The exposure written through ``out``: its figures, or the exit status of a Ctrl-C
    (said with where the frames made are); an error names them too."""
    from hfrender.engine.reexpose import run_exposure
    from hfrender.io.goes_on import goes_on

    progress, finish = progress_bar(args.quiet, "reexposing")
    with sigterm_interrupts():
        try:
            figures = run_exposure(store, exposure, out.writer, backend=args.backend,
                                   workers=args.workers, dof_method=args.dof_method,
                                   progress=progress, dtype=dtype,
                                   processes=args.fusion_process)
            out.finish()
            return figures
        except KeyboardInterrupt as exc:
            out.abandon()
            finish()
            print("interrupted: " + (kept_apart(out.frames, out.partial, args.output) +
                                     "; run the same command again to expose it whole"
                                     if out.partial else "nothing was written"),
                  file=sys.stderr)
            return interrupted_code(exc)
        except HFRenderError as exc:  # the one line says what became of the frames made
            out.abandon()  # (reexpose has no --resume: it starts over)
            said = goes_on(first_line(exc), "reexpose")
            if out.partial:
                said += f"; {kept_apart(out.frames, out.partial, args.output)}"
            raise type(exc)(said) from exc
        except BaseException:
            out.abandon()
            raise
        finally:
            finish()
