"""Where a clip's motion first strobes: the frames :func:`~hfrender.engine.adaptive.motion_hint`
probes past the first (:func:`hint_frames`) and the search among them
(:func:`first_strobe`), apart from the GL probe that measures a frame's motion."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

from hfrender.errors import HFRenderError

log = logging.getLogger(__name__)

HINT_STEP = 6  # frames between the probed ones (0.2 s at 30 fps: a title's 0.6 s arrival)
HINT_SPREAD = 64  # at most about this many probed (wider apart in a longer clip)


def hint_frames(first: int, count: int) -> list[int]:
    """The frames probed in ``first .. first + count - 1``: the first, every
    :data:`HINT_STEP`-th after it (wider apart past :data:`HINT_SPREAD` of them) and the
    last."""
    last = first + count - 1
    step = max(HINT_STEP, math.ceil((count - 1) / HINT_SPREAD))
    return sorted({*range(first, last + 1, step), last})


def first_strobe(moved: Callable[[int, bool], float], frames: list[int],
                 strobes: Callable[[float], bool]) -> tuple[int, float] | None:
    """The first frame after ``frames[0]`` (which does not) whose motion ``strobes``, and
    that motion: ``moved(k, whole)`` gives the pixels frame ``k`` moves while its shutter
    is open, probed at its middle alone (``whole`` False: a third of the cost) for
    ``frames``, then over its whole shutter for the frames from the last of those that
    does not to the first that does (halved each time); None where none does, or a scene
    fails there (said by the render where it draws that time)."""
    try:
        lo = frames[0]
        for hi in frames[1:]:
            found = moved(hi, False)
            if strobes(found):
                break
            lo = hi
        else:
            return None
        lo -= lo != frames[0]  # (its middle alone was seen: it is searched too)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            there = moved(mid, True)
            lo, hi, found = (lo, mid, there) if strobes(there) else (mid, hi, found)
    except HFRenderError as exc:
        log.debug("no motion hint past frame %d: %s", frames[0], exc)
        return None
    return hi, found
