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


def test_the_command_ignores_signals_once_main_has_returned(monkeypatch):
    """``python -m hfrender``: past main(), as the interpreter ends, SIGINT and SIGTERM are
    ignored (the exit status is main's)."""
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(hfrender.cli, "main", lambda: 0)
    try:
        with pytest.raises(SystemExit) as ended:
            hfrender.__main__.run()
        assert ended.value.code == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
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
