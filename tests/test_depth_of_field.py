"""``hf.depth_of_field`` and ``hf.Lens``: the thin lens's circle of confusion, a point's
spread, sharp and blurred layers over each other, energy kept, stacks and one depth for a
batch, a focus pull, and the lens's and the depth's inputs taken or refused."""

import math
import warnings

import numpy as np
import pytest
from conftest import srgb_decode
from depth_of_field_helpers import (
    _told,
)

import hfrender as hf
from hfrender.errors import InputError

# 50 mm f/1.4 focused at 1 m; a 3 m plane on a 256 px wide 36 mm sensor
FOCUS, FSTOP, WIDTH = 1.0, 1.4, 256
SMALL = 9.0  # sensor width (mm) that gives small test images large blur
LENS = dict(focus_distance=FOCUS, f_stop=FSTOP, sensor_width_mm=SMALL)


def thin_lens_coc_px(s2, s1=FOCUS, n=FSTOP, f_mm=50.0, sensor_mm=36.0, width=WIDTH):
    f = f_mm / 1000
    if np.isinf(s1):  # focused at infinity: the aperture times the angle f / s2
        return 0.0 if np.isinf(s2) else (f_mm / n) * f / s2 / sensor_mm * width
    rel = 1.0 if np.isinf(s2) else abs(s2 - s1) / s2
    return (f_mm / n) * rel * f / (s1 - f) / sensor_mm * width  # sensor mm -> pixels


def test_coc_formula_values():
    lens = hf.Lens(FOCUS, FSTOP)
    assert lens.coc_px(3.0, WIDTH) == pytest.approx(thin_lens_coc_px(3.0))
    # by hand: 35.714 mm * (2/3) * 0.05/0.95 = 1.2531 mm on the sensor -> 8.911 px
    assert lens.coc_px(3.0, WIDTH) == pytest.approx(8.911, abs=1e-3)
    assert lens.coc_px(np.inf, WIDTH) == pytest.approx(thin_lens_coc_px(np.inf))
    assert lens.coc_px(FOCUS, WIDTH) == 0.0
    # focused at infinity: (f/N) f / s2 (the limit of a far focus), the sky sharp
    far = hf.Lens(np.inf, FSTOP)
    assert far.coc_px(2.0, WIDTH) == pytest.approx(35.714285 * 0.05 / 2.0 / 36 * WIDTH)
    assert far.coc_px(2.0, WIDTH) == pytest.approx(hf.Lens(1e9, FSTOP).coc_px(2.0, WIDTH),
                                                   rel=1e-8)
    assert far.coc_px(np.inf, WIDTH) == 0.0
    np.testing.assert_array_equal(far.coc_px(np.array([np.inf, 4.0]), WIDTH),
                                  [0.0, far.coc_px(4.0, WIDTH)])


@pytest.mark.parametrize("focus", [FOCUS, np.inf])
@pytest.mark.parametrize("distance, shown", [(-3.0, "-3"), (0.0, "0"), (np.nan, "nan"),
                                             (np.array([2.0, -0.5, 1.0]), "-0.5")])
def test_coc_of_a_distance_not_before_the_lens_is_refused(focus, distance, shown):
    # a point at or behind the lens has no circle of confusion: a negative size was returned
    with pytest.raises(InputError, match=rf"^distance {shown} is not a distance > 0 in "
                                         r"metres from the camera \(use inf for sky\)$"):
        hf.Lens(focus, FSTOP).coc_px(distance, WIDTH)
    with pytest.raises(TypeError, match="distance '3' is not a number"):
        hf.Lens(focus, FSTOP).coc_mm("3")
    assert hf.Lens(focus, FSTOP).coc_px(np.array([], np.float32), WIDTH).shape == (0,)


@pytest.mark.parametrize("s1, s2", [(FOCUS, 3.0), (FOCUS, 6.0), (FOCUS, np.inf), (FOCUS, 0.6),
                                    (np.inf, 0.5), (np.inf, 2.0)])
