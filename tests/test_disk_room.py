"""Whether an image sequence fits on its disk, said before the first frame (was: 18,000
frames of PNG started without a word about the disk, a trial): refused where even the
least a frame can take does not fit, warned of where a busy picture's frames would not."""

import logging

import pytest

from hfrender.cli import main
from hfrender.errors import HFRenderError
from hfrender.io import disk_room
from hfrender.io.disk_room import check_room

BAR = "tests/data/bar.frag"  # a shader scene: 4 s
MB = 1_000_000


@pytest.fixture
def free(monkeypatch):
    """Set the free space (bytes) and the block size the check finds."""
    def set_free(n, block=4096):
        monkeypatch.setattr(disk_room, "_disk", lambda folder: (n, block))
    return set_free


def test_18000_frames_that_cannot_fit_are_refused_in_one_line(free, tmp_path):
    free(100 * MB)  # 1920x1080 RGB: 6.2 MB raw, 6028 bytes at deflate's 1032:1, 2 blocks
    # (18000 x 8192 = 147,456,000 bytes: 147 MB, whole from 100 up; 8.2 KB; 100 MB)
    out = str(tmp_path / "f" / "%05d.png")
    with pytest.raises(HFRenderError) as info:
        check_room(out, 18000, (1920, 1080), 3, 1)
    assert str(info.value) == (
        f"-o {out}: 18000 frames need at least 147 MB (8.2 KB each, the least a 1920x1080 "
        f"PNG takes on this disk); 100 MB free in {tmp_path / 'f'}/: use a video output, "
        "fewer frames (--frames), or free space")


def test_frames_that_may_not_fit_are_warned_of(free, tmp_path, caplog):
    free(2000 * MB)  # 18000 x 1.24 MB (a busy 1080p PNG, 5:1) = 22.4 GB; 0.2 MB each at 30:1
    out = str(tmp_path / "%05d.png")
    with caplog.at_level(logging.WARNING, "hfrender"):
        check_room(out, 18000, (1920, 1080), 3, 1)
    assert [r.getMessage() for r in caplog.records] == [
        f"-o {out}: 18000 frames may need up to about 22.4 GB (a 1920x1080 PNG frame takes "
        f"about 0.2 to 1.2 MB, by how busy its picture is); 2.0 GB free in {tmp_path}/: use a "
        "video output, fewer frames (--frames), or free space"]


@pytest.mark.parametrize("channels, depth, exr, busy", [
    (3, 1, False, 138_240),  # 8-bit PNG: 5:1
    (3, 2, False, 394_971),  # 16-bit: 3.5:1
    (4, 2, True, 737_280),  # half EXR, RGBA: 2.5:1
    (3, 4, True, 2_764_800),  # float EXR: as raw
])
def test_a_busy_frame_is_what_was_measured(channels, depth, exr, busy):
    """plasma.frag (a shader filling the frame with soft noise) at 640x360 took 131 KB as
    an 8-bit PNG, 383 KB as 16-bit, 550 KB as a half EXR (RGB), 2.64 MB as a float one."""
    got = disk_room.frame_bytes((640, 360), channels, depth, exr)[1]
    assert got == pytest.approx(busy, rel=0.001)


def test_room_enough_says_nothing_and_a_video_is_not_checked(free, tmp_path, caplog):
    free(100 * 10**9)
    with caplog.at_level(logging.INFO, "hfrender"):
        check_room(str(tmp_path / "%05d.png"), 18000, (1920, 1080), 3, 1)
        free(0)
        check_room(str(tmp_path / "a.mp4"), 18000, (1920, 1080), 3, 1)
    assert caplog.records == []


def test_render_refuses_before_any_work(free, tmp_path, capsys):
    free(50 * MB)  # 18000 frames of 640x360: at least a 4 KB block each, 73.7 MB
    out = tmp_path / "f" / "%05d.png"
    assert main(["render", BAR, "-o", str(out), "--duration", "600"]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {out}: 18000 frames need at least 73.7 MB (4.1 KB "
                   "each, the least a 640x360 PNG takes on this disk); 50.0 MB free in "
                   f"{tmp_path / 'f'}/: use a video output, fewer frames (--frames), or free "
                   "space\n")
    assert not (tmp_path / "f").exists() or not any((tmp_path / "f").iterdir())


def test_render_warns_and_goes_on(free, tmp_path, caplog):
    free(200_000)  # 2 frames of 640x360: 23,040 to 138,240 bytes each (30:1, 5:1)
    out = tmp_path / "%05d.png"
    assert main(["render", BAR, "-o", str(out), "--frames", "0:2", "--samples", "1",
                 "-q"]) == 0
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"-o {out}: 2 frames may need up to about 276 KB (a 640x360 PNG frame takes about "
        f"23 to 138 KB, by how busy its picture is); 200 KB free in {tmp_path}/: use a "
        "video output, fewer frames (--frames), or free space"]
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["00000.png", "00001.png"]


