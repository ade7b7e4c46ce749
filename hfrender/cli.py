"""The ``hfrender`` command: parses, resolves config, dispatches. No rendering logic here."""

from __future__ import annotations

import argparse
import logging
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import hfrender
from hfrender.backends import BACKENDS, CHOICES, load
from hfrender.config import (
    DOF_MODES,
    INTEROP,
    PRESETS,
    SCHEDULES,
    ConfigError,
    RenderConfig,
    parse_size,
    project_settings,
)
from hfrender.errors import BackendUnavailable, HFRenderError
from hfrender.render.contexts import CONTEXTS, ContextUnavailable
from hfrender.sampler import CURVES, POSITIONS
from hfrender.scene.loader import SceneError
from hfrender.writer import WriterError

EXIT_USAGE, EXIT_FAILED, EXIT_SIGINT, EXIT_SIGTERM = 2, 1, 130, 143


class Terminated(KeyboardInterrupt):
    """SIGTERM: stop like Ctrl-C (finish what was drawn, finalise), exit 143."""


def _on_sigterm(signum, frame):  # noqa: ANN001 - signal handler signature
    raise Terminated()


def cmd_info(args: argparse.Namespace) -> int:
    """What this machine offers hfrender: versions, GL contexts, fusion backends, ffmpeg."""
    import numpy as np

    from hfrender.render.contexts import create_context

    print(f"hfrender {hfrender.__version__}  (Python {platform.python_version()}, "
          f"NumPy {np.__version__}, {platform.machine()})")
    for name in CONTEXTS:
        try:
            glctx = create_context(name, size=(64, 64))
            print(f"gl {name}: {glctx.renderer}")
            glctx.release()
        except HFRenderError as exc:
            print(f"gl {name}: unavailable: {exc}")
    for name in BACKENDS:
        try:
            print(f"backend {name}: {load(name).describe()}")
        except BackendUnavailable as exc:
            print(f"backend {name}: unavailable: {exc}")
    try:
        import imageio_ffmpeg

        from hfrender.writer import ffmpeg_encoders

        enc = ffmpeg_encoders()
        video = [e for e in ("libx264", "libx265", "libvpx-vp9", "h264_nvenc", "hevc_nvenc",
                             "gif", "png") if e in enc]
        print(f"ffmpeg: {imageio_ffmpeg.get_ffmpeg_exe()} "
              f"(version {imageio_ffmpeg.get_ffmpeg_version()}); "
              f"{len(enc)} encoders, among them: {', '.join(video)}")
    except Exception as exc:  # noqa: BLE001 - report any failure to find the binary
        print(f"ffmpeg: unavailable: {exc}")
    return 0


def _config_from(args: argparse.Namespace) -> RenderConfig:
    """Defaults, then hfrender.toml, then flags: validated once, here at the edge."""
    values = project_settings()
    if args.quality:
        (values["size"], values["fps"]) = PRESETS[args.quality]
    flags = {"output": args.output, "fps": args.fps, "duration": args.duration,
             "samples": args.samples, "shutter": args.shutter,
             "shutter_position": args.shutter_position, "shutter_curve": args.shutter_curve,
             "dof": args.dof, "backend": args.backend, "gl": args.gl, "seed": args.seed,
             "codec": args.codec, "max_coc_px": args.max_coc_px, "jitter": args.jitter or None,
             "preview": args.preview or None, "quiet": args.quiet or None,
             "interop": args.interop, "stats": args.stats or None,
             "workers": args.workers, "schedule": args.schedule,
             "resume": getattr(args, "resume", False) or None}
    if args.size is not None:
        flags["size"] = parse_size(args.size)
    if args.granularity is not None:
        g = args.granularity
        flags["granularity"] = g if g == "auto" else _int("granularity", g)
    values.update({k: v for k, v in flags.items() if v is not None})
    return RenderConfig(**values)


def _int(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r} must be 'auto' or an integer") from None