def test_point_spreads_to_the_thin_lens_coc(s1, s2):
    h = w = 64
    img = np.zeros((h, w, 1), np.float32)
    img[32, 32] = 1.0
    depth = np.full((h, w), s2, np.float32)
    out = hf.depth_of_field(img, depth, focus_distance=s1, f_stop=FSTOP,
                            sensor_width_mm=36.0 * w / WIDTH)  # same angle of view as 256 px
    c = thin_lens_coc_px(s2, s1)  # a 9 mm sensor at 64 px = a 36 mm one at 256 px
    lit = out[..., 0] > 0
    row_extent = lit[32].sum()
    area_diameter = 2 * np.sqrt(lit.sum() / np.pi)
    assert abs(row_extent - c) <= 1.5, (row_extent, c)
    assert abs(area_diameter - c) <= 1.5, (area_diameter, c)
    assert out.sum() == pytest.approx(1.0, rel=1e-5)  # energy conserved


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_focused_at_infinity_the_sky_stays_sharp_and_the_near_blurs(method):
    """``focus_distance=inf``: the sky's pixels (inf) bit for bit, a mountain at 5 km blurred
    by under a pixel, a tree at 2 m by (f/N) f / 2 m (6.35 px on this sensor)."""
    rng = np.random.default_rng(11)
    img = rng.random((48, 96, 3), dtype=np.float32)
    depth = np.full((48, 96), np.inf, np.float32)
    depth[20:, :] = 5000.0
    depth[28:40, 40:56] = 2.0
    out = hf.depth_of_field(img, depth, focus_distance=np.inf, f_stop=FSTOP, method=method,
                            sensor_width_mm=SMALL * 96 / 64)
    np.testing.assert_array_equal(out[:8], img[:8])  # sky beyond the tree's reach
    np.testing.assert_array_equal(out[20:24, :30], img[20:24, :30])  # the far hills
    assert thin_lens_coc_px(2.0, np.inf, sensor_mm=SMALL * 96 / 64, width=96) == \
        pytest.approx(6.35, abs=0.01)
    tree = np.abs(out[30:38, 44:52] - img[30:38, 44:52]).mean()
    assert tree > 0.05, tree  # its texture averaged away over ~6 px


def test_in_focus_point_stays_one_pixel():
    img = np.zeros((32, 32, 3), np.uint8)
    img[10, 20] = 255
    depth = np.full((32, 32), FOCUS, np.float32)
    depth[:, :5] = np.inf  # a defocused background elsewhere does not matter
    out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=FSTOP)
    assert out.dtype == np.uint8
    assert np.argwhere(out[..., 0] > 0).tolist() == [[10, 20]]
    assert out[10, 20].tolist() == [255, 255, 255]


def _square_scene(rng, fg_depth, bg_depth, size=72, half=12):
    """A red square (foreground) over a green/blue textured background, linear float."""
    img = np.zeros((size, size, 3), np.float32)
    img[..., 1:] = rng.random((size, size, 2), dtype=np.float32)
    depth = np.full((size, size), bg_depth, np.float32)
    c = size // 2
    sq = (slice(c - half, c + half), slice(c - half, c + half))
    img[sq] = (1.0, 0.0, 0.0)
    depth[sq] = fg_depth
    return img, depth, sq


def test_in_focus_foreground_stays_sharp_over_blurred_background(rng):
    img, depth, sq = _square_scene(rng, fg_depth=FOCUS, bg_depth=4.0)
    out = hf.depth_of_field(img, depth, **LENS)
    r = hf.Lens(FOCUS, FSTOP, sensor_width_mm=SMALL).coc_px(4.0, 72) / 2
    assert r > 3  # the background really is blurred
    np.testing.assert_array_equal(out[sq], img[sq])  # no background bleeds onto it
    outside = np.ones((72, 72), bool)
    outside[sq] = False
    assert out[outside][:, 0].max() == 0.0  # the sharp square does not spread
    assert np.abs(out[outside] - img[outside]).max() > 0.05  # while the background blurs


def test_defocused_foreground_spreads_over_sharp_background(rng):
    img, depth, sq = _square_scene(rng, fg_depth=0.5, bg_depth=FOCUS)
    out = hf.depth_of_field(img, depth, **LENS)
    r = hf.Lens(FOCUS, FSTOP, sensor_width_mm=SMALL).coc_px(0.5, 72) / 2
    assert r > 4
    edge = sq[1].stop  # first background column right of the square
    row = out[36, :, 0]
    # red spreads about r pixels into the background, fading with distance
    assert row[edge] > 0.3 and row[edge + int(r) - 2] > 0
    assert np.all(np.diff(row[edge : edge + int(r) + 1]) <= 1e-6)
    assert row[edge + int(r) + 1 :].max() == 0.0
    far = (slice(0, 8), slice(0, 8))  # background beyond the blur is untouched
    np.testing.assert_array_equal(out[far], img[far])


