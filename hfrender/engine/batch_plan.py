"""``hfrender batch JOBS --dry-run``: what a real run would do with each job now, decided
as :func:`.batch.run_job` decides it (up to date, frames gone, the output held by another
hfrender, the scene's import, an interrupted run's kept work and where it goes on), by
looking alone: nothing rendered, written, made, locked or removed. A render's scene is
imported (its module-level code runs, as a real run's does; no bytecode is written);
its ``setup()`` and ``update(t)`` are not run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hfrender
from hfrender.engine.batch_inputs import input_failed, input_maker
from hfrender.engine.batch_paths import input_identity, render_frames
from hfrender.engine.batch_progress import planned_frames
from hfrender.engine.batch_ray import mended_here
from hfrender.engine.batch_run import job_error, reads_of
from hfrender.errors import HFRenderError, InputError
from hfrender.frame_range import resolve, start_of
from hfrender.io.sequence_files import DEPTH_KINDS
from hfrender.io.sequence_names import is_sequence

RESOLVED = ("codec", "pix_fmt", "crf", "preset", "bitrate",  # what an fx run fills in (its
            "backend")  # footage's encoder defaults, the backend it finds)


@dataclass
class Planned:
    """One job's plan, in the summary's words: ``status`` as the real run's would end (done,
    resumed, up-to-date, failed, not run), ``frames`` its output's (None: not known before
    it runs), ``resume_at`` the frame a resumed one goes on at, ``error`` a failure's line,
    ``plan`` what the run does, said for the table."""

    name: str
    output: str
    status: str = "done"
    frames: int | None = None
    resume_at: int | None = None
    error: str | None = None
    plan: str = ""
    planned: bool = True  # (a --summary of a dry run: told apart from a run's)


def plan_jobs(jobs: list, state: Any, on_ray: bool = False) -> list[Planned]:
    """Every job's plan, in order: an fx job reading the output of a job that would fail is
    ``not run`` (its line as the real run's), one reading an output made first runs."""
    plans: dict[int, Planned] = {}
    for n, job in enumerate(jobs):
        skipped = input_failed(job, jobs[:n], plans)
        if skipped is not None:
            plans[n] = Planned(job.name, str(job.output), "not run", error=skipped.error,
                               plan=f"not run: {skipped.error}")
            continue
        before = {j.output.resolve(): (j, plans[k]) for k, j in enumerate(jobs[:n])}
        plans[n] = plan_job(job, state, on_ray, _made_first(job, before))
    return [plans[n] for n in range(len(jobs))]


def _made_first(job: Any, before: dict) -> str | None:
    """The name of the earlier job that makes an fx job's input or depth pass in this run
    (planned done or resumed), else None."""
    if job.kind != "fx":
        return None
    made = {out: j for out, (j, p) in before.items() if p.status in ("done", "resumed")}
    maker = input_maker(job.source, made)
    depth = job.options.get("depth")
    maker = maker or (made.get(Path(depth).resolve()) if depth else None)
    return None if maker is None else maker.name


def plan_job(job: Any, state: Any, on_ray: bool = False, after: str | None = None
             ) -> Planned:
    """``job``'s plan (``after``: the earlier job that makes its input first)."""
    plan = Planned(job.name, str(job.output))
    done = None if after else _looked(lambda: state.up_to_date(job))
    if done is not None:
        plan.status, plan.frames, plan.plan = "up-to-date", done.get("frames", 0), \
            "skip it: up to date"
        return plan
    gone = _looked(lambda: state.gone(job)) or []
    if gone and on_ray and not mended_here(job, state):  # (more than a few: made whole on
        gone = []  # the cluster, as a run's; review r2)
    try:
        _refused_now(job)
        _frames(job, state, plan)
        if gone:
            plan.frames = state.jobs[job.name]["frames"]
        kept = None if gone or after or (  # (an input made again first: another input)
            on_ray and job.kind == "render" and is_sequence(plan.output)) \
            else _kept(job, plan.frames)
    except HFRenderError as exc:
        plan.status, plan.error = "failed", job_error(exc)
        plan.plan = f"fail: {plan.error}"
        return plan
    if gone:
        plan.plan = f"make the {len(gone)} frame(s) gone since it was made again alone"
    elif kept:
        plan.status, plan.resume_at = "resumed", kept[0]
        plan.plan = f"resume it at frame {kept[0]} of {plan.frames} ({kept[1]})"
    else:
        count = "all its" if plan.frames is None else f"all {plan.frames}"
        plan.plan = f"{'render' if job.kind == 'render' else 'run'} {count} frames" + (
            f" (on job {after!r}'s output, made first)" if after else "")
    return plan


def _looked(look: Any) -> Any:
    """What ``look`` (at the batch's state) finds; None where a file it reads is not there
    yet or cannot be read (the real run makes the job)."""
    try:
        return look()
    except (OSError, HFRenderError):
        return None


def _refused_now(job: Any) -> None:
    """The refusal the real run meets first: the output held by another hfrender (an fx
    job's input or depth pass written by one); then a render's scene that does not load,
    an fx job's settings that do not go together."""
    from hfrender.io.output_lock import busy_now

    busy = busy_now(str(job.output), reads_of(job), "output")
    if busy is not None:
        raise busy
    if job.kind == "fx":
        job.fx_settings(True)


def _frames(job: Any, state: Any, plan: Planned) -> None:
    """``plan.frames``: those ``job``'s output has, a render's from its scene (its class's
    duration, else the scene imported: its errors are the real run's), an fx job's from its
    last run, else its input video's."""
    if job.kind == "render":
        config = job.render_config()
        told = render_frames(job, config)
        plan.frames = told and told[1]
        scene = _scene(job, config)
        if told is None:
            whole = config.frame_count(scene.duration)
            plan.frames = resolve(config.frames, whole, config.fps)[1]
    else:
        plan.frames = _fx_frames(job, state)


def _fx_frames(job: Any, state: Any) -> int | None:
    """An fx job's frames: its last run's, else its input video's windows."""
    known = planned_frames(job, state)
    if known is not None or not job.source.is_file() or is_sequence(str(job.source)):
        return known
    from hfrender.engine.fx_checks import output_count
    from hfrender.io.exr_footage import is_one_image
    from hfrender.io.probe import probe

    if is_one_image(str(job.source)):
        return None
    try:
        return output_count(probe(str(job.source)).count, job.fx_settings())
    except (OSError, HFRenderError):
        return None  # (the real run says it)


def _scene(job: Any, config: Any) -> Any:
    """A render job's scene loaded as the real run loads it first, no bytecode written."""
    from hfrender.scene.loader import load_scene

    with _no_bytecode():
        return load_scene(job.source, job.scene_class, config.duration)


@contextmanager
def _no_bytecode() -> Iterator[None]:
    """No ``__pycache__`` written by the imports meanwhile (a dry run writes nothing)."""
    was, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield
    finally:
        sys.dont_write_bytecode = was


def _kept(job: Any, frames: int | None) -> tuple[int, str] | None:
    """(the frame a resumed run goes on at, what is kept) where an interrupted run left work
    of ``job``'s settings that the real run goes on from; None where it starts over (none
    left, or of other settings, or damaged: as the real run decides it, from the kept
    manifest and the settings now)."""
    from hfrender.io import resume
    from hfrender.io.segments import Manifest, segments_kept

    folder = resume.kept_work(job.output)
    if folder is None:
        return None
    try:
        kept = Manifest.load(folder)
        if kept is None or (job.kind == "render" and kept.total_frames != frames):
            return None
        settings = _settings_now(job, kept.settings)
        start, _ = resume.resume_from(str(job.output), settings,
                                      "render" if job.kind == "render" else "run",
                                      _offset(job))
    except InputError:  # (--resume's refusals: the real run starts over)
        return None
    if start <= 0:
        return None
    n = segments_kept(job.output)
    said = (f"an interrupted run's {n} whole segment{'s' * (n != 1)} kept" if n else
            f"an interrupted run's {start} frame{'s' * (start != 1)} kept")
    return start, said


def _offset(job: Any) -> int:
    """Where a render's image sequence frames are counted from (its range's start)."""
    if job.kind != "render":
        return 0
    return start_of(job.render_config().frames)


def _settings_now(job: Any, kept: dict) -> dict:
    """The settings the real run compares with the kept manifest's: those told without a
    GL context or the scene's setup() (its GL renderer, backend, depth of field kind and
    the files its setup() reads: the kept run's, as on this machine) worked out now."""
    from hfrender.engine.render_setup import output_settings

    if job.kind == "render":
        config = job.render_config(resume=True)
        now = output_settings(job.source, config, kept.get("backend", ""), kept.get("dof", ""),
                              kept.get("total_frames", 0), kept.get("gl_renderer", ""))
        if "scene_files" in kept:
            now["scene_files"] = kept["scene_files"]
        return now
    s = job.fx_settings(True)
    depth = s.depth and input_identity(Path(s.depth), DEPTH_KINDS)
    now = s.output_settings()  # (a setting left to its default: the run fills it in, from
    for key in RESOLVED:  # the footage or the machine, as the kept run did: taken as the
        if now.get(key) is None:  # kept's; was compared unresolved, never the kept's: r2)
            now.pop(key, None)
    return {**kept, **now, "input": input_identity(job.source), "depth": depth or None,
            "hfrender": hfrender.__version__}
