"""`hfrender batch`: a failed job stops no other; what it kept, the state file that cannot
be written or is damaged, and a second batch of one jobs file."""

import json
import time
from pathlib import Path

import pytest
from batch_helpers import (
    JOBS,
    folder_fixture,  # noqa: F401  (the fixture folder)
    summary,
)
from render_helpers import decode_video as decode

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")


def test_a_failing_job_does_not_stop_the_others(folder):
    (folder / "broken.mp4").write_bytes(b"not a video" * 100)  # found when the job reads it
    text = (folder / "jobs.toml").read_text().replace('input = "clip.mp4"',
                                                      'input = "broken.mp4"')
    (folder / "jobs.toml").write_text(text)
    code, results = summary(folder)
    assert code == 1
    assert [r["status"] for r in results.values()] == ["done", "failed", "done"]
    assert "broken.mp4" in results["smooth"]["error"]
    assert len(results["smooth"]["error"].splitlines()) == 1


@pytest.mark.parametrize("where", ["at the start", "at the job's end"])
def test_a_state_file_that_cannot_be_written_is_said_and_the_jobs_run(folder, caplog, where):
    """A jobs file on a read-only disk (or a full one): every job ended "done: internal
    error ... a bug in hfrender" (OSError writing the state file), and every run made
    every job again. Now the jobs run and are done, and one line says why they will run
    again."""
    import os

    state = folder / ".jobs.toml.state.json"
    if where == "at the start":  # the probe write, as record() writes, fails
        (folder / f".jobs.toml.state.json.{os.getpid()}.tmp").mkdir()
    else:  # the state file is a folder: replacing it fails
        state.mkdir()
    with caplog.at_level("WARNING"):
        code, results = summary(folder)
    assert code == 0 and [r["status"] for r in results.values()] == ["done"] * 3
    assert all(r["error"] is None for r in results.values())
    said = [r.getMessage() for r in caplog.records]
    if where == "at the start":
        assert len(said) == 1 and said[0].startswith(f"{state} cannot be written (")
        assert said[0].endswith("): the jobs run, but what they make is not recorded, so "
                                "every run makes every job again; keep the jobs file in a "
                                "folder you can write")
    else:
        assert [m.split(" could not")[0] for m in said] == [
            f"job {name!r} is done, but {state}" for name in ("bar", "smooth", "frames")]
        assert all(m.endswith("): the next run makes it again") for m in said)
    assert not any("internal error" in m for m in said)


def test_a_failed_join_in_a_batch_says_to_run_the_batch_again(folder, monkeypatch):
    """A full disk at the join: the job's error told to run "the same command with
    --resume", an option the batch refuses; the batch itself, run again, joins them."""
    from hfrender.io import segments
    from hfrender.io.writers import WriteFailed

    real = segments.join

    def full(files, output, folder_, *args, **kwargs):
        raise WriteFailed(f"joining {len(files)} segments into {output} failed: No space left "
                          f"on device (the segments stay in {folder_}: once that is mended, "
                          "the same command with --resume joins them)")

    monkeypatch.setattr(segments, "join", full)
    code, results = summary(folder)
    assert code == 1 and results["bar"]["status"] == "failed"
    assert results["bar"]["error"].endswith(": once that is mended, running the batch again "
                                            "joins them)"), results["bar"]["error"]
    assert results["bar"]["frames"] == 12  # kept for the next run (it said 0)
    made = len(list(segments.work_dir(folder / "out" / "bar.mp4").glob("seg_*")))
    assert made >= 1 and (results["bar"]["frames_made"], results["bar"]["segments_made"],
                          results["bar"]["segments_reused"]) == (12, made, 0)  # (was: null, 0)
    monkeypatch.setattr(segments, "join", real)
    code, results = summary(folder)
    assert code == 0 and results["bar"]["status"] == "resumed"
    assert results["bar"]["frames"] == 12, results["bar"]  # it said 0, and kept 0
    assert len(decode(folder / "out" / "bar.mp4")) == 12