def test_energy_is_conserved_away_from_borders(rng):
    h = w = 80
    img = np.zeros((h, w, 3), np.float32)
    img[20:60, 20:60] = rng.random((40, 40, 3), dtype=np.float32) * 4  # HDR values too
    depth = np.full((h, w), 0.45, np.float32)
    out = hf.depth_of_field(img, depth, **LENS)
    assert hf.Lens(FOCUS, FSTOP, sensor_width_mm=SMALL).coc_px(0.45, w) > 10
    np.testing.assert_allclose(out.sum(axis=(0, 1)), img.sum(axis=(0, 1)), rtol=1e-5)


def test_energy_in_linear_light_for_srgb_frames(rng):
    img = np.zeros((48, 48, 3), np.uint8)
    img[18:30, 18:30] = rng.integers(0, 256, (12, 12, 3))
    depth = np.full((48, 48), 3.0, np.float32)
    out = hf.depth_of_field(img, depth, **LENS)
    lin_in = srgb_decode(img / 255).sum()
    lin_out = srgb_decode(out / 255).sum()
    assert lin_out == pytest.approx(lin_in, rel=0.01)  # 8-bit rounding of many dim pixels
    # code-value blending would not conserve light: the mean code value is kept instead
    cv = hf.depth_of_field(img, depth, **LENS, linear_light=False)
    assert abs(srgb_decode(cv / 255).sum() - lin_in) > 0.02 * lin_in


def test_max_coc_px_caps_the_spread():
    img = np.zeros((64, 64, 1), np.float32)
    img[32, 32] = 1.0
    depth = np.full((64, 64), 0.3, np.float32)
    out = hf.depth_of_field(img, depth, **LENS, max_coc_px=5)
    assert (out[32, :, 0] > 0).sum() == 5


def test_stack_of_frames_each_with_its_depth(rng):
    frames = rng.random((3, 20, 20, 3), dtype=np.float32)
    depth = np.stack([np.full((20, 20), d, np.float32) for d in (FOCUS, 3.0, np.inf)])
    out = hf.depth_of_field(frames, depth, **LENS)
    np.testing.assert_array_equal(out[0], frames[0])
    for k in (1, 2):
        single = hf.depth_of_field(frames[k], depth[k], **LENS)
        np.testing.assert_allclose(out[k], single, rtol=1e-6)
        assert not np.allclose(out[k], frames[k])


def test_numpy_scalars_are_accepted_for_the_lens(rng):
    img = rng.random((32, 32, 3), dtype=np.float32)
    depth = np.full((32, 32), 3.0)
    a = hf.depth_of_field(img, depth, focus_distance=np.float32(1.0), f_stop=np.int64(2),
                          sensor_width_mm=np.float64(SMALL))
    # the same blur as with Python numbers, and a blur at all (a CoC of 3 px)
    np.testing.assert_array_equal(a, hf.depth_of_field(img, depth, focus_distance=1.0,
                                                       f_stop=2.0, sensor_width_mm=SMALL))
    assert a.shape == img.shape and np.abs(a - img).max() > 0.05
    with pytest.raises(ValueError, match="f_stop=True must be a finite number > 0"):
        hf.Lens(1.0, True)


