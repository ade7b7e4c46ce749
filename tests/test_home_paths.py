"""A path that begins with ``~`` where no shell expanded it (``-o=~/out.mp4``,
``--keep-samples=~/shot.samples``, a jobs file's ``output = "~/renders/a.mp4"``) is the
home folder's, as a shell would have it (was: a folder named ``~`` made in the current one,
the summary saying ``wrote ~/out.mp4``: not where the user looked, and ``rm -rf ~`` is
what removes it)."""

import pytest
from store_helpers import write_store

from hfrender.cli import build_parser, main
from hfrender.engine.batch import load_jobs


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home


def test_reexpose_takes_a_store_and_an_output_under_the_home_folder(home, tmp_path, capsys):
    write_store(home / "spin.samples")
    assert main(["reexpose", "~/spin.samples", "-o=~/out/spin.mp4"]) == 0
    assert (home / "out" / "spin.mp4").is_file()
    assert not (tmp_path / "~").exists()
    assert capsys.readouterr().out.startswith(f"wrote {home / 'out' / 'spin.mp4'}: ")


@pytest.mark.parametrize("argv, attr, path", [
    (["render", "s.py", "-o=~/a.mp4"], "output", "a.mp4"),
    (["render", "s.py", "-o", "x.mp4", "--keep-samples=~/a.samples"], "keep_samples",
     "a.samples"),
    (["still", "s.py", "-o=~/a.png"], "output", "a.png"),
    (["fx", "in.mp4", "-o=~/f/####.png"], "output", "f/%04d.png"),
])
def test_a_commands_paths_under_the_home_folder(home, argv, attr, path):
    args = build_parser().parse_args(argv)
    assert getattr(args, attr) == str(home / path)


def test_a_jobs_files_paths_under_the_home_folder(home, tmp_path):
    (home / "spin.py").write_text("import hfrender as hf\nclass S(hf.Scene):\n"
                                  "    duration = 1.0\n")
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "a"\nscene = "~/spin.py"\noutput = "~/out/a.mp4"\n')
    job, = load_jobs(jobs)
    assert (job.source, job.output) == (home / "spin.py", home / "out" / "a.mp4")


def test_a_name_that_only_starts_with_a_tilde_is_left_alone(home):
    args = build_parser().parse_args(["render", "s.py", "-o", "~draft.mp4"])
    assert args.output == "~draft.mp4"  # (a user ~draft is not asked for: no such user)
