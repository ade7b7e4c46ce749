"""hf.render / hf.still name every setting a line advises as their caller gave it, a keyword
(an integrator's trial: "give --samples 1", "lower --duration or --fps" to a Python caller),
while the command's lines keep its flags."""

import logging
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
SCENES = Path(__file__).parents[1] / "scenes"


@pytest.mark.parametrize("call, options, said", [
    (hf.render, {"shutter": 0}, "shutter=0: for no motion blur (an instant shutter) leave the "
     "shutter as it is and give samples=1 (one sub-frame a frame, at the shutter's middle: the "
     "frame's time with the default shutter_position='center'); a shutter is > 0 and <= 5760 "
     "degrees"),
    (hf.still, {"samples": "auto", "shutter": 720}, "samples='auto' with shutter=720: an "
     "adaptive count needs a shutter of at most 360 degrees; give samples=N"),
    (hf.render, {"duration": 1e9}, "duration=1e+09 s at 30 fps is 30,000,000,000 frames; "
     "hfrender renders at most 10,000,000 in one output (lower duration or fps, or render it "
     "in parts)"),
    (hf.still, {"duration": 1e9}, "duration=1e+09 s at 30 fps is 30,000,000,000 frames; "
     "hfrender renders at most 10,000,000 in one output (lower duration or fps, or render it "
     "in parts)"),
    (hf.render, {"dof": "lens"}, "dof='lens': bar.frag is a shader scene without a camera or "
     "depth; use dof='off'"),
    (hf.still, {"dof": "depth"}, "dof='depth': bar.frag is a shader scene without a camera or "
     "depth; use dof='off'"),
    (hf.render, {"transparent": True}, "transparent=True: bar.frag is a fragment shader, which "
     "draws every pixel: there is no background to leave out"),
])
def test_a_calls_advice_names_the_keywords(tmp_path, call, options, said):
    out = tmp_path / "x.mov"
    with pytest.raises(hf.InputError) as info:
        if call is hf.render:
            hf.render(BAR, out, size=(16, 8), **options)
        else:
            hf.still(BAR, size=(16, 8), **options)
    assert str(info.value) == said
    assert not out.exists()


@pytest.mark.parametrize("flags, said", [
    (["--samples", "auto", "--shutter", "720"], "--samples auto with --shutter 720: an adaptive "
     "count needs a shutter of at most 360 degrees; give --samples N"),  # (was samples=auto)
    (["--duration", "1e9"], "--duration 1e9 s at 30 fps is 30,000,000,000 frames; hfrender "
     "renders at most 10,000,000 in one output (lower --duration or --fps, or render it in "
     "parts)"),  # (was duration=1e+09, the keyword)
    (["--transparent"], "--transparent: bar.frag is a fragment shader, which draws every "
     "pixel: there is no background to leave out"),
])
def test_the_commands_advice_keeps_its_flags(tmp_path, capsys, flags, said):
    assert main(["render", BAR, "-o", str(tmp_path / "x.mov"), *flags]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"


def test_a_shaders_modes_are_warned_of_in_keywords(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        hf.render(BAR, tmp_path / "x.mp4", size=(16, 8), duration=0.1, samples="auto",
                  reconstruct="on")
    assert [r.getMessage() for r in caplog.records] == [
        "samples='auto': bar.frag is a fragment shader, with no geometry to measure its motion "
        "by; 8 sub-frames a frame (give samples=N for another count)",
        "reconstruct='on': bar.frag is a fragment shader, with no geometry and so no velocity "
        "to reconstruct the motion from; plain sub-frames"]


def test_the_spelling_is_the_calls_alone():
    """Outside a call (the command, a batch), and after a call that failed, lines name the
    flags."""
    from hfrender.config import RenderConfig
    from hfrender.errors import spelling

    with pytest.raises(hf.InputError, match="give samples=1 "):
        hf.render(BAR, shutter=0)
    assert spelling().flags
    with pytest.raises(hf.InputError, match="give --samples 1 "):
        RenderConfig(shutter=0)


def test_resumes_refusals_name_resume_as_the_call_gave_it(tmp_path, capsys):
    """hf.render(resume=True)'s refusals say resume=True (were '--resume: nothing to resume
    ...; render without --resume', to a caller who gave no flag); the command's keep it."""
    out = tmp_path / "o.mp4"
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, out, size=(32, 18), samples=1, duration=0.1, resume=True)
    assert str(info.value) == (f"resume=True: nothing to resume for {out} (no "
                               f"{tmp_path / '.o.mp4.hfrender'}); render without resume=True")
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, out, size=(32, 18), samples=1, duration=0.1, resume=True,
                  keep_samples=tmp_path / "store")
    assert str(info.value) == ("keep_samples with resume=True: a sample store holds a whole "
                               "render; render without resume=True to keep its sub-frames")
    assert main(["render", BAR, "-o", str(out), "--size", "32x18", "--samples", "1",
                 "--duration", "0.1", "--resume"]) == 2
    assert capsys.readouterr().err.endswith("; render without --resume\n")


