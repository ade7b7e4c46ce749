"""hfrender.toml's encoder defaults in a batch are fitted to each job's output as the job
writes it, its own codec included (a trial: ``crf = 20`` in hfrender.toml refused a job of
``codec = "prores_ks"``, "--crf 20: prores_ks has no CRF", where a render of the same
.mov left it out, as the README says a default the output does not take is)."""

import pytest

from hfrender.cli import main
from hfrender.engine.batch import load_jobs

JOB = """
[[job]]
name = "master"
scene = "bar.frag"
output = "out/master.mov"
codec = "prores_ks"
size = "32x8"
samples = 2
duration = 0.2
"""


@pytest.fixture
def folder(tmp_path):
    from batch_helpers import BAR

    (tmp_path / "bar.frag").write_text(BAR.read_text())
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = 20\npreset = "slow"\n')
    (tmp_path / "jobs.toml").write_text(JOB)
    return tmp_path


def test_a_projects_crf_is_left_out_of_a_job_whose_own_codec_has_none(folder):
    (job,) = load_jobs(folder / "jobs.toml")
    config = job.render_config(False)
    assert (config.codec, config.crf, config.preset) == ("prores_ks", None, None)


@pytest.mark.usefixtures("gl_context")
def test_such_a_job_runs(folder):
    assert main(["batch", str(folder / "jobs.toml"), "-q"]) == 0
    assert (folder / "out" / "master.mov").is_file()


def test_the_jobs_own_crf_for_that_codec_is_still_refused(folder, capsys):
    (folder / "jobs.toml").write_text(JOB + "crf = 20\n")
    with pytest.raises(Exception, match="job 'master': --crf 20: prores_ks has no CRF"):
        load_jobs(folder / "jobs.toml")


@pytest.mark.parametrize("where, toml, said", [
    ("job", "", "jobs.toml: job 'master': codec = \"prores_kss\": this ffmpeg has no such "
     "encoder (did you mean prores_ks? hfrender info -v lists its video encoders)"),
    ("project", "codec = \"prores_kss\"\n", "hfrender.toml, for job 'master': codec = "
     "\"prores_kss\": this ffmpeg has no such encoder (did you mean prores_ks? hfrender info "
     "-v lists its video encoders)"),
])
def test_a_codec_this_ffmpeg_lacks_is_named_as_the_file_gives_it(folder, capsys, where, toml,
                                                                 said):
    """A jobs file's or hfrender.toml's codec = "prores_kss" was told as '--codec
    prores_kss: ...', a flag the user never gave; now the key as the file spells it."""
    job = JOB.replace('codec = "prores_ks"', 'codec = "prores_kss"' if where == "job" else "")
    (folder / "jobs.toml").write_text(job)
    (folder / "hfrender.toml").write_text("[render]\n" + toml)
    assert main(["batch", str(folder / "jobs.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith(said + "\n"), err
    assert not (folder / "out").exists()
