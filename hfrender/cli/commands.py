"""``hfrender render`` (and ``still``'s settings): settings in, the work handed on."""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from collections.abc import Callable
from typing import Any

from hfrender.cli.common import (
    finished_anyway,
    in_processes,
    interrupted_code,
    output_notes,
    per_frame,
    ray_address,
    ray_retries,
    sigterm_interrupts,
)
from hfrender.cli.options import flags_as_given
from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.render_stats import peak_memory
from hfrender.engine.settings import (
    GIVEN,
    check_render,
    check_store,
    outputs_held,
    render_config,
)
from hfrender.engine.stopped import (
    failed_line,
    go_on,
    interrupted_line,
    placed,
    without_store,
)
from hfrender.errors import HFRenderError
from hfrender.frame_range import n_frames, start_of
from hfrender.io.container_fit import codec_warned
from hfrender.io.sequence_names import files_said, is_sequence
from hfrender.progress import progress_bar
from hfrender.sizes import bytes_said

log = logging.getLogger(__name__)


@flags_as_given
def _config_from(args: argparse.Namespace) -> RenderConfig:
    """Defaults, then hfrender.toml, then flags: validated once, here at the edge
    (:func:`hfrender.engine.settings.render_config`, the library's too)."""
    return render_config({k: getattr(args, k, None) for k in GIVEN}, args.command)


def samples_said(config: RenderConfig, stats: Any) -> str:
    """The summary's sub-frames and the shutter they span (was: the count alone, the
    shutter said only past 360 degrees): ``8 samples over 180 degrees``, its position and
    curve where not the default's (``opening at the frame's time``, ``triangle curve``) and the
    reconstruction (was: a still said neither, a trial)."""
    if config.samples != "auto":
        if stats.shutter:  # a shutter past 360 degrees: windows on a shared grid
            deg, per = stats.shutter
            return (f"{per} sample{'' if per == 1 else 's'} ({config.samples} asked: shutter "
                    f"{deg:g} degrees on a shared grid){_shutter(config)}"
                    f"{_reconstruction(config, stats)}")
        if config.samples == 1 and not stats.reconstruct:  # (reconstructed, one sample
            # streaks over the whole shutter: was "no motion blur" said of a blurred frame)
            return "1 sample (no motion blur)" + _one_sample_at(config)
        plural = "" if config.samples == 1 else "s"
        said = f"{config.samples} sample{plural} over {config.shutter:g} degrees"
    else:
        lo, hi = config.samples_range
        per = stats.subframes / max(1, stats.frames_written)
        said = f"samples auto {lo}:{hi} ({per:.1f} per frame) over {config.shutter:g} degrees"
    return said + _shutter(config) + _reconstruction(config, stats)


def _one_sample_at(config: RenderConfig) -> str:
    """Where one sample a frame is drawn when the shutter is not centred: at its middle,
    half a shutter after (or before) the frame's time (was: unsaid, the summary naming
    the frame's time alone, an audit)."""
    if config.shutter_position == "center":
        return ""
    half = config.shutter / 360 / float(config.fps) / 2
    side = "after" if config.shutter_position == "start" else "before"
    return (f", drawn {half:.4g} s {side} the frame's time (the middle of a shutter "
            f"{'opening' if side == 'after' else 'closing'} at it)")


def _shutter(config: RenderConfig) -> str:
    """The shutter's position and curve, where not centred and box."""
    opens = {"start": "opening at the frame's time", "end": "closing at the frame's time"}
    said = [opens.get(config.shutter_position, ""),
            f"{config.shutter_curve} curve" if config.shutter_curve != "box" else ""]
    return "".join(f", {part}" for part in said if part)


def _reconstruction(config: RenderConfig, stats: Any) -> str:
    """How the summary tells whether the motion between sub-frames was reconstructed."""
    if stats.reconstruct:
        return " + reconstruction"
    from hfrender.engine.render_modes import asks_reconstruct

    if asks_reconstruct(config.reconstruct, stats.backend) and stats.no_velocity:
        return " (plain: a shader has no velocity to reconstruct the motion from)"
    return ""


