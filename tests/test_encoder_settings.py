"""--crf, --preset, --bitrate, --pix-fmt: in the ffmpeg commands, in real encodes (every
segment), refused in one line where the encoder does not take them, from hfrender.toml and
batch jobs, and part of what --resume compares."""

import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import decode_video as decode
from render_helpers import interrupt_after_segments

from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError
from hfrender.io.encoding import Encoding, EncodingError, check_encoding, parse_encoder_help
from hfrender.io.ffmpeg import encode_command
from hfrender.io.probe import probe
from hfrender.project_file import project_settings

pytestmark = pytest.mark.usefixtures("gl_context")
DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")
PLASMA = str(Path(__file__).resolve().parents[1] / "scenes" / "plasma.frag")
FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


def option(cmd, name):
    """The value of the output option ``name`` in a command line (asserting it is there
    exactly once after ``-c:v``, where the output's options begin)."""
    out = cmd[cmd.index("-c:v"):]
    assert out.count(name) == 1, cmd
    return out[out.index(name) + 1]


def pix_fmt(path):
    """The pixel format of a video, by probing (without ffmpeg's "(tv, progressive)")."""
    return probe(str(path)).pix_fmt.split("(")[0]




# --- the commands ---------------------------------------------------------------------------

def test_defaults_are_todays():
    plain = encode_command("o.mp4", 30, (64, 36), "libx264", gop=6, exe="ff")
    assert encode_command("o.mp4", 30, (64, 36), "libx264", gop=6, exe="ff",
                          encoding=Encoding()) == plain
    assert (option(plain, "-crf"), option(plain, "-preset"), option(plain, "-pix_fmt")) == \
        ("18", "medium", "yuv420p")


def test_x264_command_carries_crf_preset_and_pix_fmt():
    cmd = encode_command("o.mp4", 30, (64, 36), "libx264", gop=6, exe="ff",
                         encoding=Encoding(crf=23, preset="slow", pix_fmt="yuv444p"))
    assert option(cmd, "-crf") == "23" and option(cmd, "-preset") == "slow"
    assert option(cmd, "-pix_fmt") == "yuv444p" and option(cmd, "-g") == "6"
    assert "-b:v" not in cmd


def test_a_bitrate_replaces_the_default_crf():
    cmd = encode_command("o.mp4", 30, (64, 36), "libx264", exe="ff",
                         encoding=Encoding(bitrate="8M"))
    assert option(cmd, "-b:v") == "8M" and "-crf" not in cmd
    vp9 = encode_command("o.webm", 30, (64, 36), "libvpx-vp9", exe="ff",
                         encoding=Encoding(bitrate=800000))
    assert option(vp9, "-b:v") == "800000" and "-crf" not in vp9  # VBR, not "-b:v 0"
    # VP9 takes both: constrained quality (the CRF, the bitrate as its ceiling)
    cq = encode_command("o.webm", 30, (64, 36), "libvpx-vp9", exe="ff",
                        encoding=Encoding(crf=30, bitrate="2500k"))
    assert (option(cq, "-crf"), option(cq, "-b:v")) == ("30", "2500k")


def test_encoder_help_is_read_for_pixel_formats_and_options():
    info = parse_encoder_help(
        "Encoder x [X]:\n    Supported pixel formats: yuv420p yuv444p\nx AVOptions:\n"
        "  -preset            <int>        E..V....... Set the encoding preset (from 0 to 9)"
        " (default p4)\n"
        "     slow            0            E..V....... hq 2 passes\n"
        "     p7              9            E..V....... slowest\n"
        "  -crf               <int>        E..V....... quality (from -1 to 63) (default -1)\n"
        "  -tune              <int>        E..V....... Set the encoding tuning info\n"
        "     hq              1            E..V....... High quality\n")
    assert info.pix_fmts == ("yuv420p", "yuv444p")
    assert info.options["preset"] == ("int", 0.0, 9.0, ["slow", "p7"])
    assert info.options["crf"][:3] == ("int", -1.0, 63.0) and info.options["tune"][3] == ["hq"]


# --- real encodes ---------------------------------------------------------------------------

def _render(tmp_path, name, *extra):
    out = tmp_path / name
    assert main(["render", PLASMA, "-o", str(out), "--size", "128x72", "--duration", "0.5",
                 "--samples", "1", "--quiet", *extra]) == 0
    return out