def cmd_render(args: argparse.Namespace) -> int:
    from hfrender.pipeline import render

    config = _config_from(args)
    if not Path(args.file).is_file():
        raise ConfigError(f"scene file not found: {args.file}")
    progress, finish = _progress_bar(config.quiet)
    written = [0]

    def counting(done: int, total: int) -> None:
        written[0] = done
        if progress is not None:
            progress(done, total)

    import signal

    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        stats = render(args.file, config, scene_name=args.scene, progress=counting)
    except KeyboardInterrupt as exc:
        finish()
        code = EXIT_SIGTERM if isinstance(exc, Terminated) else EXIT_SIGINT
        stats = getattr(exc, "hfrender_stats", None)
        frames = stats.extra.get("frames_in_output", written[0]) if stats else written[0]
        if frames:
            from hfrender.segments import resumable

            again = ("hfrender " + " ".join(sys.argv[1:])) if "render" in sys.argv[1:] \
                else f"hfrender render {args.file} -o {config.output}"
            if "--resume" not in again.split():
                again += " --resume"
            hint = f"; continue with: {again}" if resumable(config.output) else ""
            print(f"interrupted: {config.output} was finalised with the {frames} frames "
                  f"written so far{hint}", file=sys.stderr)
        else:
            print("interrupted before the first frame: nothing was written", file=sys.stderr)
        return code
    finally:
        finish()
        signal.signal(signal.SIGTERM, previous)
    if config.stats:
        out_bytes = stats.frames_written * config.size[0] * config.size[1] * 3
        per = stats.device_to_host_bytes / max(1, stats.frames_written)
        print(f"stats: {stats.subframes} sub-frames drawn, granularity {stats.granularity}, "
              f"interop {'on' if stats.extra.get('interop') else 'off'}; device-to-host "
              f"{stats.device_to_host_bytes / 1e6:.1f} MB ({per / 1e6:.2f} MB per output "
              f"frame; the output frames themselves are {out_bytes / 1e6:.1f} MB)")
    if "resumed_at" in stats.extra and not config.quiet:
        if stats.total_frames == 0:
            print(f"every frame was already rendered: joined the segments into "
                  f"{config.output}")
            return 0
        print(f"resumed at frame {stats.extra['resumed_at']}")
    if not config.quiet:
        print(f"wrote {stats.output}: {stats.frames_written} frames "
              f"{config.size[0]}x{config.size[1]} at {config.fps:g} fps, {config.samples} "
              f"samples, dof {stats.dof}; {stats.seconds:.1f} s ({stats.fps:.1f} frames/s) "
              f"on {stats.gl_renderer}, fusion {stats.backend}"
              + (f"; shutter {stats.extra['shutter'][0]:g} degrees with "
                 f"{stats.extra['shutter'][1]} samples" if "shutter" in stats.extra else "")
              + (f"; preview showed {stats.extra['preview_frames']} frames"
                 if config.preview else ""))
    return 0


def cmd_still(args: argparse.Namespace) -> int:
    import numpy as np

    from hfrender.pipeline import render
    from hfrender.writer import MemoryWriter

    if Path(args.output).suffix.lower() != ".png":
        raise ConfigError(f"-o {args.output}: a still is written as PNG")
    args.quiet = True
    config = _config_from(args).with_(output=args.output, duration=None)
    if not Path(args.file).is_file():
        raise ConfigError(f"scene file not found: {args.file}")
    k = round(args.time * config.fps)
    picture = MemoryWriter()
    stats = render(args.file, config, scene_name=args.scene, first_frame=k, count=1,
                   writer=picture)
    panels = [picture.frames[0]]
    if args.compare:
        plain = MemoryWriter()
        render(args.file, config.with_(samples=1, dof="off", antialias=False),
               scene_name=args.scene, first_frame=k, count=1, writer=plain)
        panels.insert(0, plain.frames[0])
    import imageio.v3 as iio

    iio.imwrite(args.output, np.concatenate(panels, axis=1))
    print(f"wrote {args.output}: frame {k} (t={k / config.fps:.3f} s), dof {stats.dof}"
          + (", left: without effects" if args.compare else ""))
    return 0


