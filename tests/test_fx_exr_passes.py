"""fx on multi-part and multilayer EXRs: the depth part and the colour part, Blender's
combined pass as colour, the passes left out said (with their part), the depth fx reads not
said to be dropped, and a shot's pixel aspect and primaries kept."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main

pytest.importorskip("OpenEXR")
from fx_exr_helpers import DOF, LENS, H, W, outputs, shot

from hfrender.io.exr_files import encode_exr, read_exr  # noqa: E402


def _parts(path, *parts):
    """A multi-part EXR of ``parts``: (name, {channel: (H, W) float32})."""
    import OpenEXR

    OpenEXR.File([OpenEXR.Part({"compression": OpenEXR.ZIP_COMPRESSION, "name": name,
                                "type": OpenEXR.scanlineimage}, channels)
                  for name, channels in parts]).write(str(path))


def test_multi_part_exrs_give_their_depth_part_and_their_colour_part(tmp_path, rng, capsys):
    """A compositor's trial: a depth part beside the beauty was not read (the beauty's R
    was, as depth); a colour part after another was not found ("no R, G, B (has Z)")."""
    frames, depth = shot(tmp_path, rng, n=2)
    (tmp_path / "mp").mkdir()
    (tmp_path / "cp").mkdir()
    for i, f in enumerate(frames):
        colour = {c: np.ascontiguousarray(f[..., k]) for k, c in enumerate("RGB")}
        _parts(tmp_path / "mp" / f"{i:04d}.exr", ("rgba", colour), ("depth", {"Z": depth}))
        _parts(tmp_path / "cp" / f"{i:04d}.exr", ("depth", {"Z": depth}), ("rgba", colour))
    from hfrender.io.exr_files import exr_depth_channel, read_exr_depth

    np.testing.assert_array_equal(read_exr_depth(tmp_path / "mp" / "0000.exr"), depth)
    assert exr_depth_channel(tmp_path / "mp" / "0000.exr") == "Z (of part 'depth')"
    for footage, name in (("in", "a"), ("cp", "b")):
        assert main(["fx", str(tmp_path / footage / "%04d.exr"), "-o",
                     str(tmp_path / name / "%04d.exr"), "--depth",
                     str(tmp_path / "mp" / "%04d.exr"), *DOF[2:]]) == 0
    want = hf.depth_of_field(frames, depth, **LENS)
    for name in ("a", "b"):
        np.testing.assert_allclose(outputs(tmp_path / name, 2, ".exr"), want, rtol=1e-6,
                                   atol=1e-6)
    _parts(tmp_path / "rg.exr", ("rg", {"R": depth, "G": depth}))
    with pytest.raises(hf.InputError, match=r"^no B channel \(it has G, R\): a colour EXR "
                                            r"holds R, G and B$"):
        read_exr(tmp_path / "rg.exr")


def test_an_exr_shot_keeps_its_pixel_aspect_and_primaries(tmp_path, rng):
    """A compositor's trial: fx EXR -> EXR wrote pixel aspect 1 and no chromaticities,
    so an anamorphic ACES plate came back square and Rec. 709 in Nuke."""
    import OpenEXR

    from hfrender.io.exr_files import exr_kept

    aces = (0.713, 0.293, 0.165, 0.830, 0.128, 0.044, 0.32168, 0.33767)
    look = {"pixelAspectRatio": 2.0, "chromaticities": aces}
    frames = rng.random((4, H, W, 3), dtype=np.float32)
    (tmp_path / "in").mkdir()
    for i, f in enumerate(frames):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", f, look)
    assert main(["fx", str(tmp_path / "in" / "%04d.exr"), "-o",
                 str(tmp_path / "out" / "%04d.exr"), "--motion-blur", "2", "--quiet"]) == 0
    got = exr_kept(tmp_path / "out" / "0000.exr")
    assert got["pixelAspectRatio"] == 2.0
    np.testing.assert_allclose(got["chromaticities"], aces, rtol=1e-6)
    with OpenEXR.File(str(tmp_path / "out" / "0001.exr"), header_only=True) as f:
        assert f.header()["pixelAspectRatio"] == 2.0
    assert main(["fx", str(tmp_path / "in" / "%04d.exr"), "-o",
                 str(tmp_path / "png" / "%04d.png"), "--motion-blur", "2", "--quiet"]) == 0


def test_a_blender_multilayer_exr_gives_its_combined_pass_as_colour(tmp_path, rng):
    """A README reader's trial: ``ViewLayer.Combined.R/G/B`` beside ``ViewLayer.Depth.Z``
    was refused as footage ("no R, G, B channels"), though read as depth."""
    frames, depth = shot(tmp_path, rng, n=2)
    (tmp_path / "ml").mkdir()
    for i, f in enumerate(frames):
        layers = {f"ViewLayer.Combined.{c}": np.ascontiguousarray(f[..., k])
                  for k, c in enumerate("RGB")}
        layers.update({f"ViewLayer.Normal.{c}": np.zeros_like(depth) for c in "RGB"})
        _parts(tmp_path / "ml" / f"{i:04d}.exr", ("ViewLayer", {**layers,
                                                              "ViewLayer.Depth.Z": depth}))
    np.testing.assert_array_equal(read_exr(tmp_path / "ml" / "0001.exr"), frames[1])
    assert main(["fx", str(tmp_path / "ml" / "%04d.exr"), "-o", str(tmp_path / "o" / "%04d.exr"),
                 "--depth", str(tmp_path / "ml" / "%04d.exr"), *DOF[2:]]) == 0
    np.testing.assert_allclose(outputs(tmp_path / "o", 2, ".exr"),
                               hf.depth_of_field(frames, depth, **LENS), rtol=1e-6, atol=1e-6)


def test_passes_beside_the_colour_are_said_to_be_left_out(tmp_path, rng, caplog):
    """A multilayer EXR's Z and normals were dropped from the output without a word (a
    compositor's trial); the colour alone is written, and that is said once."""
    import OpenEXR

    (tmp_path / "ml").mkdir()
    for i in range(2):
        channels = {c: rng.random((4, 6), dtype=np.float32) for c in
                    ("Combined.R", "Combined.G", "Combined.B", "Depth.Z", "Normal.X")}
        OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage},
                     channels).write(str(tmp_path / "ml" / f"{i:04d}.exr"))
    with caplog.at_level("WARNING"):
        assert main(["fx", str(tmp_path / "ml"), "-o", str(tmp_path / "o" / "%04d.exr"),
                     "--motion-blur", "2", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        "0000.exr holds Depth.Z, Normal.X besides its colour: the output's EXRs hold the "
        "colour alone"]
    with OpenEXR.File(str(tmp_path / "o" / "0000.exr"), header_only=True) as f:
        assert sorted(c.name for c in f.parts[0].header["channels"]) == ["B", "G", "R"]


def test_the_passes_of_other_parts_are_named_with_their_part(tmp_path, rng, caplog):
    """A multi-part EXR's other parts' channels were listed bare ("B, G, R, Z"), as if the
    colour itself were dropped (a review)."""
    (tmp_path / "mp").mkdir()
    for i in range(2):
        plane = {c: rng.random((4, 6), dtype=np.float32) for c in "RGB"}
        _parts(tmp_path / "mp" / f"{i:04d}.exr", ("beauty", plane), ("diffuse", dict(plane)),
               ("depth", {"Z": plane["R"]}))
    with caplog.at_level("WARNING"):
        assert main(["fx", str(tmp_path / "mp"), "-o", str(tmp_path / "o" / "%04d.exr"),
                     "--motion-blur", "2", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        "0000.exr holds diffuse.B, diffuse.G, diffuse.R, depth.Z besides its colour: the "
        "output's EXRs hold the colour alone"]


@pytest.mark.parametrize("extra, said", [
    ((), []),  # hfrender's --passes depth: the colour and Z, both read
    (("forward.u", "forward.v"), ["0000.exr holds forward.u, forward.v besides its colour: "
                                  "the output's EXRs hold the colour alone"]),
], ids=["all-read", "vectors-dropped"])
def test_the_depth_fx_reads_from_the_footage_is_not_said_to_be_dropped(tmp_path, rng, caplog,
                                                                        extra, said):
    """fx --depth on hfrender's own --passes EXRs (docs/rendering.md's 'fx frames/%04d.exr
    --depth frames/%04d.exr') warned '0000.exr holds Z ... besides its colour', the Z it
    had just read as the depth (a new user's trial); the channels it does not read are
    still named."""
    (tmp_path / "f").mkdir()
    import OpenEXR

    depth = np.full((H, W), 0.5, np.float32)  # (circles of 4.8 px at f/1.4)
    depth[10:30, 5:20] = 2.0
    for i in range(2):
        planes = {c: rng.random((H, W), dtype=np.float32) for c in ("R", "G", "B", *extra)}
        OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage},
                     {**planes, "Z": depth}).write(str(tmp_path / "f" / f"{i:04d}.exr"))
    frames = str(tmp_path / "f" / "%04d.exr")
    with caplog.at_level("WARNING"):
        assert main(["fx", frames, "--depth", frames, "--focus-distance", "2", "--f-stop",
                     "1.4", "-o", str(tmp_path / "o" / "%04d.exr"), "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == said
