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


def test_a_jobs_files_depth_and_a_batch_summary_under_the_home_folder(home, tmp_path):
    """A review: the jobs file's depth pass and --summary=~/s.json were taken as given (a
    depth "not found: ~/depth/%04d.png"; a folder named ~ made here for the summary)."""
    import json

    import imageio.v3 as iio
    import numpy as np

    rng = np.random.default_rng(11)
    for k in range(3):
        (home / "clip").mkdir(exist_ok=True)
        (home / "depth").mkdir(exist_ok=True)
        iio.imwrite(home / "clip" / f"{k:04d}.png", rng.integers(0, 256, (8, 16, 3), np.uint8))
        iio.imwrite(home / "depth" / f"{k:04d}.png", np.full((8, 16), 1000 + 500 * k, np.uint16))
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "a"\ninput = "~/clip/####.png"\n'
                    'output = "~/out/####.png"\ndepth = "~/depth/####.png"\n'
                    'depth-scale = 0.001\nfocus-distance = 1.0\nf-stop = 2.0\n')
    job, = load_jobs(jobs)
    assert job.options["depth"] == str(home / "depth" / "%04d.png")
    assert main(["batch", str(jobs), "--summary=~/s.json", "--quiet"]) == 0
    assert [r["status"] for r in json.loads((home / "s.json").read_text())] == ["done"]
    assert sorted(p.name for p in (home / "out").iterdir()) == [
        "0000.png", "0001.png", "0002.png"]
    assert not (tmp_path / "~").exists()


def test_the_project_files_output_under_the_home_folder(home, tmp_path):
    """A review: hfrender.toml's ``output = "~/toml.mp4"`` made ./~/toml.mp4."""
    (tmp_path / "s.py").write_text("import hfrender as hf\nclass S(hf.Scene):\n"
                                   "    duration = 0.2\n")
    (tmp_path / "hfrender.toml").write_text('[render]\noutput = "~/renders/toml.png"\n')
    from hfrender.cli.commands import _config_from

    args = build_parser().parse_args(["render", "s.py"])
    assert _config_from(args).output == str(home / "renders" / "toml.png")
    assert not (tmp_path / "~").exists()
