"""The checks of a batch's jobs before any runs (:mod:`.batch`): each job's values as its
command checks them, and the files the jobs read and write, against each other: where an
interrupted job would keep its frames must be no other job's file, a job may read what an
earlier job writes (not on Ray, where they run at once), and the summary is none of them;
and what identifies a job's input and the files its scene loaded, for the up-to-date check."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from hfrender.errors import HFRenderError, InputError, InputErrors, pastable, toml_said
from hfrender.frame_range import resolve
from hfrender.io.encoding import Encoding, check_encoding
from hfrender.io.input_clash import check_not_input
from hfrender.io.outputs import check_partial_free, check_writable, partial_name
from hfrender.io.sequence_commit import check_frames_there
from hfrender.io.sequence_names import (
    check_output_name,
    home_path,
    is_sequence,
    pattern_files,
    sequence_name,
)
from hfrender.io.writers import check_output
from hfrender.project_file import project_settings
from hfrender.scene.scene_file import scene_duration

READS = {"depth": "depth pass", "vectors": "motion vectors"}  # an fx job's files besides


def fx_reads(job: Any) -> list[tuple[str, Path]]:
    """The files an fx job reads besides its input (its depth pass, its motion vectors):
    (key, path) of those it has."""
    return [(key, Path(job.options[key])) for key in READS if job.options.get(key)]


def roles(jobs_file: Path, jobs: list[Any]) -> dict[Path, str]:
    """Each file the batch reads or writes (resolved) -> what it is to it ("the output of
    job 'a'", ...); the jobs file too."""
    found = {jobs_file.resolve(): "the jobs file"}
    for job in jobs:
        for what, file in (("input", job.source if job.kind == "fx" else None),
                           ("scene", job.source if job.kind == "render" else None),
                           *fx_reads(job), ("output", job.output)):
            if file is not None:
                found.setdefault(file.resolve(), f"the {what} of job {job.name!r}")
    return found


def _partial(job: Any) -> Path | None:
    """Where an interrupted run of ``job`` keeps its frames, if in a file of its own (a
    video render's; fx keeps none, a sequence's go to a folder of their own)."""
    if job.kind != "render" or is_sequence(str(job.output)):
        return None
    return Path(partial_name(str(job.output))).resolve()


def check_jobs(jobs_file: Path, jobs: list[Any], on_ray: bool = False) -> None:
    """One line for each pair of jobs of one name or one output, job whose interrupted
    frames would go where another job's file is, or (``on_ray``: every job at once) job
    that reads another's output, all told at once (was: one a run)."""
    errors = _distinct(jobs_file, jobs)
    taken = roles(jobs_file, jobs)
    for job in jobs:
        partial = _partial(job)
        if partial is not None and partial in taken:
            errors.append(InputError(f"{jobs_file}: job {job.name!r} would keep an interrupted"
                                     f" run's frames in {pastable(partial)}, {taken[partial]}: "
                                     "name one of them otherwise"))
    outputs = {job.output.resolve(): job.name for job in jobs}
    for job in jobs if on_ray else ():
        if job.source.resolve() in outputs:
            errors.append(InputError(f"{jobs_file}: job {job.name!r} reads the output of job "
                                     f"{outputs[job.source.resolve()]!r}, and on Ray the jobs "
                                     "run at once: run the batch without --ray, or in two"))
    if errors:
        raise errors[0] if len(errors) == 1 else InputErrors(errors)


def _distinct(jobs_file: Path, jobs: list[Any]) -> list[InputError]:
    """A line for each two jobs of one name or one output."""
    errors = []
    for attr in ("name", "output"):
        seen: dict = {}
        for job in jobs:
            value = job.name if attr == "name" else job.output.resolve()
            if value in seen and attr == "name":
                errors.append(InputError(f"{jobs_file}: two jobs are named {job.name!r}; give "
                                         "each its own name (the state file tells their "
                                         "outputs apart by it)"))
            elif value in seen and seen[value].name != job.name:  # (one name: said already)
                errors.append(InputError(f"{jobs_file}: jobs {seen[value].name!r} and "
                                         f"{job.name!r} have the same {attr} "
                                         f"({getattr(job, attr)}){_ranges(seen[value], job)}"))
            seen.setdefault(value, job)
    return errors


def _ranges(one: Any, other: Any) -> str:
    """What to do instead, where two jobs fill one image sequence by frame ranges."""
    if one.options.get("frames") is None or other.options.get("frames") is None:
        return ""
    return ("; one job makes the whole sequence (frames its whole range), or each range "
            "goes in a jobs file of its own")


def job_file(path: Path, value: str) -> Path:
    """A job's file, as the commands take it (``frames/####.png``), beside the jobs file."""
    value = sequence_name(home_path(value))  # (~/renders/a.mp4: no shell expands it here)
    return Path(value) if Path(value).is_absolute() else path.parent / value


# a job's files, and the options of a form, as a jobs file spells them (for its errors)
SPELT = {"scene": '"scenes/shot.py"', "input": '"clip.mp4"', "output": '"out/shot.mp4"',
         "frames": '"10:20" (output frames START:END, END exclusive; "10:" or ":20")',
         "size": '"1280x720"', "samples_range": '"4:64"', "focus_pixel": '"320,180"'}


def job_path(where: str, key: str, value: Any) -> str:
    """A job's ``key`` file as its entry gives it; one line where it is missing or not a
    path (was: "output is missing (a path)" for output = 5, a trial)."""
    if value is None:
        raise InputError(f"{where}: {key} is missing (a path)")
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: {key} = {toml_said(value)} must be a path{spelt(key)}")
    if key == "output":  # (was: output = "b.mp4/" wrote b.mp4, a review)
        try:
            check_output_name(value, named=lambda v: f"output = {toml_said(v)}")
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return value


def spelt(raw: str) -> str:
    """How a field of a form is spelt (``frames = 12`` was told "must be a string"
    alone), for the line of a value of the wrong type; ``raw``: as the file spells it."""
    form = SPELT.get(option_name(raw))
    return f" such as {raw} = {form}" if form else ""


def job_tables(path: Path, data: dict) -> tuple[dict, list]:
    """A jobs file's ``[defaults]`` and ``[[job]]`` entries; one line where either is not
    that (job = 5 was "no [[job]] entries", as for a file of none)."""
    defaults, entries = data.get("defaults", {}), data.get("job", [])
    if isinstance(entries, dict):  # [job], one table (was: "no [[job]] entries", a trial)
        raise InputError(f"{path}: [job] is one table; each job is a [[job]] entry (two "
                         "brackets), even where there is one")
    if not isinstance(defaults, dict):
        raise InputError(f"{path}: defaults = {toml_said(defaults)} is not a table; the "
                         "settings of every job go under [defaults]")
    if not isinstance(entries, list):
        raise InputError(f"{path}: job = {toml_said(entries)} is not a job; each job is a [[job]] "
                         "entry (two brackets) of name, scene or input, output")
    if not entries:
        raise InputError(f"{path}: no [[job]] entries")
    return defaults, entries


def declared(path: Path, entry: Any, key: str) -> Path | None:
    """A job's file ``key`` (resolved) as its entry gives it, if it is a path at all."""
    value = entry.get(key) if isinstance(entry, dict) else None
    return resolved_path(job_file(path, value)) if isinstance(value, str) and value else None


def resolved_path(path: Path) -> Path | None:
    """``path`` resolved; None where it cannot be (a NUL in it: told by the job's own
    check)."""
    try:
        return path.resolve()
    except (OSError, ValueError):
        return None


def check_summary(summary: str, jobs_file: Path, jobs: list[Any]) -> None:
    """``--summary`` is none of the batch's own files (the jobs file, an input, an
    output, where an interrupted job keeps its frames)."""
    taken = roles(jobs_file, jobs)
    taken.setdefault(jobs_file.with_name(f".{jobs_file.name}.state.json").resolve(),
                     "the batch's state file")
    for job in jobs:
        if (partial := _partial(job)) is not None:
            taken.setdefault(partial, f"where job {job.name!r} keeps an interrupted run's frames")
    there = taken.get(Path(summary).resolve())
    if there is None and Path(summary).name == "hfrender.toml":  # (JSON there broke the
        there = "the settings file hfrender reads"  # next run's settings, a trial)
    if there is None and Path(summary).suffix.lower() == ".toml":  # (a jobs file's name)
        there = "a TOML file's name; the summary is JSON (--summary results.json)"
    for job in jobs if there is None else ():  # a frame of a sequence the batch reads or
        for what, file in (("output", job.output), *fx_reads(job),  # writes: its pattern's,
                           ("input", job.source if job.kind == "fx" else None)):  # a folder's
            if there is None and file is not None and \
                    _a_frame_of(file.resolve(), Path(summary).resolve()):
                there = f"a frame of the {what} of job {job.name!r}"
    if there is not None:
        raise InputError(f"--summary {summary} is {there}: write the summary elsewhere")
    if not _a_summary(Path(summary)):
        raise InputError(f"--summary {summary}: a file is there that is not a batch summary; "
                         "hfrender replaces only its own: remove it, or write to another name")


def _a_summary(path: Path) -> bool:
    """Whether ``path`` may take a summary: nothing (or an empty file) there, or an earlier
    summary, a JSON list of jobs' results (a user's file was written over, a trial)."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return True
        if path.stat().st_size > 64 * 2**20:  # (a summary of a million jobs is smaller)
            return False
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # unreadable, or not JSON
        return False
    return isinstance(data, list) and all(
        isinstance(r, dict) and {"name", "status"} <= r.keys() for r in data)


def input_identity(path: Path, kinds: tuple[str, ...] | None = None) -> Any:
    """What identifies an fx job's input (or depth pass) as it is now: a file's size and
    time, each frame's of a sequence (a folder of ``kinds``, footage's unless told, or a %d
    pattern); its name where it is neither (not there yet)."""
    from hfrender.engine.fx_output import file_identity
    from hfrender.io.sequence_files import FOLDER_KINDS, sequence_files

    if path.is_file():
        return file_identity(str(path))
    try:
        files = sequence_files(str(path), kinds or FOLDER_KINDS)
    except HFRenderError:  # a gap, or no frame of the pattern
        files = None
    if not files:
        return str(path)
    return hashlib.sha256(json.dumps([(f.name, *stamp(f)) for f in files]).encode()).hexdigest()


def stamp(path: Path) -> list[int] | None:
    """A file's size and time (None: it is gone)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _a_frame_of(sequence: Path, file: Path) -> bool:
    """Whether ``file`` is a frame of ``sequence`` (a %d pattern, or a folder of frames)."""
    if sequence.is_dir():
        return file.parent == sequence
    rx = pattern_files(sequence.name) if is_sequence(str(sequence)) else None
    return rx is not None and file.parent == sequence.parent and bool(rx.match(file.name))


