"""What the command line shows as it runs: Ctrl-C (before the command, the first and the
second) and a closed output pipe, the progress in a log and on the bar (rates, the time
left), and warnings that read like error lines."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hfrender.cli import main


@pytest.mark.parametrize("stop, code", [(KeyboardInterrupt, 130), ("terminated", 143)])
def test_a_ctrl_c_before_the_command_handles_it_is_one_line(capsys, monkeypatch, stop, code):
    """Ctrl-C while the command line loads (its imports take ~0.2 s) or is parsed: one
    line and 130 (SIGTERM: 143), not a traceback; the console script's own import too."""
    import types

    import hfrender.__main__ as entry
    from hfrender import cli
    from hfrender.cli.common import Terminated

    def interrupted(*_):
        raise Terminated() if stop == "terminated" else stop()

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["info"]) == code
    assert capsys.readouterr().err == "hfrender: interrupted\n"

    class Loading(types.ModuleType):
        def __getattr__(self, name):
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "hfrender.cli", Loading("hfrender.cli"))
    with pytest.raises(SystemExit) as exit_:
        entry.run()
    assert exit_.value.code == 130 and capsys.readouterr().err == "hfrender: interrupted\n"


def test_a_closed_output_pipe_ends_quietly(capsys, monkeypatch):
    """hfrender info | head -1: the reader goes; the status is the shell's 141 and no
    "internal error" (was: a BrokenPipeError reported as a bug in hfrender)."""
    from hfrender.cli import info as info_module

    def info(_args):
        print("hfrender x")
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(info_module, "cmd_info", info)
    monkeypatch.setattr("hfrender.cli.cmd_info", info)
    assert main(["info"]) == 141
    assert capsys.readouterr().err == ""


def test_the_first_ctrl_c_is_answered_at_once_the_second_is_pythons(capsys):
    """Inside a command, Ctrl-C prints one line and interrupts; a second one is Python's
    own; after the command the handler is what it was, and an ignored Ctrl-C stays so."""
    from hfrender.cli.common import STOPPING, sigterm_interrupts

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # pytest run in a
    try:  # shell's background starts with Ctrl-C ignored: this test's Ctrl-C is Python's
        _answered_then_pythons(capsys, STOPPING, sigterm_interrupts)
    finally:
        signal.signal(signal.SIGINT, before)


def _answered_then_pythons(capsys, stopping, sigterm_interrupts):
    with sigterm_interrupts():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 0.5)  # (delivered at once; this never returns first)
        assert capsys.readouterr().err == f"{stopping}\n"  # not a tty: no blank line first
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 0.5)
        assert capsys.readouterr().err == ""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with sigterm_interrupts():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def NOON():  # the time of day a log line ends with
    return "12:00:00"


def test_progress_in_a_log_is_a_line_every_while(capsys):
    """Where stderr is a log or a pipe (no bar): a line every LOG_EVERY_S seconds with the
    frames done, the rate and the time left; none at the start, none at the end (the
    summary says it), none between."""
    from hfrender.progress import progress_lines

    times = iter([0.0, 0.0, 10.0, 40.0, 50.0, 75.0, 200.0])  # made, then each update
    update = progress_lines("fx", clock=lambda: next(times), every=30.0, stamp=NOON)
    for done in (0, 10, 40, 50, 75, 100):
        update(done, 100)
    assert capsys.readouterr().err == ("fx: 40/100 frames (40%), 1.0 fps, about 1m00s left "
                                       "(now 12:00:00)\n"
                                       "fx: 75/100 frames (75%), 1.0 fps, about 25s left "
                                       "(now 12:00:00)\n")
    times = iter([5.0, 5.0, 15.0, 45.0])
    update = progress_lines("rendering", clock=lambda: next(times), every=30.0, stamp=NOON)
    update(0, 10000)
    update(1, 10000)
    update(4, 10000)  # 0.1 fps: 9996 frames in 27.8 hours
    assert capsys.readouterr().err == ("rendering: 4/10000 frames (0%), 0.1 fps, about 27h46m "
                                       "left (now 12:00:00)\n")
    times = iter([0.0, 0.0, 5.0, 30.0])  # a resumed run: 500 frames kept, 24 made in 30 s,
    update = progress_lines("fx", clock=lambda: next(times), every=30.0, stamp=NOON)  # 23
    update(500, 600)  # of them in the 25 s from the first
    update(501, 600)
    update(524, 600)
    assert capsys.readouterr().err == ("fx: 524/600 frames (87%), 0.8 fps, about 1m23s left "
                                       "(now 12:00:00)\n")
    times = iter([0.0, 20.0, 31.0])  # the first frame 20 s in: the first line at 30 s all
    update = progress_lines("fx", clock=lambda: next(times), every=30.0,  # the same (no
                            stamp=NOON)  # time left yet: from the frame after the first count)
    update(1, 100)
    update(12, 100)
    assert capsys.readouterr().err == "fx: 12/100 frames (12%), 1.0 fps (now 12:00:00)\n"
    times = iter([0.0, 45.0, 45.0002])  # a slow render's first frames, 45 s in, at once: it
    update = progress_lines("rendering", clock=lambda: next(times), every=30.0,  # said
                            stamp=NOON)                                  # "11345.6 fps"
    update(1, 6)
    update(2, 6)
    assert capsys.readouterr().err == "rendering: 2/6 frames (33%) (now 12:00:00)\n"


