"""Footage keeps its alpha and bit depth through `hfrender fx`; render writes 16-bit PNG
and EXR sequences for compositing."""

import logging
import subprocess

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest
from test_transparent import RUN, SCENE

import hfrender as hf
from hfrender.cli import main
from hfrender.color import decode_table, premultiply
from hfrender.io.ffmpeg import EXACT_SWS
from hfrender.io.images import encode_png16, read_png
from hfrender.io.probe import probe

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H, N, WINDOW = 32, 18, 8, 3


def _padded(frames, window=WINDOW):
    """fx at stride 1: frame 0 stands in for the frames before the clip (as tmix)."""
    return np.concatenate([np.repeat(frames[:1], window - 1, 0), frames])


def _straight_rgba(rng, dtype=np.uint8):
    top = np.iinfo(dtype).max
    frames = rng.integers(0, top + 1, (N, H, W, 4), dtype=np.int64).astype(dtype)
    frames[:, :4, :, 3] = 0  # fully transparent rows: their colour must not count
    frames[:, 4:8, :, 3] = top
    return frames


def _write_pngs(folder, frames):
    folder.mkdir()
    for i, f in enumerate(frames):
        path = folder / f"{i:03d}.png"
        if f.dtype == np.uint16:
            path.write_bytes(encode_png16(f))
        else:
            iio.imwrite(path, f)
    return str(folder / "%03d.png")


def _read_pngs(folder):
    return np.stack([read_png(f) for f in sorted(folder.glob("*.png"))])


def _fx(src, out, *more):
    assert main(["fx", str(src), "-o", str(out), "--motion-blur", str(WINDOW), "--stride",
                 "1", "--backend", "cpu", "--quiet", *more]) == 0


def _ffmpeg(*args):
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", *map(str, args)],
                   check=True)


def _decode(path, pix_fmt, c, dtype, *before):
    """The frames as fx decodes them (its exact YUV -> RGB: :data:`EXACT_SWS`)."""
    raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", *before, "-i",
                          str(path), *EXACT_SWS, "-f", "rawvideo", "-pix_fmt", pix_fmt, "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, dtype).reshape(-1, H, W, c)


def _smooth(rng, channels, n=N):
    """Smooth 16-bit gradients (few 8-bit steps, many 16-bit ones) plus a little noise."""
    x = np.linspace(0.2, 0.6, W)[None, None, :, None]
    t = np.linspace(0, 0.2, n)[:, None, None, None]
    base = np.broadcast_to(x + t, (n, H, W, channels)).copy()
    base += rng.normal(0, 0.002, base.shape)
    if channels == 4:
        base[..., 3] = np.linspace(0, 1, H)[None, :, None]
    return np.clip(np.rint(base * 65535), 0, 65535).astype(np.uint16)


