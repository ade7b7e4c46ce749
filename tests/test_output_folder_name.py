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
    assert capsys.readouterr().err == ("hfrender: error: -o o.mp4/: a folder's name (it ends "
                                       "in /); name the file (-o o.mp4)\n")
    assert sorted(tmp_path.iterdir()) == [tmp_path / "hfrender.toml"]
