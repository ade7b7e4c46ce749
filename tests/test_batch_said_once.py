"""A value several jobs of a jobs file refuse (given after the file, in [defaults] or
hfrender.toml): one line where they refuse it alike, naming them; a line each where they
refuse it differently (was: the first job's line for all, another fps or codec lost)."""

import pytest

from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine.batch_values import said_once
from hfrender.errors import InputError, InputTypeError

JOBS = """
[[job]]
name = "a"
scene = "bar.frag"
output = "a.mp4"
fps = 24

[[job]]
name = "b"
scene = "bar.frag"
output = "b.mov"
codec = "prores_ks"
fps = 60
"""


@pytest.fixture
def jobs(tmp_path):
    """An H.264 job at 24 fps and a ProRes one at 60."""
    (tmp_path / "bar.frag").write_text(open("tests/data/bar.frag").read())
    (tmp_path / "jobs.toml").write_text(JOBS)
    return tmp_path / "jobs.toml"


def test_a_value_each_job_refuses_in_its_own_figures_is_said_for_each(jobs, capsys):
    """--duration 1e12 at 24 and 60 fps: was one line, 'for jobs 'a' and 'b': ... at 24
    fps is 24,000,000,000,024 frames' (b's 60 fps lost; and 24 too many, nearest_frame's
    margin)."""
    assert main(["batch", str(jobs), "--duration", "1000000000000"]) == 2
    tail = ("; hfrender renders at most 10,000,000 in one output (lower --duration or --fps, "
            "or render it in parts)")
    assert capsys.readouterr().err.splitlines() == [
        "hfrender: error: on the command line, for job 'a': --duration 1000000000000 s at 24 "
        "fps is 24,000,000,000,000 frames" + tail,
        "hfrender: error: on the command line, for job 'b': --duration 1000000000000 s at 60 "
        "fps is 60,000,000,000,000 frames" + tail]


def test_an_odd_size_gets_each_codecs_own_hint(jobs, capsys):
    """--size 641x359 for an H.264 and a ProRes job: was the H.264 hint for both (a
    '--size (on the command line)' line merged any other about --size)."""
    assert main(["batch", str(jobs), "--size", "641x359"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "hfrender: error: --size (on the command line), for job 'a': size 641x359: libx264 "
        "video in yuv420p needs an even width and height; use 640x360 (16:9), or --pix-fmt "
        "yuv444p, or write a PNG sequence (-o frames/%05d.png)",
        "hfrender: error: --size (on the command line), for job 'b': size 641x359: prores_ks "
        "video in yuv422p10le needs an even width; use 640x360 (16:9), or --pix-fmt "
        "yuv444p10le, or write a PNG sequence (-o frames/%05d.png)"]


def test_a_value_refused_alike_is_said_once(jobs, capsys):
    assert main(["batch", str(jobs), "--fps", "0"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "hfrender: error: on the command line, for jobs 'a' and 'b': --fps 0 must be a "
        "finite number >= 0.001 and <= 1000"]


WHERE = "on the command line"


def test_lines_of_one_value_merge_only_where_they_say_the_same():
    """Lines merge where identical, or where the render's and the fx job's words differ
    alone ('is not a backend; choose one of' beside "'0' must be one of"); the others
    stay, one a job, even at one place about one key."""
    errors = [InputError(f"{WHERE}, for job 'r': --backend 0 is not a backend; choose one "
                         "of auto, cpu, cuda"),
              InputError(f"{WHERE}, for job 'f': --backend '0' must be one of auto, cpu, "
                         "cuda"),
              InputError(f"{WHERE}, for job 'r': --workers 0 must be an integer from 1 to 64 "
                         "or 'auto'"),
              InputError(f"{WHERE}, for job 'f': --workers 0 must be an integer from 1 to 64"),
              InputError(f"{WHERE}, for job 's': --workers 0 must be an integer from 1 to 64 "
                         "or 'auto'"),
              InputError("jobs.toml: job 'x': samples = 0 must be ...")]
    assert [str(e) for e in said_once(errors)] == [
        f"{WHERE}, for jobs 'r' and 'f': --backend 0 is not a backend; choose one of auto, "
        "cpu, cuda",
        f"{WHERE}, for jobs 'r' and 's': --workers 0 must be an integer from 1 to 64 or "
        "'auto'",
        f"{WHERE}, for job 'f': --workers 0 must be an integer from 1 to 64",
        "jobs.toml: job 'x': samples = 0 must be ..."]


def test_a_lines_own_class_is_kept():
    """Was rebuilt as a plain InputError: a ConfigError or an InputTypeError lost."""
    alone = InputTypeError(f"{WHERE}, for job 'a': --codec 5 must be a string")
    both = [ConfigError(f"{WHERE}, for job '{j}': --fps 0 must be a number") for j in "bc"]
    got = said_once([alone, *both])
    assert got[0] is alone
    assert type(got[1]) is ConfigError and str(got[1]) == (
        f"{WHERE}, for jobs 'b' and 'c': --fps 0 must be a number")
    mixed = said_once([InputTypeError(f"{WHERE}, for job 'a': --x 1 must be y"),
                       ConfigError(f"{WHERE}, for job 'b': --x 1 must be y")])
    assert [type(e) for e in mixed] == [InputError]