def cmd_render(args: argparse.Namespace) -> int:
    ray_address(getattr(args, "ray", None))  # (--ray '': was run here, unsaid)
    config = _config_from(args)
    check_render(args.file, config, store=False)  # (the store's below: --ray refuses one)
    if getattr(args, "ray", None) and config.preview:  # (was: refused by the workers)
        if getattr(args, "preview", False):
            raise ConfigError("--preview with --ray: the frames are drawn on Ray's workers, "
                              "not in a window here; render without --ray to watch it")
        config = config.with_(preview=False)  # hfrender.toml's: for the renders here
    if getattr(args, "ray", None) and config.keep_samples:
        raise ConfigError("--keep-samples with --ray: a sample store is written by one "
                          "render; render it locally to keep its sub-frames")
    check_store(config)  # (was: "the store there ... is replaced" before the refusal above)
    codec_warned(config.output, getattr(args, "codec", None))  # (the flag's, not the project's)
    with outputs_held(config):  # one writer of the output, and of the store, at a time
        if getattr(args, "ray", None):
            return _render_on_ray(args, config)
        return _render_here(args, config)


def _render_here(args: argparse.Namespace, config: RenderConfig) -> int:
    from hfrender.engine.render import RenderJob

    progress, finish = progress_bar(config.quiet)
    job = RenderJob(args.file, config, scene_name=args.scene, progress=progress)
    with sigterm_interrupts():
        try:
            stats = job.prepare().run()
        except KeyboardInterrupt as exc:
            finish()
            _interrupted(args, config, job.stats, exc)
            return interrupted_code(exc)
        except (HFRenderError, OSError) as exc:  # one line: what became of the frames made
            said = failed_line(config, job.stats, exc)
            if said is None:
                raise
            raise said from exc
        finally:
            finish()
    finished_anyway(stats, config.output)
    return _summary(config, stats)


def _summary(config: RenderConfig, stats: Any) -> int:
    """What a finished render prints: figures (--stats), the output, the kept store."""
    if config.stats:
        out_bytes = stats.frames_written * config.size[0] * config.size[1] * 3
        per = stats.device_to_host_bytes / max(1, stats.frames_written)
        print(f"sub-frames drawn: {stats.subframes}")
        print(f"stats: granularity {stats.granularity}, "
              f"interop {'on' if stats.interop else 'off'}; device-to-host "
              f"{bytes_said(stats.device_to_host_bytes)} ({bytes_said(per)} per output "
              f"frame; the output frames themselves are {bytes_said(out_bytes)})")
        peak = peak_memory()
        if peak is not None:  # (what to give a machine for it: a trial)
            print(f"peak memory (resident) of this process: {bytes_said(peak)} (its fusion "
                  "processes and ffmpeg not counted)")
    if stats.resumed_at is not None and not config.quiet:
        if stats.total_frames == 0:
            how = "put the frames in place as" if is_sequence(config.output) else \
                "joined the segments into"
            print(f"every frame was already rendered: {how} {config.output}")
            return 0
        print(f"resumed at frame {stats.resumed_at}")
    if not config.quiet:
        made = stats.frames_written  # this run's; a resumed output holds the earlier too
        held = stats.frames_in_output if stats.resumed_at is not None else made
        print(f"wrote {files_said(stats.output, start_of(config.frames), held)}: "
              f"{n_frames(held)}"
              f"{f' ({made} rendered now)' if held != made else ''} "
              f"{config.size[0]}x{config.size[1]} at {config.fps:g} fps, "
              f"{samples_said(config, stats)}, dof {stats.dof}{output_notes(stats)}; "
              f"rendered in {stats.seconds:.1f} s ({per_frame(stats.fps)}) "
              f"on {stats.gl_renderer}"
              f"{f' ({stats.msaa}x MSAA)' if stats.msaa > 1 else ''}, fusion {stats.backend}"
              f"{in_processes(stats.fusion_processes)}"
              + (f"; preview showed {n_frames(stats.preview_frames)}" if config.preview
                 else ""))  # (was: "showed 1 frames", a trial)
    if config.keep_samples and not config.quiet:
        per = stats.store_bytes / max(1, stats.frames_written)
        print(f"kept {stats.subframes} sub-frames in {config.keep_samples}: "
              f"{bytes_said(stats.store_bytes)} ({bytes_said(per)} per output frame); "
              f"hfrender reexpose {config.keep_samples} -o OUTPUT --shutter DEG"
              + (" (or --focus-distance M, --f-stop N)" if _refocusable(config.keep_samples)
                 else ""))
    return 0


def _refocusable(store: str) -> bool:
    """Whether the kept store can be refocused: it has depth, and its sub-frames were not
    drawn through the lens (``reexpose``'s own test)."""
    from hfrender.io.store import SampleStore, StoreError

    try:
        settings = SampleStore.open(store).settings
    except (StoreError, OSError):  # the render is done: a hint is no reason to fail it
        return False
    return bool(settings.get("depth")) and settings.get("dof") != "lens"


