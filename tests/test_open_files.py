"""Too few open files for a run (``ulimit -n``): one line up front naming the limit and
what a run needs, nothing written (a trial: ``ulimit -n 9`` said "the ffmpeg ... does not
start (Too many open files); pip install -U imageio-ffmpeg", ``ulimit -n 5`` "no ffmpeg on
this machine", and ``ulimit -n 13`` with fusion processes, or 14 for ``fx``, an internal
error's traceback from ``os.pipe``); a soft limit below what a run needs, under a higher
hard one, is raised and the run goes on; a file that cannot be opened midway, the limit
met all the same, is its one line too."""

import errno
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from hfrender.errors import SystemRefused, system_refused
from hfrender.limits import OPEN_FILES_NEEDED

BAR = str(Path(__file__).parent / "data" / "bar.frag")
FOCUS = str(Path(__file__).parents[1] / "scenes" / "focus_pull.py")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2", "--quiet"]


def _run(args, folder, soft, hard):
    """``python -m hfrender ARGS`` in ``folder`` under ``ulimit -n`` soft/hard."""
    return subprocess.run(
        [sys.executable, "-m", "hfrender", *args], cwd=folder, capture_output=True,
        text=True, timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)))


@pytest.mark.parametrize("limit, args", [
    (9, ["render", BAR, "-o", "out.mp4", *SMALL]),
    (13, ["render", FOCUS, "-o", "out.mp4", *SMALL, "--dof", "depth",
          "--fusion-process", "on"])])
def test_too_few_open_files_is_one_line_up_front(tmp_path, limit, args):
    done = _run(args, tmp_path, limit, limit)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"hfrender: error: this shell lets a process open at most {limit} files at once "
        f"(ulimit -n {limit}); an hfrender run needs {OPEN_FILES_NEEDED} (pipes to ffmpeg, "
        "fusion processes, segments, locks): raise it (ulimit -n 1024), then run the same "
        "command again"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing made


def test_fx_with_too_few_open_files_is_the_same_line(tmp_path):
    made = _run(["render", BAR, "-o", "in.mp4", *SMALL], tmp_path, 1024, 1024)
    assert made.returncode == 0, made.stderr
    done = _run(["fx", "in.mp4", "-o", "fx.mp4", "--motion-blur", "2"], tmp_path, 14, 14)
    assert done.returncode == 2, done.stderr
    assert "(ulimit -n 14); an hfrender run needs" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mp4"]  # (no fx.mp4)


def test_a_low_soft_limit_under_a_higher_hard_one_is_raised(tmp_path):
    done = _run(["render", BAR, "-o", "out.mp4", *SMALL, "-v"], tmp_path, 9, 4096)
    assert done.returncode == 0, done.stderr
    assert f"open files: raised the soft limit from 9 to {OPEN_FILES_NEEDED}" in done.stderr
    assert (tmp_path / "out.mp4").stat().st_size > 1000


def test_too_many_open_files_midway_is_one_line_naming_the_limit():
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    said = system_refused(OSError(errno.EMFILE, "Too many open files", "/o/seg.ts"))
    assert isinstance(said, SystemRefused)
    assert str(said) == (
        f"cannot open /o/seg.ts: Too many open files (ulimit -n {soft}: this process's "
        "limit; its --workers open more); raise it (ulimit -n 1024), then run again")
    piped = system_refused(OSError(errno.EMFILE, "Too many open files"))
    assert str(piped).startswith("cannot open a file or pipe: Too many open files (ulimit")


def test_an_ffmpeg_check_out_of_open_files_names_the_limit_not_a_reinstall(monkeypatch):
    """``hf.render`` under ``ulimit -n 9`` (no command's check up front): was "the ffmpeg at
    ... does not start (Too many open files); pip install -U imageio-ffmpeg", a wrong fix."""
    from hfrender.io import ffmpeg_binary

    def no_pipe(*args, **kwargs):
        raise OSError(errno.EMFILE, "Too many open files")

    ffmpeg_binary.checked.cache_clear()
    monkeypatch.setattr(ffmpeg_binary.subprocess, "run", no_pipe)
    try:
        with pytest.raises(SystemRefused) as said:
            ffmpeg_binary.checked(None)
    finally:
        ffmpeg_binary.checked.cache_clear()
    assert str(said.value).startswith(
        "cannot open a file or pipe: Too many open files (ulimit -n ")
    assert "pip install" not in str(said.value)
