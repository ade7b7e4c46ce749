"""hfrender's own temporary files beside an ffmpeg run (a VFR video's timing script, the
container tags' ffmetadata, an image sequence's ffconcat list) go on every failure path: an
ffmpeg that does not start, one that stops midway, a Ctrl-C while it starts; a user's file
beside them stays."""

import errno
import subprocess
import tempfile

import imageio_ffmpeg
import numpy as np
import pytest

import hfrender.io.writers as writers
from hfrender.cli import main
from hfrender.io import container_tags
from hfrender.io.encoding import Encoding
from hfrender.io.ffmpeg_binary import GET_ONE, ffmpeg_exe

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
TAGS = Encoding(tags=(("title", "Holiday, day 2"),))
TIMES = [0.0, 0.04, 0.3]  # a pause: a variable frame rate, written as a timing script


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """tempfile.gettempdir() as a folder of this test's own (others' files come and go in
    /tmp), with a user's file in it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    (folder / "hfrender-mine.tags").write_text("a user's\n")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    ffmpeg_exe()  # (checked once a process, before any Popen below fails)
    return folder


def listing(*folders):
    """Each folder's names (the output locks' folder aside: kept for the next run)."""
    return {f.name: sorted(p.name for p in f.iterdir() if not p.name.startswith(
        "hfrender-locks-")) for f in folders}


def failing_popen(monkeypatch, exc):
    """subprocess.Popen raising ``exc`` for an encoder (frames in on its pipe), not for the
    probes and checks before it."""
    real = subprocess.Popen

    def popen(cmd, *args, **kwargs):
        if "-i" in cmd and cmd[cmd.index("-i") + 1] == "-":
            raise exc
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)


@pytest.mark.parametrize("exc", [FileNotFoundError(errno.ENOENT, "No such file or directory"),
                                 PermissionError(errno.EACCES, "Permission denied"),
                                 OSError(errno.EMFILE, "Too many open files"),
                                 KeyboardInterrupt()])
def test_an_encoder_that_does_not_start_leaves_no_temporary_file(tmp_path, own_tmp,
                                                                 monkeypatch, exc):
    out = tmp_path / "out" / "clip.mp4"
    out.parent.mkdir()
    before = listing(own_tmp, out.parent)
    failing_popen(monkeypatch, exc)
    with pytest.raises(type(exc)):
        writers.VideoWriter(str(out), 25, (16, 8), times=TIMES, encoding=TAGS)
    assert listing(own_tmp, out.parent) == before  # (was: hfrender-*.filter, *.tags left)


@pytest.mark.parametrize("where", ["encode_command", "escape"])
def test_a_ctrl_c_while_the_encoder_starts_leaves_no_temporary_file(tmp_path, own_tmp,
                                                                    monkeypatch, where):
    before = listing(own_tmp)
    module = writers if where == "encode_command" else container_tags  # (the tags' text)
    monkeypatch.setattr(module, where, lambda *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        writers.VideoWriter(str(tmp_path / "clip.mkv"), 25, (16, 8), times=TIMES,
                            encoding=TAGS)
    assert listing(own_tmp) == before


def test_an_encoder_that_stops_midway_leaves_none_unclosed(tmp_path, own_tmp):
    """An ffmpeg that exits at once (here: a folder where its output goes): the write that
    meets it says so, and its files go then, closed or not (a library user's loop)."""
    out = tmp_path / "clip.mkv"
    out.mkdir()
    before = listing(own_tmp)
    writer = writers.VideoWriter(str(out), 25, (16, 8), times=TIMES, encoding=TAGS)
    assert len(listing(own_tmp)["tmp"]) == 3  # its timing script and tags while it runs
    frame = np.zeros((8, 16, 3), np.uint8)
    with pytest.raises(writers.WriteFailed, match=r"^ffmpeg stopped writing .*clip\.mkv "
                                                  r"after \d+ frames: .*Is a directory"):
        for _ in range(10_000):  # (the pipe takes a few before it breaks)
            writer.write(frame)
    assert listing(own_tmp) == before
    assert out.is_dir()  # (not the writer's to remove)


def test_fx_whose_encoder_does_not_start_says_one_line_and_leaves_nothing(tmp_path, own_tmp,
                                                                        monkeypatch, capsys):
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=s=32x16:r=25:d=0.2", "-pix_fmt", "yuv420p", "-metadata",
                    "title=Holiday, day 2", str(clip)], check=True)
    out = tmp_path / "out.mp4"
    (tmp_path / "notes.txt").write_text("a user's\n")
    before = listing(own_tmp, tmp_path)
    failing_popen(monkeypatch, PermissionError(errno.EACCES, "Permission denied", FFMPEG))
    code = main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "-q"])
    err = capsys.readouterr().err
    assert (code, err) == (2, f"hfrender: error: the ffmpeg at {FFMPEG} does not start "
                              f"(Permission denied); {GET_ONE}\n")  # (was "cannot write")
    assert listing(own_tmp, tmp_path) == before, err


