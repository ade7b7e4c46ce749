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
    was at the start: a second ``setup()``'s silencing aside): :func:`_slow_line`; nothing
    with ``quiet``, nor once the block has ended (the end and the line share a lock: a
    wait that timed out as the block ended printed after it)."""
    if quiet:
        yield
        return
    stream, done, after, lock = sys.stderr, threading.Event(), SLOW_CHECK_S, threading.Lock()
    owner = threading.get_ident()  # (the thread looking: its scene call, not another's)

    def watch() -> None:
        if not done.wait(after):
            with lock:
                if not done.is_set():
                    print(_slow_line(after, owner), file=stream, flush=True)

    threading.Thread(target=watch, name="hfrender-slow-check", daemon=True).start()
    try:
        yield
    finally:
        with lock:
            done.set()


def _slow_line(after: float, owner: int) -> str:
    """``checking the scene at t=1.967 s ... (5 s so far; a Ctrl-C says where it is)``
    while a call of the scene's runs in the ``owner`` thread (its entry of
    :data:`~hfrender.scene.loader.CALLING`: its ``t``, else what it is, ``setup()``); in
    hfrender's own code, ``preparing the render ... (5 s
    so far; a Ctrl-C stops it)`` (was the scene's last call's t: a Ctrl-C there names no
    line of the scene's)."""
    what, t = CALLING.get(owner, (None, None))
    if what is None:
        return f"preparing the render ... ({after:g} s so far; a Ctrl-C stops it)"
    at = f" at t={t:.4g} s" if t is not None else f": {what}"
    return f"checking the scene{at} ... ({after:g} s so far; a Ctrl-C says where it is)"
