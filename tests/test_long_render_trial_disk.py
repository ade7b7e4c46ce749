"""A long-render user's trial, the disk: a GIF or a partial output cut short by a full disk
not kept to block the next run, an EXR or the system refusing midway in one line, a full disk
midway saying what work is kept, a finished output reaching the disk around its rename, and a
file system that cannot sync."""

import os
from pathlib import Path

import pytest
from long_render_trial_helpers import BAR, GLOW, GLOWING, SMALL, stop_halfway

from hfrender.cli import main

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
    stop_halfway(monkeypatch)
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
