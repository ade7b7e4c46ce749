"""Lossless encoders keep every code of the frames handed to them by default: FFV1 and Ut
Video were given yuv420p (chroma halved, a YUV round trip), --codec png in a .mov was
tagged as BT.709 YUV, its 16-bit frames cut to 8 (user trials)."""

import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest

from hfrender.cli import main
from hfrender.io.ffmpeg import encode_command
from hfrender.io.footage import probe
from hfrender.io.writers import VideoWriter

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H, N = 33, 17, 3  # odd sides: no 4:2:0 on the way
BAR = str(Path(__file__).parent / "data" / "bar.frag")


def written_and_read(path, codec, pix_fmt_in, dtype):
    """(frames written, frames read back) of seeded random ``pix_fmt_in`` frames."""
    rng = np.random.default_rng(7)
    frames = rng.integers(0, np.iinfo(dtype).max + 1, (N, H, W, 3), dtype=dtype)
    with VideoWriter(str(path), 24, (W, H), codec, pix_fmt_in=pix_fmt_in) as writer:
        for frame in frames:
            writer.write(frame)
    raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          "-f", "rawvideo", "-pix_fmt", pix_fmt_in, "-"],
                         capture_output=True, check=True).stdout
    return frames, np.frombuffer(raw, dtype).reshape(-1, H, W, 3)


@pytest.mark.parametrize("codec, name, pix_fmt_in, stored", [
    ("ffv1", "a.mkv", "rgb24", "bgr0"), ("ffv1", "b.mkv", "rgb48le", "gbrp16le"),
    ("utvideo", "u.mkv", "rgb24", "gbrp"), ("png", "p.mov", "rgb24", "rgb24"),
    ("png", "q.mov", "rgb48le", "rgb48be")])
def test_a_lossless_codec_gives_back_every_code(tmp_path, codec, name, pix_fmt_in, stored):
    dtype = np.uint16 if pix_fmt_in == "rgb48le" else np.uint8
    frames, back = written_and_read(tmp_path / name, codec, pix_fmt_in, dtype)
    assert back.shape == frames.shape
    assert np.array_equal(back, frames)
    assert probe(str(tmp_path / name)).pix_fmt.startswith(f"{stored}(")


def test_rgb_outputs_are_tagged_with_the_gbr_matrix_and_srgb(tmp_path):
    """An RGB stream says no YUV matrix (ffmpeg's gbr) and sRGB's primaries and
    transfer; ProRes 4444 is YUV 4:4:4 and keeps BT.709's."""
    for codec, name, tags in (("png", "p.mov", "gbr/bt709/iec61966-2-1"),
                              ("ffv1", "f.mkv", "gbr/bt709/iec61966-2-1"),
                              ("utvideo", "u.mkv", "gbr/bt709/iec61966-2-1")):
        written_and_read(tmp_path / name, codec, "rgb24", np.uint8)
        assert f", {tags}, " in probe(str(tmp_path / name)).pix_fmt
    cmd = encode_command("x.mov", 24, (W, H), "prores_ks", pix_fmt_in="rgb24")
    assert cmd[cmd.index("-pix_fmt", cmd.index("-c:v")) + 1] == "yuv422p10le"
    assert cmd[cmd.index("-colorspace") + 1] == "bt709"


def test_fx_4_2_0_planes_stay_planes_in_a_lossless_codec():
    """fx's 4:2:0 planes blended as stored go into FFV1 as they are (an RGB default would
    convert them untagged)."""
    cmd = encode_command("x.mkv", 24, (W, H), "ffv1", pix_fmt_in="yuv420p")
    assert cmd[cmd.index("-pix_fmt", cmd.index("-c:v")) + 1] == "yuv420p"


@pytest.mark.parametrize("output,flags,fmt", [
    ("p.mov", ["--codec", "png"], "rgb48be"), ("p.mkv", ["--codec", "png"], "rgb48be"),
    ("r.mov", ["--codec", "prores_ks"], "yuv422p10le"), ("v.mp4", [], "yuv420p10le")])
def test_bit_depth_in_a_video_names_a_deep_format_its_encoder_takes(tmp_path, capsys, output,
                                                                    flags, fmt):
    """--bit-depth 16 with --codec png advised --pix-fmt yuv420p10le, which png refuses."""
    out = tmp_path / output
    code = main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "0.1",
                 "--bit-depth", "16", *flags])
    assert code == 2 and capsys.readouterr().err == (
        f"hfrender: error: --bit-depth 16: -o {out} is a video, whose encoder's pixel format "
        f"decides (e.g. --pix-fmt {fmt}); --bit-depth is for PNG (8, 16) and EXR (16, 32) "
        "outputs\n")
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "0.1",
                 "--pix-fmt", fmt, "--quiet", *flags]) == 0  # the advice taken
    assert probe(str(out)).pix_fmt.split("(")[0] == fmt


def test_bit_depth_in_a_transparent_png_video_names_its_16_bit_alpha_format():
    from hfrender.config import ConfigError
    from hfrender.engine.deep_output import output_dtype

    with pytest.raises(ConfigError) as told:
        output_dtype("a.mov", 16, False, "png", alpha=True)
    assert str(told.value) == ("--bit-depth 16: -o a.mov is a video, whose encoder's pixel "
                               "format decides (e.g. --pix-fmt rgba64be); --bit-depth is for "
                               "PNG (8, 16) and EXR (16, 32) outputs")