def test_a_numpy_number_is_named_as_the_number(tmp_path):
    """shutter=np.float64(720) is said 'shutter=720' (was 'shutter=np.float64(720.0)')."""
    import numpy as np

    with pytest.raises(hf.InputError, match=r"^samples='auto' with shutter=720: an adaptive "):
        hf.still(BAR, samples="auto", shutter=np.float64(720.0))


def test_a_number_is_named_in_full_where_short_it_would_be_another():
    """shutter=360.0000001 is said so, and np.float64 likewise (was 'shutter=360': a line
    refusing a shutter of at most 360 degrees named 360 as the one refused)."""
    import numpy as np

    for given in (360.0000001, np.float64(360.0000001)):
        with pytest.raises(hf.InputError) as info:
            hf.still(BAR, samples="auto", shutter=given)
        assert str(info.value) == ("samples='auto' with shutter=360.0000001: an adaptive count "
                                   "needs a shutter of at most 360 degrees; give samples=N")


def test_resumes_damaged_manifest_is_named_in_the_calls_words(tmp_path, capsys):
    """hf.render(resume=True) over a damaged manifest says 'render without resume=True' (was
    'resume=True: ... is damaged (...); render without --resume to start over')."""
    out, folder = tmp_path / "o.mp4", tmp_path / ".o.mp4.hfrender"
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, out, size=(32, 18), samples=1, duration=0.1, resume=True)
    assert str(info.value) == (f"resume=True: {folder / 'manifest.json'} is damaged (KeyError: "
                               "'key'); render without resume=True to start over")
    assert main(["render", BAR, "-o", str(out), "--size", "32x18", "--samples", "1",
                 "--duration", "0.1", "--resume"]) == 2
    assert capsys.readouterr().err.endswith("; render without --resume to start over\n")


@pytest.mark.usefixtures("gl_context")  # no GL error left
def test_numpy_numbers_are_a_frame_and_a_time():
    still = {"size": (64, 8), "samples": 2}  # the bar from x 40 (frame 1), 60 (frame 2)
    by_int = hf.still(BAR, frame=1, **still)
    np.testing.assert_array_equal(hf.still(BAR, frame=np.int64(1), **still), by_int)
    by_time = hf.still(BAR, t=np.float32(0.07), **still)  # nearest frame 2
    np.testing.assert_array_equal(by_time, hf.still(BAR, t=0.07, **still))
    for picture, x in ((by_int, 41.5), (by_time, 59.4)):  # the bar's middle, blurred
        columns = picture.astype(float).sum(axis=(0, 2))
        assert (columns * np.arange(64)).sum() / columns.sum() == pytest.approx(x, abs=0.5)
    with pytest.raises(TypeError) as refused:  # a bool is no number here, numpy's neither
        hf.still(BAR, frame=np.True_, **still)
    assert str(refused.value) == ("frame=np.True_: give an output frame's number, "
                                  "an integer >= 0")