def test_a_higher_crf_gives_a_smaller_file_and_pix_fmt_is_kept(tmp_path):
    low, high = _render(tmp_path, "q40.mp4", "--crf", "40"), _render(tmp_path, "q10.mp4",
                                                                      "--crf", "10")
    assert low.stat().st_size < 0.5 * high.stat().st_size
    assert pix_fmt(low) == "yuv420p"  # the default
    full = _render(tmp_path, "444.mp4", "--pix-fmt", "yuv444p", "--preset", "veryfast")
    assert pix_fmt(full) == "yuv444p" and probe(str(full)).count == 15


def test_a_bitrate_is_an_average_bitrate(tmp_path):
    small = _render(tmp_path, "b.mp4", "--bitrate", "40k")
    big = _render(tmp_path, "c.mp4", "--bitrate", "2M")
    assert small.stat().st_size < 0.5 * big.stat().st_size
    vp9 = _render(tmp_path, "v.webm", "--crf", "50", "--pix-fmt", "yuv444p")
    assert pix_fmt(vp9) == "yuv444p"


def test_every_segment_gets_the_settings(tmp_path, monkeypatch):
    import hfrender.io.segment_files as seg

    seen = []
    real = seg.VideoWriter

    class Recording(real):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs.get("encoding"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(seg, "VideoWriter", Recording)
    out = tmp_path / "seg.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "2.5",
                 "--samples", "2", "--granularity", "12", "--crf", "30", "--pix-fmt",
                 "yuv444p", "--quiet"]) == 0
    assert len(seen) == 3  # segments of 30 frames: 30 + 30 + 15
    assert set(seen) == {Encoding(crf=30, pix_fmt="yuv444p")}
    assert pix_fmt(out) == "yuv444p" and probe(str(out)).count == 75


def test_fx_takes_the_settings(tmp_path, rng):
    from fx_helpers import make_clip

    clip, _ = make_clip(tmp_path, rng, n=20)
    sizes = {}
    for crf in ("10", "40"):
        out = tmp_path / f"fx{crf}.mp4"
        assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--crf", crf,
                     "--quiet"]) == 0
        sizes[crf] = out.stat().st_size
    assert sizes["40"] < 0.5 * sizes["10"]
    out = tmp_path / "fx444.mkv"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--pix-fmt",
                 "yuv444p", "--preset", "fast", "--quiet"]) == 0
    assert pix_fmt(out) == "yuv444p"


# --- errors ---------------------------------------------------------------------------------

RENDER_ERRORS = [
    ("frames/%03d.png", ["--crf", "20"], "--crf 20: PNG (lossless) has no quality "
     "settings; leave it out, or write a video (.mp4, .webm)"),
    ("frames/%03d.exr", ["--crf", "20"], "--crf 20: EXR (lossless float) has no "
     "quality settings; leave it out, or write a video (.mp4, .webm)"),  # (said a PNG's)
    ("a.gif", ["--crf", "20", "--preset", "slow"], "--crf 20 --preset slow: a GIF (its "
     "palette is made from the clip) has no quality settings; leave them out"),
    ("a.webm", ["--preset", "fast"], "--preset fast: libvpx-vp9 has no presets; leave "
     "--preset out"),
    ("a.mp4", ["--preset", "fastest"], "--preset fastest: libx264 presets are ultrafast, "
     "superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo"),
    ("a.mp4", ["--crf", "52"], "--crf 52: libx264 takes a CRF from 0 to 51 (lower is better "
     "quality)"),
    ("a.webm", ["--crf", "64"], "--crf 64 must be an integer from 0 to 63"),
    ("a.mp4", ["--crf", "20", "--bitrate", "8M"], "--crf 20 with --bitrate 8M: libx264 takes "
     "a constant quality (--crf) or an average bitrate (--bitrate), not both"),
    ("a.mp4", ["--bitrate", "8 MB"], "--bitrate '8 MB' must be a rate in bits per second such "
     "as 8M, 2500k or 800000"),
    ("a.mp4", ["--bitrate", "0"], "--bitrate 0 must be a rate"),
    ("a.mp4", ["--pix-fmt", "rgb24"], "--pix-fmt rgb24: libx264 takes yuv420p, yuvj420p, "),
    ("a.webm", ["--pix-fmt", "yuv420p9"], "--pix-fmt yuv420p9: libvpx-vp9 takes yuv420p, "),
    ("a.mkv", ["--codec", "mpeg4", "--crf", "5"], "--crf 5: mpeg4 has no CRF (constant "
     "quality) setting; use --bitrate RATE, or leave --crf out"),
    ("a.mkv", ["--codec", "mpeg4", "--preset", "slow"], "--preset slow: mpeg4 has no presets"),
    # png in a video: a pixel format, no quality (was: "a PNG sequence" of a .mov, its
    # --pix-fmt refused too)
    ("a.mov", ["--codec", "png", "--crf", "3", "--pix-fmt", "rgb24"], "--crf 3: png "
     "(lossless) has no quality settings; leave it out, or choose a codec that has them"),
    ("a.mov", ["--codec", "png", "--pix-fmt", "yuv420p"], "--pix-fmt yuv420p: png takes "
     "rgb24, rgba, rgb48be, "),
]


