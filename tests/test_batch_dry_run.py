"""``hfrender batch JOBS --dry-run``: what a real run would do with each job now (render,
resume, skip, fail), said without writing, making, locking or removing anything; the
real run then does what it planned."""

import json
import os
import tempfile
from pathlib import Path

import pytest
from batch_helpers import BAR

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")

FRESH = """import hfrender as hf
from common import DURATION


class Fresh(hf.Scene):
    duration = DURATION

    def setup(self):
        self.add(hf.Cube(color=(0.9, 0.5, 0.2)))
        self.camera.position = (0, 0, 4)
"""
BROKEN = "import hfrender as hf\nimport no_such_module_here\n\n\nclass Broken(hf.Scene):\n" \
         "    duration = 0.5\n"
JOB = '[[job]]\nname = "{0}"\nscene = "{1}"\noutput = "out/{0}.mp4"\nduration = {2}\n\n'
HEAD = '[defaults]\nfps = 24\nsize = "32x8"\nsamples = 2\n\n'
ALL = HEAD + JOB.format("finished", "bar.frag", 0.5) + JOB.format("half", "bar.frag", 2.0) \
    + '[[job]]\nname = "fresh"\nscene = "fresh.py"\noutput = "out/fresh.mp4"\n\n' \
    + JOB.format("broken", "broken.py", 0.5)


def four_kinds(folder: Path, monkeypatch) -> Path:
    """A jobs file of four jobs: ``finished`` (made by an earlier run), ``half`` (an
    earlier run stopped after its first segment of 24 frames, of 48), ``fresh`` (a .py scene
    importing a module beside it, never run) and ``broken`` (a scene that does not import)."""
    import hfrender.io.segments as seg

    own_tmp = folder.parent / f"{folder.name}-tmp"  # hfrender's lock files: this test's alone
    own_tmp.mkdir()  # (other runs beside it lock theirs in the shared temporary folder)
    monkeypatch.setattr(tempfile, "tempdir", str(own_tmp))
    (folder / "bar.frag").write_text(BAR.read_text())
    (folder / "fresh.py").write_text(FRESH)
    (folder / "common.py").write_text("DURATION = 0.25\n")
    (folder / "broken.py").write_text(BROKEN)
    jobs = folder / "jobs.toml"
    jobs.write_text(HEAD + JOB.format("finished", "bar.frag", 0.5)
                    + JOB.format("half", "bar.frag", 2.0))
    real = seg.SegmentedWriter._finish_segment

    def stop_in_half(self):
        real(self)
        if Path(self.output).name == "half.mp4":
            raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop_in_half)
    assert main(["batch", str(jobs), "--quiet"]) == 130
    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", real)
    jobs.write_text(ALL)
    return jobs


def snapshot(folder: Path) -> dict:
    """Every path under ``folder`` (folders too) with its size and time, and under hfrender's
    own in the temporary folder (``hfrender-*``: its lock files, work folders)."""
    tmp = Path(tempfile.gettempdir())
    tops = [folder, *(p for p in tmp.iterdir() if p.name.startswith("hfrender-"))]
    seen = {}
    for top in tops:
        for path in [top, *top.rglob("*")]:
            st = path.lstat()
            seen[str(path)] = (st.st_size, st.st_mtime_ns)
    return seen


