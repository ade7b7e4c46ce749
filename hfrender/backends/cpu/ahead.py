"""Jobs that run ahead of their caller on a pool thread, and that the caller runs itself
when it comes for them first.

A caller hands its long calls (the fast depth of field's FFTs) to a shared pool and goes on
with its own work; when it needs a result whose job the pool has not started (the pool
busy with other jobs, or other callers'), it runs that job itself; while it waits for one
the pool is running, it runs its next jobs that nobody has started, instead of leaving
its core idle. Each job runs exactly once, wherever it runs, so the results are the same.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Executor
from typing import Any


class Job:
    """``fn(*args)``, run by whichever thread claims it first."""

    def __init__(self, fn: Callable[..., Any], args: tuple) -> None:
        self._call: tuple[Callable[..., Any], tuple] | None = (fn, args)
        self._claim = threading.Lock()
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    @property
    def claimed(self) -> bool:
        return self._claim.locked()

    def drop(self) -> bool:
        """Claim the job so that nobody runs it (its result: :class:`CancelledError`):
        whether nobody had claimed it."""
        if not self._claim.acquire(blocking=False):
            return False
        self._call = None
        self.error = CancelledError()
        self.done.set()
        return True

    def run(self) -> bool:
        """Run the job here, unless another thread has claimed it: whether this one did."""
        if not self._claim.acquire(blocking=False):
            return False
        fn, args = self._call
        self._call = None  # its arguments (a window's planes) go with the run
        try:
            self.value = fn(*args)
        except Exception as error:  # raised to the caller, by :meth:`Ahead.result`
            self.error = error
        except BaseException as error:  # Ctrl-C while the caller runs it: at once too
            self.error = error
            raise
        finally:
            self.done.set()
        return True


class Ahead:
    """One caller's jobs, in the order it submitted them, on ``pool``."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.jobs: deque[Job] = deque()  # submitted, not yet collected

    def submit(self, fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
        """Start ``fn(*args)`` on the pool: what gives its result (or raises its error)."""
        job = Job(fn, args)
        self.jobs.append(job)
        try:
            self.pool.submit(job.run)
        except RuntimeError:  # no thread could start (an address-space limit, `ulimit -v`:
            pass  # was an internal error, a trial): the caller runs the job itself
        return lambda: self.result(job)

    def abandon(self) -> None:
        """Let go of the jobs nobody has started (a failed caller's): they will not run,
        and their arguments are freed now."""
        for job in self.jobs:
            job.drop()
        self.jobs.clear()

    def result(self, job: Job) -> Any:
        """``job``'s result: run here if the pool has not started it; while the pool runs
        it, the next jobs that nobody has started run here."""
        job.run()
        while not job.done.is_set():
            spare = next((j for j in self.jobs if not j.claimed), None)
            if spare is None:
                job.done.wait()
            else:
                spare.run()
        if job in self.jobs:  # not after :meth:`abandon`
            self.jobs.remove(job)
        value, error = job.value, job.error
        job.value = job.error = None  # the pool's queue may hold the job a while longer
        if error is not None:
            raise error
        return value
