"""`hfrender batch JOBS.toml`: every job runs; up-to-date, resumed, failed, done."""

import json
import os
import re
import subprocess
import time
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import batch_status
from render_helpers import decode_video as decode

import hfrender as hf
from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")
BAR = Path(__file__).parent / "data" / "bar.frag"

JOBS = """
[defaults]
fps = 24
size = "32x8"
samples = 2

[[job]]
name = "bar"
scene = "bar.frag"
output = "out/bar.mp4"
duration = 0.5

[[job]]
name = "smooth"
input = "clip.mp4"
output = "out/smooth.mp4"
motion-blur = 4

[[job]]
name = "frames"
scene = "bar.frag"
output = "out/png/%03d.png"
duration = 0.25
shutter_curve = "triangle"
"""


@pytest.fixture
def folder(tmp_path):
    return make_folder(tmp_path)


def make_folder(tmp_path):
    """A jobs file of two renders and an fx job, with the scene and the clip they use."""
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=32x16:rate=30", "-frames:v", "12",
                    "-pix_fmt", "yuv420p", str(tmp_path / "clip.mp4")], check=True)
    (tmp_path / "jobs.toml").write_text(JOBS)
    return tmp_path


def summary(folder, *extra):
    out = folder / "summary.json"
    code = main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet", *extra])
    return code, {r["name"]: r for r in json.loads(out.read_text())}


def test_every_job_runs_then_is_up_to_date(folder, capsys):
    code, first = summary(folder)
    assert code == 0 and [r["status"] for r in first.values()] == ["done"] * 3
    assert (first["bar"]["frames"], first["smooth"]["frames"], first["frames"]["frames"]) == \
        (12, 12, 6)
    assert set(first["bar"]) >= {"name", "status", "frames", "seconds", "output", "error"}
    assert first["bar"]["error"] is None and first["bar"]["output"].endswith("out/bar.mp4")
    assert len(decode(folder / "out" / "bar.mp4")) == 12
    assert len(list((folder / "out" / "png").glob("*.png"))) == 6
    code, again = summary(folder)
    assert code == 0 and again["bar"]["status"] == again["smooth"]["status"] == "up-to-date"
    assert again["frames"]["status"] == "up-to-date"  # a sequence too (was: made again)
    assert again["frames"]["frames"] == 6
    assert [again[j]["frames_made"] for j in ("bar", "smooth", "frames")] == [0, 0, 0]  # (was
    assert again["bar"]["fps"] is None  # null: none made by this run, a trial)
    png = folder / "out" / "png"
    for change in ("gone", "touched", "added"):  # a frame deleted, rewritten, or one more
        if change == "gone":
            (png / "003.png").unlink()
        elif change == "touched":
            os.utime(png / "002.png", ns=(1, 1))
        else:
            (png / "100.png").write_bytes((png / "001.png").read_bytes())
        code, then = summary(folder)
        assert then["frames"]["status"] == "done", change
        assert len(list(png.glob("*.png"))) == 6  # (an hfrender frame of the pattern goes)
        assert summary(folder)[1]["frames"]["status"] == "up-to-date"
    (folder / "bar.frag").write_text(BAR.read_text() + "\n// changed\n")
    code, changed = summary(folder)
    assert changed["bar"]["status"] == "done" and changed["smooth"]["status"] == "up-to-date"


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


def test_an_interrupted_job_resumes_and_gives_the_same_frames(folder, monkeypatch):
    import hfrender.io.segments as seg

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 2.0")
    (folder / "jobs.toml").write_text(text + '\n[[job]]\nname = "whole"\nscene = "bar.frag"\n'
                                      'output = "out/whole.mp4"\nduration = 2.0\n')
    real, calls = seg.SegmentedWriter._finish_segment, {"n": 0}

    def stop_once(self):
        real(self)
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop_once)
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 130
    assert not (folder / "out" / "bar.mp4").exists()
    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", real)
    code, results = summary(folder)
    assert code == 0 and results["bar"]["status"] == "resumed", results["bar"]["error"]
    assert results["bar"]["segments_reused"] == 1 and results["bar"]["segments_made"] >= 1
    bar = results["bar"]  # its fps: the frames this run made, not those it found made
    assert 0 < bar["frames_made"] < bar["frames"] == 48
    assert bar["fps"] == pytest.approx(bar["frames_made"] / bar["seconds"], rel=1e-3, abs=1e-3)
    np.testing.assert_array_equal(decode(folder / "out" / "bar.mp4"),
                                  decode(folder / "out" / "whole.mp4"))


def test_an_interrupted_batch_lists_every_job_in_its_table_and_summary(folder, monkeypatch,
                                                                      capsys):
    """The job Ctrl-C stopped is ``interrupted``, those after it ``not run``: the summary
    is every job's, not the finished ones' alone."""
    import hfrender.io.segments as seg

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 2.0")
    (folder / "jobs.toml").write_text(text)  # bar in segments: one kept, then Ctrl-C
    real = seg.SegmentedWriter._finish_segment
    stop_in = {"name": "bar.mp4"}

    def stop(self):
        real(self)
        if Path(self.output).name == stop_in["name"]:
            raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop)
    out = folder / "summary.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out)]) == 130
    assert [r["status"] for r in json.loads(out.read_text())] == [
        "interrupted", "not run", "not run"]
    stopped = json.loads(out.read_text())[0]  # what it had made, not 0 frames in 0 s
    assert 0 < stopped["frames"] < 48 and stopped["seconds"] > 0
    assert (stopped["segments_made"], stopped["segments_reused"]) == (1, 0)  # was 0 / 0
    table = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in table[-3:]] == [
        ["bar", "interrupted"], ["smooth", "not"], ["frames", "not"]]
    import hfrender.engine.batch as batch

    real_run = batch.run_one

    def run(job, resume, progress, **kw):  # the next run: bar resumes, Ctrl-C in the fx job
        if job.name == "smooth":
            raise KeyboardInterrupt
        return real_run(job, resume, progress, **kw)

    stop_in["name"] = None
    monkeypatch.setattr(batch, "run_one", run)
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out)]) == 130
    results = json.loads(out.read_text())
    assert [(r["name"], r["status"]) for r in results] == [
        ("bar", "resumed"), ("smooth", "interrupted"), ("frames", "not run")]
    assert results[0]["frames"] == 48 and results[2]["frames"] == 0


def test_an_interrupted_jobs_frames_are_those_the_next_run_keeps(folder, monkeypatch,
                                                                   capsys):
    """Ctrl-C 5 frames into bar's second segment (24 frames each): a rest under MIN_SEGMENT
    is left out of the partial video, and the table said the frames fused (28), not the 24
    the next run goes on after; stopped again later, after starting over with other
    settings, the segments it made were told as reused (0/1: it had found one of the older
    run's), and its frames were the 42 its partial output holds (a rest of 18 joined there),
    not the 24 in its whole segment that the next run keeps (as a failed job's and a job's
    on Ray)."""
    import hfrender.io.segments as seg
    from hfrender.io.resume import frames_kept

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 2.0")
    (folder / "jobs.toml").write_text(text)
    real, calls = seg.SegmentedWriter.write, {"n": 0, "at": 29}

    def stop(self, frame):
        real(self, frame)
        calls["n"] += 1
        if calls["n"] == calls["at"]:
            raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "write", stop)
    out = folder / "s.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet"]) == 130
    bar = json.loads(out.read_text())[0]
    partial = folder / "out" / "bar.partial.mp4"  # named (the table names the output)
    assert capsys.readouterr().err.rstrip().endswith(
        f"a half-done one resumes); the frames of job 'bar' so far are in {partial} (the next "
        "run goes on after the 24 in whole segments)")  # (where it resumes: a trial)
    held = len(decode(partial))
    assert bar["status"] == "interrupted" and bar["frames"] == held == 24, bar
    assert bar["frames_made"] == 28 and (bar["segments_made"], bar["segments_reused"]) == (1, 0)
    (folder / "jobs.toml").write_text(text.replace('name = "bar"', 'name = "bar"\n'
                                                   'shutter_curve = "triangle"'))
    calls.update(n=0, at=42)  # starts over (its curve changed): a rest of 18 is joined
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet"]) == 130
    bar = json.loads(out.read_text())[0]
    assert (bar["segments_made"], bar["segments_reused"]) == (1, 0), bar
    assert len(decode(folder / "out" / "bar.partial.mp4")) == 42
    assert bar["frames"] == frames_kept(str(folder / "out" / "bar.mp4")) == 24, bar


