"""What a disparity map and its options refuse, in one line and with nothing written: a
constant map, all sky, NaN or infinite values, the wrong shape, options with a distance, a
focus pixel checked as fx checks it, a max blur past the stand-in lens; one wording for the
library and fx."""

import numpy as np
import pytest
from disparity_helpers import (
    H,
    N,
    W,
    scene,
)
from fx_helpers import png_sequence

import hfrender as hf
from hfrender.cli import main

REFUSED = [
    (["--f-stop", "2.8"], "--f-stop does not apply with --depth-kind disparity: the blur's "
     "size is --max-blur's"),
    (["--focal-length-mm", "35"], "--focal-length-mm does not apply with --depth-kind "
     "disparity: the blur's size is --max-blur's"),
    (["--focus-distance", "2"], "--focus-distance does not apply with --depth-kind disparity: "
     "a disparity map holds no metres: focus by --focus-pixel or --focus-disparity"),
    (["--depth-scale", "2"], "--depth-scale does not apply with --depth-kind disparity: a "
     "disparity map is read as it is (an integer one scaled to 0..1), and --max-blur sets its "
     "scale"),
    (["--depth-range", "0.5,20"], "--depth-range does not apply with --depth-kind disparity: "
     "a disparity map is read as it is (an integer one scaled to 0..1), and --max-blur sets "
     "its scale"),
    (["--depth-zero-is-sky"], "--depth-zero-is-sky does not apply with --depth-kind "
     "disparity: a disparity of 0 or below is sky already"),
    (["--max-blur", "0"], "--max-blur 0 blurs nothing: under 2 px across a circle of "
     "confusion leaves every pixel as it is (a pixel's disk is whole pixels); give at least "
     "2, or no depth of field"),
    (["--max-blur", "-3"], "--max-blur -3 blurs nothing: under 2 px across a circle of "
     "confusion leaves every pixel as it is (a pixel's disk is whole pixels); give at least "
     "2, or no depth of field"),
    (["--focus-disparity", "0.5"], "--focus-pixel and --focus-disparity: give one (the pixel "
     "in focus, or the disparity in focus)"),
    (["--focus-disparity", "-1", "--no-pixel"], "--focus-disparity -1 must be a finite "
     "disparity >= 0 (in the map's units; 0 and below is sky)"),
    (["--no-blur"], "--depth-kind disparity needs --max-blur (the largest circle of "
     "confusion's diameter, in pixels)"),
    (["--no-pixel"], "--depth-kind disparity needs --focus-pixel or --focus-disparity (the "
     "pixel in focus, or the disparity in focus)"),
]


