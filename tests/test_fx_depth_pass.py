"""`hfrender fx` with a depth pass: .npy, .npz and PNG sequences, millimetres and 8-bit
passes warned of, sky, one frame for a locked-off shot, focus on a pixel, a focus outside
the depth, and a bad depth frame named."""

import logging

import numpy as np
import pytest
from fx_helpers import (
    decode,
    make_clip,
    png_sequence,
    read_pngs,
)

import hfrender as hf
from hfrender.cli import main


def test_depth_pass_from_npy_and_png_sequences(tmp_path, rng):
    import imageio.v3 as iio

    h, w, n = 36, 64, 6
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    depth_m = np.full((n, h, w), 4.0, np.float32)
    depth_m[:, 10:26, 20:44] = 1.0  # an in-focus card over a far wall
    np.save(tmp_path / "depth.npy", depth_m)
    dseq = tmp_path / "depth"
    dseq.mkdir()
    for i, d in enumerate(depth_m):  # millimetres in 16-bit PNGs
        iio.imwrite(dseq / f"{i:04d}.png", (d * 1000).astype(np.uint16))
    lens = ["--focus-distance", "1.0", "--f-stop", "1.4", "--sensor-width-mm", "9"]
    out_npy, out_png = tmp_path / "a" / "%03d.png", tmp_path / "b" / "%03d.png"
    assert main(["fx", str(seq / "%04d.png"), "-o", str(out_npy), "--depth",
                 str(tmp_path / "depth.npy"), *lens, "--quiet"]) == 0
    assert main(["fx", str(seq), "-o", str(out_png), "--depth", str(dseq), "--depth-scale",
                 "0.001", *lens, "--quiet"]) == 0
    a = np.stack([iio.imread(tmp_path / "a" / f"{i:03d}.png") for i in range(n)])
    b = np.stack([iio.imread(tmp_path / "b" / f"{i:03d}.png") for i in range(n)])
    np.testing.assert_array_equal(a, b)
    expected = hf.depth_of_field(frames, depth_m, focus_distance=1.0, f_stop=1.4,
                                 sensor_width_mm=9.0)
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(a[:, 10:26, 20:44], frames[:, 10:26, 20:44])  # sharp card


@pytest.mark.parametrize("kind, scale, warned", [
    ("png", None, True), ("png", "0.001", False), ("npy", None, True), ("npy", "0.001", False),
    ("metres", None, False)])
