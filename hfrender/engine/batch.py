"""Batch rendering: a jobs file of render and fx jobs, each run on the one engine.

A jobs file (TOML) has a ``[defaults]`` table and ``[[job]]`` entries. A job has a
``name``, a ``scene`` (a .py or .frag file, optionally ``scene_class``) for a render or an
``input`` (a video or PNG sequence) for an fx job, an ``output``, and any option of
``hfrender render`` / ``hfrender fx`` by its long name (dashes or underscores), paths
relative to the jobs file (``hfrender.toml``'s ``[render]`` beside it: under a render
job's ``[defaults]``). Every job is checked before any runs, the wrong ones told together.

Each job then runs in turn: skipped as ``up-to-date`` when its output is the one the same
settings made (a state file beside the jobs file records what each job made), continued as
``resumed`` when an interrupted run left segments, ``failed`` (with its one-line reason)
without stopping the others, else ``done``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hfrender
from hfrender.config import ConfigError, RenderConfig, parse_range, parse_size
from hfrender.engine.batch_fields import each_jobs_own, unknown_field
from hfrender.engine.batch_inputs import beside, depth_made, fx_input, input_maker, made_later
from hfrender.engine.batch_paths import (
    READS,
    blamed,
    check_job,
    check_jobs,
    declared,
    input_identity,
    job_file,
    job_path,
    job_tables,
    option_name,
    project_defaults,
    table_wheres,
    taken_from,
)
from hfrender.engine.batch_run import failed, hold, output_folders, remake, run_one
from hfrender.engine.batch_state import BatchState, JobResult
from hfrender.engine.batch_values import (
    codec_told,
    file_fps,
    fx_tables,
    job_said,
    own_key_misspelt,
    said_once,
    taken_by_some,
    typed,
)
from hfrender.engine.project_fit import fitted_table
from hfrender.engine.render_setup import NOT_IN_OUTPUT
from hfrender.errors import (
    HFRenderError,
    InputError,
    InputErrors,
    as_given,
    system_refused,
    toml_said,
)
from hfrender.frame_range import parse_frames, start_of
from hfrender.io.sequence_files import DEPTH_KINDS, VECTOR_KINDS
from hfrender.io.sequence_names import home_path, sequence_name
from hfrender.scene.scene_file import check_scene_file
from hfrender.scene.sources import scene_modules

log = logging.getLogger(__name__)
AUTO = "auto"
# option name -> the type a value must have (TOML's own types)
RENDER_OPTIONS: dict[str, Any] = {
    "fps": float, "size": str, "duration": float, "samples": (int, AUTO),
    "samples_range": str, "reconstruct": str, "shutter": float,
    "shutter_position": str, "shutter_curve": str, "jitter": bool, "dof": str,
    "max_coc_px": float, "dof_method": str, "backend": str, "gl": str,
    "granularity": (int, AUTO), "workers": (int, AUTO), "fusion_process": str,
    "schedule": str, "seed": int, "codec": str, "interop": str,
    "crf": int, "preset": str, "bitrate": (str, int), "pix_fmt": str, "frames": str,
    "bit_depth": int, "transparent": bool, "msaa": (int, AUTO), "hdr": str,
    "antialias": bool, "max_in_flight": int, "audio": str, "audio_offset": float,
    "passes": (str, list),
}
FX_OPTIONS: dict[str, Any] = {
    "motion_blur": int, "stride": int, "weights": str, "gamma_space": bool, "depth": str,
    "depth_scale": float, "depth_zero_is_sky": bool, "focus_distance": float,
    "focus_pixel": str, "depth_resize": str, "depth_range": str, "f_stop": float,
    "focal_length_mm": float, "sensor_width_mm": float, "max_coc_px": float,
    "aperture_blades": int, "dof_method": str, "backend": str, "codec": str, "fps": float,
    "depth_kind": str, "focus_disparity": float, "max_blur": float, "vectors": str,
    "shutter": float, "max_length": float, "workers": (int, AUTO), "crf": int, "preset": str,
    "bitrate": (str, int), "pix_fmt": str,
}
JOB_KEYS = ("name", "scene", "scene_class", "input", "output")
STATUSES = ("done", "up-to-date", "resumed", "failed", "interrupted", "not run")


@dataclass(frozen=True)
class BatchJob:
    """One job of a jobs file, its paths resolved and its options checked."""

    name: str
    kind: str  # "render" | "fx"
    source: Path  # the scene file, or the footage
    output: Path
    options: dict
    scene_class: str | None = None

    def render_config(self, resume: bool = False) -> RenderConfig:
        values = {k: v for k, v in self.options.items() if k in RENDER_OPTIONS}
        if "size" in values:
            values["size"] = parse_size(values["size"])
        if "samples_range" in values:
            values["samples_range"] = parse_range(values["samples_range"])
        if "frames" in values:
            values["frames"] = parse_frames(values["frames"])
        return RenderConfig(output=str(self.output), quiet=True, resume=resume, **values)

    def fx_settings(self, resume: bool = False) -> Any:
        from hfrender.engine import fx_settings as fs

        o, lens = dict(self.options), None
        fs.check_needs(o, lambda k: k.replace("_", "-"))  # the file's keys (was: flags)
        if o.get("focus_pixel") is not None:
            o["focus_pixel"] = fs.focus_pixel(o["focus_pixel"], fs.FLAG)  # (as_given: its key)
        if o.get("depth") is not None or o.get("depth_kind") == "disparity":  # (its keys)
            lens = fs.depth_lens(o, lambda k: k.replace("_", "-"))
        if "motion_blur" not in o and lens is None and o.get("vectors") is None:
            raise ConfigError("nothing to do: give motion-blur (or vectors) and/or depth")
        return fs.FxSettings(o.get("motion_blur", 1), o.get("stride", 1), o.get("weights", "box"),
                             not o.get("gamma_space", False), o.get("depth"),
                             o.get("depth_scale", 1.0), lens, o.get("backend"),
                             o.get("codec"), o.get("fps"), o.get("workers", AUTO), resume,
                             o.get("dof_method", "fast"), max_length=o.get("max_length"),
                             **{k: o.get(k) for k in ("crf", "preset", "bitrate", "pix_fmt")},
                             depth_zero_is_sky=o.get("depth_zero_is_sky", False),
                             focus_pixel=o.get("focus_pixel"),
                             depth_resize=o.get("depth_resize"),
                             depth_range=None if o.get("depth_range") is None else
                             fs.parse_range(o["depth_range"], "depth-range"),
                             depth_kind=o.get("depth_kind", "distance"),
                             **{k: o.get(k) for k in ("focus_disparity", "max_blur", "vectors")},
                             shutter=o.get("shutter", fs.SHUTTER))

    def frame_numbers(self, frames: int) -> range | None:
        """The numbers of the ``frames`` files a render job with a range writes into its
        image sequence (other jobs may fill the rest of it); None: every file is its own."""
        start = start_of(parse_frames(self.options["frames"])) if self.kind == "render" \
            and self.options.get("frames") is not None else None
        return None if start is None else range(start, start + frames)

    def key(self) -> str:
        """What the output depends on: the options, the source (depth, motion vectors)
        files, hfrender's version. An image sequence counts by its frames' names, sizes and
        times: one made again (by an earlier job of the batch, say) makes its fx job run
        again."""
        ident = (hashlib.sha256(self.source.read_bytes()).hexdigest() if self.kind == "render"
                 else input_identity(self.source))
        depth = self.options.get("depth")  # by its identity below, not by how the jobs file
        # spells its path (its vectors too); not how the work is spread (the same bytes: was
        # all made again), but the granularity (its hyperframes place a video's keyframes)
        tuning = set(NOT_IN_OUTPUT) - {"granularity"} if self.kind == "render" else {"workers"}
        options = {k: v for k, v in self.options.items() if k not in READS and k not in tuning}
        fields = {"kind": self.kind, "options": options, "source": ident,
                  "depth": input_identity(Path(depth), DEPTH_KINDS) if depth else None,
                  "scene_class": self.scene_class, "hfrender": hfrender.__version__}
        for key, kinds in (("vectors", VECTOR_KINDS), ("audio", None)):  # its motion
            if self.options.get(key):  # vectors, its sound, as they are now (a changed one:
                fields[key] = input_identity(Path(self.options[key]), kinds)  # made again)
        modules = scene_modules(self.source) if self.kind == "render" else {}
        if modules:  # the scene's own modules it imports (a changed common.py counts)
            fields["modules"] = modules
        text = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _job(path: Path, index: int, entry: Any, defaults: tuple[dict, dict], overrides: dict,
         made: dict[Path, BatchJob]) -> BatchJob:
    """The job of ``entry``, checked; ``defaults``: hfrender.toml's render settings, then
    the jobs file's [defaults]; ``made``: the jobs before it, by their outputs."""
    if not isinstance(entry, dict):
        raise InputError(f"{path}: [[job]] number {index + 1} is not a table")
    name = entry.get("name")
    where = f"{path}: job {name!r}" if isinstance(name, str) else \
        f"{path}: [[job]] number {index + 1}"
    own_key_misspelt(where, entry, {*RENDER_OPTIONS, *FX_OPTIONS})
    if not isinstance(name, str) or not name.strip() or not name.isprintable():  # (5 was
        raise InputError(f"{where}: name is missing (a string)" if name is None else  # missing,
                         f"{where}: name = {toml_said(name)} must be a string of some characters, "
                         "on one line (name = \"shot\")")  # "a\nb" split its table row)
    kind = "render" if "scene" in entry else "fx" if "input" in entry else None
    if kind is None or ("scene" in entry and "input" in entry):
        raise InputError(f"{where}: give either scene (a render) or input (an fx job)")
    project = defaults[0] if kind == "render" else {}
    if project and isinstance(entry.get("output"), str):  # what of it fits the job's output
        given = {option_name(k): v for t in (defaults[1], entry, overrides)
                 for k, v in t.items()}
        project = fitted_table(project, str(job_file(path, entry["output"])), given,
                               bool({**defaults[1], **entry}.get("transparent")))
    options = _options(path, where, kind, (project, *(fx_tables if kind == "fx" else tuple)(
        (defaults[1], entry, overrides))))
    files = {}
    for key in ("scene", "input", "output"):
        if key == ("input" if kind == "render" else "scene"):
            continue
        files[key] = job_file(path, job_path(where, key, entry.get(key)))
    source = files["scene" if kind == "render" else "input"]
    scene_class = entry.get("scene_class", entry.get("scene-class"))  # (as every key: was
    #                                                    scene-class passed over, a trial)
    if scene_class is not None and not isinstance(scene_class, str):
        raise InputError(f"{where}: scene_class = {toml_said(scene_class)} must be a string")
    if kind == "render":
        try:  # the file, its syntax and the class named, without running it
            check_scene_file(source, scene_class)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    maker = input_maker(source, made) if kind == "fx" else None
    if kind == "fx":
        fx_input(where, entry, source, options, maker)
    beside(path, options)  # (its depth pass, its motion vectors)
    job = BatchJob(name, kind, source, files["output"], options, scene_class)
    try:
        check_job(job, earlier=maker is not None or depth_made(options, made))
    except (InputError, ValueError) as exc:  # named as given (was: max_in_flight=0)
        taken = taken_from((project, defaults[1], entry))
        said = str(as_given(exc, job_said(taken, overrides))).splitlines()[0]
        blame = blamed(where, said, overrides, name, path, taken)
        raise InputError(f"{blame}: {said}") from None
    codec_told(job, (defaults[1], entry, overrides))
    return job