def test_png_in_a_video_takes_its_pixel_format_and_hands_it_16_bit_frames(tmp_path):
    from hfrender.io.encoding import deep_video

    out = tmp_path / "a.mov"
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "0.1",
                 "--codec", "png", "--pix-fmt", "rgb48be", "--quiet"]) == 0
    assert pix_fmt(out) == "rgb48be"
    wide = Encoding(pix_fmt="rgb48be")
    assert deep_video(str(out), "png", wide) and not deep_video(str(out), "png", Encoding())
    assert not deep_video(str(tmp_path / "f/%03d.png"), None, Encoding())


@pytest.mark.parametrize("output,flags,message", RENDER_ERRORS)
def test_what_the_encoder_does_not_take_is_one_line(tmp_path, capsys, output, flags, message):
    code = main(["render", BAR, "-o", str(tmp_path / output), "--size", "64x16", "--duration",
                 "0.1", *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not any(tmp_path.iterdir())  # refused before anything was made


def test_fx_refuses_the_same_in_one_line(tmp_path, rng, capsys):
    from fx_helpers import make_clip

    clip, _ = make_clip(tmp_path, rng, n=4)
    for out, flags, message in [
            ("o.webm", ["--preset", "slow"], "--preset slow: libvpx-vp9 has no presets"),
            ("o/%03d.png", ["--pix-fmt", "yuv444p"], "--pix-fmt yuv444p: PNG (lossless) has "),
            ("o.mp4", ["--crf", "99"], "--crf 99 must be an integer from 0 to 63")]:
        code = main(["fx", str(clip), "-o", str(tmp_path / out), "--motion-blur", "2", *flags])
        err = capsys.readouterr().err
        assert code == 2 and message in err and err.count("\n") == 1, err


def test_the_encoders_own_ranges_and_presets():
    check_encoding("a.webm", None, Encoding(crf=63))  # VP9 goes to 63
    check_encoding("a.mp4", "libx265", Encoding(crf=51, preset="slow"))
    with pytest.raises(EncodingError, match=r"--crf 52: libx265 takes a CRF from 0 to 51"):
        check_encoding("a.mp4", "libx265", Encoding(crf=52))
    with pytest.raises(EncodingError, match="--crf True must be an integer"):
        Encoding(crf=True)
    with pytest.raises(EncodingError, match="--preset 'a b' must be a name"):
        Encoding(preset="a b")


# --- hfrender.toml and batch ----------------------------------------------------------------

def test_hfrender_toml_takes_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = 28\npreset = "fast"\n'
                                            'bitrate = "2M"\npix_fmt = "yuv444p"\n')
    assert project_settings() == {"crf": 28, "preset": "fast", "bitrate": "2M",
                                  "pix_fmt": "yuv444p"}
    # a CRF and a bitrate together: libx264 takes one of them
    assert main(["render", BAR, "-o", "a.mp4", "--size", "64x16", "--duration", "0.1"]) == 2
    assert "--crf 28 with --bitrate 2M: libx264 takes" in capsys.readouterr().err
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = 28\npix_fmt = "yuv444p"\n')
    assert main(["render", BAR, "-o", "a.mp4", "--size", "64x16", "--duration", "0.1",
                 "--quiet"]) == 0
    assert pix_fmt("a.mp4") == "yuv444p"
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = "high"\n')
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    toml = tmp_path / "hfrender.toml"
    assert capsys.readouterr().err.startswith(f"hfrender: error: {toml}: [render] crf = \"high\" "
                                              "must be an integer from 0 to 63")
    toml.write_text('[rendr]\ncrf = 28\n')  # a misspelt table is said, not ignored
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: unknown table or key "
                                       "'rendr'; hfrender.toml holds a [render] table of render "
                                       "settings\n")
    toml.write_text('[render]\nsampels = 4\nshuter = 90\n')  # misspelt keys: the ones meant
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (  # each its line, as a jobs file says it
        f"hfrender: error: {toml}: [render]: unknown field 'sampels'; did you mean 'samples'?\n"
        f"hfrender: error: {toml}: [render]: unknown field 'shuter'; did you mean 'shutter'?\n")
    toml.write_text('[render]\npix-fmt = "yuv444p"\nsize = "64x16"\nduration = 0.1\n')
    assert main(["render", BAR, "-o", "dash.mp4", "--quiet"]) == 0  # as the option is spelt
    assert pix_fmt("dash.mp4") == "yuv444p"  # (was: "did you mean pix-fmt -> pix_fmt?")
    toml.write_text('[render]\npix-fmt = "yuv444p"\npix_fmt = "yuv420p"\n')
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: [render] pix-fmt and "
                                       "pix_fmt are one setting; give it once\n")
    toml.write_text('[render]\ncrf = 12\npix_fmt = "yuv420p10le"\nbit_depth = 16\n'
                    'size = "64x16"\nduration = 0.1\n')  # a project's video and frame defaults
    assert main(["render", BAR, "-o", "fr/%02d.png", "--quiet"]) == 0  # (was: "--crf 12
    assert main(["render", BAR, "-o", "v.mp4", "--quiet"]) == 0  # --pix-fmt ...: an EXR...")
    assert pix_fmt("v.mp4") == "yuv420p10le"  # each where it fits: 10-bit video, 16-bit PNG
    assert (tmp_path / "fr" / "00.png").read_bytes()[24] == 16  # IHDR: 16 bits a channel
    assert main(["render", BAR, "-o", "v.mp4", "--bit-depth", "16"]) == 2  # a flag: refused
    assert "--bit-depth 16: -o v.mp4 is a video" in capsys.readouterr().err
    toml.write_text('[render]\ncrf = 20\ncodec = "libx265"\npreset = "slow"\nbit_depth = 8\n'
                    'size = "64x16"\nduration = 0.1\n')  # (a review: each refused these)
    for out in ("g.gif", "w.webm", "e/%02d.exr"):
        assert main(["render", BAR, "-o", out, "--quiet"]) == 0, capsys.readouterr().err
    assert main(["render", BAR, "-o", "h.mp4", "--quiet"]) == 0  # where it fits: libx265
    assert "hevc" in subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i",
                                     "h.mp4"], capture_output=True, text=True).stderr
    toml.write_text('[render]\nzzz = 4\n')  # nothing near: the names there are
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    err = capsys.readouterr().err  # (not resume, keep-samples: refused here)
    assert err.startswith(f"hfrender: error: {toml}: [render]: unknown field 'zzz'; known: "
                          "antialias, audio, audio-offset, backend, bit-depth, ")
    assert err.endswith(", transparent, workers\n") and "resume" not in err
    toml.write_text('[render]\noutput = "from_toml.mp4"\nsize = "64x16"\nduration = 0.1\n')
    assert main(["render", BAR, "--quiet"]) == 0  # its output, as listed among its keys
    assert (tmp_path / "from_toml.mp4").is_file() and not (tmp_path / "out.mp4").exists()
    toml.write_text('[render]\nsamples = "auto"\nshutter = 720\n')  # each value fine alone;
    assert main(["render", BAR, "-o", "c.mp4", "--size", "64x16", "--duration", "0.1",
                 "--samples", "2", "--quiet"]) == 0  # together, the flag changes one of them