def test_integer_millimetres_read_as_metres_are_warned_of(tmp_path, rng, caplog, kind, scale,
                                                          warned):
    """A uint16 depth pass in millimetres with no --depth-scale would blur every pixel as
    if kilometres away: one warning names the file, the farthest value and the option; the
    render still runs (the values may mean metres)."""
    import imageio.v3 as iio

    h, w, n = 12, 16, 2
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    far = int(rng.integers(2000, 9000))  # mm
    depth_mm = np.full((n, h, w), far, np.uint16)
    depth_mm[:, 4:8, 4:12] = 1000
    if kind == "png":
        depth = tmp_path / "depth"
        depth.mkdir()
        for i, d in enumerate(depth_mm):
            iio.imwrite(depth / f"{i:04d}.png", d)
    else:
        depth = tmp_path / "depth.npy"
        np.save(depth, depth_mm if kind == "npy" else (depth_mm // 1000).clip(1))
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth", str(depth),
            "--focus-distance", "1.0", "--f-stop", "2.8", "--quiet"]
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(args + (["--depth-scale", scale] if scale else [])) == 0
    said = [r.getMessage() for r in caplog.records if "--depth-scale" in r.getMessage()]
    expected = (f"depth {depth} is uint16, its first frame up to {far} m at --depth-scale 1: "
                "if these are millimetres, pass --depth-scale 0.001; if it is normalised to "
                "0..1 (Blender's Map Range), --depth-range NEAR,FAR (an inverse depth, or "
                "disparity, from a depth estimator is no distance: near is large there; "
                "pass --depth-kind disparity)")
    assert said == ([expected] if warned else []), said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


def test_a_depth_sensors_zeros_are_sky_with_depth_zero_is_sky(tmp_path, rng, capsys):
    """A depth sensor's 16-bit millimetres, 0 where it has no reading (too far): refused in
    one line that names --depth-zero-is-sky; with it, those pixels are sky: the picture
    of the same depth with inf there. The flag without --depth is refused as the lens's are."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 2
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    mm = rng.integers(800, 3000, (n, h, w)).astype(np.uint16)
    mm[:, :8] = 0  # no reading: the sky above
    (tmp_path / "depth").mkdir()
    for i, d in enumerate(mm):
        iio.imwrite(tmp_path / "depth" / f"{i:04d}.png", d)
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
            str(tmp_path / "depth"), "--depth-scale", "0.001", "--focus-distance", "1.5",
            "--f-stop", "2", "--sensor-width-mm", "9", "--quiet"]
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: depth frame 0 ({tmp_path / 'depth' / '0000.png'}) has 512 values "
        "<= 0, the first 0 at row 0, column 0; depth must be a distance > 0 (use inf for "
        "sky; hfrender fx --depth-zero-is-sky reads 0 as sky, --depth-range NEAR,FAR a pass "
        "normalised to 0..1)\n")
    assert not (tmp_path / "out").exists()
    assert main(args + ["--depth-zero-is-sky"]) == 0
    metres = np.where(mm == 0, np.inf, mm.astype(np.float32) * np.float32(0.001))
    expected = hf.depth_of_field(frames, metres, focus_distance=1.5, f_stop=2.0,
                                 sensor_width_mm=9.0)
    got = np.stack([iio.imread(tmp_path / "out" / f"{i:03d}.png") for i in range(n)])
    np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(got[:, :8], frames[:, :8])  # the sky is blurred, not kept
    assert main(["fx", str(seq), "-o", str(tmp_path / "x.mp4"), "--motion-blur", "2",
                 "--depth-zero-is-sky"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --depth-zero-is-sky applies only with "
                                       "--depth DEPTH (depth of field from a depth pass): give "
                                       "--depth, or leave it out\n")


def test_one_depth_frame_serves_a_locked_off_shot(tmp_path, rng):
    """--depth of one frame (an (H, W) .npy, or one 16-bit PNG file) is every frame's
    depth: the picture of a per-frame pass repeating it."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 3
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    mm = rng.integers(800, 4000, (h, w)).astype(np.uint16)
    np.save(tmp_path / "each.npy", np.stack([mm * np.float32(0.001)] * n))
    np.save(tmp_path / "one.npy", mm * np.float32(0.001))
    iio.imwrite(tmp_path / "one.png", mm)
    # and one frame batched as hf.depth_of_field takes it, (1, H, W) or a tensor's (1, 1,
    # H, W) (was: "has 1 frame, the footage 3", a library user's trial)
    np.save(tmp_path / "batched.npy", (mm * np.float32(0.001))[None])
    np.save(tmp_path / "tensor.npy", (mm * np.float32(0.001))[None, None])
    lens = ["--focus-distance", "1.5", "--f-stop", "1.4", "--sensor-width-mm", "9", "--quiet"]
    outs = []
    for depth, scale in (("each.npy", []), ("one.npy", []), ("one.png", ["--depth-scale",
                                                                          "0.001"]),
                         ("batched.npy", []), ("tensor.npy", [])):
        out = tmp_path / depth.replace(".", "_")
        assert main(["fx", str(seq), "-o", str(out / "%03d.png"), "--depth",
                     str(tmp_path / depth), *scale, *lens]) == 0
        outs.append(np.stack([iio.imread(out / f"{i:03d}.png") for i in range(n)]))
    assert (outs[0] != frames).mean() > 0.3  # (it blurs)
    for other in outs[1:]:
        np.testing.assert_array_equal(other, outs[0])


def test_one_depth_frame_for_a_shot_is_checked_once(tmp_path, rng, monkeypatch):
    """Not once a frame (0.23 ms a 1280x720 frame): the same frame each time."""
    from hfrender import validate

    clip, _ = make_clip(tmp_path, rng, n=6)
    np.save(tmp_path / "d.npy", rng.uniform(0.5, 9.0, (36, 64)).astype(np.float32))
    checked = []
    real = validate.depth_frame
    monkeypatch.setattr(validate, "depth_frame",
                        lambda arr, i, *a, **k: checked.append(i) or real(arr, i, *a, **k))
    assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--depth",
                 str(tmp_path / "d.npy"), "--focus-distance", "2", "--f-stop", "2",
                 "--quiet"]) == 0
    assert checked == [0] and decode(tmp_path / "o.mp4")[0].shape[0] == 6