def test_an_interrupted_job_of_other_settings_starts_over(folder, monkeypatch):
    """A job stopped half-way, then changed (another sample count, or its scene fixed):
    its segments are another render's, so the job starts over rather than failing on every
    run until the hidden work folder is deleted by hand."""
    import hfrender.io.segments as seg

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 2.0")
    (folder / "jobs.toml").write_text(text)
    real = seg.SegmentedWriter._finish_segment

    def stop(self):
        real(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop)
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 130
    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", real)
    (folder / "jobs.toml").write_text(text.replace("samples = 2", "samples = 3"))
    code, results = summary(folder)
    assert code == 0 and results["bar"]["status"] == "done", results["bar"]["error"]
    assert results["bar"]["frames"] == 48 and results["bar"]["segments_reused"] == 0
    assert len(decode(folder / "out" / "bar.mp4")) == 48


def test_an_up_to_date_job_says_where_an_interrupted_runs_work_of_other_settings_is(
        folder, monkeypatch, caplog):
    """Made, then changed and stopped half-way, then changed back: the job is up to date,
    and a warning says where the stopped run's work stays (it is not deleted: those
    settings may come back)."""
    import hfrender.io.segments as seg

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 2.0")
    (folder / "jobs.toml").write_text(text)
    assert summary(folder)[0] == 0
    real = seg.SegmentedWriter._finish_segment

    def stop(self):
        real(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop)
    made = (folder / "out" / "bar.mp4").read_bytes()
    (folder / "jobs.toml").write_text(text.replace("duration = 2.0", "duration = 2.0\n"
                                                   "shutter = 90"))  # its segments alike
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 130
    assert (folder / "out" / "bar.mp4").read_bytes() == made  # untouched
    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", real)
    (folder / "jobs.toml").write_text(text)
    with caplog.at_level("WARNING", logger="hfrender.engine.batch"):
        code, results = summary(folder)
    assert code == 0 and results["bar"]["status"] == "up-to-date"
    work = seg.work_dir(folder / "out" / "bar.mp4")
    assert [r.getMessage() for r in caplog.records] == [
        f"job 'bar' is up to date; {work} holds an interrupted run's work of other settings "
        "(it goes on from there if they come back; else delete it)",
        "job 'bar' is up to date; bar.partial.mp4, an interrupted run's frames to watch, is "
        "left beside it (delete it once seen)"]  # (was unsaid for ever, a trial)
    assert (work / "manifest.json").is_file()
    assert (folder / "out" / "bar.partial.mp4").is_file()


def test_a_job_takes_samples_auto_and_reconstruct(folder):
    text = (folder / "jobs.toml").read_text().replace(
        "samples = 2", 'samples = "auto"\nsamples-range = "2:6"\nreconstruct = "on"')
    (folder / "jobs.toml").write_text(text)
    config = next(j for j in load_jobs(folder / "jobs.toml", {})
                  if j.kind == "render").render_config()
    assert (config.samples, config.samples_range, config.reconstruct) == ("auto", (2, 6), "on")


def test_a_job_takes_compositing_outputs(folder):
    text = (folder / "jobs.toml").read_text().replace(
        'output = "out/png/%03d.png"', 'output = "out/png/%03d.png"\nbit-depth = 16\n'
        'transparent = true')
    (folder / "jobs.toml").write_text(text)
    config = [j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "render"][1]
    assert (config.render_config().bit_depth, config.render_config().transparent) == (16, True)


def test_a_job_takes_hdr_and_a_bad_value_is_one_line(folder):
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace("samples = 2", 'samples = 2\nhdr = "on"'))
    config = next(j for j in load_jobs(jobs, {}) if j.kind == "render").render_config()
    assert config.hdr == "on"
    jobs.write_text(jobs.read_text().replace('hdr = "on"', "hdr = true"))
    with pytest.raises(ValueError, match=r"jobs\.toml: \[defaults\]: hdr = true must be a "
                                         "string"):
        load_jobs(jobs, {})


def test_a_fx_job_takes_aperture_blades(folder):
    np.save(folder / "d.npy", np.full((12, 16, 32), 3.0, np.float32))  # the clip's frames
    text = (folder / "jobs.toml").read_text().replace(
        "motion-blur = 4", 'motion-blur = 4\ndepth = "d.npy"\nfocus-distance = 2.0\n'
        "f-stop = 1.4\naperture-blades = 7")
    (folder / "jobs.toml").write_text(text)
    fx = next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx")
    assert fx.fx_settings().lens == hf.Lens(2.0, 1.4, aperture_blades=7)
    (folder / "jobs.toml").write_text(text.replace("aperture-blades = 7", "aperture-blades = 2"))
    with pytest.raises(hf.InputError, match=r"jobs\.toml: job 'smooth': aperture-blades = 2 must "
                                            r"be 0 \(round\) or between 3 and 64$"):
        load_jobs(folder / "jobs.toml", {})  # before anything runs


def test_a_fx_job_takes_a_focus_pixel_and_zero_depth_as_sky(folder):
    """A jobs file's fx job takes what the command line does: focus-pixel "X,Y" (each
    frame's focus its depth there; the lens's own distance then a placeholder) and
    depth-zero-is-sky; a focus given both ways, or no focus, is one line before anything
    runs, naming the fields as the file does."""
    base = (folder / "jobs.toml").read_text()
    np.save(folder / "d.npy", np.full((12, 16, 32), 3.0, np.float32))  # the clip's frames
    text = base.replace("motion-blur = 4", 'motion-blur = 4\ndepth = "d.npy"\nf-stop = 1.4\n'
                        'focus-pixel = "30,12"\ndepth-zero-is-sky = true')
    (folder / "jobs.toml").write_text(text)
    s = next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx").fx_settings()
    assert (s.focus_pixel, s.depth_zero_is_sky, s.lens.f_stop) == ((30, 12), True, 1.4)
    for how in ("nearest", "cubic"):  # a depth pass of another size, scaled to the footage
        (folder / "jobs.toml").write_text(text.replace(
            "depth-zero-is-sky = true", f'depth-zero-is-sky = true\ndepth-resize = "{how}"'))
        if how == "cubic":
            with pytest.raises(hf.InputError, match=r"depth-resize 'cubic' must be one of "
                                                    r"nearest, linear$"):
                next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx"
                     ).fx_settings()
        else:
            job = next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx")
            assert job.fx_settings().depth_resize == "nearest"
    (folder / "jobs.toml").write_text(text)
    depth = np.full((2, 20, 40), 3.0, np.float32)
    depth[1, 12, 30] = 1.25
    assert [ln.focus_distance for ln in s.lenses(depth)] == [3.0, 1.25]
    depth[1, 12, 30] = 0.01  # within the focal length: the footage's frame is named
    with pytest.raises(hf.InputError, match=r"^--focus-pixel 30,12: in frame 41 the depth "
                                            r"there is 0\.01 m, nearer than the lens's"):
        s.lenses(depth, first=40)
    depth[1, 12, 30] = 1.25  # the depth spelt another way: the same job
    (folder / "sub").mkdir()
    key = next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx").key()
    (folder / "jobs.toml").write_text(text.replace('depth = "d.npy"', 'depth = "sub/../d.npy"'))
    assert next(j for j in load_jobs(folder / "jobs.toml", {}) if j.kind == "fx").key() == key
    for edit, said, message in (
            ("focus-pixel = \"30,12\"", "focus-pixel = \"30,12\"\nfocus-distance = 2.0",
             r"focus-distance and focus-pixel: give one"),
            ("focus-pixel = \"30,12\"", "", r"depth needs focus-distance \(or focus-pixel X,Y\)$"),
            ('depth = "d.npy"\nf-stop = 1.4\nfocus-pixel = "30,12"\n', "",
             r"depth-zero-is-sky needs depth$")):  # (the file's keys: was the flags)
        (folder / "jobs.toml").write_text(text.replace(edit, said))
        with pytest.raises(hf.InputError, match=r"jobs\.toml: job 'smooth': " + message):
            load_jobs(folder / "jobs.toml", {})


