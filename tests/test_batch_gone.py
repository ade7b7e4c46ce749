"""A batch's image sequence with frames gone since it was made: those frames made again,
alone, the others kept (was: the whole sequence, for one frame deleted, a trial)."""

import errno
import json
import logging

import pytest

from hfrender.engine.batch import load_jobs, run_job
from hfrender.engine.batch_ray import mended_here
from hfrender.engine.batch_state import BatchState

pytestmark = pytest.mark.usefixtures("gl_context")

# every frame its own picture: a ramp whose phase moves with time
SHADER = """
void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    fragColor = vec4(vec3(fract(0.37 * iTime + fragCoord.x / 32.0)), 1.0);
}
"""
JOBS = """
[[job]]
name = "seq"
scene = "ramp.frag"
output = "frames/####.png"
size = "32x8"
fps = 24
duration = 0.5
{extra}
"""


def batch(folder, extra=""):
    """The jobs file's one job and the batch's state, as ``hfrender batch`` loads them."""
    (folder / "ramp.frag").write_text(SHADER)
    (folder / "jobs.toml").write_text(JOBS.format(extra=extra))
    (job,) = load_jobs(folder / "jobs.toml")
    return job, BatchState.load(folder / "jobs.toml")


def frames(folder):
    """Each frame's name: (its bytes, its time)."""
    return {f.name: (f.read_bytes(), f.stat().st_mtime_ns)
            for f in sorted((folder / "frames").iterdir())}


def test_the_frames_gone_are_made_again_alone_and_as_they_were(tmp_path, caplog):
    job, state = batch(tmp_path)
    assert run_job(job, state).frames_made == 12
    made = frames(tmp_path)
    assert len(made) == 12 and len({b for b, _ in made.values()}) == 12  # all different
    gone = ["0002.png", "0003.png", "0007.png"]  # two runs of frames: 2-3, and 7
    for name in gone:
        (tmp_path / "frames" / name).unlink()
    told = []
    with caplog.at_level(logging.WARNING):
        result = run_job(job, BatchState.load(tmp_path / "jobs.toml"),
                         lambda done, total: told.append((done, total)))
    assert (result.status, result.frames, result.frames_made) == ("done", 12, 3)
    now = frames(tmp_path)
    assert now == {**made, **{n: now[n] for n in gone}}  # the others untouched
    assert all(now[n][0] == made[n][0] for n in gone)  # made again bit for bit
    assert told[-1] == (3, 3)  # the progress over the frames gone, not each run's own
    assert f"job 'seq': 3 frames (0002.png, 0003.png, 0007.png) of {tmp_path}/frames/%04d.png" \
        " gone since it was made: making them again alone (its other 9 frames kept)" \
        in caplog.text
    assert run_job(job, BatchState.load(tmp_path / "jobs.toml")).status == "up-to-date"


@pytest.mark.parametrize("change", ["a frame changed", "every frame gone", "a frame added",
                                    "a state of before"])
def test_anything_else_changed_makes_the_whole_sequence(tmp_path, change):
    job, state = batch(tmp_path)
    run_job(job, state)
    folder = tmp_path / "frames"
    (folder / "0004.png").unlink()
    if change == "a frame changed":  # by hand: hfrender's picture is not known to be there
        (folder / "0005.png").write_bytes((folder / "0006.png").read_bytes())
    elif change == "every frame gone":
        for f in folder.iterdir():
            f.unlink()
    elif change == "a frame added":  # of the pattern: the sequence is not the one made
        (folder / "0012.png").write_bytes((folder / "0006.png").read_bytes())
    else:  # recorded before the frames' own stamps were
        path = tmp_path / ".jobs.toml.state.json"
        records = json.loads(path.read_text())
        del records["seq"]["stamps"]
        path.write_text(json.dumps(records))
    assert BatchState.load(tmp_path / "jobs.toml").gone(job) == []
    result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert (result.status, result.frames_made) == ("done", 12)


def test_a_jobs_range_of_a_sequence_makes_its_own_frames_gone(tmp_path):
    job, state = batch(tmp_path, 'frames = "4:10"')
    run_job(job, state)
    assert sorted(frames(tmp_path)) == [f"{k:04d}.png" for k in range(4, 10)]
    (tmp_path / "frames" / "0006.png").unlink()
    (tmp_path / "frames" / "0001.png").write_bytes(b"another job's")  # not this job's
    assert BatchState.load(tmp_path / "jobs.toml").gone(job) == [6]
    result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert (result.frames, result.frames_made) == (6, 1)
    assert (tmp_path / "frames" / "0006.png").is_file()