def test_a_dry_run_plans_what_the_real_run_then_does(tmp_path, monkeypatch, capsys):
    jobs = four_kinds(tmp_path, monkeypatch)
    capsys.readouterr()
    planned_file = tmp_path / "planned.json"
    assert main(["batch", str(jobs), "--dry-run", "--summary", str(planned_file)]) == 1
    out, err = capsys.readouterr()
    rows = [line.split(None, 4) for line in out.splitlines()]
    assert rows[0] == ["job", "status", "frames", "output", "what a run does now"]
    out_of = {n: str(tmp_path / "out" / f"{n}.mp4") for n in ("finished", "half", "fresh",
                                                               "broken")}
    assert rows[1:4] == [
        ["finished", "up-to-date", "12", out_of["finished"], "skip it: up to date"],
        ["half", "resumed", "48", out_of["half"], "resume it at frame 24 of 48 (an "
         "interrupted run's 1 whole segment kept)"],
        ["fresh", "done", "6", out_of["fresh"], "render all 6 frames"]]
    broken_line = (f"{tmp_path / 'broken.py'}: importing the scene failed: "
                   "ModuleNotFoundError: No module named 'no_such_module_here' "
                   f"({tmp_path / 'broken.py'}:2)")
    assert rows[4][:4] == ["broken", "failed", "12", out_of["broken"]]
    assert rows[4][4].startswith(f"fail: {broken_line}")
    assert err.splitlines()[-1] == ("dry run: 4 jobs: 1 done, 1 resumed, 1 up-to-date, "
                                    "1 failed; nothing was run, made or locked")
    planned = {r["name"]: r for r in json.loads(planned_file.read_text())}
    assert all(r["planned"] is True for r in planned.values())
    assert planned["half"]["resume_at"] == 24 and planned["fresh"]["resume_at"] is None

    out = tmp_path / "summary.json"
    assert main(["batch", str(jobs), "--quiet", "--summary", str(out)]) == 1
    real = {r["name"]: r for r in json.loads(out.read_text())}
    assert [real[n]["status"] for n in real] == [planned[n]["status"] for n in real] == [
        "up-to-date", "resumed", "done", "failed"]
    assert real["half"]["frames"] - real["half"]["frames_made"] == 24  # where it resumed
    assert [real[n]["frames"] for n in ("finished", "half", "fresh")] == [
        planned[n]["frames"] for n in ("finished", "half", "fresh")] == [12, 48, 6]
    assert real["broken"]["error"] == planned["broken"]["error"]
    assert real["broken"]["error"].startswith(broken_line)


def test_a_dry_run_writes_makes_locks_and_removes_nothing(tmp_path, monkeypatch, capsys):
    jobs = four_kinds(tmp_path, monkeypatch)
    before = snapshot(tmp_path)
    assert any(p.endswith("hfrender-locks-0") for p in before)  # (made by the runs before)
    assert sum(".half.mp4" in p for p in before) > 2  # the interrupted run's work
    for extra in ([], ["--quiet"], ["--ray"], ["--ray", "auto"]):
        assert main(["batch", str(jobs), "--dry-run", *extra]) == 1, extra
        assert snapshot(tmp_path) == before, extra
    assert not (tmp_path / "__pycache__").exists()  # fresh.py imported common.py
    assert not (tmp_path / "out" / "fresh.mp4").exists()
    said = capsys.readouterr()
    assert said.out.count("resume it at frame 24 of 48") == 3  # not with --quiet
    assert "--ray: a dry run does not connect to a cluster" in said.err


def test_quiet_says_nothing_and_the_code_tells(tmp_path, monkeypatch, capsys):
    jobs = four_kinds(tmp_path, monkeypatch)
    capsys.readouterr()
    assert main(["batch", str(jobs), "--dry-run", "--quiet"]) == 1
    assert capsys.readouterr() == ("", "")
    jobs.write_text(ALL.split('[[job]]\nname = "broken"')[0])  # every job would run
    assert main(["batch", str(jobs), "-q", "--dry-run"]) == 0
    assert capsys.readouterr() == ("", "")


def test_an_output_busy_now_fails_as_the_real_run_says(tmp_path, monkeypatch, capsys):
    from hfrender.io.output_lock import output_lock

    jobs = four_kinds(tmp_path, monkeypatch)
    jobs.write_text(ALL.split('[[job]]\nname = "broken"')[0])
    planned, real = tmp_path / "p.json", tmp_path / "r.json"
    with output_lock(str(tmp_path / "out" / "fresh.mp4"), "output"):
        assert main(["batch", str(jobs), "--dry-run", "-q", "--summary", str(planned)]) == 1
        assert main(["batch", str(jobs), "-q", "--summary", str(real)]) == 1
    plan, done = json.loads(planned.read_text())[2], json.loads(real.read_text())[2]
    assert plan["status"] == done["status"] == "failed"
    assert plan["error"] == done["error"] == (
        f"output {tmp_path / 'out' / 'fresh.mp4'}: another hfrender (pid {os.getpid()}) is "
        "writing it; wait for it to finish, or write elsewhere")


