"""``--summary FILE`` replaces only a summary: a file there that is not one (a scene, notes,
a video of the user's) is refused before any work (a trial: ``--summary sc/orbit.py``
wrote the JSON over the scene file)."""

import json

import pytest
from batch_helpers import make_folder

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")


@pytest.mark.parametrize("name, text", [("orbit.py", "import hfrender as hf\n"),
                                        ("notes.json", '{"shot": 1}\n')])
def test_a_summary_is_not_written_over_a_file_of_the_users(tmp_path, capsys, name, text):
    folder = make_folder(tmp_path)
    theirs = folder / name
    theirs.write_text(text)
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(theirs), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: --summary {theirs}: a file is there that is "
                          "not a batch summary"), err
    assert theirs.read_text() == text and not (folder / "out").exists()  # nothing ran


def test_an_earlier_summary_or_an_empty_file_is_replaced(tmp_path):
    folder = make_folder(tmp_path)
    out = folder / "s.json"
    out.write_text("")
    for _ in range(2):
        assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "-q"]) == 0
        assert [r["name"] for r in json.loads(out.read_text())] == ["bar", "smooth", "frames"]


def test_a_summary_that_cannot_be_written_whole_leaves_the_earlier_one(tmp_path, monkeypatch,
                                                                      capsys):
    """Written under a temporary name, then renamed: a full disk (or a kill) midway left a
    half-written summary under its name, which the next run then took for a user's file."""
    from pathlib import Path

    folder = make_folder(tmp_path)
    out = folder / "s.json"
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "-q"]) == 0
    before = out.read_text()
    real = Path.write_text

    def half(self, data, *args, **kwargs):
        if self.name.endswith(".tmp") or self == out:
            real(self, data[:len(data) // 2], *args, **kwargs)
            raise OSError(28, "No space left on device")
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", half)
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out), "-q"]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == before and sorted(p.name for p in folder.glob("*s.json*")) == \
        ["s.json"]