def test_a_second_batch_of_one_jobs_file_is_refused_in_one_line(folder, capsys):
    """Two batches of one jobs file (cron starting one while the last runs) each failed
    the jobs the other was writing, and both ended with 1."""
    import os

    from hfrender.io.output_lock import output_lock

    jobs = folder / "jobs.toml"
    with output_lock(str(jobs.resolve()), "batch", "is running this jobs file"):
        assert main(["batch", str(jobs), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: batch {jobs.resolve()}: another hfrender (pid {os.getpid()}) is "
        "running this jobs file; wait for it to end\n")
    assert not (folder / "out").exists()
    assert main(["batch", str(jobs), "--quiet"]) == 0  # the lock goes with the first


BREAKS = """
import math
import hfrender as hf

class Breaks(hf.Scene):
    duration = 2.0

    def setup(self):
        self.box = self.add(hf.Cube(color=(0.9, 0.5, 0.2)))
        self.camera.position = (0, 0, 4)

    def update(self, t):
        assert t < 0.9, "the scene broke"
        self.box.position = (math.sin(3 * t), 0, 0)
"""


def test_a_failed_render_job_names_the_frames_it_kept(folder):
    """A render job that fails after some frames keeps them in its partial output, as a
    render does, and its error says where (a trial found it unsaid in the table and the
    summary)."""
    (folder / "breaks.py").write_text(BREAKS)
    with (folder / "jobs.toml").open("a") as jobs:
        jobs.write('\n[[job]]\nname = "breaks"\nscene = "breaks.py"\noutput = "out/b.mp4"\n'
                   'duration = 2.0\n')
    code, results = summary(folder)
    partial = (folder / "out" / "b.partial.mp4").resolve()
    assert code == 1 and results["breaks"]["status"] == "failed"
    assert partial.is_file() and len(decode(partial)) >= 8
    error = results["breaks"]["error"]
    assert "the scene broke" in error and error.endswith(
        f"; the frames finished so far are in {partial}"), error
    assert [results[n]["status"] for n in ("bar", "smooth", "frames")] == ["done"] * 3
    time.sleep(0.1)  # failing at once, a later run keeps nothing: the older partial not named
    (folder / "breaks.py").write_text(BREAKS.replace("t < 0.9", "t < -1.0"))
    code, results = summary(folder)
    assert code == 1 and partial.is_file() and "the scene broke" in results["breaks"]["error"]
    assert "finished so far" not in results["breaks"]["error"], results["breaks"]["error"]


def test_a_partial_output_is_named_only_where_this_run_kept_it(tmp_path):
    """``kept_partial``: a video hfrender wrote, or a sequence's folder of frames, written
    since the run began; not a file of that name hfrender did not write, nor an older
    run's."""
    from hfrender.io.outputs import kept_partial, mark_partial, partial_name

    video, frames = str(tmp_path / "v.mp4"), str(tmp_path / "f" / "%03d.png")
    began = time.time() - 0.05
    assert kept_partial(video, began) is None and kept_partial(frames, began) is None
    Path(partial_name(video)).write_bytes(b"frames")  # not hfrender's: no record of it
    assert kept_partial(video, began) is None
    mark_partial(partial_name(video))
    assert kept_partial(video, began) == partial_name(video)
    assert kept_partial(video, time.time() + 10) is None  # an older run's
    Path(partial_name(frames)).parent.mkdir(parents=True)
    assert kept_partial(frames, began) is None  # an empty folder
    (Path(partial_name(frames)).parent / "001.png").write_bytes(b"png")
    assert kept_partial(frames, began) == partial_name(frames)
    assert kept_partial(frames, time.time() + 10) is None


def test_a_job_whose_output_another_hfrender_writes_counts_none_of_its_frames(folder,
                                                                              monkeypatch):
    """A batch trial: the summary gave the other run's 20 frames (and 13,192 fps) to a job
    refused because another hfrender was writing its output."""
    import hfrender.io.resume
    from hfrender.io.output_lock import output_lock

    monkeypatch.setattr(hfrender.io.resume, "frames_kept", lambda output: 20)  # the other's
    out = folder / "summary.json"
    with output_lock(str((folder / "out" / "bar.mp4").resolve())):
        assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out),
                     "--quiet"]) == 1
    bar = next(r for r in json.loads(out.read_text()) if r["name"] == "bar")
    assert bar["status"] == "failed" and "another hfrender" in bar["error"]
    assert bar["frames"] == 0


