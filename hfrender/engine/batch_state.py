"""What a batch's jobs made (:mod:`.batch`): each job's result, and the state file beside
the jobs file that tells a later run which outputs are up to date."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hfrender.engine.batch_paths import stamp
from hfrender.io.partial_record import fingerprint
from hfrender.io.sequence_names import is_sequence, pattern_files

log = logging.getLogger(__name__)


@dataclass
class JobResult:
    name: str
    status: str = "failed"
    frames: int = 0
    segments_made: int = 0
    segments_reused: int = 0
    retries: int = 0
    seconds: float = 0.0
    output: str = ""
    error: str | None = None
    frames_made: int | None = None  # by this run (a resumed job's output holds more)
    busy: bool = False  # failed as another hfrender uses its output (OutputBusy): not to mend

    @property
    def fps(self) -> float:
        made = self.frames if self.frames_made is None else self.frames_made
        return made / self.seconds if self.seconds > 0 and self.status != "up-to-date" \
            else 0.0


@dataclass
class BatchState:
    """What each job made, beside the jobs file: its settings key and the output's size
    and time, so that a later run can tell an up-to-date output."""

    path: Path
    jobs: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)  # each job's key, worked out once a run
    writable: bool = True  # False: said once, nothing recorded (every run makes every job)

    @classmethod
    def load(cls, jobs_file: Path, looking: bool = False) -> BatchState:
        """The state beside ``jobs_file``; a warning first where it cannot be written
        (``looking``: read alone, nothing tried nor recorded, ``batch --dry-run``)."""
        path = jobs_file.with_name(f".{jobs_file.name}.state.json")
        state = cls(path, _records(path, say=True))
        if looking:
            state.writable = False
            return state
        probe = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # as record() writes it
        try:
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            state.writable = False
            log.warning("%s cannot be written (%s): the jobs run, but what they make is not "
                        "recorded, so every run makes every job again; keep the jobs file "
                        "in a folder you can write", path, exc.strerror or exc)
        return state

    def up_to_date(self, job: Any) -> dict | None:
        rec = self.jobs.get(job.name)
        if not rec or rec.get("key") != self.key(job):
            return None
        made = _made(job.output, job.frame_numbers(rec.get("frames", 0)))
        if made is None or not _same(rec, made, job.output):
            return None
        return rec if _assets_same(rec) else None

    def gone(self, job: Any) -> list[int]:
        """The numbers of the frames of a render job's image sequence that are gone since
        it was made, where nothing else of it changed (settings, scene, models, and every
        other frame as it was made): what a run makes again, alone (was: the whole sequence
        for one frame deleted, a trial). None gone, all of them, or anything else changed:
        ``[]`` (the job is up to date, or runs whole)."""
        rec = self.jobs.get(job.name)
        stamps = rec.get("stamps") if rec else None
        rx = pattern_files(job.output.name) if job.kind == "render" else None
        if rx is None or not isinstance(stamps, dict) or rec.get("key") != self.key(job) \
                or not _assets_same(rec):
            return []
        gone = []
        for name, was in stamps.items():
            now, m = stamp(job.output.parent / name), rx.match(name)
            if m is None or (now is not None and now != was):
                return []  # a frame made again by hand (or not a frame): the job runs whole
            if now is None:
                gone.append(int(m.group(1)))
        numbers = job.frame_numbers(rec.get("frames", 0))
        added = numbers is None and set(_frame_files(job.output, None) or ()) - set(stamps)
        own = range(rec.get("frames", 0)) if numbers is None else numbers
        if added or len(gone) >= len(own) or any(k not in own for k in gone):
            return []  # (a file of the pattern not the job's, the user's own: was a range
        return sorted(gone)  # past the render's frames, and every run failed, a review)

    def key(self, job: Any) -> str:
        """``job.key()``, once a run (a long sequence's frames are each looked at)."""
        if job.name not in self.keys:
            self.keys[job.name] = job.key()
        return self.keys[job.name]

    def record(self, job: Any, frames: int, models: dict | None = None) -> None:
        """What ``job`` made, and the model files its scene held (``models``: each path's
        size and time when it was loaded, :func:`hfrender.scene.meshes.scene_models`)."""
        made = _made(job.output, job.frame_numbers(frames))
        if made is None or not self.writable:
            return
        if "size" in made:  # a file's content, told apart from its time (_same)
            made["fingerprint"] = fingerprint(job.output)
        elif job.kind == "render":  # each frame's size and time: one gone is made again
            made["stamps"] = {name: stamp(job.output.parent / name) for name in  # (gone())
                              _frame_files(job.output, job.frame_numbers(frames)) or ()}
        self.jobs[job.name] = {"key": self.key(job), **made, "frames": frames,
                               "assets": dict(sorted((models or {}).items()))}
        self._write(job)

    def restamp(self, job: Any, numbers: range) -> None:
        """The frames ``numbers`` of a render job's image sequence made again (a run of
        :func:`.batch_run.remake`): their sizes and times recorded, the rest of its record
        as it was, so that a remake stopped later makes only the frames it had not (was:
        those made again counted as changed by hand, and the whole sequence made, a
        review)."""
        rec = self.jobs.get(job.name)
        if rec is None or not isinstance(rec.get("stamps"), dict) or not self.writable:
            return
        for k in numbers:
            rec["stamps"][job.output.name % k] = stamp(job.output.parent / (job.output.name % k))
        self._write(job)

    def _write(self, job: Any) -> None:
        """The state file, ``job``'s record in it (with what another batch of the file
        recorded), written whole or not at all."""
        mine = {job.name: self.jobs[job.name]}
        self.jobs = {**_records(self.path), **mine}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(self.jobs, indent=1))
            os.replace(tmp, self.path)
        except OSError as exc:  # a full disk: the output is made, its record is not
            tmp.unlink(missing_ok=True)
            log.warning("job %r is done, but %s could not be written (%s): the next run "
                        "makes it again", job.name, self.path, exc.strerror or exc)


