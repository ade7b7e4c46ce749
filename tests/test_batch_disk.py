"""A batch meeting a full disk (or a file size limit, a folder made read-only) midway: the
job fails in one line, as a single render says it, and the other jobs run."""

import errno

import pytest
from test_batch import make_folder, summary

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
    assert error.startswith("cannot write ") and error.endswith(f".manifest: {said}"), error
    assert "internal error" not in error and "Traceback" not in capsys.readouterr().err
