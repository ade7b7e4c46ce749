"""Interrupted renders: SIGTERM, kill -9 and Ctrl-C, then --resume to the same video (the
settings a resume compares: test_resume_settings.py; a failure or a late Ctrl-C leaving
the output whole: test_resume_failures.py)."""

import json
import signal
import subprocess
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from render_helpers import decode_video as decoded
from render_helpers import unplaced, video_packets
from resume_helpers import ARGS, SLOW, scene, start, wait_for_segments

from hfrender.cli import main
from hfrender.io.segments import work_dir

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test


@pytest.mark.parametrize("name", ["crash.mp4", "speed 100%.mp4"])  # a video, not a pattern
def test_kill_9_then_resume_gives_the_uninterrupted_video(tmp_path, capsys, monkeypatch, name):
    path = scene(tmp_path, 0.004)
    whole = tmp_path / "whole.mp4"
    assert main(["render", str(path), "-o", str(whole), *ARGS]) == 0
    assert not work_dir(whole).exists()  # a finished render leaves no work folder
    out = tmp_path / name
    proc = start(path, out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = json.loads((work_dir(out) / "manifest.json").read_text())["segments"]
    assert 1 <= len(done) < 3 and not out.exists()  # 3 segments of 30 frames make it whole
    capsys.readouterr()
    counts = []  # the progress bar's: it goes on from the kept frames
    monkeypatch.setattr("hfrender.cli.commands.progress_bar", lambda *_: (
        lambda done, total: counts.append((done, total)), lambda: None))
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--resume"]) == 0
    said = capsys.readouterr().out
    kept = sum(s['count'] for s in done)
    assert counts[:2] == [(kept, 90), (kept + 1, 90)] and counts[-1] == (90, 90)
    assert f"resumed at frame {kept}" in said
    assert f"wrote {out}: 90 frames ({90 - kept} rendered now) 64x36 at 30 fps" in said
    a, b = decoded(whole), decoded(out)
    assert a.shape == b.shape == (90, 36, 64, 3)
    np.testing.assert_array_equal(a, b)  # decoded frames identical
    assert not work_dir(out).exists()


@pytest.mark.parametrize("older", [False, True])
def test_a_killed_prores_render_resumes_to_exact_ntsc_frame_times(tmp_path, capsys, older):
    """ProRes into .mov at 30000/1001, killed (-9) after a segment and resumed: the frames of
    an uninterrupted render, each 1001 ticks of 30000 (its segments were Matroska's whole
    milliseconds: 990 and 1020, a trial). ``older``: the killed run was an hfrender's that
    wrote .mkv segments; the resumed one goes on in .mkv (with .mov ones their join made
    2700 frames of 90), its frames in Matroska's milliseconds."""
    path, fps = scene(tmp_path, 0.004), ["--codec", "prores_ks", "--fps", "30000/1001"]
    whole, out = tmp_path / "whole.mov", tmp_path / "k.mov"
    assert main(["render", str(path), "-o", str(whole), *ARGS, *fps]) == 0
    proc = start(path, out, *fps, before="import hfrender.io.segment_files as s\n"
                 "s.segment_suffix = lambda *_: '.mkv'" if older else "")
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = json.loads((work_dir(out) / "manifest.json").read_text())["segments"]
    assert 1 <= len(done) < 3 and {Path(s["file"]).suffix for s in done} == {
        ".mkv" if older else ".mov"}
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], *fps, "--resume"]) == 0
    assert f"resumed at frame {sum(s['count'] for s in done)}" in capsys.readouterr().out
    np.testing.assert_array_equal(decoded(whole), decoded(out))  # decoded frames identical
    for video in (whole, out) if not older else (whole,):
        tb, packets = video_packets(video)
        assert tb == Fraction(1, 30000) and packets == [(k * 1001, 1001) for k in range(90)]


