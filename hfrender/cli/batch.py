"""``hfrender batch JOBS.toml``: many render and fx jobs (the work is in
:mod:`hfrender.engine.batch`)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

from hfrender.cli.batch_words import overrides_of
from hfrender.cli.common import (
    complete,
    empty_path,
    interrupted_code,
    ray_address,
    sigterm_interrupts,
    stop_asked,
)
from hfrender.config import ConfigError
from hfrender.engine.batch_inputs import input_failed
from hfrender.engine.batch_progress import BatchTally, go_on, planned_frames
from hfrender.errors import pastable
from hfrender.io.segments import segments_kept
from hfrender.io.sequence_names import home_path
from hfrender.logs import JobNamed, filtered
from hfrender.progress import progress_bar, span, time_of_day

BUSY = "is running this jobs file; wait for it to end"  # one batch of a jobs file at a time


def cmd_batch(args: argparse.Namespace) -> int:
    from hfrender.io.output_lock import output_lock
    from hfrender.io.outputs import looking_only

    own, overrides = overrides_of(args.options)
    if own.get("verbose"):
        args.verbose = True  # main() shows a traceback with the error
        logging.getLogger().setLevel(logging.INFO)
    quiet = bool(own.get("quiet"))
    with looking_only() if own.get("dry_run") else nullcontext():  # (no probe file made)
        jobs = _checked(args, own, overrides)
    if own.get("dry_run"):
        from hfrender.cli.batch_dry import dry_run

        return dry_run(Path(args.jobs), jobs, own, quiet)
    with output_lock(str(Path(args.jobs).resolve()), "batch", BUSY):
        return _run_batch(args, jobs, own, quiet)


def _checked(args: argparse.Namespace, own: dict, overrides: dict) -> list:
    """The jobs of the jobs file, each checked, and the batch's own options (a dry run's
    too: the same refusals)."""
    from hfrender.engine.batch import load_jobs
    from hfrender.engine.batch_paths import check_jobs, check_summary
    from hfrender.engine.batch_values import numbers_checked

    ray_address(own.get("ray"))  # (--ray '': was "Invalid address format:")
    jobs = load_jobs(args.jobs, overrides)  # every job checked before any runs
    numbers_checked(overrides)
    if "ray" in own:
        check_jobs(Path(args.jobs), jobs, on_ray=True)
    if own.get("summary") is True:
        raise ConfigError("--summary needs a file: --summary FILE")
    empty_path("--summary", own.get("summary"), "--summary FILE")
    if own.get("summary"):  # (--summary=~/s.json: no shell expanded it)
        own["summary"] = home_path(own["summary"])
    if own.get("summary"):  # writable before hours of jobs, not found unwritable after them
        from hfrender.io.outputs import check_writable

        check_summary(own["summary"], Path(args.jobs), jobs)
        if Path(own["summary"]).is_dir():
            raise ConfigError(f"--summary {own['summary']} is a folder; give a file in it, "
                              f"e.g. {Path(own['summary']) / 'summary.json'}")
        check_writable(own["summary"], "--summary")
    return jobs


def _run_batch(args: argparse.Namespace, jobs: list, own: dict, quiet: bool) -> int:
    from hfrender.engine.batch_state import BatchState

    state = BatchState.load(Path(args.jobs))
    finished: dict = {}  # job index -> its result, as each ends
    started: set = set()  # the jobs begun (on Ray, all at once)
    running: dict = {}  # the job running here: its index, start and frames made so far
    code, t0 = 0, time.perf_counter()
    with sigterm_interrupts():
        try:
            if "ray" in own:
                started.update(range(len(jobs)))
                _on_ray(jobs, state, own["ray"], quiet, finished)
            else:
                tally = BatchTally([planned_frames(j, state) for j in jobs])  # the whole's
                for n, job in enumerate(jobs):
                    started.add(n)
                    running.clear()  # (its kept frames: told by its first progress)
                    running.update(n=n, t0=time.perf_counter(), frames=0,
                                   began=time.time() - 2,  # (file times: 1-2 s coarse)
                                   segments=segments_kept(job.output))
                    failed = input_failed(job, jobs[:n], finished)
                    finished[n] = failed or _one(job, state, (n, tally), quiet, running)
                    tally.ended(n, finished[n])
                    if failed:
                        _tell(failed, n + 1, len(jobs), quiet)
                    if stop_asked():  # a job whose libraries swallowed the Ctrl-C ended:
                        if finished[n].status == "failed":  # (or turned it into an error)
                            finished[n].status = "interrupted"
                        # the batch stops all the same, unless its last job ended done
                        if finished[n].status == "interrupted" or n + 1 < len(jobs):
                            raise stop_asked()()
        except KeyboardInterrupt as exc:
            if running:  # the job running here (none on Ray): what its partial output holds
                running["made"] = getattr(exc, "frames_made", 0)
            done = sum(r.status in ("done", "up-to-date", "resumed") for r in finished.values())
            failed = sum(r.status == "failed" for r in finished.values())
            then = _half_done(jobs, started, finished, "ray" in own)
            line = (f"interrupted: {done} of {len(jobs)} jobs finished"
                    f"{f', {failed} failed' if failed else ''}; run the same command again "
                    f"to go on (finished jobs are skipped"
                    f"{', failed ones run again' if failed else ''}, {then})"
                    f"{_partial_of(jobs, running)}")
            print(_placed(line, jobs, running, exc), file=sys.stderr)
            # the signal that came (Ray's wait turns a SIGTERM into a plain KeyboardInterrupt:
            code = interrupted_code(stop_asked()() if stop_asked() else exc)  # was 130, a review)
    results = unfinished(jobs, finished, started, running)
    unsaved = own.get("summary") and write_summary(Path(own["summary"]),
                                                    summary_json(results) + "\n")
    if not code and not unsaved:  # every job ran, the summary written: a Ctrl-C now
        complete()  # changes nothing
    if not quiet:
        print(table(results), flush=True)  # (before the lines under it, on stderr)
        print("\n".join(totals(results, time.perf_counter() - t0, bool(code))),
              file=sys.stderr)
    if unsaved:  # (after the table: what the jobs did is said all the same)
        print(f"hfrender: error: {unsaved}", file=sys.stderr)
    if code or unsaved:
        return code or 1
    return 1 if any(r.status == "failed" for r in results) else 0


def write_summary(path: Path, text: str) -> str | None:
    """``text`` at ``path`` whole or not at all (a full disk or a kill midway left half a
    summary under its name: an earlier one lost, and the next run refused it as not one).
    One that cannot be written (a disk filled by the jobs): its one line, for after the
    table (was: "cannot write a file: No space left on device", no path, and no table of
    the jobs that ran, a trial); else None."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        return (f"--summary {path}: cannot write it: {exc.strerror or exc} (the jobs' "
                "outputs are kept; the file there is left as it was)")
    finally:
        tmp.unlink(missing_ok=True)
    return None