JOBS = """
[defaults]
size = "32x8"
samples = 2
crf = 30

[[job]]
name = "bar"
scene = "bar.frag"
output = "out/bar.mp4"
duration = 0.5
preset = "fast"
pix-fmt = "yuv444p"

[[job]]
name = "smooth"
input = "clip.mkv"
output = "out/smooth.webm"
motion-blur = 2
bitrate = "500k"
"""


def test_batch_jobs_take_them(tmp_path, rng):
    from fx_helpers import make_clip

    (tmp_path / "bar.frag").write_bytes(Path(BAR).read_bytes())
    clip, _ = make_clip(tmp_path, rng, n=6, size=(32, 8))
    clip.rename(tmp_path / "clip.mkv")
    (tmp_path / "jobs.toml").write_text(JOBS)
    render, fx = load_jobs(tmp_path / "jobs.toml")
    config = render.render_config()
    assert (config.crf, config.preset, config.pix_fmt) == (30, "fast", "yuv444p")
    s = fx.fx_settings()
    assert (s.crf, s.bitrate, s.preset) == (30, "500k", None)
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert pix_fmt(tmp_path / "out" / "bar.mp4") == "yuv444p"
    # an override for every job; what an encoder does not take names the job
    load_jobs(tmp_path / "jobs.toml", {"crf": 20})
    with pytest.raises(InputError, match=r"job 'smooth': --preset slow: libvpx-vp9 has no "
                                         r"presets"):
        load_jobs(tmp_path / "jobs.toml", {"preset": "slow"})
    assert main(["batch", str(tmp_path / "jobs.toml"), "--crf", "x"]) == 2


