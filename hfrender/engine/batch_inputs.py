"""Which job of a jobs file makes another's input: the jobs run in order, so an fx job
reads (its input, its depth pass, a folder of frames) what a job before it writes, checked
when that is made, and never what a job after it writes (:mod:`.batch_paths` checks the
rest of a job's paths); an fx job's input there, and the rate it is read at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hfrender.engine.batch_paths import READS, declared, option_name, resolved_path
from hfrender.engine.batch_values import fx_defaults
from hfrender.errors import HFRenderError, InputError, InputErrors, first_line, pastable, toml_said
from hfrender.io.exr_footage import is_one_image
from hfrender.io.sequence_names import is_sequence
from hfrender.scene.sources import SHADER_SUFFIXES


def depth_made(options: dict, made: dict) -> bool:
    """Whether an earlier job writes the fx job's depth pass or motion vectors (they are
    checked when made)."""
    return any(options.get(key) is not None and resolved_path(Path(options[key])) in made
               for key in READS)


def beside(path: Path, options: dict) -> None:
    """An fx job's depth pass and motion vectors (``options``) read beside the jobs file
    ``path`` where relative, as its input is."""
    for key in READS:
        if key in options and not Path(options[key]).is_absolute():
            options[key] = str(path.parent / options[key])


def input_maker(source: Path, made: dict) -> Any | None:
    """The earlier job (of ``made``, the jobs by their resolved outputs) that writes an fx
    job's input ``source``: its output, or the frames it writes into the folder ``source``
    (checked when made; was: the folder there but empty refused, and, on a first run,
    not there, "input ... not found")."""
    folder = resolved_path(source)
    if folder is None:
        return None
    if folder in made:
        return made[folder]
    return next((job for out, job in made.items()
                 if out.parent == folder and is_sequence(str(out))), None)


def made_later(path: Path, entries: list, defaults: dict | None = None,
               overrides: dict | None = None) -> None:
    """One line for each job that reads (its input, its depth pass) what a later job
    writes: the jobs run in order (was: "input ... not found"; or, where an earlier batch
    had left that file, the job ran on it, the output of the settings before, as done).
    An fx job's depth pass is the one the command line gives every job (``overrides``),
    else its own, else ``[defaults]``' (was: [defaults]' not looked at)."""
    errors, later = [], {}  # the outputs of the jobs after the one looked at: their names
    for i in reversed(range(len(entries))):
        entry = entries[i]
        name = entry.get("name") if isinstance(entry, dict) else None
        for key, what in (("input", "input"), *READS.items()):
            taken, whose = _taken(entry, key, defaults or {}, overrides or {})
            read = declared(path, taken, key)
            maker = None if read is None else input_maker(read, later) if key == "input" \
                else later.get(read)  # (an input folder: the frames a job writes in it)
            if maker is not None:
                job = repr(name) if isinstance(name, str) else f"number {i + 1}"
                errors.insert(0, InputError(
                    f"{path}: job {job} reads {taken[key]} (its {what}{whose}), the output of job "
                    f"{maker!r}, which runs after it: the jobs run in order; put "
                    f"{maker!r} before it"))
        out = declared(path, entry, "output")
        if out is not None and isinstance(name, str):
            later[out] = name
    if errors:
        raise errors[0] if len(errors) == 1 else InputErrors(errors)


def _taken(entry: Any, key: str, defaults: dict, overrides: dict) -> tuple[Any, str]:
    """The entry with the ``key`` a job reads (an fx job's depth pass or motion vectors: the
    command line's, its own, or [defaults]' where the job takes it), and where that is from
    where not its own (``, of [defaults]``)."""
    fx = isinstance(entry, dict) and "input" in entry and "scene" not in entry
    if key not in READS or not fx:
        return entry, ""
    defaults = fx_defaults(defaults, entry, overrides)
    for table, whose in ((overrides, ", on the command line"), (entry, ""),
                         (defaults, ", of [defaults]")):
        if table.get(key) is not None:
            return {**entry, key: table[key]}, whose
    return entry, ""


def check_jobs_file(path: str | Path) -> None:
    """The jobs file is a file: one line naming it as given where it is empty or a folder
    (was "jobs file not found: ." for '', and "not found" of a folder that is there)."""
    p = Path(path)
    if not str(path).strip():
        raise InputError(f"jobs file {pastable(path)}: an empty path; name the jobs file "
                         "(jobs.toml)")
    if p.is_dir():
        found = sorted(f.name for f in p.glob("*.toml") if f.is_file())
        listed = f" (in it: {', '.join(found[:6])}{', ...' if len(found) > 6 else ''})" \
            if found else " (it holds no .toml file)"
        raise InputError(f"jobs file {pastable(p)} is a folder; name the jobs file in it"
                         f"{listed}")
    if not p.is_file():
        raise InputError(f"jobs file not found: {p}")
    if p.suffix.lower() in (".py", *SHADER_SUFFIXES):  # (was: "not a TOML file: Expected
        raise InputError(  # '=' after a key ...", a batch user's trial)
            f"jobs file {pastable(p)} is a scene, not a jobs file: render it alone with "
            f"hfrender render {pastable(p)} -o OUT.mp4, or name it in a jobs file's [[job]] "
            f"(scene = {toml_said(str(p))})")


def fx_input(where: str, entry: dict, source: Path, options: dict,
             maker: Any) -> None:
    """An fx job's input (``maker``: the earlier job that writes it, if one does) and the
    frame rate it is read at: a video's own (or the job's own fps: conformed), a render's
    frames at the render's rate."""
    if maker is None and not source.exists() and not _frames_there(where, source):
        raise InputError(f"{where}: input {source} not found")
    video = (source.is_file() and not is_one_image(str(source))) or (  # (one PNG: frames)
        maker is not None and not is_sequence(str(maker.output)))  # (a folder: its frames)
    given = any(option_name(k) == "fps" for k in entry)
    if video and "fps" in options and not given:  # (the job's own: its rate conformed)
        del options["fps"]  # the defaults' fps is the renders' rate
    elif maker is not None and maker.kind == "render" and not given and not video:
        options["fps"] = maker.render_config().fps  # its frames, at its rate


def _frames_there(where: str, source: Path) -> bool:
    """Whether an image sequence's pattern finds its frames; one line for a gap, or for a
    pattern of another width than the files beside it, as fx tells them."""
    from hfrender.io.sequence_files import sequence_files

    try:
        return is_sequence(str(source)) and bool(sequence_files(str(source)))
    except HFRenderError as exc:
        raise InputError(f"{where}: {first_line(exc)}") from None


def input_failed(job: Any, before: list, finished: dict) -> Any:
    """An fx job's result, not run, where its input or depth pass is the output of an
    earlier job that failed or was not run (was: run on that job's older output, "up to
    date", or "input not found"); ``finished``: the earlier jobs' results (or plans), by
    their place."""
    from hfrender.engine.batch_state import JobResult

    if job.kind != "fx":
        return None
    reads = {Path(p).resolve() for p in (job.source, *map(job.options.get, READS)) if p}
    for k, other in enumerate(before):
        status = finished[k].status
        if status in ("failed", "not run") and other.output.resolve() in reads:
            return JobResult(job.name, "not run", output=str(job.output),
                             error=f"it reads the output of job {other.name!r}, which "
                                   f"{'failed' if status == 'failed' else 'did not run'}")
    return None
