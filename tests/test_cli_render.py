"""`hfrender render` and `hfrender still` from the command line: outputs and what the
summary says (errors: test_cli_render_errors.py; --preview: test_cli_render_preview.py)."""

import re
import subprocess
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest
from cli_render_helpers import BAR, video_info
from render_helpers import render_frames

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["clip.mp4", "clip.webm", "clip.gif", "clip.mkv"])
def test_video_formats_have_exact_size_and_frame_count(tmp_path, name, capsys):
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), "--size", "150x86", "--duration", "0.3",
                 "--samples", "2", "--quiet"]) == 0
    assert video_info(out) == ((150, 86), 9)  # not rounded up to multiples of 16


def test_png_sequence_is_lossless(tmp_path):
    import imageio.v3 as iio

    pattern = tmp_path / "frames" / "%04d.png"
    assert main(["render", BAR, "-o", str(pattern), "--size", "64x16", "--duration", "0.1",
                 "--samples", "4", "--quiet"]) == 0
    files = sorted((tmp_path / "frames").iterdir())
    assert [f.name for f in files] == ["0000.png", "0001.png", "0002.png"]
    # the very frames the render made, bit for bit
    frames, _ = render_frames(BAR, size=(64, 16), duration=0.1, samples=4)
    assert frames.shape == (3, 16, 64, 3) and frames.max() > 100  # the streak is in them
    for f, frame in zip(files, frames, strict=True):
        np.testing.assert_array_equal(iio.imread(f), frame)


@pytest.mark.parametrize("granularity, keys", [
    (12, [0, 30]),  # 4 samples a frame: 3 frames a hyperframe, 10 of them a second
    (28, [0, 35]),  # 7 frames a hyperframe: 5 of them, the whole ones nearest past a second
])
def test_gop_is_whole_hyperframes_about_a_second(tmp_path, granularity, keys):
    """Keyframes fall on hyperframe boundaries, one a segment of about a second (was: one
    every hyperframe: an all-keyframe video, 4.4x the bytes, at a small granularity)."""
    out = tmp_path / "gop.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "1.4",
                 "--samples", "4", "--granularity", str(granularity), "--quiet"]) == 0
    log = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(out), "-vf", "showinfo",
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    found = [int(m.group(1)) for m in re.finditer(r"n:\s*(\d+) .*?iskey:1", log)]
    assert found == keys


def test_render_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "a.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "0.2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("wrote ") and text.count("\n") == 1  # no bar's blank line first
    assert re.search(r"wrote .*a\.mp4: 6 frames 64x16 at 30 fps, 8 samples over 180 "
                     r"degrees, dof off; "
                     r"rendered in [\d.]+ s \([\d.]+ frames/s\) on llvmpipe", text), text
    # reconstruction asked of a shader: said why it is plain (auto on the CPU asks none)
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "0.2",
                 "--reconstruct", "on"]) == 0
    assert re.search(r"wrote .*a\.mp4: 6 frames 64x16 at 30 fps, 8 samples over 180 "
                     r"degrees \(plain: a shader "
                     r"has no velocity to reconstruct the motion from\), dof off; ",
                     capsys.readouterr().out)


