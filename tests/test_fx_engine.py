"""`hfrender fx` on the engine: workers, split-and-retry, --resume after kill -9 and
SIGTERM, settings checked when built, ffmpeg command lines."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from fx_helpers import decode, make_clip, read_pngs

from hfrender.cli import main
from hfrender.config import ConfigError
from hfrender.engine import fx_fusion
from hfrender.engine.fx import FxSettings, run_fx
from hfrender.io.segments import work_dir


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


SLOW_FX = """
import sys, time
import hfrender.engine.fx_output as out
import hfrender.engine.fx_fusion as fx_fusion
out.SEGMENT_SECONDS = {seconds}
real = fx_fusion.motion_blur
def slow(*args, **kwargs):
    time.sleep({sleep})
    return real(*args, **kwargs)
fx_fusion.motion_blur = slow
from hfrender.cli import main
sys.exit(main(sys.argv[1:]))
"""


def start_fx(tmp_path, args, sleep=0.05):
    script = tmp_path / "slow_fx.py"
    script.write_text(textwrap.dedent(SLOW_FX.format(seconds=0.5, sleep=sleep)))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.Popen([sys.executable, str(script), "fx", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def segments_done(out):
    manifest = work_dir(out) / "manifest.json"
    return json.loads(manifest.read_text())["segments"] if manifest.exists() else []


def wait_for(out, n, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if len(segments_done(out)) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"no {n} segments before the timeout (exit {proc.poll()})")


def test_kill_9_then_resume_gives_the_uninterrupted_video(tmp_path, rng, monkeypatch):
    clip, _ = make_clip(tmp_path, rng, n=120, audio=True)  # 15-frame segments: 8 of them
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.5)
    whole = tmp_path / "whole.mp4"
    run_fx(str(clip), str(whole), FxSettings(window=4))
    out = tmp_path / "crash.mp4"
    proc = start_fx(tmp_path, [str(clip), "-o", str(out), "--motion-blur", "4", "--quiet"])
    wait_for(out, 2, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()  # its pipes closed with it
    done = segments_done(out)
    assert 2 <= len(done) < 8 and not out.exists()
    counts = []
    stats = run_fx(str(clip), str(out), FxSettings(window=4, resume=True),
                   progress=lambda done, total: counts.append((done, total)))
    first = sum(s["count"] for s in done)
    assert stats.resumed_at == first and stats.frames_out == 120 - first  # kept: not redone
    # progress goes on from the kept frames to the whole clip (was: 0 up to 120 - first)
    assert counts[:2] == [(first, 120), (first + 1, 120)] and counts[-1] == (120, 120)
    a, b = decode(whole)[0], decode(out)[0]
    assert a.shape == b.shape == (120, 36, 64, 3)
    np.testing.assert_array_equal(a, b)  # the decoded frames of an uninterrupted run
    assert not work_dir(out).exists()
    from hfrender.io.ffmpeg import ffmpeg_exe

    streams = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(out)],
                             capture_output=True, text=True).stderr
    assert "Audio: aac" in streams  # the soundtrack joined with the segments


def test_sigterm_keeps_the_segments_and_says_how_to_resume(tmp_path, rng):
    clip, _ = make_clip(tmp_path, rng, n=120)
    out = tmp_path / "term.mp4"
    proc = start_fx(tmp_path, [str(clip), "-o", str(out), "--motion-blur", "4"])
    wait_for(out, 1, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and not out.exists()
    kept = sum(s["count"] for s in segments_done(out))
    assert kept >= 15  # (15-frame segments: the frames they hold, not "nothing was written")
    assert f"interrupted: the {kept} frames in whole segments are kept ({out} is not written " \
           "yet): continue with: hfrender fx" in err
    assert err.rstrip().endswith("--resume")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_image_sequence_resumes_to_the_uninterrupted_frames(tmp_path, rng,
                                                                          stop):
    """fx into a PNG sequence, from one numbered 1001..: Ctrl-C keeps the finished frames
    (and fuses what is queued) in NAME.partial/, kill -9 in the hidden folder; --resume goes
    on after them, and the sequence is the uninterrupted run's, file for file (was: Ctrl-C
    threw every frame away; --resume was refused)."""
    import imageio.v3 as iio

    src = tmp_path / "in"
    src.mkdir()
    for i, f in enumerate(rng.integers(0, 256, (60, 18, 32, 3), dtype=np.uint8)):
        iio.imwrite(src / f"shot.{1001 + i}.png", f)
    args = [str(src / "shot.%d.png"), "--motion-blur", "3", "--fps", "24"]
    whole = tmp_path / "whole" / "o.%d.png"
    assert main(["fx", *args, "-o", str(whole), "--quiet"]) == 0
    out = tmp_path / "seq" / "o.%d.png"
    proc = start_fx(tmp_path, [*args, "-o", str(out)], sleep=0.2)
    hidden = tmp_path / "seq" / ".o.#.png.partial"
    end = time.time() + 60
    while len(list(hidden.glob("o.*.png"))) < 10 and time.time() < end and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(stop)
    _, err = proc.communicate(timeout=60)
    kept = tmp_path / "seq" / ("o.#.png.partial" if stop == signal.SIGINT else ".o.#.png.partial")
    n = len(list(kept.glob("o.*.png")))
    assert 10 <= n < 60 and not list((tmp_path / "seq").glob("o.*.png"))
    if stop == signal.SIGINT:
        assert proc.returncode == 130
        assert f"interrupted: the {n} frames finished so far are in '{kept / 'o.%d.png'}'" in err
        assert err.rstrip().endswith(" --resume")
    stats = run_fx(str(src / "shot.%d.png"), str(out),
                   FxSettings(window=3, input_fps=24.0, resume=True))
    assert stats.resumed_at == n and stats.frames_out == 60 - n
    names = sorted(f.name for f in (tmp_path / "seq").iterdir())
    assert names == sorted(f.name for f in (tmp_path / "whole").iterdir())
    assert names[0] == "o.1001.png" and len(names) == 60
    for name in names:
        assert (tmp_path / "seq" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_a_sequence_that_cannot_be_put_in_place_keeps_its_frames(tmp_path, rng, capsys,
                                                                 monkeypatch):
    """The last step (the frames moved into the output's folder) fails: every frame made
    stays in the partial folder, said in the error line (was: all deleted). (A folder of a
    frame's name there before the run is refused first: one that comes meanwhile, here.)"""
    import imageio.v3 as iio

    import hfrender.engine.fx_checks as fx_checks

    monkeypatch.setattr(fx_checks, "check_work_names", lambda *a: None)
    src = tmp_path / "in"
    src.mkdir()
    for i, f in enumerate(rng.integers(0, 256, (6, 8, 16, 3), dtype=np.uint8)):
        iio.imwrite(src / f"{i:04d}.png", f)
    (tmp_path / "o" / "0003.png").mkdir(parents=True)  # a folder of a frame's name
    out = tmp_path / "o" / "%04d.png"
    assert main(["fx", str(src / "%04d.png"), "-o", str(out), "--motion-blur", "2",
                 "--quiet"]) == 1
    kept = tmp_path / "o" / "####.png.partial"
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: cannot put {tmp_path / 'o' / '0003.png'} in "
                          "place: Is a directory")
    assert err.endswith(f"; the 6 frames finished so far are in '{kept / '%04d.png'}' ({out} "
                        "is untouched)\n")
    assert sorted(f.name for f in kept.glob("*.png")) == [f"{i:04d}.png" for i in range(6)]


def test_resume_without_an_interrupted_run_is_one_line(tmp_path, rng, capsys, monkeypatch):
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.1)
    clip, _ = make_clip(tmp_path, rng, n=10)
    assert main(["fx", str(clip), "-o", str(tmp_path / "n.mp4"), "--motion-blur", "2",
                 "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: --resume: nothing to resume for") and \
        err.rstrip().endswith("run without --resume")


def test_resume_refuses_what_cannot_be_resumed(tmp_path, rng, capsys):
    clip, _ = make_clip(tmp_path, rng, n=10)
    assert main(["fx", str(clip), "-o", str(tmp_path / "x" / "%03d.png"), "--motion-blur",
                 "2", "--resume", "--quiet"]) == 2
    assert "--resume: nothing to resume for " in capsys.readouterr().err
    assert main(["fx", str(clip), "-o", str(tmp_path / "x.gif"), "--motion-blur", "2",
                 "--resume", "--quiet"]) == 2
    assert "(a GIF's palette is made whole); run it again" in capsys.readouterr().err
    assert main(["fx", str(clip), "-o", str(tmp_path / "x.ts"), "--motion-blur", "2",
                 "--resume", "--quiet"]) == 2  # was: "(a GIF's palette is made whole)"
    assert ("(a .ts video is written in one piece; .mp4, .mov, .mkv and .webm are written in "
            "segments that resume); run it again") in capsys.readouterr().err
    assert main(["fx", str(clip), "-o", str(tmp_path / "n.mp4"), "--motion-blur", "2",
                 "--resume", "--quiet"]) == 2
    assert "(a clip of up to 10 s is written in one piece); run it again" in \
        capsys.readouterr().err
    import imageio.v3 as iio  # an image sequence into a video (it said "a GIF's palette")

    (tmp_path / "seq").mkdir()
    for i in range(3):
        iio.imwrite(tmp_path / "seq" / f"{i:04d}.png", rng.integers(0, 256, (8, 8, 3), np.uint8))
    assert main(["fx", str(tmp_path / "seq"), "-o", str(tmp_path / "s.webm"), "--motion-blur",
                 "2", "--resume", "--quiet"]) == 2
    assert "(a video from an image sequence is written in one piece; frames (out/%05d.png) " \
        "can be resumed); run it again" in capsys.readouterr().err
    out = tmp_path / "c.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert len(decode(out)[0]) == 10 and not work_dir(out).exists()
    for name in ("c.mp4", "x.gif"):  # finished, written whole (was: "cannot be resumed (a
        done = tmp_path / name       # clip of up to 10 s is written in one piece)", as if
        if not done.exists():        # half made, whatever the input)
            assert main(["fx", str(clip), "-o", str(done), "--motion-blur", "2",
                         "--quiet"]) == 0
        kept = done.read_bytes()
        assert main(["fx", str(clip), "-o", str(done), "--motion-blur", "3", "--resume",
                     "--quiet"]) == 2
        assert capsys.readouterr().err == (
            f"hfrender: error: --resume: nothing to resume for {done} ({done} is there, and "
            "no run of it was interrupted); run without --resume to make it again\n")
        assert done.read_bytes() == kept


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


def test_a_resumed_output_compares_the_alpha_its_encoder_keeps(tmp_path, rng):
    """RGBA footage into .webm keeps its alpha (yuva420p); with --pix-fmt yuv420p it does
    not: a resume must tell the two apart (the encoder's settings compared with alpha
    left out took them as one, and the joined video lost its alpha after the first
    segment: a review), and tell --pix-fmt yuva420p from the default it is."""
    import imageio.v3 as iio

    from hfrender.engine.fx import FxJob

    (tmp_path / "in").mkdir()
    for i in range(4):
        iio.imwrite(tmp_path / "in" / f"{i:04d}.png",
                    rng.integers(0, 256, (16, 24, 4), dtype=np.uint8))
    out = str(tmp_path / "o.webm")

    def settings(**given):
        job = FxJob(str(tmp_path / "in"), out, FxSettings(window=2, **given)).prepare()
        try:
            return job.out.settings()
        finally:
            job.out.abandon()  # (its ffmpeg, started: was left running to the tests' end,
            job.footage.close()  # three "unclosed file <_io.BufferedWriter>" warnings)

    kept, dropped, named = (settings(), settings(pix_fmt="yuv420p"),
                            settings(pix_fmt="yuva420p"))
    assert kept["pix_fmt"] == "yuva420p" and dropped["pix_fmt"] == "yuv420p"
    assert kept == named and kept != dropped


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