def test_sigterm_keeps_the_frames_made_and_says_how_to_resume(tmp_path):
    path = scene(tmp_path, 0.004)
    out = tmp_path / "term.mp4"
    out.write_bytes(b"an older render (comment=hfrender)")  # hfrender's mark: replaceable
    proc = start(path, out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGTERM)
    err = unplaced(proc.communicate(timeout=60)[1])
    assert proc.returncode == 143
    assert out.read_bytes() == b"an older render (comment=hfrender)"  # untouched
    partial = tmp_path / "term.partial.mp4"
    n = len(decoded(partial))
    assert 30 <= n < 90  # what was finished plays
    segs = json.loads((work_dir(out) / "manifest.json").read_text())["segments"]
    whole = sum(seg["count"] for seg in segs)  # the partial file may hold more: said
    assert 30 <= whole <= n
    more = f"; {whole} of them in whole segments" if whole < n else ""  # (a resume makes
    assert (f"interrupted: the {n} frames finished so far are in {partial} ({out} is "  # them)
            f"untouched){more}; continue from frame {whole} with: hfrender render {path} -o "
            f"{out}") in err
    assert err.rstrip().endswith("--resume")
    assert (tmp_path / ".term.partial.mp4.hfrender").is_file()  # known as hfrender's own
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 0
    assert not partial.exists() and not (tmp_path / ".term.partial.mp4.hfrender").exists()


@pytest.mark.parametrize("at", [70, 20])  # two whole segments of 30 frames; none
def test_a_second_ctrl_c_during_the_partial_join_says_what_is_kept(tmp_path, capsys,
                                                                     monkeypatch, at):
    """Ctrl-C at frame 70 of 90, and again while the finished segments are joined into
    NAME.partial.mp4: it said the frames "are in" a partial file that was never made, or
    "nothing was written" while two segments were kept; the half-joined file and the join's
    list stayed behind. At frame 20 (no whole segment): nothing kept, and said so."""
    from hfrender.hyperframe.pool import HyperFramePool

    path = tmp_path / "stop.py"
    stop = tmp_path / "stop.flag"
    path.write_text(textwrap.dedent(SLOW).replace("time.sleep(SLEEP)", (
        f"if {at} / 30 < t < {at + 5} / 30 and os.path.exists({str(stop)!r}): "
        "raise KeyboardInterrupt")).replace(
        "import math, time", "import math, os"))  # Ctrl-C at frame 70, while the flag is
    out = tmp_path / "stop.mp4"  # (made with the frames' pool: the motion hint's probes at
    made = HyperFramePool.__init__  # frames 24 and 72 before it went on)

    def making(pool, *args, **kwargs):
        stop.touch()
        made(pool, *args, **kwargs)

    monkeypatch.setattr(HyperFramePool, "__init__", making)
    run = subprocess.run

    def stopped_again(cmd, *args, **kwargs):
        if any(str(word).startswith("concat") for word in cmd):  # the second Ctrl-C, while
            # ffmpeg joins
            (tmp_path / ".stop.partial.mp4.joining.mp4").write_bytes(b"half")
            raise KeyboardInterrupt
        return run(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", stopped_again)
    assert main(["render", str(path), "-o", str(out), *ARGS]) == 130
    err = unplaced(capsys.readouterr().err)
    if at == 20:  # made, and none kept: said so (not "before the first frame"), no folder
        assert err.rstrip().endswith(
            "interrupted: the 20 frames made are not kept (no whole segment was finished, and "
            "the partial video's join was stopped)"), err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["stop.flag", "stop.py"]
        return
    segs = json.loads((work_dir(out) / "manifest.json").read_text())["segments"]
    kept = sum(seg["count"] for seg in segs)
    assert kept == 60  # two whole segments of 30 frames
    assert (f"interrupted: {kept} frames in whole segments are kept for --resume (no partial "
            f"video was joined); continue from frame {kept} with: hfrender render") in err
    assert not (tmp_path / "stop.partial.mp4").exists() and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".stop.mp4.hfrender", "stop.flag",
                                                          "stop.py"]
    assert not (work_dir(out) / "join.txt").exists()
    monkeypatch.undo()
    stop.unlink()
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 0
    assert len(decoded(out)) == 90


