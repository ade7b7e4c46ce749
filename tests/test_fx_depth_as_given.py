"""`hfrender fx` names a float64 depth's bad value as given, as the effects library does
(was: the .npy read into float32 first, so a depth of 1e-300 m was said "<= 0 (0)"); a
depth past float32's largest (1e39) is sky in both, as inf is."""

import numpy as np
import pytest
from fx_helpers import png_sequence, read_pngs

import hfrender as hf
from hfrender.cli import main

LENS = ["--focus-distance", "2", "--f-stop", "2", "--sensor-width-mm", "4"]


def run_fx(tmp_path, seq, depth, *more):
    np.save(tmp_path / "d.npy", depth)
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    rc = main(["fx", str(seq), "-o", str(out / "%03d.png"), "--depth", str(tmp_path / "d.npy"),
               *LENS, *more, "--quiet"])
    return rc, out


@pytest.mark.parametrize("shape, frame", [((3, 8, 8), 0), ((3, 8, 8), 2), ((8, 8), 0)])
def test_a_depth_under_float32s_smallest_is_named_as_given(tmp_path, rng, capsys, shape,
                                                           frame):
    """Frame 0 (checked as the pass is opened), a later frame of an .npy (its scan before
    any frame is written), one frame for every frame (a locked-off shot's)."""
    seq, _ = png_sequence(tmp_path, rng, 3, 8, 8)
    depth = rng.uniform(1.0, 5.0, shape)
    (depth[frame] if len(shape) == 3 else depth)[1, 2] = 1e-300
    rc, out = run_fx(tmp_path, seq, depth)
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert err == (f"hfrender: error: depth frame {frame} ({tmp_path / 'd.npy'}) has a value "
                   "of 1e-300, 0 in float32 (as depth is read), at row 1, column 2; depth "
                   "must be a distance > 0 (use inf for sky)\n")


def test_several_tiny_depths_name_the_first_as_given_in_metres(tmp_path, rng, capsys):
    """As the library's line; with --depth-scale, the metres the value makes (as a value
    <= 0 is named), worked out in float64."""
    seq, _ = png_sequence(tmp_path, rng, 2, 8, 8)
    depth = rng.uniform(1000.0, 5000.0, (2, 8, 8))
    depth[1, 3, 4], depth[1, 5, 6] = 4e-300, -1.0
    rc, _ = run_fx(tmp_path, seq, depth, "--depth-scale", "0.001")
    assert rc == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: depth frame 1 ({tmp_path / 'd.npy'}) has 2 values <= 0 in float32 "
        "(as depth is read), the first 4e-303 at row 3, column 4; depth must be a distance > 0")


def test_a_float32_depth_at_zero_is_still_said_as_it_was(tmp_path, rng, capsys):
    seq, _ = png_sequence(tmp_path, rng, 2, 8, 8)
    depth = rng.uniform(1.0, 5.0, (2, 8, 8)).astype(np.float32)
    depth[1, 6, 0] = -0.25
    assert run_fx(tmp_path, seq, depth)[0] == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: depth frame 1 ({tmp_path / 'd.npy'}) has a value <= 0 (-0.25) at "
        "row 6, column 0; depth must be a distance > 0")


def test_a_depth_past_float32s_largest_is_sky_as_in_the_library(tmp_path, rng):
    """1e39 m is inf in float32: sky, in fx as in hf.depth_of_field (both take it so)."""
    seq, frames = png_sequence(tmp_path, rng, 2, 8, 8)
    depth = rng.uniform(0.5, 5.0, (2, 8, 8))
    depth[:, 2:5, 3:6] = 1e39
    rc, big = run_fx(tmp_path, seq, depth)
    assert rc == 0
    depth[:, 2:5, 3:6] = np.inf
    rc, sky = run_fx(tmp_path, seq, depth)
    assert rc == 0
    got = read_pngs(big)
    np.testing.assert_array_equal(got, read_pngs(sky))
    depth[:, 2:5, 3:6] = 1e39
    lens = dict(focus_distance=2.0, f_stop=2.0, sensor_width_mm=4.0)
    np.testing.assert_array_equal(got, hf.depth_of_field(frames, depth, **lens))
    assert not np.array_equal(got, frames)  # blurred: the sky's pixels most of all
