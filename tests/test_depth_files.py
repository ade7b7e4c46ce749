"""``fx --depth`` from image files: a 16-bit PNG in colour (Pillow cuts it to 8 bits, so it
is read through ffmpeg) and an EXR's depth channel give the picture of the same depths as a
``.npy``; damaged files, wherever in a sequence, and depth that blurs nothing, in one line."""

import itertools

import numpy as np
import pytest
from test_hints import error_line, png_sequence

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError
from hfrender.io import depth_fit, depth_pass, depth_scale
from hfrender.io.depth_pass import open_depth
from hfrender.io.images import encode_png16, read_exr_depth
from hfrender.io.probe import FootageError

LENS = ["--focus-distance", "1.0", "--f-stop", "1.4", "--sensor-width-mm", "9", "--quiet"]


def scene(tmp_path, rng):
    import imageio.v3 as iio

    h, w, n = 36, 64, 3
    seq = tmp_path / "frames"
    seq.mkdir()
    for i in range(n):
        iio.imwrite(seq / f"{i:04d}.png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    depth = np.full((n, h, w), 4.0, np.float32)
    depth[:, 10:26, 20:44] = 1.0  # an in-focus card over a far wall
    depth[:, 30:, :] = rng.uniform(1.5, 3.0, (n, 6, w)).round(3)  # a floor (whole mm)
    np.save(tmp_path / "depth.npy", depth)
    assert main(["fx", str(seq), "-o", str(tmp_path / "want" / "%02d.png"), "--depth",
                 str(tmp_path / "depth.npy"), *LENS]) == 0
    return seq, depth


def outputs(folder):
    import imageio.v3 as iio

    return np.stack([iio.imread(f) for f in sorted(folder.iterdir())])


def grey_alpha_png16(grey):
    """A 16-bit grey-and-alpha PNG (colour type 4) of ``grey`` (H, W) uint16, opaque."""
    import struct
    import zlib

    from hfrender.io.images import PNG_MAGIC, _chunk

    h, w = grey.shape
    pixels = np.stack([grey, np.full_like(grey, 65535)], axis=-1).astype(">u2")
    rows = np.concatenate([np.zeros((h, 1), np.uint8), pixels.view(np.uint8).reshape(h, -1)],
                          axis=1)  # filter 0 (none) on every row
    ihdr = struct.pack(">IIBBBBB", w, h, 16, 4, 0, 0, 0)
    return (PNG_MAGIC + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(rows.tobytes()))
            + _chunk(b"IEND", b""))


@pytest.mark.parametrize("kind", ["rgb", "grey and alpha"])
def test_a_16_bit_colour_png_depth_is_read_at_16_bits(tmp_path, rng, caplog, kind):
    seq, depth = scene(tmp_path, rng)
    dseq = tmp_path / "depth"
    dseq.mkdir()
    for i, d in enumerate(depth):  # millimetres in all three channels, as a compositor saves
        mm = np.rint(d * 1000).astype(np.uint16)
        path = dseq / f"{i:04d}.png"
        path.write_bytes(encode_png16(np.stack([mm] * 3, axis=-1)) if kind == "rgb"
                         else grey_alpha_png16(mm))
        np.testing.assert_array_equal(depth_pass._read_image(path), mm)
    with caplog.at_level("WARNING"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "got" / "%02d.png"), "--depth",
                     str(dseq / "%04d.png"), "--depth-scale", "0.001", *LENS]) == 0
    assert not [r for r in caplog.records if "8-bit" in r.getMessage()]
    np.testing.assert_array_equal(outputs(tmp_path / "got"), outputs(tmp_path / "want"))


@pytest.mark.parametrize("channel", ["Z", "R", "depth.Z", "ViewLayer.Depth.Z"])
def test_an_exr_depth_sequence_is_read_from_its_depth_channel(tmp_path, rng, channel):
    exr = pytest.importorskip("OpenEXR")
    seq, depth = scene(tmp_path, rng)
    dseq = tmp_path / "depth"
    dseq.mkdir()
    for i, d in enumerate(depth):
        channels = {channel: d, "alpha": np.ones_like(d)} if channel != "R" else {"R": d}
        with exr.File({"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage},
                      channels) as f:
            f.write(str(dseq / f"{i:04d}.exr"))
    np.testing.assert_array_equal(read_exr_depth(dseq / "0000.exr"), depth[0])
    assert main(["fx", str(seq), "-o", str(tmp_path / "got" / "%02d.png"), "--depth",
                 str(dseq / "%04d.exr"), *LENS]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "got"), outputs(tmp_path / "want"))