def check_job(job: Any, earlier: bool = False) -> None:
    """Every value of ``job`` checked as the command would check it, now: its settings,
    encoder, a render's output type, size and alpha (an fx job's size is its footage's),
    that its output's folder takes files (it is made when the job runs), and an fx job's
    depth pass against its input (not where an ``earlier`` job makes that input)."""
    checked = job.render_config() if job.kind == "render" else job.fx_settings()
    check_encoding(str(job.output), job.options.get("codec"), Encoding.of(checked))
    if job.kind == "render":
        from hfrender.engine.deep_output import render_dtype

        check_output(str(job.output), checked.size, checked.codec,
                     alpha=bool(checked.transparent),
                     pix_fmt=getattr(checked, "pix_fmt", None))
        render_dtype(checked)  # its bit-depth for its output (was: the job failed, exit 1)
        if checked.audio is not None:  # its sound file (was: none could be given)
            from hfrender.engine.render_output import render_sound

            render_sound(checked)
    check_writable(str(job.output), "output")
    if job.kind == "fx":  # its input (depth, vectors) there now (one an earlier job makes:
        check_not_input(str(job.output), [("input", [job.source])] +  # told by the outputs'
                        [(READS[key], [file]) for key, file in fx_reads(job)])  # check)
        from hfrender.engine.fx_depth import check_depth, window_there

        if fx_reads(job) and not earlier:  # path, size, frames, focus pixel, window (was:
            check_depth(str(job.source), checked)  # found only when the job's turn came)
        elif not earlier:
            if job.source.is_dir():  # its pictures (was: a folder of none failed when its
                from hfrender.io.footage import check_folder  # turn came)

                check_folder(str(job.source))
            window_there(str(job.source), checked)  # (was: at its turn, a bad-input sweep)
    if job.kind == "render":  # (fx keeps no partial output: its segments, for --resume)
        check_partial_free(str(job.output), "output")
        _shader_lines(job.source)
    told = render_frames(job, checked) if job.kind == "render" else None
    if told is not None:  # its frames (and --frames in them), where that can be told
        check_frames_there(str(job.output), *told, "output")  # (was: that job failed when
        # its turn came, a README audit)