def test_one_depth_frame_over_many_hyperframes_is_each_frames_depth(tmp_path, rng,
                                                                    monkeypatch):
    """30 frames, 8 a hyperframe: the pool's slots come round again, and their planes,
    filled with a one-frame pass once, keep it (written 30 times before): the pictures of
    a per-frame pass repeating it. The fusion is given that plane as every frame's (a
    stride of 0: a GPU takes it across once), a per-frame pass's planes as they are."""
    import imageio.v3 as iio

    from hfrender.io.depth_pass import DepthReader

    seq, _ = png_sequence(tmp_path, rng, 30, 24, 64)
    one = rng.uniform(0.5, 6.0, (24, 64)).astype(np.float32)
    np.save(tmp_path / "one.npy", one)
    np.save(tmp_path / "each.npy", np.stack([one] * 30))
    writes = []
    real = DepthReader.into
    monkeypatch.setattr(DepthReader, "into", lambda self, plane, i: (
        writes.append(len(self.filled)), real(self, plane, i)))
    strides = {}
    from hfrender.engine import fx_fusion

    fuse = fx_fusion.fuse
    monkeypatch.setattr(fx_fusion, "fuse", lambda hyper, *a, **k: (
        strides.setdefault(name, set()).add(hyper.depth.strides[0]), fuse(hyper, *a, **k))[1])
    outs = []
    for name in ("each.npy", "one.npy"):
        out = tmp_path / name.replace(".", "_")
        assert main(["fx", str(seq), "-o", str(out / "%03d.png"), "--depth",
                     str(tmp_path / name), "--focus-distance", "1.5", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
        outs.append(np.stack([iio.imread(out / f"{i:03d}.png") for i in range(30)]))
    np.testing.assert_array_equal(outs[1], outs[0])
    assert len(writes) == 2 * 29 and max(writes) < 29  # planes filled: fewer than frames
    assert strides == {"each.npy": {24 * 64 * 4}, "one.npy": {0}}


def test_verbose_fx_says_the_depths_range_and_the_blur_it_makes(tmp_path, rng, caplog):
    """-v: the first depth frame's range (sky named apart) and its largest circle of
    confusion, so that an f-stop can be chosen knowing the blur it gives."""
    seq, _ = png_sequence(tmp_path, rng, 2, 12, 64)
    depth = np.full((2, 12, 64), 4.0, np.float32)
    depth[:, :3] = np.inf
    depth[:, 6:, 10:20] = 1.0
    np.save(tmp_path / "d.npy", depth)
    with caplog.at_level(logging.INFO, logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                     str(tmp_path / "d.npy"), "--focus-distance", "1.5", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
    with caplog.at_level(logging.INFO, logger="hfrender"):  # focused on the wall (4 m)
        assert main(["fx", str(seq), "-o", str(tmp_path / "p" / "%03d.png"), "--depth",
                     str(tmp_path / "d.npy"), "--focus-pixel", "40,8", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
    sky_coc = (50 / 1.4) * 0.05 / (1.5 - 0.05) / 9 * 64  # thin lens, the sky's: the largest
    card_coc = (50 / 1.4) * 3.0 * 0.05 / (4.0 - 0.05) / 9 * 64  # 1 m, focused at 4 m
    said = [r.getMessage() for r in caplog.records if "circles of confusion" in r.getMessage()]
    assert said == [f"depth {tmp_path / 'd.npy'}'s first frame: 1 to 4 m and sky; circles of "
                    f"confusion up to {c:.3g} px across" for c in (sky_coc, card_coc)], said
    assert (f"{sky_coc:.3g}", f"{card_coc:.3g}") == ("8.76", "9.64")


def test_focus_pixel_focuses_each_frame_on_its_depth_there(tmp_path, rng, capsys):
    """--focus-pixel X,Y: autofocus on a point. A card moving from 1 to 2 m under the pixel
    stays sharp in every frame while the wall behind it blurs, each frame as
    hf.depth_of_field focused at the card's distance in that frame."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 3
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    depth = np.full((n, h, w), 4.0, np.float32)
    card = np.float32([1.0, 1.5, 2.0])
    depth[:, 6:18, 20:44] = card[:, None, None]
    np.save(tmp_path / "depth.npy", depth)
    lens = ["--f-stop", "1.4", "--sensor-width-mm", "9"]
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
            str(tmp_path / "depth.npy"), *lens, "--quiet"]
    assert main(args + ["--focus-pixel", "30,12"]) == 0
    got = np.stack([iio.imread(tmp_path / "out" / f"{i:03d}.png") for i in range(n)])
    for k in range(n):
        expected = hf.depth_of_field(frames[k], depth[k], focus_distance=float(card[k]),
                                     f_stop=1.4, sensor_width_mm=9.0)
        np.testing.assert_array_equal(got[k], expected)
        np.testing.assert_array_equal(got[k, 8:16, 24:40], frames[k, 8:16, 24:40])  # sharp
        assert np.abs(got[k, 20:, :10].astype(int) - frames[k, 20:, :10]).mean() > 10  # wall
    for extra, said in (
            (["--focus-pixel", "30,12", "--focus-distance", "2"], "--focus-distance and "
             "--focus-pixel: give one (the distance in focus, or the pixel whose depth is in "
             "focus)"),
            (["--focus-pixel", "64,3"], "--focus-pixel 64,3 is outside the 64x24 frames (x "
             "from 0 to 63, y from 0 to 23)"),
            (["--focus-pixel", "-1,3"], "--focus-pixel -1,3 must be X,Y, two whole numbers >= "
             "0: the pixel's column and row from the top left corner (e.g. 320,180)"),
            ([], "--depth needs --focus-distance (or --focus-pixel X,Y)")):
        capsys.readouterr()
        assert main(args[:-1] + ["-o", str(tmp_path / "bad" / "%03d.png")] + extra) == 2
        assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not (tmp_path / "bad").exists()
    depth[1, 12, 30] = 0.03  # within the 50 mm focal length: no focus there
    np.save(tmp_path / "depth.npy", depth)
    assert main(args[:-1] + ["-o", str(tmp_path / "bad" / "%03d.png"), "--focus-pixel",
                             "30,12"]) == 2
    said = ("hfrender: error: --focus-pixel 30,12: in frame 1 the depth there is 0.03 m, "
            "nearer than the lens's focal length: nothing can be focused there")
    bad = tmp_path / "bad"
    kept = f"; the 1 frame finished so far is in '{bad / '###.png.partial' / '%03d.png'}' " \
        f"({bad / '%03d.png'} is untouched)"
    # frame 0 may be fused and written before frame 1's error stops the run: it is kept
    assert capsys.readouterr().err in (f"{said}\n", f"{said}{kept}\n")
    assert not bad.exists() or [p.name for p in bad.iterdir()] == ["###.png.partial"]


@pytest.mark.parametrize("blur", [[], ["--motion-blur", "4"], ["--motion-blur", "2",
                                                                  "--stride", "2"]])
def test_a_focus_pixel_within_the_focal_length_names_the_footages_frame(tmp_path, rng, capsys,
                                                                         blur):
    """The frame named is the footage's, with motion blur too (whose stream has frames
    standing in before the clip: the error said frame 8 for frame 5)."""
    h, w, n = 12, 16, 8
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    depth = np.full((n, h, w), 2.0, np.float32)
    depth[5, 4, 6] = 0.01
    np.save(tmp_path / "depth.npy", depth)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "depth.npy"), "--f-stop", "2", "--focus-pixel", "6,4",
                 "--quiet", *blur]) == 2
    assert "hfrender: error: --focus-pixel 6,4: in frame 5 the depth there is 0.01 m" in \
        capsys.readouterr().err


@pytest.mark.parametrize("focus, side", [("2.0", "farther"), ("0.06", "nearer"),
                                         ("0.5", None)])
def test_a_focus_outside_all_of_the_depth_is_warned_of(tmp_path, rng, caplog, focus, side):
    """A depth estimator's disparity saved as depth (near = large, here 0.1-1) with the
    focus at 2 m: no pixel can be in focus, the whole clip blurs. One warning names the
    focus, the first frame's depth range and what depth must be; the run still goes on."""
    h, w, n = 12, 16, 2
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    disparity = rng.uniform(0.1, 1.0, (n, h, w)).astype(np.float32)
    np.save(tmp_path / "disparity.npy", disparity)
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
                     str(tmp_path / "disparity.npy"), "--focus-distance", focus, "--f-stop",
                     "2.8", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if "focus distance" in r.getMessage()]
    lo, hi = float(disparity[0].min()), float(disparity[0].max())
    expected = (f"the focus distance {float(focus):g} m is {side} than all of depth "
                f"{tmp_path / 'disparity.npy'}'s first frame ({lo:g} to {hi:g} m): no pixel is "
                "in focus. Depth must be metres from the camera (an inverse depth, or "
                "disparity, from a depth estimator is not: near is large there; "
                "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
                "disparity)")
    assert said == ([expected] if side else []), said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


def test_depth_from_npz_matches_npy(tmp_path, rng, capsys):
    import imageio.v3 as iio

    seq = tmp_path / "f"
    seq.mkdir()
    frames = rng.integers(0, 256, (3, 20, 30, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:02d}.png", f)
    depth = rng.choice([0.8, 1.5, 4.0], size=(3, 20, 30)).astype(np.float32)
    np.save(tmp_path / "d.npy", depth)
    np.savez(tmp_path / "d.npz", depth=depth)
    lens = ["--focus-distance", "1.5", "--f-stop", "1.4", "--sensor-width-mm", "6", "--quiet"]
    for name in ("d.npy", "d.npz"):
        assert main(["fx", str(seq), "-o", str(tmp_path / name[-3:] / "%02d.png"), "--depth",
                     str(tmp_path / name), *lens]) == 0
    np.testing.assert_array_equal(read_pngs(tmp_path / "npy"), read_pngs(tmp_path / "npz"))
    assert not np.array_equal(read_pngs(tmp_path / "npy"), frames)
    np.savez(tmp_path / "one.npz", z=depth)  # its only array
    np.savez(tmp_path / "two.npz", a=depth, b=depth * 2)  # which? said, not guessed
    assert main(["fx", str(seq), "-o", str(tmp_path / "one" / "%02d.png"), "--depth",
                 str(tmp_path / "one.npz"), *lens]) == 0
    np.testing.assert_array_equal(read_pngs(tmp_path / "one"), read_pngs(tmp_path / "npy"))
    assert main(["fx", str(seq), "-o", str(tmp_path / "two" / "%02d.png"), "--depth",
                 str(tmp_path / "two.npz"), *lens]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {tmp_path / 'two.npz'} holds 2 arrays "
                                       "(a, b) and none named depth: save the pass as "
                                       "numpy.savez(path, depth=...)\n")
    assert not (tmp_path / "two").exists()


def test_an_8_bit_depth_pass_is_warned_of_as_steps(tmp_path, rng, caplog):
    """256 depths at most: a slanted floor's blur changes in steps; said, still run."""
    import imageio.v3 as iio

    h, w, n = 12, 16, 2
    seq, depth = tmp_path / "frames", tmp_path / "depth"
    seq.mkdir()
    depth.mkdir()
    for i in range(n):
        iio.imwrite(seq / f"{i:04d}.png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        iio.imwrite(depth / f"{i:04d}.png", rng.integers(1, 256, (h, w), dtype=np.uint8))
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth", str(depth),
            "--depth-scale", "0.05", "--focus-distance", "2.0", "--f-stop", "2.8", "--quiet"]
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(args) == 0
    said = [r.getMessage() for r in caplog.records if "8-bit" in r.getMessage()]
    assert said == [f"depth {depth} is 8-bit: 256 depths at most, so the blur changes in steps "
                    "along a slanted surface; write 16-bit PNG or EXR depth"], said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


def test_a_bad_value_in_a_depth_sequence_names_its_file(tmp_path, rng, capsys):
    """A sequence numbered from 1001: "depth frame 3" left the user to count to the file."""
    import imageio.v3 as iio

    seq, _ = png_sequence(tmp_path, rng, 5, 18, 32)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i in range(5):
        mm = np.full((18, 32), 2000, np.uint16)
        mm[7, 9] = 0 if i == 3 else 2000
        iio.imwrite(folder / f"d.{1001 + i}.png", mm)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o.mp4"), "--depth",
                 str(folder / "d.%04d.png"), "--depth-scale", "0.001", "--focus-distance", "2",
                 "--f-stop", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: depth frame 3 ({folder / 'd.1004.png'}) has a "
                          "value <= 0 (0) at row 7, column 9; depth must be a distance > 0"), err