def wait_for_files(folder, n, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if folder.is_dir() and len(list(folder.glob("*.png"))) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"no {n} frames in {folder} before the timeout (exit {proc.poll()})")


@pytest.mark.parametrize("stop", ["sigint", "kill -9"])
def test_an_interrupted_png_sequence_resumes_to_the_uninterrupted_frames(tmp_path, capsys,
                                                                        stop):
    """A PNG sequence keeps its finished frames (Ctrl-C: in NAME_####.png.partial/; kill -9:
    in the hidden folder they are written to) with the run's manifest: --resume goes on
    after them and the sequence is the uninterrupted one, byte for byte (was: made whole
    each time, --resume refused)."""
    path = scene(tmp_path, 0.004)
    whole = tmp_path / "whole" / "f_%04d.png"
    assert main(["render", str(path), "-o", str(whole), *ARGS]) == 0
    out = tmp_path / "seq" / "f_%04d.png"
    proc = start(path, out)
    wait_for_files(tmp_path / "seq" / ".f_####.png.partial", 20, proc)
    proc.send_signal(signal.SIGINT if stop == "sigint" else signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    kept = tmp_path / "seq" / ("f_####.png.partial" if stop == "sigint" else
                               ".f_####.png.partial")
    n = len(list(kept.glob("f_*.png")))
    assert 20 <= n < 90 and (kept / "manifest.json").is_file()
    assert not list((tmp_path / "seq").glob("f_*.png"))  # nothing looks complete
    if stop == "sigint":
        assert proc.returncode == 130 and f"-o {out} " in err and err.rstrip().endswith(
            "--quiet --resume")
    capsys.readouterr()
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--samples", "3",
                 "--resume"]) == 2
    assert "the settings changed since the interrupted render (samples 2 -> 3)" in \
        capsys.readouterr().err
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--resume"]) == 0
    assert (f"wrote {out.parent / 'f_0000.png'} .. f_0089.png: 90 frames ({90 - n} rendered "
            "now)") in capsys.readouterr().out
    names = sorted(f.name for f in (tmp_path / "seq").iterdir())
    assert names == sorted(f.name for f in (tmp_path / "whole").iterdir())  # no folder left
    for name in names:
        assert (tmp_path / "seq" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 2
    assert "--resume: nothing to resume for" in capsys.readouterr().err


def test_ctrl_c_says_at_once_that_it_stops_then_keeps_the_frames_made(tmp_path):
    """The first Ctrl-C is answered before the frames in progress finish (a silent terminal
    looks hung), then the render stops as SIGTERM does: 130, the finished frames kept."""
    path = scene(tmp_path, 0.004)
    out = tmp_path / "int.mp4"
    proc = start(path, out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGINT)
    err = unplaced(proc.communicate(timeout=60)[1])
    assert proc.returncode == 130
    lines = err.splitlines()  # in a pipe: no blank line before it (was: one)
    assert lines[0] == "stopping after the work in progress (Ctrl-C again to stop at once)"
    n = len(decoded(tmp_path / "int.partial.mp4"))
    assert 30 <= n < 90
    assert lines[1].startswith(f"interrupted: the {n} frames finished so far are in ")
    assert len(lines) == 2


@pytest.mark.parametrize("suffix", [".mp4", ".webm"])
def test_joined_segments_decode_to_exactly_the_frames_written(tmp_path, suffix):
    """A last segment of one frame must not turn into repeated frames after the join."""
    from hfrender.io.segments import Manifest, SegmentedWriter

    out = tmp_path / f"j{suffix}"
    manifest = Manifest({}, total_frames=31, segment_frames=30, granularity=6)
    w = SegmentedWriter(str(out), 30.0, (64, 36), None, 6, manifest, tmp_path / "work")
    for i in range(31):
        w.write(np.full((36, 64, 3), (i * 7) % 256, np.uint8))
    w.close()
    frames = decoded(out)
    assert len(frames) == 31
    assert abs(int(frames[30].mean()) - (30 * 7) % 256) <= 3  # the last one is the last one
