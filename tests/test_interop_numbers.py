"""One rule for a real number at every entry point: numeric.real_number, for one value, an
item of nested lists (depth, velocity, weights, a curve) or of an object array, and a
builder's free_bytes: what one refuses alone is refused in a list, in one line."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import hfrender as hf
from hfrender import interop, numeric

FRAMES = np.zeros((2, 4, 5, 3), np.uint8)
LENS = dict(focus_distance=2.0, f_stop=2.8)

# refused alone by real_number; each was taken, or a traceback, in a list
REFUSED = [(Decimal("sNaN"), "holding Decimal('sNaN')"),
           (Decimal("1e400"), "holding Decimal('1E+400')"),
           (10 ** 400, "holding 100000... (401 digits)"),
           (True, "of bool"), (np.bool_(False), "of numpy.bool")]
IDS = ["sNaN", "1e400", "10**400", "True", "bool_"]


@pytest.mark.parametrize("value, said", REFUSED, ids=IDS)
def test_a_value_refused_alone_is_refused_as_an_item(value, said):
    """real_numbers took [True, 1.0] (as 1.0) and [Decimal('1e400'), 1.0] (as inf), and
    raised OverflowError for [10**400, 1.0], where real_number refuses each alone."""
    assert numeric.real_number(value) is False
    assert interop.real_numbers([value, 1.0]) is None
    assert interop.real_numbers([[2.0, 3.0], [1.0, value]]) is None
    assert interop.real_numbers(np.array([value, 1.0], dtype=object)) is None


@pytest.mark.parametrize("value, said", REFUSED, ids=IDS)
def test_a_depth_or_velocity_list_holding_one_says_it(value, said):
    """depth=[[Decimal('sNaN'), ...]] was 'a list of rows of unequal lengths', its rows all
    of one length; Decimal('1e400') was taken as inf, True as 1.0; 10**400 OverflowError."""
    depth = [[[2.0] * 5] * 4, [[2.0] * 4 + [value]] + [[2.0] * 5] * 3]
    with pytest.raises(hf.InputTypeError) as e:
        hf.depth_of_field(FRAMES, depth, **LENS)
    assert str(e.value) == (f"depth is a list {said}; depth takes numbers (metres): give an "
                            "array of metres (np.asarray(depth, np.float32))")
    with pytest.raises(hf.InputTypeError) as e:
        hf.vector_blur(FRAMES[0], [[[1.0, 0.5]] * 5] * 3 + [[[1.0, 0.5]] * 4 + [[value, 1.0]]])
    assert str(e.value).startswith(f"velocity is a list {said}; velocity takes numbers")


@pytest.mark.parametrize("value, said", REFUSED, ids=IDS)
def test_weights_and_a_curve_holding_one_are_refused_as_non_numbers(value, said):
    """weights=[True, 1.0] blended as [1, 1]; [10**400, 1.0] was an OverflowError."""
    with pytest.raises(hf.InputTypeError, match=r"^weights=\[.* or an array of 2 real numbers$"):
        hf.motion_blur(FRAMES, 2, weights=[value, 1.0])
    with pytest.raises(hf.InputTypeError, match=r"^curve=\[.* or an array of 3 real numbers$"):
        hf.curve_weights([1.0, value, 1.0], 3)


def test_numbers_in_lists_are_read_as_before(rng):
    """Fractions, Decimals (NaN and Infinity too), NumPy scalars and ints in lists and
    object arrays: float64 of their values; plain lists of floats: NumPy's dtype."""
    x = rng.uniform(0.5, 4.0, 6)
    items = [Fraction(x[0]), Decimal(x[1]), np.float16(x[2]), np.int64(3), 7, float(x[5])]
    want = np.array([x[0], x[1], float(np.float16(x[2])), 3.0, 7.0, x[5]])
    np.testing.assert_array_equal(interop.real_numbers(items), want)
    np.testing.assert_array_equal(interop.real_numbers(np.array(items, dtype=object)), want)
    got = interop.real_numbers([Decimal("NaN"), Decimal("-Infinity"), 2 ** 64])
    np.testing.assert_array_equal(got, [np.nan, -np.inf, 2.0 ** 64])
    rows = rng.uniform(0.5, 4.0, (3, 4))
    assert interop.real_numbers(rows.tolist()).dtype == np.float64
    np.testing.assert_array_equal(interop.real_numbers(rows.tolist()), rows)
    assert interop.real_numbers([[1, 2], [3, 4]]).dtype == np.int64


def test_free_bytes_takes_any_whole_number_its_neighbours_take():
    """free_bytes=Decimal('8e9') was refused as no whole number; 10**400 (taken by cap and
    frame_bytes beside it) was an OverflowError; Decimal('2.5') still one line."""
    fb = 100_000_000
    want = hf.auto_granularity(fb, free_bytes=8_000_000_000)
    assert want == 13  # 8e9 / 2 / (1e8 x 3 slots)
    for free in (Decimal("8e9"), Fraction(8_000_000_000), np.float32(8e9)):
        assert hf.auto_granularity(fb, free_bytes=free) == want, free
    for huge in (10 ** 400, Decimal("8e400"), Fraction(10 ** 400)):  # whole, read exactly
        assert hf.auto_granularity(fb, cap=64, free_bytes=huge) == 64, huge  # (were refused
    #                                                as no whole number: review r1)
    for bad in (Decimal("2.5"), Decimal("sNaN"), Decimal("Infinity"), Fraction(1, 2),
                np.bool_(True), "8e9"):  # a number's InputError, what is none a TypeError's
        kind = hf.InputTypeError if bad is np.bool_(True) or isinstance(bad, str) else \
            hf.InputError
        with pytest.raises(kind) as e:
            hf.auto_granularity(fb, free_bytes=bad)
        assert type(e.value) is kind
        assert str(e.value) == (f"free_bytes={bad!r} must be a whole number of bytes, or "
                                "None (this machine's free memory)")


def test_an_int_past_floats_range_alone_is_one_line(rng):
    """push(t=10**400) and focus_disparity=10**400 passed real_number, then math.isfinite
    raised OverflowError, a traceback; each is now its line, the int said by its length."""
    frame = rng.random((8, 8, 3), dtype=np.float32)
    builder = hf.HyperFrameBuilder(hf.HyperFramePool((8, 8, 3), np.float32, capacity=2))
    with pytest.raises(hf.InputError) as e:
        builder.push(frame, t=10 ** 400)
    assert str(e.value) == "t=100000... (401 digits) must be a finite time in seconds"
    assert builder.frames_pushed == 0
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frame, np.full((8, 8), 0.5, np.float32), depth_kind="disparity",
                          focus_disparity=10 ** 400, max_blur=4)
    assert str(e.value) == ("focus_disparity=100000... (401 digits) must be a finite "
                            "disparity >= 0 (in the map's units; 0 and below is sky)")