@pytest.mark.usefixtures("gl_context")
def test_numpy_numbers_are_settings_as_their_python_numbers(tmp_path):
    """NumPy's numbers as settings (an integrator's sweep): were a TypeError "Object of type
    int64 is not JSON serializable" once the render began (duration, samples, size, seed)
    and refusals of good values ("shutter=np.int64(180) must be an angle in degrees > 0",
    granularity=np.int64(4), jitter=np.True_ "must be true or false")."""
    n = np.int64
    stats = hf.render(BAR, tmp_path / "a.mp4", size=(n(32), n(18)), samples=n(2), fps=n(10),
                      duration=n(1), shutter=n(180), seed=n(3))
    assert stats.frames_written == 10
    still = {"size": (32, 18), "samples": 2}
    np.testing.assert_array_equal(
        hf.still(BAR, shutter=n(270), jitter=np.True_, granularity=n(4), **still),
        hf.still(BAR, shutter=270, jitter=True, granularity=4, **still))


@pytest.mark.parametrize("call, options", [
    (hf.render, {"progress": "abc"}),
    (hf.render, {"transparent": ""}), (hf.render, {"stats": 0}), (hf.render, {"resume": ""}),
    (hf.render, {"preview": 1}), (hf.render, {"jitter": "no"}), (hf.still, {"jitter": 0.0}),
    (hf.still, {"transparent": "yes"})])
def test_a_switch_is_true_or_false(tmp_path, call, options):
    """progress='abc' was taken as True, transparent='', stats=0 and resume='' as False (not
    given), jitter='no' said "must be true or false" (a file's words): hf.render and hf.still
    take True or False (NumPy's too) or None (the default), else one line saying so (was
    "must be True or False", None taken all the same: a review)."""
    out = tmp_path / "x.mp4"
    with pytest.raises(hf.InputError) as info:
        call(BAR, *[out] * (call is hf.render), size=(16, 8), samples=1, duration=0.1,
             **options)
    [(key, value)] = options.items()
    assert str(info.value) == f"{key}={value!r} must be True, False or None (the default)"
    assert isinstance(info.value, TypeError) and not out.exists()
    stats = hf.render(BAR, out, size=(16, 8), samples=1, duration=0.2, progress=np.False_,
                      stats=np.False_, resume=False, jitter=np.True_)
    assert stats.frames_written == 6


def test_none_is_the_default_for_every_switch(tmp_path, capsys):
    """progress=None was refused ("must be True or False") while transparent=None,
    stats=None and jitter=None were taken as not given: one rule, None the default (for
    progress, False: nothing printed)."""
    nothing = dict.fromkeys(("progress", "transparent", "stats", "jitter", "resume",
                             "preview"))
    stats = hf.render(BAR, tmp_path / "n.mp4", size=(16, 8), samples=1, duration=0.2,
                      **nothing)
    assert stats.frames_written == 6 and capsys.readouterr() == ("", "")
    still = {"size": (16, 8), "samples": 1}
    np.testing.assert_array_equal(hf.still(BAR, transparent=None, jitter=None, **still),
                                  hf.still(BAR, **still))


GIF_MUXER = "(ffmpeg: gif muxer supports only codec gif for type video)"
# 2 x 4096 x 4 B x 2,073,600 px = 67,947,724,800 B, 100 B a pixel 207,360,000 B; 80% of
# 8 GiB (below) = 6,871,947,673.6 B
MEMORY = (r"1920x1080 with 4096 sub-frames per output frame needs 68\.2 GB \(67\.9 GB for 2 "
          r"hyperframe slots of 4096 sub-frames and 207 MB to draw, fuse and encode each "
          r"frame\), more than the 6\.9 GB this process may use: ")
