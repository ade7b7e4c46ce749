"""A disk found full as a render begins (its work folder's manifest cannot be written):
one line naming the file, and nothing left behind (a trial on a small tmpfs left an empty
``manifest.json.tmp`` in a hidden folder, the folders made for the output, and said
"cannot write a file")."""

import errno
from pathlib import Path

import pytest

from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2", "--quiet"]


@pytest.fixture
def full_disk(monkeypatch):
    """The manifest's file is made, and its data finds no room (as on a full disk)."""
    real = Path.write_text

    def write_text(self, data, *args, **kwargs):
        if self.name.startswith("manifest.json"):
            self.touch()
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


@pytest.mark.usefixtures("gl_context", "full_disk")
@pytest.mark.parametrize("name", ["shot.mp4", "f_%04d.png"])
def test_a_full_disk_as_a_render_begins_leaves_nothing_behind(tmp_path, capsys, name):
    (tmp_path / "out").mkdir()
    assert main(["render", BAR, "-o", str(tmp_path / "out" / "new" / name), *SMALL]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: cannot write ") and \
        err.rstrip().endswith("manifest.json.tmp: No space left on device"), err
    assert [p.name for p in (tmp_path / "out").rglob("*")] == []  # out/ was there: it stays


@pytest.mark.usefixtures("gl_context")
def test_a_sequence_that_cannot_be_put_in_place_says_its_frames_are_kept(tmp_path, capsys,
                                                                         monkeypatch):
    """Its folder made read-only under the run: every frame drawn, none put in place, and
    the message said only "cannot put .../f_0000.png in place: Permission denied" (a trial;
    run again without --resume, the frames were discarded)."""
    from hfrender.io import outputs

    def read_only(tmp, output, keep_others=False):
        raise PermissionError(errno.EACCES, "Permission denied", output % 0)

    out = str(tmp_path / "f_%04d.png")
    monkeypatch.setattr(outputs, "commit_sequence", read_only)
    monkeypatch.setattr(outputs, "keep_partial", lambda tmp, output, *frames: None)  # (read-only)
    assert main(["render", BAR, "-o", out, *SMALL]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"hfrender: error: cannot put {out % 0} in place: Permission denied;"
                          " the 6 finished frames are kept in "), err
    assert err.endswith(".f_####.png.partial': once that is mended, the same command with "
                        "--resume goes on from them"), err
    monkeypatch.undo()
    assert main(["render", BAR, "-o", out, *SMALL, "--resume"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"f_{k:04d}.png" for k in range(6)]


def test_an_ffmpeg_stopped_by_a_file_size_limit_says_which_limit():
    """``ulimit -f`` in the shell: ffmpeg's segment or join stopped by SIGXFSZ (a trial said
    "ffmpeg was stopped by SIGXFSZ" and no more)."""
    import signal

    from hfrender.io.ffmpeg import crashed

    assert crashed(-signal.SIGXFSZ, copying=True) == (
        "ffmpeg was stopped by SIGXFSZ: a file grew past this process's file size limit "
        "(ulimit -f)")


def test_a_join_whose_list_cannot_be_written_leaves_no_list(tmp_path, full_list):
    """A full disk as the segments' list is written: no empty ``join.txt`` is left among
    the segments kept for --resume (a trial's work folder held one)."""
    from hfrender.io.join import JOIN_LIST, join

    (tmp_path / "seg_00000000.ts").write_bytes(b"\x47" * 188)
    with pytest.raises(OSError, match="No space left"):
        join([tmp_path / "seg_00000000.ts"], str(tmp_path / "out.mp4"), tmp_path, 30.0)
    assert not (tmp_path / JOIN_LIST).exists()


@pytest.fixture
def full_list(monkeypatch):
    real = Path.write_text

    def write_text(self, data, *args, **kwargs):
        if self.name == "join.txt":
            self.touch()
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


@pytest.mark.usefixtures("gl_context", "full_list")
def test_a_render_whose_join_list_finds_the_disk_full_names_it(tmp_path, capsys,
                                                                monkeypatch):
    """A full disk as the segments are joined: the list's file named, and --resume joins
    them once there is room (a trial: "cannot write a file: No space left on device")."""
    out = tmp_path / "shot.mp4"
    assert main(["render", BAR, "-o", str(out), *SMALL]) == 1
    listing = tmp_path / ".shot.mp4.hfrender" / "join.txt"
    assert capsys.readouterr().err.strip() == (
        f"hfrender: error: cannot write {listing}: No space left on device; the 6 frames in "
        "whole segments are kept: once that is mended, the same command with --resume goes "
        "on from them")
    assert not out.exists()
    monkeypatch.undo()  # room again
    assert main(["render", BAR, "-o", str(out), *SMALL, "--resume"]) == 0
    assert out.is_file() and not listing.parent.exists()


def test_a_join_on_a_full_disk_says_how_much_room_it_needs(tmp_path, monkeypatch):
    """ffmpeg's "[out#0/mp4 @ 0x...] Error closing file: No space left on device" was all
    (a trial on a small tmpfs): its tag gone, the room the video needs said."""
    import subprocess

    from hfrender.io import join as io_join

    def full(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 228, "", "[out#0/mp4 @ 0x55a16e108c80] Error "
                                           "closing file: No space left on device\n")

    monkeypatch.setattr(io_join.subprocess, "run", full)
    folder = tmp_path / ".o.mp4.hfrender"
    folder.mkdir()
    segments = [folder / f"seg_{k:08d}.ts" for k in (0, 32)]
    for segment in segments:
        segment.write_bytes(b"\x47" * 188 * 1000)  # 2 x 188,000 bytes: 376 KB
    with pytest.raises(io_join.WriteFailed) as info:
        io_join.join(segments, str(tmp_path / "o.mp4"), folder, 30.0)
    assert str(info.value) == (
        f"joining 2 segments into {tmp_path / 'o.mp4'} failed: Error closing file: No space "
        f"left on device; the video needs about 376 KB free in {tmp_path} (the segments stay "
        f"in {folder}: once that is mended, the same command with --resume joins them)")


@pytest.fixture
def full_at_close(monkeypatch):
    """ffmpeg finds the disk full as it finishes a one-piece output: what fit is 300 KiB
    (307,200 bytes: a trial's tmpfs, ``-o size=300k``), and it ends as ffmpeg does there
    (exit 228)."""
    from hfrender.io import writers

    real = writers.VideoWriter.close

    def close(self):
        real(self)
        with open(self.path, "r+b") as fh:
            fh.truncate(300 * 1024)
        self.failed = True
        raise writers.WriteFailed(f"ffmpeg could not finish {self.name} (exit 228): Error "
                                  "submitting a packet to the muxer: No space left on device")

    monkeypatch.setattr(writers.VideoWriter, "close", close)


@pytest.mark.usefixtures("gl_context", "full_at_close")
@pytest.mark.parametrize("name, kind", [("g.gif", "a GIF"), ("g.ts", "a .ts video")])
def test_a_one_piece_output_on_a_full_disk_says_nothing_is_kept_and_the_room(
        tmp_path, capsys, name, kind):
    # was: "ffmpeg could not finish g.gif (exit 228): ... No space left on device" alone
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), *SMALL]) == 1
    assert capsys.readouterr().err.strip() == (
        f"hfrender: error: ffmpeg could not finish {out} (exit 228): Error submitting a "
        f"packet to the muxer: No space left on device; nothing is kept ({kind} is written "
        f"in one piece: the next run starts over), and it needs more than the 307 KB that "
        f"fit in {tmp_path}")
    assert list(tmp_path.iterdir()) == []
