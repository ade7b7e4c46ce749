"""A batch's jobs against each other's files: chains (an fx job on an earlier job's
output), partial outputs that would land on another job's file or a user's, and a summary
that must be none of them."""


import numpy as np
import pytest
from batch_helpers import make_folder, summary

from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.io.probe import probe

pytestmark = pytest.mark.usefixtures("gl_context")


@pytest.fixture
def folder(tmp_path):
    return make_folder(tmp_path)


def test_an_fx_job_may_read_what_an_earlier_job_writes(folder, capsys):
    """A render, then its footage blurred: the fx job's input is made by the job before it
    (not on Ray, where every job starts at once: refused there before anything runs)."""
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace('input = "clip.mp4"', 'input = "out/bar.mp4"'))
    code, results = summary(folder)
    assert code == 0 and results["smooth"]["status"] == "done", results["smooth"]["error"]
    assert results["smooth"]["frames"] == results["bar"]["frames"] == 12
    (folder / "out" / "bar.mp4").unlink()
    assert main(["batch", str(path), "--ray", "--quiet"]) == 2  # checked before Ray starts
    assert capsys.readouterr().err.endswith("job 'smooth' reads the output of job 'bar', and on "
                                            "Ray the jobs run at once: run the batch without "
                                            "--ray, or in two\n")


@pytest.mark.parametrize("there", [True, False])
def test_an_fx_job_may_read_the_folder_an_earlier_job_writes_its_frames_in(folder, there):
    """Its input a folder of frames the render before it writes (the folder there, empty:
    made beforehand, or its frames cleared; or not there, a first run): read when its turn
    comes, at the render's rate (was: refused before any job ran, "a folder with no PNG or
    EXR images in it"; not there, "input ... not found")."""
    path = folder / "jobs.toml"
    text = path.read_text()
    render = text[text.index('[[job]]\nname = "frames"'):]
    fx = text[text.index('[[job]]\nname = "smooth"'):text.index(render)]
    path.write_text(text.replace(fx, "").replace(render, render + "\n" + fx).replace(
        'input = "clip.mp4"', 'input = "out/png"'))  # the render, then the fx job
    if there:
        (folder / "out" / "png").mkdir(parents=True)
    code, results = summary(folder)
    assert code == 0 and results["smooth"]["status"] == "done", results["smooth"]["error"]
    assert results["smooth"]["frames"] == results["frames"]["frames"] == 6
    assert probe(str(folder / "out" / "smooth.mp4")).fps == 24  # the jobs file's renders'


def test_an_fx_jobs_folder_of_frames_is_checked_by_their_names_alone(folder, monkeypatch):
    """A folder input's pictures are found, not read, before any job runs (was: every
    frame's header read, an EXR's first frame decoded, for each fx job of the file)."""
    import imageio.v3 as iio

    import hfrender.io.exr_footage as exr_footage
    import hfrender.io.footage as footage

    (folder / "in").mkdir()
    for i in range(4):  # (as many as the window: its length is told by the names)
        iio.imwrite(folder / "in" / f"{i:03d}.png", np.zeros((8, 32, 3), np.uint8))
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace('input = "clip.mp4"', 'input = "in"'))

    def read(*args, **kwargs):
        raise AssertionError("a picture read")

    for module, name in ((footage, "png_header"), (footage, "exr_frame"),
                         (exr_footage, "check_exr_sizes"), (footage, "read_frame"),
                         (footage, "pillow_head")):
        monkeypatch.setattr(module, name, read)
    assert [job.name for job in load_jobs(path)] == ["bar", "smooth", "frames"]