# the most samples that fit 80% of 8 GiB: 100 B of work a pixel, 2 slots of 4 B a sample
FIT = f"(at most {int((0.8 * 8 * 2**30 - 100 * 1920 * 1080) // (2 * 4 * 1920 * 1080))} fit " \
      "at 1920x1080)"


@pytest.mark.parametrize("output, options, flags, said, flagged", [
    # the encoder and the output (were the flags to a caller too, "--codec gif: -o x.mp4")
    ("x.mp4", {"codec": "libx26"}, ["--codec", "libx26"],
     "codec='libx26': this ffmpeg has no such encoder (did you mean libx265? hfrender info -v "
     "lists its video encoders)",
     "--codec libx26: this ffmpeg has no such encoder (did you mean libx265? hfrender info -v "
     "lists its video encoders)"),
    ("x.mp4", {"codec": "gif"}, ["--codec", "gif"],
     "codec='gif': output='x.mp4' cannot hold it (a GIF is written as .gif: output='x.gif')",
     "--codec gif: -o x.mp4 cannot hold it (a GIF is written as .gif: -o x.gif)"),
    ("x.gif", {"codec": "libx264"}, ["--codec", "libx264"],
     f"codec='libx264': output='x.gif' cannot hold it {GIF_MUXER}",
     f"--codec libx264: -o x.gif cannot hold it {GIF_MUXER}"),
    # a size the encoder refuses: the pixel format and the output as given
    ("x.mp4", {"size": (15, 9)}, ["--size", "15x9"],
     "size 15x9: libx264 video in yuv420p needs an even width and height; use 14x8, or "
     "pix_fmt='yuv444p', or write a PNG sequence (output='frames/%05d.png')",
     "size 15x9: libx264 video in yuv420p needs an even width and height; use 14x8, or "
     "--pix-fmt yuv444p, or write a PNG sequence (-o frames/%05d.png)"),
    # (were the flags to a caller: "--bit-depth 8: -o x.mp4 is a video ... (e.g. --pix-fmt
    # yuv420p10le)", "--pix-fmt abc: ...", "--keep-samples .: ...", "-o abc is a folder")
    ("x.mp4", {"bit_depth": 8}, ["--bit-depth", "8"],
     "bit_depth=8: output='x.mp4' is a video, whose encoder's pixel format decides (e.g. "
     "pix_fmt='yuv420p10le'); bit_depth is for PNG (8, 16) and EXR (16, 32) outputs",
     "--bit-depth 8: -o x.mp4 is a video, whose encoder's pixel format decides (e.g. "
     "--pix-fmt yuv420p10le); --bit-depth is for PNG (8, 16) and EXR (16, 32) outputs"),
    ("x.png", {"bit_depth": 32}, ["--bit-depth", "32"],
     "bit_depth=32: PNG frames are 8 or 16 bits", "--bit-depth 32: PNG frames are 8 or 16 bits"),
    ("x.mp4", {"pix_fmt": "abc"}, ["--pix-fmt", "abc"],
     "pix_fmt='abc': libx264 takes yuv420p, yuvj420p, yuv422p, yuvj422p, yuv444p, yuvj444p, "
     "nv12, nv16, nv21, yuv420p10le, yuv422p10le, yuv444p10le, nv20le, gray, gray10le",
     "--pix-fmt abc: libx264 takes yuv420p, yuvj420p, yuv422p, yuvj422p, yuv444p, yuvj444p, "
     "nv12, nv16, nv21, yuv420p10le, yuv422p10le, yuv444p10le, nv20le, gray, gray10le"),
    ("x.mp4", {"crf": 60}, ["--crf", "60"], "crf=60: libx264 takes a CRF from 0 to 51 (lower "
     "is better quality)", "--crf 60: libx264 takes a CRF from 0 to 51 (lower is better "
     "quality)"),
    ("x.webm", {"preset": "slow"}, ["--preset", "slow"], "preset='slow': libvpx-vp9 has no "
     "presets; leave preset out", "--preset slow: libvpx-vp9 has no presets; leave --preset "
     "out"),
    ("x.mp4", {"keep_samples": "full"}, ["--keep-samples", "full"],
     "keep_samples='full': the folder is not empty and holds no sample store; give a new or "
     "empty folder",
     "--keep-samples full: the folder is not empty and holds no sample store; give a new or "
     "empty folder"),
    ("full", {}, [], "output='full' is a folder; for frames in it, give a pattern: "
     "output='full/%05d.png'", "-o full is a folder; for frames in it, give a pattern: "
     "full/%05d.png"),
    # what to lower where memory is short (were the flags to a caller), and a granularity
    # (was the keyword to the command)
    ("x.mp4", {"samples": 4096, "size": (1920, 1080), "backend": "cpu"},
     ["--samples", "4096", "--size", "1920x1080", "--backend", "cpu"],
     MEMORY + rf"lower samples \{FIT[:-1]}\) or size",
     MEMORY + rf"lower --samples \{FIT[:-1]}\) or --size"),
    ("x.mp4", {"samples": 4096, "size": (1920, 1080), "granularity": 4096, "backend": "cpu"},
     ["--samples", "4096", "--size", "1920x1080", "--granularity", "4096", "--backend", "cpu"],
     MEMORY + "lower granularity, samples or size", MEMORY + "lower --granularity, --samples "
     "or --size"),
    ("x.mp4", {"samples": 8, "granularity": 12}, ["--samples", "8", "--granularity", "12"],
     "granularity=12: a hyperframe holds 0 carried sub-frames plus whole output frames of 8; "
     "use 8 or 16", "--granularity 12: a hyperframe holds 0 carried sub-frames plus whole "
     "output frames of 8; use 8 or 16"),
])
def test_encoder_size_and_memory_lines_name_settings_as_each_caller_gave_them(
        tmp_path, monkeypatch, capsys, output, options, flags, said, flagged):
    """A Python caller's line names the keywords, the command's the flags (each checked
    by hand: fps, samples, shutter, size, dof and codec; these said the other's)."""
    import re

    def pattern(line):  # the memory's lines: the figures of a pool and a frame
        return line if "this process may use" in line else re.escape(line)

    monkeypatch.chdir(tmp_path)
    (tmp_path / "full").mkdir()  # a folder of the user's
    (tmp_path / "full" / "notes.txt").write_text("the user's")
    monkeypatch.setattr("hfrender.hyperframe.builder.free_memory_bytes", lambda: 8 * 2**30)
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, output, **{"size": (16, 8), **options})
    assert re.fullmatch(pattern(said), str(info.value)), str(info.value)
    assert main(["render", BAR, "-o", output, "--size", "16x8", *flags]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(f"hfrender: error: {pattern(flagged)}\n", err), err
    assert not (tmp_path / output).is_file()
    assert [f.name for f in (tmp_path / "full").iterdir()] == ["notes.txt"]


def test_a_projects_codec_is_left_out_of_a_gif_by_a_call_as_by_the_command(tmp_path,
                                                                           monkeypatch):
    """hfrender.toml's codec = "libx264" is meant for its videos: a .gif leaves it out, in
    hf.render too (the refusal it is told by names the codec in the call's keywords now)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text('[render]\ncodec = "libx264"\n')
    hf.render(BAR, "x.gif", size=(16, 8), duration=0.1, samples=1)
    assert main(["render", BAR, "-o", "y.gif", "--size", "16x8", "--duration", "0.1",
                 "--samples", "1", "--quiet"]) == 0
    assert (tmp_path / "x.gif").read_bytes()[:6] == (tmp_path / "y.gif").read_bytes()[:6] \
        == b"GIF89a"