def test_the_summary_counts_the_samples_drawn(tmp_path, capsys):
    """A shutter past 360 degrees draws windows on a shared grid: the summary gives the
    samples drawn and the count asked, once; one sample is "1 sample"."""
    out = str(tmp_path / "s.mp4")
    assert main(["render", BAR, "-o", out, "--size", "32x8", "--duration", "0.2",
                 "--shutter", "400", "--samples", "32"]) == 0
    said = capsys.readouterr().out
    assert "30 samples (32 asked: shutter 400 degrees on a shared grid)" in said
    assert said.count("samples") == 1
    assert main(["render", BAR, "-o", out, "--size", "32x8", "--duration", "0.2",
                 "--samples", "1"]) == 0
    assert "at 30 fps, 1 sample (no motion blur), dof off;" in capsys.readouterr().out
    # the shutter's position and curve where not centred and box (a still said neither)
    assert main(["still", BAR, "-o", str(tmp_path / "s.png"), "--size", "32x8", "--samples",
                 "4", "--shutter-position", "end", "--shutter-curve", "triangle"]) == 0
    assert capsys.readouterr().out.endswith(
        ": frame 0 (t=0.000 s), 4 samples over 180 degrees, closing at the frame's time, "
        "triangle curve, dof off\n")
    # one sample is drawn at the shutter's middle: half a shutter off the frame's time
    # where the shutter opens or closes at it (was: unsaid, an audit); 90 degrees at 30 fps
    for position, side, opens in (("start", "after", "opening"), ("end", "before", "closing")):
        assert main(["still", BAR, "-o", str(tmp_path / "s.png"), "--size", "32x8",
                     "--samples", "1", "--shutter", "90", "--shutter-position",
                     position]) == 0
        assert capsys.readouterr().out.endswith(
            f": frame 0 (t=0.000 s), 1 sample (no motion blur), drawn 0.004167 s {side} the "
            f"frame's time (the middle of a shutter {opens} at it), dof off\n")


def test_one_reconstructed_sample_is_said_to_blur():
    """One sample reconstructed streaks over the whole shutter: the summary said "1 sample
    (no motion blur)" of a blurred frame, and left the reconstruction out (a trial)."""
    from hfrender.cli.commands import samples_said
    from hfrender.config import RenderConfig
    from hfrender.engine.render_stats import RenderStats

    config = RenderConfig(output="o.mp4", samples=1, reconstruct="on")
    stats = RenderStats(output="o.mp4", frames_written=1, backend="cpu", reconstruct=True)
    assert samples_said(config, stats) == "1 sample over 180 degrees + reconstruction"
    plain = RenderStats(output="o.mp4", frames_written=1, backend="cpu")
    assert samples_said(config.with_(reconstruct="off"), plain) == "1 sample (no motion blur)"


def test_quality_presets(tmp_path):
    out = tmp_path / "q.mp4"
    assert main(["render", BAR, "-o", str(out), "-ql", "--duration", "0.2", "--samples", "1",
                 "--quiet"]) == 0
    assert video_info(out) == ((854, 480), 3)  # 480p at 15 fps


def test_info_lists_gl_contexts(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"gl egl: .*OpenGL [34]\.\d", out)
    assert re.search(r"gl egl: .*; msaa up to \d+ samples, auto [124]\n", out)
    if "gl egl: llvmpipe" in out:  # a software rasteriser shades every sample: auto is 1
        assert re.search(r"gl egl: llvmpipe .*, auto 1\n", out)
    assert "gl glfw: " in out
    assert re.search(r"ffmpeg: .* encoders, among them: libx264", out)


def test_ffmpeg_failure_is_an_error_not_a_success(tmp_path, capsys, monkeypatch):
    import hfrender.engine.settings

    # past the check that the encoder starts: the failure while writing is on trial
    monkeypatch.setattr(hfrender.engine.settings, "check_encoder", lambda *a, **k: None)
    out = tmp_path / "nv.mp4"  # NVENC needs an NVIDIA driver: ffmpeg cannot open it here
    code = main(["render", BAR, "-o", str(out), "--codec", "h264_nvenc", "--size", "64x16",
                 "--duration", "0.3"])
    captured = capsys.readouterr()
    assert code == 1 and "wrote" not in captured.out
    assert re.fullmatch(r"hfrender: error: ffmpeg (stopped writing|could not finish) .*\n",
                        captured.err), captured.err
    assert not out.exists()


