"""Video colours and pixel shape: RGB frames go into a YUV video with BT.709's matrix and
say so in its tags (players read untagged HD as BT.709; ffmpeg converted untagged with
BT.601's); fx's YUV planes passed through unconverted keep their source's tags, and fx
keeps non-square pixels and the footage's timecode."""

import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from hfrender.cli import main
from hfrender.io.footage import probe

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H = 64, 32
BARS = np.array([(0, 255, 0), (255, 0, 0), (0, 0, 255), (200, 100, 50)], np.uint8)
SHADER = """void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    float x = fragCoord.x / iResolution.x;
    vec3 c = x < 0.25 ? vec3(0.0, 1.0, 0.0) : x < 0.5 ? vec3(1.0, 0.0, 0.0)
           : x < 0.75 ? vec3(0.0, 0.0, 1.0) : vec3(200.0, 100.0, 50.0) / 255.0;
    fragColor = vec4(c, 1.0);
}
"""


def decoded_as(path, matrix=None):
    """The first frame of ``path``, converted to 8-bit RGB with ``matrix`` whatever its tags
    say (None: as its tags say, as a player reads it), rounded (ffmpeg's default truncates:
    10-bit grey 128 came back 126)."""
    scale = [] if matrix is None else ["-vf", f"scale=in_color_matrix={matrix}:in_range=tv"]
    out = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          *scale, "-sws_flags", "accurate_rnd+full_chroma_int", "-frames:v",
                          "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(out, np.uint8).reshape(H, W, 3)


def bars_of(frame):
    """Each bar's colour, from the middle of the bar."""
    return frame[H // 2, [W // 8 + i * W // 4 for i in range(4)]].astype(int)


def bars_clip(path, matrix, space, primaries, trc):
    """A 4:2:0 H.264 clip of the bars, converted with ``matrix`` and tagged with the rest."""
    raw = np.broadcast_to(np.repeat(BARS, W // 4, axis=0)[None], (H, W, 3))
    said = f"colorspace={space}:color_primaries={primaries}:color_trc={trc}:range=tv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", "30", "-i", "-", "-vf",
                    f"scale=out_color_matrix={matrix}:out_range=tv,setparams={said}",
                    "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", str(path)],
                   input=np.ascontiguousarray(raw).tobytes() * 6, check=True)
    return path


@pytest.mark.parametrize("name, flags, described", [
    ("bars.mp4", ["--crf", "0"], "yuv420p(tv, bt709, "),
    ("bars.webm", ["--crf", "0"], "yuv420p(tv, bt709, "),
    ("bars.mov", ["--codec", "prores_ks"], "yuv422p10le(tv, bt709, "),  # ProRes 422 HQ
    ("bars10.mp4", ["--crf", "0", "--pix-fmt", "yuv420p10le"], "yuv420p10le(tv, bt709, "),
])
def test_a_render_is_bt709_and_tagged_so(tmp_path, name, flags, described):
    """Each YUV output: converted with BT.709's matrix in limited range, tagged so (matrix,
    primaries, transfer, range), and read back as its tags say (as a player reads it) the
    bars' own codes within the 4:2:0 / 4:2:2 chroma's few."""
    shader = tmp_path / "bars.frag"
    shader.write_text(SHADER)
    out = tmp_path / name
    assert main(["render", str(shader), "-o", str(out), "--size", f"{W}x{H}", "--duration",
                 "0.1", "--samples", "1", "--quiet", *flags]) == 0
    assert probe(str(out)).pix_fmt.startswith(described)  # all three, and the range
    assert np.abs(bars_of(decoded_as(out)) - BARS).max() <= 2
    assert np.abs(bars_of(decoded_as(out, "bt709")) - BARS).max() <= 2
    # read with BT.601's matrix (what it was converted with before) pure green is off by 40
    assert np.abs(bars_of(decoded_as(out, "bt601")) - BARS).max() > 20


def test_a_gif_holds_the_codes(tmp_path):
    """A GIF has no colour tags (browsers show its palette as sRGB): its palette holds the
    bars' sRGB codes exactly."""
    shader = tmp_path / "bars.frag"
    shader.write_text(SHADER)
    out = tmp_path / "bars.gif"
    assert main(["render", str(shader), "-o", str(out), "--size", f"{W}x{H}", "--duration",
                 "0.1", "--samples", "1", "--quiet"]) == 0
    np.testing.assert_array_equal(bars_of(decoded_as(out)), BARS)


def test_fx_gives_bt709_footage_back_in_its_colours_and_tags(tmp_path):
    clip = bars_clip(tmp_path / "in.mp4", "bt709", "bt709", "bt709", "bt709")
    out = tmp_path / "out.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "1", "--crf", "0",
                 "--quiet"]) == 0
    assert probe(str(out)).pix_fmt.startswith("yuv420p(tv, bt709, ")  # all three
    assert np.abs(bars_of(decoded_as(out, "bt709")) - BARS).max() <= 4