def test_options_after_the_file_override_every_job(folder):
    jobs = load_jobs(folder / "jobs.toml", {"samples": 1, "jitter": True})
    assert [j.render_config().samples for j in jobs if j.kind == "render"] == [1, 1]
    assert all(j.render_config().jitter for j in jobs if j.kind == "render")
    assert jobs[1].fx_settings().window == 4 and "samples" not in jobs[1].options
    code, results = summary(folder, "--samples", "1", "--shutter", "90")
    assert code == 0 and results["bar"]["status"] == "done"


def test_a_video_jobs_own_fps_conforms_it_and_the_defaults_fps_is_the_renders(folder):
    """[defaults] fps = 24 is the renders' rate: the smooth job on a 30 fps video keeps its
    own; the job's own fps reads its frames at that rate (was refused, as "a PNG
    sequence's frame rate"; a footage trial)."""
    code, first = summary(folder)
    assert code == 0 and probe(str(folder / "out" / "smooth.mp4")).fps == pytest.approx(30)
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace("motion-blur = 4", "motion-blur = 4\nfps = 25"))
    code, second = summary(folder)
    assert code == 0 and second["smooth"]["status"] == "done"
    assert second["smooth"]["frames"] == 12
    assert probe(str(folder / "out" / "smooth.mp4")).fps == pytest.approx(25)


