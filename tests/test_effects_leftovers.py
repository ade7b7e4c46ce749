"""Small leftovers of the effects library a user's probe found: values past float32's range
named as given, big-endian frames' result dtype as documented, the docs' float recipe giving
float32, a pool's (H, W) grey frame hinted, and Decimal numbers taken as Fractions are."""

from __future__ import annotations

import re
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError, InputTypeError

DOCS = Path(__file__).resolve().parents[1] / "docs" / "effects.md"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1515)


def clip(rng: np.random.Generator, n: int = 2, c: int = 3) -> np.ndarray:
    return rng.integers(0, 65536, (n, 8, 8, c), dtype=np.uint16)


# 1. float64 values outside float32's range: the value given is the value named


def test_a_depth_under_float32s_smallest_is_named_as_given(rng):
    """1e-300 m is 0 in float32, as depth is read: refused, but was said "<= 0 (0)"."""
    depth = rng.uniform(1.0, 5.0, (8, 8))
    depth[1, 2] = 1e-300
    with pytest.raises(InputError) as err:
        hf.depth_of_field(clip(rng), depth, focus_distance=2.0, f_stop=2.0)
    line = str(err.value)
    assert "a value of 1e-300, 0 in float32 (as depth is read), at row 1, column 2" in line
    assert "(0)" not in line and "<= 0 (" not in line
    assert len(line.splitlines()) == 1


def test_several_tiny_depths_name_the_first_as_given(rng):
    depth = rng.uniform(1.0, 5.0, (8, 8))
    depth[3, 4], depth[5, 6] = 2e-310, -1.0
    with pytest.raises(InputError, match=r"depth has 2 values <= 0 in float32 \(as depth is "
                       r"read\), the first 2e-310 at row 3, column 4"):
        hf.depth_of_field(clip(rng), depth, focus_distance=2.0, f_stop=2.0)


def test_a_depth_at_zero_is_still_said_as_it_was(rng):
    depth = rng.uniform(1.0, 5.0, (8, 8))
    depth[2, 3] = -0.5
    with pytest.raises(InputError, match=r"depth has a value <= 0 \(-0\.5\) at row 2, "
                       r"column 3; depth must be a distance > 0"):
        hf.depth_of_field(clip(rng), depth, focus_distance=2.0, f_stop=2.0)


def test_a_disparity_past_float32s_largest_is_named_as_given(rng):
    """1e300 is finite, infinite in float32: was "a NaN or infinite disparity" (and NumPy's
    RuntimeWarning of an overflow in a cast beside it)."""
    disparity = rng.uniform(0.1, 1.0, (8, 8))
    disparity[4, 1] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError) as err:
            hf.depth_of_field(clip(rng), disparity, depth_kind="disparity",
                              focus_pixel=(0, 0), max_blur=4.0)
    line = str(err.value)
    assert line.startswith("depth has a disparity of 1e+300, infinite in float32 (as a map is "
                           "read), at row 4, column 1; a disparity must be a finite number")
    assert "NaN" not in line


def test_a_nan_disparity_is_still_said_as_it_was(rng):
    disparity = rng.uniform(0.1, 1.0, (8, 8))
    disparity[2, 5] = np.nan
    with pytest.raises(InputError, match=r"depth has a NaN or infinite disparity at row 2, "
                       r"column 5"):
        hf.depth_of_field(clip(rng), disparity, depth_kind="disparity",
                          focus_pixel=(0, 0), max_blur=4.0)


def test_a_velocity_past_float32s_largest_is_named_as_given(rng):
    """1e300 px a frame was said "inf px a frame"."""
    velocity = rng.uniform(-3.0, 3.0, (8, 8, 2))
    velocity[6, 2, 0] = 1e300
    with pytest.raises(InputError) as err:
        hf.vector_blur(clip(rng, 1)[0], velocity)
    line = str(err.value)
    assert "velocity at row 6, column 2 is 1e+300 px a frame, over 100 frame diagonals" in line
    assert "inf" not in line