def _options(path: Path, where: str, kind: str, tables: tuple[dict, ...]) -> dict:
    """A job's options, typed: hfrender.toml's, ``[defaults]``, its own table (each key
    its kind's), then the options given after the jobs file, each over the one before."""
    known = RENDER_OPTIONS if kind == "render" else FX_OPTIONS
    options: dict = {}
    wheres = (*table_wheres(path, where), where)
    for i, (table, strict, at) in enumerate(zip(tables, (False, False, True, False), wheres,
                                                strict=True)):
        for raw, value in table.items():
            key = option_name(raw)
            if key in JOB_KEYS:
                continue
            if key not in known:
                if strict:
                    raise InputError(unknown_field(where, raw, kind, known))
                if key not in RENDER_OPTIONS and key not in FX_OPTIONS:  # [defaults]' own
                    raise InputError(unknown_field(f"{path}: [defaults]", raw, "render or fx",
                                              {**RENDER_OPTIONS, **FX_OPTIONS}))
                continue  # a default meant for the other kind of job
            if key == "fps":  # "24000/1001" as --fps takes it
                value = file_fps(at, raw, value)
            elif key in READS and isinstance(value, str):  # depth/####.png as --depth takes
                value = sequence_name(home_path(value))
            elif key == "audio" and isinstance(value, str):  # the files' beside the jobs file
                value = str(job_file(path, value) if i < 3 else Path(home_path(value)).resolve())
            options[key] = typed(at, raw, value, known[key], typed_there=i == 3)
    return options