@pytest.mark.parametrize("edit,message", [
    (lambda t: t + "\n[[job\n", r"jobs\.toml: not a TOML file: "),
    (lambda t: t.replace("motion-blur = 4", "motion-blurr = 4"),
     r"job 'smooth': unknown field 'motion-blurr' for an fx job; did you mean 'motion-blur'\?$"),
    (lambda t: t.replace("motion-blur = 4", "motion-blur = 4\nzzz = 4"),
     r"job 'smooth': unknown field 'zzz' for an fx job; known: aperture-blades, backend, "
     r"bitrate"),
    (lambda t: t.replace("samples = 2", 'samples = "two"'),  # once, for every job
     r"jobs\.toml: \[defaults\]: samples = \"two\" must be an integer or auto$"),
    (lambda t: t.replace('duration = 0.5', 'duration = 0.5\nsamples = "two"'),
     r"job 'bar': samples = \"two\" must be an integer or auto$"),
    (lambda t: t.replace('scene = "bar.frag"\noutput = "out/bar.mp4"',
                         'scene = "nope.py"\noutput = "out/bar.mp4"'),
     r"job 'bar': scene file not found: .*nope\.py$"),
    (lambda t: t.replace("duration = 0.5", 'duration = 0.5\nscene_class = "Bar"'),
     r"job 'bar': scene_class Bar: bar\.frag is a shader file, it has no scene classes$"),
    (lambda t: t.replace('output = "out/bar.mp4"', 'output = "/proc/hf/bar.mp4"'),
     r"job 'bar': output /proc/hf/bar\.mp4: cannot write in /proc: no file can be made "
     r"there \(No such file or directory\)$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = "missing.mp4"'),
     r"job 'smooth': input .*missing\.mp4 not found"),
    # found only when the job's turn came, after the jobs before it had run
    (lambda t: t.replace('input = "clip.mp4"', 'input = "none/%04d.png"'),
     r"job 'smooth': input .*none/%04d\.png not found$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = "."'),  # was found when its turn
     r"job 'smooth': input .* is a folder with no PNG, EXR, TIFF or JPEG images"),  # came, exit 1
    (lambda t: t.replace('output = "out/smooth.mp4"', 'output = "./clip.mp4"'),
     r"job 'smooth': output = \"\./clip\.mp4\" is the input \(.*clip\.mp4\): write the "
     r"output elsewhere$"),  # the key as the file gives it (was: "-o /abs/clip.mp4")
    (lambda t: t.replace("samples = 2", 'samples = 2\nscene = "bar.frag"'),  # was ignored
     r"jobs\.toml: \[defaults\]: scene is each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace("samples = 2", 'samples = 2\noutput = "o.mp4"'),
     r"jobs\.toml: \[defaults\]: output is each job's own; give it in every \[\[job\]\]$"),
    (lambda t: t.replace("samples = 2", "sampels = 2"),  # not the first job's typo
     r"jobs\.toml: \[defaults\]: unknown field 'sampels' for a render or fx job; did you "
     r"mean 'samples'\?$"),
    (lambda t: t.replace("samples = 2", "shutter-speed = 48"),  # (was: 'shutter'? alone)
     r"\[defaults\]: unknown field 'shutter-speed' for a render or fx job; did you mean "
     r"'shutter'\? \(shutter is an angle in degrees: a shutter speed of 1/S s at F fps is "
     r"360 F / S \(1/48 s at 24 fps: 180\)\)$"),
    (lambda t: t.replace('name = "frames"', 'name = "bar"'),
     r"two jobs are named 'bar'; give each its own name"),
    (lambda t: t.replace('name = "frames"', 'name = 5'),  # was: "name is missing"
     r"\[\[job\]\] number 3: name = 5 must be a string of some characters, on one line "
     r"\(name = \"shot\"\)$"),
    (lambda t: t.replace('name = "frames"', 'name = "  "'),  # was: a row of no name
     r"job '  ': name = \"  \" must be a string of some characters, on one line \(name = "
     r"\"shot\"\)$"),
    (lambda t: t.replace('name = "frames"', 'name = "fra\\nmes"'),  # was: run, its table
     r"job 'fra\\nmes': name = \"fra\\nmes\" must be a string of some characters, on one "
     r"line \(name = \"shot\"\)$"),  # row and progress line broken in two
    (lambda t: t.replace("[[job]]", "[job]", 1).split("[[job]]")[0],  # was: "no [[job]]"
     r"jobs\.toml: \[job\] is one table; each job is a \[\[job\]\] entry \(two brackets\), "
     r"even where there is one$"),
    (lambda t: t.replace('output = "out/bar.mp4"', "output = 5"),  # was: "output is missing"
     r"job 'bar': output = 5 must be a path such as output = \"out/shot\.mp4\"$"),
    (lambda t: t.replace('input = "clip.mp4"', 'input = ""'),
     r"job 'smooth': input = \"\" must be a path such as input = \"clip\.mp4\"$"),
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nframes = 3"),  # was: "must be
     r"job 'frames': frames = 3 must be a string such as frames = \"10:20\" \(output "  # a
     r"frames START:END, END exclusive; \"10:\" or \":20\"\)$"),  # string", no more
    (lambda t: t.replace("samples = 2", "samples = 2\nsamples-range = 4"),
     r"jobs\.toml: \[defaults\]: samples-range = 4 must be a string such as samples-range = "
     r"\"4:64\"$"),
    (lambda t: "job = 5\n",  # was: "no [[job]] entries", as for a file of none
     r"jobs\.toml: job = 5 is not a job; each job is a \[\[job\]\] entry \(two brackets\) "
     r"of name, scene or input, output$"),
    (lambda t: "defaults = 5\n" + t[t.index("[[job]]"):],
     r"jobs\.toml: defaults = 5 is not a table; the settings of every job go under "
     r"\[defaults\]$"),
    (lambda t: t.replace('output = "out/png/%03d.png"', 'output = "out/bar.mp4"'),
     r"jobs 'bar' and 'frames' have the same output"),
    (lambda t: t.replace('output = "out/smooth.mp4"', 'output = "out/bar.partial.mp4"'),
     r"job 'bar' would keep an interrupted run's frames in .*out/bar\.partial\.mp4, the "
     r"output of job 'smooth': name one of them otherwise$"),
    (lambda t: t.replace("duration = 0.25", "duration = -1"),
     r"job 'frames': duration = -1 must be a finite number > 0$"),
    # each key as the jobs file spells it, its value as TOML does (were max_in_flight=0,
    # samples_range=(16, 4), hdr = True, a trial)
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nmax-in-flight = 0"),
     r"jobs\.toml: job 'frames': max-in-flight = 0 must be an integer from 1 to 64$"),
    (lambda t: t.replace("duration = 0.25", 'duration = 0.25\nsamples = "auto"\n'
                                            'samples-range = "16:4"'),
     r"jobs\.toml: job 'frames': samples-range = \"16:4\" must be MIN:MAX with 1 <= MIN <= "
     r"MAX <= 4096$"),
    (lambda t: t.replace("samples = 2", "samples = 2\nhdr = true"),
     r"jobs\.toml: \[defaults\]: hdr = true must be a string$"),
    (lambda t: t.replace("duration = 0.25", "duration = 1e9"),  # was found as it ran
     r"job 'frames': duration=1e\+09 s at 24 fps is 24,000,000,000 frames; hfrender renders "
     r"at most [\d,]+ in one output"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nfps = 5000"),
     r"job 'bar': fps = 5000 must be a finite number >= 0\.001 and <= 1000$"),
    (lambda t: t.replace('output = "out/bar.mp4"', 'output = "out/bar.avi"'),
     r"job 'bar': -o .*out/bar\.avi: unknown output type '\.avi'"),
    (lambda t: t.replace('size = "32x8"', 'size = "33x8"'),
     r"job 'bar': size 33x8: libx264 video in yuv420p needs an even width and height"),
    (lambda t: t.replace("duration = 0.5", "duration = 0.5\nbit-depth = 16"),  # was: the
     r"job 'bar': --bit-depth 16: -o .*out/bar\.mp4 is a video, whose encoder's pixel "  # job
     r"format decides"),  # failed when its turn came, exit 1, the jobs before it run
    (lambda t: t.replace("duration = 0.25", "duration = 0.25\nbit-depth = 32"),  # (EXR's)
     r"job 'frames': --bit-depth 32: PNG frames are 8 or 16 bits$"),
    (lambda t: t.replace('duration = 0.5', 'duration = 0.5\ntransparent = true'),
     r"job 'bar': --transparent: -o .*out/bar\.mp4 \(libx264\) keeps no alpha"),
])
def test_a_bad_jobs_file_is_one_line_before_anything_runs(folder, capsys, edit, message):
    import re

    path = folder / "jobs.toml"
    path.write_text(edit(path.read_text()))
    assert main(["batch", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    assert not (folder / "out").exists()  # nothing rendered, nothing written


SCENES = """import hfrender as hf
from math import tau as Tau


class Orbit(hf.Scene):
    pass


class Spin(hf.Scene):
    pass


try:
    import trimesh
except ImportError:
    class Fallback(hf.Scene):
        pass
else:
    class Fallback(hf.Scene):
        pass

Alias = Spin
Typed: type = Orbit
"""


def _scene_job(folder, source, scene_class):
    """The jobs file with job 'bar' rendering class ``scene_class`` of scenes.py (``source``)."""
    (folder / "scenes.py").write_text(source)
    path = folder / "jobs.toml"
    text = path.read_text().replace('scene = "bar.frag"\noutput = "out/bar.mp4"',
                                    'scene = "scenes.py"\noutput = "out/bar.mp4"')
    path.write_text(text.replace("duration = 0.5",
                                 f'duration = 0.5\nscene_class = "{scene_class}"'))
    return path


@pytest.mark.parametrize("source,scene_class,message", [
    (SCENES, "Orbt", r"job 'bar': .*scenes\.py: no class named 'Orbt'; did you mean Orbit\?$"),
    (SCENES, "Zzz", r"job 'bar': .*scenes\.py: no class named 'Zzz'; found Orbit, Spin, "
                    r"Fallback, Fallback$"),
    (SCENES, "Tau", r"job 'bar': .*scenes\.py: no class named 'Tau'; found Orbit, "),
    ("import hfrender as hf\n", "Orbit",
     r"job 'bar': .*scenes\.py: no class named 'Orbit'; it defines no classes$"),
    (SCENES.replace("    pass\n\n\nclass Spin", "    pass\n\n\nclass Spin("), "Orbit",
     r"job 'bar': .*scenes\.py:9: syntax error: "),
])
def test_a_scene_class_not_in_its_file_is_said_before_anything_runs(folder, capsys, source,
                                                                    scene_class, message):
    """Told from the file without running it: a render job's scene parses and defines (or
    assigns) the class it names; an imported one is none of the file's scenes."""
    import re

    path = _scene_job(folder, source, scene_class)
    assert main(["batch", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.search(message, err), err
    assert not (folder / "out").exists()  # nothing rendered, nothing written


@pytest.mark.parametrize("name", ["Orbit", "Spin", "Alias", "Fallback", "Typed"])
def test_a_class_defined_or_assigned_in_the_scene_file_passes_the_check(folder, name):
    """At its top level, inside a try or an if, or an alias by (annotated) assignment."""
    job = load_jobs(_scene_job(folder, SCENES, name), {})[0]
    assert (job.scene_class, job.source.name) == (name, "scenes.py")


def test_the_summary_goes_where_asked_and_an_unwritable_one_is_said_first(folder, capsys):
    code, results = summary(folder)  # (into the jobs file's folder)
    out = folder / "reports" / "today" / "s.json"  # a folder not there yet is made
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet"]) == 0
    assert [r["status"] for r in json.loads(out.read_text())] == ["up-to-date"] * 3
    capsys.readouterr()
    assert main(["batch", str(folder / "jobs.toml"), "--summary", "/proc/s.json"]) == 2
    assert capsys.readouterr().err.startswith("hfrender: error: --summary /proc/s.json: cannot "
                                              "write in /proc")


def test_the_environments_backend_reaches_every_job(folder, monkeypatch):
    """HFRENDER_BACKEND is read by each job as by the commands: a wrong one fails them with
    its one line (an fx job ran on 'auto' before)."""
    monkeypatch.setenv("HFRENDER_BACKEND", "bogus")
    code, results = summary(folder)
    assert code == 1
    assert {r["status"] for r in results.values()} == {"failed"}
    assert {r["error"] for r in results.values()} == {
        "HFRENDER_BACKEND='bogus' is not a backend; choose one of auto, cpu, cuda"}


@pytest.mark.parametrize("swallowed_as", ["done", "failed"])
def test_a_ctrl_c_a_job_swallows_still_stops_the_batch(folder, monkeypatch, swallowed_as):
    """A library inside a job may catch the KeyboardInterrupt (or wrap it in an error of
    its own): the batch stops after that job all the same, exit 130, the rest not run."""
    import hfrender.engine.batch as batch
    from hfrender.cli import common

    real = batch.run_one

    def run(job, resume, progress, **kw):
        try:
            common.on_sigint(None, None)  # what the first Ctrl-C does, here inside the job
        except KeyboardInterrupt:
            if swallowed_as == "failed":
                raise TypeError("unsupported operand type(s) for |") from None
        return real(job, resume, progress, **kw)

    monkeypatch.setattr(batch, "run_one", run)
    out = folder / "summary.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet"]) == 130
    statuses = [r["status"] for r in json.loads(out.read_text())]
    assert statuses == [swallowed_as if swallowed_as == "done" else "interrupted", "not run",
                        "not run"]


def test_progress_in_a_log_names_each_job(folder, monkeypatch, capsys):
    """In a log (no terminal), a batch's progress lines name the job and its place
    (was: "rendering:" for every job)."""
    import re

    monkeypatch.setattr("hfrender.progress.LOG_EVERY_S", 0.0)
    assert main(["batch", str(folder / "jobs.toml")]) == 0
    err = capsys.readouterr().err.splitlines()
    lines = [ln for ln in err if " frames (" in ln]
    labels = {ln.split(": ")[0] for ln in lines}
    assert labels == {"[1/3] bar", "[2/3] smooth", "[3/3] frames"}, lines
    assert any(ln.startswith("[1/3] bar: 6/12 frames (50%)") for ln in lines), lines
    # each line, and each job's end, with the time of day (a night's log said not when) and
    # how long the job took (a night's log said it only in the table at the end)
    ends = [ln for ln in err
            if re.fullmatch(r"\[\d/3\] \w+: done in \d+s \(\d\d:\d\d:\d\d\)", ln)]
    assert len(ends) == 3 and all(re.search(r" \(now \d\d:\d\d:\d\d\)$", ln) for ln in lines), err


def test_a_change_in_a_module_the_scene_imports_makes_its_job_run_again(tmp_path, capsys):
    """A scene's colour from `from common import COLOR`: after common.py changed, the job
    was "up-to-date" with the old colour (and a resumed render mixed the two). The modules
    of the user's own a scene imports count, as the scene file does; a render's --resume
    refuses them changed."""
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "palette.py").write_text("COLOR = (1.0, 0.4, 0.1)\n")
    (tmp_path / "common.py").write_text("from helpers.palette import COLOR\n")
    (tmp_path / "ball.py").write_text(
        "import os\nimport hfrender as hf\nfrom common import COLOR\n\n"
        "class Ball(hf.Scene):\n    duration = 0.2\n\n    def setup(self):\n"
        "        self.add(hf.Sphere(color=COLOR))\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "ball"\nscene = "ball.py"\n'
                                        'output = "ball.mp4"\nsize = "32x18"\nsamples = 1\n')

    def status():
        return batch_status(tmp_path / "jobs.toml")

    def colour():
        return decode(tmp_path / "ball.mp4")[0][9, 16].astype(int)

    assert status() == "done" and status() == "up-to-date"
    orange = colour()
    (tmp_path / "helpers" / "palette.py").write_text("COLOR = (0.1, 1.0, 0.1)\n")  # 2 deep
    assert status() == "done" and status() == "up-to-date"
    green = colour()
    assert orange[0] > 150 > green[0] and green[1] > 150 > orange[1], (orange, green)

    from hfrender.config import RenderConfig
    from hfrender.engine.render_setup import output_settings

    def settings(scene):
        return output_settings(scene, RenderConfig(), "cpu", "off", 6)

    before = settings(tmp_path / "ball.py")
    assert list(before["scene_modules"]) == ["common.py", "helpers/__init__.py",
                                             "helpers/palette.py"]
    (tmp_path / "helpers" / "palette.py").write_text("COLOR = (0.1, 0.1, 1.0)\n")
    from hfrender.io.segments import Manifest

    assert Manifest(before, 6, 6, 0).differences(settings(tmp_path / "ball.py")) == [
        "the scene's module helpers/palette.py changed"]  # what --resume says of it
    assert "scene_modules" not in settings(BAR)  # a scene importing nothing of its own: as
    capsys.readouterr()  # before (an interrupted run of an older hfrender resumes)


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


def test_a_scene_file_of_several_scenes_without_scene_class_is_said_first(folder, capsys):
    """A job's scene file holding two Scene classes, and no scene_class: found when its
    turn came ("choose one with -s NAME", the command line's words), after the jobs before
    it had run."""
    (folder / "ab.py").write_text("import hfrender as hf\n\nclass Base(hf.Scene):\n"
                                  "    pass\n\nclass A(Base):\n    pass\n\n"
                                  "class B(Base):\n    pass\n\ntry:\n"
                                  "    class C(hf.Scene):\n        pass\nexcept Exception:\n"
                                  "    pass\n\ndef variant():\n"
                                  "    class Tinted(A):  # made by a function: not a scene\n"
                                  "        pass\n    return Tinted\n")
    (folder / "jobs.toml").write_text(JOBS + '\n[[job]]\nname = "ab"\nscene = "ab.py"\n'
                                      'output = "out/ab.mp4"\n')
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {folder / 'jobs.toml'}: job 'ab': {folder / 'ab.py'} has several "
        'scenes (A, B, C); choose one with scene_class = "A"\n')
    assert not (folder / "out").exists()  # nothing ran
    (folder / "jobs.toml").write_text(JOBS + '\n[[job]]\nname = "ab"\nscene = "ab.py"\n'
                                      'output = "out/ab.mp4"\nscene_class = "B"\n')
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 0