def test_a_huge_velocity_clamped_keeps_its_direction(rng):
    """Clamped by max_length, a float64 vector past float32's range is its direction at
    max_length (was: inf times the scale, in float32)."""
    frame = clip(rng, 1)[0]
    velocity = np.zeros((8, 8, 2))
    velocity[3, 3] = (3e300, -4e300)
    clamped = velocity.copy()
    clamped[3, 3] = (3.0, -4.0)
    got = hf.vector_blur(frame, velocity, max_length=5.0)
    np.testing.assert_array_equal(got, hf.vector_blur(frame, clamped))


# 2. big-endian frames: the result in this machine's byte order, as NumPy's ufuncs give


def test_big_endian_frames_come_back_in_this_machines_order_of_the_same_kind(rng):
    frames = clip(rng, 4)
    got = hf.motion_blur(frames.astype(">u2"), 2)
    assert got.dtype == np.dtype(np.uint16) and got.dtype.isnative
    assert got.dtype == np.add(frames.astype(">u2"), frames.astype(">u2")).dtype
    np.testing.assert_array_equal(got, hf.motion_blur(frames, 2))


def test_the_docs_say_the_byte_order_the_result_has():
    text = DOCS.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `frames` |"))
    assert "The result has the input's dtype in this machine's byte order" in row
    assert "`'>u2'` frames give `uint16`" in row


# 3. the docs' recipe for sRGB floats gives float32, as it says


def test_the_docs_recipe_for_srgb_floats_gives_float32(rng):
    text = DOCS.read_text()
    recipe = re.search(r"`(hf\.motion_blur\(\(x \* 65535\)[^`]*)`", text)
    assert recipe is not None
    x = rng.random((4, 8, 8, 3), dtype=np.float32)
    got = eval(recipe[1].replace("...", "2"), {"hf": hf, "np": np, "x": x})  # noqa: S307
    assert got.dtype == np.float32
    codes = hf.motion_blur((x * 65535).round().astype(np.uint16), 2)
    np.testing.assert_allclose(got, codes / 65535, rtol=1e-6)
    assert "float32" in text[recipe.end():recipe.end() + 200]


# 4. a pool's (H, W) grey frame: the [..., None] hint other calls give


def test_a_grey_frame_without_its_channel_is_hinted_into_a_one_channel_pool(rng):
    pool = hf.HyperFramePool((8, 8, 1), np.uint16, capacity=4)
    builder = hf.HyperFrameBuilder(pool)
    grey = clip(rng, 1, 1)[0, ..., 0]
    with pytest.raises(InputError) as err:
        builder.push(grey, t=0.0)
    assert str(err.value) == ("frame has shape (8, 8) and dtype uint16; this pool holds "
                              "(8, 8, 1) uint16 frames (one (H, W) grey frame: frame[..., None])")
    assert builder.push(grey[..., None], t=0.0) is None  # as hinted: taken
    assert pool.free_count == pool.slot_count - 1


def test_a_frame_of_another_size_gets_no_grey_hint(rng):
    pool = hf.HyperFramePool((8, 8, 1), np.uint16, capacity=4)
    with pytest.raises(InputError) as err:
        hf.HyperFrameBuilder(pool).push(np.zeros((8, 9), np.uint16), t=0.0)
    assert "[..., None]" not in str(err.value)


# 5. Decimal numbers: taken as Fractions are, where a real number is


@pytest.mark.parametrize("keyword", ["focus_distance", "f_stop", "focal_length_mm",
                                     "sensor_width_mm", "max_coc_px"])
def test_a_decimal_lens_number_is_taken_as_a_fraction_is(rng, keyword):
    frames, depth = clip(rng), rng.uniform(1.0, 5.0, (8, 8))
    given = {"focus_distance": 2, "f_stop": 2, "focal_length_mm": 50, "sensor_width_mm": 36,
             "max_coc_px": 10}
    value = given[keyword]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a blur under a pixel, said by the lens)
        want = hf.depth_of_field(frames, depth, **{**given, keyword: Fraction(value)})
        got = hf.depth_of_field(frames, depth, **{**given, keyword: Decimal(value)})
    np.testing.assert_array_equal(got, want)


