"""``hfrender still``: one output frame as a PNG or EXR, and ``--compare``'s pinhole beside it."""

from __future__ import annotations

import argparse
import shlex
import sys
from fractions import Fraction
from pathlib import Path

from hfrender.cli.commands import _config_from, samples_said
from hfrender.cli.common import (
    check_scene_path,
    finished_anyway,
    interrupted_code,
    output_name,
    output_notes,
)
from hfrender.cli.options import flags_as_given
from hfrender.config import ConfigError
from hfrender.engine.settings import still_frame
from hfrender.errors import as_typed
from hfrender.io.sequence_names import check_output_name, is_sequence, sequence_name
from hfrender.io.work_names import check_not_foreign
from hfrender.signals import stop_at_once

# --compare's left panel: a pinhole camera with an instant shutter at the frame's time (one
# sub-frame at the middle of a shutter of at most 360 degrees, nothing made between
# sub-frames, no jitter), whatever the right panel's settings
PINHOLE = dict(samples=1, dof="off", antialias=False, reconstruct="off", shutter=180.0,
               shutter_position="center", shutter_curve="box", jitter=False)


def picture_name(text: str) -> str:
    """``still -o``'s type: a path that is not empty (was "name a file (out.mp4) or frames
    (frames/%05d.png)", render's advice: a still writes neither)."""
    return output_name(text, "the picture (still.png, or still.exr)")


def cmd_still(args: argparse.Namespace) -> int:
    import numpy as np

    from hfrender.engine.render import RenderJob
    from hfrender.io.writers import MemoryWriter

    instead = f"the picture (-o {Path(args.output) / 'still.png'})"
    check_output_name(args.output, instead)  # (was: b.png/ wrote b.png)
    if Path(args.output).suffix.lower() not in (".png", ".exr") and _folder(args.output):
        # (was: "a still is written as PNG ...", a trial)
        raise ConfigError(f"-o {args.output}: a folder is there; name {instead}")
    if Path(args.output).suffix.lower() not in (".png", ".exr"):
        raise ConfigError(f"-o {args.output}: a still is written as PNG (8 or 16 bits: "
                          "--bit-depth) or EXR (linear light)")
    if is_sequence(sequence_name(args.output)):  # was: rendered, then "cannot write"
        raise ConfigError(f"-o {args.output}: a still is one picture, not a sequence's "
                          "pattern; name the file, or render the frame into the sequence: "
                          f"hfrender render FILE --frames N:N+1 -o {args.output}")
    full = _config_from(args)
    # one frame into memory: no video options (hfrender.toml's either), no progress bar;
    # the duration kept (a frame past the scene's own, in --duration's); one frame's
    # render takes one hyperframe in flight itself (its pool 2 slots, not 3)
    config = full.with_(output=args.output, preview=False, resume=False,
                        quiet=True, frames=None)
    check_scene_path(args.file)
    from hfrender.io import outputs

    outputs.check_writable(args.output)  # (its folder is made when it is written)
    check_not_foreign(args.output)  # (was: a user's picture replaced unsaid, a trial)
    k, seconds = flags_as_given(lambda a: still_frame(  # (-t, -f named as typed)
        a.file, a.scene, full, a.time, getattr(a, "frame", None),
        duration_given=a.duration is not None))(args)
    _no_passes(args, k)
    if seconds is not None:  # a shader's frame past its default duration
        config = config.with_(duration=seconds)
    picture = MemoryWriter()
    job = RenderJob(args.file, config, scene_name=args.scene, first_frame=k, count=1,
                    writer=picture, slow_said=not args.quiet).prepare()
    with stop_at_once():  # the first Ctrl-C stops it (was: a minutes-long exact gather went
        try:  # on to its end, then threw the picture away)
            stats = job.run()
            panels = [picture.frames[0]]
            if args.compare:  # the same frame of the same scene (set up once), without effects
                plain = MemoryWriter()
                RenderJob(args.file, config.with_(**PINHOLE), scene_name=args.scene,
                          first_frame=k, count=1, writer=plain, scene=job.scene).prepare().run()
                panels.insert(0, plain.frames[0])
        except KeyboardInterrupt as exc:
            there = " (the file there is as it was)" if Path(args.output).exists() else ""
            print(f"interrupted: {args.output} is not written{there}", file=sys.stderr)
            return interrupted_code(exc)
    outputs.write_image(args.output, np.concatenate(panels, axis=1))
    finished_anyway(stats, args.output)  # (complete: a Ctrl-C after the last sub-frame)
    if not args.quiet:
        print(f"wrote {args.output}: frame {k} (t={k / config.fps:.3f} s), "
              f"{samples_said(config, stats)}, dof {stats.dof}"
              f"{output_notes(stats)}" + (", left: without effects" if args.compare else ""))
    return 0


def _no_passes(args: argparse.Namespace, k: int) -> None:
    """One line for ``--passes`` (a still is one picture, which holds none; was
    "unrecognized arguments", what to do unsaid): the render of frame ``k`` alone, whose
    one EXR file holds them."""
    if getattr(args, "passes", None) is not None:
        given = as_typed("--passes", args.passes)  # (--passes '': quoted)
        raise ConfigError(f"{given}: a still is one picture, which holds no passes (they are "
                          "channels of an EXR sequence's frames); render the frame alone "
                          f"instead: hfrender render {shlex.quote(args.file)} --frames "
                          f"{k}:{k + 1} -o frames/%04d.exr {given}{_drawing_flags(args)}")


# the still's flags that name its frame or change its picture, as render spells them (the
# engine's, which change neither, left out)
REPEATED = ("-s scene", "-q quality", "--size size", "--fps fps", "--duration duration",
            "--samples samples", "--samples-range samples_range", "--shutter shutter",
            "--shutter-position shutter_position", "--shutter-curve shutter_curve",
            "--jitter jitter", "--msaa msaa", "--hdr hdr", "--dof dof",
            "--transparent transparent", "--bit-depth bit_depth", "--reconstruct reconstruct",
            "--dof-method dof_method", "--max-coc-px max_coc_px", "--seed seed")


def _drawing_flags(args: argparse.Namespace) -> str:
    """The user's flags of :data:`REPEATED`, to be said again after a render command (was:
    left out, so ``--fps 60 -t 0.25``'s frame 15 was advised at 30 fps, another time)."""
    words = []
    for flag, dest in (item.split() for item in REPEATED):
        value = getattr(args, dest, None)
        if value is None or value is False:
            continue
        if flag == "-q":
            words.append(f"-q{value}")
        elif value is True:
            words.append(flag)
        else:
            said = str(Fraction(value).limit_denominator(100000)) if dest == "fps" else \
                f"{value:g}" if isinstance(value, float) else str(value)
            words.append(f"{flag} {shlex.quote(said)}")
    return "".join(f" {word}" for word in words)


def _folder(path: str) -> bool:
    """Whether a folder is at ``path`` (a name too long: not, said by its own check)."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False
