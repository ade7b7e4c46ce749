"""Ray tasks' results as they come back, and a Ctrl-C that stops after the work in progress.

Every chunk of a job is submitted at once (the cluster, or its autoscaler, sees all the work
there is). A first Ctrl-C ("stopping after the work in progress") cancels the tasks past
the ones running, which are the first still pending, as many as the cluster can run at
once: Ray starts tasks of one kind in the order they were submitted. Those running finish
and are kept (a segment each); then the Ctrl-C goes on. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from hfrender.io.outputs import uninterrupted

log = logging.getLogger(__name__)
FORGET_WAIT_S = 5.0  # how long a failed run waits for its other chunks' cancellations


def running_at_most(ray: Any, gpu: bool = False) -> int:
    """How many tasks of one CPU (or one GPU) the cluster runs at once."""
    resources = ray.cluster_resources()
    return max(1, int(resources.get("GPU" if gpu else "CPU", 1)))


def collect(ray: Any, pending: list, take: Callable[[Any], Iterable | None],
            capacity: Callable[[], int]) -> KeyboardInterrupt | None:
    """Hand each finished task's reference to ``take`` (which may return references of
    tasks to forget: a failed job's other chunks, which it cancels), until none is left;
    a first Ctrl-C as the module says, raised once the work in progress is in, unless it
    was all of the work (no task cancelled: returned, the work whole, as a local render's
    interruption after its last frame; was: thrown away as interrupted). None: no stop."""
    stop: KeyboardInterrupt | None = None
    cancelled = False
    while pending:
        try:
            ready, pending = ray.wait(pending, num_returns=1)
            drop, late = _taken(take, ready[0])
            if drop:
                gone = set(drop)
                pending = [ref for ref in pending if ref not in gone]
            if late is not None:
                raise late
        except Exception:  # a chunk failed: the run fails with its error alone
            forget(ray, pending)
            raise
        except KeyboardInterrupt as exc:
            if stop is not None:
                raise
            stop = exc
            if pending:  # those finished and not yet taken hold no place of one running
                ended, waiting = ray.wait(pending, num_returns=len(pending), timeout=0)
                kept = _cancel_waiting(ray, waiting, capacity())
                cancelled = len(kept) < len(waiting)
                pending = ended + kept
    if stop is not None and cancelled:
        raise stop
    return stop


def forget(ray: Any, refs: list, wait_s: float = FORGET_WAIT_S) -> None:
    """Cancel the tasks of ``refs`` and read what those that end within ``wait_s`` raised:
    an error nobody reads, Ray prints with its traceback (a failed render's other chunks
    printed 100 lines after its one)."""
    for ref in refs:
        try:
            ray.cancel(ref)
        except Exception as exc:  # noqa: BLE001 - ended already, or its node gone
            log.debug("cancelling %s: %s", ref, exc)
    try:
        ended = ray.wait(refs, num_returns=len(refs), timeout=wait_s)[0] if refs else []
    except Exception as exc:  # noqa: BLE001 - the cluster gone: the chunk's error stands
        log.debug("waiting for the chunks after a failure: %s", exc)
        return
    for ref in ended:
        try:
            ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - cancelled, or its own failure: read
            log.debug("a chunk after the failure: %s", exc)


def _taken(take: Callable[[Any], Iterable | None], ref: Any
           ) -> tuple[Iterable | None, KeyboardInterrupt | None]:
    """``take(ref)`` whole: a Ctrl-C meanwhile is held until it ends, then returned (the
    chunk's segment and the manifest are written either way, not lost half-kept)."""
    out: list = []
    late = uninterrupted(lambda: out.append(take(ref)))
    return out[0], late


def _cancel_waiting(ray: Any, pending: list, running: int) -> list:
    """The first ``running`` of ``pending`` (those the cluster runs now); the rest are
    cancelled before they start."""
    for ref in pending[running:]:
        try:
            ray.cancel(ref)
        except Exception as exc:  # noqa: BLE001 - a task that ended meanwhile
            log.debug("cancelling %s: %s", ref, exc)
    if pending[running:]:
        log.info("stopping: waiting for the %d chunks running; %d others are cancelled",
                 min(running, len(pending)), len(pending) - min(running, len(pending)))
    return pending[:running]
