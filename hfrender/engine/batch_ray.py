"""A batch on Ray: the segments of every job are Ray tasks at once, so chunks of several
jobs (or of one long job) run in parallel; what Ray does not take (fx into image
sequences, GIFs) runs here, one after the other, as ``hfrender batch`` runs it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from hfrender.config import ConfigError
from hfrender.engine.batch import BatchJob, run_job
from hfrender.engine.batch_paths import stamp
from hfrender.engine.batch_progress import FINISHED
from hfrender.engine.batch_run import assets_of, hold, job_error, output_folders
from hfrender.engine.batch_state import BatchState, JobResult
from hfrender.engine.cluster import ClusterRender
from hfrender.engine.cluster_fx import ClusterFx
from hfrender.engine.ray_connect import connect
from hfrender.engine.ray_wait import TURNED_AWAY, Gate, collect, forget, taken, task_ids
from hfrender.errors import HFRenderError
from hfrender.io.exr_footage import is_one_image
from hfrender.io.outputs import take_back
from hfrender.io.resume import frames_kept
from hfrender.io.segments import resumable
from hfrender.io.sequence_names import is_sequence
from hfrender.logs import JobNamed, filtered

log = logging.getLogger(__name__)
MENDED_HERE = 0.25  # a sequence with at most this share of its frames gone: made here


def _failed(job: BatchJob, exc: BaseException, t0: float | None = None) -> JobResult:
    """The job's one-line reason: the task's own exception, not Ray's wrapping of it; its
    seconds since ``t0`` (a ``time.perf_counter()``: when it began on the cluster; were
    0.0, a trial)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        exc = cause
    said = str(exc).strip().splitlines()
    if isinstance(exc, HFRenderError):  # as a failure here says it (was: "--resume")
        said = [job_error(exc)]
    elif _from_ray(exc):  # the cluster's own failure (a node died): not a bug of hfrender's
        said = [f"the Ray cluster failed ({type(exc).__name__}): {said[0] if said else ''}"]
    else:
        said = [f"internal error: {type(exc).__name__}: {said[0] if said else ''}"]
    return JobResult(job.name, "failed", output=str(job.output),
                     error=said[0] if said else type(exc).__name__,
                     seconds=0.0 if t0 is None else time.perf_counter() - t0,
                     busy=type(exc).__name__ == "OutputBusy")  # (a task's, from Ray)


def _from_ray(exc: BaseException) -> bool:
    """Whether ``exc`` is Ray's own (``ray.exceptions``: a raylet or node gone, an object
    lost), not a task's error (its ``cause``) nor hfrender's."""
    return type(exc).__module__.split(".")[0] == "ray"


@dataclass
class _OnCluster:
    """A job whose chunks run on the cluster: its runner, the references of its chunks not
    yet in, when it began, and the outermost output folder its start made (or None)."""

    render: Any
    refs: set
    t0: float
    made: Path | None
    assets: dict | None = None  # the stamps of the files its scene read, as it was prepared
    tasks: list = field(default_factory=list)  # its tasks' ids (how many Ray ran again)


def _cluster_lost(jobs: list, running: dict, done: Callable, exc: Exception) -> None:
    """Every job on the cluster failed with Ray's ``exc`` (was: an internal error, and no
    table nor summary, a batch user's trial): what each kept stays for the next run."""
    for i in list(running):
        _given_up(i, jobs[i], running.pop(i), exc, done)


def _given_up(i: int, job: BatchJob, entry: _OnCluster, exc: BaseException,
              done: Callable) -> None:
    """A job on the cluster failed with ``exc``: a sequence's frames made so far go, and the
    folders it made where left empty, as a failure's here do (were left: a review); a
    video's whole segments stay for the next run, and its result says them."""
    try:
        entry.render.abandon()
        take_back(entry.made)
    except Exception as gone:  # noqa: BLE001 - its files said by the next run
        log.debug("abandoning %s: %s", job.name, gone)
    result = _failed(job, exc, entry.t0)
    _kept_by(result, job, entry.render)  # (was: 0, a review)
    done(i, result)


def _kept_by(result: JobResult, job: BatchJob, render: Any) -> None:
    """``result`` says what ``render`` kept of a video (its whole segments, for the next
    run: :func:`hfrender.io.resume.frames_kept`, as a job's here) and made; a sequence's
    frames go (on Ray a sequence is made whole)."""
    if is_sequence(str(job.output)):
        return
    stats = render.stats
    result.frames = frames_kept(str(job.output))
    result.frames_made, result.segments_made = stats.frames_made, stats.segments_made
    result.segments_reused = stats.segments_reused