# --- --resume -------------------------------------------------------------------------------

def test_resume_compares_the_encoder_settings(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.mp4"
    args = ["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "2", "--samples",
            "2", "--granularity", "12", "--quiet", "--crf", "30", "--preset", "fast"]
    undo = interrupt_after_segments(monkeypatch)
    assert main(args) == 130
    undo()
    capsys.readouterr()
    assert main([*args[:-4], "--crf", "20", "--preset", "fast", "--resume"]) == 2
    assert "(crf 30 -> 20)" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0
    whole = tmp_path / "whole.mp4"
    assert main([*args[:3], str(whole), *args[4:]]) == 0
    np.testing.assert_array_equal(decode(out), decode(whole))


def test_fx_resume_compares_the_output_pix_fmt(tmp_path, rng, monkeypatch, capsys):
    from fx_helpers import make_clip

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.2)
    clip, _ = make_clip(tmp_path, rng, n=24)
    out = tmp_path / "o.mp4"
    args = ["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]
    undo = interrupt_after_segments(monkeypatch)
    assert main([*args, "--pix-fmt", "yuv444p"]) == 130
    undo()
    capsys.readouterr()
    assert main([*args, "--pix-fmt", "yuv422p", "--resume"]) == 2
    assert "(pix-fmt yuv444p -> yuv422p)" in capsys.readouterr().err
    assert main([*args, "--pix-fmt", "yuv444p", "--resume"]) == 0
    assert pix_fmt(out) == "yuv444p" and probe(str(out)).count == 24


def test_ffmpeg_reads_the_joined_output(tmp_path):
    out = _render(tmp_path, "p.mkv", "--crf", "35", "--preset", "ultrafast")
    res = subprocess.run([FFMPEG, "-v", "error", "-i", str(out), "-f", "null", "-"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == ""


@pytest.mark.parametrize("codec, out, tagged", [
    ("libx265", "o.mp4", True), ("libx265", "o.mov", True), ("libx265", "o.mkv", False),
    ("libx264", "o.mp4", False)])
def test_hevc_in_mp4_and_mov_is_tagged_for_apples_players(tmp_path, codec, out, tagged):
    """ffmpeg tags HEVC hev1, which QuickTime, Safari and iOS do not play: hvc1, in a
    render (segments joined) as in a single encode."""
    import subprocess

    import imageio_ffmpeg

    from hfrender.cli import main

    path = tmp_path / out
    assert main(["render", str(Path(__file__).parent / "data" / "bar.frag"), "-o", str(path),
                 "--size", "64x36", "--duration", "0.2", "--samples", "1", "--codec", codec,
                 "--quiet"]) == 0
    said = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(path)],
                          capture_output=True, text=True).stderr
    video = next(line for line in said.splitlines() if "Video:" in line)
    assert ("(hvc1 /" in video) == tagged and ("hev1" in video) is False


def test_the_encoder_settings_an_output_gets_fill_in_each_default():
    """What a resumed output compares: a default given by name equals it left out."""
    from types import SimpleNamespace

    from hfrender.io.encoding import Encoding, effective

    def of(output, codec=None, **given):
        fields = dict(crf=None, preset=None, bitrate=None, pix_fmt=None)
        return effective(output, codec, Encoding.of(SimpleNamespace(**{**fields, **given})))

    mp4 = {"codec": "libx264", "pix_fmt": "yuv420p", "crf": "18", "preset": "medium",
           "bitrate": None}
    assert of("a.mp4") == of("a.mp4", crf=18, preset="medium", codec="libx264",
                             pix_fmt="yuv420p") == mp4
    assert of("a.mp4", crf=20) == {**mp4, "crf": "20"}
    assert of("a.mp4", bitrate="8M") == {**mp4, "crf": None, "bitrate": "8M"}
    assert of("a.webm") == {"codec": "libvpx-vp9", "pix_fmt": "yuv420p", "crf": "32",
                            "preset": None, "bitrate": "0"}
    assert of("a.mov", transparent=True)["codec"] != of("a.mov")["codec"]
    assert of("a.gif") == of("f/%04d.png") == {}
