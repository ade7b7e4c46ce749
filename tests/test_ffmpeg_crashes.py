"""A join that fails says where the segments are and how to go on; an ffmpeg that crashes
(at a join, or the video writer's) is named with its signal, and one that ends says what it
said, blaming itself only when it crashed."""

import pytest


def test_a_join_that_fails_says_where_the_segments_are_and_how_to_go_on(tmp_path):
    """A full disk at the join: the message named the failure only, not the kept segments
    nor --resume (which then joined them, byte for byte)."""
    from hfrender.io.join import WriteFailed, join

    folder = tmp_path / "w"
    folder.mkdir()
    with pytest.raises(WriteFailed) as err:
        join([folder / "seg_00000000.ts"], str(tmp_path / "o.mp4"), folder, 30.0)
    said = str(err.value)
    assert said.startswith(f"joining 1 segment into {tmp_path / 'o.mp4'} failed: ")
    assert said.endswith(f"(the segments stay in {folder}: once that is mended, the same "
                         "command with --resume joins them)")


@pytest.mark.parametrize("signal_name", ["SEGV", "ABRT"])
def test_a_join_whose_ffmpeg_crashes_names_the_signal_and_the_way_out(tmp_path, monkeypatch,
                                                                        signal_name):
    """imageio-ffmpeg 0.6/0.7's ffmpeg 7.0.2 died of SIGSEGV at every join on the H200
    machine (and here): the message said "failed: no message"."""
    from hfrender.io.join import WriteFailed, join

    crash = tmp_path / "ffmpeg"
    crash.write_text("#!/bin/sh\n"  # it starts (its -version), and dies at the join
                     "[ \"$1\" = -version ] && echo 'ffmpeg version 7.0.2' && exit 0\n"
                     f"kill -{signal_name} $$\n")
    crash.chmod(0o755)
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(crash))
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "seg_00000000.ts").write_bytes(b"\x47" * 188)
    with pytest.raises(WriteFailed) as err:
        join([folder / "seg_00000000.ts"], str(tmp_path / "o.mp4"), folder, 24.0)
    assert str(err.value) == (
        f"joining 1 segment into {tmp_path / 'o.mp4'} failed: ffmpeg crashed (SIG"
        f"{signal_name}): imageio-ffmpeg before 0.8 brings an ffmpeg that crashes copying "
        "MPEG-TS on some processors; pip install -U 'imageio-ffmpeg>=0.8', or point "
        f"IMAGEIO_FFMPEG_EXE at another ffmpeg (the segments stay in {folder}: once that is "
        "mended, the same command with --resume joins them)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ffmpeg", "w"]  # no output at all
    assert (folder / "seg_00000000.ts").stat().st_size == 188


def test_an_ffmpeg_that_ends_says_what_it_said_and_blames_itself_only_when_it_crashed():
    """Only a fault (SIGSEGV, SIGILL, SIGBUS, SIGABRT) while copying streams points at the
    old imageio-ffmpeg; a kill -9 or the out-of-memory killer (SIGKILL), a SIGTERM, an
    encoder's crash, an exit status are said as what they are."""
    from hfrender.io.ffmpeg import crashed

    assert crashed(1, "Invalid data found when processing input") == \
        "Invalid data found when processing input"
    assert crashed(183) == "no message"
    assert crashed(-9, copying=True) == "ffmpeg was killed (SIGKILL: out of memory, or kill -9)"
    assert crashed(-15, "x", copying=True) == "ffmpeg was stopped by SIGTERM: x"
    assert crashed(-11) == "ffmpeg crashed (SIGSEGV)"  # encoding: no known cause
    assert crashed(-7, copying=True).startswith("ffmpeg crashed (SIGBUS): imageio-ffmpeg "
                                                "before 0.8")
    assert crashed(-200, copying=True) == "ffmpeg was stopped by signal 200"


@pytest.mark.parametrize("when", ["writing", "closing"])
def test_an_encoder_that_dies_of_a_signal_says_which(tmp_path, when):
    """The video writer's ffmpeg killed (SIGSEGV here) is said as a crash, at the next
    frame or at the close, not as "no message"."""
    import os
    import signal

    import numpy as np

    from hfrender.io.writers import VideoWriter, WriteFailed

    out = tmp_path / "v.mp4"
    writer = VideoWriter(str(out), 24.0, (256, 256))
    frame = np.zeros((256, 256, 3), np.uint8)  # (over the pipe's buffer: written at once)
    if when == "closing":
        writer.write(frame)
    os.kill(writer._proc.pid, signal.SIGSEGV)
    writer._proc.wait()
    with pytest.raises(WriteFailed) as err:
        writer.write(frame) if when == "writing" else writer.close()
    said = {"writing": f"ffmpeg stopped writing {out} after 0 frames: ffmpeg crashed (SIGSEGV)",
            "closing": f"ffmpeg could not finish {out} (exit -11): ffmpeg crashed (SIGSEGV)"}
    assert str(err.value) == said[when]
    if when == "writing":  # the close tells the same crash
        with pytest.raises(WriteFailed, match=r"\(exit -11\): ffmpeg crashed \(SIGSEGV\)$"):
            writer.close()
