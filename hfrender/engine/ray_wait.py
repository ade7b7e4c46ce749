"""Ray tasks' results as they come back, and a Ctrl-C that stops after the work in progress.

Every chunk of a job is submitted at once (the cluster, or its autoscaler, sees all the work
there is). A first Ctrl-C ("stopping after the work in progress") turns away the tasks not
yet begun. Which have begun, a :class:`Gate` knows: a small actor each task passes on
starting, closed by the stop, after which a task that starts returns at once (was: a guess,
the first pending as many as the cluster runs at once, which stopped a running chunk where
Ray ran them out of order, a batch's of several kinds: a trial). Those running finish and
are kept (a segment each); then the Ctrl-C goes on. A second Ctrl-C stops at once.

A chunk that fails fails its render (a batch: its job, the other jobs go on): the gate
turns away that render's chunks not begun and tells those running to stop, which they do
at their next sub-frame (:mod:`hfrender.engine.chunk_stop`; were run to their end, the
failure told only once they had ended or 5 s had passed). What was kept stays.

Nothing is stopped with ``ray.cancel``: in Ray 2.60 a cancel that meets a task's reply
(the task ending as it is cancelled) fails a check in the driver's core worker, which ends
the driver's process at once, exit 1 and no word on stderr ("Tried to complete task that
was not pending", in its log; ray-project/ray#54798 fixed one such race, #54846 is open).
The gate turns away what has not begun, and tells a failed render's running chunks to stop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from hfrender.engine import chunk_stop
from hfrender.engine.chunk_warnings import carried, is_stopped, stopped_with
from hfrender.io.outputs import uninterrupted

log = logging.getLogger(__name__)
FORGET_WAIT_S = 5.0  # a failed run's wait, at most, for its other chunks to stop (read them)
CLOSE_WAIT_S = 10.0  # how long a stop waits for the gate to say which tasks began


def running_at_most(ray: Any, gpu: bool = False) -> int:
    """How many tasks of one CPU (or one GPU) the cluster runs at once."""
    resources = ray.cluster_resources()
    return max(1, int(resources.get("GPU" if gpu else "CPU", 1)))


class _Keeper:
    """The gate's actor: the tasks that began (how many times each: Ray runs a task again
    whose worker died), and whether the gate is closed."""

    def __init__(self) -> None:
        self.began: dict[str, int] = {}
        self.closed = False
        self.refused: set[str] = set()  # tasks of a failed job (the others go on)

    def enter(self, task: str) -> bool:
        if task in self.began and task not in self.refused:  # a retry of a task that began
            # before the stop goes on (not one of a failed render's: told to stop)
            self.began[task] += 1
            return True
        go = not self.closed and task not in self.refused
        if go:
            self.began[task] = 1
        return go

    def refuse(self, tasks: list[str]) -> list[str]:
        """Refuse ``tasks``; those of them that began (running, or ended unread)."""
        self.refused.update(tasks)
        return [task for task in tasks if task in self.began]

    def stopping(self, task: str) -> bool:
        """Whether the running ``task`` is to stop (its render failed)."""
        return task in self.refused

    def close(self) -> set[str]:
        self.closed = True
        return set(self.began)

    def reruns(self, tasks: list[str]) -> int:
        return sum(self.began.get(task, 1) - 1 for task in tasks)


def gated(keeper: Any, fn: Callable, *args: Any) -> Any:
    """On a worker: ``fn(*args)``, unless the gate closed (or refused this task) before it
    began (None: the driver reads it as :data:`TURNED_AWAY`, or has dropped it), or told
    it to stop as it ran (its render failed: :func:`.chunk_warnings.stopped_with` the
    warnings it said, read as turned away). An unreachable gate lets it through."""
    import ray

    task = ray.get_runtime_context().get_task_id()
    try:
        go = ray.get(keeper.enter.remote(task))
    except Exception as exc:  # noqa: BLE001 - its node gone: the task runs, as before
        log.debug("the gate: %s", exc)
        go = True
    if not go:
        return None
    with chunk_stop.watched(lambda: ray.get(keeper.stopping.remote(task))):
        try:
            return fn(*args)
        except chunk_stop.Stopped as exc:
            return stopped_with(carried(exc))


class Gate:
    """Tasks that pass it as they begin, and a stop that closes it (the module's Ctrl-C)."""

    def __init__(self, ray: Any) -> None:
        self.ray = ray
        self.keeper = ray.remote(num_cpus=0)(_Keeper).options(**_beside_driver(ray)).remote()

    def task(self, fn: Callable, **options: Any) -> Callable[..., Any]:
        """``fn`` as a Ray task (``options``: Ray's) that passes the gate as it begins."""
        remote = self.ray.remote(gated).options(name=fn.__name__, **options)
        return lambda *args: remote.remote(self.keeper, fn, *args)

    def running(self, waiting: list, gpu: bool = False) -> list:
        """Close the gate: those of ``waiting`` (references) that began. Where the gate
        does not answer, the first of them, as many as the cluster runs at once."""
        try:
            began = self.ray.get(self.keeper.close.remote(), timeout=CLOSE_WAIT_S)
        except Exception as exc:  # noqa: BLE001 - its actor gone, or slow (still starting)
            log.debug("closing the gate: %s", exc)
            try:  # gone for good: its close never comes, and every task passes (was: a
                self.ray.kill(self.keeper)  # close late after all turned the kept away)
            except Exception as gone:  # noqa: BLE001 - gone already
                log.debug("the gate: %s", gone)
            return waiting[:running_at_most(self.ray, gpu)]
        return [ref for ref in waiting if ref.task_id().hex() in began]

    def refuse(self, refs: Iterable) -> list:
        """Turn away the tasks of ``refs`` that have not begun (a failed render's other
        chunks) and tell those running to stop (:mod:`~hfrender.engine.chunk_stop`; not
        ``ray.cancel``, see the module); those of ``refs`` that began (to wait for: those
        not begun may wait long for a CPU, a batch's other jobs holding them, to be turned
        away), all of them where the gate does not answer."""
        refs = list(refs)
        try:
            began = set(self.ray.get(self.keeper.refuse.remote(task_ids(refs)),
                                     timeout=CLOSE_WAIT_S))
        except Exception as exc:  # noqa: BLE001 - its actor gone: they run, and are dropped
            log.debug("the gate's refusal: %s", exc)
            return refs
        return [ref for ref in refs if ref.task_id().hex() in began]

    def reruns(self, tasks: list[str]) -> int:
        """How many times Ray ran the tasks of ``tasks`` (ids, :func:`task_ids`) again, their
        worker lost; 0 where the gate does not answer."""
        try:
            return int(self.ray.get(self.keeper.reruns.remote(tasks), timeout=CLOSE_WAIT_S))
        except Exception as exc:  # noqa: BLE001 - its actor gone (killed by a stop)
            log.debug("the gate's reruns: %s", exc)
            return 0


def task_ids(refs: Iterable) -> list[str]:
    """The ids of the tasks of ``refs``, as their gate knows them."""
    return [ref.task_id().hex() for ref in refs]


TURNED_AWAY = ("turned away by the gate",)  # a task's take: it did no work (after a stop)


def taken(ray: Any, ref: Any, accept: Callable[[Any], None],
          tell: Callable[[dict], None] | None = None) -> tuple | None:
    """``accept`` the result of the task ``ref``; one the gate turned away (None: a stop
    closed it) or stopped is no chunk (was read as one: a TypeError, a review):
    :data:`TURNED_AWAY`, which :func:`collect` counts as a cancelled task (the others
    running still taken). A chunk's error, or its stop, ``tell`` the warnings it said
    first (:class:`.chunk_warnings.Told`'s: were lost), then it is raised as it came."""
    try:
        result = ray.get(ref)
    except Exception as exc:
        _tell(tell, exc)
        raise
    if result is None or is_stopped(result):
        _tell(tell, result)
        return TURNED_AWAY
    accept(result)
    return None


def _tell(tell: Callable[[dict], None] | None, said: Any) -> None:
    """``tell`` the warnings of a failed chunk's error, or of a chunk's result (stopped, or
    ended whole after the failure)."""
    if tell is not None and said is not None:  # (a chunk's result, stopped or not: as
        tell(said if isinstance(said, dict) else {"warnings": carried(said)})  # it is)


def _beside_driver(ray: Any) -> dict:
    """An actor's options that put it on the driver's node, where Ray says which that is
    (not through Ray Client, say: then anywhere)."""
    try:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        node = ray.get_runtime_context().get_node_id()
        return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=True)}
    except Exception as exc:  # noqa: BLE001 - no node of its own
        log.debug("the gate's node: %s", exc)
        return {}


