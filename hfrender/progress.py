"""The progress of a long run: a bar on a terminal, a line every so often in a log or a
pipe (with the rate and the time left), nothing with --quiet."""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable

from hfrender.logs import span

LOG_EVERY_S = 30.0  # a progress line this often where stderr is a log or a pipe
BEAT_LEAST_S = 1.0  # the beat's thread wakes no more often (a line at every frame: a test's)
RATE_AFTER_S = 1.0  # the bar says a rate from this long after its first frames on
RECENT_S = 60.0  # once a run is this long, its rate is the last minute's (frames that grow
# heavier: the average since the start said 6.0 fps and 29 s left at 2.8 fps, 54 s left)


def time_of_day() -> str:
    """The local time, as a log line ends with it (a log of hours of work says when)."""
    return time.strftime("%H:%M:%S")


def progress_lines(label: str, clock: Callable[[], float] = time.monotonic,
                   every: float | None = None, stamp: Callable[[], str] = time_of_day,
                   beat: bool = False, wait: Callable[[float], bool] | None = None,
                   more: Callable[[], str] | None = None) -> Callable[[int, int], None]:
    """Progress for a log or a pipe (no bar there): a line every ``every`` seconds
    (:data:`LOG_EVERY_S`) from now, as ``label: 120/600 frames (20%), 7.1 fps, about 1m08s
    left (now 18:40:12)`` (the rate from the first count, once :data:`RATE_AFTER_S` have
    passed since: not a burst's; the time left from the first frame done,
    :func:`_steady_rate`; the time of day, ``stamp``); a run shorter than that says nothing
    more than its summary. ``beat``: from the first count on, a line as often while no
    frame finishes too (``0/300 frames (0%), first frame in progress, 2m10s so far``: a
    first frame of minutes said nothing, a hang's silence), from a thread of its own
    (:func:`_beating`, waiting with ``wait``); ``update.stop()`` ends it, no line after;
    ``more()`` said after, ``; the batch: ...`` (``engine.batch_progress``)."""
    state: dict = dict.fromkeys(("last", "start"), clock())
    every = LOG_EVERY_S if every is None else every
    lock = threading.Lock()  # (the writer's thread tells, the beat's thread wakes)

    def say(done: int, total: int, now: float, *told: str) -> None:
        state["last"] = now
        _say(f"{label}: {done}/{total} frames ({100 * done // total}%)", told, stamp,
             more() if more else "")

    def update(done: int, total: int) -> None:
        with lock:
            if state.get("over"):
                return
            now = clock()
            state["count"] = (done, total)
            if beat and "beat" not in state:
                state["beat"] = _beating(tick, wait)
            rate = rate_text(state, done, now)  # none yet a moment after the first frames
            if now <= state["t0"] or now - state["last"] < every or not 0 < done < total:
                return
            say(done, total, now, rate, left_text(state, done, total, now))

    def tick() -> float:
        """The line due where none came for ``every`` seconds; the seconds to the next."""
        gap = max(every, BEAT_LEAST_S)  # (every 0: was a thread printing without a pause)
        with lock:
            now = clock()
            if state.get("over") or now - state["last"] < gap:
                return max(state["last"] + gap - now, 0.0)
            (done, total), t0 = state["count"], state["start"]
            if done > state["done0"] and done < total:
                say(done, total, now, rate_text(state, done, now),
                    left_text(state, done, total, now))
            elif done < total:
                say(done, total, now, f"first frame in progress, {span(now - t0)} so far")
            state["last"] = now  # (all done: the summary says it)
            return gap

    def stop() -> None:
        with lock:
            state["over"], end = True, state.pop("beat", None)
        if end is not None:
            end()

    update.stop, update.tick = stop, tick  # type: ignore[attr-defined]
    return update


def _say(head: str, told: tuple, stamp: Callable[[], str], more: str = "") -> None:
    """A log's line: ``head``, what is ``told`` (those said), ``more``, the time of day
    (was the time alone: read as the end's, a trial)."""
    said = "".join(f", {x}" for x in told if x) + (f"; {more}" if more else "")
    print(f"{head}{said} (now {stamp()})", file=sys.stderr, flush=True)


def _beating(tick: Callable[[], float], wait: Callable[[float], bool] | None = None
             ) -> Callable[[], None]:
    """A daemon thread calling ``tick()`` as it asks (the seconds to its next call), waiting
    with ``wait(seconds)`` (True: stop; an event's); its ``end()``: stopped and joined
    (no thread left after a run, its error or its Ctrl-C). It never touches the GL."""
    stopped = threading.Event()
    wait = stopped.wait if wait is None else wait

    def beat() -> None:
        delay = tick()
        while not stopped.is_set() and not wait(delay):
            delay = tick()

    thread = threading.Thread(target=beat, name="hfrender-progress", daemon=True)
    thread.start()

    def end() -> None:
        stopped.set()
        if thread is not threading.current_thread():
            thread.join()
    return end


