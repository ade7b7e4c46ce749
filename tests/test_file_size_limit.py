"""A file size limit (``ulimit -f``) met by a run: its one line names the limit's value,
not only "File too large" (a sequence's frame, written by Python, which ignores SIGXFSZ)
or "the file size limit (ulimit -f)" (ffmpeg's segment, stopped by SIGXFSZ): a trial at
``ulimit -f 7`` said neither how large a file may be; what was finished stays, as said."""

import resource
import subprocess
import sys
from pathlib import Path

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
        "large (this shell's file size limit: ulimit -f 4, at most 4.1 KB a file)"]


def test_a_segment_past_the_file_size_limit_names_the_limit(tmp_path):
    done = _render(tmp_path, "v.mp4", 3072, "--duration", "1", "--crf", "0")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[0].startswith(
        "hfrender: error: ffmpeg could not finish v.mp4 (exit -25): ffmpeg was stopped by "
        "SIGXFSZ: a file grew past the file size limit (ulimit -f 3, at most 3.1 KB a file)")
    assert not (tmp_path / "v.mp4").exists()
