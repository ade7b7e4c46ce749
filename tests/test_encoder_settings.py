"""--crf, --preset, --bitrate, --pix-fmt in the ffmpeg commands (the defaults, the encoder's
help read for its options, HEVC tagged for Apple's players), what the encoder does not take
refused in one line, and the defaults an output's settings fill in. Real encodes, the
settings files and resumes are in test_encoder_settings_runs.py."""

from pathlib import Path

import pytest
from encoder_settings_helpers import BAR, pix_fmt

from hfrender.cli import main
from hfrender.io.encoding import Encoding, EncodingError, check_encoding, parse_encoder_help
from hfrender.io.ffmpeg import encode_command

pytestmark = pytest.mark.usefixtures("gl_context")


def option(cmd, name):
    """The value of the output option ``name`` in a command line (asserting it is there
    exactly once after ``-c:v``, where the output's options begin)."""
    out = cmd[cmd.index("-c:v"):]
    assert out.count(name) == 1, cmd
    return out[out.index(name) + 1]


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
