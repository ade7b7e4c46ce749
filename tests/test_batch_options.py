"""`hfrender batch`: the command line's options and hfrender.toml's values reach every job
that takes them; a bad one is blamed on where it was given."""

import json
import re

import pytest
from batch_helpers import (
    JOBS,
    folder_fixture,  # noqa: F401  (the fixture folder)
    summary,
)

from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError

pytestmark = pytest.mark.usefixtures("gl_context")


def test_options_after_the_file_override_every_job(folder):
    jobs = load_jobs(folder / "jobs.toml", {"samples": 1, "jitter": True})
    assert [j.render_config().samples for j in jobs if j.kind == "render"] == [1, 1]
    assert all(j.render_config().jitter for j in jobs if j.kind == "render")
    assert jobs[1].fx_settings().window == 4 and "samples" not in jobs[1].options
    code, results = summary(folder, "--samples", "1", "--shutter", "90")
    assert code == 0 and results["bar"]["status"] == "done"


def test_the_environments_backend_reaches_every_job(folder, monkeypatch):
    """HFRENDER_BACKEND is read by each job as by the commands: a wrong one fails them with
    its one line (an fx job ran on 'auto' before)."""
    monkeypatch.setenv("HFRENDER_BACKEND", "bogus")
    code, results = summary(folder)
    assert code == 1
    assert {r["status"] for r in results.values()} == {"failed"}
    assert {r["error"] for r in results.values()} == {
        "HFRENDER_BACKEND='bogus' is not a backend; choose one of auto, cpu, cuda"}


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


def test_a_projects_defaults_a_jobs_output_refuses_are_left_out(folder):
    """hfrender.toml's crf refused a PNG sequence job and bit_depth a video job, blamed on
    the project file, where a render of either takes them where they fit (a review)."""
    (folder / "hfrender.toml").write_text('[render]\ncrf = 20\nbit_depth = 16\n')
    code, results = summary(folder)
    assert code == 0, results
    assert {r["status"] for r in results.values()} == {"done"}
    png = sorted((folder / "out" / "png").glob("*.png"))[0]
    assert png.read_bytes()[24] == 16  # the PNG job took bit_depth: 16 bits a channel


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