def test_disk_of_a_pixel_does_not_depend_on_other_pixels():
    # radius 1.9 covers the 3x3 block (d^2 <= 3.61), alone or beside a larger blur
    lens = hf.Lens(FOCUS, FSTOP, sensor_width_mm=SMALL)
    s2 = 1.0 / (1.0 - 3.8 / lens.coc_px(np.inf, 64))  # the distance whose CoC is 3.8 px
    assert lens.coc_px(s2, 64) == pytest.approx(3.8)
    for other in (s2, 0.6):
        img = np.zeros((64, 64, 1), np.float32)
        img[20, 20] = 1.0
        depth = np.full((64, 64), s2, np.float32)
        depth[50, 50] = other
        out = hf.depth_of_field(img, depth, **LENS)
        assert (out[15:26, 15:26, 0] > 0).sum() == 9


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_straight_alpha_is_blurred_as_light_with_premultiplied_false(method):
    """Transparent red beside opaque white (a PNG's straight colour): with
    ``premultiplied=False`` the blurred edge is white fading out, as ``hfrender fx`` makes
    it; read as premultiplied, the transparent red bleeds into it."""
    img = np.zeros((48, 64, 4), np.uint8)
    img[:, :32] = (255, 0, 0, 0)
    img[:, 32:] = 255
    depth = np.full((48, 64), 8.0, np.float32)
    lens = dict(focus_distance=2.0, f_stop=1.4, sensor_width_mm=12.0, method=method)
    got = hf.depth_of_field(img, depth, premultiplied=False, **lens)
    seen = got[..., 3] > 0
    assert seen[:, 20:32].any() and not seen.all()  # blurred across the edge, not everywhere
    assert np.abs(got[..., :3][seen].astype(int) - 255).max() <= 1
    assert (got[~seen] == 0).all()
    bled = hf.depth_of_field(img, depth, **lens)  # the default reads it as premultiplied
    assert bled[..., 1][bled[..., 3] > 0].min() < 200
    with pytest.raises(hf.InputError, match="premultiplied=False is for RGBA frames"):
        hf.depth_of_field(img[..., :3], depth, premultiplied=False, **lens)


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_one_depth_serves_every_frame_of_a_batch(method):
    """A locked-off shot: one (H, W) depth (or (H, W, 1)) for all N frames gives each
    frame's own call with that depth."""
    rng = np.random.default_rng(21 + len(method))
    frames = rng.random((3, 20, 30, 3), dtype=np.float32)
    depth = rng.uniform(1.0, 4.0, (20, 30)).astype(np.float32)
    lens = dict(focus_distance=2.0, f_stop=1.4, sensor_width_mm=9.0, method=method)
    each = np.stack([hf.depth_of_field(f, depth, **lens) for f in frames])
    assert not np.array_equal(each, frames)
    np.testing.assert_array_equal(hf.depth_of_field(frames, depth, **lens), each)
    np.testing.assert_array_equal(hf.depth_of_field(frames, depth[..., None], **lens), each)
    with pytest.raises(ValueError, match=r"depth has shape \(20, 29\); it must match frames "):
        hf.depth_of_field(frames, depth[:, :29], **lens)


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_focus_pull_gives_each_frame_its_own_focus(method):
    """focus_distance with one distance per frame (a focus pull in one call): each frame as
    its own call at its distance; a wrong count is one line; a frame whose focus no pixel
    can be in is named in the warning."""
    import warnings

    rng = np.random.default_rng(31 + len(method))
    frames = rng.random((3, 20, 30, 3), dtype=np.float32)
    depth = rng.uniform(1.0, 4.0, (3, 20, 30)).astype(np.float32)
    pull = [1.0, 2.0, 3.5]
    lens = dict(f_stop=1.4, sensor_width_mm=9.0, method=method)
    each = np.stack([hf.depth_of_field(f, d, focus_distance=s, **lens)
                     for f, d, s in zip(frames, depth, pull, strict=True)])
    assert not np.array_equal(each[0], each[2])
    np.testing.assert_array_equal(hf.depth_of_field(frames, depth, focus_distance=pull, **lens),
                                  each)
    np.testing.assert_array_equal(
        hf.depth_of_field(frames, depth, focus_distance=np.array(pull), **lens), each)
    with pytest.raises(ValueError, match=r"^focus_distance has 2 values; give one distance, "
                                         r"or one for each of the 3 frames$"):
        hf.depth_of_field(frames, depth, focus_distance=pull[:2], **lens)
    np.testing.assert_array_equal(  # a list of one: that distance for every frame (a trial)
        hf.depth_of_field(frames, depth, focus_distance=[2.0], **lens),
        hf.depth_of_field(frames, depth, focus_distance=2.0, **lens))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(frames, depth, focus_distance=[2.0, 2.0, 40.0], **lens)
    assert [str(w.message)[:60] for w in _told(caught)] == [
        "the focus distance 40 m is farther than all of depth frame 2"]
    with pytest.raises(ValueError, match=r"^frame 1: focus_distance=0.03 must be a distance "):
        hf.depth_of_field(frames, depth, focus_distance=np.array([2.0, 0.03, 2.0]), **lens)
    np.testing.assert_array_equal(  # a single frame: one distance, in a list or not
        hf.depth_of_field(frames[1], depth[1], focus_distance=[2.0], **lens), each[1])


