"""Two bars live at once: hf.render(progress=True) inside a user's own rich Progress, or two
renders with a bar in two threads. Each bar wrapped sys.stdout/sys.stderr again, and its
console found its file through sys.stderr, so two proxies passed each printed line back and
forth for ever (a hang); bars stopped out of order left sys.stderr on a stale proxy."""

import io
import re
import sys
import threading

from rich.console import Console
from rich.progress import Progress

from hfrender import progress

_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen(text: str) -> list[str]:
    return [_CODES.sub("", line.split("\r")[-1]).rstrip() for line in text.split("\n")]


def _finishes(work, seconds: float = 10.0) -> None:
    """``work()`` run in a thread of its own, which must end within ``seconds``."""
    errors: list = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # (handed to the test's thread)
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s (two proxies: a loop)"
    if errors:
        raise errors[0]


def _a_terminal(monkeypatch) -> _Terminal:
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    screen = _Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    return screen


def test_a_bar_inside_a_users_rich_progress_finishes_and_its_prints_come_out(monkeypatch):
    screen = _a_terminal(monkeypatch)
    inside: list = []

    def work() -> None:
        with Progress(console=Console(force_terminal=True)):  # (it redirects both)
            theirs = (sys.stdout, sys.stderr)
            update, finish = progress.progress_bar(False)
            update(0, 10)
            print("scene line 1")
            print("scene err 2", file=sys.stderr)
            update(5, 10)
            finish()
            inside.append((sys.stdout, sys.stderr) == theirs)

    _finishes(work)
    lines = _screen(screen.getvalue())
    assert "scene line 1" in lines and "scene err 2" in lines, lines
    assert inside == [True]  # the user's proxies, left as they were
    assert sys.stdout is screen and sys.stderr is screen


def test_bars_stopped_out_of_order_give_the_streams_back(monkeypatch):
    screen = _a_terminal(monkeypatch)

    def work() -> None:
        update_a, finish_a = progress.progress_bar(False, label="a")
        update_a(0, 10)
        update_b, finish_b = progress.progress_bar(False, label="b")
        update_b(0, 10)
        print("between the bars")
        finish_a()
        print("after a")
        finish_b()

    _finishes(work)
    lines = _screen(screen.getvalue())
    assert "between the bars" in lines and "after a" in lines, lines
    assert sys.stdout is screen and sys.stderr is screen


def test_two_bars_in_two_threads_finish_and_give_the_streams_back(monkeypatch):
    screen = _a_terminal(monkeypatch)
    both = threading.Barrier(2)

    def bar(name: str) -> None:
        update, finish = progress.progress_bar(False, label=name)
        both.wait(5)
        update(0, 4)
        both.wait(5)  # (both bars live)
        for i in range(4):
            print(f"{name} frame {i}")
            update(i + 1, 4)
        both.wait(5)
        finish()

    def work() -> None:
        threads = [threading.Thread(target=bar, args=(n,), daemon=True) for n in "xy"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    _finishes(work)
    lines = _screen(screen.getvalue())
    said = {f"{n} frame {i}" for n in "xy" for i in range(4)}
    assert said <= set(lines), sorted(said - set(lines))
    assert sys.stdout is screen and sys.stderr is screen


def test_no_stderr_draws_no_bar_on_stdout(monkeypatch):
    """sys.stderr None (pythonw, some services): the bar's console fell back to stdout (bar
    codes among a command's summary; rich's own stderr console writes nowhere): nothing is
    drawn, and the frames' counts are not printed to stdout either."""
    out = _Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", None)
    update, finish = progress.progress_bar(False)
    if update is not None:
        update(3, 10)
    finish()
    assert out.getvalue() == ""