def test_the_table_gives_no_rate_where_the_run_made_no_frame():
    """An up-to-date job's row read "0.0" fps, as a render that stalled would."""
    from hfrender.cli.batch import table
    from hfrender.engine.batch_state import JobResult

    rows = table([JobResult("a", "done", frames=12, seconds=2.0, output="a.mp4"),
                  JobResult("b", "up-to-date", frames=12, output="b.mp4"),
                  JobResult("c", "failed", frames=0, seconds=0.5, output="c.mp4")]).splitlines()
    assert [row.split()[6] for row in rows] == ["fps", "6.0", "-", "-"]
    from hfrender.cli.batch import summary_json

    assert [r["fps"] for r in json.loads(summary_json([
        JobResult("a", "done", frames=12, seconds=2.0), JobResult("b", "up-to-date", frames=12),
        JobResult("c", "failed", seconds=0.5)]))] == [6.0, None, None]  # (was 0.0 for b, c)


@pytest.mark.parametrize("damage", ['{"bar": "x", "smooth": 3}', '{"bar": {"key": 1', '[1]',
                                    '{"bar": {"key": "k", "frames": 12, "assets": [1]}}',
                                    '{"bar": {"key": "k", "frames": "x"}}'])
def test_a_damaged_state_file_is_said_and_its_jobs_run(folder, caplog, damage):
    """A state file whose records are not records gave an internal error and no table; a
    truncated one made every job again without a word (a batch user's trial)."""
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 0
    state = folder / ".jobs.toml.state.json"
    good = json.loads(state.read_text())
    state.write_text(damage)
    with caplog.at_level("WARNING", logger="hfrender.engine.batch_state"):
        code, rows = summary(folder)
    assert code == 0 and [r["status"] for r in rows.values()] == ["done"] * 3
    assert [r.getMessage() for r in caplog.records] == [
        f"{state} is not a batch state hfrender can read in full (damaged, or edited?): the "
        "jobs it does not record run again"]
    assert set(json.loads(state.read_text())) == set(good)  # recorded again, whole


def test_a_failed_job_takes_back_the_folders_it_made(folder):
    """A job failing in its scene's setup() left the new, empty folders of its output
    (a batch user's trial; render takes its own back)."""
    (folder / "bad.py").write_text("import hfrender as hf\n\n\nclass Bad(hf.Scene):\n"
                                   "    def setup(self):\n        raise RuntimeError('no')\n")
    path = folder / "jobs.toml"
    path.write_text(JOBS + '\n[[job]]\nname = "bad"\nscene = "bad.py"\n'
                           'output = "deep/er/bad.mp4"\nduration = 0.5\n')
    code, rows = summary(folder)
    assert code == 1 and rows["bad"]["status"] == "failed" and "no" in rows["bad"]["error"]
    assert not (folder / "deep").exists()
    assert rows["bar"]["status"] == "done" and (folder / "out" / "bar.mp4").is_file()


def test_a_failed_job_that_started_over_counts_all_it_kept_as_made(folder):
    """Failed, then run with other settings (its work discarded) and failed again: the
    second result subtracted the first run's kept frames from its own (frames_made 32 of
    96, segments 2/1; a review)."""
    from hfrender.io import segments

    (folder / "late.py").write_text(  # (fails after so many calls: the look ahead at the
        "import hfrender as hf\nfrom pathlib import Path\n\nCALLS = [0]\n\n\n"  # end passes)
        "class Late(hf.Scene):\n"
        "    def setup(self):\n        self.add(hf.Sphere(radius=0.5))\n\n"
        "    def update(self, t):\n        CALLS[0] += 1\n"
        "        if CALLS[0] > int((Path(__file__).parent / 'fail_at').read_text()):\n"
        "            raise RuntimeError('late')\n")
    path = folder / "jobs.toml"
    path.write_text('[[job]]\nname = "late"\nscene = "late.py"\noutput = "out/late.mp4"\n'
                    'size = "32x8"\nsamples = 1\nduration = 4\nfps = 24\n')
    (folder / "fail_at").write_text("80")
    code, first = summary(folder)
    out = folder / "out" / "late.mp4"
    kept = segments.frames_in_segments(out)
    assert code == 1 and first["late"]["status"] == "failed" and kept >= 32
    assert first["late"]["frames_made"] == first["late"]["frames"] == kept
    path.write_text(path.read_text().replace("samples = 1", "samples = 2"))
    (folder / "fail_at").write_text("200")
    code, again = summary(folder)
    now = segments.frames_in_segments(out)
    assert code == 1 and now >= kept
    assert (again["late"]["frames"], again["late"]["frames_made"],
            again["late"]["segments_made"], again["late"]["segments_reused"]) == (
        now, now, segments.segments_kept(out), 0)