def _placed(line: str, jobs: list, running: dict, exc: KeyboardInterrupt) -> str:
    """``line`` with where the Ctrl-C ``exc`` stopped the scene's own code of the job
    running here, as a render says it (``interrupted in job 'loop' at loop.py:9,
    update(t=1.967): ...``; was unsaid in a batch, the hang unplaced): not on Ray (no job
    runs here), nor where it stopped hfrender's own code."""
    from hfrender.engine.stopped import placed

    return placed(line, exc, jobs[running["n"]].name) if "n" in running else line


def _partial_of(jobs: list, running: dict) -> str:
    """``; the frames of job 'bar' so far are in out/bar.partial.mp4``: where the job running
    here when a Ctrl-C came kept what it had made (``""``: none, or on Ray); where an
    earlier run's partial output holds more, that it stays (:func:`.stopped.kept_apart`,
    was unsaid: not written since the job began). A video's, what the next run goes on
    from: its whole segments (a trial counted the table's frames there); a GIF or a
    sequence has none to speak of (was: "no segment was whole", a review)."""
    from hfrender.engine.stopped import kept_apart
    from hfrender.io.outputs import kept_partial, outweighs, partial_name
    from hfrender.io.segments import frames_in_segments, resumable

    if "n" not in running:
        return ""
    job, made = jobs[running["n"]], running.get("made", 0)
    output = str(job.output)
    if made and outweighs(output, made) is not None:
        said = kept_apart(made, partial_name(output), output, f" of job {job.name!r}")
    elif kept := kept_partial(output, running["began"]):
        said = f"the frames of job {job.name!r} so far are in {pastable(kept)}"
    else:
        return ""
    whole = frames_in_segments(job.output) if resumable(str(job.output)) else None
    goes_on = ("" if whole is None else
               f" (the next run goes on after the {whole} in whole segments)" if whole
               else " (no segment was whole: the next run starts it over)")
    return f"; {said}{goes_on}"