def test_a_decimal_focus_pull_and_lens_are_taken(rng):
    frames, depth = clip(rng), rng.uniform(1.0, 5.0, (8, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = hf.depth_of_field(frames, depth, focus_distance=[Decimal("1.5"), Decimal(3)],
                                f_stop=2)
        want = hf.depth_of_field(frames, depth, focus_distance=[1.5, 3.0], f_stop=2)
    np.testing.assert_array_equal(got, want)
    lens = hf.Lens(Decimal("2.5"), Decimal("1.4"))
    assert (lens.focus_distance, lens.f_stop) == (2.5, 1.4)
    assert type(lens.f_stop) is float


def test_a_bad_decimal_is_refused_as_a_number_named_as_given(rng):
    with pytest.raises(InputError) as err:
        hf.Lens(2.0, Decimal("-1.5"))
    assert not isinstance(err.value, InputTypeError)  # a number: a value error, not a type's
    assert str(err.value) == "f_stop=Decimal('-1.5') must be a finite number > 0"
    with pytest.raises(InputError, match=r"^focus_distance=0\.01 must be a distance in metres "
                       r"greater than the focal length \(0\.05 m"):
        hf.Lens(Decimal("0.01"), 2.0)
    for bad in (Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity")):
        with pytest.raises(InputError, match=r"^f_stop=Decimal\('s?NaN'\)|^f_stop=Decimal\("
                           r"'Infinity'\)"):
            hf.Lens(2.0, bad)


def test_a_decimal_whole_number_is_refused_as_a_fraction_is():
    """Whole-number arguments take integers alone (Fraction(5) is refused too)."""
    for five in (Fraction(5), Decimal(5)):
        with pytest.raises(InputError, match=r"must be a whole number, 0 \(round\)"):
            hf.Lens(2.0, 2.0, aperture_blades=five)


def test_a_decimal_push_time_is_taken(rng):
    pool = hf.HyperFramePool((8, 8, 3), np.uint16, capacity=2)
    builder = hf.HyperFrameBuilder(pool)
    frames = clip(rng)
    builder.push(frames[0], t=Decimal("0.5"))
    hyper = builder.push(frames[1], t=Fraction(3, 4))
    np.testing.assert_array_equal(hyper.timestamps, [0.5, 0.75])
    assert hyper.timestamps.dtype == np.float64
    hyper.release()


def test_a_decimal_focus_disparity_is_taken_as_a_fraction_is(rng):
    frames, disparity = clip(rng), rng.uniform(0.1, 1.0, (8, 8))
    given = {"depth_kind": "disparity", "max_blur": Decimal(6)}
    want = hf.depth_of_field(frames, disparity, focus_disparity=Fraction(1, 2), **given)
    got = hf.depth_of_field(frames, disparity, focus_disparity=Decimal("0.5"), **given)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, frames)  # (blurred: the comparison means something)


def test_decimals_a_float_cannot_hold_are_refused_in_one_line(rng):
    """A signalling NaN (float() of it raises: was Python's bare ValueError from a focus
    disparity or a push's t), one past float's range (1e400: was taken as inf), one so small
    it is 0 as a float (1e-400 > 0: was a ZeroDivisionError) are each one line; a Fraction
    t before the last frame's is said (its :g format raised a TypeError on Python 3.11)."""
    from fractions import Fraction

    frame = rng.random((8, 8, 3), dtype=np.float32)
    with pytest.raises(InputError, match=r"^f_stop=Decimal\('1E-400'\) must be a finite "
                                         r"number > 0$"):
        hf.depth_of_field(frame, np.full((8, 8), 2.0, np.float32), focus_distance=2,
                          f_stop=Decimal("1e-400"))
    with pytest.raises(InputError, match=r"^focus_distance=Decimal\('1E\+400'\) must be a "):
        hf.Lens(Decimal("1e400"), 2)
    with pytest.raises(InputError):  # (not ValueError: a subclass of both, said in one line)
        hf.depth_of_field(frame, np.full((8, 8), 0.5, np.float32), depth_kind="disparity",
                          focus_disparity=Decimal("sNaN"), max_blur=4)
    pool = hf.HyperFramePool((8, 8, 3), np.float32, capacity=4)
    builder = hf.HyperFrameBuilder(pool)
    with pytest.raises(InputError, match=r"^t="):
        builder.push(frame, t=Decimal("sNaN"))
    builder.push(frame, t=1.0)
    with pytest.raises(InputError, match=r"^t=0\.5 is before the last frame's t=1: "):
        builder.push(frame, t=Fraction(1, 2))