def render_frames(job: Any, checked: Any = None) -> tuple[int, int] | None:
    """``(first, count)`` of the frames a render job makes (``--frames`` in them), where
    that can be told without running its scene (:func:`scene_duration`); else None."""
    checked = job.render_config() if checked is None else checked
    seconds = scene_duration(job.source, job.scene_class)
    if checked.duration is None and seconds is None:
        return None
    count = checked.frame_count(seconds)  # (a duration of 1e9 s: too many)
    return resolve(checked.frames, count, checked.fps)


def project_defaults(known: Any, folder: Path) -> dict:
    """The settings of ``hfrender.toml`` in ``folder`` (the jobs file's: the same records
    wherever a batch runs from; checked as a render checks them) that a render job takes,
    among ``known``, as the file gives them (its ``output``, ``preview``, ``frames`` and the
    like are one run's): under the jobs file's ``[defaults]``."""
    return {k: v for k, v in project_settings(folder, raw=True).items()
            if k.replace("-", "_") in known and k != "frames"}


def option_name(key: str) -> str:  # (a TOML key, dashes or underscores)
    return key.replace("-", "_")


def table_wheres(path: Path, where: str) -> tuple[str, str, str]:
    """Where each of a job's tables is: hfrender.toml beside the jobs file ``path``, the
    file's [defaults], and the job's own table (``where``)."""
    return str(path.parent / "hfrender.toml"), f"{path}: [defaults]", where