def test_fx_passes_the_sources_tags_on_with_its_planes(tmp_path):
    """--gamma-space on 4:2:0 blends the YUV planes themselves: no conversion, and the
    output says what the source said (an SD clip's BT.601 here)."""
    clip = bars_clip(tmp_path / "in.mp4", "bt601", "bt470bg", "bt470bg", "smpte170m")
    assert probe(str(clip)).native_yuv420p
    out = tmp_path / "out.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--gamma-space",
                 "--crf", "0", "--quiet"]) == 0
    said = probe(str(clip)).pix_fmt
    assert said.startswith("yuv420p(tv, bt470bg/bt470bg/smpte170m"), said
    assert probe(str(out)).pix_fmt == said
    np.testing.assert_array_equal(decoded_as(out, "bt601"), decoded_as(clip, "bt601"))


@pytest.mark.parametrize("name, flags, aspect", [
    ("in.mp4", [], ["-vf", "setsar=4/3"]),
    ("in.mp4", ["--gamma-space"], ["-vf", "setsar=4/3"]),
    ("in.mkv", [], ["-aspect", "8:3"]),  # the container's own (VP9 has none of its own)
])
def test_fx_keeps_anamorphic_footages_pixel_aspect(tmp_path, name, flags, aspect):
    """64x32 pixels of 4:3 show a 2.67:1 picture; the output said 1:1 (squashed)."""
    clip, made = tmp_path / name, tmp_path / ("vp9.webm" if name == "in.mkv" else name)
    run = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y"]
    subprocess.run([*run, "-f", "lavfi", "-i", f"testsrc2=s={W}x{H}:r=30:d=0.3",
                    *(aspect if made == clip else []), "-pix_fmt", "yuv420p", str(made)],
                   check=True)
    if made != clip:  # the aspect in the container alone: ", SAR 4:3" unbracketed
        subprocess.run([*run, "-i", str(made), "-c", "copy", *aspect, str(clip)], check=True)
    assert probe(str(clip)).sar == "4:3"
    out = tmp_path / "out.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet",
                 *flags]) == 0
    assert probe(str(out)).sar == "4:3"