def test_a_long_runs_rate_and_time_left_are_the_last_minutes(capsys):
    """Frames growing heavier: the rate since the start said 6.0 fps and 29 s left where
    the last minute's was 2.8 fps and 54 s were left (a trial). Once a run is a minute
    long, its rate is the last minute's."""
    from hfrender.progress import RECENT_S, left_text, rate_text

    state: dict = {}
    for t in range(0, 61):  # 10 fps for a minute, then 2 fps
        rate_text(state, 10 * t, float(t))
    for t in range(61, 121):
        rate_text(state, 600 + 2 * (t - 60), float(t))
    assert RECENT_S == 60.0
    assert rate_text(state, 720, 120.0) == "2.0 fps"  # (the average: 6.0)
    assert left_text(state, 720, 840, 120.0) == "about 1m00s left"  # (at 6.0: 20 s)


def test_a_rate_under_a_frame_a_second_keeps_two_figures(capsys):
    """A slow run (the exact depth of field: 5.6 s a frame) said "0.0 fps, about 47m20s
    left" (a trial): under 1 fps the rate keeps two significant figures."""
    from hfrender.progress import progress_lines, rate_text

    for made, seconds, said in ((5, 28.0, "0.18 fps"), (1, 50.0, "0.02 fps"),
                                (9, 10000.0, "0.0009 fps"), (10, 10.0, "1.0 fps")):
        state: dict = {}
        assert rate_text(state, 1, 0.0) == ""
        assert rate_text(state, 1 + made, seconds) == said
    times = iter([0.0, 0.0, 1.0, 56.0])
    update = progress_lines("fx", clock=lambda: next(times), every=30.0, stamp=NOON)
    update(1, 90)
    update(2, 90)
    update(11, 90)  # (the time left: 9 frames in the 55 s from the first)
    assert capsys.readouterr().err == ("fx: 11/90 frames (12%), 0.18 fps, about 8m03s left "
                                       "(now 12:00:00)\n")


def test_the_bars_rate_waits_a_second_past_its_first_frames():
    """Frames finish in bursts (a hyperframe's at once): the bar says no rate for the
    first second after its first count, then the frames made since it over the time."""
    from hfrender.progress import RATE_AFTER_S, left_text, rate_text

    state: dict = {}
    assert rate_text(state, 0, 100.0) == ""
    assert rate_text(state, 10, 100.02) == ""  # a burst: 500 fps for a moment
    assert left_text(state, 10, 96, 100.02) == ""  # (rich's own column said 0:00:01)
    assert rate_text(state, 10, 100.0 + 0.99 * RATE_AFTER_S) == ""
    assert rate_text(state, 16, 102.0) == "8.0 fps"
    assert left_text(state, 16, 96, 102.0) == "about 26s left"  # 6 frames in 1.98 s
    assert left_text(state, 96, 96, 112.0) == ""  # done: nothing left to say
    resumed: dict = {}
    assert rate_text(resumed, 500, 7.0) == ""  # 500 frames kept: they made no time
    assert rate_text(resumed, 530, 17.0) == "3.0 fps"


def test_the_time_left_is_measured_from_the_first_frame_finished():
    """The first frame carries the start-up (the GL context, shaders, fusion processes, the
    first hyperframe filling): 1280x720 at 64 samples with reconstruction said "about 41s
    left" after frame 1 of 3, 21 s in, for 13 s (a trial). The time left is measured from
    the first frame finished on, and said once as long has passed since it as it took."""
    from hfrender.progress import left_text, rate_text

    state: dict = {}
    rate_text(state, 0, 0.7)  # told as the engine starts
    for done, now in ((1, 21.0), (2, 31.1)):
        rate_text(state, done, now)
        assert left_text(state, done, 3, now) == ""  # (was "about 41s left", "15s left")
    state = {}
    rate_text(state, 0, 0.0)
    for k in range(301):  # 10 s of start-up, then 10 fps
        rate_text(state, 1 + k, 10.0 + k / 10)
        if 10.0 + k / 10 < 20.0:  # under the 10 s the first frame took: not said yet
            assert left_text(state, 1 + k, 600, 10.0 + k / 10) == ""
    assert rate_text(state, 301, 40.0) == "7.5 fps"  # the run's own, as the summary's
    assert left_text(state, 301, 600, 40.0) == "about 30s left"  # (was 40s: 299 at 7.5)


def test_a_warning_reads_like_an_error_line(tmp_path):
    """``hfrender: warning: ...`` on stderr, as errors are ``hfrender: error: ...`` (was:
    ``WARNING hfrender.io.depth_pass: ...``, a raw logger's line); -v keeps the logger's
    name, for a bug report."""
    import numpy as np

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    np.save(tmp_path / "d.npy", np.full((2, 8, 16), 5000, np.uint16))  # millimetres, likely
    frames = tmp_path / "in"
    frames.mkdir()
    import imageio.v3 as iio

    for i in range(2):
        iio.imwrite(frames / f"{i:02d}.png", np.full((8, 16, 3), 40 * i, np.uint8))
    args = [sys.executable, "-m", "hfrender", "fx", str(frames / "%02d.png"), "--depth",
            str(tmp_path / "d.npy"), "--focus-distance", "2", "--f-stop", "2", "--quiet"]
    said = "depth {} is uint16, its first frame up to 5000 m at --depth-scale 1".format(
        tmp_path / "d.npy")
    plain = subprocess.run(args + ["-o", str(tmp_path / "a" / "%02d.png")],
                           capture_output=True, text=True, env=env)
    assert plain.returncode == 0 and plain.stderr.startswith(f"hfrender: warning: {said}")
    verbose = subprocess.run(args + ["-o", str(tmp_path / "b" / "%02d.png"), "-v"],
                             capture_output=True, text=True, env=env)
    assert f"WARNING hfrender.io.depth_pass: {said}" in verbose.stderr