def taken_from(tables: tuple[dict, ...]) -> dict[str, tuple[int, str, Any]]:
    """Each key of a job's ``tables`` (hfrender.toml's, [defaults], its own), by option
    name: the table the job takes it from (a later one over an earlier), the key as that
    table spells it, and its value."""
    return {option_name(raw): (i, raw, value)
            for i, table in enumerate(tables) for raw, value in table.items()}


def blamed(where: str, said: str, overrides: dict, name: str, path: Path,
           taken: dict[str, tuple[int, str, Any]]) -> str:
    """Where a job's bad value came from: ``where``, the job's own table, the option given
    after the jobs file ``path`` (``samples=0 ...``, ``--crf 99: ...``, ``size 33x8: ...``
    name their key), or the table the job took it from (:func:`taken_from`): hfrender.toml's
    or the jobs file's [defaults]."""
    m = re.match(r"-*([A-Za-z_][\w-]*)[= :]", said)
    key = m.group(1).replace("-", "_") if m else None
    flag = f"--{str(key).replace('_', '-')}"
    if key in overrides:  # (said once where the line names it: --fps 0 must be ...)
        where = "on the command line" if said.startswith(f"{flag} ") else \
            f"{flag} (on the command line)"
        return f"{where}, for job {name!r}"
    table = taken[key][0] if key in taken else 2
    if table == 2:  # the job's own table (its where names the job)
        return where
    return f"{table_wheres(path, where)[table]}, for job {name!r}"


def _shader_lines(source: Path) -> None:
    """A shader's own lines (:mod:`hfrender.scene.shader_lines`), its buffers' (and theirs)
    and the pictures and common files they name, there now (was: a missing picture failed
    its job when its turn came, a trial)."""
    from hfrender.scene.loader import SHADER_SUFFIXES, shader_text
    from hfrender.scene.shader_passes import ShaderPass, buffer_passes

    if source.suffix.lower() not in SHADER_SUFFIXES or not source.is_file():
        return

    image = ShaderPass(shader_text(source), str(source))
    for shader in [image, *buffer_passes(image)]:  # (a common file: there, no mainImage)
        for channel, (path, _line) in shader.channel_files().items():
            if not path.is_file():
                raise InputError(f"{shader.channel_line(channel)}: no such file (a path from "
                                 "the shader's folder)")
