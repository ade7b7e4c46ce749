"""The slow-check line (scene/slow_check.py): never after the check has ended, and naming
the scene's call only while the scene's own code runs (CALLING was never reset: the line
named the last scene call's t while hfrender's own code was the slow part)."""

import io
import threading
import time
import types

from hfrender.scene import slow_check
from hfrender.scene.loader import CALLING, call_scene

SCENE = types.SimpleNamespace(source_path=None)


def _watcher_ended() -> None:
    for thread in threading.enumerate():
        if thread.name == "hfrender-slow-check":
            thread.join(5)


def test_a_wait_that_times_out_as_the_check_ends_says_nothing(monkeypatch):
    class Late(threading.Event):
        """A wait that timed out just as the check ended: it returns once the block ends."""

        def wait(self, timeout=None):
            super().wait(5)
            return False

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(slow_check.threading, "Event", Late)
    with slow_check.said_if_slow(False):
        pass
    _watcher_ended()
    assert err.getvalue() == ""  # (was: the line, said after the check had ended)


def test_the_line_names_the_scene_only_while_its_code_runs(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(slow_check, "SLOW_CHECK_S", 0.2)
    before = dict(CALLING)
    with slow_check.said_if_slow(False):
        assert call_scene(SCENE, "update(t)", lambda t: t * 2, 1.5, t=1.5) == 3.0
        assert CALLING == before  # the call ended: not the scene's any more
        time.sleep(0.6)  # hfrender's own work is the slow part
    _watcher_ended()
    assert err.getvalue() == "preparing the render ... (0.2 s so far; a Ctrl-C stops it)\n"
    err.seek(0), err.truncate()
    with slow_check.said_if_slow(False):
        call_scene(SCENE, "update(t)", time.sleep, 0.6, t=1.967)
    _watcher_ended()
    assert err.getvalue() == ("checking the scene at t=1.967 s ... (0.2 s so far; a Ctrl-C "
                              "says where it is)\n")


def test_the_line_names_the_looking_threads_own_call(monkeypatch):
    """Two renders in two threads: the line of the one whose look is slow names its own
    scene call, not the other's, and a call ended in one thread leaves the other's (was one
    CALLING for the process: a thread's end gave back another's, a review)."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(slow_check, "SLOW_CHECK_S", 0.3)
    other_in, other_out = threading.Event(), threading.Event()

    def other() -> None:  # another render's scene, in update(t=2) throughout
        call_scene(SCENE, "update(t)", lambda: (other_in.set(), other_out.wait(10)), t=2.0)

    thread = threading.Thread(target=other)
    thread.start()
    assert other_in.wait(10)
    try:
        with slow_check.said_if_slow(False):
            call_scene(SCENE, "update(t)", lambda: None, t=1.0)  # ours, ended
            time.sleep(0.8)  # our own work is slow: not the other thread's t=2
        _watcher_ended()
        assert err.getvalue() == ("preparing the render ... (0.3 s so far; a Ctrl-C "
                                  "stops it)\n")
        assert list(CALLING.values()) == [("update(t)", 2.0)]  # the other's, kept
    finally:
        other_out.set()
        thread.join(10)
    assert CALLING == {}