@pytest.mark.parametrize("option, said", [
    ("--resume", "--resume: a batch goes on by itself: run the same batch command again "
                 "(finished jobs are skipped, a half-done one resumes)"),
    ("--keep-samples", "--keep-samples: a batch keeps no samples: render that job alone "
                       "with hfrender render ... --keep-samples"),
    ("--preview", "--preview: a batch shows no window: render that job alone with hfrender "
                  "render ... --preview"),
])
def test_a_commands_option_a_batch_does_not_take_says_why(folder, capsys, option, said):
    """`batch jobs.toml --resume` said "not an option of hfrender render or fx; did you
    mean --preset?" (and the join's failure told to run the same command with --resume)."""
    assert main(["batch", str(folder / "jobs.toml"), option]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"


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


def test_a_job_interrupted_again_counts_only_the_frames_this_run_made(folder, monkeypatch):
    """A job interrupted on its second run gave frames_made = every frame of its partial
    output, those the first run made included (49110 "made" in 12.6 s, 3908.9 fps)."""
    import hfrender.io.segments as seg

    text = (folder / "jobs.toml").read_text().replace("duration = 0.5", "duration = 4.0")
    (folder / "jobs.toml").write_text(text)
    real, calls = seg.SegmentedWriter._finish_segment, {"n": 0, "at": 1}

    def stop(self):
        real(self)
        calls["n"] += 1
        if calls["n"] == calls["at"]:
            raise KeyboardInterrupt

    from hfrender.io.resume import frames_kept

    monkeypatch.setattr(seg.SegmentedWriter, "_finish_segment", stop)
    kept = 0
    for _ in range(2):  # the first run keeps a segment; the second one more
        calls.update(n=0, at=1)
        out = folder / "s.json"
        assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out),
                     "--quiet"]) == 130
        bar = json.loads(out.read_text())[0]
        assert bar["status"] == "interrupted"
        now = frames_kept(str(folder / "out" / "bar.mp4"))  # for the next run
        assert bar["frames"] == now > kept and now % 24 == 0, (bar, kept)
        # this run's, not the kept ones (the frame being written when Ctrl-C came: not told
        # as fused, but in the partial output)
        assert now - kept - 1 <= bar["frames_made"] <= now - kept, bar
        kept = now


def interrupted_at(monkeypatch, folder, name):
    """``batch folder/jobs.toml --quiet`` with a Ctrl-C when job ``name`` starts: its code."""
    from hfrender.engine import batch

    real = batch.run_job

    def run_job(job, state, progress=None, **kw):
        if job.name == name:
            raise KeyboardInterrupt
        return real(job, state, progress, **kw)

    monkeypatch.setattr(batch, "run_job", run_job)
    return main(["batch", str(folder / "jobs.toml"), "--quiet"])


@pytest.mark.parametrize("output, then", [
    ("out/g.gif", "'g' (a GIF) starts over: it is made whole"),
    ("out/g.ts", "'g' (a TS) starts over: it is made whole"),
    ("out/g.mp4", "a half-done one resumes")])
