"""``fx --depth`` from image files: a 16-bit PNG in colour (Pillow cuts it to 8 bits, so it
is read through ffmpeg) and an EXR's depth channel give the picture of the same depths as a
``.npy``; a folder is its depth frames, not the previews beside them."""

import numpy as np
import pytest
from depth_files_helpers import (
    LENS,
    outputs,
    scene,
)

from hfrender.cli import main
from hfrender.io import depth_pass
from hfrender.io.depth_pass import open_depth
from hfrender.io.exr_files import read_exr_depth
from hfrender.io.images import encode_png16
from hfrender.io.probe import FootageError


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
    from hfrender.io.exr_files import depth_channel

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
