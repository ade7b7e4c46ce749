"""``fx --depth-resize``: a depth pass of another size scaled to the footage when asked
(keeping sky and slopes), said once where it does nothing, one line where it cannot be
scaled or has the stored shape of a turned clip."""

import numpy as np
import pytest
from depth_files_helpers import (
    LENS,
    outputs,
    scene,
)

from hfrender.cli import main
from hfrender.io import depth_scale


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
