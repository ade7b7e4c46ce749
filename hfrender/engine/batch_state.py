"""What a batch's jobs made (:mod:`.batch`): each job's result, and the state file beside
the jobs file that tells a later run which outputs are up to date."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hfrender.engine.batch_paths import stamp


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

    @classmethod
    def load(cls, jobs_file: Path) -> BatchState:
        path = jobs_file.with_name(f".{jobs_file.name}.state.json")
        return cls(path, _records(path))

    def up_to_date(self, job: Any) -> dict | None:
        rec = self.jobs.get(job.name)
        if not rec or rec.get("key") != self.key(job) or not job.output.is_file():
            return None
        st = job.output.stat()
        if (st.st_size, st.st_mtime_ns) != (rec["size"], rec["mtime_ns"]):
            return None
        return rec if all(stamp(Path(p)) == s for p, s in rec.get("assets", {}).items()) \
            else None  # a model the scene loaded has changed (or is gone)

    def key(self, job: Any) -> str:
        """``job.key()``, once a run (a long sequence's frames are each looked at)."""
        if job.name not in self.keys:
            self.keys[job.name] = job.key()
        return self.keys[job.name]

    def record(self, job: Any, frames: int, models: dict | None = None) -> None:
        """What ``job`` made, and the model files its scene held (``models``: each path's
        size and time when it was loaded, :func:`hfrender.scene.meshes.scene_models`)."""
        if not job.output.is_file():  # sequences are not recorded: they run again
            return
        st = job.output.stat()
        self.jobs[job.name] = {"key": self.key(job), "size": st.st_size,
                               "mtime_ns": st.st_mtime_ns,
                               "frames": frames,
                               "assets": dict(sorted((models or {}).items()))}
        mine = {job.name: self.jobs[job.name]}  # with what another batch of the file recorded
        self.jobs = {**_records(self.path), **mine}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.jobs, indent=1))
        os.replace(tmp, self.path)


def _records(path: Path) -> dict:
    """A state file's records (none where it is missing, unreadable or not ours)."""
    try:
        jobs = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return jobs if isinstance(jobs, dict) else {}
