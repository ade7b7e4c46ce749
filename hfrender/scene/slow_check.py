"""One line where the look at a scene before its first frame is slow: ``checking the scene
at t=1.967 s ... (5 s so far; a Ctrl-C says where it is)`` (was: no bar and no line while
an ``update(t)`` hung at the last frame's time, a user's trial, the command looking
dead)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hfrender.scene.loader import CALLING

SLOW_CHECK_S = 5.0  # seconds of looking at the scene before it is said


@contextmanager
def said_if_slow(quiet: bool) -> Iterator[None]:
    """Inside the block, once :data:`SLOW_CHECK_S` have passed, one line on stderr (as it
    was at the start: a second ``setup()``'s silencing aside) naming the time of the
    scene's call last made (:data:`~hfrender.scene.loader.CALLING`); nothing with
    ``quiet`` or once the block ends."""
    if quiet:
        yield
        return
    stream, done, after = sys.stderr, threading.Event(), SLOW_CHECK_S

    def watch() -> None:
        if not done.wait(after):
            t, what = CALLING["t"], CALLING["what"]
            at = f" at t={t:.4g} s" if t is not None else f": {what}" if what else ""
            print(f"checking the scene{at} ... ({after:g} s so far; a Ctrl-C says where it "
                  "is)", file=stream, flush=True)

    threading.Thread(target=watch, name="hfrender-slow-check", daemon=True).start()
    try:
        yield
    finally:
        done.set()
