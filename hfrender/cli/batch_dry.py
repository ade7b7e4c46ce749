"""``hfrender batch JOBS --dry-run``: what a real run would do with each job now, as a table
(:mod:`hfrender.engine.batch_plan`), the jobs file checked as a run checks it; nothing run,
written, made, locked or removed (``--summary FILE``: the planned rows, alone)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from hfrender.cli.batch import BUSY, columns, ended_said, write_summary

RAY = ("--ray: a dry run does not connect to a cluster; what a run would do is told from the "
       "files here (on Ray, an interrupted render's image sequence starts over)")


def dry_run(jobs_file: Path, jobs: list, own: dict, quiet: bool) -> int:
    """The plan of every job said (``quiet``: not; its exit code tells): 0 where every job
    would run or is up to date, 1 where one would fail (or not run); a batch running this
    jobs file now refused as a real run is (exit 2)."""
    from hfrender.engine.batch_plan import plan_jobs
    from hfrender.engine.batch_state import BatchState
    from hfrender.io.output_lock import busy_now
    from hfrender.io.outputs import looking_only

    busy = busy_now(str(jobs_file.resolve()), [], "batch", BUSY)
    if busy is not None:
        raise busy
    if "ray" in own and not quiet:
        print(RAY, file=sys.stderr)
    with looking_only():
        plans = plan_jobs(jobs, BatchState.load(jobs_file, looking=True), "ray" in own)
    unsaved = own.get("summary") and write_summary(
        Path(own["summary"]), json.dumps([asdict(p) for p in plans], indent=1) + "\n")
    if not quiet:
        print(plan_table(plans), flush=True)
        print(counted(plans), file=sys.stderr)
    if unsaved:
        print(f"hfrender: error: {unsaved}", file=sys.stderr)
        return 1
    return 1 if any(p.status in ("failed", "not run") for p in plans) else 0


def plan_table(plans: list) -> str:
    """One row per job: its name, status as the run's summary would say it, frames ("-":
    not known before it runs), output, and what the run does (a failure: its line)."""
    head = ("job", "status", "frames", "output", "what a run does now")
    return columns([head] + [(p.name, p.status, "-" if p.frames is None else str(p.frames),
                              p.output, p.plan) for p in plans])


def counted(plans: list) -> str:
    """``dry run: 4 jobs: 1 done, 1 resumed, ...``: the jobs by how the run would end them."""
    return (f"dry run: {len(plans)} job{'' if len(plans) == 1 else 's'}: "
            f"{ended_said([p.status for p in plans])}; nothing was run, made or locked")