def collect(ray: Any, pending: list, take: Callable[[Any], Iterable | None],
            running: Callable[[list], list], refuse: Callable[[list], Any] | None = None,
            tell: Callable[[dict], None] | None = None) -> KeyboardInterrupt | None:
    """Hand each finished task's reference to ``take`` (which may return references of
    tasks to forget: a failed job's other chunks, which it turns away), until none is left;
    a failure (``take``'s error) forgets the others (:func:`forget`: ``refuse``, the gate's
    :meth:`Gate.refuse`, stops them; without it, ``running`` turns away those not begun;
    ``tell``: what they said, before the error);
    a first Ctrl-C as the module says, raised once the work in progress is in, unless it
    was all of the work (no task cancelled: returned, the work whole, as a local render's
    interruption after its last frame; was: thrown away as interrupted). None: no stop."""
    stop: KeyboardInterrupt | None = None
    cancelled = False
    while pending:
        try:
            ready, pending = ray.wait(pending, num_returns=1)
            drop, late = _taken(take, ready[0])
            if drop is TURNED_AWAY:  # no work done: the stop goes on as interrupted
                cancelled = True
            elif drop:
                gone = set(drop)
                pending = [ref for ref in pending if ref not in gone]
            if late is not None:
                raise late
        except Exception:  # a chunk failed: the run fails with its error (its and the
            # stopped chunks' warnings said first)
            forget(ray, pending, refuse or running, tell=tell)
            raise
        except KeyboardInterrupt as exc:
            if stop is not None:
                raise
            stop = exc
            if pending:  # those finished and not yet taken hold no place of one running
                ended, waiting = ray.wait(pending, num_returns=len(pending), timeout=0)
                kept = _keep_running(waiting, running(waiting))
                cancelled = len(kept) < len(waiting)
                pending = ended + kept
    if stop is not None and cancelled:
        raise stop
    return stop