def test_png_sequence_replaces_an_older_render_and_reports_write_errors(tmp_path, capsys,
                                                                       caplog, monkeypatch):
    """A shorter render replaces a longer one's frames, all of them: the ones past its
    end go too. A file of the pattern that hfrender did not write (the user's own 025.png)
    stays, with a warning, and so does every other file."""
    folder = tmp_path / "seq"
    args = ["render", BAR, "-o", str(folder / "%03d.png"), "--size", "32x8", "--samples",
            "1", "--quiet"]
    assert main([*args, "--duration", "1"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [f"{i:03d}.png" for i in range(30)]
    (folder / "025.png").write_bytes(b"mine")  # the user's own frame
    (folder / "notes.txt").write_text("keep me")
    with caplog.at_level("WARNING", logger="hfrender.io"):
        assert main([*args, "--duration", "0.2"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [f"{i:03d}.png" for i in range(6)] + [
        "025.png", "notes.txt"]
    assert (folder / "025.png").read_bytes() == b"mine"
    assert [r.getMessage() for r in caplog.records] == [
        f"{folder}: 23 frames of an older render of the pattern that this one does not write "
        "(006.png .. 029.png) are removed",  # (not 025.png, the user's)
        f"{folder} holds 1 file of the output's pattern without hfrender's mark (the "
        "user's own, or an hfrender's from before it marked its frames: 025.png): kept "
        "beside this render's frames"]
    (folder / "025.png").unlink()
    (folder / "003.png").unlink()
    (folder / "003.png").mkdir()  # a folder where a frame must go: refused first, and
    run = ["render", BAR, "-o", str(folder / "%03d.png"), "--size", "32x8", "--duration",
           "0.2", "--samples", "1", "--quiet"]
    assert main(run) == 2 and "003.png is a folder, where a frame of the sequence would " \
        "go" in capsys.readouterr().err
    import hfrender.io.work_names as names  # where one comes while it renders, the write

    monkeypatch.setattr(names, "check_work_names", lambda *a: None)  # fails then
    assert main(run) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: cannot put .*seq/003\.png in place: Is a "
                        r"directory; the 6 frames finished so far are in '.*seq/###\.png\.partial/"
                        r"%03d\.png' \(.*seq/%03d\.png is untouched\)\n", err), err
    assert sorted(p.name for p in folder.iterdir()) == ["###.png.partial"] + [
        f"{i:03d}.png" for i in range(6)] + ["notes.txt"]  # nothing moved, nothing removed
    assert not any(p.name.endswith(".part") for p in folder.iterdir())


def test_a_sequence_of_another_width_beside_the_output_is_not_an_older_render(tmp_path,
                                                                              caplog):
    """-o seq/%03d.png replaces hfrender's 000.png..., and only those: 0000.png... (a %04d
    sequence, hfrender's too) and 00.png are other files, 1000.png is what %03d writes for
    frame 1000 (an older render's, removed), and the user's own 001.png and 009.png
    (not hfrender's: no mark) are kept; one at a name the render writes (001.png) was
    replaced by its frame, said after (a batch user's trial): the render is refused before
    any work now."""
    from hfrender.io.images import write_png8

    folder = tmp_path / "seq"
    folder.mkdir()
    theirs = [f"{i:04d}.png" for i in range(8)] + ["00.png", "7.png"]
    pixel = np.zeros((1, 1, 3), np.uint8)
    for name in theirs + ["1000.png", "005.png"]:
        write_png8(folder / name, pixel)  # hfrender's (marked)
    for name in ("001.png", "009.png"):
        (folder / name).write_bytes(b"mine")
    render = ["render", BAR, "-o", str(folder / "%03d.png"), "--size", "32x8", "--duration",
              "0.1", "--samples", "1", "--quiet"]
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(render) == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    (folder / "001.png").rename(tmp_path / "001.png")  # the user moves theirs away
    with caplog.at_level("WARNING", logger="hfrender.io.outputs"):
        assert main(render) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{folder}: 2 frames of an older render of the pattern that this one does not write "
        "(005.png .. 1000.png) are removed",
        f"{folder} holds 1 file of the output's pattern without hfrender's mark (the "
        "user's own, or an hfrender's from before it marked its frames: 009.png): kept "
        "beside this render's frames"]
    ours = [f"{i:03d}.png" for i in range(3)]
    assert sorted(p.name for p in folder.iterdir()) == sorted(theirs + ours + ["009.png"])
    assert all(iio.imread(folder / name).shape == (1, 1, 3) for name in theirs)
    assert iio.imread(folder / "001.png").shape == (8, 32, 3)  # a frame of its name
    assert (folder / "009.png").read_bytes() == b"mine"


def test_ffv1_takes_an_odd_size(tmp_path):
    """FFV1 (lossless) encodes any size in 4:2:0, as the footage a trial gave it was: it
    was refused as needing an even width and height."""
    import imageio.v3 as iio

    out = tmp_path / "odd.mkv"
    assert main(["render", BAR, "-o", str(out), "--size", "33x9", "--samples", "1",
                 "--duration", "0.1", "--codec", "ffv1", "--quiet"]) == 0
    assert iio.imread(out, index=0).shape == (9, 33, 3)


@pytest.mark.parametrize("fps, past", [(60, False), (200, True)])
def test_a_fast_gif_is_said_to_play_slower_and_why(tmp_path, caplog, fps, past):
    """Over 100 fps a GIF cannot even say its delays (whole hundredths of a second): a
    200 fps GIF of 0.1 s played 0.2 s, said only as browsers' 20 ms floor (a trial)."""
    with caplog.at_level("WARNING"):
        assert main(["render", BAR, "-o", str(tmp_path / "g.gif"), "--size", "16x8", "--fps",
                     str(fps), "--duration", "0.1", "--samples", "1", "--quiet"]) == 0
    also = (" (and a GIF's delays are whole hundredths of a second: none is shorter than "
            "10 ms)") if past else ""
    assert [r.getMessage() for r in caplog.records] == [
        f"a GIF at {fps} fps: browsers show its frames shorter than 20 ms for 100 ms{also}: "
        "the clip plays slower; --fps 50 or less keeps its speed"]


@pytest.mark.parametrize("fps, said", [(30.84, "30.8 frames/s"), (1.0, "1.0 frames/s"),
                                       (1 / 127.7, "127.7 s a frame"), (0.0, "no frame made"),
                                       (None, "no frame made")])
def test_a_summarys_speed_says_seconds_a_frame_below_one_a_second(fps, said):
    """A 4K frame of 127.7 s was "(0.0 frames/s)" (a long/large-render trial)."""
    from hfrender.cli.common import per_frame

    assert per_frame(fps) == said


def test_verbose_says_the_pool_and_where_the_fusion_runs(tmp_path, caplog):
    """-v logged the backend alone: not the pool, nor why no fusion process ran (a
    long/large-render trial)."""
    with caplog.at_level("INFO", logger="hfrender"):
        assert main(["render", BAR, "-o", str(tmp_path / "v.mp4"), "--size", "32x8",
                     "--duration", "0.2", "--samples", "2", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if r.name == "hfrender.engine.render_setup"]
    pool = [m for m in said if m.startswith("hyperframe pool: ")]
    # 2 sub-frames an output frame: 64 a hyperframe (builder.DEFAULT_CAP, memory plentiful),
    # 3 slots (max_in_flight 2) of 64 x 32 x 8 x 4 B = 65,536 B (16 whole pages): 196,608 B,
    # in decimal units whole from 100 KB up (was: any figure in B, KB or MB)
    assert pool == ["hyperframe pool: 64 sub-frames a hyperframe, 197 KB in all"], said
    assert "fusion in this process: --fusion-process auto takes processes for --dof depth or " \
        "reconstruction" in said


def test_stats_say_the_peak_memory(tmp_path, capsys):
    """--stats had no peak memory (a long/large-render trial: what to give a machine):
    this process's, as the system counts it (not its children's: a child started by fork
    and exec keeps the parent's figure, a review)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # KiB on Linux
    assert main(["render", BAR, "-o", str(tmp_path / "a.mp4"), "--size", "64x16",
                 "--duration", "0.2", "--stats"]) == 0
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
    said = re.search(r"^peak memory \(resident\) of this process: ([\d.]+) (MB|GB) \(its "
                     r"fusion processes and ffmpeg not counted\)$", capsys.readouterr().out, re.M)
    assert said, "no peak memory line"
    mb = float(said.group(1)) * {"MB": 1, "GB": 1000}[said.group(2)]  # 3 figures at most
    assert before * 0.995 - 0.1 <= mb <= after * 1.005 + 0.1 and mb > 20
