"""A batch meeting a full disk (or a file size limit, a folder made read-only) midway: the
job fails in one line, as a single render says it, and the other jobs run."""

import errno

import pytest
from batch_helpers import make_folder, summary

pytestmark = pytest.mark.usefixtures("gl_context")


@pytest.fixture
def folder(tmp_path):
    return make_folder(tmp_path)


@pytest.mark.parametrize("code, said", [(errno.ENOSPC, "No space left on device"),
                                        (errno.EFBIG, "File too large")])
def test_a_full_disk_as_a_job_begins_is_its_one_line_not_a_bug(folder, monkeypatch, capsys,
                                                                code, said):
    """The manifest of a sequence's run could not be written (a trial: a full disk there
    was "internal error, a bug in hfrender" and a traceback, in a batch alone)."""
    from hfrender.io import resume

    def full(output, tmp, manifest):
        raise OSError(code, said, f"{tmp}.manifest")

    monkeypatch.setattr(resume, "begin_sequence", full)
    result, results = summary(folder)
    assert result == 1
    assert [r["status"] for r in results.values()] == ["done", "done", "failed"]
    error = results["frames"]["error"]
    beyond = " (more than this file system holds in one file)" if code == errno.EFBIG else ""
    assert error.startswith("cannot write ") and error.endswith(f".manifest: {said}{beyond}"), \
        error
    assert "internal error" not in error and "Traceback" not in capsys.readouterr().err


def test_a_full_disk_at_the_summary_names_it_after_the_table(folder, monkeypatch, capsys):
    """The jobs filled the disk, and the summary could not be written: one line naming it,
    under the table of what the jobs did, the earlier summary as it was (a trial: "cannot
    write a file: No space left on device", no path, no table)."""
    from pathlib import Path

    from hfrender.cli import main

    out = folder / "summary.json"
    assert summary(folder)[0] == 0
    before = out.read_bytes()
    write_text = Path.write_text

    def full(self, *args, **kwargs):
        if self.name.startswith(".summary.json."):
            self.touch()  # (as a full disk leaves it: made, empty)
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    capsys.readouterr()
    assert main(["batch", str(folder / "jobs.toml"), "--summary", str(out)]) == 1
    said = capsys.readouterr()
    assert said.err.splitlines()[-1] == (
        f"hfrender: error: --summary {out}: cannot write it: No space left on device (the "
        "jobs' outputs are kept; the file there is left as it was)")
    assert [line.split()[:2] for line in said.out.splitlines()[1:]] == [
        ["bar", "up-to-date"], ["smooth", "up-to-date"], ["frames", "up-to-date"]]
    assert out.read_bytes() == before
    assert not list(folder.glob(".summary.json.*"))