def test_a_depth_given_as_nested_lists_is_its_metres_unrounded(rng):
    """It was told "np.asarray(frames, np.uint8)", which would round metres to whole ones
    (a DoF trial); then refused, told np.asarray(depth, np.float32), where velocity's nested
    lists were taken (an array sweep): now read as np.asarray reads it, its metres as they
    are, and an integer list's millimetres warned of as an array's are."""
    import warnings

    img = rng.random((8, 8, 3), dtype=np.float32)
    depth = rng.uniform(1.2, 1.8, (8, 8)).astype(np.float32)  # (rounded: all 1 or 2 m)
    lens = dict(focus_distance=1.5, f_stop=1.4, focal_length_mm=200, sensor_width_mm=3.6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = hf.depth_of_field(img, depth, **lens)
        assert np.abs(want - hf.depth_of_field(img, np.round(depth), **lens)).max() > 0.01
        np.testing.assert_array_equal(
            hf.depth_of_field(img, depth.tolist(), **lens), want)
    mm = (depth * 1000).astype(int)
    with pytest.warns(UserWarning, match=rf"^depth is int64 with values up to {mm.max()}, "
                                         r"read as metres: if these are millimetres"):
        hf.depth_of_field(img, mm.tolist(), **lens)


def test_a_lens_takes_0_d_arrays_and_tensors_as_depth_of_field_does(rng):
    """``hf.Lens(2.0, np.array(1.4))`` was refused, 'f_stop=array(1.4) must be a finite
    number > 0', where depth_of_field(f_stop=np.array(1.4)) took it (an array-user's
    sweep): a 0-d array or tensor is its number in a Lens too, a Python float kept."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    lens = hf.Lens(np.array(2.5), torch.tensor(1.4, dtype=torch.float64),
                   focal_length_mm=np.array(50), sensor_width_mm=np.float32(9.0),
                   max_coc_px=np.array(16.0), aperture_blades=np.array(6))
    assert lens == hf.Lens(2.5, 1.4, sensor_width_mm=9.0, max_coc_px=16.0, aperture_blades=6)
    assert type(lens.f_stop) is float and type(lens.aperture_blades) is int
    with pytest.raises(InputError, match=r"^f_stop=array\(\[1\.4\]\) must be a finite number"):
        hf.Lens(2.5, np.array([1.4]))  # one number in an array is no number


def test_a_lens_takes_fractions_and_refuses_integers_past_floats_range():
    """``Fraction(5, 2)`` failed deep in NumPy ("Cannot cast ufunc 'subtract' input 1 from
    dtype('O')") and ``10**400`` raised a bare OverflowError (a trial)."""
    from fractions import Fraction

    lens = hf.Lens(Fraction(5, 2), Fraction(14, 10))
    assert lens == hf.Lens(2.5, 1.4) and type(lens.focus_distance) is float
    for field in ("focus_distance", "f_stop", "focal_length_mm", "max_coc_px"):
        values = {"focus_distance": 2.0, "f_stop": 2.0, field: 10**400}
        with pytest.raises(InputError, match=rf"^{field}=100000\.\.\. \(401 digits\) must be "):
            hf.Lens(**values)


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_a_float32_max_sky_is_sky_without_a_numpy_warning(rng, method):
    """A compositor's trial: a renderer's sky of FLT_MAX through the exact gather printed
    numpy's 'RuntimeWarning: overflow encountered in multiply' (the gather's 1% depth
    tolerance); its picture was the inf sky's."""
    frame = rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)
    depth = np.full((24, 32), 4.0, np.float32)
    depth[:8] = np.inf
    depth[12:20, 8:24] = 1.0
    lens = dict(focus_distance=1.0, f_stop=1.4, sensor_width_mm=9, method=method,
                backend="cpu")
    want = hf.depth_of_field(frame, depth, **lens)
    depth[:8] = np.finfo(np.float32).max
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = hf.depth_of_field(frame, depth, **lens)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("given", [{"focus_distance": 0.5}, {"focus_pixel": (1, 1)},
                                   {"focus_distance": math.inf}])
def test_a_focal_length_past_any_lens_is_blamed_on_focal_length_mm(given):
    """focal_length_mm=10**30 was said "focus_distance=0.5 must be a distance in metres
    greater than the focal length (1e+27 m, a 1e+30 mm lens)", focus_distance blamed (one
    not given with focus_pixel: "the depth there is 2 m, nearer than the focal length")."""
    rng = np.random.default_rng(7)
    frames = rng.random((4, 4, 3), dtype=np.float32)
    depth = np.full((4, 4), 2.0, np.float32)
    for mm in (10**30, 1e6 + 1):
        with pytest.raises(InputError) as e:
            hf.depth_of_field(frames, depth, f_stop=2.0, focal_length_mm=mm, **given)
        assert str(e.value) == (f"focal_length_mm={mm!r} must be a finite number > 0, at most "
                                "1000000 (a lens of a kilometre)")
    lens = hf.Lens(2000.0, 2.0, focal_length_mm=1e6)  # the longest taken
    assert lens.coc_mm(4000.0) == pytest.approx(1e6 / 2 * 0.5 * 1e3 / 1000.0)