@pytest.mark.parametrize("names, chosen", [
    (["ViewLayer.Combined.R", "ViewLayer.Denoising Depth.Z", "ViewLayer.Depth.Z",
      "ViewLayer.Mist.Z"], "ViewLayer.Depth.Z"),
    (["ViewLayer.Denoising Depth.Z", "ViewLayer.Mist.Z"], "ViewLayer.Denoising Depth.Z"),
    (["ViewLayer.Mist.Z", "ViewLayer.Normal.X", "ViewLayer.Normal.Z", "ViewLayer.Vector.Z"],
     None),
    (["ViewLayer.Depth.Z", "Z"], "Z"),
    (["B.Depth.Z", "A.Depth.Z", "A.Mist.Z"], "A.Depth.Z"),
    (["Depth.V", "Image.B", "Image.G", "Image.R"], "Depth.V"),  # Blender's File Output node
    (["distance"], "distance"),  # a file of one channel naming no pass: it is the depth
    (["ViewLayer.Mist.Z"], None), (["ViewLayer.Normal.Z"], None),  # alone, still no depth
])
def test_a_multilayer_exr_gives_its_depth_pass_not_another_z(names, chosen):
    """Blender's multilayer EXR holds several ``.Z`` channels: the depth pass is taken
    (``Depth.Z`` before a denoising depth, whichever sorts first), never the mist (0-1),
    the normals' or the vectors' Z, even as the file's only channel."""
    from hfrender.io.images import depth_channel

    assert depth_channel(names) == chosen


def test_an_exr_with_a_mist_pass_but_no_depth_is_refused_and_its_pass_named(tmp_path, rng,
                                                                           capsys, caplog):
    """Read with the right pass among a denoising depth and a mist (fx -v says which), and
    refused in one line where the file holds only a mist and normals."""
    exr = pytest.importorskip("OpenEXR")
    seq, depth = scene(tmp_path, rng)
    for folder, extra in (("good", True), ("mist", False)):
        (tmp_path / folder).mkdir()
        for i, d in enumerate(depth):
            channels = {"ViewLayer.Mist.Z": d / d.max(), "ViewLayer.Normal.Z": -np.ones_like(d)}
            if extra:
                channels["ViewLayer.Depth.Z"] = d
                channels["ViewLayer.Denoising Depth.Z"] = d * 2
            with exr.File({"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage},
                          channels) as f:
                f.write(str(tmp_path / folder / f"{i:04d}.exr"))
    with caplog.at_level("INFO", logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "got" / "%02d.png"), "--depth",
                     str(tmp_path / "good" / "%04d.exr"), *LENS]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "got"), outputs(tmp_path / "want"))
    assert [r.getMessage() for r in caplog.records if "channel" in r.getMessage()] == [
        f"depth {tmp_path / 'good' / '%04d.exr'}: each EXR's channel ViewLayer.Depth.Z"]
    caplog.clear()  # one EXR for every frame: said too (was: a sequence's alone)
    with caplog.at_level("INFO", logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "one" / "%02d.png"), "--depth",
                     str(tmp_path / "good" / "0000.exr"), *LENS]) == 0
    assert [r.getMessage() for r in caplog.records if "channel" in r.getMessage()] == [
        f"depth {tmp_path / 'good' / '0000.exr'}: its channel ViewLayer.Depth.Z"]
    capsys.readouterr()
    assert main(["fx", str(seq), "-o", str(tmp_path / "no" / "%02d.png"), "--depth",
                 str(tmp_path / "mist" / "%04d.exr"), *LENS]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: {tmp_path / 'mist' / '0000.exr'}: no depth channel (Z, "
                   "Depth.Z, Y or R) among ViewLayer.Mist.Z, ViewLayer.Normal.Z (a mist, "
                   "normal or vector pass is no distance: render the Z / Depth pass)\n"), err
    assert not (tmp_path / "no").exists()


def test_a_depth_pass_of_another_size_is_scaled_to_the_footage_when_asked(tmp_path, rng,
                                                                          capsys):
    """A depth estimator's pass at half the footage's size: refused in one line that names
    --depth-resize; with --depth-resize nearest each depth pixel covers 2x2 of the footage
    (the picture of that depth given at full size), with linear the picture of its inverse
    1/z interpolated between pixel centres (sky 0; was the metres themselves)."""
    seq, _ = scene(tmp_path, rng)
    half = rng.uniform(0.8, 4.0, (3, 18, 32)).astype(np.float32)
    half[:, :5, :8] = np.inf  # sky in a corner
    np.save(tmp_path / "half.npy", half)
    args = ["fx", str(seq), "--depth", str(tmp_path / "half.npy"), *LENS]
    assert main(args + ["-o", str(tmp_path / "no" / "%02d.png")]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: depth {tmp_path / 'half.npy'} is 32x18, the footage 64x36: they "
        "must match, or pass --depth-resize nearest (or linear) to scale the depth to the "
        "footage\n")
    assert not (tmp_path / "no").exists()
    for how, full in (("nearest", half.repeat(2, axis=1).repeat(2, axis=2)),
                      ("linear", np.stack([1 / bilinear(1 / d, 36, 64) for d in half]))):
        np.save(tmp_path / f"{how}.npy", full)
        assert main(["fx", str(seq), "--depth", str(tmp_path / f"{how}.npy"), *LENS, "-o",
                     str(tmp_path / f"want_{how}" / "%02d.png")]) == 0
        assert main(args + ["--depth-resize", how, "-o",
                            str(tmp_path / how / "%02d.png")]) == 0
        np.testing.assert_array_equal(outputs(tmp_path / how),
                                      outputs(tmp_path / f"want_{how}"))
    assert not np.array_equal(outputs(tmp_path / "nearest"), outputs(tmp_path / "linear"))
    np.save(tmp_path / "one.npy", half[0])  # one frame for all (a locked-off shot)
    np.save(tmp_path / "one_full.npy", half[0].repeat(2, axis=0).repeat(2, axis=1))
    for name in ("one", "one_full"):
        assert main(["fx", str(seq), "--depth", str(tmp_path / f"{name}.npy"), *LENS, "-o",
                     str(tmp_path / name / "%02d.png"), "--depth-resize", "nearest"]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "one"), outputs(tmp_path / "one_full"))