def _int_list(name: str, text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise ConfigError(f"{name}={text!r} must be a comma-separated list of integers >= 1")
    return values


def cmd_bench(args: argparse.Namespace) -> int:
    from hfrender import bench

    args.quiet = True
    config = _config_from(args)
    if not Path(args.file).is_file():
        raise ConfigError(f"scene file not found: {args.file}")
    if args.frames < 1:
        raise ConfigError(f"frames={args.frames} must be >= 1")
    outputs = _int_list("outputs", args.outputs)
    workers = _int_list("grid-workers", args.grid_workers)
    if args.plot:
        try:
            import matplotlib  # noqa: F401 - checked before the grid runs, not after
        except ImportError:
            raise ConfigError("--plot needs matplotlib: pip install 'hfrender[plot]'") from None
    print(f"{Path(args.file).name}: {args.frames} frames {config.size[0]}x{config.size[1]} x "
          f"{config.samples} samples, fusion {config.backend}")
    cells, auto = bench.run_grid(args.file, config, args.frames, outputs, workers, args.scene,
                                 args.repeats)
    print(bench.table(cells, auto))
    if args.plot:
        bench.plot(cells, auto, args.plot)
        print(f"wrote {args.plot}")
    return 0


def cmd_fx(args: argparse.Namespace) -> int:
    from hfrender.fx import FxSettings, run_fx
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
    progress, finish = _progress_bar(args.quiet)
    import signal

    previous = signal.signal(signal.SIGTERM, _on_sigterm)
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


def _progress_bar(quiet: bool):
    if quiet:
        return None, lambda: None
    try:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
    except ImportError:  # without rich: a plain line instead
        shown = [False]

        def plain(done: int, total: int) -> None:
            shown[0] = True
            print(f"\r{done}/{total} frames", end="", file=sys.stderr, flush=True)

        def end() -> None:
            if shown[0]:
                print(file=sys.stderr)
                shown[0] = False
        return plain, end
    bar = Progress(TextColumn("rendering"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                   transient=True, redirect_stdout=False)
    task = bar.add_task("render", total=None, rate="")
    state = {"t0": None}

    def update(done: int, total: int) -> None:
        import time

        now = time.perf_counter()
        if state["t0"] is None:
            state["t0"] = now
            bar.start()
        rate = done / (now - state["t0"]) if now > state["t0"] else 0.0
        bar.update(task, completed=done, total=total, rate=f"{rate:.1f} fps")

    def stop() -> None:
        if state["t0"] is not None:
            bar.stop()  # shows the cursor again, also after an error
            state["t0"] = None

    return update, stop


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hfrender",
        description="Physically based motion blur and depth of field, fused in hyperframes.",
    )
    parser.add_argument("--version", action="version", version=f"hfrender {hfrender.__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what hfrender decides")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser("info", help="show GL contexts, fusion backends, ffmpeg and versions")
    info.set_defaults(func=cmd_info)

    r = sub.add_parser("render", help="render a scene script or a Shadertoy-style shader",
                       description="Render FILE (a Python scene or a .frag shader) to a video.")
    r.add_argument("-o", "--output", default="out.mp4",
                   help=".mp4 .mov .mkv .webm .gif, or frames/%%05d.png (default out.mp4)")
    _render_options(r)
    r.set_defaults(func=cmd_render)

    st = sub.add_parser("still", help="render one frame to a PNG (optionally beside the same "
                        "frame without effects)")
    st.add_argument("-o", "--output", default="still.png", help="PNG to write (still.png)")
    st.add_argument("-t", "--time", type=float, default=0.0, metavar="S",
                    help="the frame at this time, in seconds (0)")
    st.add_argument("--compare", action="store_true",
                    help="put the frame without effects (pinhole, instant shutter) on the left")
    _render_options(st)
    st.set_defaults(func=cmd_still)

    b = sub.add_parser("bench", help="throughput, latency and memory over granularity x "
                       "fusion workers, best marked")
    b.add_argument("--frames", type=int, default=48, help="output frames per cell (48)")
    b.add_argument("--outputs", default="1,2,4,8,16", metavar="LIST",
                   help="granularities to try, in output frames per hyperframe (1,2,4,8,16)")
    b.add_argument("--grid-workers", default="1,2", metavar="LIST",
                   help="fusion worker counts to try (1,2)")
    b.add_argument("--repeats", type=int, default=1, help="runs per cell, the best kept (1)")
    b.add_argument("--plot", metavar="PNG", help="also plot fps per granularity (matplotlib)")
    _render_options(b)
    b.set_defaults(func=cmd_bench, output="bench.mp4")

    fx = sub.add_parser("fx", help="motion blur / depth of field on existing footage",
                        description="Apply motion blur and depth of field to a video or a "
                        "PNG sequence (streamed: never the whole clip in memory).")
    fx.add_argument("input", metavar="INPUT", help="a video file, or frames/%%05d.png")
    fx.add_argument("-o", "--output", required=True,
                    help=".mp4 .mov .mkv .webm .gif, or out/%%05d.png")
    g = fx.add_argument_group("motion blur")
    g.add_argument("--motion-blur", type=int, default=None, metavar="N",
                   help="blend windows of N frames")
    g.add_argument("--stride", type=int, default=1, metavar="S",
                   help="frames between windows (1: keep the frame rate and count, like "
                        "tmix; S: output fps = input fps / S)")
    g.add_argument("--weights", choices=CURVES, default="box")
    g.add_argument("--gamma-space", action="store_true",
                   help="blend code values as ffmpeg tmix does (default: linear light)")
    d = fx.add_argument_group("depth of field (from a depth pass)")
    d.add_argument("--depth", metavar="DEPTH", help=".npy/.npz, or a 16-bit PNG or EXR "
                   "sequence (a folder or depth/%%05d.png)")
    d.add_argument("--depth-scale", type=float, default=1.0,
                   help="multiply depth values to get metres (0.001 for millimetres)")
    d.add_argument("--focus-distance", type=float, metavar="M")
    d.add_argument("--f-stop", type=float)
    d.add_argument("--focal-length-mm", type=float, default=50.0)
    d.add_argument("--sensor-width-mm", type=float, default=36.0)
    d.add_argument("--max-coc-px", type=float, default=None)
    o = fx.add_argument_group("engine and output")
    o.add_argument("--backend", choices=CHOICES, default="auto")
    o.add_argument("--codec", default=None, help="any ffmpeg encoder")
    o.add_argument("--fps", type=float, default=None, help="frame rate of a PNG sequence (30)")
    o.add_argument("--quiet", action="store_true")
    fx.set_defaults(func=cmd_fx)
    return parser


def _render_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("file", metavar="FILE", help="a scene script (.py) or a shader (.frag)")
    r.add_argument("-s", "--scene", metavar="NAME", help="the Scene class, if FILE has several")
    q = r.add_argument_group("size and time")
    q.add_argument("--fps", type=float, default=None, help="output frames per second (30)")
    q.add_argument("--size", default=None, metavar="WxH", help="picture size (640x360)")
    q.add_argument("--duration", type=float, default=None, metavar="S",
                   help="seconds (default: the scene's duration)")
    preset = q.add_mutually_exclusive_group()
    for key, ((pw, ph), pfps) in PRESETS.items():
        preset.add_argument(f"-q{key}", dest="quality", action="store_const", const=key,
                            help=f"{ph}p{pfps:g}: {pw}x{ph} at {pfps:g} fps")
    m = r.add_argument_group("motion blur and depth of field")
    m.add_argument("--samples", type=int, default=None, help="sub-frames per output frame (8)")
    m.add_argument("--shutter", type=float, default=None, metavar="DEG",
                   help="shutter angle in degrees (180); above 360 windows overlap")
    m.add_argument("--shutter-position", choices=POSITIONS, default=None,
                   help="where the open shutter sits around each frame's time (center)")
    m.add_argument("--shutter-curve", choices=CURVES, default=None, help="(box)")
    m.add_argument("--jitter", action="store_true", help="jitter sub-frame times (seeded)")
    m.add_argument("--dof", choices=DOF_MODES, default=None,
                   help="lens: move the camera across the aperture (exact); depth: thin-lens "
                        "gather from each sub-frame's depth; auto: lens if the camera has an "
                        "f-stop (default)")
    m.add_argument("--max-coc-px", type=float, default=None, metavar="PX",
                   help="cap the depth-mode blur diameter (bounds its cost)")
    e = r.add_argument_group("engine")
    e.add_argument("--backend", choices=CHOICES, default=None, help="fusion backend (auto)")
    e.add_argument("--gl", choices=CONTEXTS, default=None, help="OpenGL context (egl)")
    e.add_argument("--granularity", default=None, metavar="auto|N",
                   help="sub-frames per hyperframe (auto: from free memory)")
    e.add_argument("--workers", type=int, default=None, help="fusion threads (1)")
    e.add_argument("--schedule", choices=SCHEDULES, default=None,
                   help="order of fusion: fifo, or motion (most motion first); frames are "
                        "always written in order")
    e.add_argument("--seed", type=int, default=None, help="seeds jitter and the lens pattern")
    e.add_argument("--codec", default=None, help="any ffmpeg encoder, e.g. h264_nvenc")
    e.add_argument("--interop", choices=INTEROP, default=None,
                   help="keep sub-frames on the GPU (GL buffers mapped into CUDA); auto: when "
                        "fusing with CUDA on NVIDIA")
    e.add_argument("--stats", action="store_true",
                   help="print bytes copied device-to-host and other figures at the end")
    e.add_argument("--preview", action="store_true", help="show frames in a window as they come")
    e.add_argument("--resume", action="store_true",
                   help="continue an interrupted render of the same settings (video files)")
    e.add_argument("--quiet", action="store_true", help="no progress bar, no summary")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except (HFRenderError, ValueError) as exc:
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        print(f"hfrender: error: {first_line}", file=sys.stderr)
        from hfrender.footage import FootageError

        usage = isinstance(exc, (ConfigError, SceneError, WriterError, ContextUnavailable,
                                 FootageError))
        return EXIT_USAGE if usage else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
