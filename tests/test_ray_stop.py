"""A chunk that fails on Ray stops the render's other chunks: those running stop at their
next sub-frame (told by the gate, not ``ray.cancel``), the failure is told at once, and the
segments already kept stay for the next run."""

import json
import textwrap
import threading
import time
from pathlib import Path

import pytest

from hfrender.config import RenderConfig
from hfrender.engine import chunk_stop
from hfrender.engine.ray_wait import _Keeper
from hfrender.io.segments import work_dir

SLOW_S = 0.3  # each sub-frame of the slow chunk (frames 30-59): 30 of them, 9 s at least


def failing_scene(tmp_path: Path, output: Path) -> tuple[Path, Path]:
    """4 chunks of 30 frames: 0-29 quick, 30-59 slow (each update logged), 60-89 fails at
    t = 2.5 s once the slow one runs and the first is kept, 90-119 quick. On the workers
    only (the driver's look at the scene passes)."""
    log = tmp_path / "slow.log"
    path = tmp_path / "failing.py"
    path.write_text(textwrap.dedent(f"""
        import glob, time
        import hfrender as hf

        class Failing(hf.Scene):
            duration = 4.0
            def setup(self):
                self.box = self.add(hf.Cube(color="orange"))
            def update(self, t):
                if __file__.startswith({str(tmp_path)!r}):
                    return  # the driver's look
                if 1.0 <= t < 2.0:
                    with open({str(log)!r}, "a") as out:
                        out.write(f"{{time.time()}} {{t}}\\n")
                    time.sleep({SLOW_S})
                if t >= 2.5 and t < 3.0:
                    end = time.time() + 60
                    while time.time() < end and not (
                            glob.glob({str(work_dir(output) / "*.ts")!r})
                            and glob.glob({str(log)!r})):
                        time.sleep(0.05)
                    raise RuntimeError("broken")
                self.box.position = (t, 0, 0)
    """))
    return path, log


def _slow_lines(log: Path) -> list[float]:
    return [float(line.split()[0]) for line in log.read_text().splitlines()]


def _settled(log: Path, timeout: float = 30.0) -> list[float]:
    """The slow chunk's updates once no more come (for 4 of them)."""
    lines, deadline = _slow_lines(log), time.time() + timeout
    while time.time() < deadline:
        time.sleep(4 * SLOW_S)
        now = _slow_lines(log)
        if now == lines:
            break
        lines = now
    return lines


def test_a_failed_chunk_stops_the_chunk_running_and_keeps_the_one_done(local_ray, tmp_path):
    """Was: the slow chunk ran to its end (its 30 sub-frames, 9 s and more) while the
    driver waited up to 5 s for it before saying the failure, and on after that."""
    from hfrender.engine import cluster

    output = tmp_path / "out.mp4"
    scene, log = failing_scene(tmp_path, output)
    job = cluster.ClusterRender(scene, RenderConfig(output=str(output), size=(32, 18),
                                                    samples=1, quiet=True)).prepare()
    with pytest.raises(Exception) as failed:
        job.run()
    told = time.time()
    assert str(getattr(failed.value, "cause", failed.value)).startswith(
        "scene error in update(t) at t=2.5 s (output frame 75): RuntimeError: broken (")
    begun = _slow_lines(log)
    time.sleep(3 * SLOW_S + 2 * chunk_stop.POLL_S)  # it would go on: it does not
    lines = _slow_lines(log)
    assert lines == begun and len(lines) < 30, len(lines)  # stopped, its frames unmade
    assert told - lines[-1] < 2.0  # told as it stopped (was: 5 s, the wait's most)
    kept = json.loads((work_dir(output) / "manifest.json").read_text())["segments"]
    assert [seg["first"] for seg in kept][:1] == [0] and 30 not in [s["first"] for s in kept]
    assert sorted(p.name for p in work_dir(output).iterdir()) == sorted(
        ["manifest.json", *(seg["file"] for seg in kept)])  # nothing half-written
    assert not output.exists()


