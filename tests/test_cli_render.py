"""`hfrender render` and `hfrender still` from the command line: outputs and errors."""

import re
import subprocess
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.cli import main

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test
DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")
ROOT = Path(__file__).resolve().parents[1]


def video_info(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    frames = [np.frombuffer(f, np.uint8) for f in reader]
    return meta["size"], len(frames)


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


SEVERAL = "import hfrender as hf\nclass A(hf.Scene):\n    pass\nclass B(hf.Scene):\n    pass\n"


@pytest.mark.parametrize("args, message", [
    (["render", "missing.py"], r"scene file not found: missing.py"),
    # a folder that is there (was: "scene file not found"): its scene files named
    (["render", "{tmp}"], r"hfrender: error: .+ is a folder, not a scene file: name the "
                          r"scene's file \(in it: empty\.py, several\.py\)$"),
    (["still", "{tmp}", "-o", "{tmp}/s.png"], r"is a folder, not a scene file: name the "),
    (["render", "{empty}"],
     r"empty.py: no Scene subclass found \(write `class MyScene\(hf.Scene\):`\)"),
    (["render", "{several}"], r"several.py has several scenes \(A, B\); choose one with -s NAME"),
    (["render", "{several}", "-s", "C"], r"-s C: no Scene of that name in .+several.py; found "
     r"A, B"),
    (["render", "{several}", "-s", "a"], r"-s a: no Scene of that name in .+several.py; did you "
     r"mean A\?$"),
    (["render", "{several}", "-s", "320x180"], r"-s 320x180: -s names the scene class; the "
     r"size is --size 320x180$"),  # ffmpeg's -s (was: no Scene named '320x180')
    (["render", BAR, "-s", "320:180"], r"-s 320:180: -s names the scene class; the size is "
     r"--size 320x180$"),  # (was: "bar.frag is a shader file, it has no scene classes")
    # each flag named as typed (were fps=0.0, fps=-5.0, samples_range=(16, 4), a trial)
    (["render", BAR, "--fps", "0"], r"error: --fps 0 must be a finite number >= 0.001 and "
     r"<= 1000$"),
    (["render", BAR, "--fps", "-5"], r"error: --fps -5 must be a finite number >= 0.001 and "
     r"<= 1000$"),
    (["render", BAR, "--samples", "0"], r"error: --samples 0 must be an integer from 1 to 4096 "
     r"or 'auto'$"),
    (["render", BAR, "--duration", "inf"], r"error: --duration inf must be a finite number > 0$"),
    (["render", BAR, "--samples", "auto", "--samples-range", "16:4"], r"error: --samples-range "
     r"16:4 must be MIN:MAX with 1 <= MIN <= MAX <= 4096$"),
    (["render", BAR, "--seed=-1"], r"error: --seed -1 must be an integer from 0 to "
     r"9223372036854775807$"),
    # a negative number argparse does not take for one (-inf, -1e3): the setting's line (was
    # "argument --shutter: expected one argument", the value and what is allowed unsaid)
    (["render", BAR, "--shutter", "-inf"], r"error: --shutter -inf must be a finite number > 0 "
     r"and <= 5760$"),
    (["render", BAR, "--duration", "-1e3"], r"error: --duration -1e3 must be a finite number > "
     r"0$"),
    # was "duration=1e+12 s at 30 fps ...": the keyword, the number not as typed
    (["render", BAR, "--duration", "1000000000000"], r"error: --duration 1000000000000 s at 30 "
     r"fps is 30,000,000,000,000 frames; hfrender renders at most 10,000,000 in one output "
     r"\(lower --duration or --fps, or render it in parts\)$"),
    (["still", BAR, "-o", "{tmp}/s.png", "--duration", "1e12"], r"error: --duration 1e12 s at "
     r"30 fps is 30,000,000,000,000 frames"),
    (["render", BAR, "--audio-offset", "-nan"], r"error: --audio-offset -nan must be a finite "
     r"number of seconds"),
    # a value that is empty or holds a space quoted as a shell takes it (was "--codec  must
    # be ...", the value unseen; "--samples a b must be ...")
    (["render", BAR, "--codec", ""], r"error: --codec '' must be an ffmpeg encoder's name, "
     r"such as libx264$"),
    (["render", BAR, "--samples", "a b"], r"error: --samples 'a b' must be an integer from 1 "
     r"to 4096 or 'auto'$"),
    # was: "... give --samples 1", to a user who had (the shutter is what to leave)
    (["render", BAR, "--shutter", "0", "--samples", "1"], r"--shutter 0: for no motion blur "
     r"\(an instant shutter\) leave the shutter as it is and give --samples 1 \(one "
     r"sub-frame a frame, at the shutter's middle: the frame's time with the default "
     r"--shutter-position center\); a shutter is > 0 and <= 5760 degrees$"),
    (["render", BAR, "--size", "640by360"], r"--size 640by360 must be WIDTHxHEIGHT, e.g. 640x360"),
    (["render", BAR, "--size", "641x360"], r"size 641x360: libx264 video in yuv420p needs an even "
                                           r"width and height; use 640x360"),
    (["render", BAR, "--codec", "zzz"], r"--codec zzz: this ffmpeg has no such encoder "
     r"\(hfrender info -v lists its video encoders\)$"),  # was: "info lists them" (7 of 230)
    (["render", BAR, "--codec", "libx246"], r"--codec libx246: this ffmpeg has no such encoder "
     r"\(did you mean libx26[45]\? hfrender info -v lists its video encoders\)$"),
    (["render", BAR, "-o", "{tmp}/x.gif", "--codec", "libx264"], r"--codec libx264: -o .*x\.gif "
     r"cannot hold it \(ffmpeg: gif muxer supports only codec gif for type video\)$"),
    (["render", BAR, "-o", "{tmp}/x.mov", "--codec", "libvpx-vp9"], r"--codec libvpx-vp9: -o "
     r".*x\.mov cannot hold it \(ffmpeg: vp9 only supported in MP4\.\)$"),
    (["render", BAR, "-o", "{tmp}/x.mp4", "--codec", "prores_ks"], r"--codec prores_ks: -o "
     r".*x\.mp4 cannot hold it \(ffmpeg: Could not find tag for codec prores in stream #0"),
    # MPEG-TS muxed these as private data without an error: a .ts with no video in it
    (["render", BAR, "-o", "{tmp}/x.ts", "--codec", "prores_ks"], r"--codec prores_ks: -o "
     r".*x\.ts cannot hold it \(ffmpeg: Stream 0, codec prores, is muxed as a private data "
     r"stream"),
    (["render", BAR, "-o", "{tmp}/x.ts", "--codec", "libvpx-vp9"], r"--codec libvpx-vp9: -o "
     r".*x\.ts cannot hold it \(ffmpeg: .*codec vp9, is muxed as a private data stream"),
    # was: a .mkv or .mov with no video, said written; into .mp4 a failed join after the render
    (["render", BAR, "-o", "{tmp}/x.mkv", "--codec", "gif"], r"--codec gif: -o .*x\.mkv cannot "
     r"hold it \(a GIF is written as \.gif: -o .*x\.gif\)$"),
    (["render", BAR, "-o", "{tmp}/x.mp4", "--codec", "gif"], r"--codec gif: -o .*x\.mp4 cannot "
     r"hold it \(a GIF is written as \.gif"),
    (["render", BAR, "-o", "{tmp}/x.gif", "--bit-depth", "16"], r"--bit-depth 16: -o .*x\.gif "
     r"is a GIF: 8 bits, a palette of 256 colours; --bit-depth is for PNG \(8, 16\) and EXR "
     r"\(16, 32\) outputs$"),  # was: "is a video ... (e.g. --pix-fmt yuv420p10le)", refused
    (["render", BAR, "-o", "{tmp}/x.gif", "--codec", "png"], r"--codec png: -o .*x\.gif cannot "
     r"hold it \(a \.gif holds the gif encoder's frames alone: leave --codec out\)$"),
    (["render", BAR, "-o", "{tmp}/x.avi"], r"unknown output type '.avi'; use .* like "
     r"frames/%05d\.png$"),
    (["render", BAR, "-o", "{tmp}/x.png"], r"unknown output type '.png'; use .*\.ts or a PNG "
     r"or EXR pattern like frames/%05d\.png \(one picture: hfrender still\)$"),
    (["render", BAR, "-o", "{tmp}/f/%05x.png"], r"-o .*/f/%05x\.png: %05x is no frame-number "
     r"field; an image sequence is named with one such as %05d \(frames/%05d\.png\)$"),
    (["render", BAR, "-o", "{tmp}"], r"-o .+ is a folder; for frames in it, give a pattern: "
                                     r".+/%05d\.png$"),
    (["render", BAR, "--dof", "lens"], r"--dof lens: bar.frag is a shader scene without a camera"),
    (["render", BAR, "--granularity", "many"], r"--granularity many must be 'auto' or an integer"),
    (["still", BAR, "-o", "{tmp}/s.png", "--bit-depth", "32"], r"--bit-depth 32: PNG frames "
     r"are 8 or 16 bits$"),
    (["render", BAR, "-o", "{tmp}/x.ts", "--resume"], r"--resume: .*x\.ts cannot be resumed "
     r"\(a \.ts video is written in one piece; \.mp4, \.mov, \.mkv and \.webm are written in "
     r"segments that resume\); render it again$"),  # was: "(a GIF's palette is made whole)"
    # was: rendered, then "cannot write st/c%04d.png"; #### wrote a file named so
    (["still", BAR, "-o", "{tmp}/c%04d.png"], r"-o .*/c%04d\.png: a still is one picture, not "
     r"a sequence's pattern; name the file, or render the frame into the sequence: hfrender "
     r"render FILE --frames N:N\+1 -o .*/c%04d\.png$"),
    (["still", BAR, "-o", "{tmp}/####.exr"], r"-o .*/####\.exr: a still is one picture"),
    (["still", BAR, "-o", "{tmp}/s.jpg"], r"-o .*s\.jpg: a still is written as PNG \(8 or 16 "
     r"bits: --bit-depth\) or EXR \(linear light\)$"),
    (["render", BAR, "--dof", "depth", "--max-coc-px", "1.5"], r"--max-coc-px 1.5 blurs nothing: "
     r"under 2 px across a circle of confusion leaves every pixel as it is \(a pixel's disk is "
     r"whole pixels\); give at least 2, or no depth of field$"),
    (["render", BAR, "--dof", "depth", "--max-coc-px=-5"], r"--max-coc-px -5 blurs nothing: "
     r"under 2 px"),  # as fx says it (was: "must be a finite number > 0", beside 1.5's line)
    (["render", BAR, "--max-coc-px", "1.5"], r"--max-coc-px applies only with --dof depth "
     r"\(the depth of field from each sub-frame's depth\); --dof is auto"),
    (["render", BAR, "--max-coc-px", "4"], r"--max-coc-px applies only with --dof depth \(the "
     r"depth of field from each sub-frame's depth\); --dof is auto: give --dof depth, or leave "
     r"it out$"),
    (["still", BAR, "-o", "{tmp}/s.png", "--dof", "off", "--dof-method", "exact", "--max-coc-px",
      "4"],
     r"--dof-method and --max-coc-px apply only with --dof depth .*; --dof is off: give --dof "
     r"depth, or leave them out$"),
    (["render", BAR, "--samples-range", "16:64"], r"--samples-range 16:64 applies only with "
     r"--samples auto \(a count per frame from its motion\); --samples is 8: give --samples "
     r"auto, or leave --samples-range out$"),  # (was: ignored without a word)
    (["still", BAR, "-o", "{tmp}/s.png", "--samples", "4", "--samples-range", "2:6"],
     r"--samples-range 2:6 applies only with --samples auto .*; --samples is 4: "),
])
def test_cli_errors_are_one_line_and_leave_nothing(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.py").write_text("x = 1\n")
    (tmp_path / "several.py").write_text(SEVERAL)
    args = [a.format(empty=tmp_path / "empty.py", several=tmp_path / "several.py", tmp=tmp_path)
            for a in args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "out.mp4")]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("hfrender: error: "), err
    assert re.search(message, err), err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.py", "several.py"]


def test_runtime_failure_exits_1_with_the_scene_line(tmp_path, capsys):
    scene = tmp_path / "boom.py"
    scene.write_text("import hfrender as hf\nclass Boom(hf.Scene):\n    def update(self, t):\n"
                     "        raise RuntimeError('nope')\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "b.mp4"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: scene error in update\(t\) at t=0 s "
                        rf"\(output frame 0\): RuntimeError: nope \({scene}:4\)\n", err)
    assert not (tmp_path / "b.mp4").exists()  # no empty video left behind


def test_info_lists_gl_contexts(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"gl egl: .*OpenGL [34]\.\d", out)
    assert re.search(r"gl egl: .*; msaa up to \d+ samples, auto [124]\n", out)
    if "gl egl: llvmpipe" in out:  # a software rasteriser shades every sample: auto is 1
        assert re.search(r"gl egl: llvmpipe .*, auto 1\n", out)
    assert "gl glfw: " in out
    assert re.search(r"ffmpeg: .* encoders, among them: libx264", out)


@pytest.fixture
def x_display(monkeypatch):
    """A virtual X display (Xvfb, installed by `bash dev.sh test`), accepting clients by the
    time it is yielded: Xvfb picks a free display number itself and writes it to -displayfd
    once it is ready (no guessed numbers, no sleep that a loaded machine outlasts)."""
    import os
    import shutil

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (bash dev.sh test installs it)")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "640x480x24",
                             "-nolisten", "tcp"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as ready:
        number = ready.readline().strip()  # blocks until the server is up; "" if it died
    if not number.isdigit():
        proc.kill()
        proc.wait(5)
        pytest.fail(f"Xvfb did not start (exit status {proc.returncode})")
    monkeypatch.setenv("DISPLAY", f":{number}")
    yield f":{number}"
    proc.terminate()
    proc.wait(5)


def test_preview_draws_the_newest_offered_frame(x_display, gl_context, monkeypatch):
    import threading

    import glfw

    from hfrender.renderer.preview import Preview

    glctx = gl_context("glfw", size=(8, 4), visible=True)
    ctx = glctx.ctx
    copy = ctx.simple_framebuffer((8, 4), components=3)
    on_screen = []  # the window's pixels as each frame is presented, rows top-down
    real_swap = glfw.swap_buffers

    def swap(window):  # (ctx.screen.read() itself sets GL_INVALID_OPERATION on a window)
        ctx.copy_framebuffer(copy, ctx.screen)
        on_screen.append(np.frombuffer(copy.read(components=3), np.uint8).reshape(4, 8, 3))
        on_screen[-1] = on_screen[-1][::-1]
        real_swap(window)

    monkeypatch.setattr(glfw, "swap_buffers", swap)
    preview = Preview(glctx, (8, 4))
    try:
        assert preview.show() and preview.shown == 0 and on_screen == []  # nothing offered
        old = np.full((4, 8, 3), 10, np.uint8)
        new = np.arange(96, dtype=np.uint8).reshape(4, 8, 3) * 2
        preview.offer(old)
        preview.offer(new)  # the latest wins
        want, new[:] = new.copy(), 0  # offer copied it: the caller's buffer may be reused
        assert preview.show() and preview.shown == 1
        np.testing.assert_array_equal(on_screen[-1], want)
        assert preview.show() and preview.shown == 1  # each offer is drawn once
        other = threading.Thread(target=preview.offer, args=(old,))  # the writer's thread
        other.start()
        other.join()
        assert preview.show() and preview.shown == 2
        np.testing.assert_array_equal(on_screen[-1], old)
        glfw.set_window_should_close(glctx.window, True)  # the user closed the window
        preview.offer(want)
        assert not preview.show() and preview.shown == 2 and len(on_screen) == 2
    finally:
        preview.release()
        copy.release()
        glctx.release()  # before the display goes


def test_preview_window_is_offered_every_frame_and_shows_the_last(tmp_path, x_display, capsys,
                                                                   monkeypatch):
    """Frames reach the preview from the writer's thread after ffmpeg took them, and the
    render thread draws the newest between sub-frames: how many it catches while drawing
    depends on the machine (a tiny render can finish drawing before ffmpeg takes the first
    frame). What does not: every frame is offered, the window is looked at between every
    two sub-frames, and the last frame stays on screen."""
    from hfrender.renderer.preview import Preview

    offered, drawn, looks = [], [], []
    real_offer, real_show = Preview.offer, Preview.show

    def offer(self, frame):
        offered.append(np.array(frame))
        real_offer(self, frame)

    def show(self):
        looks.append(self.shown)
        ok = real_show(self)
        if self.shown > looks[-1]:
            drawn.append(np.frombuffer(self.texture.read(), np.uint8).reshape(32, 96, 3))
        return ok

    monkeypatch.setattr(Preview, "offer", offer)
    monkeypatch.setattr(Preview, "show", show)
    out = tmp_path / "p.mp4"
    assert main(["render", BAR, "-o", str(out), "--preview", "--size", "96x32",
                 "--duration", "0.5", "--granularity", "8"]) == 0
    text = capsys.readouterr().out
    shown = int(re.search(r"preview showed (\d+) frames?", text).group(1))
    assert video_info(out) == ((96, 32), 15)
    assert len(offered) == 15 and len(looks) >= 15 * 8  # 8 samples a frame: 120 sub-frames
    assert 1 <= shown == len(drawn) <= 15
    np.testing.assert_array_equal(drawn[-1], offered[-1])  # the last frame stays on screen
    assert all(any(np.array_equal(d, o) for o in offered) for d in drawn)


@pytest.mark.parametrize("n, said", [(1, "1 frame"), (2, "2 frames")])
def test_the_summary_counts_the_previews_frames_in_words(capsys, n, said):
    """Was: "preview showed 1 frames" (a trial)."""
    from hfrender.cli.commands import _summary
    from hfrender.config import RenderConfig
    from hfrender.engine.render_stats import RenderStats

    stats = RenderStats(output="o.mp4", frames_written=n, preview_frames=n, seconds=1.0,
                        gl_renderer="llvmpipe", backend="cpu")
    assert _summary(RenderConfig(output="o.mp4", preview=True, size=(8, 4), samples=1),
                    stats) == 0
    assert capsys.readouterr().out == (
        f"wrote o.mp4: {said} 8x4 at 30 fps, 1 sample (no motion blur), dof off; rendered "
        f"in 1.0 s ({n:.1f} frames/s) on llvmpipe, fusion cpu; preview showed {said}\n")


def test_preview_without_a_display_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["render", BAR, "-o", str(tmp_path / "p.mp4"), "--preview"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"hfrender: error: --preview needs a window: GLFW could not start "
                        r"\(.*DISPLAY.*\).*; render without --preview \(and hfrender.toml's "
                        r"preview = true\)\n", err), err
    assert "--gl egl" not in err  # was: "or use the headless context (--gl egl)", given or not
    assert not (tmp_path / "p.mp4").exists()


@pytest.mark.parametrize("args, message", [
    (["--samples", "8", "--granularity", "12"],
     r"--granularity 12: a hyperframe holds 0 carried sub-frames plus whole output frames of "
     r"8; use 8 or 16"),
    (["--samples", "4096", "-qh"],
     # 2 x 4096 x 4 B x 2,073,600 px = 67,947,724,800 B, and 100 B a pixel 207,360,000 B
     r"1920x1080 with 4096 sub-frames per output frame needs 68\.2 GB \(67\.9 GB for 2 "
     r"hyperframe slots of 4096 sub-frames and 207 MB to draw, fuse and encode each "
     r"frame\), more than the [\d.]+ [KMGT]?B this process may use: lower --samples \(at most "
     r"\d+ fit at 1920x1080\) or --size"),
])
def test_settings_that_cannot_work_are_refused_before_writing(tmp_path, capsys, args, message):
    out = tmp_path / "x.mp4"
    assert main(["render", BAR, "-o", str(out), "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"hfrender: error: {message}\n", err), err
    assert not out.exists()


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


@pytest.mark.parametrize("output, flags", [
    ("t/%04d.png", ["--transparent"]),
    ("d/%04d.png", ["--bit-depth", "16"]),
    ("e/%04d.exr", []),
])
def test_preview_shows_any_output_as_8_bit_rgb(tmp_path, x_display, output, flags):
    """--preview with a transparent, 16-bit or EXR output was an internal error ("data size
    mismatch": the window's texture is 8-bit RGB), its finished frames left hidden."""
    from hfrender.renderer.preview import Preview

    drawn, real_show = [], Preview.show

    def show(self):
        before = self.shown
        ok = real_show(self)
        if self.shown > before:
            drawn.append(np.frombuffer(self.texture.read(), np.uint8).reshape(8, 32, 3))
        return ok

    scene = tmp_path / "ball.py"  # a mesh scene: --transparent takes it
    scene.write_text("import hfrender as hf\n\nclass Ball(hf.Scene):\n    duration = 0.1\n"
                     "    background = None\n\n    def setup(self):\n"
                     "        self.add(hf.Sphere(radius=1.2, color=(1, 1, 1)))\n"
                     "        self.camera.position = (0, 0, 4)\n")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Preview, "show", show)
        assert main(["render", str(scene), "-o", str(tmp_path / output), "--preview",
                     "--size", "32x8", "--samples", "1", "--quiet", *flags]) == 0
    assert len(list((tmp_path / output).parent.glob("0*"))) == 3 and drawn
    assert drawn[-1].max() > 100 and drawn[-1][0, 0].max() == 0  # the ball, black around


def test_displayable_makes_every_written_frame_8_bit_rgb():
    from hfrender.renderer.preview import displayable

    rgba = np.zeros((1, 2, 4), np.uint8)
    rgba[0, 0] = (255, 0, 0, 255)
    rgba[0, 1] = (255, 255, 255, 0)  # transparent: over black
    np.testing.assert_array_equal(displayable(rgba), [[[255, 0, 0], [0, 0, 0]]])
    np.testing.assert_array_equal(displayable(np.full((1, 1, 3), 0x8080, np.uint16)),
                                  [[[128, 128, 128]]])
    half = displayable(np.full((1, 1, 4), 0.5, np.float32))  # linear 0.5: sRGB 188
    np.testing.assert_array_equal(half, [[[188, 188, 188]]])


def test_preview_with_ray_is_refused_before_ray_starts(tmp_path, capsys):
    """Was: a local Ray started (7.6 s), then the workers refused the window (or, with a
    display, the render ran with no preview at all)."""
    assert main(["render", BAR, "-o", str(tmp_path / "r.mp4"), "--preview", "--ray"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: --preview with --ray: the frames are drawn on Ray's workers, not in "
        "a window here; render without --ray to watch it\n")


def test_hfrender_tomls_preview_does_not_stop_a_render_on_ray(tmp_path, monkeypatch, capsys):
    """A project file's preview = true refused every --ray render, with no way to turn it
    off (a review): it is for the renders here; --preview itself is refused with --ray."""
    import hfrender.cli.commands as commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text("[render]\npreview = true\n")
    seen = {}
    monkeypatch.setattr(commands, "_render_on_ray",
                        lambda args, config: seen.update(preview=config.preview) or 0)
    assert main(["render", BAR, "-o", "r.mp4", "--ray"]) == 0 and seen == {"preview": False}


def test_a_duration_set_in_setup_is_refused_with_its_line(tmp_path, capsys):
    """A trial's: ``self.duration = 1`` in setup() was left out without a word (the frames
    counted from the class's 4 s before setup() ran), and the render failed past the
    scene's end with advice about the shutter. Now one line names the line that set it;
    a --duration given stands over it, as the README says."""
    import imageio.v3 as iio

    scene = tmp_path / "keys.py"
    scene.write_text("import hfrender as hf\n\n\nclass S(hf.Scene):\n    def setup(self):\n"
                     "        self.s = self.add(hf.Sphere())\n        self.duration = 1\n\n"
                     "    def update(self, t):\n        assert t <= 1.05, t\n")
    out = tmp_path / "k.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "1"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: setup() set duration = 1 (keys.py:7), but the frames are counted "
        "from the duration before setup() (4 s): set duration in the class body (duration = "
        "...), or give --duration\n")
    assert not out.exists()
    assert main(["render", str(scene), "-o", str(out), "--size", "32x18", "--samples", "1",
                 "--duration", "0.5", "--quiet"]) == 0  # --duration stands over it (a review)
    assert out.exists() and len(iio.imread(out)) == 15


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


@pytest.mark.parametrize("shutter, said", [
    ("0.5", "--shutter 0.5 is in degrees: a shutter open 0.14% of the frame, all but no "
            "motion blur; Blender's shutter of 0.5 frames is --shutter 180"),
    ("2", "--shutter 2 is in degrees: a shutter open 0.56% of the frame, all but no motion "
          "blur; Blender's shutter of 2 frames is --shutter 720"),
    ("2.5", None), ("180", None),
])
def test_a_shutter_given_in_frames_is_said(tmp_path, caplog, shutter, said):
    """Blender's shutter is in frames (0.5 its default): --shutter 0.5 rendered half a
    degree, the motion blur all but gone, without a word (a trial)."""
    with caplog.at_level("WARNING"):
        assert main(["still", BAR, "--shutter", shutter, "--samples", "2", "--size", "16x16",
                     "-o", str(tmp_path / "s.png"), "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "is in degrees" in r.getMessage()]
    assert told == ([] if said is None else [said])
    caplog.clear()  # hfrender.toml's too (a review: the flag's alone was looked at)
    (tmp_path / "hfrender.toml").write_text(f"[render]\nshutter = {shutter}\n")
    with caplog.at_level("WARNING"), pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        assert main(["still", BAR, "--samples", "2", "--size", "16x16", "-o",
                     str(tmp_path / "s.png"), "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records if "is in degrees" in r.getMessage()]
    assert told == ([] if said is None else [said])


@pytest.mark.parametrize("key, said", [
    ('quality = "low"', r"\[render\] quality: the presets -ql, -qm, -qh are the command "
                        r"line's \(a size and a frame rate\); in hfrender.toml give size and "
                        r'fps \(-ql is size = "854x480", fps = 15\)$'),
    # as a jobs file says it (was: "did you mean samlpes -> samples?")
    ("samlpes = 4", r"hfrender.toml: \[render\]: unknown field 'samlpes'; did you mean "
                    r"'samples'\?$"),
    # Unreal's (was: "temporal_samples -> keep_samples", a sample store's folder)
    ("temporal_samples = 8", r"\[render\]: unknown field 'temporal_samples'; did you mean "
                             r"'samples'\?$"),
    ("shutter_speed = 48", r"\[render\]: unknown field 'shutter_speed'; did you mean 'shutter'\? "
                           r"\(shutter is an angle in degrees: a shutter speed of 1/S s at F fps "
                           r"is 360 F / S \(1/48 s at 24 fps: 180\)\)$"),
    # an output of another type was an internal error ("expected str, ... not int"), a bit
    # depth no output takes was left out without a word (as a PNG's 12 is)
    ("output = 5", r"\[render\] output = 5 must be a file name: a video \(out.mp4\) or an "
                   r"image sequence \(frames/%05d.png\)$"),
    ("bit-depth = 12", r"\[render\] bit-depth = 12 must be one of 8, 16, 32$"),
    ('bit_depth = "16"', r'\[render\] bit_depth = "16" must be one of 8, 16, 32$'),
    # named as hfrender.toml's (were "--codec 5: this ffmpeg has no such encoder", "gl=3
    # is not an OpenGL context", as if given on the command line)
    ("codec = 5", r"hfrender.toml: \[render\] codec = 5 must be an ffmpeg encoder's name"),
    # an encoder this ffmpeg lacks: the file and its key (was "--codec libx246: this ffmpeg
    # has no such encoder ...", a flag the user never gave)
    ('codec = "libx246"', r'^hfrender: error: .*/hfrender.toml: \[render\] codec = "libx246": '
                          r"this ffmpeg has no such encoder \(did you mean libx26[45]\? hfrender "
                          r"info -v lists its video encoders\)$"),
    # each key as the file spells it, its value as TOML does (were max_in_flight=0,
    # samples_range=(16, 4), hdr=True: the setting's own name and Python's spelling, a trial)
    ("max-in-flight = 0", r"hfrender.toml: \[render\] max-in-flight = 0 must be an integer "
                          r"from 1 to 64$"),
    ('samples-range = "16:4"', r'hfrender.toml: \[render\] samples-range = "16:4" must be '
                               r"MIN:MAX with 1 <= MIN <= MAX <= 4096$"),
    ("hdr = true", r"hfrender.toml: \[render\] hdr = true must be one of auto, on, off$"),
    ("fps = 0", r"hfrender.toml: \[render\] fps = 0 must be a finite number >= 0.001 and "
                r"<= 1000$"),
    ("gl = 3", r"hfrender.toml: \[render\] gl = 3 is not an OpenGL context; choose one of "
               r"egl, glfw$"),
    ('backend = "gpu"', r'hfrender.toml: \[render\] backend = "gpu" is not a backend; choose '
                        r"one of auto, cpu, cuda$"),
    # the encoder's settings and the frames as the file spells them too (were "--crf 99",
    # '--frames 5:2', "-o o2.mp4/", flags the user never gave)
    ("crf = 99", r"hfrender.toml: \[render\] crf = 99 must be an integer from 0 to 63 "),
    ('bitrate = "fast"', r'hfrender.toml: \[render\] bitrate = "fast" must be a rate in '
                         r"bits per second"),
    ('pix-fmt = "yuv 444"', r'hfrender.toml: \[render\] pix-fmt = "yuv 444" must be a name '),
    ('frames = "5:2"', r'hfrender.toml: \[render\] frames = "5:2": START must be before END '
                       r"\(END is exclusive: 5:6 is frame 5 alone\)$"),
    ('frames = "a"', r'hfrender.toml: \[render\] frames = "a" must be START:END'),
    # (checked when the file is read: -o, given here, would have taken its place)
    ('output = "o2.mp4/"', r'hfrender.toml: \[render\] output = "o2.mp4/": a folder\'s name '
                           r'\(it ends in /\); name the file \(output = "o2.mp4"\)$'),
])
def test_a_project_files_unknown_key_names_what_is_meant(tmp_path, monkeypatch, capsys, key,
                                                        said):
    """manim's quality in hfrender.toml was "did you mean quality -> quiet?" (a trial)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text(f"[render]\n{key}\n")
    assert main(["render", BAR, "-o", str(tmp_path / "o.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(said, err.rstrip("\n")), err


def test_a_misspelt_key_reads_alike_in_hfrender_toml_and_a_jobs_file(tmp_path, monkeypatch,
                                                                    capsys):
    """hfrender.toml's "did you mean sampels -> samples?" read awkwardly beside a jobs file's
    line for the same mistake; now both say it in one wording (errors.unknown_key)."""
    monkeypatch.chdir(tmp_path)
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[defaults]\nsampels = 4\n[[job]]\nname = "a"\nscene = "{BAR}"\n'
                    'output = "a.mp4"\n')
    assert main(["batch", str(jobs)]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {jobs}: [defaults]: unknown field "
                                       "'sampels' for a render or fx job; did you mean "
                                       "'samples'?\n")
    toml = tmp_path / "hfrender.toml"
    toml.write_text("[render]\nsampels = 4\n")
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: [render]: unknown field "
                                       "'sampels'; did you mean 'samples'?\n")


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
