"""Interrupted renders: SIGTERM and kill -9, then --resume to the same video."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from render_helpers import decode_video as decoded
from render_helpers import unplaced, video_packets

from hfrender.cli import main
from hfrender.io.segments import work_dir

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test

SLOW = """
import math, time
import hfrender as hf

class Slow(hf.Scene):
    duration = 3.0
    background = (0.1, 0.1, 0.15)

    def setup(self):
        self.box = self.add(hf.Cube(color=(0.9, 0.5, 0.2)))
        self.camera.position = (0, 0, 4)

    def update(self, t):
        time.sleep(SLEEP)
        self.box.position = (math.sin(3 * t), 0, 0)
        self.box.rotation = (0.4, 2 * t, 0)
"""




def scene(tmp_path, sleep):
    path = tmp_path / "slow.py"
    path.write_text(textwrap.dedent(SLOW).replace("SLEEP", str(sleep)))
    return path


ARGS = ["--size", "64x36", "--samples", "2", "--granularity", "12", "--quiet"]


def start(path, out, *more, before=""):
    """A render of ``path`` into ``out`` in a process of its own (``before``: Python run in
    it first)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    run = f"{before}\nfrom hfrender.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", f"import sys\n{run}", "render", str(path),
                             "-o", str(out), *ARGS, *more], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_default)


def _ctrl_c_default():  # a shell's background job starts with SIGINT ignored: not this one
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_segments(out, n, proc, timeout=60):
    manifest = work_dir(out) / "manifest.json"
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if manifest.exists():
            try:
                if len(json.loads(manifest.read_text())["segments"]) >= n:
                    return
            except json.JSONDecodeError:  # never: it is replaced atomically
                raise
        time.sleep(0.05)
    raise AssertionError(f"no {n} segments before the timeout (exit {proc.poll()})")


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
    path = tmp_path / "stop.py"
    stop = tmp_path / "stop.flag"
    stop.touch()
    path.write_text(textwrap.dedent(SLOW).replace("time.sleep(SLEEP)", (
        f"if {at} / 30 < t < {at + 5} / 30 and os.path.exists({str(stop)!r}): "
        "raise KeyboardInterrupt")).replace(
        "import math, time", "import math, os"))  # Ctrl-C at frame 70, while the flag is
    out = tmp_path / "stop.mp4"

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


def test_a_file_where_the_partial_output_would_go_is_never_written_over(tmp_path, capsys):
    """A user's NAME.partial.mp4 (or one of ours they changed) is not hfrender's to replace
    or remove: the render is refused before any work, in one line; the file is untouched."""
    path = scene(tmp_path, 0.0)
    out = tmp_path / "mine.mp4"
    theirs = tmp_path / "mine.partial.mp4"
    theirs.write_bytes(b"MY PRECIOUS")
    assert main(["render", str(path), "-o", str(out), *ARGS]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {out}: {theirs} exists and is not a partial output "
                   "this hfrender wrote, but an interrupted run would keep its frames there: "
                   "move it, or write to another name (an older hfrender's partial output can "
                   "be deleted)\n")
    assert theirs.read_bytes() == b"MY PRECIOUS" and not out.exists()
    from hfrender.io import outputs

    outputs.mark_partial(theirs)  # ours, then changed by hand: theirs again
    theirs.write_bytes(b"MY PRECIOUS, edited")
    outputs.remove_partial(str(out))
    assert theirs.read_bytes() == b"MY PRECIOUS, edited"
    assert main(["render", str(path), "-o", str(out), *ARGS]) == 2


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


def test_a_failed_render_leaves_the_last_good_render(tmp_path, capsys):
    good = scene(tmp_path, 0.0)
    keep = tmp_path / "keep.mp4"
    assert main(["render", str(good), "-o", str(keep), *ARGS]) == 0
    before = keep.read_bytes()
    bad = tmp_path / "bad.py"
    bad.write_text(good.read_text().replace("time.sleep(0.0)",
                                            "assert t < 0.6, 'the scene broke'"))
    capsys.readouterr()
    assert main(["render", str(bad), "-o", str(keep), *ARGS]) == 1
    err = capsys.readouterr().err
    partial = tmp_path / "keep.partial.mp4"
    assert keep.read_bytes() == before  # not replaced by a shorter video
    n = len(decoded(partial))
    assert 1 <= n < 90
    assert err.startswith("hfrender: error: scene error in update(t)") and \
        err.rstrip().endswith(f"bad.py:14); the {n} frames finished so far are in "
                              f"{partial} ({keep} is untouched)"), err
    assert len(err.strip().splitlines()) == 1


