"""TIFFs with associated (premultiplied) alpha, ExtraSamples = 1: read as the straight
alpha fx takes of every other 8/16-bit footage (were read as if straight: their colour
darkened by their alpha, twice over once fx premultiplied it)."""

import numpy as np
import pytest

from hfrender.cli import main

N, H, W = 3, 8, 12


def _straight(rng):
    """Seeded straight RGBA frames: colour anywhere, alpha 16..255 (0 at one corner)."""
    frames = rng.integers(0, 256, (N, H, W, 4), dtype=np.uint8)
    frames[..., 3] = rng.integers(16, 256, (N, H, W), dtype=np.uint8)
    frames[:, 0, 0] = 0
    return frames


def _tag(path):
    from PIL import Image

    with Image.open(path) as im:
        return im.tag_v2.get(338)


def _save(folder, frames, premultiplied, monkeypatch):
    """``frames`` as TIFFs by Pillow: straight (its RGBA: ExtraSamples 2), or premultiplied
    by Pillow (RGBa) and written as that (ExtraSamples 1, which Pillow reads but does not
    write unless told how)."""
    from PIL import Image, TiffImagePlugin

    monkeypatch.setitem(TiffImagePlugin.SAVE_INFO, "RGBa",
                        ("RGBa", TiffImagePlugin.II, 2, 1, (8, 8, 8, 8), 1))
    folder.mkdir()
    for i, f in enumerate(frames):
        im = Image.fromarray(f, "RGBA")
        (im.convert("RGBa") if premultiplied else im).save(folder / f"{i:04d}.tif")
    assert _tag(folder / "0000.tif") == ((1,) if premultiplied else (2,))


def _fx(folder, out, *extra):
    assert main(["fx", str(folder), "-o", str(out / "%04d.png"), "--motion-blur", "2",
                 "--quiet", *extra]) == 0
    from PIL import Image

    return np.stack([np.asarray(Image.open(out / f"{i:04d}.png")) for i in range(N)])


def _light(rgba):
    return rgba[..., :3].astype(int) * rgba[..., 3:].astype(int) / 255


@pytest.mark.parametrize("extra", [(), ("--gamma-space",)])
def test_a_premultiplied_tiff_comes_out_as_the_same_picture_straight(tmp_path, rng,
                                                                    monkeypatch, extra):
    frames = _straight(rng)
    _save(tmp_path / "s", frames, False, monkeypatch)
    _save(tmp_path / "p", frames, True, monkeypatch)
    want = _fx(tmp_path / "s", tmp_path / "os", *extra)
    got = _fx(tmp_path / "p", tmp_path / "op", *extra)
    assert got.shape == want.shape == (N, H, W, 4)
    np.testing.assert_array_equal(got[..., 3], want[..., 3])
    assert np.abs(_light(got) - _light(want)).max() <= 2  # the light, as the straight one's
    solid = want[..., 3] >= 128
    assert np.abs(got.astype(int) - want)[solid].max() <= 2
    assert not got[:, 0, 0].any()  # transparent stays transparent, colour 0


def test_a_16_bit_premultiplied_tiff_reads_as_its_straight_picture(tmp_path, rng):
    """imageio's own TIFF writer marks an RGBA TIFF associated (ExtraSamples 1)."""
    import imageio.v3 as iio

    from hfrender.io.footage import open_footage

    straight = rng.integers(0, 65536, (H, W, 4), dtype=np.uint64)
    straight[..., 3] = rng.integers(4096, 65536, (H, W))
    straight[0, 0] = 0
    stored = straight.copy()
    stored[..., :3] = (straight[..., :3] * straight[..., 3:] + 32767) // 65535
    (tmp_path / "in").mkdir()
    for i in range(2):
        iio.imwrite(tmp_path / "in" / f"{i:04d}.tif", stored.astype(np.uint16))
    assert _tag(tmp_path / "in" / "0000.tif") == (1,)
    with open_footage(str(tmp_path / "in"), pix_fmt="rgb") as clip:
        assert clip.pix_fmt == "rgba64le"
        buf = np.zeros((H, W, 4), np.uint16)
        assert clip.read_into(buf)
    np.testing.assert_array_equal(buf[..., 3], straight[..., 3])
    # the straight colour, to within what the stored codes hold (half a code of alpha's)
    err = np.abs(buf[..., :3].astype(np.int64) - straight[..., :3].astype(np.int64))
    assert (err <= 65535 / (2 * np.maximum(straight[..., 3:], 1)) + 1).all()
    assert not buf[0, 0].any()


def test_unpremultiply_rounds_and_leaves_alpha_0_black():
    from hfrender.io.pillow_frames import straight

    pm = np.array([[[60, 120, 0, 120], [7, 3, 9, 0], [200, 0, 255, 255]]], np.uint8)
    np.testing.assert_array_equal(straight(pm), [[[128, 255, 0, 120], [0, 0, 0, 0],
                                                  [200, 0, 255, 255]]])
    grey = np.array([[[1000, 2000], [40000, 20000]]], np.uint16)  # grey and alpha
    np.testing.assert_array_equal(straight(grey), [[[32768, 2000], [65535, 20000]]])