def _window(marks: deque, now: float, done: int) -> tuple[float, int]:
    """``(time, done)`` to measure from: the first of ``marks`` (``(now, done)`` added), or
    one :data:`RECENT_S` back once they span that."""
    marks.append((now, done))
    while len(marks) > 2 and now - marks[1][0] >= RECENT_S:
        marks.popleft()
    return marks[0]


def _rate(state: dict, done: int, now: float) -> float:
    """Frames a second since the first count (``state`` keeps it: a resumed run's first
    count holds the frames kept, which made no time), or over the last :data:`RECENT_S`
    once the run is that long; marks the first frame finished (:func:`_steady_rate`)."""
    state.setdefault("t0", now)
    if done > state.setdefault("done0", done):
        state.setdefault("first1", (now, done))
        _window(state.setdefault("marks1", deque()), now, done)
    start, first = _window(state.setdefault("marks", deque()), now, done)
    return (done - first) / (now - start) if now > start else 0.0


def _steady_rate(state: dict, done: int, now: float) -> float:
    """Frames a second from the first frame finished on (over the last :data:`RECENT_S`
    once that long), 0 until as long has passed since it as it took (at least
    :data:`RATE_AFTER_S`, at most :data:`RECENT_S`): the first frame carries the start-up
    (the GL context, shaders, fusion processes, the first hyperframe filling: "about 41s
    left" after frame 1 of 3 for 13 s, a trial), and the frames done with it at once (a
    hyperframe's, a Ray wave's) too little time."""
    _rate(state, done, now)
    if not _settled(state, now):
        return 0.0
    start, first = state["marks1"][0]
    return (done - first) / (now - start) if now > start else 0.0


def _settled(state: dict, now: float) -> bool:
    """Whether as long has passed since the first frame finished as it took (at least
    :data:`RATE_AFTER_S`, at most :data:`RECENT_S`): a time left is meaningful from then."""
    t1 = state["first1"][0] if "first1" in state else None
    return t1 is not None and now - t1 >= min(RECENT_S, max(RATE_AFTER_S, t1 - state["t0"]))


def mean_rate(state: dict, done: int, now: float) -> float:
    """Frames a second from the first frame finished on, over all the time since (a
    batch's: its jobs' start-ups between their frames counted, each job to come has one),
    0 until :func:`_settled`."""
    _rate(state, done, now)
    if not _settled(state, now):
        return 0.0
    start, first = state["first1"]
    return (done - first) / (now - start) if now > start else 0.0


def rate_text(state: dict, done: int, now: float) -> str:
    """The bar's ``7.1 fps`` (:func:`_rate`), once :data:`RATE_AFTER_S` have passed since
    the first count: frames finish in bursts (a hyperframe's at once), and a burst's
    first hundredths of a second made a bar say ``495.0 fps``."""
    rate = _rate(state, done, now)
    return f"{fps_text(rate)} fps" if now - state["t0"] >= RATE_AFTER_S else ""


def fps_text(rate: float) -> str:
    """``7.1``; under a frame a second two significant figures, ``0.18`` (was ``0.0`` for a
    run at 5.6 s a frame, beside "about 47m20s left": a trial)."""
    if rate >= 1:
        return f"{rate:.1f}"
    return f"{float(f'{rate:.2g}'):f}".rstrip("0").rstrip(".") or "0"


def left_text(state: dict, done: int, total: int, now: float) -> str:
    """``about 1m08s left`` at :func:`_steady_rate` (none yet: ``""``)."""
    per_s = _steady_rate(state, done, now)
    if per_s <= 0 or done >= total:
        return ""
    return f"about {span((total - done) / per_s)} left"


def plain_line() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """``(update, finish)`` of one line, ``\r120/600 frames``, rewritten as it goes."""
    shown = [False]

    def plain(done: int, total: int) -> None:
        shown[0] = True
        print(f"\r{done}/{total} frames", end="", file=sys.stderr, flush=True)

    def end() -> None:
        if shown[0]:
            print(file=sys.stderr)
            shown[0] = False
    return plain, end