def test_an_interrupted_gif_job_is_said_to_start_over(folder, capsys, monkeypatch, output,
                                                      then):
    """A Ctrl-C during a GIF job promised "a half-done one resumes"; the next run started
    it over (rightly: a GIF's palette is made whole) without a word."""

    (folder / "jobs.toml").write_text(
        '[[job]]\nname = "bar"\nscene = "bar.frag"\noutput = "out/bar.mp4"\nsize = "32x8"\n'
        f'duration = 0.2\n\n[[job]]\nname = "g"\nscene = "bar.frag"\noutput = "{output}"\n'
        'size = "32x8"\nduration = 0.2\n')
    assert interrupted_at(monkeypatch, folder, "g") == 130
    assert capsys.readouterr().err.endswith(
        "interrupted: 1 of 2 jobs finished; run the same command again to go on (finished "
        f"jobs are skipped, {then})\n")


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


def test_a_linked_module_counts_as_the_file_it_points_to(tmp_path):
    """A shot's common.py linked to a studio's shared file was left out of the scene's
    modules (resolved outside the shot's folder): an edit of the shared file kept the
    job up to date."""
    from hfrender.scene.sources import scene_modules

    (tmp_path / "shared").mkdir()
    (tmp_path / "shot").mkdir()
    (tmp_path / "shared" / "common.py").write_text("COLOR = (1, 0, 0)\n")
    (tmp_path / "shot" / "common.py").symlink_to("../shared/common.py")
    (tmp_path / "shot" / "scene.py").write_text("from common import COLOR\n")
    before = scene_modules(tmp_path / "shot" / "scene.py")
    assert list(before) == ["common.py"]
    (tmp_path / "shared" / "common.py").write_text("COLOR = (0, 1, 0)\n")
    assert scene_modules(tmp_path / "shot" / "scene.py")["common.py"] != before["common.py"]


def test_a_scene_class_made_inside_a_function_is_not_one_of_the_files_scenes(folder):
    """A file of one scene and a factory making variants of it inside a function ran as its
    one scene (load_scene sees the top level); the batch's check counted the variant."""
    (folder / "one.py").write_text("import hfrender as hf\n\nclass Main(hf.Scene):\n"
                                   "    duration = 0.1\n\ndef variant():\n"
                                   "    class Tinted(hf.Scene):\n        pass\n"
                                   "    return Tinted\n")
    (folder / "jobs.toml").write_text('[[job]]\nname = "one"\nscene = "one.py"\n'
                                      'output = "out/one.mp4"\nsize = "32x18"\nsamples = 1\n')
    code, results = summary(folder)
    assert code == 0 and results["one"]["status"] == "done"


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


def test_a_bad_value_after_the_jobs_file_is_told_as_the_option(folder, capsys):
    """``batch jobs.toml --samples 0`` blamed the jobs file ("jobs.toml: job 'bar':
    samples=0 ...") for a value given on the command line."""
    assert main(["batch", str(folder / "jobs.toml"), "--samples", "0"]) == 2
    assert capsys.readouterr().err.splitlines() == [  # once, with the jobs it fails (was
        # a line for each render job's: one bad value said twice)
        "hfrender: error: on the command line, for jobs 'bar' and 'frames': --samples 0 must "
        "be an integer from 1 to 4096 or 'auto'"]
    # was two lines in two wordings, the render's and the fx job's (a bad-input sweep)
    assert main(["batch", str(folder / "jobs.toml"), "--backend", "0"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "hfrender: error: on the command line, for jobs 'bar', 'smooth' and 'frames': "
        "--backend 0 is not a backend; choose one of auto, cpu, cuda"]
    assert main(["batch", str(folder / "jobs.toml"), "--fps", "0"]) == 2  # (was fps=0.0)
    assert capsys.readouterr().err.splitlines()[0] == (
        "hfrender: error: on the command line, for jobs 'bar' and 'frames': --fps 0 must be a "
        "finite number >= 0.001 and <= 1000")
    # an empty rate: on the command line, once (was the jobs file's, 'fps = ""', a job each)
    assert main(["batch", str(folder / "jobs.toml"), "--fps", ""]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "hfrender: error: --fps '' must be a number or a fraction such as 30000/1001"]
    assert main(["batch", str(folder / "jobs.toml"), "--codec", ""]) == 2  # (was "--codec  must")
    assert capsys.readouterr().err.splitlines()[0] == (
        "hfrender: error: on the command line, for jobs 'bar', 'smooth' and 'frames': --codec '' "
        "must be an ffmpeg encoder's name, such as libx264")
    assert main(["batch", str(folder / "jobs.toml"), "--size", "1 x"]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        "hfrender: error: on the command line, for jobs 'bar' and 'frames': --size '1 x' must be "
        "WIDTHxHEIGHT, e.g. 640x360")
    assert main(["batch", str(folder / "jobs.toml"), "--size", "33x8"]) == 2  # "size 33x8: "
    assert capsys.readouterr().err.startswith(
        "hfrender: error: --size (on the command line), for job 'bar': size 33x8: libx264 ")
    (folder / "jobs.toml").write_text(JOBS.replace("samples = 2", "samples = 0"))
    assert main(["batch", str(folder / "jobs.toml")]) == 2  # the file's own: the file's
    assert capsys.readouterr().err.splitlines() == [  # [defaults]', once
        f"hfrender: error: {folder / 'jobs.toml'}: [defaults], for jobs 'bar' and 'frames': "
        "samples = 0 must be an integer from 1 to 4096 or 'auto'"]
    assert not (folder / "out").exists()


def test_an_interrupted_batch_counts_failed_jobs_apart_from_finished_ones(folder, capsys,
                                                                         monkeypatch):
    """Two failed jobs were counted among "2 of 4 jobs finished ... skipped" (a trial); the
    next run runs them again."""

    (folder / "bad.py").write_text("import hfrender as hf\nclass Bad(hf.Scene):\n"
                                   "    duration = 0.1\n    def update(self, t):\n"
                                   "        raise RuntimeError('no')\n")
    (folder / "jobs.toml").write_text("".join(
        f'[[job]]\nname = "{name}"\nscene = "{scene}"\noutput = "out/{name}.mp4"\n'
        'size = "32x8"\nduration = 0.1\nsamples = 2\n\n'
        for name, scene in (("a", "bad.py"), ("b", "bar.frag"), ("c", "bad.py"),
                            ("d", "bar.frag"))))
    assert interrupted_at(monkeypatch, folder, "d") == 130
    assert capsys.readouterr().err.endswith(
        "interrupted: 1 of 4 jobs finished, 2 failed; run the same command again to go on "
        "(finished jobs are skipped, failed ones run again, a half-done one resumes)\n")


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


def test_hfrender_toml_here_goes_under_a_render_jobs_defaults(folder, monkeypatch):
    """hfrender.toml's [render] settings were not read by a batch (its size and fps left at
    640x360, 30 fps, and a typo in it unsaid, where a render takes them and refuses the
    typo): those beside the jobs file now go under [defaults], for render jobs, its output,
    preview and frames being one run's (a batch user's trial), wherever the batch runs
    from, and a batch of fx jobs alone does not read it (a review)."""
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace('fps = 24\nsize = "32x8"\n', ""))
    monkeypatch.chdir(folder.parent)  # not here: beside the jobs file
    (folder / "hfrender.toml").write_text(
        '[render]\nsize = "48x16"\nfps = 12\nshutter = 90\noutput = "x.mp4"\npreview = true\n'
        'antialias = false\nframes = "1:"\n')
    by_name = {j.name: j for j in load_jobs(jobs, {})}
    bar = by_name["bar"].render_config()
    assert (bar.size, bar.fps, bar.shutter, bar.preview) == ((48, 16), 12, 90.0, False)
    assert (bar.antialias, bar.frames) == (False, None)
    assert by_name["bar"].output == folder / "out/bar.mp4"
    assert "shutter" not in by_name["smooth"].options  # not an fx job's
    jobs.write_text(jobs.read_text().replace('duration = 0.25', 'duration = 0.25\nsize = "16x8"'))
    frames = {j.name: j for j in load_jobs(jobs, {})}["frames"].render_config()
    assert frames.size == (16, 8) and frames.fps == 12  # the job's own over the file's
    (folder / "hfrender.toml").write_text('[render]\nsampels = 2\n')
    with pytest.raises(ConfigError, match=r"hfrender.toml: \[render\]: unknown field 'sampels'; "
                                          r"did you mean 'samples'\?$"):
        load_jobs(jobs, {})
    only_fx = folder / "fx.toml"
    only_fx.write_text('[[job]]\nname = "smooth"\ninput = "clip.mp4"\noutput = "s.mp4"\n'
                       "motion-blur = 4\n")
    assert [j.name for j in load_jobs(only_fx, {})] == ["smooth"]


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


