"""A long-render user's trial: a kill while a finished sequence is put in place, a scene's
shader file changed between a stop and --resume, kept frames that a crash cut short, a full
disk, and a closed terminal."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from render_helpers import batch_status, unplaced

from hfrender.cli import main

ROOT = Path(__file__).resolve().parents[1]
BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.3", "--quiet"]

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


GLOWING = """
import os
import hfrender as hf

class Glowing(hf.Scene):
    duration = 0.3

    def setup(self):
        self.add(hf.Sphere(color=(0.9, 0.5, 0.2), shader="glow.glsl"))
        self.camera.position = (0, 0, 3)

    def update(self, t):
        if 0.15 < t < 0.25 and os.environ.get("HF_TEST_STOP"):  # (not the end, looked at
            # before the first frame is drawn)
            raise KeyboardInterrupt  # as a Ctrl-C halfway
"""
GLOW = "vec3 shade(vec3 normal, vec3 world, vec3 color) {{ return {}; }}\n"


def _stop_halfway(patched):
    """GLOWING's Ctrl-C at t = 0.15..0.25 armed (HF_TEST_STOP) once the frames' pool is
    made: the motion hint looks at frame 6, t = 0.2, before (``patched``: a monkeypatch,
    whose undo disarms it)."""
    from hfrender.hyperframe.pool import HyperFramePool

    made = HyperFramePool.__init__

    def making(pool, *args, **kwargs):
        os.environ["HF_TEST_STOP"] = "1"
        made(pool, *args, **kwargs)

    patched.setattr(HyperFramePool, "__init__", making)
    patched.setenv("HF_TEST_STOP", "")  # (undone: unset again)


def _stopped_halfway(tmp_path, monkeypatch):
    """(output, command) of GLOWING rendered to a PNG sequence and stopped (as by Ctrl-C)
    halfway: its finished frames kept for --resume."""
    (tmp_path / "glowing.py").write_text(GLOWING)
    (tmp_path / "glow.glsl").write_text(GLOW.format("color"))
    out = tmp_path / "seq" / "f_%04d.png"
    args = ["render", str(tmp_path / "glowing.py"), "-o", str(out), *SMALL]
    with monkeypatch.context() as patched:
        _stop_halfway(patched)
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


# an ffmpeg that starts and lists what the real one does, but dies of a full disk once it
# has taken some frames to encode, leaving the file it began cut short
FULL_DISK_FFMPEG = """#!/bin/sh
case "$*" in
  *rawvideo*)
    for last in "$@"; do :; done
    head -c 60000 > /dev/null
    printf 'GIF89a cut short' > "$last"
    echo "Error submitting a packet to the muxer: No space left on device" >&2
    exit 228;;
esac
exec {real} "$@"
"""


def test_a_gif_cut_short_by_a_full_disk_is_not_kept_to_block_the_next_run(tmp_path, capsys,
                                                                        monkeypatch):
    """Was: the cut GIF kept as out.partial.gif, its record not written (the disk full):
    "internal error", and every later render refused as "not a partial output this
    hfrender wrote"."""
    import imageio_ffmpeg

    from hfrender.io import ffmpeg_binary

    fake = tmp_path / "ffmpeg"
    fake.write_text(FULL_DISK_FFMPEG.format(real=imageio_ffmpeg.get_ffmpeg_exe()))
    fake.chmod(0o755)
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(fake))
    ffmpeg_binary.checked.cache_clear()
    out = tmp_path / "out.gif"
    args = ["render", BAR, "-o", str(out), "--size", "64x36", "--samples", "1",
            "--duration", "2"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: ffmpeg ") and f"{out}" in err
    assert "No space left on device" in err and "internal error" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ffmpeg"]  # no partial, no record
    monkeypatch.delenv("IMAGEIO_FFMPEG_EXE")
    ffmpeg_binary.checked.cache_clear()
    assert main([*args, "--quiet"]) == 0 and out.stat().st_size > 1000


def test_a_partial_output_whose_record_cannot_be_written_is_not_left(tmp_path, caplog,
                                                                     monkeypatch):
    import errno

    from hfrender.io import outputs

    def full(partial, frames=None):
        raise OSError(errno.ENOSPC, "No space left on device", str(partial))

    (tmp_path / "glowing.py").write_text(GLOWING)
    (tmp_path / "glow.glsl").write_text(GLOW.format("color"))
    monkeypatch.setattr(outputs, "mark_partial", full)
    _stop_halfway(monkeypatch)
    out = tmp_path / "g.gif"
    with caplog.at_level("WARNING"):
        assert main(["render", str(tmp_path / "glowing.py"), "-o", str(out), *SMALL]) == 130
    assert "the unfinished output could not be kept (No space left on device)" in \
        [r.getMessage() for r in caplog.records]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["glow.glsl", "glowing.py"]


def test_an_exr_on_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    """OpenEXR's RuntimeError "... No space left on device." was an internal error."""
    import OpenEXR

    def full(self, path):
        raise RuntimeError(f'Failed to write pixel data to image file "{path}". No space '
                           "left on device.")

    monkeypatch.setattr(OpenEXR.File, "write", full)
    out = tmp_path / "s.exr"
    assert main(["still", BAR, "-o", str(out), "--size", "32x8"]) == 1
    assert capsys.readouterr().err == f"hfrender: error: cannot write {out}: No space left " \
                                      "on device\n"
    assert list(tmp_path.iterdir()) == []


def test_what_the_system_refuses_midway_is_one_line_not_a_bug(tmp_path, capsys, monkeypatch):
    """An OSError of a full disk or a folder made read-only under the run, from wherever
    it came: one line, exit 1 (was "internal error ... a bug in hfrender")."""
    import errno

    from hfrender.engine.render import RenderJob

    def refused(self):
        raise PermissionError(errno.EPERM, "Operation not permitted", "/x/.f_####.png.partial",
                              None, "/x/f_####.png.partial")

    monkeypatch.setattr(RenderJob, "run", refused)
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4"), *SMALL]) == 1
    assert capsys.readouterr().err == (
        "hfrender: error: cannot write /x/.f_####.png.partial -> /x/f_####.png.partial: "
        "Operation not permitted\n")
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4"), *SMALL, "-v"]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err  # -v: as promised

    def wrong_path(self):  # not what the system says of a full disk: a bug, told as one
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/x/y")

    monkeypatch.setattr(RenderJob, "run", wrong_path)
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4"), *SMALL]) == 1
    assert "internal error: FileNotFoundError" in capsys.readouterr().err


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


def test_a_full_disk_midway_says_what_work_is_kept(tmp_path, capsys, monkeypatch):
    """The manifest's save failing of a full disk after some segments: one line naming the
    kept work and --resume (was: the system's words alone, the kept segments unsaid)."""
    import errno

    from hfrender.io.segments import Manifest

    real, saves = Manifest.save, [0]

    def filling(self, folder):
        saves[0] += 1
        if saves[0] > 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(folder / "x.tmp"))
        return real(self, folder)

    monkeypatch.setattr(Manifest, "save", filling)
    out = tmp_path / "o.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1",
                 "--duration", "4", "--granularity", "8", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: cannot write ") and "No space left" in err
    assert "--resume" in err and ("whole segments" in err or "finished so far" in err), err


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


