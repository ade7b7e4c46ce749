"""`hfrender fx` stopped and resumed: kill -9 then --resume gives the uninterrupted video,
SIGTERM keeps the segments and says how to resume, an image sequence resumes to the
uninterrupted frames (or keeps them where it cannot put them in place), and what --resume
refuses in one line."""

import signal
import subprocess
import time

import numpy as np
import pytest
from fx_engine_helpers import segments_done, start_fx, wait_for
from fx_helpers import decode, make_clip

from hfrender.cli import main
from hfrender.engine.fx import FxSettings, run_fx
from hfrender.io.segments import work_dir


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