def run_batch_on_ray(jobs: list[BatchJob], state: BatchState, address: str | None,
                     on_result: Callable[[int, JobResult], None] | None = None,
                     progress: Callable[[int, int], None] | None = None) -> list:
    """Every job's result, in the jobs file's order; ``on_result(index, result)`` as each
    ends; ``progress(frames, total)`` over every job on the cluster (one bar)."""
    ray = gate = None  # connected for the first job the cluster runs (none: all up to date)
    frames = {"done": {}, "total": 0}

    def told(i: int) -> Callable[[int, int], None]:
        def one(done: int, total: int) -> None:
            frames["done"][i] = done
            if progress is not None:
                progress(sum(frames["done"].values()), frames["total"])
        return one

    results: list[JobResult | None] = [None] * len(jobs)
    owner: dict[Any, int] = {}  # object reference -> the job it belongs to
    running: dict[int, _OnCluster] = {}
    local = []

    def done(i: int, result: JobResult) -> None:
        results[i] = result
        if on_result is not None:
            on_result(i, result)

    with ExitStack() as held:  # the cluster jobs' outputs, one writer each (run_job: here)
        for i, job in enumerate(jobs):
            if not _on_cluster(job) or mended_here(job, state):
                local.append(i)
            elif state.up_to_date(job) is not None:
                _skipped(i, job, state, frames, done)  # up-to-date: skipped at once
            else:
                if ray is None:
                    ray = connect(address)
                    gate = Gate(ray)  # (every job's tasks pass it)
                started = _start(ray, gate, job, told(i), frames, done, i, held)
                if started == "local":
                    local.append(i)
                elif started is not None:
                    running[i] = started
                    owner.update({ref: i for ref in started.refs})
                    if not started.refs:
                        _finish(i, job, running.pop(i), state, done)
        try:
            late = _gathered(ray, gate, jobs, owner, running, state, done) if owner else None
            if late is not None and local:  # a Ctrl-C (SIGTERM: 143) once every chunk ran:
                raise late  # the jobs here are not run
            if late is not None:  # (was: unsaid, the stop seemingly ignored)
                log.warning("the interruption came once every chunk was running: every "
                            "chunk on the cluster ran to its end")
        except KeyboardInterrupt:
            _stopped(jobs, running, done)
            raise
    for i in local:  # its warnings named, as the batch here names them (were not, a trial)
        with filtered(lambda i=i: JobNamed(jobs[i].name)):
            result = run_job(jobs[i], state)
        done(i, result)
    return results


def _skipped(i: int, job: BatchJob, state: BatchState, frames: dict, done: Callable) -> None:
    """An up-to-date job, skipped (:func:`run_job`): its frames count as done on the bar,
    as the batch here counts them (were left out of both figures: 24/24 for 48/48)."""
    result = run_job(job, state)
    counted = result.frames if result.status in FINISHED else 0  # (changed since: run)
    frames["done"][i] = counted
    frames["total"] += counted
    done(i, result)


def _start(ray: Any, gate: Gate, job: BatchJob, progress: Callable, frames: dict,
           done: Callable, i: int, held: ExitStack) -> Any:
    """Prepare a job for the cluster and start its tasks (:class:`_OnCluster`); "local"
    for a job only a run here can do; None if it failed (told through ``done``).
    Its output is held in ``held`` (:func:`hfrender.io.output_lock.output_lock`), taken before
    anything of the output's is touched; a job run here instead takes it there."""
    lock, named = ExitStack(), partial(_named, job.name)
    made = None  # the output folders it made: taken back, left empty, if it cannot start
    try:  # (as a failure's here are; were left, a review)
        lock.enter_context(hold(job))  # (its inputs too, as a job here: a review)
        made = output_folders(job)
        render = (ClusterRender(job.source, job.render_config(), None, job.scene_class,
                                progress)
                  if job.kind == "render" else
                  ClusterFx(str(job.source), str(job.output), job.fx_settings(),
                            progress=progress))
        with named():
            render.prepare()
    except ConfigError as exc:
        lock.close()
        take_back(made)
        if str(exc).startswith("--ray:"):  # not on Ray (yet): in one piece, here, said
            log.warning("job %r runs here, not on Ray: %s", job.name,  # (was: unsaid)
                        str(exc).removeprefix("--ray: "))
            return "local"
        done(i, _failed(job, exc))
        return None
    except Exception as exc:  # noqa: BLE001 - a job that cannot start fails alone
        lock.close()
        take_back(made)
        done(i, _failed(job, exc))
        return None
    held.enter_context(lock)
    frames["total"] += render.total
    try:
        with named():
            scene = getattr(render, "scene", None)  # (its files as sent: a batch records them)
            refs = render.submit(ray, gate)
            return _OnCluster(render, set(refs), time.perf_counter(), made,
                              assets_of(scene) if scene is not None else None, task_ids(refs))
    except Exception as exc:  # noqa: BLE001 - as above
        take_back(made)
        done(i, _failed(job, exc))
        return None


def mended_here(job: BatchJob, state: BatchState) -> bool:
    """Whether a render's image sequence with frames gone (:meth:`BatchState.gone`) is
    made here, those frames alone (:func:`run_job`): a few of them, at most
    :data:`MENDED_HERE` of its frames; more, it is made whole on the cluster."""
    gone = state.gone(job)
    return bool(gone) and len(gone) <= MENDED_HERE * state.jobs[job.name]["frames"]