def _ray_interrupted(job: object, output: str, exc: KeyboardInterrupt) -> str:
    """What an interrupted ``render --ray`` kept: a video's finished segments, if any; where
    the Ctrl-C ``exc`` stopped the scene's own code in the look at it here, before any task
    (``interrupted in loop.py:9, update(t=1.967): ...``, as a render here says it; was
    unsaid), where that was. A task's place stays on its worker: its scene hangs there,
    no reply comes back to carry it."""
    return placed(_ray_kept(job, output), exc)


def _ray_kept(job: object, output: str) -> str:
    """:func:`_ray_interrupted`'s line, the scene's place left out."""
    if is_sequence(output):
        return (f"interrupted: {output}'s frames made on Ray are not kept (a sequence is made "
                "whole there); run the same command again to start over")
    kept = len(getattr(getattr(job, "manifest", None), "segments", None) or [])
    if not kept:
        return f"interrupted: no segment of {output} was finished; nothing is kept"
    return (f"interrupted: the {kept} finished segment{'' if kept == 1 else 's'} of {output} "
            f"{'is' if kept == 1 else 'are'} kept; run the same command again to go on")


def _render_on_ray(args: argparse.Namespace, config: RenderConfig) -> int:
    """``render --ray``: the segments as Ray tasks, joined here."""
    from hfrender.engine.cluster import ClusterRender

    progress, finish = progress_bar(config.quiet)
    job = ClusterRender(args.file, config, None if args.ray == "local" else args.ray,
                        args.scene, progress)
    with sigterm_interrupts():
        try:
            stats = job.prepare().run()
        except KeyboardInterrupt as exc:
            finish()
            print(_ray_interrupted(job, config.output, exc), file=sys.stderr)
            return interrupted_code(exc)
        finally:
            finish()
    finished_anyway(stats, stats.output)  # (a Ctrl-C in the lines below: not 130 of it)
    if config.stats:  # (was: none on Ray, a leftover; the GL and memory are the workers')
        print(f"sub-frames drawn: {stats.subframes} (by the workers)")
    if not config.quiet:
        print(f"wrote {files_said(stats.output, start_of(config.frames), stats.frames)}: "
              f"{n_frames(stats.frames)} on Ray ({stats.workers} CPUs)"
              f"{output_notes(stats)}, "
              f"{stats.segments_made} segment{'' if stats.segments_made == 1 else 's'} "
              f"rendered, {stats.segments_reused} reused; "
              f"in {stats.seconds:.1f} s ({per_frame(stats.fps)}){ray_retries(stats)}")
    return 0


def _interrupted(args: argparse.Namespace, config: RenderConfig, stats: Any,
                 exc: BaseException | None = None) -> None:
    """What Ctrl-C or SIGTERM left behind, and how to go on (where it stopped the scene)."""
    print(interrupted_line(config, stats, _command(args, config), exc), file=sys.stderr)


def _again(args: argparse.Namespace, config: RenderConfig) -> str:
    """``; continue from frame N with: hfrender render ... --resume``, or why there is
    nothing to go on from (:func:`hfrender.engine.stopped.go_on`, the command's way)."""
    return go_on(config, _command(args, config))


def _command(args: argparse.Namespace, config: RenderConfig) -> Callable[[int], str]:
    return lambda first: _again_command(args, config, first)


def _again_command(args: argparse.Namespace, config: RenderConfig, first: int) -> str:
    """``; continue from frame FIRST with: hfrender render ... --resume``: the command as
    typed, its --keep-samples left out (a sample store holds a whole render)."""
    words = sys.argv[1:] if "render" in sys.argv[1:] else [
        "render", str(args.file), "-o", config.output]
    kept, store = [], None  # a sample store holds a whole render: --resume goes on without
    skip = False            # one (every --keep-samples, as argparse takes it)
    for i, w in enumerate(words):
        if skip:
            skip = False
        elif w.partition("=")[0] == "--keep-samples":
            store, skip = (w.partition("=")[2], False) if "=" in w else (
                words[i + 1] if i + 1 < len(words) else None, True)
        else:
            kept.append(w)
    again = "hfrender " + shlex.join(kept)
    if "--resume" not in kept:
        again += " --resume"
    return f"; continue from frame {first} with: {again}{without_store(store) if store else ''}"