@pytest.mark.parametrize("size, matrix", [((1280, 720), "bt709"), ((640, 480), "bt601")])
def test_fx_reads_untagged_footage_as_players_do(tmp_path, size, matrix):
    """Untagged HD is BT.709 to players (mpv, browsers), SD BT.601: fx reads it so, and its
    output, tagged BT.709, shows the same colours (read as BT.601 HD shifted green by 21)."""
    w, h = size
    raw = np.broadcast_to(np.repeat(BARS, w // 4, axis=0)[None], (h, w, 3))
    clip = tmp_path / "in.mp4"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", "30", "-i", "-", "-vf",
                    f"scale=out_color_matrix={matrix}:out_range=tv", "-c:v", "libx264", "-qp",
                    "0", "-pix_fmt", "yuv420p", "-frames:v", "2", "-bsf:v",  # 2: unspecified
                    "h264_metadata=colour_primaries=2:transfer_characteristics=2:"
                    "matrix_coefficients=2", str(clip)],
                   input=np.ascontiguousarray(raw).tobytes() * 2, check=True)
    assert probe(str(clip)).pix_fmt.startswith("yuv420p(tv, progressive)")  # no colour space
    out = tmp_path / "out.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "1", "--crf", "0",
                 "--quiet"]) == 0
    got = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(out),
                          "-vf", "scale=in_color_matrix=bt709:in_range=tv", "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    frame = np.frombuffer(got, np.uint8).reshape(h, w, 3)
    bars = frame[h // 2, [w // 8 + i * w // 4 for i in range(4)]].astype(int)
    assert np.abs(bars - BARS).max() <= 4


@pytest.mark.parametrize("name", ["out.mov", "out.mp4"])
def test_fx_keeps_the_footages_timecode(tmp_path, name):
    """An editor conforms a clip by its timecode: 01:00:00:00 in, 01:00:00:00 out (it was
    dropped); with a stride, the output's rate is another clip's, and none is given."""
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.4", "-timecode", "01:00:00:00", "-pix_fmt",
                    "yuv420p", str(clip)], check=True)
    assert probe(str(clip)).timecode == "01:00:00:00"
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert probe(str(out)).timecode == "01:00:00:00"
    assert main(["fx", str(clip), "-o", str(tmp_path / f"s{name}"), "--motion-blur", "2",
                 "--stride", "2", "--quiet"]) == 0
    assert probe(str(tmp_path / f"s{name}")).timecode == ""


@pytest.mark.parametrize("codec, pix_fmt, name", [("libx264rgb", None, "a.mp4"),
                                                  ("ffv1", "bgr0", "a.mkv"),
                                                  ("qtrle", None, "a.mov")])  # its own rgb24
def test_an_rgb_video_is_tagged_srgb(tmp_path, codec, pix_fmt, name):
    """RGB outputs (libx264rgb, FFV1 bgr0) were tagged gbr/unknown/unknown (a colourist's
    trial): hfrender's frames are sRGB, BT.709's primaries and the sRGB transfer."""
    shader = tmp_path / "bars.frag"
    shader.write_text(SHADER)
    out = tmp_path / name
    assert main(["render", str(shader), "-o", str(out), "--size", f"{W}x{H}", "--duration",
                 "0.1", "--samples", "1", "--codec", codec, "--quiet",
                 *(["--pix-fmt", pix_fmt] if pix_fmt else [])]) == 0
    assert "gbr/bt709/iec61966-2-1, " in probe(str(out)).pix_fmt  # (qtrle: was YUV's tags)


SRGB_CHROMATICITY = (0.3127, 0.329, 0.64, 0.33, 0.3, 0.6, 0.15, 0.06)  # D65, BT.709's


@pytest.mark.parametrize("command, bits", [("still", "8"), ("still", "16"), ("render", "8"),
                                           ("render", "16")])