@pytest.mark.parametrize("extra,said", REFUSED, ids=[" ".join(e) for e, _ in REFUSED])
def test_what_a_disparity_map_refuses_is_one_line_and_nothing_is_written(
        tmp_path, rng, capsys, extra, said):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    args = ["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
            str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--quiet"]
    args += [] if "--no-pixel" in extra else ["--focus-pixel", "30,12"]
    args += [] if "--no-blur" in extra or "--max-blur" in extra else ["--max-blur", "9"]
    assert main(args + [e for e in extra if e not in ("--no-pixel", "--no-blur")]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not (tmp_path / "o").exists()


def test_a_constant_map_and_disparity_options_with_a_distance_are_refused(tmp_path, rng,
                                                                          capsys):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "flat.npy", np.full((H, W), 0.5, np.float32))
    np.save(tmp_path / "z.npy", scene()[0])
    out = ["-o", str(tmp_path / "o" / "%03d.png"), "--quiet"]
    for depth, extra, said in (
            ("flat.npy", ["--depth-kind", "disparity", "--focus-disparity", "0.3",
                          "--max-blur", "9"],
             f"depth {tmp_path / 'flat.npy'}'s first frame is one disparity (0.5) all over: a "
             "constant map holds no depth to blur by; give the map of this footage"),
            ("z.npy", ["--focus-distance", "4", "--f-stop", "2", "--max-blur", "9"],
             "--max-blur applies only with --depth-kind disparity (a distance is blurred by "
             "the lens: --f-stop)")):
        assert main(["fx", str(seq), *out, "--depth", str(tmp_path / depth), *extra]) == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"hfrender: error: {said}"
        assert not (tmp_path / "o").exists()
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    for kw, said in (
            ({"focus_distance": 4.0, "f_stop": 2.0, "max_blur": 9}, "max_blur applies only "
             "with depth_kind='disparity' (a distance is blurred by the lens: f_stop)"),
            ({"depth_kind": "disparity", "f_stop": 2.0, "max_blur": 9, "focus_disparity": 1},
             "f_stop does not apply with depth_kind='disparity': the blur's size is "
             "max_blur's"),
            ({"depth_kind": "disparity", "focus_pixel": (3, 2), "max_blur": 0}, "max_blur=0 "
             "blurs nothing: under 2 px across a circle of confusion leaves every pixel as it "
             "is (a pixel's disk is whole pixels); give at least 2, or no depth of field"),
            ({"f_stop": 2.0}, "depth_of_field needs focus_distance (or focus_pixel), or "
             "depth_kind='disparity' with max_blur")):
        with pytest.raises((ValueError, TypeError)) as e:
            hf.depth_of_field(frames, scene()[1][0], **kw)
        assert str(e.value) == said
    with pytest.raises(ValueError, match=r"^depth's first frame is one disparity \(0.5\) all "
                       r"over: a constant map holds no depth to blur by; give the map of "
                       r"this footage$"):
        hf.depth_of_field(frames, np.full((H, W), 0.5), depth_kind="disparity",
                          focus_pixel=(3, 2), max_blur=9)


def test_a_focus_pixel_with_a_distance_is_checked_as_fx_checks_it(tmp_path, rng, capsys):
    z, _ = scene()
    z[0, 10, 10] = 0.03  # within the 50 mm focal length in frame 0 (fx checks a frame's
    #                      focus as it reaches it: frame 1's came after frame 0 was kept or not)
    frames = rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_distance=4.0, f_stop=1.4, focus_pixel=(10, 10))
    assert str(e.value) == ("focus_distance and focus_pixel: give one (the distance in "
                            "focus, or the pixel whose depth is in focus)")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(10, 10))
    assert str(e.value) == "depth_of_field needs f_stop, or depth_kind='disparity' with max_blur"
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z)
    assert str(e.value) == ("depth_of_field needs focus_distance (or focus_pixel) and f_stop, "
                            "or depth_kind='disparity' with max_blur")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(W, 3), f_stop=1.4)
    assert str(e.value) == (f"focus_pixel=({W}, 3) is outside the {W}x{H} frames (x from 0 "
                            f"to {W - 1}, y from 0 to {H - 1})")
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, z, focus_pixel=(10, 10), f_stop=1.4)
    tail = (": in frame 0 the depth there is 0.03 m, nearer than the lens's focal length: "
            "nothing can be focused there")
    assert str(e.value) == "focus_pixel=(10, 10)" + tail
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "z.npy", z)
    assert main(["fx", str(seq), "-o", str(tmp_path / "m" / "%03d.png"), "--depth",
                 str(tmp_path / "z.npy"), "--f-stop", "1.4", "--focus-pixel", "10,10",
                 "--quiet"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: --focus-pixel 10,10{tail}\n"


@pytest.mark.parametrize("values", [(-0.5, -0.5), (0.0, 0.0), (-1.0, 0.0)])
def test_a_map_of_no_disparity_above_0_is_refused_as_all_sky(rng, values):
    """Every disparity 0 or below (sky): was "one disparity (0) all over: a constant map",
    a 0 the map does not hold, and a ramp from -1 to 0 called constant."""
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    d = np.linspace(*values, H * W).reshape(H, W)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, d, depth_kind="disparity", focus_disparity=0.5, max_blur=9)
    assert str(e.value) == ("depth's first frame has no disparity above 0: all of it is sky (0 "
                            "or below), no depth to blur by; give the map of this footage "
                            "(near large)")


@pytest.mark.parametrize("kw,said", [
    ({"focus_disparity": 0.5}, "{kind} needs {max_blur} (the largest circle of confusion's "
     "diameter, in pixels)"),
    ({"max_blur": 9.0}, "{kind} needs {focus_pixel} or {focus_disparity} (the pixel in focus, "
     "or the disparity in focus)"),
    ({"max_blur": 9.0, "focus_disparity": 0.5, "focus_pixel": (3, 2)}, "{focus_pixel} and "
     "{focus_disparity}: give one (the pixel in focus, or the disparity in focus)"),
    ({"max_blur": 9.0, "focus_disparity": -1.5}, "{focus_disparity}{is}-1.5 must be a finite "
     "disparity >= 0 (in the map's units; 0 and below is sky)")])
def test_the_library_and_fx_settings_say_a_disparity_check_alike(rng, kw, said):
    """One check, each caller's names (was two wordings: 'needs --max-blur PX', 'needs
    --focus-pixel X,Y or --focus-disparity D: give one' against the library's 'needs
    focus_pixel=(x, y) or focus_disparity: give one')."""
    from hfrender.engine.fx_settings import FxSettings

    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    keywords = {k: k for k in ("max_blur", "focus_pixel", "focus_disparity")}
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, scene()[1][0], depth_kind="disparity", **kw)
    assert str(e.value) == said.format(kind="depth_kind='disparity'", **keywords, **{"is": "="})
    flags = {k: "--" + k.replace("_", "-") for k in keywords}
    with pytest.raises(hf.InputError) as e:
        FxSettings(depth="d.npy", depth_kind="disparity", workers=1, **kw)
    assert str(e.value) == said.format(kind="--depth-kind disparity", **flags, **{"is": " "})


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_nan_or_infinite_disparity_is_said_as_a_disparity_not_a_distance(
        tmp_path, rng, capsys, bad):
    """A NaN or +inf in a disparity map was refused as "depth contains 1 NaN value(s) ...;
    depth must be a distance > 0 (use inf for sky)": an inf called a NaN, and metres asked
    of a map that holds none (a new user's trial)."""
    frames = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    d = scene()[1].copy()
    d[1, 5, 7] = bad
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, d[1], depth_kind="disparity", focus_disparity=0.5, max_blur=9)
    assert str(e.value) == ("depth has a NaN or infinite disparity at row 5, column 7; "
                            "a disparity must be a finite number (near is large; 0 or below "
                            "is sky)")
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", d)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", "--focus-pixel", "30,12",
                 "--max-blur", "9", "--quiet"]) == 2
    err = capsys.readouterr().err  # (the .npy checked whole: before any frame is written)
    assert err == (f"hfrender: error: depth frame 1 ({tmp_path / 'd.npy'}) has a NaN or "
                   "infinite disparity at row 5, column 7; a disparity must be a finite "
                   "number (near is large; 0 or below is sky)\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("depth", [np.array(0.5), np.float32(0.5), np.ones(W, np.float32)])
def test_a_disparity_of_the_wrong_shape_is_refused_as_a_distances_is(rng, depth):
    """A 0-d disparity raised "'numpy.float32' object does not support item assignment"
    from the map's inverse; the distance's line now, before any of it is read."""
    frames = rng.random((H, W, 3), np.float32)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, depth, depth_kind="disparity", focus_disparity=0.5,
                          max_blur=6)
    with pytest.raises(hf.InputError) as metres:
        hf.depth_of_field(frames, depth, focus_distance=2.0, f_stop=2.0)
    assert str(e.value) == str(metres.value) == (
        f"depth has shape {np.shape(depth)}; it must match frames ({H}, {W}, 3) without the "
        f"channel axis: ({H}, {W})")  # (a NumPy scalar: a 0-d array, as np.asarray reads it)