def _same(rec: dict, made: dict, output: Path) -> bool:
    """Whether the output (``made``: :func:`_made`) is the one ``rec`` recorded: each stamp
    the same, or a file's size and its content's fingerprint where only its time changed (a
    ``touch``, a copy back from a backup: was made again, a trial)."""
    if all(rec.get(k) == v for k, v in made.items()):
        return True
    try:
        return "fingerprint" in rec and rec.get("size") == made.get("size") and \
            rec["fingerprint"] == fingerprint(output)
    except OSError:
        return False


def _made(output: Path, numbers: range | None = None) -> dict | None:
    """What an output is made of, to tell it unchanged: a file's size and time; an image
    sequence's files, each its name, size and time, in one checksum (a frame replaced,
    added or gone changes it): the frames ``numbers`` (a job's range of the sequence),
    else every file of its pattern. None where there is nothing."""
    if not is_sequence(str(output)):
        st = stamp(output) if output.is_file() else None
        return None if st is None else {"size": st[0], "mtime_ns": st[1]}
    files = _frame_files(output, numbers)
    if not files:
        return None
    h = hashlib.sha256()
    for name in files:
        h.update(f"{name} {stamp(output.parent / name)}\n".encode(errors="surrogateescape"))
    return {"sequence": h.hexdigest(), "files": len(files)}


def _frame_files(output: Path, numbers: range | None) -> list[str] | None:
    """The names of an image sequence's frames ``numbers`` (a job's range of it), else of
    every file of its pattern there; None where its folder is not there."""
    rx, folder = pattern_files(output.name), output.parent
    if rx is None or not folder.is_dir():
        return None
    if numbers is not None:
        return [output.name % k for k in numbers]
    return sorted(f.name for f in folder.iterdir() if rx.match(f.name))


def _assets_same(rec: dict) -> bool:
    """Whether every model file the job's scene loaded is as it was (none changed or gone)."""
    return all(stamp(Path(p)) == s for p, s in rec.get("assets", {}).items())


def _a_record(rec: object) -> bool:
    """Whether ``rec`` is a job's record as :meth:`BatchState.record` writes it (its key,
    frames, and its model files' stamps; a review: "assets": [1] was an internal error)."""
    return isinstance(rec, dict) and isinstance(rec.get("key"), str) and \
        type(rec.get("frames", 0)) is int and isinstance(rec.get("assets", {}), dict) and \
        all(s is None or isinstance(s, list) for s in rec.get("assets", {}).values())


def _records(path: Path, say: bool = False) -> dict:
    """A state file's records (none where it is missing, unreadable or not ours; a record
    that is not one is left out: was an internal error, a batch user's trial); ``say``:
    a file there that holds none is said (every job then runs again)."""
    try:
        jobs = json.loads(path.read_text())
    except OSError:  # (missing; a folder, unreadable: said where it cannot be written)
        return {}
    except ValueError as exc:  # not JSON: damaged
        jobs = exc
    records = {k: v for k, v in jobs.items() if _a_record(v)} if isinstance(jobs, dict) \
        else {}
    if say and (not isinstance(jobs, dict) or len(records) < len(jobs)):
        log.warning("%s is not a batch state hfrender can read in full (damaged, or edited?):"
                    " the jobs it does not record run again", path)
    return records
