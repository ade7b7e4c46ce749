"""`hfrender batch JOBS.toml`: every job runs, then is up to date; what a job takes and what
makes it run again (interrupted, failed, checked and Ray batches: test_batch_*.py)."""

import json
import os
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest
from batch_helpers import (
    BAR,
    folder_fixture,  # noqa: F401  (the fixture folder)
    summary,
)
from render_helpers import batch_status
from render_helpers import decode_video as decode

import hfrender as hf
from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")


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


def test_the_summary_goes_where_asked_and_an_unwritable_one_is_said_first(folder, capsys):
    code, results = summary(folder)  # (into the jobs file's folder)
    out = folder / "reports" / "today" / "s.json"  # a folder not there yet is made
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "--quiet"]) == 0
    assert [r["status"] for r in json.loads(out.read_text())] == ["up-to-date"] * 3
    capsys.readouterr()
    assert main(["batch", str(folder / "jobs.toml"), "--summary", "/proc/s.json"]) == 2
    assert capsys.readouterr().err.startswith("hfrender: error: --summary /proc/s.json: cannot "
                                              "write in /proc")


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