def test_depth_resize_on_a_pass_of_the_footages_size_is_said_once(tmp_path, rng, caplog):
    """--depth-resize linear on a depth pass already the footage's size was taken without a
    word (a user who meant to scale a smaller pass from elsewhere learns nothing); now one
    warning says the flag is not used (as --codec for an image sequence), and the picture is
    the pass's, as without the flag."""
    seq, _ = scene(tmp_path, rng)
    full = rng.uniform(0.8, 4.0, (3, 36, 64)).astype(np.float32)
    np.save(tmp_path / "z.npy", full)
    args = ["fx", str(seq), "--depth", str(tmp_path / "z.npy"), *LENS]
    assert main(args + ["-o", str(tmp_path / "plain" / "%02d.png")]) == 0
    assert main(args + ["--depth-resize", "linear", "-o",
                        str(tmp_path / "asked" / "%02d.png")]) == 0
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert said == [f"--depth-resize linear is not used: depth {tmp_path / 'z.npy'} is 64x36, "
                    "the footage's size already (nothing to scale)"]
    np.testing.assert_array_equal(outputs(tmp_path / "asked"), outputs(tmp_path / "plain"))


def bilinear(d, h, w):
    """``d`` (H, W) at (h, w) by pixel centres, one output pixel at a time (the reference),
    sky wherever any of it is taken."""
    out = np.empty((h, w), np.float32)
    for y in range(h):
        for x in range(w):
            sy = min(max((y + 0.5) * d.shape[0] / h - 0.5, 0), d.shape[0] - 1)
            sx = min(max((x + 0.5) * d.shape[1] / w - 0.5, 0), d.shape[1] - 1)
            y0, x0 = int(sy), int(sx)
            y1, x1 = min(y0 + 1, d.shape[0] - 1), min(x0 + 1, d.shape[1] - 1)
            ty, tx = sy - y0, sx - x0
            taps = [(d[y0, x0], (1 - ty) * (1 - tx)), (d[y0, x1], (1 - ty) * tx),
                    (d[y1, x0], ty * (1 - tx)), (d[y1, x1], ty * tx)]
            out[y, x] = sum(v * wt for v, wt in taps if wt > 0)
    return out


