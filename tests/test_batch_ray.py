"""`hfrender batch --ray`: up-to-date jobs start no cluster, an interrupted batch's
sequences start over, a cluster that dies fails its jobs in the table."""

import json
import time
from pathlib import Path

import pytest
from batch_helpers import (
    folder_fixture,  # noqa: F401  (the fixture folder)
    summary,
)

from hfrender.cli import main
from hfrender.engine.batch import load_jobs

pytestmark = pytest.mark.usefixtures("gl_context")


def test_a_batch_on_ray_whose_jobs_are_all_up_to_date_connects_to_no_cluster(folder,
                                                                            monkeypatch):
    """Every job up to date: ``--ray`` skipped them all but first started a local Ray
    (some 4 s, and Ray's own warnings) for nothing."""
    assert summary(folder)[0] == 0  # made here

    def no_cluster(address):
        raise AssertionError(f"connected to Ray ({address}) for up-to-date jobs")

    monkeypatch.setattr("hfrender.engine.batch_ray.connect", no_cluster)
    code, results = summary(folder, "--ray")
    assert code == 0 and [r["status"] for r in results.values()] == ["up-to-date"] * 3


def test_an_interrupted_ray_batch_says_its_sequences_start_over():
    """On Ray a PNG sequence is written whole, so a stopped one starts over; the message
    named the GIF alone and said the rest resume (a batch user's trial)."""
    from types import SimpleNamespace

    from hfrender.cli.batch import _half_done

    jobs = [SimpleNamespace(name=n, output=Path(o)) for n, o in
            (("v", "o.mp4"), ("s", "f/%04d.png"), ("g", "o.gif"))]
    assert _half_done(jobs, {0, 1, 2}, {}) == "'g' (a GIF) starts over: it is made whole"
    assert _half_done(jobs, {0, 1, 2}, {}, on_ray=True) == (
        "'s' (a PNG sequence), 'g' (a GIF) start over: each is made whole")
    assert _half_done(jobs[:1], {0}, {}, on_ray=True) == "a half-done one resumes"
    exr = [SimpleNamespace(name="e", output=Path("f/%04d.exr"))]
    assert _half_done(exr, {0}, {}, on_ray=True) == ("'e' (an EXR sequence) starts over: it "
                                                     "is made whole")


def test_a_ray_cluster_that_dies_fails_its_jobs_in_the_table(folder, monkeypatch, capsys):
    """The cluster gone mid-batch (ray stop, a node lost): every job on it was an "internal
    error", and no table nor --summary came (a batch user's trial). Ray's own error fails
    the jobs on the cluster in one line each; the table and the summary are written."""
    from types import SimpleNamespace

    import hfrender.engine.batch_ray as batch_ray

    LocalRayletDiedError = type("LocalRayletDiedError", (Exception,),
                                {"__module__": "ray.exceptions"})
    abandoned = []

    from hfrender.io.segments import Manifest, work_dir

    class Render:  # each kept a segment of 24 frames before the cluster went
        stats = SimpleNamespace(frames_made=24, segments_made=1, segments_reused=0)

        def abandon(self):
            abandoned.append(self)

    def start(ray, gate, job, progress, frames, done, i, held):
        if job.output.suffix == ".mp4":  # its work folder, as the cluster's render keeps it
            work_dir(job.output).mkdir(parents=True)
            Manifest({}, 48, 24, 12, [{"first": 0, "count": 24}]).save(work_dir(job.output))
        return batch_ray._OnCluster(Render(), {f"chunk of {job.name}"}, time.perf_counter(),
                                    None)

    def collect(*args):
        raise LocalRayletDiedError("The task's local raylet died. Check raylet.out for more "
                                   "information.")

    monkeypatch.setattr(batch_ray, "connect", lambda address: object())
    monkeypatch.setattr(batch_ray, "Gate", lambda ray: object())
    monkeypatch.setattr(batch_ray, "_start", start)
    monkeypatch.setattr(batch_ray, "_collect", collect)
    out = folder / "summary.json"
    assert main(["batch", str(folder / "jobs.toml"), "--ray", "--summary", str(out)]) == 1
    rows = json.loads(out.read_text())
    assert [(r["name"], r["status"], r["error"]) for r in rows] == [
        (name, "failed", "the Ray cluster failed (LocalRayletDiedError): The task's local "
                         "raylet died. Check raylet.out for more information.")
        for name in ("bar", "smooth", "frames")]
    assert len(abandoned) == 3 and all(r["seconds"] > 0 for r in rows)  # (were 0.0)
    assert [(r["frames"], r["frames_made"], r["segments_made"]) for r in rows] == [
        (24, 24, 1), (24, 24, 1), (0, None, 0)]  # what each kept (a sequence: none on Ray)
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:2] == ["job", "status"] and len(table) == 4
    # a task's own error is not the cluster's: still an internal error where not hfrender's
    assert batch_ray._failed(load_jobs(folder / "jobs.toml")[0], ValueError("x")).error == \
        "internal error: ValueError: x"
