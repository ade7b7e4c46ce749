"""fx on EXR sequences: float linear light in (a compositor's render, highlights past white,
alpha premultiplied as EXR holds it), float out to an EXR sequence, 16-bit sRGB codes to a
PNG sequence, a video from those; what it refuses, in one line. Multi-part and multilayer
EXRs, their passes and pictures' attributes are in test_fx_exr_passes.py."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main

pytest.importorskip("OpenEXR")
from fx_exr_helpers import DOF, LENS, H, W, outputs, shot

from hfrender.io.exr_files import encode_exr, read_exr  # noqa: E402
from hfrender.io.images import read_png  # noqa: E402


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_an_exr_shot_defocused_into_exr_is_the_libraries_light(tmp_path, rng, monkeypatch,
                                                                method):
    """The lamp's bokeh keeps its light past white (8-bit footage clips it at the source);
    each frame is ``hf.depth_of_field`` of it, as float32."""
    frames, depth = shot(tmp_path, rng)
    monkeypatch.chdir(tmp_path)
    assert main(["fx", "in/%04d.exr", "-o", "out/%04d.exr", "--dof-method", method,
                 *DOF]) == 0
    got = outputs(tmp_path / "out", 6, ".exr")
    assert got.dtype == np.float32
    want = hf.depth_of_field(frames, depth, method=method, **LENS)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    lit = got[0, ..., 0] > 1.0
    assert lit.sum() > 9  # a disc past white, not the lamp's one pixel
    np.testing.assert_allclose(got[0].sum(), frames[0].sum(), rtol=1e-3)


def test_an_exr_shot_blurred_into_png_is_16_bit_codes_of_the_light(tmp_path, rng):
    frames, _ = shot(tmp_path, rng)
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "png" / "%04d.png"),
                 "--motion-blur", "3", "--stride", "3", "--quiet"]) == 0
    got = outputs(tmp_path / "png", 2, ".png")
    assert got.dtype == np.uint16
    want = hf.from_linear(hf.motion_blur(frames, 3), np.uint16)
    np.testing.assert_array_equal(got, want)


def test_premultiplied_alpha_stays_in_exr_and_goes_straight_in_png(tmp_path, rng):
    """A still shot through a window of 2: EXR gives back the premultiplied frames; a PNG
    (straight alpha) the colour over its alpha: the half-covered column's colour as full."""
    frames, _ = shot(tmp_path, rng, alpha=True)
    frames[:] = frames[0]
    for i, f in enumerate(frames):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", f)
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "e" / "%04d.exr"),
                 "--motion-blur", "2", "--quiet"]) == 0
    np.testing.assert_allclose(outputs(tmp_path / "e", 6, ".exr"), frames, rtol=1e-6)
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "p" / "%04d.png"),
                 "--motion-blur", "2", "--quiet"]) == 0
    png = outputs(tmp_path / "p", 6, ".png")
    straight = frames[0].copy()
    straight[:, 56:, :3] /= np.float32(0.5)
    np.testing.assert_array_equal(png[0], hf.from_linear(straight, np.uint16))
    assert png[0, 0, 60, 3] == 32768 and png[0, 0, 0, 3] == 65535


def test_an_exr_shot_into_a_video_is_its_light_encoded(tmp_path, rng):
    import imageio.v3 as iio

    frames, _ = shot(tmp_path, rng)
    frames[..., :3] = np.linspace(0, 1, W, dtype=np.float32)[None, None, :, None]  # a ramp
    for i, f in enumerate(frames):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", f)
    out = tmp_path / "o.mp4"
    assert main(["fx", str(tmp_path / "in"), "-o", str(out), "--motion-blur", "2",
                 "--pix-fmt", "yuv444p", "--crf", "0", "--quiet"]) == 0
    video = np.stack(list(iio.imiter(out)))
    assert video.shape == (6, H, W, 3)
    off = np.abs(video[3].astype(int) - hf.from_linear(frames[0], np.uint8))
    assert off.max() <= 3 and off.mean() < 1  # the encoder's YUV round trip