def test_a_png_says_it_is_srgb(tmp_path, command, bits):
    """PNGs had no colour chunk (a colourist's trial): an sRGB chunk says their codes are,
    and the gAMA and cHRM the PNG standard asks beside it (11.3.2.5: gamma 45455, BT.709's
    primaries, D65) say it to readers that know no sRGB chunk (were missing: such a reader
    took the codes as of unknown gamma). The pixels are the shader's codes."""
    import io

    from PIL import Image

    from hfrender.io.images import read_png

    shader = tmp_path / "bars.frag"
    shader.write_text(SHADER)
    out = tmp_path / ("s.png" if command == "still" else "%02d.png")
    assert main([command, str(shader), "-o", str(out), "--size", f"{W}x{H}", "--samples", "1",
                 "--bit-depth", bits, "--quiet", *(["--duration", "0.1"] * (command == "render"))
                 ]) == 0
    first = tmp_path / ("s.png" if command == "still" else "00.png")
    data = first.read_bytes()
    assert data[24] == int(bits)  # IHDR's bit depth
    info = Image.open(io.BytesIO(data)).info
    assert info["srgb"] == 0  # perceptual intent
    assert info["gamma"] == 0.45455
    np.testing.assert_allclose(info["chromaticity"], SRGB_CHROMATICITY, atol=1e-9)
    assert data.index(b"gAMA") < data.index(b"IDAT") and data.index(b"cHRM") < data.index(b"IDAT")
    codes = read_png(first)[..., :3].astype(int) // (257 if bits == "16" else 1)
    np.testing.assert_array_equal(bars_of(codes), BARS)


LEVELS = np.array([(255, 255, 255), (128, 128, 128), (255, 102, 26), (0, 0, 0)])
LEVELS_SHADER = """void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    float x = fragCoord.x / iResolution.x;
    vec3 c = x < 0.25 ? vec3(255.0) : x < 0.5 ? vec3(128.0) : x < 0.75
           ? vec3(255.0, 102.0, 26.0) : vec3(0.0);
    fragColor = vec4(c / 255.0, 1.0);
}
"""


def bt709_codes(rgb, bits):
    """Y, Cb, Cr of 8-bit sRGB codes in BT.709 limited range at ``bits`` (from the
    standard: Y 16..235, chroma 16..240 of 8 bits, times 2^(bits - 8))."""
    r, g, b = (np.asarray(rgb, float) / 255).T
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    scale = 2 ** (bits - 8)
    return np.rint(np.stack([(16 + 219 * y), 128 + 224 * (b - y) / 1.8556,
                             128 + 224 * (r - y) / 1.5748], -1) * scale).astype(int)


def planes_of(path, pix_fmt, planes):
    """The first frame of ``path`` as its 16-bit ``pix_fmt`` planes (no conversion; one
    "plane" of packed RGB)."""
    out = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(out, "<u2").reshape(planes, H, -1)


