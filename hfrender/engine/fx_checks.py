"""What ``hfrender fx`` checks and settles before a frame is read (the setup half of
:meth:`hfrender.engine.fx.FxJob.prepare`): the output against this run's inputs, the
footage against the settings and the output (the depth and vectors passes opened and
checked), what becomes of the footage's alpha, and the output frames a hyperframe holds in
the memory there is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hfrender.engine.fx_depth import check_window, depth_pass_of, focused
from hfrender.engine.fx_notes import deep_note, left_out_notes, picture_notes
from hfrender.engine.fx_output import keeps_alpha, written_format
from hfrender.engine.fx_settings import FxSettings
from hfrender.hyperframe.builder import auto_granularity, free_memory_bytes
from hfrender.hyperframe.pool import slot_count
from hfrender.io import outputs
from hfrender.io.footage import FootageError
from hfrender.io.input_clash import check_not_input
from hfrender.io.picture_output import check_one_picture
from hfrender.io.pixels import ALPHA, FLOAT
from hfrender.io.sequence_files import DEPTH_KINDS, FOLDER_KINDS, VECTOR_KINDS, sequence_files
from hfrender.io.vector_pass import VectorPass
from hfrender.io.work_names import check_work_names
from hfrender.io.writers import check_output
from hfrender.sizes import bytes_said


def alpha_of(source: str, output: str, s: FxSettings, footage: Any, info: Any
             ) -> tuple[str | None, str | None]:
    """Footage with alpha: kept where the output holds it, else dropped (said once);
    and what the output cannot hold of its sound (a GIF, an image sequence) and of its
    tags and chapters (a ``.ts``), said too. (alpha: "keep", "drop" or None; its note)"""
    if info is not None:  # a video file (a sequence has no sound)
        left_out_notes(str(source), output, info)
        picture_notes(str(source), output, info, s.stride, footage.pix_fmt == "yuv420p")
    alpha, alpha_note = None, None
    exr = footage.pix_fmt in FLOAT and output.lower().endswith(".exr")
    if footage.pix_fmt in ALPHA and not exr:  # an EXR keeps it premultiplied
        kept = written_format(footage.pix_fmt, output, s.codec, s.pix_fmt)[1]
        alpha = "keep" if kept else "drop"
        if not kept:  # said by the fusion once a frame is seen to be see-through
            fix = ("write .mov, .webm or a PNG sequence" if not keeps_alpha(output, s.codec)
                   else f"--pix-fmt {s.pix_fmt} has none: leave it out, or give one with alpha,")
            alpha_note = (f"{source} has alpha; {output} keeps none: it is composited over "
                          f"black in linear light ({fix} to keep it; half alpha over black is "
                          "not half the code value, as in an editor that composites code "
                          "values)")
    if s.codec is None and s.pix_fmt is None:
        deep_note(str(source), output, footage.pix_fmt, alpha == "keep")
    return alpha, alpha_note


def check_files(source: str, output: str, s: FxSettings) -> None:
    """The output must not replace an input of this run, and must be writable: both
    said before anything is read."""
    inputs = []
    for what, path, kinds in (("input", source, FOLDER_KINDS),
                              ("depth input", s.depth, DEPTH_KINDS),
                              ("vectors input", s.vectors, VECTOR_KINDS)):
        if path is not None:
            files = sequence_files(path, kinds) if not Path(path).is_file() else [Path(path)]
            inputs.append((what, files or []))
    check_not_input(output, inputs)
    outputs.check_writable(output)
    check_work_names(output)  # (fx keeps no NAME.partial.EXT: its own names)


def check_footage(source: str, output: str, s: FxSettings, footage: Any
                  ) -> tuple[FxSettings, Any, VectorPass | None]:
    """Everything that can be said wrong before a frame is read; the depth pass.
    (The settings, with a disparity map's focus; the depth pass; the vectors pass)"""
    check_window(s, footage.count)
    # before the depth is read (was: after, and a fault of the depth told instead)
    check_one_picture(output, output_count(footage.count, s), source, " ".join(
        f"--{k} {v}" for k, v in (("motion-blur", s.window), ("stride", s.stride)) if v > 1))
    depth = vectors = None
    if s.depth is not None:
        depth = depth_pass_of(str(source), s, footage.size, footage.count)
        s = focused(s, depth)  # a disparity map's focus, in its stand-in metres
    if s.vectors is not None:  # (their channels, count and size said before any work)
        vectors = VectorPass(s.vectors)
        vectors.check(footage.size, footage.count)
    check_output(output, footage.size, s.codec, for_footage=True, pix_fmt=s.pix_fmt,
                 float_in=footage.pix_fmt in FLOAT,  # (ProRes 4444 for alpha: odd sizes)
                 alpha=written_format(footage.pix_fmt, output, s.codec, s.pix_fmt)[1])
    if footage.pix_fmt in FLOAT and not s.linear_light:
        raise FootageError(f"--gamma-space: {source} is float linear light (EXR), "
                           "with no code values to blend")
    return s, depth, vectors


def output_count(count: int, s: FxSettings) -> int:
    """The output frames footage of ``count`` frames makes (its windows, a stride apart)."""
    return count if s.stride == 1 else (count - s.window) // s.stride + 1


def outputs_per_hyperframe(frame_bytes: int, s: FxSettings) -> int:
    """Output frames per hyperframe: 8 for short windows; for long overlapping windows up
    to 32, since each hyperframe starts its running sums afresh and copies ``window - 1``
    halo frames; fewer when memory is short (the pool holds ``slot_count(workers)``
    slots)."""
    halo = s.window - 1
    want = min(max(8, s.window), 32) if s.stride < s.window else 8
    slots = slot_count(s.workers)
    g = auto_granularity(frame_bytes, frames_per_output=s.stride, halo=halo, slots=slots,
                         cap=halo + want * s.stride)
    need, free = slots * g * frame_bytes, free_memory_bytes()
    if need > free:
        raise FootageError(f"--motion-blur {s.window} --stride {s.stride} holds {g} frames "
                           f"per hyperframe, {bytes_said(need)} in all; "
                           f"{bytes_said(free)} is free: use a shorter window or stride")
    return (g - halo) // s.stride