def test_a_16_bit_sequences_decoder_that_does_not_start_leaves_no_list(tmp_path, own_tmp,
                                                                        monkeypatch, rng):
    from hfrender.io.footage import open_footage
    from hfrender.io.images import write_picture

    frames = rng.integers(0, 65536, (2, 8, 16, 3), dtype=np.uint16)
    for k, frame in enumerate(frames):
        write_picture(tmp_path / f"f{k:03d}.png", frame)
    with open_footage(str(tmp_path / "f%03d.png"), 25, pix_fmt="rgb") as footage:
        assert footage.pix_fmt == "rgb48le" and len(listing(own_tmp)["tmp"]) == 2  # its list
    before = listing(own_tmp)
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: (_ for _ in ()).throw(
        OSError(errno.EMFILE, "Too many open files")))
    with pytest.raises(OSError, match="Too many open files"):
        open_footage(str(tmp_path / "f%03d.png"), 25, pix_fmt="rgb")
    assert listing(own_tmp) == before  # (was: hfrender-*.ffconcat left)


@pytest.mark.parametrize("kind", ["not executable", "gone"])
def test_an_ffmpeg_that_cannot_run_is_named_as_one(tmp_path, kind):
    """An ffmpeg made unexecutable or removed after the check: a line naming it as the
    ffmpeg that does not start (was "cannot write <its path>", as an output is said)."""
    from hfrender.errors import ToolUnavailable
    from hfrender.io.ffmpeg_binary import started

    exe = tmp_path / "ffmpeg"
    if kind == "not executable":
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o644)
    why = "Permission denied" if kind == "not executable" else "No such file or directory"
    with pytest.raises(ToolUnavailable) as caught:
        started([str(exe), "-version"], stdout=subprocess.DEVNULL)
    assert str(caught.value) == f"the ffmpeg at {exe} does not start ({why}); {GET_ONE}"


def test_a_ctrl_c_while_ffmpeg_finishes_keeps_it_for_a_second_close(tmp_path, own_tmp):
    """A Ctrl-C while close() waits for ffmpeg to write its index: the writer keeps
    ffmpeg, its log and its temporaries (an ffmpeg just started may not have read them:
    removed there, it failed, exit 254), and a second close() finishes the file and
    removes them (it returned at once, and they were left)."""
    out = tmp_path / "clip.mp4"
    writer = writers.VideoWriter(str(out), 25, (16, 8), times=TIMES, encoding=TAGS)
    writer.write(np.full((8, 16, 3), 90, np.uint8))
    proc = writer._proc
    proc.wait = lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        writer.close()
    assert len(listing(own_tmp)["tmp"]) == 3 and not writer._log.closed
    del proc.wait  # (Popen's own again)
    writer.close()
    assert listing(own_tmp)["tmp"] == ["hfrender-mine.tags"] and writer._log.closed
    frames = subprocess.run([FFMPEG, "-v", "error", "-i", str(out), "-f", "rawvideo",
                             "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    assert len(frames) == 16 * 8 * 3 and abs(frames[100] - 90) <= 2  # the frame, whole


def test_a_decoder_that_does_not_start_closes_its_log(tmp_path, monkeypatch):
    from hfrender.io import footage

    made = []
    real = tempfile.TemporaryFile
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *a, **k: made.append(real()) or
                        made[-1])
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: (_ for _ in ()).throw(
        OSError(errno.EMFILE, "Too many open files")))
    with pytest.raises(OSError, match="Too many open files"):
        footage._Decoder(str(tmp_path / "in.mp4"), "rgb24", 16 * 8 * 3)
    assert len(made) == 1 and made[0].closed  # (was left open: a ResourceWarning)
