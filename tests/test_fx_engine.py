"""`hfrender fx` on the engine: workers (the same frames, two frames at once on two cores,
hyperframes fused at the same time), split-and-retry, settings checked with the CLI's message,
ffmpeg command lines built by pure functions, and outputs fx refuses to write over its input.
Resumes after kill -9 and SIGTERM are in test_fx_resume.py."""

import os
import time
from pathlib import Path

import numpy as np
import pytest
from fx_helpers import make_clip, read_pngs

from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine import fx_fusion
from hfrender.engine.fx import FxSettings, run_fx


@pytest.mark.parametrize("gamma", [True, False])
def test_more_workers_give_the_same_frames(tmp_path, rng, gamma):
    clip, _ = make_clip(tmp_path, rng, n=40)
    runs = []
    for workers in (1, 3):
        out = tmp_path / f"w{workers}" / "%03d.png"
        args = ["fx", str(clip), "-o", str(out), "--motion-blur", "5", "--workers",
                str(workers), "--quiet"] + (["--gamma-space"] if gamma else [])
        assert main(args) == 0
        runs.append(read_pngs(out.parent))
    assert runs[0].shape == (40, 36, 64, 3)
    np.testing.assert_array_equal(runs[0], runs[1])


def test_out_of_memory_splits_the_hyperframe_and_keeps_the_frames(tmp_path, rng, monkeypatch):
    clip, _ = make_clip(tmp_path, rng, n=40)
    whole = run_fx(str(clip), str(tmp_path / "a" / "%03d.png"), FxSettings(window=4))
    real, sizes = fx_fusion.motion_blur, []

    def picky(frames, *args, **kwargs):
        sizes.append(len(frames))
        if len(frames) > 6:
            raise MemoryError("simulated")
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(fx_fusion, "motion_blur", picky)
    split = run_fx(str(clip), str(tmp_path / "b" / "%03d.png"), FxSettings(window=4))
    assert split.retries >= 2 and whole.retries == 0 and max(sizes) > 6
    np.testing.assert_array_equal(read_pngs(tmp_path / "a"), read_pngs(tmp_path / "b"))


def test_settings_are_checked_when_built_with_the_cli_message():
    with pytest.raises(ConfigError, match=r"^--stride 0 must be a whole number of frames >= 1$"):
        FxSettings(window=4, stride=0)
    with pytest.raises(ConfigError, match=r"^--motion-blur 0 must be a whole "
                                          r"number of frames >= 1 \(the window\)$"):
        FxSettings(window=0)
    with pytest.raises(ConfigError, match=r"^--workers 0 must be an integer from 1 to 64$"):
        FxSettings(window=2, workers=0)
    with pytest.raises(ConfigError, match=r"^--fps '24': the output's rate \(--fps / --stride "
                                          r"1\) must be from 0.001 to 1000 fps$"):
        FxSettings(window=2, input_fps="24")  # a library caller's text (a review)
    s = FxSettings(window=2)
    with pytest.raises(AttributeError):
        s.stride = 0  # frozen


def test_workers_auto_defocuses_two_frames_at_once_on_two_cores(monkeypatch):
    from hfrender.engine import render_setup
    from hfrender.optics import Lens

    lens = Lens(2.0, 2.8)
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 2)
    assert FxSettings(window=2).workers == 1  # blending: the decoder and encoder are the work
    assert FxSettings(depth="d.npy", lens=lens).workers == 2
    assert FxSettings(depth="d.npy", lens=lens, workers=3).workers == 3
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 1)
    assert FxSettings(depth="d.npy", lens=lens).workers == 1
    with pytest.raises(ConfigError, match=r"^--workers two must be an integer from 1 to 64$"):
        FxSettings(window=2, workers="two")


