"""A long first frame in a pipe or a log (4K at 256 samples, a Ray cluster's first wave)
said nothing after its start line for minutes: a CI log or a nohup user could not tell it
from a hang. A line now comes every LOG_EVERY_S while the run is alive, frames finished or
not, from a thread of its own, gone with the run; a terminal's bar shows the time since the
start. A fake clock and the beat's own wait stand in for the time: nothing sleeps."""

import re
import threading

from hfrender import progress


def NOON():
    return "12:00:00"


def _beats():
    return [t for t in threading.enumerate() if t.name == "hfrender-progress"]


def test_a_pipe_gets_a_line_while_no_frame_finishes(capsys):
    now = [0.0]
    waits = []
    over = threading.Event()
    update = None

    def wait(seconds):  # the beat's wait: the time passes at once
        waits.append(seconds)
        if len(waits) == 5:
            over.set()
            return True
        now[0] += seconds
        if now[0] == 90.0:  # the first frame finishes between two lines
            now[0] = 70.0
            update(1, 300)
            now[0] = 90.0
        return False

    update = progress.progress_lines("rendering", clock=lambda: now[0], every=30.0,
                                     stamp=NOON, beat=True, wait=wait)
    now[0] = 10.0  # the run's first count (its GL context made)
    update(0, 300)
    assert over.wait(10)
    update.stop()
    update(2, 300)  # after the run's end: nothing more
    assert waits == [20.0, 30.0, 30.0, 30.0, 30.0]
    assert capsys.readouterr().err.splitlines() == [
        "rendering: 0/300 frames (0%), first frame in progress, 30s so far (now 12:00:00)",
        "rendering: 0/300 frames (0%), first frame in progress, 1m00s so far (now 12:00:00)",
        "rendering: 1/300 frames (0%), 0.013 fps (now 12:00:00)",
        "rendering: 1/300 frames (0%), 0.0091 fps (now 12:00:00)",
    ]
    assert _beats() == []


def test_a_line_said_by_a_frame_puts_the_next_beat_off():
    now = [0.0]
    update = progress.progress_lines("fx", clock=lambda: now[0], every=30.0, stamp=NOON)
    update(0, 100)
    now[0] = 20.0
    assert update.tick() == 10.0  # (not said: 20 s since the start)
    now[0] = 35.0
    update(35, 100)  # said by the frame
    now[0] = 50.0
    assert update.tick() == 15.0
    now[0] = 100.0
    update(100, 100)  # all done: the summary says it, no beat
    assert update.tick() == 30.0


def test_the_beat_ends_with_the_run(capsys):
    """progress_bar's finish (called after a run, its error or its Ctrl-C) leaves no thread
    and no line after it; a run that never counted started none."""
    update, finish = progress.progress_bar(False)
    assert _beats() == []
    update(0, 10)
    assert [t.daemon for t in _beats()] == [True]
    finish()
    assert _beats() == []
    update(5, 10)
    assert _beats() == []
    update, finish = progress.progress_bar(False)
    finish()  # (an error before the first count)
    assert _beats() == [] and capsys.readouterr().err == ""


def test_a_terminals_bar_shows_the_time_since_its_start(monkeypatch, capsys):
    """rich redraws its bar from a thread of its own: with the time since the start in it,
    a first frame of minutes shows time passing (was a bar at 0/300 alone)."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich: a terminal
    monkeypatch.delenv("NO_COLOR", raising=False)
    update, finish = progress.progress_bar(False)
    update(0, 300)
    finish()
    err = capsys.readouterr().err
    assert "0/300" in err and re.search(r"0:00:0\d", err), err  # (a loaded machine: 1 s)


def test_lines_at_every_frame_leave_the_beat_a_second_apart(capsys):
    # every=0 (a line at each frame: a test's setting) made the beat's thread print
    # without a pause (hundreds of "first frame in progress" lines in a second)
    now = [0.0]
    update = progress.progress_lines("fx", clock=lambda: now[0], every=0.0, stamp=NOON)
    update(0, 24)
    now[0] = 0.25
    assert update.tick() == 0.75
    now[0] = 1.0
    assert update.tick() == 1.0
    assert capsys.readouterr().err.splitlines() == [
        "fx: 0/24 frames (0%), first frame in progress, 1s so far (now 12:00:00)"]
