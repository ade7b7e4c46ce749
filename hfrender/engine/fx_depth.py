"""An fx job's depth pass: read and checked against its footage (its size, its length,
the focus pixel), at the run's start or (``hfrender batch``) before any job runs, with its
motion vectors (:func:`check_depth`)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from hfrender.engine.fx_settings import FxSettings
from hfrender.errors import HFRenderError, about
from hfrender.frame_range import n_frames
from hfrender.io.depth_fit import depth_for
from hfrender.io.exr_footage import is_one_image
from hfrender.io.footage import FootageError, open_footage, probe
from hfrender.io.sequence_files import output_start, sequence_files


def depth_pass_of(source: str, s: FxSettings, size: tuple[int, int], count: int) -> Any:
    """The depth pass of ``s`` for footage ``source`` of ``size`` and ``count`` frames,
    checked (:func:`.depth_fit.depth_for`), and the focus pixel in the footage (an .npy's
    depth under it in every frame, too)."""
    s.check_size(size)
    # a sequence: its frames' numbers; one picture: its name's, as its output frame's (was
    # none: shot.1005.png beside depth z.1001..z.1010 refused, its folder took z.1005)
    numbered = not Path(source).is_file() or is_one_image(source)
    depth = depth_for(s.depth, s.disparity() or s.depth_range or s.depth_scale,
                      s.depth_zero_is_sky, size, count, s.lens_for, s.depth_resize,
                      output_start(source) if numbered else None)
    s.check_focus(depth.column)  # every frame of an .npy's, before any is written
    return depth


def check_window(s: FxSettings, count: int) -> None:
    """``--motion-blur`` and ``--stride`` at most the footage's ``count`` frames: not one
    window, or one frame a clip."""
    if max(s.window, s.stride) > count:  # (named as given: a jobs file's key too)
        key, value = ("motion_blur", s.window) if s.window >= s.stride else ("stride", s.stride)
        raise about(FootageError, key, value, f" is longer than the input ({n_frames(count)})",
                    head=f"--{key.replace('_', '-')} {value}")


def window_there(source: str, s: FxSettings) -> None:
    """:func:`check_window` against footage ``source``'s length (``hfrender batch``'s
    check before any job runs): a video's frames counted by :func:`.probe`, which reads
    every packet and decodes none; a sequence's from its files' names, none read; footage
    that cannot be told so is the job's to say, at its turn."""
    if max(s.window, s.stride) == 1:
        return
    try:
        if Path(source).is_file():
            count = 1 if is_one_image(source) else probe(source).count
        else:
            count = len(sequence_files(source) or ()) or None
    except HFRenderError:  # (a broken video: its job fails, the others run)
        return
    if count is not None:
        check_window(s, count)


def focused(s: FxSettings, depth: Any) -> FxSettings:
    """``s`` with its lens focused where ``depth`` (a disparity map's, in stand-in metres
    fixed from its first frame) puts ``--focus-disparity``; else ``s`` as it is."""
    if depth.focus is None:
        return s
    return replace(s, lens=replace(s.lens, focus_distance=depth.focus))


def check_depth(source: str, s: FxSettings) -> None:
    """What fx says of its depth pass (or its motion vectors: their files, count, size and
    channels) before a frame is read, said now without reading the footage's frames
    (``hfrender batch``'s checks, before any job runs): the footage's size and length from
    its headers; the warnings left to the run. The window and stride against its length
    too (was: in a batch, only at the job's turn, after the jobs before it had run)."""
    if Path(source).is_file() and not is_one_image(source):
        info = probe(source)
        size, count = info.size, info.count
    else:
        footage = open_footage(source, s.input_fps)
        size, count = footage.size, footage.count
        footage.close()
    check_window(s, count)
    if s.vectors is not None:
        from hfrender.io.vector_pass import VectorPass

        VectorPass(s.vectors).check(size, count)
    if s.depth is None:
        return
    quiet = logging.getLogger("hfrender")
    level = quiet.level
    quiet.setLevel(max(level, logging.ERROR))
    try:
        depth_pass_of(source, s, size, count)
    finally:
        quiet.setLevel(level)