def _is_tty(stream) -> bool:
    """Whether ``stream`` is a terminal (``sys.stdout`` may be None, or have no isatty)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_STREAMS = threading.Lock()  # (two bars in two threads: one wraps a stream, not both)


def _unwrapped(stream):
    """``stream`` itself, not a rich proxy of it (a user's ``Progress`` redirects, another
    bar of ours): the file a bar's console writes to (it found its file through
    ``sys.stderr``, a proxy passing each line to another and back: a hang)."""
    from rich.file_proxy import FileProxy

    for _ in range(16):  # (a proxy of a proxy: each bar's, rich's)
        if not isinstance(stream, FileProxy):
            break
        stream = stream.rich_proxied_file
    return stream


def _scene_lines(console, streams: tuple[str, ...]) -> list:
    """``sys.stdout``/``sys.stderr`` (``streams``) written above the bar while it shows, a
    line each, as rich's own redirect writes them, but for the text left without a newline
    when the scene flushes or the bar stops: written as text too (rich's own flush read it
    as markup: "vals [a, b]" showed as "vals ", "50% [/b] done" not at all); a stream that
    already is a rich proxy (a user's ``Progress``, another bar's) is left as it is, as
    rich's own redirect leaves it; the proxies made, for :func:`_scene_lines_end`."""
    from rich.file_proxy import FileProxy

    class SceneLines(FileProxy):
        pending = ""  # (a class attribute: FileProxy hands unknown names to its file)

        def write(self, text: str) -> int:
            self.pending = (self.pending + text).rpartition("\n")[2]
            return super().write(text)

        def flush(self) -> None:
            if self.pending:  # a line as write says it: rich.text.Text, never markup
                self.pending = ""
                super().write("\n")

    proxies = []
    with _STREAMS:
        for name in streams:
            if not isinstance(getattr(sys, name), FileProxy):
                proxies.append((name, SceneLines(console, getattr(sys, name))))
                setattr(sys, name, proxies[-1][1])
    return proxies


def _scene_lines_end(proxies: list) -> None:
    """The scene's text left without a newline written, and the streams it replaced given
    back (only those: two bars stopped out of order left ``sys.stderr`` on a stale one)."""
    for _, proxy in proxies:
        proxy.flush()
    with _STREAMS:
        for name, proxy in proxies:
            if getattr(sys, name) is proxy:  # (else the scene set its own: left as it is)
                setattr(sys, name, proxy.rich_proxied_file)
    proxies.clear()


def _has_widgets() -> bool:
    """Whether rich can draw its bar in a notebook (it does so in an ipywidgets Output)."""
    import importlib.util

    return importlib.util.find_spec("ipywidgets") is not None


def progress_bar(quiet: bool, label: str = "rendering",
                 more: Callable[[], str] | None = None):
    """``(update(done, total), finish())``: a bar on a terminal or in a Jupyter notebook
    (rich's, in an ipywidgets Output; without ipywidgets, :func:`plain_line`: was nothing
    there, rich seeing no terminal, a trial), :func:`progress_lines` in a log or a pipe,
    nothing with ``quiet`` or with no stderr (pythonw: was a bar on stdout); ``more()``
    said after its figures (a batch's)."""
    if quiet or sys.stderr is None:
        return None, lambda: None
    try:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
    except ImportError:  # without rich: a plain line instead
        return plain_line()
    from rich.console import Console

    console = Console(file=_unwrapped(sys.stderr))  # stdout keeps the summary alone
    if console.is_jupyter and not _has_widgets():  # (rich would warn, and show nothing)
        return plain_line()
    if not (console.is_terminal or console.is_jupyter):  # a log or a pipe: a bar there is
        lines = progress_lines(label, beat=True, more=more)  # only a stray blank line
        return lines, lines.stop
    # the rate and the time left: ours; the time since the start: redrawn by rich's own
    # thread, a first frame of minutes shows time passing (was a bar at 0/300 alone); a
    # scene's prints to the same terminal go above the bar, a line each (were written
    # after its text, the bar redrawn between them), and into a file they stay there
    bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[left]}"),
                   TimeElapsedColumn(), TextColumn("{task.fields[more]}"), transient=True,
                   redirect_stdout=False, redirect_stderr=False, console=console)
    task = bar.add_task("render", total=None, rate="", left="", more="")
    state: dict = {}
    streams = ("stdout", "stderr") if _is_tty(sys.stdout) else ("stderr",)

    def update(done: int, total: int) -> None:
        if not state:  # a resumed run's kept frames: not counted in rich's speed either
            bar.reset(task, total=total, completed=done)
            bar.start()
            state["lines"] = _scene_lines(console, streams)
        now = time.perf_counter()
        bar.update(task, completed=done, total=total, rate=rate_text(state, done, now),
                   left=left_text(state, done, total, now), more=more() if more else "")

    def stop() -> None:
        if state:
            _scene_lines_end(state["lines"])
            bar.stop()  # shows the cursor again, also after an error
            state.clear()

    return update, stop
