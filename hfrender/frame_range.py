"""``--frames START:END``: a part of a render, by output frame numbers.

START and END are output frame numbers at the render's fps (frame k is the picture at
k/fps), END exclusive as in Python and ffmpeg's ``trim``; either may be left out (``10:``
to the end, ``:20`` from the start). A range is kept as ``(start, end)`` with None for a
side left out; it is checked in form when the settings are made and against the render's
frame count when the scene's duration is known.
"""

from __future__ import annotations

import re
from typing import Any

from hfrender.errors import InputError, about, spelling
from hfrender.numeric import whole_number

FORM = ("must be START:END, output frame numbers with END exclusive, either side may be "
        "empty (e.g. 10:20, 10: or :20)")

FrameRange = tuple[int | None, int | None]


class FrameRangeError(InputError):
    """A ``--frames`` range that is not one, or lies outside the render (one line)."""


def _refused(text: str, frames: object, rest: str) -> FrameRangeError:
    """A range refused, ``--frames TEXT`` then ``rest`` (`` must be ...``, ``: ...``), and
    in a file as it spells it there (``frames = "5:2": ...``: :func:`hfrender.errors.about`;
    was ``--frames 5:2`` there)."""
    return about(FrameRangeError, "frames", frames, rest, head=f"--frames {text}")


def _text(frames: object) -> str:
    if isinstance(frames, (tuple, list)) and len(frames) == 2:
        return ":".join("" if v is None else str(v) for v in frames)
    return str(frames)


def parse_frames(text: object) -> FrameRange:
    """``"10:20"`` -> (10, 20); ``"10:"`` -> (10, None); ``":20"`` -> (None, 20)."""
    m = re.fullmatch(r"\s*(\d*)\s*:\s*(\d*)\s*", str(text)) if isinstance(text, str) else None
    if m is None:
        raise _refused(f"{text!r}", text, " " + FORM)
    frames = tuple(int(g) if g else None for g in m.groups())
    check_frames(frames)
    return frames  # type: ignore[return-value]


def check_frames(frames: object) -> None:
    """A range in form: two frame numbers >= 0 (or None), START before END."""
    ok = isinstance(frames, tuple) and len(frames) == 2 and all(
        v is None or (whole_number(v) and v >= 0)
        for v in frames)
    if not ok:
        raise _refused(f"{_text(frames)!r}", frames, " " + FORM)
    start, end = frames  # type: ignore[misc]
    if start is not None and end is not None and start >= end:
        raise _refused(_text(frames), frames, f": START must be before END (END is exclusive: "
                                              f"{start}:{start + 1} is frame {start} alone)")


def resolve(frames: FrameRange | None, total: int, fps: float) -> tuple[int, int]:
    """``(first, count)`` of a range in a render of ``total`` frames at ``fps``: the whole
    render without one; one line naming the range and the frames there are otherwise."""
    if frames is None:
        return 0, total
    start = 0 if frames[0] is None else frames[0]
    end = total if frames[1] is None else frames[1]
    if start >= total or end > total:
        said = spelling()  # (the flags, or hf.render's keywords: frames='50:60')
        raise FrameRangeError(
            f"{said.said('frames', _text(frames))}: the render has frames 0 to {total - 1} "
            f"({total / fps:g} s at {fps:g} fps); START can be 0 to {total - 1} and END at "
            f"most {total} (lower them, or raise {said.name('duration')})")
    return start, end - start


def kept_as(frames: FrameRange | None, total: int) -> list[int] | None:
    """A range as a resumable output's settings keep it: ``[first, end]``, and None for the
    whole render however it was given (none, ``:``, ``0:600`` of 600 frames)."""
    if frames is None:
        return None
    first, end = frames[0] or 0, total if frames[1] is None else frames[1]
    return None if (first, end) == (0, total) else [first, end]


def start_of(frames: FrameRange | None) -> int:
    """The first output frame of a range (0 without one): what a resumable output's
    segments count from."""
    return 0 if frames is None or frames[0] is None else frames[0]


def frame_chunk(config: Any, total: int, first: int = 0,
                count: int | None = None) -> tuple[int, int]:
    """``(first, count)`` a render job draws: its config's ``frames`` (the whole render of
    ``total`` frames at ``config.fps`` without) unless the caller gives a chunk itself
    (``first``, ``count``: output frame numbers of the whole render, as Ray tasks and
    ``hfrender still`` do)."""
    start, n = resolve(config.frames, total, config.fps)
    if first == 0 and count is None:
        return start, n
    return first, (total - first if count is None else count)


def n_frames(n: int, noun: str = "frame") -> str:
    """``n frames``, and ``1 frame``: what the summaries and messages count (``noun``:
    another, ``1 sub-frame``)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