@pytest.mark.parametrize("name, flags, pix_fmt, bits", [
    ("l.mkv", ["--codec", "ffv1", "--pix-fmt", "yuv444p10le"], "yuv444p10le", 10),
    ("l.mov", ["--codec", "prores_ks", "--pix-fmt", "yuva444p10le"], "yuva444p12le", 12),
])  # (ProRes 4444 holds 12 bits)
def test_a_deep_yuv_video_has_the_standards_levels(tmp_path, name, flags, pix_fmt, bits):
    """An audit: 16-bit frames into 10-bit YUV made white Y 943, not 940 (ProRes 12-bit
    3772, not 3760): ffmpeg's scaler takes 16-bit RGB's white as 65280."""
    shader = tmp_path / "levels.frag"
    shader.write_text(LEVELS_SHADER)
    out = tmp_path / name
    assert main(["render", str(shader), "-o", str(out), "--size", f"{W}x{H}", "--duration",
                 "0.1", "--samples", "1", "--quiet", *flags]) == 0
    planes = planes_of(out, pix_fmt, 4 if "yuva" in pix_fmt else 3)
    got = planes[:3, H // 2, [W // 8 + i * W // 4 for i in range(4)]].T
    if bits == 10:  # lossless: the standard's codes exactly
        np.testing.assert_array_equal(got, bt709_codes(LEVELS, bits))
    else:  # ProRes: lossy, within a code or two of 4096
        assert np.abs(got - bt709_codes(LEVELS, bits)).max() <= 2, got
        assert (planes[3] == 4095).all()


def test_deep_yuv_footage_reads_white_as_white(tmp_path):
    """A 10-bit clip's white (Y 940) was read as 65283 of 65535, and 16-bit PNGs of it held
    65283; its levels read are the standard's inverse (black 0, white 65535)."""
    clip = tmp_path / "w.mkv"
    raw = np.broadcast_to(np.repeat(LEVELS, W // 4, axis=0)[None], (H, W, 3)).astype("<u2")
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb48le", "-s", f"{W}x{H}", "-r", "30", "-i", "-", "-vf",
                    "zscale=matrix=709:range=limited", "-c:v", "ffv1", "-pix_fmt",
                    "yuv444p10le", str(clip)], input=(raw * 257).tobytes() * 3, check=True)
    np.testing.assert_array_equal(  # (zscale made the standard's codes)
        planes_of(clip, "yuv444p10le", 3)[:, H // 2, [W // 8 + i * W // 4 for i in range(4)]].T,
        bt709_codes(LEVELS, 10))
    assert main(["fx", str(clip), "-o", str(tmp_path / "o" / "%02d.png"), "--motion-blur",
                 "2", "--quiet"]) == 0
    frame = planes_of(tmp_path / "o" / "01.png", "rgb48le", 1)  # (Pillow reads 8 bits)
    bars = frame.reshape(H, W, 3)[H // 2, [W // 8 + i * W // 4 for i in range(4)]]
    bars = bars.astype(int)
    assert bars[0].tolist() == [65535] * 3 and bars[3].tolist() == [0] * 3
    assert np.abs(bars - LEVELS * 257).max() <= 80  # 10 bits' steps: 64 of 16 bits


def test_full_range_deep_yuv_footage_is_read_without_the_limited_ranges_factor(tmp_path):
    """A review: the factor that puts limited range's white (65280 for ffmpeg's scaler) at
    65535 was applied to full-range footage too, whose white the scaler puts at 65472:
    1020..1023 all came out 65535, grey 0.4% bright. Full range is read as the scaler
    reads it: each code within 64 of its 16-bit place."""
    clip = tmp_path / "full.mkv"
    raw = np.broadcast_to(np.repeat(LEVELS, W // 4, axis=0)[None], (H, W, 3)).astype("<u2")
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb48le", "-s", f"{W}x{H}", "-r", "30", "-i", "-", "-vf",
                    "zscale=matrix=709:range=full", "-color_range", "pc", "-c:v", "ffv1",
                    "-pix_fmt", "yuv444p10le", str(clip)], input=(raw * 257).tobytes() * 3,
                   check=True)
    assert "(pc" in probe(str(clip)).pix_fmt
    from hfrender.io.footage import open_footage

    footage = open_footage(str(clip), pix_fmt="rgb")
    frame = np.empty((H, W, 3), np.uint16)
    assert footage.read_into(frame)
    footage.close()
    bars = frame[H // 2, [W // 8 + i * W // 4 for i in range(4)]].astype(int)
    assert np.abs(bars - LEVELS * 257).max() <= 70, bars


def test_an_exr_holds_linear_light(tmp_path):
    """An EXR holds the bars' linear light (code 200 is 0.5775804 by the sRGB curve), not
    their sRGB codes / 255 (0.784), within half float's precision."""
    pytest.importorskip("OpenEXR")
    from hfrender.io.exr_files import read_exr

    shader = tmp_path / "bars.frag"
    shader.write_text(SHADER)
    assert main(["render", str(shader), "-o", str(tmp_path / "e" / "%02d.exr"), "--size",
                 f"{W}x{H}", "--duration", "0.1", "--samples", "1", "--quiet"]) == 0
    frame = read_exr(tmp_path / "e" / "00.exr")[..., :3].astype(np.float64)
    got = frame[H // 2, [W // 8 + i * W // 4 for i in range(4)]]
    c = BARS / 255  # the sRGB curve, from IEC 61966-2-1 (not hfrender's)
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    np.testing.assert_allclose(got, linear, rtol=1e-3, atol=1e-6)
