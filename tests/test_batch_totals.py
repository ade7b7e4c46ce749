"""Under a batch's table: how many jobs ended how, the batch's time, and why each job failed
or was not run (a trial: at the end of a long batch the table said "failed" and nothing of
why; each reason had scrolled away with its job's end line)."""

import re

import pytest
from batch_helpers import make_folder

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")


def test_the_end_of_a_batch_counts_its_jobs_and_says_why_each_failed(tmp_path, capsys):
    folder = make_folder(tmp_path)
    (folder / "broken.mp4").write_bytes(b"not a video" * 100)  # found when the job reads it
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace('input = "clip.mp4"', 'input = "broken.mp4"'))
    assert main(["batch", str(jobs)]) == 1
    said = capsys.readouterr()
    assert [ln.split()[:2] for ln in said.out.splitlines()[1:]] == [
        ["bar", "done"], ["smooth", "failed"], ["frames", "done"]]  # the table as it was
    end = said.err.splitlines()
    assert re.fullmatch(r"3 jobs in \d+s: 2 done, 1 failed", end[-3]), end
    assert end[-2].startswith("failed: smooth: ") and "broken.mp4" in end[-2], end
    assert end[-1] == ("to go on: mend 'smooth' and run the same command again: it runs "
                       "'smooth' again; the 2 jobs finished are skipped, up to date"), end
    assert main(["batch", str(jobs), "-q"]) == 1 and capsys.readouterr().out == ""
    jobs.write_text(jobs.read_text().replace('input = "broken.mp4"', 'input = "clip.mp4"'))
    assert main(["batch", str(jobs)]) == 0
    assert re.fullmatch(r"3 jobs in \d+s: 1 done, 2 up-to-date",
                        capsys.readouterr().err.splitlines()[-1])


def test_the_end_of_a_batch_with_a_failed_job_says_how_to_run_it_again(tmp_path, capsys):
    folder = make_folder(tmp_path)
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace('input = "clip.mp4"', 'input = "out/bar.mp4"')
                    .replace('scene = "bar.frag"\noutput = "out/png', 'scene = "ok.frag"\n'
                             'output = "out/png'))
    (folder / "ok.frag").write_text((folder / "bar.frag").read_text())
    (folder / "bar.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = nope; }")
    assert main(["batch", str(jobs)]) == 1
    end = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"3 jobs in \d+s: 1 done, 1 failed, 1 not run", end[-4]), end
    assert end[-3].startswith("failed: bar: ") and end[-2].startswith("not run: smooth: "), end
    # was: nothing said how; the same command skips the finished jobs and runs these
    assert end[-1] == ("to go on: mend 'bar' and run the same command again: it runs 'bar' "
                       "and 'smooth' again; the 1 job finished is skipped, up to date"), end


def test_a_job_whose_output_another_hfrender_writes_is_not_told_to_be_mended():
    """A job refused because another hfrender wrote its output was told "to go on: mend
    'y' and run the same command again", as if its settings were wrong (a batch user's
    trial: two jobs files writing one output)."""
    from hfrender.engine.batch_progress import go_on
    from hfrender.engine.batch_state import JobResult

    busy = JobResult("y", "failed", error="output cc/x.mp4: another hfrender (pid 3235) is "
                     "writing it; wait for it to finish, or write elsewhere", busy=True)
    broken = JobResult("a", "failed", error="scene error in setup(): KeyError: 'x'")
    done = JobResult("b", "done", frames=8)
    assert go_on([busy, done]) == (
        "to go on: once the other hfrender using the output of 'y' has ended, run the "
        "same command again: it runs 'y' again; the 1 job finished is skipped, up to date")
    assert go_on([broken, busy, JobResult("c", "not run")]) == (
        "to go on: mend 'a' and, once the other hfrender using the output of 'y' has "
        "ended, run the same command again: it runs 'a', 'y' and 'c' again")
    assert go_on([broken, done]) == (
        "to go on: mend 'a' and run the same command again: it runs 'a' again; the 1 job "
        "finished is skipped, up to date")


def test_a_failed_job_is_busy_by_its_errors_kind_not_its_words(tmp_path):
    """Whether another hfrender holds a job's output is the error's kind (OutputBusy: writing
    it, or reading it for an fx), not "another hfrender" in its line (were matched by text:
    a reader told "the other hfrender writing")."""
    import time
    from types import SimpleNamespace

    from hfrender.engine.batch_run import failed
    from hfrender.engine.batch_state import JobResult
    from hfrender.errors import InputError
    from hfrender.io.output_lock import OutputBusy

    job = SimpleNamespace(name="y", output=tmp_path / "x.mp4")
    for exc, busy in ((OutputBusy("output x.mp4: another hfrender is reading it"), True),
                      (InputError("scene error: another hfrender's scene"), False)):
        result = JobResult("y")
        failed(result, job, exc, time.time(), (0, 0), None)
        assert (result.busy, result.error) == (busy, str(exc))