def test_resizing_keeps_sky_and_slopes():
    """Linear scaling of a slope in 1/z (a plane's) gives that slope between pixel centres
    (its ends held); a pixel between sky (inf, 1/z 0) and a depth takes a part of that
    depth's 1/z (halfway: twice as far), never NaN; nearest takes the pixel under each
    centre, also when shrinking."""
    ramp = 1 / (np.tile(np.arange(4, dtype=np.float32), (2, 1)) + 1)  # 1/z: 1 1/2 1/3 1/4
    rows, cols = depth_scale.taps(2, 2, "linear"), depth_scale.taps(4, 8, "linear")
    got = depth_scale.resample(1 / ramp, rows, cols)
    centres = [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3]  # in the 4 pixels, ends held
    np.testing.assert_allclose(1 / got[0], np.interp(centres, range(4), ramp[0]), rtol=1e-6)
    sky = np.float32([[np.inf, 2, np.inf]])
    got = depth_scale.resample(sky, depth_scale.taps(1, 1, "linear"),
                               depth_scale.taps(3, 6, "linear"))
    np.testing.assert_allclose(got[0], [np.inf, 8, 8 / 3, 8 / 3, 8, np.inf], rtol=1e-6)
    rng = np.random.default_rng(22)  # sizes whose centres fall on whole pixels in float64
    for (h, w), (fh, fw) in (((56, 100), (65, 116)), *[
            ((int(a), int(b)), (int(c), int(d))) for a, b, c, d in rng.integers(8, 130,
                                                                                  (40, 4))]):
        d = np.full((h, w), 3.0, np.float32)
        d[:, : w // 2] = np.inf
        got = depth_scale.resample(d, depth_scale.taps(h, fh, "linear"),
                                   depth_scale.taps(w, fw, "linear"))
        assert not np.isnan(got).any(), ((h, w), (fh, fw))
        assert np.isinf(got[:, 0]).all()
        np.testing.assert_allclose(got[:, -1], 3, rtol=1e-6)
    shrink = depth_scale.resample(np.arange(16, dtype=np.float32).reshape(4, 4),
                                  depth_scale.taps(4, 2, "nearest"),
                                  depth_scale.taps(4, 2, "nearest"))
    np.testing.assert_array_equal(shrink, [[5, 7], [13, 15]])


@pytest.mark.parametrize("shape, message", [
    ((3, 36, 36), "depth {path} is 36x36, the footage 64x36: another shape, which scaling "
                  "would stretch; crop or pad the depth to the footage's shape first"),
    ((3, 18, 32), "depth frame 1 is 16x9, its first 32x18: a depth pass's frames must be one "
                  "size"),
])
def test_a_depth_pass_that_cannot_be_scaled_is_one_line(tmp_path, rng, capsys, shape, message):
    import imageio.v3 as iio

    seq, _ = scene(tmp_path, rng)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i in range(shape[0]):
        h, w = shape[1:] if i == 0 else ((9, 16) if shape[1] == 18 else shape[1:])
        iio.imwrite(folder / f"{i:02d}.png", np.full((h, w), 2000, np.uint16))
    capsys.readouterr()
    assert main(["fx", str(seq), "--depth", str(folder), "--depth-scale", "0.001",
                 "--depth-resize", "linear", *LENS, "-o", str(tmp_path / "o" / "%02d.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: {message.format(path=folder)}")
    if "frame 1" in message:  # found once frame 0 was made: it is kept apart, and said
        assert err.endswith(f"; the 1 frame finished so far is in '{tmp_path / 'o'}"
                            f"/##.png.partial/%02d.png' ({tmp_path / 'o' / '%02d.png'} is "
                            "untouched)\n")
        assert [f.name for f in (tmp_path / "o").iterdir()] == ["##.png.partial"]
    else:
        assert err.count("\n") == 1 and not (tmp_path / "o").exists()


def test_a_depth_of_the_stored_shape_of_a_turned_clip_is_told_why(tmp_path):
    """A phone clip stored 320x180 and played upright (180x320): the depth of the stored
    shape was told to be scaled, then that scaling would stretch it."""
    from hfrender.io.depth_pass import DepthPass
    from hfrender.io.depth_scale import resized as _resized
    from hfrender.io.footage import FootageError

    depth = DepthPass(path="d.npy", size=(32, 18), first=np.ones((18, 32), np.float32),
                      frames=iter(()), count=1)
    with pytest.raises(FootageError, match=r"^depth d.npy is 32x18, the footage 18x32 as it "
                       r"plays: turned a quarter \(or its rows and columns swapped\); give the "
                       r"depth as the footage plays \(a phone's clip is turned upright by its "
                       r"rotation tag\)$"):  # (a PNG sequence has none: not blamed on one)
        _resized(depth, (18, 32), "nearest")


@pytest.mark.parametrize("channels", [1, 3])
def test_a_depth_array_with_a_channel_axis_is_one_frame(tmp_path, rng, channels):
    """An (H, W, 1) .npy was read as H frames of W x 1 ("depth d.npy is 1x32, the footage
    32x18 ... --depth-resize"); the library takes it as one frame. (H, W, 3): one line."""
    from hfrender.io.depth_pass import open_depth
    from hfrender.io.footage import FootageError

    depth = rng.uniform(1, 9, (18, 32, channels)).astype(np.float32)
    np.save(tmp_path / "d.npy", depth)
    if channels == 3:
        with pytest.raises(FootageError, match=r"d\.npy: depth has shape \(18, 32, 3\), 3 "
                           r"channels; a depth pass is one: \(frames, height, width\), or "
                           r"\(height, width\) for every frame$"):
            open_depth(str(tmp_path / "d.npy"))
        return
    got = open_depth(str(tmp_path / "d.npy"))
    assert got.size == (32, 18) and got.static
    np.testing.assert_array_equal(got.first, depth[..., 0])


def test_a_damaged_16_bit_colour_png_depth_says_what_its_decoder_said(tmp_path, rng):
    """ffmpeg decodes 16-bit colour PNGs: a damaged one is said with its decoder's line,
    not ffmpeg's last ("Nothing was written into output file")."""
    mm = rng.integers(500, 9000, (8, 16)).astype(np.uint16)
    data = bytearray(encode_png16(np.stack([mm] * 3, axis=-1)))
    start = data.index(b"IDAT") + 4
    data[start + 2:start + 30] = bytes(range(28))  # the deflate stream, broken
    path = tmp_path / "d.png"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=rf"^cannot read {path}: a damaged PNG \(ffmpeg: "
                       r"(?!\[)(?!.*Nothing was written).+\)$"):
        depth_pass._read_image(path)


def test_a_truncated_npz_is_one_line(tmp_path):
    path = tmp_path / "d.npz"
    np.savez(path, depth=np.full((2, 8, 16), 2.0, np.float32))
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FootageError, match=rf"^{path}: not a NumPy \.npy/\.npz file "
                       r"\(BadZipFile: "):
        open_depth(str(path))


def test_a_damaged_compressed_npz_is_one_line(tmp_path, rng):
    """savez_compressed's deflated array with bytes of its stream changed: zlib's error."""
    path = tmp_path / "d.npz"
    np.savez_compressed(path, depth=rng.uniform(1.0, 9.0, (2, 8, 16)).astype(np.float32))
    data = bytearray(path.read_bytes())
    start = data.index(b"depth.npy") + len(b"depth.npy")  # the member's compressed stream
    data[start + 20:start + 60] = bytes(40)
    path.write_bytes(bytes(data))
    with pytest.raises(FootageError, match=rf"^{path}: not a NumPy \.npy/\.npz file "
                       r"\((error|BadZipFile): .+\); write depth with numpy\.save"):
        open_depth(str(path))


@pytest.mark.parametrize(("bad", "head", "why"), [
    (0, b"", "damaged, or another format"),  # no image plugin opens it
    (2, b"", "damaged, or another format"),
    (2, b"\x89PNG\r\n\x1a\n", "damaged: broken PNG file (chunk b'age ')")])  # Pillow's words
def test_a_damaged_depth_image_is_one_line_naming_it_wherever_it_is(tmp_path, capsys, bad,
                                                                   head, why):
    """A damaged image in a depth sequence, its first or a later one (read mid-run): one
    line naming the file, exit 2, and no output (a later one: an internal error before)."""
    import imageio.v3 as iio

    seq = png_sequence(tmp_path / "seq")
    depth = tmp_path / "depth"
    depth.mkdir()
    for i in range(3):
        iio.imwrite(depth / f"{i:03d}.png", np.full((8, 16), 2000, np.uint16))
    damaged = depth / f"{bad:03d}.png"
    damaged.write_bytes(head + b"garbage " * 8)
    out = tmp_path / "o.mp4"
    assert main(["fx", seq, "-o", str(out), "--depth", str(depth / "%03d.png"),
                 "--depth-scale", "0.001", "--focus-distance", "1", "--f-stop", "2"]) == 2
    assert error_line(capsys) == (f"hfrender: error: cannot read depth {damaged}: it is no "
                                  f"readable PNG image ({why})")
    assert not out.exists()


def test_a_bad_value_in_the_first_depth_frame_is_the_error_not_a_note(tmp_path, capsys,
                                                                       caplog):
    """fx: a negative depth in the first frame is refused before any note is made of it
    (it had first been said to be nearer than the lens's focal length)."""
    seq = png_sequence(tmp_path / "seq")
    depth = np.full((3, 8, 16), 10.0, np.float32)
    depth[0, 3, 4] = -2.0
    np.save(tmp_path / "d.npy", depth)
    assert main(["fx", seq, "-o", str(tmp_path / "o.mp4"), "--depth", str(tmp_path / "d.npy"),
                 "--focus-distance", "2", "--f-stop", "2"]) == 2
    assert error_line(capsys) == (f"hfrender: error: depth frame 0 ({tmp_path / 'd.npy'}) has "
                                  "a value <= 0 (-2) at row 3, column 4; depth must be a "
                                  "distance > 0 (use inf for sky)")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []
    assert not (tmp_path / "o.mp4").exists()


def test_a_depth_blur_under_two_pixels_is_refused_as_a_cap_and_said_of_the_depth(tmp_path,
                                                                                capsys, caplog):
    """fx: a --max-coc-px under 2 px would turn the depth of field off without a word;
    a depth whose first frame blurs by no whole pixel (0.23 px at 10 m, focus 2 m, f/2, a
    16 px wide frame) is said in a warning, and the clip is made."""
    seq = png_sequence(tmp_path / "seq")
    np.save(tmp_path / "d.npy", np.full((3, 8, 16), 10.0, np.float32))
    args = ["fx", seq, "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
            str(tmp_path / "d.npy"), "--focus-distance", "2", "--f-stop", "2"]
    assert main(args + ["--max-coc-px", "1.5"]) == 2
    assert error_line(capsys) == (
        "hfrender: error: --max-coc-px 1.5 blurs nothing: under 2 px across a circle of "
        "confusion leaves every pixel as it is (a pixel's disk is whole pixels); give at "
        "least 2, or no depth of field")
    assert main(args) == 0
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert said == [f"the circles of confusion of depth {tmp_path / 'd.npy'}'s first frame "
                    "reach only 0.23 px across: under 2 px nothing is blurred (a pixel's disk "
                    "is whole pixels); a lower f-stop or a longer focal length blurs more"]
    assert len(list((tmp_path / "o").glob("*.png"))) == 3


def test_each_depth_frame_is_checked_as_it_is_read(tmp_path, rng, monkeypatch):
    """A sequence of several frames: each checked as it comes, a bad one named by its
    number and file (an .npy is checked whole first: tests/test_depth_scan.py)."""
    import imageio.v3 as iio

    from hfrender import validate

    depth = rng.integers(500, 9000, (4, 6, 8)).astype(np.uint16)
    depth[3, 2, 5] = 0
    (tmp_path / "d").mkdir()
    for i, mm in enumerate(depth):
        iio.imwrite(tmp_path / "d" / f"{i:04d}.png", mm)
    checked = []
    real = validate.depth_frame
    monkeypatch.setattr(validate, "depth_frame",
                        lambda arr, i, *a, **k: checked.append(i) or real(arr, i, *a, **k))
    lens = hf.Lens(2.0, 2.8)
    got = depth_fit.depth_for(str(tmp_path / "d"), 0.001, False, (8, 6), 4, lambda d: lens)
    frames_read = iter(got.frames)
    for i in range(3):
        np.testing.assert_array_equal(next(frames_read),
                                      depth[i].astype(np.float32) * np.float32(0.001))
    assert checked[0] == 0 and checked[-2:] == [1, 2]
    with pytest.raises(InputError, match=r"depth frame 3 \(.*0003\.png\) has a value <= 0 "
                                         r"\(0\) at row 2, column 5"):  # (its file too)
        next(frames_read)


def test_a_depth_reader_fills_a_plane_with_a_one_frame_pass_once():
    """A static pass's plane is written once (the pool's planes keep it); a pass of many
    frames writes each."""
    from hfrender.io.depth_pass import DepthPass, DepthReader

    one = np.full((2, 3), 4.0, np.float32)
    plane = np.zeros((2, 3), np.float32)
    static = DepthReader(DepthPass("d", 1, (3, 2), itertools.repeat(one), one, static=True))
    static.into(plane, 0)
    assert (plane == 4.0).all()
    plane[0, 0] = 7.0  # (nothing else writes a plane: this shows it is not written again)
    static.into(plane, 1)
    assert plane[0, 0] == 7.0
    frames = [one, one * 2, one * 3]
    moving = DepthReader(DepthPass("d", 3, (3, 2), iter(frames), one))
    for i, want in enumerate(frames):
        moving.into(plane, i)
        np.testing.assert_array_equal(plane, want)
    with pytest.raises(FootageError, match="the depth pass ends at frame 3, the footage goes"):
        moving.into(plane, 3)


def test_a_depth_sequence_is_paired_with_the_footage_by_frame_number(tmp_path, rng, capsys,
                                                                    caplog):
    """A compositor's trial: footage shot.1001-1003 with depth z.0999-1004 took z.0999 for
    1001 (by place), and z.1003-1005 was taken silently too. Now each frame takes the depth
    of its number; a frame with none is one line."""
    import shutil

    seq, depth = scene(tmp_path, rng)
    shot = tmp_path / "shot"
    shot.mkdir()
    for i, f in enumerate(sorted(seq.iterdir())):
        shutil.copy(f, shot / f"shot.{1001 + i}.png")
    dseq = tmp_path / "z"
    dseq.mkdir()
    wrong = np.full_like(depth[0], 0.6)  # a depth nobody should read: another blur
    for number in range(999, 1005):
        d = depth[number - 1001] if 1001 <= number <= 1003 else wrong
        (dseq / f"z.{number}.png").write_bytes(  # millimetres, as a compositor saves them
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    got = tmp_path / "got" / "%02d.png"
    assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(got), "--depth",
                 str(dseq / "z.%04d.png"), "--depth-scale", "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(got.parent), outputs(tmp_path / "want"))
    for number in (999, 1000):
        (dseq / f"z.{number}.png").unlink()
    (dseq / "z.1001.png").unlink()  # z.1002-1004: 1001 has none (they overlap: refused)
    assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(tmp_path / "bad" / "%02d.png"),
                 "--depth", str(dseq / "z.%04d.png"), "--depth-scale", "0.001", *LENS]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: depth {dseq / 'z.%04d.png'} holds frames 1002..1004, the footage "
        "1001..1003: each frame takes the depth frame of its number\n")
    # numbers apart from the footage's altogether (depth 2001..): in order, said
    apart = tmp_path / "apart"
    apart.mkdir()
    for i, d in enumerate(depth):
        (apart / f"z.{2001 + i}.png").write_bytes(
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    with caplog.at_level("WARNING"):
        assert main(["fx", str(shot / "shot.%04d.png"), "-o", str(tmp_path / "order" /
                     "%02d.png"), "--depth", str(apart / "z.%04d.png"), "--depth-scale",
                     "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "order"), outputs(tmp_path / "want"))
    assert ("holds frames 2001..2003, the footage 1001..1003: none of the same number, so "
            "they pair in order (the footage's first with z.2001.png)") in caplog.text


@pytest.mark.parametrize("channel, warned", [("G", True), ("Z", False), ("R", False)])
def test_an_exr_depth_of_a_lone_channel_that_names_no_depth_is_warned_of(tmp_path, rng,
                                                                         caplog, channel,
                                                                         warned):
    """A compositor's trial: a G-only EXR was taken as depth without a word."""
    exr = pytest.importorskip("OpenEXR")
    seq, depth = scene(tmp_path, rng)
    dseq = tmp_path / "depth"
    dseq.mkdir()
    for i, d in enumerate(depth):
        with exr.File({"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage},
                      {channel: d}) as f:
            f.write(str(dseq / f"{i:04d}.exr"))
    with caplog.at_level("WARNING"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "got" / "%02d.png"), "--depth",
                     str(dseq / "%04d.exr"), *LENS]) == 0
    said = "each EXR's channel G, its only one, which names no depth (Z, depth.Z, Y or R)"
    assert (said in caplog.text) == warned
    np.testing.assert_array_equal(outputs(tmp_path / "got"), outputs(tmp_path / "want"))


@pytest.mark.parametrize("given, said", [
    ("nope/%04d.exr", "depth {tmp}/nope/%04d.exr: not found"),  # (each was the formats'
    ("nope", "depth {tmp}/nope: not found"),  # list, as if the one given were none of them)
    ("gone.mp4", "depth {tmp}/gone.mp4: not found"),  # (was "a video is not read as depth")
    ("z/%04d.png", "depth {tmp}/z/%04d.png: {tmp}/z holds no .png images (it holds .exr)"),
    ("z.mp4", "depth {tmp}/z.mp4: a video is not read as depth (8-bit, compressed: its steps "
              "would show); export the pass as a 16-bit PNG or EXR sequence, or a .npy"),
    ("z.tiff", "depth {tmp}/z.tiff: .tiff is no depth format; use a .npy or .npz file, or a "
               "16-bit PNG / EXR sequence"),  # (a review: "z holds no .tiff images")
])
def test_a_depth_path_that_gives_none_says_why(tmp_path, given, said):
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "0001.exr").write_bytes(b"")
    (tmp_path / "z.mp4").write_bytes(b"")
    (tmp_path / "z.tiff").write_bytes(b"")
    with pytest.raises(FootageError) as err:
        open_depth(str(tmp_path / given))
    assert str(err.value) == said.format(tmp=tmp_path)


def test_one_frame_of_a_depth_sequence_given_for_all_is_said(tmp_path, caplog):
    """``--depth zexr/1001.exr``, meant as ``zexr/%04d.exr``: every frame took frame 1001's
    depth without a word, even with -v (a compositor's trial)."""
    (tmp_path / "z").mkdir()
    grey = np.stack([np.full((4, 6), 2000, np.uint16)] * 3, axis=-1)
    for k in (1001, 1002, 1003):
        (tmp_path / "z" / f"{k}.png").write_bytes(encode_png16(grey))
    (tmp_path / "plate.png").write_bytes(encode_png16(grey))
    with caplog.at_level("WARNING"):
        one = open_depth(str(tmp_path / "z" / "1002.png"))
        plate = open_depth(str(tmp_path / "plate.png"))  # a plate alone: as it was
    assert one.static and plate.static
    assert [r.getMessage() for r in caplog.records] == [
        f"depth {tmp_path / 'z' / '1002.png'} is one frame of a sequence ({tmp_path / 'z'} "
        f"holds 3 like it): every frame takes it; for each its own, give "
        f"{tmp_path / 'z' / '%04d.png'}"]


def test_a_depth_sequence_longer_than_the_footage_from_its_first_number_pairs_by_number(
        tmp_path, rng):
    """A compositor's trial: footage 0000-0002 with depth 0000-0004 was refused ("has 5
    frames, the footage 3: one depth frame per frame is needed") while footage 0001-0002
    with the same depth was paired by number."""
    seq, depth = scene(tmp_path, rng)
    dseq = tmp_path / "z"
    dseq.mkdir()
    wrong = np.full_like(depth[0], 0.6)  # frames past the footage's: never read
    for number, d in enumerate([*depth, wrong, wrong]):
        (dseq / f"{number:04d}.png").write_bytes(
            encode_png16(np.stack([np.rint(d * 1000).astype(np.uint16)] * 3, axis=-1)))
    got = tmp_path / "got" / "%02d.png"
    assert main(["fx", str(seq / "%04d.png"), "-o", str(got), "--depth",
                 str(dseq / "%04d.png"), "--depth-scale", "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(got.parent), outputs(tmp_path / "want"))


def test_a_sky_of_float32_max_scaled_past_it_is_sky_without_a_numpy_warning(tmp_path):
    """A compositor's trial: a renderer's sky of FLT_MAX with --depth-scale 10 printed
    numpy's 'RuntimeWarning: overflow encountered in multiply' and its source line."""
    import warnings

    depth = np.full((2, 4, 6), 2.0, np.float32)
    depth[:, 0] = np.finfo(np.float32).max
    np.save(tmp_path / "z.npy", depth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = open_depth(str(tmp_path / "z.npy"), scale=10.0).first
    assert np.isinf(first[0]).all() and (first[1:] == 20.0).all()


def test_a_depth_folder_is_its_16_bit_frames_not_the_jpeg_previews_beside_them(tmp_path, rng):
    """fx reads a folder of JPEG or TIFF footage now; the depth pass's folder went the same
    way (a review): one of 16-bit PNGs with a JPEG preview each was refused as two
    sequences (fx's look at its inputs, then the pass's own), and a folder of 8-bit JPEGs
    was taken for depth. Depth stays PNG and EXR, through fx as through open_depth."""
    import imageio.v3 as iio

    seq, depth = scene(tmp_path, rng)
    folder = tmp_path / "z"
    folder.mkdir()
    for i, d in enumerate(depth):
        mm = np.rint(d * 1000).astype(np.uint16)
        (folder / f"z.{i:04d}.png").write_bytes(encode_png16(np.stack([mm] * 3, axis=-1)))
        iio.imwrite(folder / f"z.{i:04d}.jpg", np.full((8, 16, 3), 9 * i, np.uint8))
    assert main(["fx", str(seq), "-o", str(tmp_path / "got" / "%02d.png"), "--depth",
                 str(folder), "--depth-scale", "0.001", *LENS]) == 0
    np.testing.assert_array_equal(outputs(tmp_path / "got"), outputs(tmp_path / "want"))
    jpegs = tmp_path / "j"
    jpegs.mkdir()
    for f in folder.glob("*.jpg"):
        f.rename(jpegs / f.name)
    with pytest.raises(FootageError) as err:
        open_depth(str(jpegs))
    assert str(err.value) == (f"depth {jpegs}: use a .npy or .npz file, or a 16-bit PNG / "
                              "EXR sequence (a folder or a pattern such as depth/%05d.png), "
                              "or one such image for every frame")


def test_a_vectors_folder_is_its_exr_frames_not_the_previews_beside_them(tmp_path):
    """Motion vectors are EXR channels: a folder's PNG or JPEG previews are no frames of
    it (was: the folder refused as two sequences)."""
    from hfrender.io.vector_pass import VectorPass

    for i in range(3):
        for kind in ("exr", "png", "jpg"):
            (tmp_path / f"v.{i:04d}.{kind}").write_bytes(b"x")
    assert VectorPass(str(tmp_path)).files == [tmp_path / f"v.{i:04d}.exr" for i in range(3)]


def test_a_depth_folder_with_previews_is_known_by_its_frames_in_a_batch(tmp_path):
    """A batch (and a resumed fx) knows a depth pass by its frames' names, sizes and times;
    a folder with JPEG previews beside its PNGs was known by its name alone (its listing
    refused, the refusal passed over), so a pass made again went unseen."""
    import os

    from hfrender.engine.batch_paths import input_identity
    from hfrender.io.sequence_files import DEPTH_KINDS

    folder = tmp_path / "z"
    folder.mkdir()
    for i in range(2):
        for kind in ("png", "jpg"):
            (folder / f"z.{i:04d}.{kind}").write_bytes(b"x" * (i + 1))
    before = input_identity(folder, DEPTH_KINDS)
    assert before != str(folder) and len(before) == 64
    (folder / "z.0001.png").write_bytes(b"yyy")  # the pass made again
    os.utime(folder / "z.0001.png", (1, 1))
    assert input_identity(folder, DEPTH_KINDS) not in (before, str(folder))
