import math
import warnings

import numpy as np
import pytest
from conftest import srgb_decode

import hfrender as hf
from hfrender.errors import InputError

# 50 mm f/1.4 focused at 1 m; a 3 m plane on a 256 px wide 36 mm sensor
FOCUS, FSTOP, WIDTH = 1.0, 1.4, 256
SMALL = 9.0  # sensor width (mm) that gives small test images large blur
LENS = dict(focus_distance=FOCUS, f_stop=FSTOP, sensor_width_mm=SMALL)


def _told(caught):
    """The warnings a call gave: not a ResourceWarning of an earlier test's file that the
    garbage collector happened to close during it."""
    return [w for w in caught if w.category is not ResourceWarning]


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


@pytest.mark.parametrize("dtype, scale, warned", [
    (np.uint16, 1000, True), (np.int32, 1000, True), (np.uint16, 1, False),
    (np.float32, 1000, False)])
def test_integer_depth_far_past_a_kilometre_is_warned_of_as_millimetres(dtype, scale, warned):
    """uint16 millimetres read as metres put everything kilometres away: one warning (a
    UserWarning, pointing at the call) names the value and the fix; metres in integers, and
    float depth, pass without a word."""
    import warnings

    rng = np.random.default_rng(np.dtype(dtype).itemsize * scale)
    img = rng.random((12, 16, 3), dtype=np.float32)
    metres = rng.integers(1, 5, (12, 16))
    depth = (metres * scale).astype(dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(img, depth, focus_distance=2.0, f_stop=2.8)
    said = [(str(w.message), w.category, w.filename) for w in _told(caught)]
    expected = (f"depth is {np.dtype(dtype)} with values up to {int(depth.max())}, read as "
                "metres: if these are millimetres, pass depth * 0.001")
    units = [w for w in said if "millimetres" in w[0]]
    assert units == ([(expected, UserWarning, __file__)] if warned else []), said
    # kilometres away, all of it: the focus at 2 m is nearer than every pixel (said too)
    focus = [w for w in said if w[0].startswith("the focus distance 2 m is nearer")]
    assert len(focus) == (1 if scale == 1000 else 0)
    # metres: a 16 px wide frame at f/2.8 blurs nothing by a pixel (said where the focus is
    # not: the focus note tells the likelier cause)
    blur = [w for w in said if "nothing is blurred" in w[0]]
    assert len(blur) == (0 if scale == 1000 else 1)
    assert len(said) == len(units) + len(focus) + len(blur)


@pytest.mark.parametrize("focus, kind, side", [
    (0.3, "", "nearer"), (50.0, "", "farther"), (5.0, "", None), (50.0, "sky", None),
    (0.3, "sky", "nearer"), (0.3, "plane", None), (25.0, "", None), (0.8, "", None)])
def test_a_focus_outside_all_of_the_depth_is_warned_of(focus, kind, side):
    """A focus nearer than every pixel, or farther than every one of a depth with no sky,
    puts no pixel in focus (focus or depth in other units, or disparity given as depth):
    one UserWarning, pointing at the call, with the depth's range; beyond the farthest
    object of a depth with sky (a focus "at infinity") is no mistake, nor is a plate of
    one depth defocused, nor a focus within 1.5x of the depth's ends (25 m past 20 m, as
    for the hyperfocal distance; 0.8 m before 1 m)."""
    import warnings

    rng = np.random.default_rng(int(focus * 10) + len(kind))
    img = rng.random((2, 12, 16, 3), dtype=np.float32)
    depth = rng.uniform(1.0, 20.0, (2, 12, 16)).astype(np.float32)
    if kind == "sky":
        depth[:, :3] = np.inf
    elif kind == "plane":
        depth[:] = depth[0, 0, 0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = hf.depth_of_field(img, depth, focus_distance=focus, f_stop=2.8)
    said = [(str(w.message), w.category, w.filename) for w in caught  # (a 16 px frame at
            if "nothing is blurred" not in str(w.message)]  # f/2.8 blurs nothing: below)
    expected = (f"the focus distance {focus:g} m is {side} than all of depth "
                f"({float(depth.min()):g} to {float(depth.max()):g} m): no pixel is in focus. "
                "Depth must be metres from the camera (an inverse depth, or disparity, from a "
                "depth estimator is not: near is large there; "
                "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
                "disparity)")
    assert said == ([(expected, UserWarning, __file__)] if side else []), said
    assert out.shape == img.shape and np.isfinite(out).all()


def test_a_blur_under_two_pixels_is_said_to_blur_nothing(rng):
    """A pixel's disk is whole pixels: under 2 px across a circle of confusion leaves every
    pixel as it is; said in a UserWarning with the largest one, where no frame blurs (a
    focus pull whose last frame blurs: nothing said); a cap under 2 px is refused."""
    import warnings

    img = np.zeros((2, 90, 160, 3), np.float32)
    img[:, 45, 80] = rng.uniform(1.0, 2.0)
    depth = np.full((90, 160), 10.0, np.float32)  # 1.52 px at f/3, 2.28 px at f/2

    def blurred(f_stop, focus=2.0):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = hf.depth_of_field(img, depth, focus_distance=focus, f_stop=f_stop)
        return int((out[1, ..., 0] > 0).sum()), [str(w.message) for w in _told(caught)]

    lit, said = blurred(3.0)
    assert lit == 1 and said == [
        "the circles of confusion of every frame reach only 1.5 px across: under 2 px "
        "nothing is blurred (a pixel's disk is whole pixels); a lower f-stop or a longer "
        "focal length blurs more"]
    assert blurred(2.0) == (5, [])  # the pixel and its four neighbours
    assert blurred(2.0, focus=[9.5, 2.0]) == (5, [])  # a pull whose last frame blurs
    lit, said = blurred(2.0, focus=[9.5, 9.0])  # nor any frame of this one
    assert lit == 1 and len(said) == 1 and said[0].startswith(
        "the circles of confusion of every frame reach only 0.062 px across")  # (at 9 m:
    # 25 mm * (1 m / 10 m) * 0.05 / 8.95 = 0.01397 mm on a 36 mm sensor, 160 px wide)
    with pytest.raises(InputError, match=r"^max_coc_px=1.5 blurs nothing: under 2 px across a "
                       r"circle of confusion leaves every pixel as it is .* give at least 2, "
                       r"or no depth of field$"):
        hf.depth_of_field(img, depth, focus_distance=2.0, f_stop=1.0, max_coc_px=1.5)
    assert hf.Lens(2.0, 1.0, max_coc_px=2.0).max_coc_px == 2.0


@pytest.mark.parametrize("base, far, near, said", [
    (2.2, 10.0, None, None),  # a patch at 10 m: 2.28 px across, the farthest blurs
    (2.2, None, 1.2, "1.9"),  # 1.2 m: 25 mm * 0.8 / 1.2 * 0.05 / 1.95 = 0.427 mm, 1.90 px
    (2.2, None, 1.1, None),  # 1.1 m: 0.524 mm, 2.33 px: the nearest blurs
    (2.2, None, None, "0.26"),  # 2.2 m alone: 25 * 0.2 / 2.2 * 0.05 / 1.95 = 0.0583 mm
    (2.0, None, None, None)])  # all of it in focus (a plate at its own distance): nothing said
def test_the_blur_note_takes_the_nearest_and_the_farthest_depth(rng, base, far, near, said):
    """The largest circle of confusion is at the nearest or the farthest depth (it grows
    away from the focus plane on either side), whichever it is; focus 2 m, f/2, 50 mm, a
    160 px wide frame."""
    import warnings

    img = rng.uniform(0.1, 1.0, (90, 160, 3)).astype(np.float32)
    depth = np.full((90, 160), base, np.float32)
    if far is not None:
        depth[10:30, 20:50] = far
    if near is not None:
        depth[60:70, 100:110] = near
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = hf.depth_of_field(img, depth, focus_distance=2.0, f_stop=2.0)
    notes = [str(w.message) for w in _told(caught)]
    if said is None:
        assert notes == []
    else:
        assert notes == [f"the circles of confusion of depth reach only {said} px across: "
                         "under 2 px nothing is blurred (a pixel's disk is whole pixels); a "
                         "lower f-stop or a longer focal length blurs more"]
    blurs = far is not None or near == 1.1
    assert (np.abs(out - img).max() > 1e-3) == blurs


@pytest.mark.parametrize("r2, said", [(1.0, None), (0.9999, "1.99"), (0.9, "1.9"),
                                      (0.0025, "0.1"), (0.0, None)])
def test_the_blur_note_is_said_short_of_2_px_under_a_whole_pixel(r2, said):
    """From a squared radius of 1 (2 px across) the gather blurs; under it the note never
    rounds to "2 px" (1.9999 px across is said 1.99)."""
    from hfrender import validate

    class Lens:  # the one thing the note asks of a lens
        def largest_d2(self, nearest, farthest, width, height):
            return r2

    note = validate.blur_note([Lens()], 1.0, 2.0, 160, 90)
    assert note == (None if said is None else f"the circles of confusion of depth reach only "
                    f"{said} px across: under 2 px nothing is blurred (a pixel's disk is whole "
                    "pixels); a lower f-stop or a longer focal length blurs more")


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


def test_depth_nearer_than_the_focal_length_is_warned_of():
    """Disparity (0.01-1) with its zeros made sky: the focus cannot tell (the sky spans
    it), but no lens images a point 1 cm away: one warning says so."""
    import warnings

    rng = np.random.default_rng(41)
    depth = rng.uniform(0.01, 1.0, (16, 24)).astype(np.float32)
    depth[:4] = np.inf
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(rng.random((16, 24, 3), dtype=np.float32), depth, focus_distance=2.0,
                          f_stop=2.8)
    assert [str(w.message) for w in _told(caught)] == [
        f"depth reaches {float(depth.min()):g} m, nearer than the lens's focal length (0.05 m): "
        "no lens images that. Depth must be metres from the camera (an inverse depth, or "
        "disparity, from a depth estimator is not: near is large there; "
        "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
        "disparity)"]


def test_no_focus_warning_for_depth_that_is_refused_or_empty():
    """Depth with NaN is refused where it is read (the line names the pixel): no warning
    about its range first; an empty depth (no frames) has no range to warn of."""
    from hfrender.validate import focus_note

    depth = np.full((6, 8), 3.0, np.float32)
    depth[2, 3] = np.nan
    assert focus_note(depth, 50.0) is None
    assert focus_note(np.zeros((0, 6, 8), np.float32), 2.0) is None
    assert focus_note(np.linspace(1, 5, 48, dtype=np.float32).reshape(6, 8), 50.0) == (
        "the focus distance 50 m is farther than all of depth (1 to 5 m): no pixel is in "
        "focus. Depth must be metres from the camera (an inverse depth, or disparity, from a "
        "depth estimator is not: near is large there; "
        "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
        "disparity)")


@pytest.mark.parametrize("focus, f_stop, said", [
    (2.0, 2.0, True),  # disparity 0.1-0.5 read with its zeros as sky: everything blurs
    (50.0, 8.0, False),  # the sky nearly in focus: a landscape focused past its hills
    (0.3, 2.0, False),  # within the rest
])
def test_a_focus_past_all_but_a_blurred_sky_is_said(focus, f_stop, said):
    """A focus farther than every finite depth was never said where the depth had sky
    (inf): an inverse depth with --depth-zero-is-sky blurred the whole frame, sky too.
    The sky's blur at 50 mm on 36 mm over 240 px: f^2 / (N (S - f)) / 36 * 240."""
    rng = np.random.default_rng(43)
    depth = rng.uniform(0.1, 0.5, (12, 240)).astype(np.float32)
    depth[:4] = np.inf
    sky = 50.0 ** 2 / (f_stop * (focus * 1000 - 50.0)) / 36 * 240
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(rng.random((12, 240, 3), dtype=np.float32), depth,
                          focus_distance=focus, f_stop=f_stop)
    told = [str(w.message) for w in _told(caught) if "focus distance" in str(w.message)]
    lo, hi = float(depth.min()), float(depth[4:].max())
    assert told == ([
        f"the focus distance {focus:g} m is farther than all of depth ({lo:g} to {hi:g} m "
        f"and sky, blurred {sky:.3g} px across): no pixel is in focus. Depth must be metres "
        "from the camera (an inverse depth, or disparity, from a depth estimator is not: near "
        "is large there; blur one as it is with depth_kind='disparity', hfrender fx "
        "--depth-kind disparity)"] if said else []), told
    assert (sky >= 2) == (focus != 50.0)  # the landscape's sky is sharp, the others' not


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


def test_a_focus_list_names_its_bad_item_and_a_frame_of_other_units_is_warned_of(rng):
    """A trial's: ``focus_distance=[2.0, "3"]`` blamed frame 0's "2.0" (the list made one
    array of strings); one focus over frames each with its own depth, one of them in
    millimetres, gave no warning (the frames' depth was looked at as one)."""
    import warnings

    frames = rng.random((3, 12, 16, 3), dtype=np.float32)
    depth = rng.uniform(2.0, 8.0, (3, 12, 16)).astype(np.float32)
    with pytest.raises(TypeError, match=r"^frame 1: focus_distance='3' must be a distance "):
        hf.depth_of_field(frames[:2], depth[:2], focus_distance=[2.0, "3"], f_stop=1.8)
    depth[2] *= 1000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(frames, depth, focus_distance=3.0, f_stop=1.8)
        hf.depth_of_field(frames, depth[0], focus_distance=3.0, f_stop=1.8)  # one depth
    told = [str(w.message) for w in _told(caught) if "nothing is blurred" not in str(w.message)]
    assert told == [f"the focus distance 3 m is nearer than all of depth frame 2 "
                    f"({float(depth[2].min()):g} to {float(depth[2].max()):g} m): no pixel is "
                    "in focus. Depth must be metres from the camera (an inverse depth, or "
                    "disparity, from a depth estimator is not: near is large there; "
                    "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
                    "disparity)"]


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


def test_a_focus_pull_over_one_depth_warns_of_its_frame_no_pixel_is_in_focus(rng):
    """A review's: one (H, W) depth for every frame and a distance per frame: the frame
    whose focus is past all of it was left unsaid."""
    import warnings

    frames = rng.random((3, 12, 16, 3), dtype=np.float32)
    depth = rng.uniform(2.0, 8.0, (12, 16)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hf.depth_of_field(frames, depth, focus_distance=[3.0, 3.0, 500.0], f_stop=1.8)
    told = [str(w.message) for w in _told(caught) if "nothing is blurred" not in str(w.message)]
    assert len(told) == 1 and told[0].startswith(
        "the focus distance 500 m is farther than all of depth frame 2 ")
    with pytest.raises(InputError, match=r"^focus_distance=0\.01 must be a distance in metres "):
        from fractions import Fraction

        hf.Lens(Fraction(1, 100), 2.8)  # (a Fraction said as a number: it failed to format)


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