def _half_done(jobs: list, started: set, finished: dict, on_ray: bool = False) -> str:
    """What the next run does with the jobs a Ctrl-C stopped: a video or a sequence goes
    on from its finished segments or frames; a GIF (its palette made whole) starts over,
    and on Ray a sequence too (written whole there: a trial found it said "resumes")."""
    from hfrender.io.segments import resumable
    from hfrender.io.sequence_names import is_sequence

    again = [jobs[i] for i in sorted(started - set(finished))
             if not (resumable(str(jobs[i].output))
                     or (is_sequence(str(jobs[i].output)) and not on_ray))]
    if not again:
        return "a half-done one resumes"
    kinds = [job.output.suffix.lstrip(".").upper() for job in again]
    names = ", ".join(f"{job.name!r} ({'an' if k[:1] in 'AEFHILMNORSX' else 'a'} {k}"
                      f"{' sequence' if is_sequence(str(job.output)) else ''})"
                      for job, k in zip(again, kinds, strict=True))
    return f"{names} " + ("starts over: it is made whole" if len(again) == 1 else
                          "start over: each is made whole")


def unfinished(jobs: list, finished: dict, started: set, running: dict | None = None) -> list:
    """Every job's result in the jobs file's order, those a Ctrl-C stopped included: one
    begun and not finished (on Ray, all begin at once) ``interrupted``, with what it made
    (``running``: the job running here, its frames and start), one never begun ``not run``."""
    from hfrender.engine.batch_state import JobResult
    from hfrender.io.resume import frames_kept

    results = [finished[i] if i in finished else
               JobResult(job.name, "interrupted" if i in started else "not run",
                         output=str(job.output)) for i, job in enumerate(jobs)]
    if running and running["n"] not in finished:  # what the interrupted job had made
        stopped = results[running["n"]]
        stopped.frames = frames_kept(stopped.output)  # those the next run keeps (a GIF: 0)
        stopped.frames_made = max(0, running["frames"] - running.get("kept", 0))  # by this run
        stopped.seconds = time.perf_counter() - running["t0"]
        before, now = running.get("segments", 0), segments_kept(stopped.output)
        went_on = running.get("kept", 1) > 0  # its first frame after kept ones (0: anew)
        stopped.segments_reused = min(before, now) if went_on else 0  # fewer: started over
        stopped.segments_made = now - stopped.segments_reused
    return results


def _on_ray(jobs: list, state: object, address: object, quiet: bool, finished: dict) -> None:
    from hfrender.engine.batch_ray import run_batch_on_ray

    def told(i: int, result: object) -> None:
        finished[i] = result
        _tell(result, i + 1, len(jobs), quiet)

    progress, finish = progress_bar(quiet, "batch")  # one bar for the whole cluster
    try:  # every result comes through told(), as each job ends
        run_batch_on_ray(jobs, state, None if address is True else address, told, progress)
    finally:
        finish()


