"""One job of a batch run (:func:`hfrender.engine.batch.run_job`): its command (a render or
an fx) and, where it fails, what its result says."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hfrender.engine.batch_paths import stamp
from hfrender.engine.batch_state import JobResult
from hfrender.errors import TOML, HFRenderError, as_given, first_line, pastable
from hfrender.io.goes_on import goes_on
from hfrender.io.sequence_names import is_sequence

log = logging.getLogger("hfrender.engine.batch")  # (the batch's: as its warnings always were)


def job_error(exc: BaseException) -> str:
    """A failed job's one line, here and on Ray alike: its settings as the jobs file's keys
    (was 'give max_length='), its way on as a batch goes on (:mod:`hfrender.io.goes_on`:
    the same batch command, never the --resume a batch refuses; was said on Ray, a review)."""
    return goes_on(first_line(as_given(exc, spell=TOML)), "batch")


def hold(job: Any) -> Any:
    """``job``'s output held for writing, an fx job's footage and depth pass for reading
    (:func:`hfrender.io.output_lock.holding`), here and on Ray alike; a refusal names each
    by its jobs file's key (``output out/bar.mp4: another hfrender ...``, as the batch's
    other lines of an output; was ``-o``, the command's flag)."""
    from hfrender.io.output_lock import holding

    return holding(str(job.output), reads_of(job), "output")


def reads_of(job: Any) -> list:
    """What ``job`` reads that another hfrender may be writing: an fx job's footage, depth
    pass and motion vectors, each named by its key (a render: none)."""
    from hfrender.io.output_lock import fx_sources

    return [] if job.kind == "render" else fx_sources(
        str(job.source), job.options.get("depth"), job.options.get("vectors"),
        ("input", "depth", "vectors"))


def output_folders(job: Any) -> Path | None:
    """A jobs file's output folders are made (the commands refuse a missing one): the
    outermost it made (:func:`hfrender.io.outputs.make_folder`)."""
    from hfrender.io.outputs import make_folder

    sequence = is_sequence(str(job.output))  # (its own folder: made by its first frame)
    return make_folder(str(job.output.parent if sequence else job.output))


def failed(result: JobResult, job: Any, exc: HFRenderError, began: float,
           before: tuple[int, int], made: Path | None) -> None:
    """``result`` of a job that failed with ``exc``: its line, what the next run goes on
    after (not another hfrender's, writing it now), and what this run made of it (``before``:
    the frames and segments kept when it began; was: segments 0/0, frames_made null, the fps
    of every kept frame); the folders it made (``made``) taken back where left empty (were
    left, a trial)."""
    from hfrender.io.output_lock import OutputBusy
    from hfrender.io.outputs import kept_partial, take_back
    from hfrender.io.resume import frames_kept
    from hfrender.io.segments import segments_kept

    result.error, result.busy = job_error(exc), isinstance(exc, OutputBusy)
    kept = kept_partial(str(job.output), began)  # a render's, an fx sequence's
    if kept:
        result.error += f"; the frames finished so far are in {pastable(kept)}" + (
            " (the next run of it writes there: move it elsewhere to keep it)"
            if Path(kept).name.startswith(".") else "")  # (a GIF left hidden, read-only)
    result.frames = 0 if isinstance(exc, OutputBusy) else frames_kept(str(job.output))
    result.frames_made = max(0, result.frames - before[0])
    remade = getattr(exc, "remade", getattr(exc.__cause__, "remade", None))  # a remake's:
    if remade is not None:  # (the sequence's frames, those made by its runs that ended)
        result.frames, result.frames_made = remade[0], remade[1] + result.frames_made
    result.segments_reused = before[1] if result.frames else 0
    result.segments_made = max(0, segments_kept(job.output) - before[1])
    take_back(made)
    log.info("job %r failed (its traceback, for -v):", job.name, exc_info=exc)


def assets_of(scene: Any) -> dict:
    """The stamps of the files a render's scene read (models, surface shaders, a shader's
    pictures), kept with its job's record: one changed makes the job again."""
    from hfrender.scene.meshes import scene_models
    from hfrender.scene.sources import asset_files

    return {**{str(f): stamp(f) for f in asset_files(scene)},
            **scene_models(getattr(scene, "objects", []))}


def run_one(job: Any, resume: bool, progress: Callable[[int, int], None] | None,
            frames: tuple[int, int] | None = None, slow_said: bool = False) -> dict:
    """Run ``job``'s command: its figures (frames, made, retries, segments; a render's
    models); ``frames``: a render's output frames START:END alone (:func:`remake`);
    ``slow_said``: a slow look at its scene said (the batch's own ``--quiet`` not given:
    the job's config is quiet of its own)."""
    if job.kind == "render":
        from hfrender.engine.render import RenderJob

        config = job.render_config(resume)
        render = RenderJob(job.source, config if frames is None else config.with_(frames=frames),
                           scene_name=job.scene_class, progress=progress,
                           slow_said=slow_said).prepare()
        assets = assets_of(render.scene)  # as read: one edited while it renders is seen
        try:  # changed by the next run (were stamped after it, a review)
            s = render.run()
        except KeyboardInterrupt as exc:  # the batch's line: what its partial output holds
            exc.frames_made = render.stats.frames_in_output  # (a rest of a few: left out)
            raise
        assets = {**assets_of(render.scene), **assets}  # and those read first later (a font
        # update(t) sets from t = 2 on: was left out, its job up to date once it changed)
        return {"frames": s.frames_in_output or s.frames_written, "made": s.frames_written,
                "retries": s.retries, "segments": s.segments, "models": assets}
    from hfrender.engine.fx import FxJob

    f = FxJob(str(job.source), str(job.output), job.fx_settings(resume), progress)
    s = f.prepare().run()
    return {"frames": s.total, "made": s.total - (s.resumed_at or 0), "retries": s.retries,
            "segments": s.segments}


def remake(job: Any, state: Any, gone: list[int],
           progress: Callable[[int, int], None] | None, slow_said: bool = False) -> dict:
    """Make the frames ``gone`` (numbers, ascending) of a render job's image sequence
    again, a render of each run of consecutive ones, the other frames kept
    (:meth:`.batch_state.BatchState.gone`; ``state``'s record, each run's frames recorded
    as it ends): :func:`run_one`'s figures (``slow_said``: its), the progress over the
    frames gone."""
    total = state.jobs[job.name]["frames"]
    runs = [[gone[0], gone[0] + 1]]
    for k in gone[1:]:
        if k == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([k, k + 1])
    names = [job.output.name % k for k in gone]
    which = names[0] if len(names) == 1 else \
        f"{len(names)} frames ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
    log.warning("job %r: %s of %s gone since it was made: making %s again alone (its other "
                "%d frames kept)", job.name, which, job.output,
                "it" if len(names) == 1 else "them", total - len(gone))
    figures = {"frames": total, "made": 0, "retries": 0, "segments": (0, 0), "models": {}}
    for a, b in runs:
        before = figures["made"]
        step = None if progress is None else (
            lambda done, _n, before=before: progress(before + done, len(gone)))
        try:
            s = run_one(job, False, step, (a, b), slow_said=slow_said)
        except (HFRenderError, OSError) as exc:  # its result counts the runs that ended
            exc.remade = (total - len(gone) + figures["made"], figures["made"])
            raise
        state.restamp(job, range(a, b))
        figures["made"] += s["made"]
        figures["retries"] += s["retries"]
        figures["models"].update(s["models"])
    return figures