def test_a_bad_value_from_hfrender_toml_is_blamed_on_it(folder):
    """A value hfrender.toml gave a job that its output cannot take was said to be the
    jobs file's, which holds no such key (a review)."""
    (folder / "hfrender.toml").write_text('[render]\ncodec = "nope"\n')
    jobs = folder / "jobs.toml"
    with pytest.raises(InputError, match=rf"^{re.escape(str(folder / 'hfrender.toml'))}, for "
                                         r"job 'bar': codec = \"nope\": this ffmpeg has no "
                                         r"such "):  # (was "--codec nope", no such flag given)
        load_jobs(jobs, {})  # a bad value of the project's: refused, blamed on it
    jobs.write_text(jobs.read_text().replace('output = "out/bar.mp4"', 'output = "out/bar.gif"'))
    (folder / "hfrender.toml").write_text('[render]\ncrf = 20\n')  # a GIF takes no CRF: the
    assert "crf" not in {j.name: j for j in load_jobs(jobs, {})}["bar"].options  # project's
    # left out for it (a review), where the job's own is refused
    jobs.write_text(jobs.read_text().replace('name = "bar"', 'name = "bar"\ncrf = 20'))
    with pytest.raises(InputError, match=rf"^{re.escape(str(jobs))}: job 'bar': --crf 20: "):
        load_jobs(jobs, {})  # given in the jobs file too: its own


def test_every_wrong_job_is_told_at_once_one_line_each(folder, capsys):
    """A jobs file's wrong jobs are told together (was: the first, then the next after
    fixing it); an fx job reading a wrong job's output is that job's error, and a
    [defaults] error every job meets is told once."""
    path = folder / "jobs.toml"
    text = path.read_text().replace("duration = 0.5", "duration = 0.5\nsamples = 0")
    text = text.replace("duration = 0.25", "duration = -1")
    path.write_text(text + '\n[[job]]\nname = "again"\ninput = "out/bar.mp4"\n'
                    'output = "out/again.mp4"\nmotion-blur = 2\n')
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert re.search(r"job 'bar': samples = 0 must be an integer from 1 to 4096", lines[0])
    assert re.search(r"job 'frames': duration = -1 must be a finite number > 0", lines[1])
    assert all(line.startswith("hfrender: error: ") for line in lines)
    assert not (folder / "out").exists()
    with pytest.raises(InputError) as told:  # the library's: each line, the first first
        load_jobs(path, {})
    assert len(told.value.lines) == 2 and str(told.value).splitlines() == told.value.lines
    path.write_text(text.replace("samples = 2", "samples = 2\nwidth = 32"))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"hfrender: error: {path}: [defaults]: unknown field 'width' for a "
                     "render or fx job; did you mean 'size'?"]
    path.write_text(text.replace("fps = 24", "fps = 5000").replace("samples = 0", "samples = 1")
                    .replace("duration = -1", "duration = 0.25"))
    assert main(["batch", str(path)]) == 2  # a [defaults] value out of range: once, with
    lines = capsys.readouterr().err.splitlines()  # the jobs it fails (was a line each)
    assert len(lines) == 1 and re.search(r"\[defaults\], for jobs 'bar' and 'frames': fps = "
                                         "5000 must be a finite number", lines[0]), lines


def test_many_wrong_jobs_are_counted_past_twenty_lines(folder, capsys):
    path = folder / "jobs.toml"
    path.write_text("".join(f'[[job]]\nname = "j{i}"\nscene = "none{i}.py"\noutput = '
                            f'"out/{i}.mp4"\n\n' for i in range(23)))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 21 and lines[-1] == "hfrender: error: and 3 more"
    assert [re.search(r"job '(j\d+)': scene file not found", x)[1] for x in lines[:20]] == \
        [f"j{i}" for i in range(20)]


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


def test_a_job_without_output_hides_no_other_jobs_error_and_a_made_depth_waits(folder,
                                                                               capsys):
    """A review's: a render job with no output made every later render job's error look
    like its own (their inputs, none, were "the wrong job's output"); an fx job whose depth
    pass an earlier job writes is checked once it is written, not refused before."""
    path = folder / "jobs.toml"
    text = path.read_text()
    path.write_text(text.replace('output = "out/bar.mp4"\n', "", 1)
                    .replace("duration = 0.25", "duration = 0.25\nsamples = 0"))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [re.search(r"job '(\w+)': (\w+)", x).groups() for x in lines] == [
        ("bar", "output"), ("frames", "samples")], lines
    path.write_text(text + '\n[[job]]\nname = "focus"\ninput = "clip.mp4"\noutput = '
                    '"out/focus.mp4"\ndepth = "out/png/%03d.png"\nf-stop = 2\n'
                    "focus-distance = 1\n")
    assert [j.name for j in load_jobs(path, {})] == ["bar", "smooth", "frames", "focus"]


def test_a_projects_defaults_a_jobs_output_refuses_are_left_out(folder):
    """hfrender.toml's crf refused a PNG sequence job and bit_depth a video job, blamed on
    the project file, where a render of either takes them where they fit (a review)."""
    (folder / "hfrender.toml").write_text('[render]\ncrf = 20\nbit_depth = 16\n')
    code, results = summary(folder)
    assert code == 0, results
    assert {r["status"] for r in results.values()} == {"done"}
    png = sorted((folder / "out" / "png").glob("*.png"))[0]
    assert png.read_bytes()[24] == 16  # the PNG job took bit_depth: 16 bits a channel


def test_an_fx_jobs_input_being_written_is_not_read(folder):
    """A batch's fx jobs took no hold of their footage (the fx command did: a clip of old,
    new and mixed frames when a render replaced it meanwhile, a trial): a job whose input
    another hfrender is writing fails in one line, the other jobs run; let go, it runs."""
    import hfrender.io.output_lock as locks

    out = folder / "summary.json"
    with locks.output_lock(str((folder / "clip.mp4").resolve())):
        assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out),
                     "--quiet"]) == 1
    rows = {r["name"]: r for r in json.loads(out.read_text())}
    assert rows["smooth"]["status"] == "failed" and rows["smooth"]["frames"] == 0
    assert rows["smooth"]["error"] == (f"input {(folder / 'clip.mp4').resolve()}: another "
                                       f"hfrender (pid {os.getpid()}) is writing it; wait "
                                       "for it to finish")
    assert not (folder / "out" / "smooth.mp4").exists()
    assert rows["bar"]["status"] == rows["frames"]["status"] == "done"
    code, again = summary(folder)
    assert code == 0 and again["smooth"]["status"] == "done" and again["smooth"]["frames"] == 12