def assert_same_light(got, want):
    """fx's straight-alpha output against the library's: the same alpha, and the same light
    over black within two codes (fx premultiplies in the footage's own codes, the library in
    float32: a faint pixel's straight colour is only as near as that rounding allows)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got[..., 3], want[..., 3])
    assert np.abs(premultiply(got).astype(int) - premultiply(want)).max() <= 2
    assert np.abs(got.astype(int) - want)[want[..., 3] >= want.max() // 2].max() <= 2


def test_rgba_png_sequence_keeps_alpha_and_blends_premultiplied(tmp_path, rng):
    frames = _straight_rgba(rng)
    _fx(_write_pngs(tmp_path / "in", frames), tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    assert got.shape == (N, H, W, 4) and got.dtype == np.uint8
    want = hf.motion_blur(_padded(frames), WINDOW, stride=1, backend="cpu",
                          premultiplied=False)
    assert_same_light(got, want)
    assert not got[:, :4].any()  # transparent stays transparent, colour 0


def test_16_bit_png_sequence_keeps_16_bits(tmp_path, rng):
    frames = rng.integers(0, 65536, (N, H, W, 3), dtype=np.int64).astype(np.uint16)
    _fx(_write_pngs(tmp_path / "in", frames), tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    assert got.dtype == np.uint16 and (got % 257 != 0).mean() > 0.9  # not 8 bits widened
    np.testing.assert_array_equal(
        got, hf.motion_blur(_padded(frames), WINDOW, stride=1, backend="cpu"))


def test_16_bit_rgba_png_sequence(tmp_path, rng):
    frames = _straight_rgba(rng, np.uint16)
    _fx(_write_pngs(tmp_path / "in", frames), tmp_path / "out" / "%03d.png")
    assert_same_light(_read_pngs(tmp_path / "out"), hf.motion_blur(
        _padded(frames), WINDOW, stride=1, backend="cpu", premultiplied=False))


def _white_at_65535(decoded: np.ndarray) -> np.ndarray:
    """ffmpeg's 16-bit RGB from YUV, whose white is 65280, on hfrender's scale (65535)."""
    return np.minimum(np.floor(decoded * (257 / 256) + 0.5), 65535).astype(np.uint16)


def test_10_bit_video_is_fused_at_16_bits(tmp_path, rng):
    src = tmp_path / "in.mov"  # ProRes 422 HQ, 10 bits
    (tmp_path / "in.raw").write_bytes(_smooth(rng, 3).astype("<u2").tobytes())
    _ffmpeg("-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", f"{W}x{H}", "-r", "30", "-i",
            tmp_path / "in.raw", "-c:v", "prores_ks", "-profile:v", "3", "-pix_fmt",
            "yuv422p10le", src)
    assert "10le" in probe(str(src)).pix_fmt
    _fx(src, tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    deep = _white_at_65535(_decode(src, "rgb48le", 3, "<u2"))
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, hf.motion_blur(_padded(deep), WINDOW, stride=1,
                                                      backend="cpu"))
    eight = hf.motion_blur(_padded(_decode(src, "rgb24", 3, np.uint8)), WINDOW, stride=1,
                           backend="cpu")
    assert len(np.unique(got)) > 4 * len(np.unique(eight))


def test_prores_4444_keeps_alpha_in_mov_and_png(tmp_path, rng):
    src = tmp_path / "in.mov"
    (tmp_path / "in.raw").write_bytes(_smooth(rng, 4).astype("<u2").tobytes())
    _ffmpeg("-f", "rawvideo", "-pix_fmt", "rgba64le", "-s", f"{W}x{H}", "-r", "30", "-i",
            tmp_path / "in.raw", "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt",
            "yuva444p10le", src)
    _fx(src, tmp_path / "out.mov")
    assert probe(str(tmp_path / "out.mov")).pix_fmt.startswith("yuva444p")
    _fx(src, tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    deep = _decode(src, "rgba64le", 4, "<u2").copy()
    deep[..., :3] = _white_at_65535(deep[..., :3])  # (its alpha ffmpeg scales to 65535)
    assert got.shape == (N, H, W, 4) and got.dtype == np.uint16
    assert_same_light(got, hf.motion_blur(_padded(deep), WINDOW, stride=1, backend="cpu",
                                          premultiplied=False))
    back = _decode(tmp_path / "out.mov", "rgba64le", 4, "<u2")  # 10 bits again: near
    assert np.abs(back[..., 3].astype(int) - got[..., 3]).max() < 200


def test_vp9_alpha_is_read_with_its_alpha(tmp_path, rng):
    src = tmp_path / "in.webm"
    frames = _straight_rgba(rng)
    (tmp_path / "in.raw").write_bytes(frames.tobytes())
    _ffmpeg("-f", "rawvideo", "-pix_fmt", "rgba", "-s", f"{W}x{H}", "-r", "30", "-i",
            tmp_path / "in.raw", "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", src)
    assert probe(str(src)).vp9_alpha
    _fx(src, tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    decoded = _decode(src, "rgba", 4, np.uint8, "-c:v", "libvpx-vp9")
    assert_same_light(got, hf.motion_blur(_padded(decoded), WINDOW, stride=1, backend="cpu",
                                          premultiplied=False))
    assert got[:, :4, :, 3].max() < 8 and got[:, 4:8, :, 3].min() > 247


def test_an_output_without_alpha_composites_over_black_and_says_so(tmp_path, rng, caplog):
    frames = _straight_rgba(rng)
    src = _write_pngs(tmp_path / "in", frames)
    with caplog.at_level(logging.WARNING):
        _fx(src, tmp_path / "out.mkv", "--codec", "libx264rgb", "--crf", "0")  # lossless
    assert sum("composited over black" in r.getMessage() for r in caplog.records) == 1
    got = _decode(tmp_path / "out.mkv", "rgb24", 3, np.uint8)
    want = hf.motion_blur(premultiply(_padded(frames)), WINDOW, stride=1, backend="cpu")
    np.testing.assert_array_equal(got, want[..., :3])


@pytest.mark.parametrize("kind", ["gif", "rgba png"])
def test_footage_with_alpha_that_covers_every_pixel_is_not_warned_of(tmp_path, rng, caplog,
                                                                      kind):
    """An opaque GIF (a GIF always decodes as RGBA) or an RGBA sequence whose alpha is all
    255 loses nothing over black (was: "has alpha ... composited over black" for each)."""
    frames = _straight_rgba(rng)
    frames[..., 3] = 255
    src = _write_pngs(tmp_path / "in", frames)
    if kind == "gif":
        _ffmpeg("-framerate", "24", "-i", src, tmp_path / "in.gif")
        src = tmp_path / "in.gif"
    with caplog.at_level(logging.WARNING):
        _fx(src, tmp_path / "out.mp4")
    assert not [r.getMessage() for r in caplog.records if "has alpha" in r.getMessage()]
    frames[0, 0, 0, 3] = 254  # one pixel of one frame: said, once
    src = _write_pngs(tmp_path / "in2", frames)
    with caplog.at_level(logging.WARNING):
        _fx(src, tmp_path / "out2.mp4")
    assert [r.getMessage() for r in caplog.records if "has alpha" in r.getMessage()] == [
        f"{src} has alpha; {tmp_path / 'out2.mp4'} keeps none: it is composited over black "
        "in linear light (write .mov, .webm or a PNG sequence to keep it; half alpha over "
        "black is not half the code value, as in an editor that composites code values)"]
    caplog.clear()  # a .webm with a pixel format of no alpha: composited too, and said (a
    with caplog.at_level(logging.WARNING):  # trial: its straight colour was written unsaid)
        _fx(src, tmp_path / "out3.webm", "--pix-fmt", "yuv420p")
    assert [r.getMessage() for r in caplog.records if "has alpha" in r.getMessage()] == [
        f"{src} has alpha; {tmp_path / 'out3.webm'} keeps none: it is composited over black "
        "in linear light (--pix-fmt yuv420p has none: leave it out, or give one with alpha, "
        "to keep it; half alpha over black is not half the code value, as in an editor that "
        "composites code values)"]
    src = _write_pngs(tmp_path / "in3", _straight_rgba(rng))  # rows 0-3 transparent
    _fx(src, tmp_path / "out4.webm", "--pix-fmt", "yuv420p")
    clear = iio.imread(tmp_path / "out4.webm", index=0)[:3].astype(int)  # black, not their
    assert clear.mean() < 8, clear.mean()  # straight colour (~127)

def _render(tmp_path, output, *flags):
    """test_transparent's sliding plane without a background, rendered to ``output``."""
    scene = tmp_path / "slide.py"
    scene.write_text(SCENE.format(background="None"))
    done = subprocess.run([*RUN, str(scene), "-o", str(output), *flags],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_render_16_bit_png_and_exr_match_the_8_bit_render(tmp_path):
    pytest.importorskip("OpenEXR")
    from hfrender.io.exr_files import read_exr

    _render(tmp_path, tmp_path / "p8" / "%02d.png")
    _render(tmp_path, tmp_path / "p16" / "%02d.png", "--bit-depth", "16")
    _render(tmp_path, tmp_path / "exr" / "%02d.exr")
    p8, p16 = _read_pngs(tmp_path / "p8"), _read_pngs(tmp_path / "p16")
    exr = np.stack([read_exr(f) for f in sorted((tmp_path / "exr").glob("*.exr"))])
    assert p16.dtype == np.uint16 and (p16 % 257 != 0).any()
    assert exr.dtype == np.float16 and exr.shape == p8.shape
    tol = 1 / 255 + 1e-6
    # premultiplied linear light (what composites over black) and alpha agree within 1/255
    lin8 = decode_table("uint8")[premultiply(p8)[..., :3]]
    lin16 = decode_table("uint16")[premultiply(p16)[..., :3]]
    assert np.abs(lin16 - lin8).max() <= tol
    assert np.abs(exr[..., :3].astype(np.float32) - lin8).max() <= tol  # linear, not sRGB
    assert np.abs(p16[..., 3] / 65535 - p8[..., 3] / 255).max() <= tol
    assert np.abs(exr[..., 3].astype(np.float32) - p8[..., 3] / 255).max() <= tol
    opaque = p8[..., 3] == 255  # straight colour agrees where alpha says it
    assert np.abs(p16[opaque][:, :3] / 65535 - p8[opaque][:, :3] / 255).max() <= tol
    assert exr[..., 3].min() == 0 and exr[..., 3].max() == 1
    _render(tmp_path, tmp_path / "exrt" / "%02d.exr", "--transparent")  # as the README has it
    exrt = np.stack([read_exr(f) for f in sorted((tmp_path / "exrt").glob("*.exr"))])
    np.testing.assert_array_equal(exrt, exr)


def test_odd_sized_prores_4444_goes_through_fx_into_mov(tmp_path):
    """ProRes takes odd sizes, and a .mov keeps alpha: fx refused 65x37 footage as if the
    output were libx264 in yuv420p (the check before the alpha was known)."""
    _render(tmp_path, tmp_path / "odd.mov", "--size", "65x37", "--transparent")
    _fx(tmp_path / "odd.mov", tmp_path / "out.mov")
    out = probe(str(tmp_path / "out.mov"))
    assert out.size == (65, 37) and out.pix_fmt.startswith("yuva444p")


def test_a_transparent_webm_of_hfrenders_keeps_its_alpha_in_fx(tmp_path):
    """render's VP9 with alpha is tagged ALPHA_MODE (upper case, as its muxer writes it):
    fx took it for an opaque video and wrote RGB, with no word of the alpha it lost."""
    _render(tmp_path, tmp_path / "clear.webm")
    assert probe(str(tmp_path / "clear.webm")).vp9_alpha
    _fx(tmp_path / "clear.webm", tmp_path / "out" / "%03d.png")
    got = _read_pngs(tmp_path / "out")
    assert got.shape[-1] == 4 and got[..., 3].min() == 0 and got[..., 3].max() == 255


def test_bit_depth_where_it_does_not_apply_is_one_line(tmp_path, capsys):
    scene = tmp_path / "slide.py"
    scene.write_text(SCENE.format(background="None"))
    code = main(["render", str(scene), "-o", str(tmp_path / "a.mp4"), "--bit-depth", "16",
                 "--size", "64x36", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and "--bit-depth 16" in err and "\n" not in err
    code = main(["render", str(scene), "-o", str(tmp_path / "f" / "%02d.exr"),
                 "--bit-depth", "8", "--size", "64x36", "--quiet"])
    assert code != 0 and "EXR frames are 16 or 32 bits" in capsys.readouterr().err