def test_what_fx_refuses_of_exr_is_one_line(tmp_path, rng, capsys):
    frames, _ = shot(tmp_path, rng)
    src = str(tmp_path / "in")
    assert main(["fx", src, "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                 "--gamma-space"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: --gamma-space: {src} is float "
                                       "linear light (EXR), with no code values to blend\n")
    bad = frames[2].copy()
    bad[3, 7, 1] = np.nan
    encode_exr(tmp_path / "in" / "0002.exr", bad)
    assert main(["fx", src, "-o", str(tmp_path / "n" / "%04d.exr"), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: {tmp_path / 'in' / '0002.exr'}: 1 NaN or infinite value(s), the "
        "first at pixel (7, 3); fx needs finite light")
    assert not list((tmp_path).glob("n/0*.exr"))  # nothing half-written looks complete


def test_png_footage_into_exr_is_refused_in_one_line(tmp_path, rng, capsys):
    import imageio.v3 as iio

    (tmp_path / "in").mkdir()
    for i in range(3):
        iio.imwrite(tmp_path / "in" / f"{i:04d}.png", rng.integers(0, 256, (8, 8, 3), np.uint8))
    out = str(tmp_path / "o" / "%04d.exr")
    assert main(["fx", str(tmp_path / "in"), "-o", out, "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: an image sequence is written as PNG (EXR from EXR "
        "footage alone: this footage's light stops at white): use a name like "
        "frames/%05d.png\n")


def test_half_floats_stay_half_and_light_past_coverage_is_kept_in_png(tmp_path, rng):
    """A half-float shot comes out half (float32 in, float32 out: above); a lamp 20x white
    over nothing, streaked over 4 frames (light 5x its coverage of 0.25) into a straight-
    alpha PNG: its alpha raised to the light, as ``render --hdr`` writes it (divided, it
    would be cut to white at 0.25 coverage: a quarter of its light over black)."""
    frames = np.zeros((4, 8, 12, 4), np.float32)
    for i in range(4):
        frames[i, 3, 2 + i] = (20.0, 20.0, 20.0, 1.0)
        frames[i, 6, 1:11, :] = rng.random((10, 4), dtype=np.float32) * np.float32(0.5)
        frames[i, 6, 1:11, :3] *= frames[i, 6, 1:11, 3:]  # premultiplied
    (tmp_path / "in").mkdir()
    for i, f in enumerate(frames.astype(np.float16)):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", f)
    args = ["--motion-blur", "4", "--stride", "4", "--quiet"]
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "e" / "%04d.exr"),
                 *args]) == 0
    half = read_exr(tmp_path / "e" / "0000.exr")
    assert half.dtype == np.float16
    blend = hf.motion_blur(frames.astype(np.float16).astype(np.float32), 4)[0]
    np.testing.assert_array_equal(half, blend.astype(np.float16))
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "p" / "%04d.png"),
                 *args]) == 0
    png = read_png(tmp_path / "p" / "0000.png")
    assert png[3, 2:6].tolist() == [[65535] * 4] * 4  # 5x its coverage: white, opaque
    assert png[3, 0, 3] == 0 and png[6, 0, 3] == 0  # nothing there


def test_an_exr_with_a_bounding_box_and_one_file_alone_are_read_as_pictures(tmp_path, rng):
    """A compositor's EXR keeps its pixels in a data window (a bounding box) inside its
    display window: read where they lie, transparent black around them (they were read as
    the picture, moved to its corner); an EXR file alone is one frame of float light (it
    went to ffmpeg, which took its light for codes: up to 53153 of 65535 off)."""
    import OpenEXR as exr

    box = rng.random((6, 8, 4), dtype=np.float32)
    (tmp_path / "in").mkdir()
    for i in range(2):
        header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage,
                  "dataWindow": ((2 + i, 1), (9 + i, 6)), "displayWindow": ((0, 0), (15, 11))}
        with exr.File(header, {"RGBA": box}) as f:
            f.write(str(tmp_path / "in" / f"{i:04d}.exr"))
    want = np.zeros((2, 12, 16, 4), np.float32)
    want[0, 1:7, 2:10], want[1, 1:7, 3:11] = box, box
    np.testing.assert_array_equal(read_exr(tmp_path / "in" / "0001.exr"), want[1])
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "o" / "%04d.exr"),
                 "--motion-blur", "2", "--stride", "2", "--quiet"]) == 0
    np.testing.assert_allclose(read_exr(tmp_path / "o" / "0000.exr"), want.mean(0), rtol=1e-6)
    one = str(tmp_path / "in" / "0001.exr")
    np.save(tmp_path / "d.npy", np.ones((12, 16), np.float32))  # all in focus: as it is
    assert main(["fx", one, "-o", str(tmp_path / "s" / "%04d.exr"), "--depth",
                 str(tmp_path / "d.npy"), "--focus-distance", "1", "--f-stop", "2",
                 "--quiet"]) == 0
    np.testing.assert_array_equal(read_exr(tmp_path / "s" / "0001.exr"), want[1])  # its number


