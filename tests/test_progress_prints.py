"""A scene that prints while a terminal shows the bar: each line of its own on the screen
(was: after the bar's text, ``0:00:00  t=0.004``, and the bar redrawn between its lines)."""

import io
import re
import sys

from hfrender import progress

_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen_lines(text: str) -> list[str]:
    """The lines a terminal shows: each as left after its last carriage return."""
    return [_CODES.sub("", line.split("\r")[-1]).rstrip() for line in text.split("\n")]


def _bar_with_prints(monkeypatch, out, err) -> None:
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    update, finish = progress.progress_bar(False)
    update(0, 300)
    print("t=0.004")
    update(7, 300)
    print("t=0.271")
    finish()


def test_a_scenes_prints_take_lines_of_their_own_above_the_bar(monkeypatch):
    screen = _Terminal()  # stdout and stderr: one terminal
    _bar_with_prints(monkeypatch, screen, screen)
    lines = _screen_lines(screen.getvalue())
    assert "t=0.004" in lines and "t=0.271" in lines, lines
    assert sys.stdout is screen  # (given back after the bar)


def test_prints_into_a_file_stay_there_while_the_terminal_shows_the_bar(monkeypatch):
    log, screen = io.StringIO(), _Terminal()  # hfrender render s.py > log.txt
    _bar_with_prints(monkeypatch, log, screen)
    assert log.getvalue() == "t=0.004\nt=0.271\n"
    assert "t=0" not in screen.getvalue() and "7/300" in screen.getvalue()


def test_a_print_left_without_a_newline_keeps_its_brackets(monkeypatch):
    """A scene's text still pending when the bar stops (or flushed by the scene) was
    written by rich as markup: "vals [a, b]" showed as "vals ", "50% [/b] done" not at
    all (an error: closing tag with nothing open)."""
    for flush in (False, True):
        screen = _Terminal()
        monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
        monkeypatch.setattr(sys, "stdout", screen)
        monkeypatch.setattr(sys, "stderr", screen)
        update, finish = progress.progress_bar(False)
        update(0, 300)
        print("vals [a, b]", end="", flush=flush)
        update(7, 300)
        print("50% [/b] done", end="", flush=flush)
        sys.stderr.write("err [x]")  # (stderr: the same)
        finish()
        lines = _screen_lines(screen.getvalue())
        said = ["vals [a, b]", "50% [/b] done"] if flush else ["vals [a, b]50% [/b] done"]
        said.append("err [x]")
        assert [line for line in lines if line in said] == said, (flush, lines)
        assert sys.stdout is screen and sys.stderr is screen