def test_a_finished_output_reaches_the_disk_before_and_after_its_rename(tmp_path, monkeypatch):
    """A power cut soon after a render could leave the output's name on a file of zeros
    (its data not yet written) or lose a sequence's renames: nothing was synced. The order
    now, for a video, a still and a sequence: the data synced, then renamed, then the
    folder synced."""
    import numpy as np

    from hfrender.io import outputs

    events = []
    real_replace = os.replace
    monkeypatch.setattr(outputs, "sync_file", lambda p: events.append(("data", Path(p).name)))
    monkeypatch.setattr(outputs, "sync_all", lambda p: events.append(("data", "all")))
    monkeypatch.setattr(outputs, "sync_folder", lambda p: events.append(("folder", str(p))))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("rename", Path(b).name)),
                                                     real_replace(a, b)))
    video = tmp_path / "v.mp4"
    tmp = outputs.temporary(str(video))
    Path(tmp).write_bytes(b"frames")
    outputs.commit(tmp, str(video))
    assert events == [("data", Path(tmp).name), ("rename", "v.mp4"),
                      ("folder", str(tmp_path))] and video.read_bytes() == b"frames"
    events.clear()
    outputs.write_image(str(tmp_path / "s.png"), np.full((4, 4, 3), 200, np.uint8))
    assert [e[0] for e in events] == ["data", "rename", "folder"]
    assert events[1][1] == "s.png" and events[2][1] == str(tmp_path)
    events.clear()
    seq = tmp_path / "seq" / "f_%03d.png"
    tmp = Path(outputs.temporary(str(seq)))
    tmp.parent.mkdir(parents=True)
    for k in range(3):
        (tmp.parent / f"f_{k:03d}.png").write_bytes(b"png")
    outputs.commit(str(tmp), str(seq))
    renames = [e for e in events if e[0] == "rename" and e[1].startswith("f_")]
    assert events[0] == ("data", "all") and len(renames) == 3
    assert events[-1] == ("folder", str(seq.parent))
    assert sorted(p.name for p in seq.parent.iterdir()) == ["f_000.png", "f_001.png",
                                                             "f_002.png"]
    from hfrender.io import join  # a render's video: its segments joined (was: no sync)

    monkeypatch.setattr(join, "sync_file", lambda p: events.append(("data", Path(p).name)))
    monkeypatch.setattr(join, "sync_folder", lambda p: events.append(("folder", str(p))))
    events.clear()
    assert main(["render", BAR, "-o", str(tmp_path / "r.mp4"), "--size", "32x16",
                 "--duration", "0.2", "--samples", "1", "--quiet"]) == 0
    at = events.index(("rename", "r.mp4"))
    assert events[at - 1][0] == "data" and events[at + 1] == ("folder", str(tmp_path))


def test_a_file_system_that_cannot_sync_keeps_the_output_and_one_that_fails_says_so(
        tmp_path, monkeypatch):
    """fsync is best effort where a file system has none (EINVAL: the finished render was
    refused, "cannot put ... in place: Invalid argument"), and an error where it could
    not write (EIO)."""
    import errno

    from hfrender.io import outputs
    from hfrender.io.writers import WriteFailed

    for code, kept in ((errno.EINVAL, True), (errno.EIO, False)):
        def refuse(fd, code=code):
            raise OSError(code, os.strerror(code))

        monkeypatch.setattr(os, "fsync", refuse)
        out = tmp_path / f"v{code}.mp4"
        tmp = outputs.temporary(str(out))
        Path(tmp).write_bytes(b"frames")
        if kept:
            outputs.commit(tmp, str(out))
            assert out.read_bytes() == b"frames"
        else:
            with pytest.raises(WriteFailed, match=r"in place: Input/output error"):
                outputs.commit(tmp, str(out))
            assert not out.exists()
