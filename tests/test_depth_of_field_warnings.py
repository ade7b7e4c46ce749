"""What ``hf.depth_of_field`` warns of, one UserWarning pointing at the call: depth that
looks like millimetres, a focus outside all of the depth or nearer than the focal length,
a blur under two pixels (from the nearest or the farthest depth), a focus list's bad item."""

import warnings

import numpy as np
import pytest
from depth_of_field_helpers import (
    _told,
)

import hfrender as hf
from hfrender.errors import InputError


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
