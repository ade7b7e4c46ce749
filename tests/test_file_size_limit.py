"""A file size limit (``ulimit -f``) met by a run: its one line names the limit's value,
not only "File too large" (a sequence's frame, written by Python, which ignores SIGXFSZ)
or "the file size limit (ulimit -f)" (ffmpeg's segment, stopped by SIGXFSZ): a trial at
``ulimit -f 7`` said neither how large a file may be; what was finished stays, as said.
The limit is blamed only where the file reached it (a file system's own cap under a
larger limit is the file system's)."""

import errno
import resource
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pytest

PLASMA = str(Path(__file__).parents[1] / "scenes" / "plasma.frag")
SMALL = ["--size", "64x32", "--samples", "2", "--quiet"]


def _render(folder, output, limit, *more):
    """``hfrender render plasma.frag -o output`` in ``folder`` under a file size limit of
    ``limit`` bytes (its 16-bit frames: 10.4 KB a PNG; the manifest fits)."""
    return subprocess.run(
        [sys.executable, "-m", "hfrender", "render", PLASMA, "-o", output, *SMALL, *more],
        cwd=folder, capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))


def test_a_sequence_frame_past_the_file_size_limit_names_the_limit(tmp_path):
    done = _render(tmp_path, "f/%04d.png", 4096, "--duration", "0.1", "--bit-depth", "16")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"hfrender: error: cannot write {tmp_path}/f/.####.png.partial/0000.png: File too "
        "large (this process's file size limit: 4096 bytes (4.1 KB), ulimit -f 4)"]  # (was 'this
    # shell's ... ulimit -f 4, at most 4.1 KB a file')


def test_a_segment_past_the_file_size_limit_names_the_limit(tmp_path):
    done = _render(tmp_path, "v.mp4", 3072, "--duration", "1", "--crf", "0")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[0].startswith(
        "hfrender: error: ffmpeg could not finish v.mp4 (exit -25): ffmpeg was stopped by "
        "SIGXFSZ: a file grew past this process's file size limit (3072 bytes (3.1 KB), "
        "ulimit -f 3)")
    assert not (tmp_path / "v.mp4").exists()


def test_a_limit_set_in_bytes_is_said_in_bytes(tmp_path):
    """prlimit --fsize sets bytes: was said 'ulimit -f 4', 4096, for a limit of 4100."""
    done = _render(tmp_path, "f/%04d.png", 4100, "--duration", "0.1", "--bit-depth", "16")
    assert done.stderr.splitlines() == [
        f"hfrender: error: cannot write {tmp_path}/f/.####.png.partial/0000.png: File too "
        "large (this process's file size limit: 4100 bytes (4.1 KB), set in bytes: ulimit -f "
        "shows 4)"]


def test_a_file_systems_own_cap_under_a_larger_limit_is_the_file_systems(tmp_path,
                                                                         monkeypatch):
    """A file refused (EFBIG) before it reached the limit: the file system's largest file
    (was blamed on the limit whenever one was set: a FAT32 stick's 4 GiB under a larger
    ulimit -f); one that reached it: the limit."""
    from hfrender import limits
    from hfrender.io import writers

    monkeypatch.setattr(limits, "file_size_limit", lambda: 8192)

    def write_picture(path, frame, *rest, size=0):
        Path(path).write_bytes(b"x" * size)
        raise OSError(errno.EFBIG, "File too large")

    frame = np.zeros((4, 6, 3), np.uint8)
    for size, why in [(5000, "more than this file system holds in one file"),
                      (8192, "this process's file size limit: 8192 bytes (8.2 KB), ulimit -f 8")]:
        monkeypatch.setattr(writers, "write_picture", partial(write_picture, size=size))
        writer = writers.PngSequenceWriter(str(tmp_path / f"{size}/%04d.png"), (6, 4))
        with pytest.raises(writers.WriteFailed) as info:
            writer.write(frame)
        assert str(info.value) == (f"cannot write {tmp_path}/{size}/0000.png: File too large "
                                   f"({why})")
        assert list((tmp_path / str(size)).iterdir()) == []  # (the part file gone)


def test_a_limit_is_said_in_a_readable_size_beside_its_bytes(monkeypatch):
    """'10737418240 bytes, ulimit -f 10485760' left the reader to count digits: the size
    bytes_said gives stands beside the byte count now."""
    from hfrender import limits

    for limit, said in [(10737418240, "10737418240 bytes (10.7 GB), ulimit -f 10485760"),
                        (4100, "4100 bytes (4.1 KB), set in bytes: ulimit -f shows 4")]:
        monkeypatch.setattr(limits, "file_size_limit", lambda limit=limit: limit)
        assert limits.file_size_limit_said() == said