def test_fx_to_a_sequence_is_checked_too(free, tmp_path, capsys):
    import imageio.v3 as iio
    import numpy as np

    (tmp_path / "in").mkdir()
    for i in range(3):
        iio.imwrite(tmp_path / "in" / f"{i:03d}.png", np.full((8, 16, 3), 40 * i, np.uint8))
    free(10_000)  # 3 frames: a 4 KB block each at least
    out = tmp_path / "out" / "%03d.png"
    assert main(["fx", str(tmp_path / "in" / "%03d.png"), "-o", str(out), "--motion-blur",
                 "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: 3 frames need at least 12.3 KB (4.1 KB each, the least a "
        f"16x8 PNG takes on this disk); 10.0 KB free in {tmp_path / 'out'}/: use a video "
        "output, or free space\n")
    assert not list(tmp_path.glob("out/*.png"))


def test_a_network_disks_large_block_is_not_taken_for_each_frames_least(monkeypatch,
                                                                        tmp_path):
    """NFS reports its wsize (often 1 MiB) as the block, CephFS 4 MiB, though a small
    file takes no such room there: 18000 frames of 640x360 with 10 GB free were refused
    ("need at least 18.9 GB (1.0 MB each ...)"). ``_disk`` itself is fed the block."""
    import collections
    import os
    import shutil

    usage = collections.namedtuple("usage", "total used free")
    room = {"free": 10 * 10**9}
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**12, 0, room["free"]))
    monkeypatch.setattr(os, "statvfs", lambda p: os.statvfs_result((2**20,) * 11),
                        raising=False)
    out = tmp_path / "f" / "%05d.png"
    check_room(str(out), 18000, (640, 360), 3, 1)  # (no error: 18000 x 4 KB at most)
    room["free"] = 50 * MB  # a refusal counts a 4 KB block at most
    with pytest.raises(HFRenderError) as info:
        check_room(str(out), 18000, (640, 360), 3, 1)
    assert str(info.value).startswith(f"-o {out}: 18000 frames need at least 73.7 MB (4.1 KB "
                                      "each, the least a 640x360 PNG takes on this disk); ")


def test_fx_weighs_the_depth_and_channels_it_writes(free, tmp_path, caplog):
    """16-bit RGBA frames in, 16-bit RGBA PNGs out: fx's check took every frame as 8-bit
    RGB (up to 1.2 KB a busy 64x32 frame where it writes up to 4.7 KB), so 13 KB free for
    3 frames passed unsaid."""
    import numpy as np

    from hfrender.io.images import read_png, write_picture

    (tmp_path / "in").mkdir()
    rng = np.random.default_rng(5)
    for i in range(3):
        write_picture(tmp_path / "in" / f"{i:03d}.png",
                      rng.integers(0, 65535, (32, 64, 4), dtype=np.uint16))
    free(13_000)  # 3 x 4 KB blocks at least: taken
    out = tmp_path / "out" / "%03d.png"
    with caplog.at_level(logging.WARNING, "hfrender"):
        assert main(["fx", str(tmp_path / "in" / "%03d.png"), "-o", str(out),
                     "--motion-blur", "2", "-q"]) == 0
    assert [r.getMessage() for r in caplog.records if r.name.endswith("disk_room")] == [
        f"-o {out}: 3 frames may need up to about 14.0 KB (a 64x32 PNG frame takes about "
        f"0.8 to 4.7 KB, by how busy its picture is); 13.0 KB free in {tmp_path / 'out'}/: "
        "use a video output, or free space"]
    written = read_png(tmp_path / "out" / "000.png")  # (what the figures are of)
    assert written.dtype == np.uint16 and written.shape == (32, 64, 4)


def test_fx_resumed_into_a_sequence_checks_room_for_the_frames_left(free, tmp_path, capsys,
                                                                    monkeypatch):
    """A resumed fx run wrote the rest of a sequence with no look at the disk (a fresh run
    is checked): now the frames still to write are, in the fresh run's line; the kept
    frames stay where they are when it is refused, and room for the rest (not for all)
    goes on."""
    import imageio.v3 as iio
    import numpy as np
    from render_helpers import stop_at

    from hfrender.io.footage import SequenceFootage

    (tmp_path / "in").mkdir()
    rng = np.random.default_rng(3)
    for i in range(12):
        iio.imwrite(tmp_path / "in" / f"{i:03d}.png", rng.integers(0, 256, (8, 16, 3), np.uint8))
    out = tmp_path / "out" / "%03d.png"
    args = ["fx", str(tmp_path / "in"), "-o", str(out), "--motion-blur", "2"]
    real = SequenceFootage.read_into
    stop_at(monkeypatch, SequenceFootage, "read_into", 8)  # a Ctrl-C at the 8th frame read
    assert main(args) == 130
    monkeypatch.setattr(SequenceFootage, "read_into", real)
    kept = tmp_path / "out" / "###.png.partial"
    names = sorted(p.name for p in kept.glob("*.png"))
    left = 12 - len(names)
    assert 0 < len(names) < 12
    capsys.readouterr()
    free(4096 * left - 1)  # a 4 KB block a frame at least: one short
    assert main([*args, "--resume"]) == 2
    free_said = f"{(4096 * left - 1) / 1000:.1f} KB"
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: {left} frames need at least {4096 * left / 1000:.1f} KB "
        f"(4.1 KB each, the least a 16x8 PNG takes on this disk); {free_said} free in "
        f"{tmp_path / 'out'}/: use a video output, or free space\n")
    assert sorted(p.name for p in kept.glob("*.png")) == names  # kept, as they were
    free(4096 * left + 100)  # room for the rest, not for all 12
    assert main([*args, "--resume", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == [
        f"{i:03d}.png" for i in range(12)]
