"""A long-render user's trial: a kill while a finished sequence is put in place, a scene's
shader file changed between a stop and --resume, kept frames that a crash cut short or a hand
deleted, and a closed terminal. The full disk and the disk's syncs are in
test_long_render_trial_disk.py."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from long_render_trial_helpers import BAR, GLOW, GLOWING, SMALL, stop_halfway
from render_helpers import batch_status, unplaced

from hfrender.cli import main

ROOT = Path(__file__).resolve().parents[1]


# the render, killed (os._exit, as kill -9) once it has moved 3 of its frames into place
DIES_MOVING = """
import os, sys
import hfrender.io.sequence_commit as sc
real, moved = os.replace, [0]
def dying(a, b):
    if str(b).endswith(".png"):
        moved[0] += 1
        if moved[0] > 3:
            os._exit(9)
    return real(a, b)
sc.os = type("Os", (), {"replace": staticmethod(dying), "strerror": os.strerror})
from hfrender.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _frames(folder):
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


def test_a_kill_while_frames_are_put_in_place_loses_none(tmp_path, capsys, caplog):
    """Was: the older render's frames removed first, then the run's moved one by one; a
    kill in between left 5 files, and --resume drew every frame again from frame 0."""
    out = tmp_path / "out" / "f_%04d.png"
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1",
                 "--duration", "0.5", "--quiet"]) == 0  # an older render: 15 frames
    older = _frames(out.parent)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    died = subprocess.run([sys.executable, "-c", DIES_MOVING, "render", BAR, "-o", str(out),
                           *SMALL], env=env, capture_output=True, text=True, timeout=240)
    assert died.returncode == 9, died.stderr
    assert sorted(_frames(out.parent)) == sorted(older)  # none gone: 3 new, 12 older
    left = out.parent / ".f_####.png.partial"
    assert sorted(_frames(left)) == ["committing.json", *[f"f_{k:04d}.png" for k in range(3, 9)],
                                     "manifest.json"]
    capsys.readouterr()  # the mixed sequence is not read as it is (was: fx took it, a trial)
    blurred = str(tmp_path / "b.mp4")
    assert main(["fx", str(out), "--motion-blur", "2", "-o", blurred, "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {out}: a render was putting its frames in place over these when it "
        f"stopped ({left / 'committing.json'} lists them), so they mix two renders; run that "
        "render again with --resume to finish the move\n")
    with caplog.at_level("WARNING"):
        assert main(["render", BAR, "-o", str(out), *SMALL[:-1], "--resume"]) == 0
    assert "every frame was already rendered: put the frames in place" in capsys.readouterr().out
    assert [r.getMessage() for r in caplog.records] == [
        f"{out.parent}: 6 frames of an older render of the pattern that this one does not "
        "write (f_0009.png .. f_0014.png) are removed"]
    assert main(["fx", str(out), "--motion-blur", "2", "-o", blurred, "--quiet"]) == 0
    fresh = tmp_path / "fresh" / "f_%04d.png"
    assert main(["render", BAR, "-o", str(fresh), *SMALL]) == 0
    assert _frames(out.parent) == _frames(fresh.parent)  # the uninterrupted run's, byte for byte


def _stopped_halfway(tmp_path, monkeypatch):
    """(output, command) of GLOWING rendered to a PNG sequence and stopped (as by Ctrl-C)
    halfway: its finished frames kept for --resume."""
    (tmp_path / "glowing.py").write_text(GLOWING)
    (tmp_path / "glow.glsl").write_text(GLOW.format("color"))
    out = tmp_path / "seq" / "f_%04d.png"
    args = ["render", str(tmp_path / "glowing.py"), "-o", str(out), *SMALL]
    with monkeypatch.context() as patched:
        stop_halfway(patched)
        assert main(args) == 130
    return out, args


def test_a_change_in_the_scenes_shader_file_is_refused_by_resume_and_reruns_a_batch_job(
        tmp_path, capsys, monkeypatch):
    """Was: --resume mixed the old shader's frames with the new one's (exit 0), and a
    batch called the job up-to-date. The files a scene's objects read (its shaders, its
    models) count as its modules do."""
    out, args = _stopped_halfway(tmp_path, monkeypatch)
    (tmp_path / "glow.glsl").write_text(GLOW.format("vec3(0.0, 1.0, 0.0)"))
    capsys.readouterr()
    assert main([*args, "--resume"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --resume: the settings changed since the interrupted render (the "
        "scene's file glow.glsl changed); render without --resume to start over\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "g"\nscene = "glowing.py"\n'
                                        'output = "g.mp4"\nsize = "32x18"\nsamples = 1\n')

    def status():
        return batch_status(tmp_path / "jobs.toml")

    assert status() == "done" and status() == "up-to-date"
    (tmp_path / "glow.glsl").write_text(GLOW.format("vec3(0.0, 0.0, 1.0)"))
    assert status() == "done" and status() == "up-to-date"


@pytest.mark.parametrize("damage", ["empty", "cut"])
def test_a_kept_frame_cut_short_by_a_crash_is_rendered_again(tmp_path, capsys, caplog,
                                                            monkeypatch, damage):
    """Was: --resume counted every kept file as a frame; a 0-byte or cut PNG (a power cut
    before the disk had it) stayed in the finished sequence, exit 0."""
    out, args = _stopped_halfway(tmp_path, monkeypatch)
    kept = tmp_path / "seq" / "f_####.png.partial"
    frames = sorted(kept.glob("f_*.png"))
    assert len(frames) >= 3
    bad = frames[1]
    bad.write_bytes(b"" if damage == "empty" else bad.read_bytes()[:-20])
    with caplog.at_level("WARNING"):
        assert main([*args, "--resume"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{bad}, kept by the interrupted run, is cut short (a crash before the disk had it "
        "all): it and the frames after it are rendered again"]
    fresh = tmp_path / "fresh" / "f_%04d.png"
    assert main(["render", str(tmp_path / "glowing.py"), "-o", str(fresh), *SMALL]) == 0
    assert _frames(out.parent) == _frames(fresh.parent)


def test_a_closed_terminal_stops_a_render_as_sigterm_does(tmp_path):
    """SIGHUP (the terminal closed, `timeout -s HUP`) killed the render as kill -9 does:
    nothing said, the partial output not put in place. Now: as SIGTERM, exit 129."""
    import signal

    from resume_helpers import scene, start, wait_for_segments

    out = tmp_path / "h.mp4"
    proc = start(scene(tmp_path, 0.004), out)
    wait_for_segments(out, 1, proc)
    proc.send_signal(signal.SIGHUP)
    err = unplaced(proc.communicate(timeout=120)[1])  # (it may land in the scene's sleep)
    assert proc.returncode == 129, err
    assert "interrupted: the " in err and f"are in {tmp_path / 'h.partial.mp4'}" in err
    assert err.rstrip().endswith("--resume") and (tmp_path / "h.partial.mp4").is_file()
    assert main(["render", str(tmp_path / "slow.py"), "-o", str(out), "--size", "64x36",
                 "--samples", "2", "--granularity", "12", "--quiet", "--resume"]) == 0
    assert out.is_file() and not (tmp_path / "h.partial.mp4").exists()


def test_a_closed_terminal_that_cannot_be_written_still_exits_129(tmp_path):
    """A real closed terminal: SIGHUP, and every write to it fails (EIO). The progress
    bar's end then failed, and the run exited 1 (a review found it with a pty)."""
    import pty
    import signal

    from resume_helpers import scene, wait_for_segments

    out = tmp_path / "t.mp4"
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "hfrender", "render",
                             str(scene(tmp_path, 0.004)), "-o", str(out), "--size", "64x36",
                             "--samples", "2", "--granularity", "12"], env=env,
                            stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    try:
        wait_for_segments(out, 1, proc)
    finally:
        os.close(master)  # the terminal is gone: writes to it fail
    proc.send_signal(signal.SIGHUP)
    assert proc.wait(timeout=120) == 129
    assert (tmp_path / "t.partial.mp4").is_file()


def test_frames_moved_in_place_then_deleted_are_not_resumed_over(tmp_path, capsys):
    """A kill mid-move, then some of the frames already moved deleted by hand: --resume
    said every frame was made and finished with holes (a review). Now refused."""
    from hfrender.io.segments import MANIFEST

    out = tmp_path / "out" / "f_%04d.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    died = subprocess.run([sys.executable, "-c", DIES_MOVING, "render", BAR, "-o", str(out),
                           *SMALL], env=env, capture_output=True, text=True, timeout=240)
    assert died.returncode == 9, died.stderr
    assert MANIFEST == "manifest.json"
    (out.parent / "f_0001.png").unlink()
    capsys.readouterr()
    assert main(["render", BAR, "-o", str(out), *SMALL, "--resume"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --resume: 1 frame(s) of the interrupted run, put in place before "
        "it stopped, are gone (f_0001.png ...); render without --resume to make them all "
        "again\n")