def test_a_task_told_to_stop_stops_at_its_next_check_and_no_other():
    """The gate's answer comes on a thread of the task's own; a late one (its task ended)
    tells no task after it."""
    answers = iter([False, True])
    with chunk_stop.watched(lambda: next(answers), every=0.01) as told:
        chunk_stop.check()  # not yet
        assert told.wait(5)
        with pytest.raises(chunk_stop.Stopped, match="^told to stop: another chunk of its "
                                                      "render failed$"):
            chunk_stop.check()
    chunk_stop.check()  # outside a task: nothing
    late = threading.Event()

    def ask():
        late.wait(5)
        return True

    with chunk_stop.watched(ask, every=0.01):
        pass
    late.set()  # the first task's answer, after it ended
    with chunk_stop.watched(lambda: False, every=0.01):
        time.sleep(0.05)
        chunk_stop.check()  # the next task runs on


def test_the_gate_tells_a_failed_renders_running_chunks_to_stop_and_no_others():
    keeper = _Keeper()
    assert keeper.enter("a1") and keeper.enter("b1")
    assert keeper.refuse(["a1", "a2"]) == ["a1"]  # (begun: the driver waits for it alone)
    assert keeper.stopping("a1") and not keeper.stopping("b1")
    assert not keeper.enter("a1")  # Ray's retry of a stopped chunk: turned away too
    assert not keeper.enter("a2") and keeper.enter("b2")


def test_a_batch_jobs_failed_chunk_stops_its_own_chunks_and_the_other_jobs_go_on(local_ray,
                                                                                 tmp_path):
    """As a failed job here does not stop the batch, a failed job on Ray stops its own
    chunks only (was: they ran to their end, the cluster kept busy for a failed job)."""
    from hfrender.cli import main

    (tmp_path / "out").mkdir()
    output = tmp_path / "out" / "a.mp4"
    scene, log = failing_scene(tmp_path, output)
    (tmp_path / "quick.py").write_text(
        "import hfrender as hf\nclass Quick(hf.Scene):\n    duration = 1.0\n"
        "    def setup(self):\n        self.add(hf.Cube())\n")
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "32x18"\nsamples = 1\n\n'
        f'[[job]]\nname = "failing"\nscene = "{scene.name}"\noutput = "out/a.mp4"\n\n'
        '[[job]]\nname = "other"\nscene = "quick.py"\noutput = "out/b.mp4"\n')
    summary = tmp_path / "s.json"
    assert main(["batch", str(tmp_path / "jobs.toml"), "--ray", "--summary", str(summary),
                 "--quiet"]) == 1
    lines = _settled(log)  # (the batch waits for no stopped chunk: the others go on)
    assert len(lines) < 30, len(lines)  # stopped, its frames unmade (was: all 30 and more)
    rows = {r["name"]: r for r in json.loads(summary.read_text())}
    assert rows["failing"]["status"] == "failed" and rows["failing"]["error"].startswith(
        "scene error in update(t) at t=2.5 s (output frame 75): RuntimeError: broken (")
    assert rows["failing"]["frames"] >= 30  # the chunk done before, kept for the next run
    assert rows["other"]["status"] == "done" and (tmp_path / "out" / "b.mp4").is_file()


def test_a_chunk_failing_after_the_failed_renders_wait_is_read_not_printed_later(local_ray,
                                                                                 caplog):
    """A failed render's other chunk that failed after :func:`forget`'s wait was left
    unread: Ray printed its error, a traceback of ~40 lines, once the driver dropped it, in
    whatever ran then (CI: a failed batch job's, under the next test's job 'video')."""
    import gc

    from hfrender.engine.ray_wait import forget

    @local_ray.remote
    def late(label):
        time.sleep(0.5)
        raise RuntimeError(f"late chunk {label}")

    label = f"{time.time_ns()}"  # (this case's own: an earlier one's print is not ours)
    refs = [late.remote(label)]
    def said():
        return [(r.levelname, r.getMessage()) for r in caplog.records
                if label in r.getMessage()]

    with caplog.at_level("DEBUG", logger="hfrender.engine.ray_wait"):
        forget(local_ray, refs, lambda given: given, wait_s=0.01)
        del refs
        end = time.time() + 60  # (a worker started cold on a loaded machine: seconds)
        while not said() and time.time() < end:  # read when it failed, or printed by Ray
            gc.collect()  # once the ref is dropped
            time.sleep(0.1)
        gc.collect()
        time.sleep(0.5)  # (a print of Ray's would come now)
    assert said() == [("DEBUG", f"a chunk after the failure: late chunk {label}")]
