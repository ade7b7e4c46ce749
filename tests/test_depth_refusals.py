"""Damaged depth files and bad depth values, in one line: a damaged PNG or ``.npz``
wherever it is in a sequence, a bad value in the first frame or a later one, a blur under
two pixels; a sky of FLT_MAX is sky."""

import numpy as np
import pytest
from test_hints import error_line, png_sequence

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError
from hfrender.io import depth_fit, depth_pass
from hfrender.io.depth_pass import open_depth
from hfrender.io.images import encode_png16
from hfrender.io.probe import FootageError


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