def test_exr_frames_of_no_float_type_or_of_two_types_are_one_line(tmp_path, rng, capsys):
    import OpenEXR as exr

    (tmp_path / "u").mkdir()
    for i in range(2):
        with exr.File({"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage},
                      {"RGB": rng.integers(0, 9, (4, 6, 3)).astype(np.uint32)}) as f:
            f.write(str(tmp_path / "u" / f"{i:04d}.exr"))
    assert main(["fx", str(tmp_path / "u"), "-o", str(tmp_path / "uo" / "%04d.exr"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {tmp_path / 'u' / '0000.exr'}: "
                                       "uint32 channels; fx reads EXR light as half or "
                                       "32-bit float\n")
    (tmp_path / "m").mkdir()
    frame = rng.random((4, 6, 3), dtype=np.float32)
    encode_exr(tmp_path / "m" / "0000.exr", frame.astype(np.float16))
    encode_exr(tmp_path / "m" / "0001.exr", frame * np.float32(1e5))  # past half's largest
    assert main(["fx", str(tmp_path / "m"), "-o", str(tmp_path / "mo" / "%04d.exr"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: {tmp_path / 'm' / '0001.exr'} is float32, but the sequence's "
        "first frame is half (float16), which the output keeps")


def test_an_exr_cut_short_is_said_damaged(tmp_path, rng, capsys):
    """Was: "cannot read X: Invalid part index '0': file has 0 parts." alone."""
    shot(tmp_path, rng, n=3)
    cut = tmp_path / "in" / "0001.exr"
    cut.write_bytes(cut.read_bytes()[:len(cut.read_bytes()) // 2])
    assert main(["fx", str(tmp_path / "in" / "%04d.exr"), "-o",
                 str(tmp_path / "o" / "%04d.exr"), "--motion-blur", "2", "--quiet"]) != 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"cannot read {cut}: damaged or cut short (OpenEXR" in last, last
    assert last.count("damaged") == 1, last  # (the review's: "damaged ... (OpenEXR: damaged")


def test_an_exr_of_another_size_in_a_sequence_is_refused_before_any_work(tmp_path, rng,
                                                                         capsys):
    """A compositor's trial: it was found mid-stream ("the 4 frames finished so far are
    in ..."); a PNG sequence's was refused up front, as this is now."""
    frames, _ = shot(tmp_path, rng)
    encode_exr(tmp_path / "in" / "0004.exr", frames[4][:, :32])
    out = tmp_path / "o" / "%04d.exr"
    assert main(["fx", str(tmp_path / "in"), "-o", str(out), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {tmp_path / 'in' / '0004.exr'}: "
                                       f"32x{H}, but the sequence starts at {W}x{H}\n")
    assert not (tmp_path / "o").exists()


def test_an_exr_shot_into_a_default_video_is_an_info_line_not_a_warning(tmp_path, rng,
                                                                          caplog):
    """footage.md's own example, EXR frames into an .mp4, warned every run that the EXR
    holds more than 8 bits, though float light into 8-bit H.264 is the documented path:
    now an info line (seen with -v) names the 10-bit codecs; none with --codec prores_ks.
    16-bit PNG footage into an .mp4 still warns: its own codes' bits are dropped."""
    from hfrender.io.images import encode_png16

    shot(tmp_path, rng)
    for extra, said in (([], True), (["--codec", "prores_ks"], False)):
        caplog.clear()
        out = tmp_path / f"o{len(extra)}.{'mov' if extra else 'mp4'}"
        with caplog.at_level("INFO"):
            assert main(["fx", str(tmp_path / "in"), "-o", str(out), "--motion-blur", "2",
                         "--quiet", *extra]) == 0
        assert [(r.levelname, r.getMessage()) for r in caplog.records
                if "bits" in r.getMessage()] == ([("INFO",
            f"{tmp_path / 'in'} is float light; {out} is written with 8 bits (its encoder's "
            "default): give --codec prores_ks (.mov), or --codec "
            "libx265 --pix-fmt yuv420p10le, to keep more")] if said else [])
    deep = tmp_path / "png16"
    deep.mkdir()
    codes = (rng.random((3, H, W, 3)) * 65535).astype(np.uint16)
    for i, frame in enumerate(codes):
        (deep / f"{i:04d}.png").write_bytes(encode_png16(frame))
    caplog.clear()
    out = tmp_path / "p.mp4"
    with caplog.at_level("INFO"):
        assert main(["fx", str(deep / "%04d.png"), "-o", str(out), "--motion-blur", "2",
                     "--quiet"]) == 0
    assert [(r.levelname, r.getMessage()) for r in caplog.records
            if "bits" in r.getMessage()] == [("WARNING",
        f"{deep / '%04d.png'} has more than 8 bits; {out} is written with 8 (its encoder's "
        "default): give --codec prores_ks (.mov), or --codec libx265 --pix-fmt yuv420p10le, "
        "to keep them")]