def _on_cluster(job: BatchJob) -> bool:
    """Video (and, for renders, PNG sequences) from a render or from video footage."""
    video = resumable(str(job.output))
    if job.kind == "render":
        return video or is_sequence(str(job.output))
    return video and job.source.is_file() and not is_one_image(str(job.source))


def _gathered(ray: Any, gate: Gate, jobs: list, owner: dict, running: dict,
              state: BatchState, done: Callable) -> KeyboardInterrupt | None:
    """:func:`_collect`, where the cluster itself failing (Ray's own error) fails the jobs
    on it, in their results (:func:`_cluster_lost`): the jobs here still run."""
    try:
        return _collect(ray, gate, jobs, owner, running, state, done)
    except Exception as exc:
        if not _from_ray(exc):
            raise
        _cluster_lost(jobs, running, done, exc)
        return None


def _collect(ray: Any, gate: Gate, jobs: list, owner: dict, running: dict, state: BatchState,
             done: Callable) -> KeyboardInterrupt | None:
    """Chunks as they come back, whichever job they belong to; a job is joined when its
    last chunk is in, or failed (its other chunks turned away) when one fails. A first
    Ctrl-C keeps the chunks running (:func:`hfrender.engine.ray_wait.collect`); returned
    where it came once every chunk was running (all of them done)."""

    def take(ref: Any) -> set | tuple | None:
        i = owner.pop(ref)
        if i not in running:  # the job failed already
            return None
        entry = running[i]
        named = partial(_named, jobs[i].name)  # (its chunks' warnings)
        try:
            with named():
                kept = taken(ray, ref, entry.render.accept, entry.render.told.tell)
            if kept is TURNED_AWAY:  # (after a stop: the job is stopped, not done)
                return TURNED_AWAY
            entry.refs.discard(ref)
        except Exception as exc:  # noqa: BLE001 - this job fails, the others go on
            with named():  # (not begun: turned away; running: told to stop, what they
                forget(ray, [r for r in entry.refs if r != ref], gate.refuse,  # said
                       tell=entry.render.told.tell)  # told before the job's error)
            _given_up(i, jobs[i], running.pop(i), exc, done)
            return entry.refs
        if not entry.refs:
            entry.render.stats.reruns = gate.reruns(entry.tasks)
            _finish(i, jobs[i], running.pop(i), state, done)
        return None

    return collect(ray, list(owner), take, gate.running, gate.refuse)


def _stopped(jobs: list, running: dict, done: Callable) -> None:
    """The jobs a Ctrl-C stopped on the cluster, ``interrupted`` with what each kept: a
    video's finished segments stay for the next run; a sequence's frames go, as
    ``render --ray``'s do (on Ray a sequence is made whole)."""
    for i, entry in list(running.items()):
        entry.render.abandon()
        take_back(entry.made)  # (where left empty: a sequence's)
        result = JobResult(jobs[i].name, "interrupted",
                           segments_reused=entry.render.stats.segments_reused,
                           seconds=time.perf_counter() - entry.t0,
                           output=str(jobs[i].output), frames_made=0)
        _kept_by(result, jobs[i], entry.render)
        done(i, result)
        running.pop(i)


def _finish(i: int, job: BatchJob, entry: _OnCluster, state: BatchState,
            done: Callable) -> None:
    render, t0 = entry.render, entry.t0
    try:
        with filtered(lambda: JobNamed(job.name)):  # (its join's warnings: named too)
            stats = render.finish()
    except Exception as exc:  # noqa: BLE001 - as above
        done(i, _failed(job, exc, t0))
        return
    result = JobResult(job.name, "resumed" if stats.segments_reused else "done", stats.frames,
                       stats.segments_made, stats.segments_reused,
                       stats.retries + stats.reruns,
                       time.perf_counter() - t0, str(job.output), frames_made=stats.frames_made)
    state.record(job, result.frames,  # its files' stamps, as a job here
                 {**_read_by_chunks(render), **(entry.assets or {})})
    done(i, result)  # records them (were none on Ray: a changed picture left it up to date)


def _read_by_chunks(render: Any) -> dict:
    """The stamps of the files a render job's chunks said their scenes read (its manifest's
    ``scene_files``), by path as :func:`.assets_of` gives them: a font ``update(t)`` gave at
    some frames alone, which the driver's scene never drew (was left out: changed, the job
    stayed up to date)."""
    manifest = getattr(render, "manifest", None)
    if not isinstance(render, ClusterRender) or manifest is None:
        return {}
    root = render.scene_file.resolve().parent
    return {str(root / name): stamp(root / name) for name in
            manifest.settings.get("scene_files") or {}}


def _named(name: str) -> Any:
    """A job's warnings begin with its name, as a job's here do (were unnamed on Ray, a
    trial): its chunks' and its preparation's."""
    return filtered(lambda: JobNamed(name))