def forget(ray: Any, refs: list, close: Callable[[list], list],
           wait_s: float = FORGET_WAIT_S, tell: Callable[[dict], None] | None = None) -> None:
    """Stop the tasks of ``refs`` (``close``: the gate's :meth:`Gate.refuse`, or its
    :meth:`Gate.running`, which turns away those not begun, each giving those that began)
    and read what those that began and end within ``wait_s`` raised (the others: when they
    end, :func:`_read_when_ended`): an error nobody reads, Ray prints with its traceback (a failed
    render's other chunks printed 100 lines after its one); ``tell`` the warnings they
    said (before the failure's error: those ending later, unsaid). Told to stop, those
    running end at their next sub-frame, and the wait with them."""
    try:
        waiting = list(close(refs))  # (those that began: the others are turned away)
    except Exception as exc:  # noqa: BLE001 - the cluster gone: the chunk's error stands
        log.debug("closing the gate after a failure: %s", exc)
        waiting = refs
    try:
        ended = ray.wait(waiting, num_returns=len(waiting), timeout=wait_s)[0] \
            if waiting else []
    except Exception as exc:  # noqa: BLE001 - the cluster gone: the chunk's error stands
        log.debug("waiting for the chunks after a failure: %s", exc)
        return
    for ref in ended:
        try:
            _tell(tell, ray.get(ref))
        except Exception as exc:  # noqa: BLE001 - cancelled, or its own failure: read
            _tell(tell, exc)
            _read_after_failure(exc)
    done = set(ended)
    _read_when_ended([ref for ref in refs if ref not in done])


def _read_after_failure(exc: BaseException | None) -> None:
    if exc is not None:  # (a Ray task's error: its own, not the ~40 lines around it)
        log.debug("a chunk after the failure: %s", getattr(exc, "cause", None) or exc)


def _read_when_ended(refs: list) -> None:
    """Read the result of each task of ``refs`` when it ends, after the failed render's
    wait: one that fails unread Ray prints, its traceback under whatever runs then (a
    failed batch job's chunk, under the next job's name: CI)."""
    def read(future: Any) -> None:
        if not future.cancelled():
            _read_after_failure(future.exception())

    for ref in refs:
        try:
            ref.future().add_done_callback(read)
        except Exception as exc:  # noqa: BLE001 - no future (the cluster gone): unread
            log.debug("reading a chunk after the failure: %s", exc)


def _taken(take: Callable[[Any], Iterable | None], ref: Any
           ) -> tuple[Iterable | None, KeyboardInterrupt | None]:
    """``take(ref)`` whole: a Ctrl-C meanwhile is held until it ends, then returned (the
    chunk's segment and the manifest are written either way, not lost half-kept)."""
    out: list = []
    late = uninterrupted(lambda: out.append(take(ref)))
    return out[0], late


def _keep_running(pending: list, running: list) -> list:
    """``running`` (those of ``pending`` the cluster runs now) kept; the rest, turned away
    by the closed gate as they start, not waited for."""
    begun = set(running)
    kept = [ref for ref in pending if ref in begun]
    if len(kept) < len(pending):
        log.info("stopping: waiting for the %d chunks running; %d others are turned away",
                 len(kept), len(pending) - len(kept))
    return kept