def _one(job: object, state: object, place: tuple, quiet: bool, running: dict) -> object:
    """Job ``place[0]`` (from 0) run here, its bar saying the batch's ``place[1]`` too."""
    from hfrender.engine.batch import run_job

    i, tally = place
    n, total = i + 1, len(tally.counts)
    bar, finish = progress_bar(quiet, f"[{n}/{total}] {job.name}", tally.text)  # a log
    # names the job; the batch: its frames done and time left in all

    def progress(done: int, frames: int) -> None:
        running["frames"] = done  # told in the table if a Ctrl-C stops the job
        running.setdefault("kept", done)  # told first as it starts: the frames it kept
        tally.told(i, done, frames)
        if bar is not None:
            bar(done, frames)

    try:
        with filtered(lambda: JobNamed(job.name)):
            result = run_job(job, state, progress, slow_said=not quiet)
    finally:
        finish()
    _tell(result, n, total, quiet)
    return result


def _tell(result: object, n: int, total: int, quiet: bool) -> None:
    """A job's end on stderr; a failure even with --quiet (an error, not progress)."""
    if not quiet or result.error:
        why = f": {result.error}" if result.error else ""
        took = f" in {span(result.seconds)}" if result.status in ("done", "resumed") else ""
        print(f"[{n}/{total}] {result.name}: {result.status}{took}{why} ({time_of_day()})",
              file=sys.stderr)


def table(results: list) -> str:
    """The summary: job, status, frames, segments made / reused, retries, time, fps ("-"
    where this run made no frame: an up-to-date job's 0.0 read as a stalled render), output."""
    head = ("job", "status", "frames", "segments", "retries", "seconds", "fps", "output")
    return columns([head] + [(r.name, r.status, str(r.frames),
                              f"{r.segments_made}/{r.segments_reused}", str(r.retries),
                              f"{r.seconds:.1f}", f"{r.fps:.1f}" if r.fps > 0 else "-",
                              r.output) for r in results])


def columns(rows: list) -> str:
    """``rows`` (the head first) in columns two spaces apart, the last one unpadded."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] + [0]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                     for row in rows)


ENDS = ("done", "resumed", "up-to-date", "failed", "interrupted", "not run")


def ended_said(statuses: list[str]) -> str:
    """``1 done, 2 up-to-date``: how many jobs ended how, in :data:`ENDS`' order."""
    counts = Counter(statuses)
    return ", ".join(f"{counts[end]} {end}" for end in ENDS if counts[end])


def totals(results: list, seconds: float, stopped: bool = False) -> list[str]:
    """The lines under the table: how many jobs ended how in the batch's time, then why each
    one failed or was not run (its line had scrolled away by the end of a long batch, and
    the table says only "failed": a trial), and, where one failed, how to go on
    (:func:`.batch_progress.go_on`; ``stopped``: a Ctrl-C's line says it)."""
    ended = ended_said([r.status for r in results])
    jobs = f"{len(results)} job{'' if len(results) == 1 else 's'}"
    again = None if stopped else go_on(results)  # (a Ctrl-C's own line says how)
    return [f"{jobs} in {span(seconds)}: {ended}"] + [
        f"{r.status}: {r.name}: {r.error}" for r in results if r.error] + [again] * bool(again)


def summary_json(results: list) -> str:
    """``--summary``: every job's result, its fps rounded (null where the run made no frame,
    as the table's "-": was 0.0, a stalled render's); an up-to-date job made 0 frames (was
    null, a trial)."""
    from dataclasses import asdict

    return json.dumps([{**asdict(r), "fps": round(r.fps, 3) if r.fps > 0 else None,
                        **({"frames_made": 0} if r.status == "up-to-date" else {})}
                       for r in results], indent=1)