def killed_after_a_segment(tmp_path):
    """(scene, output) of a render killed (-9) once it has kept a whole segment."""
    path = scene(tmp_path, 0.004)
    out = tmp_path / "c.mp4"
    proc = start(path, out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return path, out


def test_resume_refuses_changed_settings(tmp_path, capsys):
    path, out = killed_after_a_segment(tmp_path)
    code = main(["render", str(path), "-o", str(out), "--size", "64x36", "--samples", "4",
                 "--granularity", "12", "--quiet", "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "--resume: the settings changed since the interrupted render " \
                         "(samples 2 -> 4); render without --resume to start over" in err
    assert not out.exists()
    code = main(["render", str(path), "-o", str(out), *ARGS, "--hdr", "on", "--resume"])
    assert code == 2 and "(hdr auto -> on)" in capsys.readouterr().err  # float sub-frames
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), "--resume"]) == 2
    assert "--resume: nothing to resume for" in capsys.readouterr().err
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), *ARGS]) == 0
    assert main(["render", str(path), "-o", str(tmp_path / "none.mp4"), "--resume"]) == 2
    assert capsys.readouterr().err.strip().endswith(  # a finished one: said so
        f"--resume: nothing to resume for {tmp_path / 'none.mp4'} ({tmp_path / 'none.mp4'} is "
        "there, and no run of it was interrupted); render without --resume to make it again")


def test_starting_over_says_what_the_interrupted_run_had_finished(tmp_path, caplog):
    """Without --resume, an interrupted run's segments go: a warning counts their frames
    (a plain re-run used to discard them without a word)."""
    path, out = killed_after_a_segment(tmp_path)
    kept = sum(s["count"] for s in json.loads((work_dir(out) / "manifest.json").read_text())
               ["segments"])
    assert kept >= 12
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--duration", "0.2",
                     "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"]
    assert said == [f"starting {out} over: an interrupted run's {kept} finished frames there "
                    f"(.c.mp4.hfrender) are discarded (a run goes on from them only with the "
                    f"same settings: render's and fx's --resume, a batch's same job)"]
    assert not work_dir(out).exists() and len(decoded(out)) == 6
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):  # nothing kept: no word
        assert main(["render", str(path), "-o", str(out), *ARGS, "--duration", "0.2"]) == 0
    assert not [r for r in caplog.records if r.name == "hfrender.io.segments"]
    from hfrender.io.outputs import mark_partial

    partial = tmp_path / "c.partial.mp4"  # an interrupted run's frames to watch (a trial:
    partial.write_bytes(out.read_bytes())  # removed by the next whole run without a word)
    mark_partial(partial)  # (as an older hfrender did: its frames not recorded, but counted)
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(out), *ARGS, "--duration", "0.2"]) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"] == [
        f"starting {out} over: c.partial.mp4, an interrupted run's 6 frames to watch, stays "
        "until this run is complete or stops with as many (move it elsewhere to keep it)"]
    assert not partial.exists()
    gif, partial = tmp_path / "c.gif", tmp_path / "c.partial.gif"  # a GIF is not resumed:
    partial.write_bytes(b"GIF89a interrupted")  # its partial one, the only copy, went
    mark_partial(partial)  # unsaid (a trial); its frames cannot be counted: it goes either way
    caplog.clear()
    with caplog.at_level("WARNING", logger="hfrender.io.segments"):
        assert main(["render", str(path), "-o", str(gif), *ARGS, "--duration", "0.2"]) == 0
    assert [r.getMessage() for r in caplog.records if r.name == "hfrender.io.segments"] == [
        f"starting {gif} over: c.partial.gif, an interrupted run's frames to watch, goes once "
        "this run is complete or stops with frames of its own (move it elsewhere to keep it)"]
    assert gif.exists() and not partial.exists()


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