def test_ffmpeg_command_lines_are_built_by_pure_functions():
    from hfrender.io.ffmpeg import Soundtrack, encode_command
    from hfrender.io.ffmpeg_join import join_command
    from hfrender.io.ffmpeg_read import decode_command

    pcm, aac = Soundtrack("in.mkv", ("pcm_s16le",)), Soundtrack("in.mkv", ("aac", "aac"))
    enc = encode_command("o.part.mp4", 30000 / 1001, (64, 36), "libx264", gop=8,
                         pix_fmt_in="yuv420p", audio_from=pcm, container="o.mp4",
                         exe="ff")
    assert enc[:5] == ["ff", "-hide_banner", "-loglevel", "error", "-y"]
    assert enc[enc.index("-pix_fmt") + 1] == "yuv420p" and enc[enc.index("-s") + 1] == "64x36"
    assert enc[enc.index("-r") + 1] == "30000/1001"  # NTSC exactly
    assert enc[enc.index("-g") + 1] == "8" and "-sc_threshold" in enc
    assert enc[enc.index("-map") + 1] == "0:v:0" and enc[enc.index("-c:a") + 1] == "aac"
    assert enc[-5:] == ["-f", "mp4", "-metadata", "comment=hfrender", "o.part.mp4"]  # the
    # muxer of the real name; the mark of hfrender's videos (a foreign one is not replaced)
    copied = encode_command("o.part.mp4", 30, (64, 36), "libx264", audio_from=aac,
                            container="o.mp4", exe="ff")  # the codec MP4 holds: copied
    assert copied[copied.index("-c:a") + 1] == "copy"
    assert copied[copied.index("1:a?") - 1] == "-map"  # every audio track (was the first)
    mixed = encode_command("o.part.mp4", 30, (64, 36), "libx264", container="o.mp4", exe="ff",
                           audio_from=Soundtrack("in.mkv", ("aac", "pcm_s24le")))
    assert mixed[mixed.index("-c:a") + 1] == "aac"  # one MP4 cannot hold: all encoded
    gif = encode_command("a.gif", 10, (8, 8), "gif", gop=8, audio_from=aac, exe="ff")
    assert "-g" not in gif and "-i" in gif and "in.mkv" not in gif and "pal8" in gif
    dec = decode_command("a:b.mkv", "rgb24", exe="ff")
    assert dec[dec.index("-i") + 1] == str(Path("a:b.mkv").resolve())  # not a protocol
    assert dec[dec.index("-fps_mode") + 1] == "passthrough" and dec[-1] == "-"
    from fractions import Fraction

    ntsc = join_command(["a.ts", "b.ts"], "o.mp4", Fraction(24000, 1001), exe="ff")
    assert ntsc[ntsc.index("-i") - 2:ntsc.index("-i") + 2] == [
        "-f", "mpegts", "-i", "concat:a.ts|b.ts"]  # stamped segments, joined as bytes
    assert ntsc[-9:] == ["-c", "copy", "-video_track_timescale", "24000", "-movflags",
                         "+faststart", "-metadata", "comment=hfrender", "o.mp4"]
    webm = join_command(["a.mkv"], "o.webm", Fraction(30), aac, "l.txt", exe="ff")
    assert webm[webm.index("-f") + 1:webm.index("-i") + 2] == ["concat", "-safe", "0", "-i",
                                                                "l.txt"]
    assert webm[webm.index("-c:a") + 1] == "libopus" and webm[webm.index("-c:v") + 1] == "copy"
    assert "-video_track_timescale" not in webm
    mov = join_command(["a.mov"], "o.mov", Fraction(30), pcm, "l.txt", exe="ff")
    assert mov[mov.index("-c:a") + 1] == "copy"  # PCM in a MOV: as it is


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_fx_refuses_to_write_over_its_own_input(tmp_path, rng, capsys, how):
    clip, _ = make_clip(tmp_path, rng, n=10)
    src = tmp_path / "same.mkv"
    src.write_bytes(clip.read_bytes())
    before = src.read_bytes()
    out = src
    if how == "symlink":
        out = tmp_path / "link.mkv"
        out.symlink_to(src)
    elif how == "hardlink":
        out = tmp_path / "hard.mkv"
        os.link(src, out)
    assert main(["fx", str(src), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"hfrender: error: -o {out} is the input ({src}): write the output " \
                  "elsewhere\n"
    assert src.read_bytes() == before


def test_fx_refuses_a_sequence_that_overlaps_its_input_or_depth(tmp_path, rng, capsys):
    import imageio.v3 as iio

    folder = tmp_path / "in"
    folder.mkdir()
    frames = rng.integers(0, 256, (4, 8, 8, 3), dtype=np.uint8)
    for i, f in enumerate(frames, start=1):
        iio.imwrite(folder / f"{i:05d}.png", f)
    before = sorted((p.name, p.read_bytes()) for p in folder.iterdir())
    pattern = str(folder / "%05d.png")
    assert main(["fx", pattern, "-o", pattern, "--motion-blur", "2", "--quiet"]) == 2
    assert "would replace" in capsys.readouterr().err
    four = str(folder / "%04d.png")  # another sequence beside the input: none of its files
    assert main(["fx", pattern, "-o", four, "--motion-blur", "2", "--quiet"]) == 0
    made = sorted(p.name for p in folder.iterdir() if len(p.stem) == 4)
    assert made == [f"{i:04d}.png" for i in range(1, 5)]  # numbered as the input is
    for name in made:
        (folder / name).unlink()
    depth = tmp_path / "d.npy"
    np.save(depth, np.ones((4, 8, 8), np.float32))
    assert main(["fx", pattern, "-o", str(depth), "--depth", str(depth), "--focus-distance",
                 "1", "--f-stop", "2", "--quiet"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: -o {depth} is the depth input " \
                                      f"({depth}): write the output elsewhere\n"
    assert sorted((p.name, p.read_bytes()) for p in folder.iterdir()) == before
    assert np.load(depth).shape == (4, 8, 8)


@pytest.mark.parametrize("command", ["render", "fx"])
def test_an_unwritable_output_is_one_line_before_any_work(tmp_path, rng, capsys, command):
    if command == "render":
        args = ["render", str(Path(__file__).parent / "data" / "bar.frag"), "--size", "32x8",
                "--duration", "0.1"]
    else:
        clip, _ = make_clip(tmp_path, rng, n=4)
        args = ["fx", str(clip), "--motion-blur", "2"]
    assert main([*args, "-o", "/proc/hfrender-test.mp4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: -o /proc/hfrender-test.mp4: cannot write in "
                          "/proc: ") and len(err.splitlines()) == 1


def test_workers_fuse_hyperframes_at_the_same_time(tmp_path, rng, monkeypatch):
    import threading

    clip, _ = make_clip(tmp_path, rng, n=48)
    real, lock, now, peak = fx_fusion.motion_blur, threading.Lock(), [0], [0]

    def slow(*args, **kwargs):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        time.sleep(0.05)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(fx_fusion, "motion_blur", slow)
    for workers, most in ((1, 1), (3, 3)):
        peak[0] = 0
        run_fx(str(clip), str(tmp_path / f"w{workers}" / "%03d.png"),
               FxSettings(window=4, workers=workers))
        assert (peak[0] >= 2) == (most > 1) and peak[0] <= most, (workers, peak[0])


def test_fx_refuses_another_sequences_frames_at_its_names_before_reading(tmp_path, rng,
                                                                        capsys):
    """fx into out_%d.png where out_%03d.png's frame 100 would be replaced: one line, before
    a frame is fused, the other sequence's frame as it was."""
    import imageio.v3 as iio

    from hfrender.io.writers import PngSequenceWriter

    folder = tmp_path / "in"
    folder.mkdir()
    for i, f in enumerate(rng.integers(0, 256, (3, 4, 8, 3), dtype=np.uint8), start=99):
        iio.imwrite(folder / f"{i:05d}.png", f)
    with PngSequenceWriter(str(tmp_path / "out_%03d.png"), (8, 4), start=100) as w:
        w.write(rng.integers(0, 256, (4, 8, 3), dtype=np.uint8))
    theirs = (tmp_path / "out_100.png").read_bytes()
    out = str(tmp_path / "out_%d.png")
    assert main(["fx", str(folder / "%05d.png"), "-o", out, "--motion-blur", "1",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: {tmp_path / 'out_100.png'} is a frame of another "
        "sequence (another pattern printing the same names), which hfrender does not "
        "replace: remove it, or write to another name\n")
    assert (tmp_path / "out_100.png").read_bytes() == theirs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out_100.png"]