def test_every_conflict_between_jobs_is_told_at_once(folder, capsys):
    """Two jobs of one name and two of one output were told a pair a run (fix one, run, be
    told of the next: a trial): every pair now, one line each, before anything runs."""
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace('name = "frames"', 'name = "bar"').replace(
        'output = "out/smooth.mp4"', 'output = "out/bar.mp4"'))
    assert main(["batch", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"hfrender: error: {path}: two jobs are named 'bar'; give each its own name (the "
        "state file tells their outputs apart by it)",
        f"hfrender: error: {path}: jobs 'bar' and 'smooth' have the same output "
        f"({folder / 'out' / 'bar.mp4'})"]
    assert not (folder / "out").exists()


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


def test_a_batchs_options_may_come_before_its_jobs_file(folder, capsys):
    """``batch --summary s.json -q jobs.toml`` (and ``batch --ray jobs.toml``) were
    "unrecognized arguments" (a batch user's trial); batch --help names --ray."""
    out = folder / "s.json"
    assert main(["batch", "--summary", str(out), "-q", "--samples", "1",
                 str(folder / "jobs.toml")]) == 0
    assert [r["status"] for r in json.loads(out.read_text())] == ["done"] * 3
    assert capsys.readouterr().out == ""  # -q taken
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    assert "--ray [ADDRESS] runs the jobs' chunks on a Ray cluster" in \
        " ".join(capsys.readouterr().out.split())
    jobs = (folder / "jobs.toml").read_text()  # --summary's value is never the jobs file
    (folder / "more.toml").write_text(jobs)  # (a review: it ran more.toml, and wrote its
    assert main(["batch", "--summary", str(folder / "more.toml"),  # JSON over jobs.toml)
                 str(folder / "jobs.toml"), "-q"]) == 2
    assert "--summary " in capsys.readouterr().err
    assert (folder / "jobs.toml").read_text() == (folder / "more.toml").read_text() == jobs
    (folder / "shots").write_text(jobs)  # a jobs file of no suffix, after the options too
    assert main(["batch", "--summary", str(folder / "t.json"), "-q", "--samples", "1",
                 str(folder / "shots")]) == 0  # (was "unrecognized arguments", a leftover)
    assert [r["status"] for r in json.loads((folder / "t.json").read_text())] == \
        ["done"] * 3


def test_an_option_no_job_takes_is_said(folder, capsys):
    """``--motion-blur 3`` after a jobs file of renders alone was left out without a word
    (a batch user's trial)."""
    path = folder / "jobs.toml"
    path.write_text(JOBS.split("[[job]]\nname = \"smooth\"")[0] + JOBS.split(
        "motion-blur = 4\n")[1])
    assert [j.kind for j in load_jobs(path)] == ["render", "render"]
    assert main(["batch", str(path), "--motion-blur", "3"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --motion-blur: an option of fx "
                                       "jobs, and the jobs file has none (its jobs: "
                                       "render)\n")
    assert not (folder / "out").exists()
    assert main(["batch", str(path), "--samples", "1", "--quiet"]) == 0  # one they take


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


def test_an_fx_job_on_one_png_reads_it_at_the_jobs_rate(folder):
    """One PNG file is a sequence of one frame in a batch too (was: a video, its fps
    refused, a [defaults] fps left out: 30 fps written; a review), and on Ray it runs here
    (ffmpeg read it as a 25 fps video there)."""
    import imageio.v3 as iio

    from hfrender.config import ConfigError
    from hfrender.engine.cluster_fx import ClusterFx
    from hfrender.engine.fx_settings import FxSettings

    rng = np.random.default_rng(31)
    iio.imwrite(folder / "still.png", rng.integers(0, 256, (8, 32, 3), dtype=np.uint8))
    path = folder / "jobs.toml"
    path.write_text('[[job]]\nname = "one"\ninput = "still.png"\noutput = "out/one.mp4"\n'
                    'motion-blur = 1\nfps = 24\n')
    code, rows = summary(folder)
    assert code == 0 and rows["one"]["status"] == "done" and rows["one"]["frames"] == 1
    probe = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(folder / "out" /
                                                                      "one.mp4")],
                           capture_output=True, text=True).stderr
    assert " 24 fps" in probe, probe
    with pytest.raises(ConfigError, match=r"^--ray: fx on Ray takes a video file"):
        ClusterFx(str(folder / "still.png"), str(folder / "r.mp4"),
                  FxSettings(window=1)).prepare()


def test_a_sigterm_turned_into_a_plain_ctrl_c_still_exits_143(folder, monkeypatch):
    """Ray's wait catches the handler's Terminated and raises a plain KeyboardInterrupt: a
    batch on Ray exited 130 on SIGTERM (a review). The exit status is the signal's."""
    import signal

    import hfrender.engine.batch as batch
    from hfrender.cli import common

    def run(job, resume, progress, **kw):
        try:
            common.on_sigterm(signal.SIGTERM, None)
        except KeyboardInterrupt:
            raise KeyboardInterrupt from None  # what Ray makes of it

    monkeypatch.setattr(batch, "run_one", run)
    assert main(["batch", str(folder / "jobs.toml"), "--quiet"]) == 143


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


def test_a_users_picture_at_a_jobs_frame_is_told_before_any_job_runs(folder, capsys):
    """A user's picture at a name a render job's sequence takes made that job fail when its
    turn came, the jobs before it run (a README audit: every job is checked before any
    runs); and a flag before -q is a flag (--jitter -q: "'-q': not a valid value")."""
    from PIL import Image

    (folder / "out" / "png").mkdir(parents=True)
    Image.fromarray(np.full((8, 32, 3), 5, np.uint8)).save(folder / "out" / "png" / "003.png")
    assert main(["batch", str(folder / "jobs.toml"), "--jitter", "-q"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: {folder / 'jobs.toml'}: job 'frames': output "
        f"{folder / 'out' / 'png' / '%03d.png'}: {folder / 'out' / 'png' / '003.png'} is there "
        "and hfrender did not write it")
    assert not (folder / "out" / "bar.mp4").exists()  # nothing ran


@pytest.mark.parametrize(("ranges", "hint"), [
    (('"0:3"', '"3:6"'), "; one job makes the whole sequence (frames its whole range), or "
                         "each range goes in a jobs file of its own"),
    ((None, '"3:6"'), ""),  # one job the whole sequence, another a part: no ranges to join
])
def test_two_jobs_filling_one_sequence_by_ranges_are_told_how(tmp_path, capsys, ranges, hint):
    """Jobs files filling one sequence by ranges keep theirs apart (docs/batch.md); two
    ranges of it in one jobs file were told 'the same output' alone (a trial)."""
    (tmp_path / "bar.frag").write_text(BAR.read_text())
    jobs = "".join(f'[[job]]\nname = "{n}"\nscene = "bar.frag"\noutput = "out/%04d.png"\n'
                   f'size = "16x8"\n' + ("" if r is None else f"frames = {r}\n")
                   for n, r in zip("ab", ranges, strict=True))
    (tmp_path / "jobs.toml").write_text(jobs)
    assert main(["batch", str(tmp_path / "jobs.toml")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"hfrender: error: {tmp_path / 'jobs.toml'}: jobs 'a' and 'b' have the same output "
        f"({tmp_path / 'out' / '%04d.png'}){hint}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flag, value", [("--motion-blur", "1000000000000"),
                                         ("--stride", "13"), ("--motion-blur", "13")])
def test_a_window_longer_than_an_fx_jobs_input_is_refused_before_any_job(folder, capsys, flag,
                                                                         value):
    """The clip has 12 frames: a window or stride past them was refused only when the fx
    job's turn came, after the render before it had written its output (a bad-input
    sweep)."""
    assert main(["batch", str(folder / "jobs.toml"), flag, value, "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: on the command line, for job 'smooth': {flag} {value} is longer "
        "than the input (12 frames)\n")
    # the job's own, named as the file spells it
    jobs = folder / "jobs.toml"
    jobs.write_text(jobs.read_text().replace("motion-blur = 4", "motion-blur = 13"))
    assert main(["batch", str(jobs), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {jobs}: job 'smooth': motion-blur = 13 is longer than the input (12 "
        "frames)\n")
    assert not (folder / "out").exists()  # nothing ran