def test_damaged_manifest_is_one_clear_line(tmp_path, capsys):
    path = scene(tmp_path, 0.0)
    out = tmp_path / "d.mp4"
    folder = work_dir(out)
    folder.mkdir()
    (folder / "manifest.json").write_text('{"settings": {')
    assert main(["render", str(path), "-o", str(out), *ARGS, "--resume"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: --resume: .*manifest.json is damaged \(.*\); render "
                        r"without --resume to start over\n", err), err


def _failing_scene(tmp_path):
    path = tmp_path / "late.py"
    path.write_text(textwrap.dedent("""
        import hfrender as hf

        class Late(hf.Scene):
            duration = 1.0
            def setup(self):
                self.add(hf.Cube())
            def update(self, t):
                if t > 0.5:
                    raise RuntimeError("late")
    """))
    return path


def test_a_relative_sequence_keeps_its_partial_frames_beside_it(tmp_path, monkeypatch,
                                                                 capsys):
    from hfrender.io.writers import PngSequenceWriter

    monkeypatch.chdir(tmp_path)
    with PngSequenceWriter(str(tmp_path / "%04d.png"), (4, 2)) as w:  # an older render's
        w.write(np.full((2, 4, 3), 7, np.uint8))
    older = (tmp_path / "0000.png").read_bytes()
    args = ["--size", "32x18", "--samples", "1", "--quiet"]
    assert main(["render", str(_failing_scene(tmp_path)), "-o", "%04d.png", *args]) == 1
    partial = tmp_path / "####.png.partial"
    # named as the output was: relative (was: absolute beside a relative output)
    assert "are in '####.png.partial/%04d.png' (%04d.png is untouched)" in capsys.readouterr().err
    assert sorted(p.name for p in partial.iterdir())[:2] == ["0000.png", "0001.png"]
    assert (tmp_path / "0000.png").read_bytes() == older  # untouched
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # nothing hidden left
    assert main(["render", str(scene(tmp_path, 0.0)), "-o", "%04d.png", *args,
                 "--duration", "0.2"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [f"{i:04d}.png" for i in range(6)]
    assert not partial.exists()  # the older partial frames are gone once the output is whole


def test_a_failure_while_finalising_leaves_nothing_hidden(tmp_path, monkeypatch):
    from hfrender.io import writers

    real = writers.VideoWriter.close

    def broken_close(self):
        real(self)
        raise writers.WriteFailed("ffmpeg could not finish (simulated)")

    monkeypatch.setattr(writers.VideoWriter, "close", broken_close)
    out = tmp_path / "x.gif"
    assert main(["render", str(scene(tmp_path, 0.0)), "-o", str(out), "--size", "32x18",
                 "--samples", "1", "--duration", "0.1", "--quiet"]) == 1
    assert not out.exists() and not (tmp_path / ".x.gif.partial.gif").exists()


def test_changed_settings_are_shown_as_they_are_given_on_the_command_line():
    from hfrender.io.segments import Manifest

    old = {"size": [64, 36], "crf": None, "f_stop": 2.0, "dof_method": "fast", "jitter": False,
           "frames": [10, 80], "samples": 2, "same": "x", "fps": 29.97, "range": [10, None]}
    new = {"size": [32, 18], "crf": 30, "f_stop": 2.8, "dof_method": "exact", "jitter": True,
           "frames": None, "samples": 2, "same": "x", "fps": 29.970001, "range": [12, None]}
    assert Manifest(old, 10, 5, 5).differences(new) == [
        "crf unset -> 30", "dof-method fast -> exact", "f-stop 2 -> 2.8",
        "fps 29.97 -> 29.970001", "frames 10:80 -> unset", "jitter off -> on", "range 10: -> 12:",
        "size 64x36 -> 32x18"]
    # fx's lens is a group of settings: each of its own is named as its flag is (not a dict)
    lens = {"focus_distance": 2.0, "f_stop": 2.0, "max_coc_px": None, "aperture_blades": 0}
    fx = Manifest({"window": 1, "lens": lens}, 10, 5, 0)
    assert fx.differences({"window": 1, "lens": {**lens, "focus_distance": 3.5,
                                                 "aperture_blades": 6}}) == [
        "aperture-blades 0 -> 6", "focus-distance 2 -> 3.5"]
    assert fx.differences({"window": 1, "lens": None}) == [
        "aperture-blades 0 -> unset", "f-stop 2 -> unset", "focus-distance 2 -> unset"]
    # a file's checksum or identity is said changed, not shown as two hashes or a dict's
    # entries (an fx input's size beside its depth's, both named "size")
    files = Manifest({"scene_sha256": "a" * 64, "input": {"path": "a.mp4", "size": 1},
                      "depth": "d" * 64, "size": [64, 36]}, 10, 5, 0)
    assert files.differences({"scene_sha256": "b" * 64, "input": {"path": "a.mp4", "size": 2},
                              "depth": "e" * 64, "size": [64, 36]}) == [
        "the depth pass changed", "the input changed", "the scene file changed"]


def test_continue_with_resume_is_offered_only_where_a_segment_was_kept(tmp_path, monkeypatch):
    """Stopped inside its first segment, a render keeps its frames in NAME.partial.mp4 and
    no work folder: --resume would find nothing, so it is not offered."""
    import argparse

    from hfrender.cli import commands
    from hfrender.config import RenderConfig

    out = tmp_path / "o.mp4"
    monkeypatch.setattr(sys, "argv", ["hfrender", "render", "s.py", "-o", str(out)])
    config, args = RenderConfig(output=str(out)), argparse.Namespace(file="s.py")
    assert commands._again(args, config) == ("; no whole segment (about a second of video) "
                                             "was finished, so --resume has nothing to go on "
                                             "from")
    seq = RenderConfig(output=str(tmp_path / "f" / "%04d.png"))
    assert commands._again(args, seq) == ""  # no frame was kept
    (tmp_path / "f" / "####.png.partial").mkdir(parents=True)
    (tmp_path / "f" / "####.png.partial" / "manifest.json").write_text("{}")
    for k in range(2):
        (tmp_path / "f" / "####.png.partial" / f"{k:04d}.png").write_bytes(b"frame")
    assert commands._again(args, seq) == f"; continue from frame 2 with: hfrender render " \
        f"s.py -o {out} --resume"  # (this test's argv names the video: its words come back)
    from hfrender.engine.stopped import go_on
    from hfrender.errors import KEYWORD, spelt

    with spelt(KEYWORD):  # hf.render's, the command's sentence in its keywords
        assert go_on(RenderConfig(output=seq.output, keep_samples="k.samples"), None) == (
            "; continue from frame 2 with the same call and resume=True (without keep_samples:"
            " a sample store holds a whole render; the unfinished k.samples.partial can go)")
    work_dir(out).mkdir()
    (work_dir(out) / "manifest.json").write_text('{"segments": [{"count": 30}, {"count": 8}]}')
    again = commands._again(args, config)
    assert again == f"; continue from frame 38 with: hfrender render s.py -o {out} --resume"
    for keep in (["--keep-samples", "k.samples"], ["--keep-samples=k.samples"],
                 ["--keep-samples=a", "--keep-samples", "k.samples/"]):
        # --resume refuses a store (it holds a whole render): the command offered leaves it
        monkeypatch.setattr(sys, "argv", ["hfrender", "render", "s.py", "-o", str(out), *keep,
                                          "--samples", "4"])
        assert commands._again(args, config) == (
            f"; continue from frame 38 with: hfrender render s.py -o {out} --samples 4 "
            "--resume (without "
            "--keep-samples: a sample store holds a whole render; the unfinished "
            "k.samples.partial can go)")
    monkeypatch.setattr(sys, "argv", ["hfrender", "render", "my shot.py", "-o", str(out)])
    assert commands._again(args, config) == (  # to be pasted as it is
        f"; continue from frame 38 with: hfrender render 'my shot.py' -o {out} --resume")


def test_resume_compares_settings_as_the_manifest_keeps_them(tmp_path):
    """Settings with a tuple (fx's --focus-pixel) or inf (a focus at infinity) match the
    manifest's JSON (a list; Infinity) when nothing changed; a changed one is still named."""
    from hfrender.errors import InputError
    from hfrender.io.resume import resume_from
    from hfrender.io.segments import Manifest, work_dir

    out = tmp_path / "o.mp4"
    settings = {"focus_pixel": (30, 12), "lens": {"focus_distance": float("inf")}, "window": 1}
    folder = work_dir(out)
    folder.mkdir()
    Manifest(settings, 10, 5, 0).save(folder)
    start, manifest = resume_from(str(out), settings, "fx")
    assert start == 0 and manifest.settings["focus_pixel"] == [30, 12]
    with pytest.raises(InputError, match=r"\(focus-pixel 30,12 -> 31,12\); fx without"):
        resume_from(str(out), {**settings, "focus_pixel": (31, 12)}, "fx")


def test_a_focus_pixels_stand_in_focus_is_not_a_setting():
    """With --focus-pixel the lens's focus distance is each frame's own: what an output
    depends on leaves the stand-in out, so a refused --resume names the focus as given
    (was: "focus-distance inf -> 2" beside the focus pixel)."""
    import hfrender as hf
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.io.segments import Manifest

    lens = hf.Lens(float("inf"), 2.0)
    pixel = FxSettings(depth="d.npy", lens=lens, focus_pixel=(30, 12)).output_settings()
    assert pixel["lens"]["focus_distance"] is None and pixel["lens"]["f_stop"] == 2.0
    assert "workers" not in pixel and "resume" not in pixel
    distance = FxSettings(depth="d.npy", lens=hf.Lens(2.0, 2.0)).output_settings()
    assert Manifest(pixel, 10, 5, 0).differences(distance) == [
        "focus-distance unset -> 2", "focus-pixel 30,12 -> unset"]


def test_a_ray_run_keeps_its_segments_with_tuple_settings(tmp_path):
    """fx --ray (and batch jobs on Ray) find an interrupted run's segments through
    whole_segments: settings holding a tuple (--focus-pixel) are compared as the manifest
    keeps them (was: a list against a tuple, every segment made again)."""
    import hashlib

    from hfrender.engine.cluster import keep_segment, whole_segments
    from hfrender.io.segments import work_dir

    out = str(tmp_path / "o.mp4")
    settings = {"focus_pixel": (30, 12), "lens": {"focus_distance": float("inf")}}
    manifest = whole_segments(out, settings, 20, 10, 0, ".mp4")
    data = b"segment bytes"
    keep_segment(manifest, work_dir(out), {"first": 0, "count": 10, "data": data,
                                           "sha256": hashlib.sha256(data).hexdigest()}, "s0.mp4")
    again = whole_segments(out, settings, 20, 10, 0, ".mp4")
    assert [seg["file"] for seg in again.segments] == ["s0.mp4"]
    # an older hfrender's .mkv segments are made again, not joined with .mp4 ones
    assert whole_segments(out, settings, 20, 10, 0, ".mkv").segments == []
    other = whole_segments(out, {**settings, "focus_pixel": (31, 12)}, 20, 10, 0, ".mp4")
    assert other.segments == [] and not (work_dir(out) / "s0.mp4").exists()


def test_a_sequence_started_over_says_what_it_discards(tmp_path, caplog):
    """A run without --resume (or on Ray) where an interrupted run kept frames: a crashed
    run's hidden folder goes, said with its count; a stopped run's partial folder stays
    until this run replaces it; the new run's manifest is what --resume then finds."""
    from hfrender.io import resume
    from hfrender.io.outputs import partial_name, temporary
    from hfrender.io.segments import Manifest

    out = str(tmp_path / "seq" / "f_%04d.png")
    hidden, shown = Path(temporary(out)).parent, Path(partial_name(out)).parent
    for folder, n in ((hidden, 3), (shown, 5)):
        folder.mkdir(parents=True)
        Manifest({"samples": n}, 10, 1, 0).save(folder)
        for k in range(n):
            (folder / f"f_{k:04d}.png").write_bytes(b"frame")
    assert resume.kept_work(out) == hidden  # a crash's frames are the later ones
    with caplog.at_level("WARNING", logger="hfrender.io.resume"):
        resume.begin_sequence(out, temporary(out), Manifest({"samples": 8}, 10, 1, 0))
    assert [r.getMessage() for r in caplog.records] == [
        f"starting {out} over: an interrupted run's 3 finished frames in '{hidden}' are "
        "discarded (a run goes on from them only with the same settings: render's and "
        "fx's --resume, a batch's same job)"]  # (was: "and --resume", which batch refuses)
    assert sorted(f.name for f in hidden.iterdir()) == ["manifest.json"]
    assert len(list(shown.glob("f_*.png"))) == 5
    assert resume.resume_from(out, {"samples": 8}, "render") == (0, Manifest.load(hidden))


@pytest.mark.parametrize("kind", ["render mp4", "render png", "fx mp4"])
def test_a_ctrl_c_after_the_last_frame_was_handed_over_leaves_the_output_whole(
        tmp_path, monkeypatch, capsys, kind):
    """Ctrl-C while the last frames are fused and written: "stopping after the work in
    progress" means the rest of the output, which is put in place, said so, exit 0 (a
    batch records the job as done, then stops). Was: the output thrown away, and "nothing
    was written"."""
    from render_helpers import ctrl_c_before_the_last_frame

    cmd, ext = kind.split()
    src = tmp_path / "src.mp4"
    if cmd == "fx":
        assert main(["render", "scenes/orbit.py", "-o", str(src), "--size", "64x36",
                     "--duration", "1", "--samples", "1", "--quiet"]) == 0
    out = tmp_path / ("o.mp4" if ext == "mp4" else "o_%03d.png")
    args = (["render", "scenes/orbit.py", "--duration", "1", *ARGS] if cmd == "render" else
            ["fx", str(src), "--motion-blur", "3", "--quiet"])
    seen = ctrl_c_before_the_last_frame(monkeypatch)
    assert main([*args, "-o", str(out)]) == 0
    assert seen and seen[0] is KeyboardInterrupt
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["stopping after the work in progress (Ctrl-C again to stop at once)",
                   f"hfrender: the interruption came after the last frame was made: {out} "
                   "is complete"]
    frames = sorted(tmp_path.glob("o_*.png")) if ext == "png" else decoded(out)
    assert len(frames) == 30
    assert sorted(p.name for p in tmp_path.iterdir()) == (
        sorted(["o.mp4", "src.mp4"][: 2 if cmd == "fx" else 1]) if ext == "mp4"
        else [f"o_{i:03d}.png" for i in range(30)])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_whose_last_job_ends_through_a_late_ctrl_c_is_done(tmp_path, monkeypatch,
                                                                   capsys, jobs):
    """The Ctrl-C lands as the batch's last job writes its last frames: the job is done,
    and so is the batch, exit 0 (was: 130, "run the same command again"); with a job
    after it, the batch stops there, 130, the next one "not run"."""
    import json

    from render_helpers import ctrl_c_before_the_last_frame

    scene = Path("scenes/orbit.py").resolve()
    text = "".join(f'[[job]]\nname = "j{i}"\nscene = "{scene}"\noutput = "o{i}.mp4"\n'
                   f'size = "64x36"\nsamples = 1\nduration = 1.0\n\n' for i in range(jobs))
    (tmp_path / "jobs.toml").write_text(text)
    seen = ctrl_c_before_the_last_frame(monkeypatch)
    summary = tmp_path / "s.json"
    code = main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary", str(summary)])
    assert seen and seen[0] is KeyboardInterrupt
    statuses = [r["status"] for r in json.loads(summary.read_text())]
    assert (code, statuses) == ((0, ["done"]) if jobs == 1 else (130, ["done", "not run"]))
    assert len(decoded(tmp_path / "o0.mp4")) == 30


@pytest.mark.parametrize("ext", ["mp4", "png", "fx"])
def test_a_ctrl_c_while_the_output_is_put_in_place_waits_for_it(tmp_path, monkeypatch,
                                                                capsys, ext):
    """Ctrl-C during the join of the segments (a video) or the move of the frames (a
    sequence): held until that step ends, then told; the output is whole, exit 0 (was:
    "interrupted before the first frame: nothing was written", exit 130, with the whole
    video in place)."""
    import hfrender.io.outputs as outputs
    import hfrender.io.segments as segments

    src = tmp_path / "src.mp4"
    if ext == "fx":
        assert main(["render", "scenes/orbit.py", "-o", str(src), "--size", "64x36",
                     "--duration", "1", "--samples", "1", "--quiet"]) == 0
    steps = {"png": [(outputs, "commit")], "mp4": [(segments.SegmentedWriter, "close")],
             "fx": [(outputs, "commit"), (segments.SegmentedWriter, "close")]}[ext]
    def midway(real):
        def interrupted_midway(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)  # the handler would run here, mid-step
            return real(*args, **kwargs)
        return interrupted_midway

    for owner, name in steps:  # fx writes a clip this short in one piece: either step
        monkeypatch.setattr(owner, name, midway(getattr(owner, name)))
    out = tmp_path / ("o_%03d.png" if ext == "png" else "o.mp4")
    assert main((["fx", str(src), "--motion-blur", "2", "--quiet"] if ext == "fx" else
                 ["render", "scenes/orbit.py", "--duration", "1", *ARGS]) + ["-o", str(out)]) == 0
    assert capsys.readouterr().err.strip().splitlines() == [
        "stopping after the work in progress (Ctrl-C again to stop at once)",
        f"hfrender: the interruption came after the last frame was made: {out} is complete"]
    frames = sorted(tmp_path.glob("o_*.png")) if ext == "png" else decoded(out)
    assert len(frames) == 30


def test_resume_takes_defaults_given_by_name_as_left_out(tmp_path, capsys):
    """--crf 18, --preset medium, --pix-fmt yuv420p, --codec libx264 and --frames : are what
    an .mp4 gets without them: --resume refused them as changed settings (a trial); a
    value the encoder would not get is still one."""
    path, out = killed_after_a_segment(tmp_path)
    code = main(["render", str(path), "-o", str(out), *ARGS, "--crf", "20", "--resume"])
    assert code == 2 and "(crf 18 -> 20)" in capsys.readouterr().err
    assert main(["render", str(path), "-o", str(out), *ARGS[:-1], "--crf", "18", "--preset",
                 "medium", "--pix-fmt", "yuv420p", "--codec", "libx264", "--frames", ":",
                 "--resume"]) == 0
    assert "resumed at frame " in capsys.readouterr().out
    assert decoded(out).shape[0] == 90


def test_a_ray_runs_own_gl_and_backend_are_not_told_as_changes(tmp_path):
    """A local --resume of segments made on Ray with other samples listed "backend auto ->
    cpu; gl-renderer ray -> llvmpipe", which the user never changed, before the change."""
    from hfrender.errors import InputError
    from hfrender.io.resume import _matching
    from hfrender.io.segments import Manifest

    kept = {"backend": "auto", "gl_renderer": "ray", "samples": 64, "fps": 30.0}
    Manifest(kept, 30, 30, 64).save(tmp_path)
    here = {"backend": "cpu", "gl_renderer": "llvmpipe", "samples": 32, "fps": 30.0}
    with pytest.raises(InputError) as err:
        _matching("o.mp4", tmp_path, here, "render")
    assert str(err.value) == ("--resume: the settings changed since the interrupted render "
                              "(samples 64 -> 32); render without --resume to start over")


def test_fx_settings_changed_are_named_as_fxs_flags():
    """fx's refused --resume named its settings' own names: "window 3 -> 4" for
    --motion-blur 4, "linear-light on -> off" for --gamma-space, "input-fps unset -> 25" for
    --fps 25 (a trial); each is named as its flag is."""
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.io.segments import Manifest

    kept = Manifest(FxSettings(window=3).output_settings(), 10, 5, 0)
    assert kept.differences(FxSettings(window=4).output_settings()) == [
        "motion-blur 3 -> 4"]
    assert kept.differences(FxSettings(window=3, linear_light=False).output_settings()) == [
        "gamma-space off -> on"]
    assert kept.differences(FxSettings(window=3, input_fps=25.0).output_settings()) == [
        "fps unset -> 25"]
    older = {k: v for k, v in FxSettings(window=3).output_settings().items()  # (a review:
             if k != "linear_light"}  # "gamma-space unset -> on" for a run with it off)
    assert Manifest(older, 10, 5, 0).differences(FxSettings(window=3).output_settings()) == [
        "gamma-space unset -> off"]
    assert kept.differences(FxSettings(window=3, stride=3, weights="triangle")
                            .output_settings()) == ["stride 1 -> 3", "weights box -> triangle"]


def test_a_changed_depth_range_refuses_resume_as_the_command_line_spells_it(tmp_path):
    """fx --depth-range is in what an output depends on: a resume of another is refused,
    the range named as typed (was: 'depth-range [1.0, 11.0] -> [2.0, 11.0]'); the same
    range resumes."""
    import hfrender as hf
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.errors import InputError
    from hfrender.io.resume import resume_from
    from hfrender.io.segments import Manifest, work_dir

    def settings(span):
        return FxSettings(depth="d.png", lens=hf.Lens(2.0, 2.0),
                          depth_range=span).output_settings()

    out = tmp_path / "o.mp4"
    folder = work_dir(out)
    folder.mkdir()
    Manifest(settings((1, 11)), 10, 5, 0).save(folder)
    assert resume_from(str(out), settings((1.0, 11.0)), "fx")[0] == 0
    with pytest.raises(InputError, match=r"\(depth-range 1,11 -> 2,11.5\); fx without"):
        resume_from(str(out), settings((2, 11.5)), "fx")
    assert Manifest(settings(None), 10, 5, 0).differences(settings((0.5, 20))) == [
        "depth-range unset -> 0.5,20"]