@pytest.mark.parametrize("there", [False, True])
def test_an_fx_job_before_the_job_that_writes_its_input_is_refused(folder, capsys, there):
    """The jobs run in order: an fx job listed before the render it reads is said at once,
    whether that output is not there yet (was: "input ... not found") or is there from an
    earlier batch (was: the fx job ran on it, the render of the settings before, as done)."""
    path = folder / "jobs.toml"
    text = path.read_text().replace('input = "clip.mp4"', 'input = "out/bar.mp4"')
    path.write_text(text)
    if there:  # the render and its fx job in order, then the render's settings changed
        assert main(["batch", str(path), "--quiet"]) == 0
        text = text.replace("duration = 0.5", "duration = 0.25")
    render = text[text.index('[[job]]\nname = "bar"'):text.index('[[job]]\nname = "smooth"')]
    path.write_text(text.replace(render, "") + "\n" + render)  # the fx job first
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    capsys.readouterr()
    assert main(["batch", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("jobs.toml: job 'smooth' reads out/bar.mp4 (its input), the output "
                        "of job 'bar', which runs after it: the jobs run in order; put 'bar' "
                        "before it\n") and err.count("\n") == 1, err
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before  # nothing ran


def test_an_fx_job_before_the_job_that_writes_frames_in_its_folder_is_refused(folder, capsys):
    """Its input the folder of the frames a later render writes: said at once, as for a
    file (was: "input ... not found", a review)."""
    path = folder / "jobs.toml"  # (its jobs in this order: bar, smooth, frames)
    path.write_text(path.read_text().replace('input = "clip.mp4"', 'input = "out/png"'))
    assert main(["batch", str(path), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(
        "jobs.toml: job 'smooth' reads out/png (its input), the output of job 'frames', "
        "which runs after it: the jobs run in order; put 'frames' before it\n")
    assert not (folder / "out").exists()


@pytest.mark.parametrize("given", ["defaults", "command line"])
def test_an_fx_job_before_the_job_that_writes_its_defaults_depth_is_refused(folder, capsys,
                                                                           given):
    """A depth pass given in [defaults] (or after the jobs file) that a later job writes is
    the fx job's as its own would be: said at once (was: not looked at by the order
    check, the job refused for a depth pass not there, or run on an old one)."""
    path = folder / "jobs.toml"  # (its jobs in this order: bar, smooth, frames)
    lens = 'focus-distance = 2.0\nf-stop = 2.0\n'
    text = path.read_text().replace("samples = 2\n", "samples = 2\n" + lens + (
        'depth = "out/png/%03d.png"\n' if given == "defaults" else ""))
    path.write_text(text)
    extra = ["--depth", "out/png/%03d.png"] if given == "command line" else []
    assert main(["batch", str(path), "--quiet", *extra]) == 2
    whose = ", of [defaults]" if given == "defaults" else ", on the command line"
    assert capsys.readouterr().err.endswith(
        f"jobs.toml: job 'smooth' reads out/png/%03d.png (its depth pass{whose}), the output "
        "of job 'frames', which runs after it: the jobs run in order; put 'frames' before "
        "it\n")
    assert not (folder / "out").exists()  # nothing ran


@pytest.mark.parametrize("where, said", [
    ("jobs.toml", r"is the jobs file"),
    ("clip.mp4", r"is the input of job 'smooth'"),
    ("out/bar.mp4", r"is the output of job 'bar'"),
    ("out/bar.partial.mp4", r"is where job 'bar' keeps an interrupted run's frames"),
    (".jobs.toml.state.json", r"is the batch's state file"),
    ("hfrender.toml", r"is the settings file hfrender reads: write the summary elsewhere$"),
    ("results.toml", r"is a TOML file's name; the summary is JSON \(--summary results\.json\)"),
    (None, r"--summary needs a file: --summary FILE$"),
    # (was: taken, no summary written, unsaid)
    ("", r"error: --summary '': an empty path; name a file: --summary FILE$"),
])
def test_the_summary_is_none_of_the_batchs_own_files(folder, capsys, where, said):
    import re

    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    argv = ["batch", str(folder / "jobs.toml"), "--summary"]
    argv += [str(folder / where) if where else where] if where is not None else \
        ["--samples", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(said, err), err
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_an_fx_job_on_a_renders_frames_reads_them_at_the_renders_rate(folder):
    """A render into a PNG sequence at 12 fps, blurred by the next job: read at 12 fps (the
    defaults' 24 are the renders' own rate, not the footage's)."""
    path = folder / "jobs.toml"
    text = path.read_text().replace('output = "out/bar.mp4"\nduration = 0.5',
                                    'output = "out/seq/%03d.png"\nduration = 0.5\nfps = 12')
    path.write_text(text.replace('input = "clip.mp4"', 'input = "out/seq/%03d.png"'))
    job = next(j for j in load_jobs(path, {}) if j.kind == "fx")
    assert job.fx_settings().input_fps == 12


def test_a_render_jobs_partial_name_taken_by_a_users_file_is_refused_not_an_fx_jobs(folder,
                                                                                     capsys):
    """A render job keeps its interrupted frames in NAME.partial.EXT: a user's file there is
    said before anything runs; an fx job keeps none (its segments, for --resume)."""
    (folder / "out").mkdir()
    (folder / "out" / "bar.partial.mp4").write_bytes(b"theirs")
    (folder / "out" / "smooth.partial.mp4").write_bytes(b"theirs too")
    assert main(["batch", str(folder / "jobs.toml")]) == 2
    err = capsys.readouterr().err
    assert "job 'bar': output" in err and "bar.partial.mp4 exists and is not a partial" in err
    (folder / "out" / "bar.partial.mp4").unlink()
    code, results = summary(folder)
    assert code == 0 and results["smooth"]["status"] == "done"
    assert (folder / "out" / "smooth.partial.mp4").read_bytes() == b"theirs too"


def test_a_state_file_that_is_not_ours_is_read_as_none(folder):
    from hfrender.engine.batch_state import BatchState

    (folder / ".jobs.toml.state.json").write_text("[1, 2, 3]")
    assert BatchState.load(folder / "jobs.toml").jobs == {}
    code, results = summary(folder)
    assert code == 0 and {r["status"] for r in results.values()} == {"done"}


def test_an_fx_jobs_depth_pass_is_checked_before_any_job_runs(folder, capsys):
    """A missing depth pass, one of another size, a focus pixel outside the footage: told
    with the other jobs' errors before anything runs (was: found when the job's turn came,
    after the renders before it, exit 1); a depth pass for an input an earlier job makes is
    checked when that job has made it."""
    import re

    import numpy as np

    np.save(folder / "depth.npy", np.full((12, 16, 32), 3.0, np.float32))  # clip: 32x16 x 12
    np.save(folder / "half.npy", np.full((12, 8, 16), 3.0, np.float32))
    path = folder / "jobs.toml"
    base = path.read_text()
    fx = '\n[[job]]\nname = "{0}"\ninput = "{1}"\noutput = "out/{0}.mp4"\ndepth = "{2}"\n' \
         'f-stop = 2\n{3}\n'
    path.write_text(base + fx.format("gone", "clip.mp4", "none.npy", "focus-distance = 3")
                    + fx.format("half", "clip.mp4", "half.npy", "focus-distance = 3")
                    + fx.format("pixel", "clip.mp4", "depth.npy", 'focus-pixel = "40,2"')
                    + fx.format("later", "out/bar.mp4", "half.npy", "focus-distance = 3"))
    assert main(["batch", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [re.search(r"job '(\w+)': (.*)", x).groups() for x in lines] == [
        ("gone", 'depth = "none.npy": not found'),  # (as the file spells it)
        ("half", f"depth {folder / 'half.npy'} is 16x8, the footage 32x16: they must match, "
                 "or pass --depth-resize nearest (or linear) to scale the depth to the footage"),
        ("pixel", 'focus-pixel = "40,2" is outside the 32x16 frames (x from 0 to 31, y from 0 '
                  "to 15)")]
    assert not (folder / "out").exists()
    path.write_text(base + fx.format("fine", "clip.mp4", "depth.npy", "focus-distance = 3"))
    code, results = summary(folder)
    assert code == 0 and results["fine"]["status"] == "done" and results["fine"]["frames"] == 12


def test_an_fx_job_whose_input_job_failed_is_not_run(folder):
    """The render failing, its fx job ran on the render's older output ("up-to-date"), or,
    with none, failed "input not found" (a trial)."""
    path = folder / "jobs.toml"
    path.write_text(path.read_text().replace('input = "clip.mp4"', 'input = "out/bar.mp4"'))
    assert summary(folder)[0] == 0  # an older output of bar's, and smooth's on it
    (folder / "bar.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = nope; }\n")
    code, results = summary(folder)
    assert code == 1 and results["bar"]["status"] == "failed"
    assert (results["smooth"]["status"], results["smooth"]["error"]) == (
        "not run", "it reads the output of job 'bar', which failed")
    assert results["frames"]["status"] == "failed"  # (the same scene: its own failure)
