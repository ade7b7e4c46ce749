"""``-o out.mp4/`` (a trailing slash: a folder's name) of render, fx and reexpose is one
line before anything is rendered, as ``still -o s.png/`` is (was: render wrote out.mp4,
replacing the file there)."""

from pathlib import Path

import numpy as np
import pytest
from store_helpers import write_store

from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
SAID = {"out.mp4/": "the file (-o {d}/out.mp4)",
        "frames/%05d.png/": "the frames (-o {d}/frames/%05d.png)",
        "frames/####.png/": "the frames (-o {d}/frames/####.png)",
        "shots/": "a file or frames in it (-o {d}/shots/out.mp4, -o {d}/shots/%05d.png)"}


def _words(command, tmp_path):
    if command == "render":
        return ["render", BAR, "--size", "16x8", "--frames", "0:2", "--samples", "2"]
    if command == "fx":
        clip, depth = tmp_path / "in.mkv", tmp_path / "d.npy"
        clip.write_bytes(b"")  # refused before it is read
        np.save(depth, np.ones((1, 8, 16), np.float32))
        return ["fx", str(clip), "--motion-blur", "2", "--depth", str(depth),
                "--focus-distance", "2", "--f-stop", "2"]
    return ["reexpose", str(write_store(tmp_path / "s.samples")), "--shutter", "90"]


@pytest.mark.parametrize("command", ["render", "fx", "reexpose"])
@pytest.mark.parametrize("name", list(SAID))
def test_an_output_named_as_a_folder_is_one_line_and_writes_nothing(tmp_path, capsys,
                                                                   command, name):
    words = _words(command, tmp_path)
    kept = tmp_path / "out.mp4"
    kept.write_bytes(b"an earlier render")
    before = sorted(tmp_path.rglob("*"))
    out = f"{tmp_path}/{name}"
    assert main([*words, "-o", out]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: -o {out}: a folder's name (it ends "
                                       f"in /); name {SAID[name].format(d=tmp_path)}\n")
    assert sorted(tmp_path.rglob("*")) == before
    assert kept.read_bytes() == b"an earlier render"


def test_hfrender_tomls_output_named_as_a_folder_is_refused_too(tmp_path, monkeypatch,
                                                                 capsys):
    """hfrender.toml's ``output = "o.mp4/"`` was not looked at (the flag's alone): render
    wrote o.mp4 (a review)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text('[render]\noutput = "o.mp4/"\n')
    assert main(["render", BAR, "--size", "16x8", "--frames", "0:2", "--samples", "2"]) == 2
    assert capsys.readouterr().err == (  # as the file spells it (was: as -o o.mp4/)
        f"hfrender: error: {tmp_path / 'hfrender.toml'}: [render] output = \"o.mp4/\": a "
        "folder's name (it ends in /); name the file (output = \"o.mp4\")\n")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "hfrender.toml"]


def test_a_jobs_files_output_named_as_a_folder_is_refused_before_any_job(tmp_path, capsys):
    """A batch job's ``output = "b.mp4/"`` wrote b.mp4 as ``-o b.mp4/`` did (a review);
    now refused with every such job before any runs, named as the file spells it."""
    kept = tmp_path / "b.mp4"
    kept.write_bytes(b"an earlier render")
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nsize = "16x8"\nsamples = 1\nduration = 0.1\n\n'
        f'[[job]]\nname = "b"\nscene = "{BAR}"\noutput = "b.mp4/"\n\n'
        f'[[job]]\nname = "c"\nscene = "{BAR}"\noutput = "frames/%03d.png/"\n')
    assert main(["batch", str(tmp_path / "jobs.toml")]) == 2
    jobs = tmp_path / "jobs.toml"
    assert capsys.readouterr().err.splitlines() == [
        f'hfrender: error: {jobs}: job \'b\': output = "b.mp4/": a folder\'s name (it ends '
        'in /); name the file (output = "b.mp4")',
        f'hfrender: error: {jobs}: job \'c\': output = "frames/%03d.png/": a folder\'s name '
        '(it ends in /); name the frames (output = "frames/%03d.png")']
    assert kept.read_bytes() == b"an earlier render" and not (tmp_path / "frames").exists()