def load_jobs(path: str | Path, overrides: dict | None = None) -> list[BatchJob]:
    """The jobs of a jobs file, every one checked: InputError (one line naming the job and
    the field) for a job that is wrong, :class:`InputErrors` for several (an fx job that
    reads a wrong job's output is that job's error)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    from hfrender.engine.batch_inputs import check_jobs_file

    check_jobs_file(path)
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a TOML file: {exc}") from None
    unknown = sorted(set(data) - {"defaults", "job"})
    if unknown:
        raise InputError(f"{path}: unknown table {unknown[0]!r}; a jobs file has [defaults] "
                         "and [[job]] entries")
    defaults, entries = job_tables(path, data)
    own = next((k for k in defaults if option_name(k) in JOB_KEYS), None)
    if own is not None:  # it was left out without a word, and the jobs told of missing it
        raise InputError(f"{path}: [defaults]: {each_jobs_own(own)}")
    own_key_misspelt(f"{path}: [defaults]", defaults, {*RENDER_OPTIONS, *FX_OPTIONS}, True)
    made_later(path, entries, defaults, overrides)  # (an fx job before the job that makes
    #                                                 its input)
    project = project_defaults(RENDER_OPTIONS, path.parent) if any(  # (fx jobs alone: none)
        isinstance(e, dict) and "scene" in e for e in entries) else {}
    jobs: list[BatchJob] = []
    errors: list[InputError] = []  # every job's, told together
    wrong: set[Path | None] = set()  # the outputs of the jobs found wrong (None: none)
    for i, e in enumerate(entries):  # an fx job may read what an earlier job writes
        try:
            jobs.append(_job(path, i, e, (project, defaults), overrides or {},
                             {j.output.resolve(): j for j in jobs}))
        except InputError as exc:
            read = declared(path, e, "input")
            if read is None or read not in wrong:  # else: it is that job's error
                errors.append(exc)
            wrong.add(declared(path, e, "output"))
    errors = said_once(errors)  # (one bad value of the command line's: one line)
    if errors:
        raise errors[0] if len(errors) == 1 else InputErrors(errors)
    taken_by_some(overrides or {}, jobs, {"render": RENDER_OPTIONS, "fx": FX_OPTIONS})
    check_jobs(path, jobs)
    return jobs


Progress = Callable[[int, int], None]


def run_job(job: BatchJob, state: BatchState, progress: Progress | None = None,
            slow_said: bool = False) -> JobResult:
    """Run one job (or skip it); never raises but for Ctrl-C: a failure is its result;
    ``slow_said``: a slow look at a render's scene said (:func:`.batch_run.run_one`)."""
    from hfrender.io.outputs import ours_partial
    from hfrender.io.resume import frames_kept, interrupted, kept_work
    from hfrender.io.segments import segments_kept

    result = JobResult(job.name, output=str(job.output))
    t0, began = time.perf_counter(), time.time() - 0.05  # (a file time: a coarser clock)
    done = state.up_to_date(job)
    if done is not None:
        result.status, result.frames = "up-to-date", done.get("frames", 0)
        left = kept_work(job.output)  # a run of other settings, stopped: its work stays
        if left is not None:
            log.warning("job %r is up to date; %s holds an interrupted run's work of other "
                        "settings (it goes on from there if they come back; else delete it)",
                        job.name, left)
        watch = ours_partial(str(job.output))  # (was left unsaid for ever, a trial)
        if watch is not None:
            log.warning("job %r is up to date; %s, an interrupted run's frames to watch, is "
                        "left beside it (delete it once seen)", job.name, watch.name)
        return result
    gone = state.gone(job)  # frames of a sequence gone: those alone, an interrupted run's
    resume = not gone and interrupted(job.output)  # work (a remake's) started over (was:
    # the whole sequence again after a remake stopped, said to resume, a review)
    before = (frames_kept(str(job.output)), segments_kept(job.output))  # a failure's made
    made = None  # the output folders this run made (a failure takes them back)
    try:
        made = output_folders(job)
        with hold(job):  # one writer at a time, an fx's inputs read
            try:
                stats = remake(job, state, gone, progress, slow_said) if gone \
                    else run_one(job, resume, progress, slow_said=slow_said)
            except InputError as exc:  # --resume's refusals (resume.resume_from)
                if not resume or "--resume" not in str(exc):
                    raise
                resume = False  # the interrupted run had other settings: start over
                before = (0, 0)  # (its work discarded: none of it this run's, a review)
                stats = run_one(job, False, progress, slow_said=slow_said)
        result.status = "resumed" if resume and stats["made"] < stats["frames"] else "done"
        result.frames, result.retries = stats["frames"], stats["retries"]
        result.frames_made = stats["made"]
        result.segments_made, result.segments_reused = stats["segments"]
        state.record(job, result.frames, stats.get("models", {}))
    except HFRenderError as exc:  # said as a batch goes on (a join failed: run it again)
        failed(result, job, exc, began, before, made)
    except Exception as exc:  # noqa: BLE001 - a bug in one job does not stop the others
        refused = system_refused(exc)  # a full disk, a file size limit: its one line, as a
        if refused is not None:  # render's (was "internal error, a bug", a trial)
            failed(result, job, refused, began, before, made)
        else:
            result.error = f"internal error: {type(exc).__name__}: {exc}"
            log.warning("job %r: internal error, a bug in hfrender; please report it with "
                        "the jobs file and this traceback:", job.name, exc_info=exc)
    result.seconds = time.perf_counter() - t0
    return result
