"""A batch's progress as a whole, beside each job's own: ``the batch: 1234/9876 frames,
about 3h10m left`` (a user batch-rendering 40 animations overnight had each job's bar
alone, no word of the whole). Counted in frames, not jobs: the jobs' frames as the batch
can tell them before they run, the time left at the frames a second rendered so far in the
batch."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from hfrender.engine.batch_paths import render_frames
from hfrender.logs import span
from hfrender.progress import mean_rate

FINISHED = ("done", "up-to-date", "resumed")  # a job's frames count as done


def planned_frames(job: Any, state: Any) -> int | None:
    """The frames ``job`` makes, told without running it: a render's from its scene's
    duration (``duration = 2.5`` in its class, or the job's), else what its last run made
    (the batch's state: an fx job's, a scene's that sets its duration in code); None
    where neither tells (known once the job starts)."""
    told = render_frames(job) if job.kind == "render" else None
    if told is not None:
        return told[1]
    return (state.jobs.get(job.name) or {}).get("frames") or None


class BatchTally:
    """The frames of every job (``counts``, None: not known yet) and those done, as the
    jobs run one after the other: a job's count from its first progress, its frames done
    once it ended done, up to date or resumed, nothing of a failed one (its frames left out
    of the whole too)."""

    def __init__(self, counts: list[int | None], clock: Callable[[], float] = time.monotonic):
        self.counts, self.clock = list(counts), clock
        self.ended_done = 0  # frames of the jobs ended
        self.ended_made = 0  # frames the jobs ended rendered (not kept, not up to date)
        self.running: tuple[int, int, int] | None = None  # (job, done, done at its start)
        self.state: dict = {}  # the rate's, from the batch's start
        self._lock = threading.Lock()  # (text() runs on a pipe's progress thread too)
        mean_rate(self.state, 0, clock())

    def told(self, n: int, done: int, total: int) -> None:
        """Job ``n`` (from 0) has ``done`` of its ``total`` frames."""
        with self._lock:
            self.counts[n] = total
            first = self.running[2] if self.running and self.running[0] == n else done
            self.running = (n, done, first)
            mean_rate(self.state, self._sums()[1], self.clock())  # (as each frame ends)

    def _sums(self) -> tuple[int, int]:
        """``(done, made)``: the frames done in the batch, those rendered by it."""
        if not self.running:
            return self.ended_done, self.ended_made
        _, done, first = self.running
        return self.ended_done + done, self.ended_made + done - first

    def ended(self, n: int, result: Any) -> None:
        """Job ``n`` ended as ``result`` says."""
        with self._lock:
            made = self.running[1] - self.running[2] if self.running and self.running[0] == n \
                else 0
            self.running = None
            self.ended_made += made  # (a failed job's too: the time they took is counted)
            if result.status not in FINISHED:
                self.counts[n] = 0
                return
            self.counts[n] = self.counts[n] or result.frames
            self.ended_done += self.counts[n]

    def text(self) -> str:
        """``the batch: 1234/9876 frames, about 3h10m left``; the time left once the rate
        is meaningful (:func:`~hfrender.progress.mean_rate`); "" while a job's frames are
        not known."""
        with self._lock:
            if any(c is None for c in self.counts):
                return ""
            done, made = self._sums()
            total = sum(self.counts)
            per_s = mean_rate(self.state, made, self.clock())
            left = f", about {span((total - done) / per_s)} left" if per_s > 0 and \
                total > done else ""
            return f"the batch: {done}/{total} frames{left}"


def go_on(results: list) -> str | None:
    """Under a batch's table where a job failed: how to go on (was unsaid, a trial), ``to go
    on: mend 'a' and run the same command again: it runs 'a' and 'b' again; the 2 jobs finished
    are skipped, up to date`` (``b``: not run, its input ``a``'s output; a job refused as
    another hfrender wrote its output: to run once that has ended); None: none failed."""
    def names(these: list) -> str:
        quoted = [repr(r.name) for r in these]
        return " and ".join(filter(None, (", ".join(quoted[:-1]), quoted[-1])))

    again = [r for r in results if r.status in ("failed", "not run")]
    if not any(r.status == "failed" for r in again):
        return None
    ended = len(results) - len(again)
    skipped = (f"; the {ended} job{'' if ended == 1 else 's'} finished "
               f"{'is' if ended == 1 else 'are'} skipped, up to date") if ended else ""
    failed = [r for r in again if r.status == "failed"]
    busy = [r for r in failed if r.busy]  # its output another hfrender's: not to mend
    mend = [r for r in failed if not r.busy]  # (was told "mend 'y'", a trial)
    wait = f"once the other hfrender using the output of {names(busy)} has ended, " \
        if busy else ""  # (writing it, or reading it: an fx of it)
    first = f"mend {names(mend)} and, {wait}" if mend and busy else \
        f"mend {names(mend)} and " if mend else wait
    return f"to go on: {first}run the same command again: it runs {names(again)} again{skipped}"