def test_on_ray_a_few_frames_gone_are_made_here_more_on_the_cluster(tmp_path):
    job, state = batch(tmp_path)
    run_job(job, state)
    for k in (1, 2, 3):  # 3 of 12: a quarter
        (tmp_path / "frames" / f"{k:04d}.png").unlink()
    assert mended_here(job, BatchState.load(tmp_path / "jobs.toml"))
    assert _planned_on_ray(job, tmp_path) == "make the 3 frame(s) gone since it was made " \
        "again alone"  # (the dry run plans it as the run does it: review r2)
    (tmp_path / "frames" / "0009.png").unlink()  # 4 of 12
    assert not mended_here(job, BatchState.load(tmp_path / "jobs.toml"))
    assert _planned_on_ray(job, tmp_path) == "render all 12 frames"  # (was: the 4 "alone")


def _planned_on_ray(job, tmp_path):
    from hfrender.engine.batch_plan import plan_job

    return plan_job(job, BatchState.load(tmp_path / "jobs.toml"), on_ray=True).plan


def test_a_file_of_the_pattern_past_the_jobs_frames_gone_makes_the_whole_sequence(tmp_path):
    """The user's own file beside the frames (no mark of hfrender's: kept by the render,
    and recorded with them), numbered past the render's frames, then deleted: the whole
    sequence is made (was: a render of that frame alone, past the render's end, which
    failed, and every run after failed as well)."""
    (tmp_path / "frames").mkdir()
    (tmp_path / "frames" / "0020.png").write_bytes(b"mine")
    job, state = batch(tmp_path)
    run_job(job, state)
    (tmp_path / "frames" / "0020.png").unlink()
    assert BatchState.load(tmp_path / "jobs.toml").gone(job) == []
    result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert (result.status, result.error, result.frames_made) == ("done", None, 12)


def test_a_remake_stopped_is_made_again_alone(tmp_path, monkeypatch):
    """A remake stopped midway (a full disk; a Ctrl-C alike) leaves its finished frames for
    --resume, of its own range: the next run makes the frames gone again, alone, that work
    started over (was: --resume refused it as of other settings, and the whole sequence
    was made again, after a Ctrl-C's "a half-done one resumes"), on Ray here too."""
    from hfrender.io import writers
    from hfrender.io.resume import interrupted

    job, state = batch(tmp_path)
    run_job(job, state)
    made = frames(tmp_path)
    for k in (2, 3):
        (tmp_path / "frames" / f"{k:04d}.png").unlink()
    write = writers.PngSequenceWriter.write

    def full(self, frame):
        if self.frames_written == 1:
            raise writers.WriteFailed("no room")
        write(self, frame)

    with monkeypatch.context() as m:
        m.setattr(writers.PngSequenceWriter, "write", full)
        assert run_job(job, BatchState.load(tmp_path / "jobs.toml")).status == "failed"
    assert interrupted(job.output)  # (frame 2, in the stopped run's work)
    assert mended_here(job, BatchState.load(tmp_path / "jobs.toml"))
    result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert (result.status, result.frames, result.frames_made) == ("done", 12, 2)
    assert not interrupted(job.output)
    now = frames(tmp_path)
    assert sorted(now) == sorted(made) and all(now[n][0] == made[n][0] for n in made)
    assert all(now[n] == made[n] for n in made if n not in ("0002.png", "0003.png"))
    assert run_job(job, BatchState.load(tmp_path / "jobs.toml")).status == "up-to-date"


@pytest.mark.parametrize("error", ["an hfrender error", "a full disk"])
def test_a_remake_that_fails_in_a_later_run_keeps_the_runs_it_finished(tmp_path, monkeypatch,
                                                                       error):
    """Two runs of frames gone (2-3 and 7), the second fails: its result counts the frames
    the first made and the sequence's 11 (were 0 and 0); the next run makes frame 7 alone
    (was: the frames of the first run, made again, read as changed by hand, and the whole
    sequence made)."""
    from hfrender.engine import batch_run

    job, state = batch(tmp_path)
    run_job(job, state)
    for k in (2, 3, 7):
        (tmp_path / "frames" / f"{k:04d}.png").unlink()
    one = batch_run.run_one

    def second_fails(job, resume, progress, frames=None, slow_said=False):
        if frames == (7, 8) and error == "a full disk":
            raise OSError(errno.ENOSPC, "No space left on device", "frames/0007.png")
        if frames == (7, 8):
            raise batch_run.HFRenderError("no room")
        return one(job, resume, progress, frames, slow_said)

    with monkeypatch.context() as m:
        m.setattr(batch_run, "run_one", second_fails)
        result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert result.status == "failed" and ("No space" if error == "a full disk" else "no room") \
        in result.error
    assert (result.frames, result.frames_made) == (11, 2)  # (were 0 and 0: the failed run's)
    assert BatchState.load(tmp_path / "jobs.toml").gone(job) == [7]
    kept = frames(tmp_path)
    result = run_job(job, BatchState.load(tmp_path / "jobs.toml"))
    assert (result.status, result.frames, result.frames_made) == ("done", 12, 1)
    assert {n: v for n, v in frames(tmp_path).items() if n != "0007.png"} == kept
    assert run_job(job, BatchState.load(tmp_path / "jobs.toml")).status == "up-to-date"