def test_a_bad_file_or_option_is_refused_as_a_real_run_refuses_it(tmp_path, monkeypatch,
                                                                   capsys):
    jobs = four_kinds(tmp_path, monkeypatch)
    jobs.write_text(ALL.replace('scene = "fresh.py"', 'scene = "gone.py"'))
    capsys.readouterr()
    assert main(["batch", str(jobs)]) == 2
    refused = capsys.readouterr().err
    assert "gone.py" in refused and len(refused.splitlines()) == 1
    assert main(["batch", str(jobs), "--dry-run"]) == 2
    assert capsys.readouterr().err == refused
    jobs.write_text(ALL)
    assert main(["batch", str(jobs), "--dry-run=yes"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --dry-run=yes: --dry-run takes no value (--dry-run alone)\n")


def test_an_fx_job_on_a_failing_or_a_remade_output_is_planned_as_it_runs(tmp_path,
                                                                          monkeypatch):
    jobs = four_kinds(tmp_path, monkeypatch)
    fx = '[[job]]\nname = "{0}"\ninput = "out/{1}.mp4"\noutput = "out/{0}.mp4"\nmotion-blur = 2\n\n'
    jobs.write_text(ALL + fx.format("soft", "broken") + fx.format("smooth", "fresh"))
    planned, real = tmp_path / "p.json", tmp_path / "r.json"
    assert main(["batch", str(jobs), "--dry-run", "-q", "--summary", str(planned)]) == 1
    assert main(["batch", str(jobs), "-q", "--summary", str(real)]) == 1
    plan, done = json.loads(planned.read_text())[4:], json.loads(real.read_text())[4:]
    assert [(p["status"], p["error"]) for p in plan] == [(d["status"], d["error"]) for d in done]
    assert plan[0]["error"] == "it reads the output of job 'broken', which failed"
    assert plan[1]["status"] == "done" and plan[1]["frames"] is None  # (made first: unknown)
    assert plan[1]["plan"] == "run all its frames (on job 'fresh''s output, made first)"
    assert done[1]["frames"] == 6


def test_a_batch_of_the_jobs_file_running_now_is_refused_as_a_second_run_is(
        tmp_path, monkeypatch, capsys):
    from hfrender.cli.batch import BUSY
    from hfrender.io.output_lock import output_lock

    jobs = four_kinds(tmp_path, monkeypatch)
    capsys.readouterr()
    with output_lock(str(jobs.resolve()), "batch", BUSY):
        assert main(["batch", str(jobs)]) == 2
        refused = capsys.readouterr().err
        assert main(["batch", str(jobs), "--dry-run"]) == 2
        assert capsys.readouterr().err == refused == (
            f"hfrender: error: batch {jobs}: another hfrender (pid {os.getpid()}) is running "
            "this jobs file; wait for it to end\n")


def test_an_interrupted_fx_job_is_planned_resumed_as_the_real_run_resumes_it(tmp_path,
                                                                             monkeypatch):
    """An fx job stopped after its first segment: the dry run planned it 'done' (its
    encoder settings, resolved by the real run, compared unresolved: never the kept
    run's), the real run resumed it (review r2); one whose input an earlier job makes
    again starts over, in both."""
    import hfrender.engine.fx_output as fx_output
    import hfrender.io.segments as segments

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(fx_output, "SEGMENT_SECONDS", 0.5)
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    fx = '[[job]]\nname = "f"\ninput = "out/r.mp4"\noutput = "out/f.mp4"\nmotion-blur = 2\n'
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(HEAD + JOB.format("r", "bar.frag", 2.0) + fx)
    real = segments.SegmentedWriter._finish_segment

    def stop(self):
        real(self)
        if Path(self.output).name == "f.mp4":
            raise KeyboardInterrupt

    monkeypatch.setattr(segments.SegmentedWriter, "_finish_segment", stop)
    assert main(["batch", str(jobs), "--quiet"]) == 130
    monkeypatch.setattr(segments.SegmentedWriter, "_finish_segment", real)
    for remade in (False, True):
        if remade:  # the render job made again first: the fx job's input is another
            jobs.write_text(HEAD.replace("samples = 2", "samples = 3")
                            + JOB.format("r", "bar.frag", 2.0) + fx)
        plan, ran = tmp_path / f"p{remade}.json", tmp_path / f"s{remade}.json"
        assert main(["batch", str(jobs), "--dry-run", "-q", "--summary", str(plan)]) == 0
        assert main(["batch", str(jobs), "-q", "--summary", str(ran)]) == 0
        planned = [(p["name"], p["status"]) for p in json.loads(plan.read_text())]
        assert planned == [(r["name"], r["status"]) for r in json.loads(ran.read_text())]
        assert planned == ([("r", "done"), ("f", "done")] if remade else
                           [("r", "up-to-date"), ("f", "resumed")])
        if not remade:  # (made whole: interrupted again for the remade case)
            (tmp_path / "out" / "f.mp4").unlink()
            monkeypatch.setattr(segments.SegmentedWriter, "_finish_segment", stop)
            assert main(["batch", str(jobs), "--quiet"]) == 130
            monkeypatch.setattr(segments.SegmentedWriter, "_finish_segment", real)
