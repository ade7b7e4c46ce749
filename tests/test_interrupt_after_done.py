"""A Ctrl-C that comes once the output is in place (in the command's last line, or as the
interpreter ends) changes nothing: exit 0 and the output kept (was: 130 "interrupted", or
Python's "Exception ignored ... KeyboardInterrupt", with the output complete)."""

import signal
from pathlib import Path

import pytest

import hfrender.__main__
import hfrender.cli.commands
import hfrender.cli.still
from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")


def _ctrl_c(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_ctrl_c_in_a_stills_last_line_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(hfrender.cli.still, "output_notes", _ctrl_c)  # in the "wrote" line
    out = tmp_path / "s.png"
    assert main(["still", BAR, "-o", str(out), "--size", "32x8"]) == 0
    assert out.stat().st_size > 0 and "interrupted" not in capsys.readouterr().err


def test_a_ctrl_c_in_a_renders_summary_exits_0_and_one_before_the_end_130(tmp_path,
                                                                          monkeypatch, capsys):
    monkeypatch.setattr(hfrender.cli.commands, "_summary", _ctrl_c)
    out = tmp_path / "r.mp4"
    small = ["--size", "32x8", "--samples", "2", "--duration", "0.2"]
    assert main(["render", BAR, "-o", str(out), *small]) == 0 and out.stat().st_size > 0
    monkeypatch.setattr(hfrender.cli.commands, "finished_anyway", _ctrl_c)  # not yet done
    assert main(["render", BAR, "-o", str(tmp_path / "q.mp4"), *small]) == 130
    assert capsys.readouterr().err.endswith("hfrender: interrupted\n")


def test_past_main_a_signal_ends_the_process_at_once_with_mains_status(monkeypatch):
    """``python -m hfrender``: past main(), as the interpreter ends, SIGINT and SIGTERM end
    the process with main's status (not ignored: a hung ending still stops)."""
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(hfrender.cli, "main", lambda: 3)
    ended = []
    monkeypatch.setattr(hfrender.__main__.os, "_exit", ended.append)
    try:
        with pytest.raises(SystemExit) as leaving:
            hfrender.__main__.run()
        assert leaving.value.code == 3
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            assert handler not in (signal.SIG_IGN, signal.SIG_DFL, before[0])
            handler(signum, None)
        assert ended == [3, 3]
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


def test_a_report_that_cannot_be_printed_is_one_line_the_output_kept(tmp_path, monkeypatch,
                                                                     capsys):
    """``> /dev/full``: was an internal error with a traceback, the picture written."""
    import errno
    import io

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    out = tmp_path / "s.png"
    monkeypatch.setattr("sys.stdout", Full())
    assert main(["still", BAR, "-o", str(out), "--size", "32x8"]) == 1
    assert capsys.readouterr().err == ("hfrender: error: the output is complete, but its "
                                       "report could not be printed: No space left on device\n")
    assert out.stat().st_size > 0


def test_a_hung_ending_still_stops_on_ctrl_c_with_mains_status():
    """A thread left running past main() (the review's case): SIGINT ends the process with
    main's status at once, as SIG_IGN would not."""
    import subprocess
    import sys
    import time

    code = ("import sys, threading, time\nimport hfrender.cli as cli\n"
            "def main():\n    threading.Thread(target=time.sleep, args=(60,)).start()\n"
            "    print('returned', flush=True)\n    return 0\n"
            "cli.main = main\nfrom hfrender.__main__ import run\nrun()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "returned\n"
    time.sleep(0.3)  # (into the interpreter's end, joining the thread)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 0


def test_a_ctrl_c_in_a_batchs_table_exits_0_its_summary_written(tmp_path, monkeypatch):
    """The review's: batch (and render --ray) never said they were done."""
    import json

    import hfrender.cli.batch

    (tmp_path / "bar.frag").write_text(Path(BAR).read_text())
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "bar"\nscene = "bar.frag"\n'
                                        'output = "out/bar.mp4"\nduration = 0.2\n'
                                        'size = "32x8"\nsamples = 2\n')
    monkeypatch.setattr(hfrender.cli.batch, "table", _ctrl_c)
    summary = tmp_path / "summary.json"
    assert main(["batch", str(tmp_path / "jobs.toml"), "--summary", str(summary)]) == 0
    assert json.loads(summary.read_text())[0]["status"] == "done"
    assert (tmp_path / "out" / "bar.mp4").stat().st_size > 0


def test_past_every_exit_step_a_signal_is_held_until_the_process_is_gone():
    """A batch-and-Ray trial: a SIGINT as Python ended (its default actions back) killed a
    finished batch, exit -2 after "done". The last exit step holds the signals."""
    import subprocess
    import sys

    code = ("import os, signal\nfrom hfrender.__main__ import _held_at_the_end\n"
            "_held_at_the_end()\nos.kill(os.getpid(), signal.SIGINT)\n"
            "os.kill(os.getpid(), signal.SIGTERM)\nprint('alive', flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30)
    assert (done.returncode, done.stdout) == (0, "alive\n")