@pytest.mark.parametrize("kw", [{"focus_disparity": 0.5}, {"focus_pixel": (30, 12)}])
def test_a_max_blur_past_what_the_stand_in_lens_can_focus_is_blamed_on_max_blur(
        tmp_path, rng, capsys, kw):
    """max_blur=10**30 was said "focus_distance=0.05 must be a distance in metres greater
    than the focal length", a keyword not given: the stand-in lens's focus, derived from it."""
    frames = rng.random((H, W, 3), np.float32)
    d = scene()[1][0]
    for blur in (10**30, 1e12):
        with pytest.raises(hf.InputError) as e:
            hf.depth_of_field(frames, d, depth_kind="disparity", max_blur=blur, **kw)
        said = str(e.value)
        assert said.startswith(f"max_blur={float(blur):g} is more than depth's first frame can "
                               "be blurred by"), said
        most = float(said.split("give at most ")[1].split(" ")[0])
        assert 1e6 < most < 1e12
    lo = hf.depth_of_field(frames, d, depth_kind="disparity", max_blur=most, **kw)
    assert np.isfinite(lo).all() and lo.std() > 0  # the largest max_blur said is taken
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    np.save(tmp_path / "d.npy", scene()[1])
    focus = [f"--{k.replace('_', '-')}" for k in kw] + [
        "30,12" if "focus_pixel" in kw else "0.5"]
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "d.npy"), "--depth-kind", "disparity", *focus, "--max-blur",
                 "1e30", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(  # (the command: its flag)
        f"hfrender: error: --max-blur 1e+30 is more than depth {tmp_path / 'd.npy'}'s first "
        "frame can be blurred by (its stand-in lens would be focused on itself); give at most ")
    assert not (tmp_path / "o").exists()
