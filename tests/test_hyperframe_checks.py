"""What a pool, a builder and window weights refuse or warn of, each in one line: pushed
frames and depth, dtypes, curve names and counts, auto granularity's arguments (moved from
test_hyperframe.py as it grew past 400 lines)."""

import numpy as np
import pytest
from test_hyperframe import make_pool

import hfrender as hf


def test_push_checks_shape_dtype_and_depth(rng):
    b = hf.HyperFrameBuilder(make_pool(depth=True))
    frame = rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"frame has shape \(3,\) and dtype float64; this pool "
                                         r"holds \(6, 5, 3\) uint8 frames"):
        b.push(np.array([300.7, -1, 0.5]), t=0)
    with pytest.raises(ValueError, match="depth is required: the pool was made with depth=True"):
        b.push(frame, t=0)
    with pytest.raises(ValueError, match=r"depth has shape \(5, 6\); expected \(6, 5\)"):
        b.push(frame, t=0, depth=np.ones((5, 6), np.float32))
    assert b.frames_pushed == 0  # nothing half-written
    with pytest.raises(ValueError, match="depth given but the pool was made with depth=False"):
        hf.HyperFrameBuilder(make_pool()).push(frame, t=0, depth=np.ones((6, 5)))
    b = hf.HyperFrameBuilder(make_pool())
    for bad in (float("nan"), float("inf"), "0.5", None):
        with pytest.raises(ValueError, match=rf"t={bad!r} must be a finite time in seconds"):
            b.push(frame, t=bad)
    b.push(frame, t=0.5)
    b.push(frame, t=0.5)  # the same time again (lens samples of one instant) is fine
    with pytest.raises(ValueError, match=r"t=0.25 is before the last frame's t=0.5: frames "
                                         r"are pushed in time order"):
        b.push(frame, t=0.25)
    assert b.frames_pushed == 2


def test_a_pushed_depth_in_millimetres_is_warned_of_by_frame_with_the_arguments_fix(rng):
    """push's integer-depth warning advised "pass depth frame 3 * 0.001": the label naming
    the frame stood in for the argument (a review's find). Now the frame is named, the fix
    is the argument's."""
    import warnings

    b = hf.HyperFrameBuilder(make_pool(depth=True))
    frame = rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)
    for _ in range(3):
        b.push(frame, t=0.0, depth=np.full((6, 5), 2.0, np.float32))
    depth = rng.integers(1500, 5000, (6, 5)).astype(np.uint16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.push(frame, t=0.0, depth=depth)
    said = [(str(w.message), w.filename) for w in caught]
    assert said == [(f"depth frame 3 is uint16 with values up to {int(depth.max())}, read as "
                     "metres: if these are millimetres, pass depth * 0.001", __file__)]


def test_a_pushed_depth_of_0_is_refused_where_a_lens_reads_it(rng):
    """push refused a depth of 0 (a depth camera's "no reading") even for a hyperframe
    fused with no lens, which reads no depth (a review's find): taken at push, refused at
    fuse with a lens, and at push where the frame's lens is given; a NaN still at push."""
    pool = hf.HyperFramePool((6, 5, 3), np.float32, capacity=4, depth=True)
    b = hf.HyperFrameBuilder(pool)
    frames = rng.random((4, 6, 5, 3), dtype=np.float32)
    holed = np.full((6, 5), 2.0, np.float32)
    holed[3, 1] = 0.0
    for j in range(4):
        hyper = b.push(frames[j], t=j / 24, depth=holed if j == 2 else np.full((6, 5), 2.0))
    windows = hf.WindowWeights(np.array([0]), np.full((1, 4), 0.25))
    np.testing.assert_allclose(hf.fuse(hyper, windows)[0], frames.mean(axis=0), atol=1e-6)
    with pytest.raises(ValueError) as info:
        hf.fuse(hyper, windows, lens=hf.Lens(focus_distance=2.0, f_stop=2.0))
    assert str(info.value) == ("hyperframe.depth frame 2 has a value <= 0 (0) at row 3, "
                               "column 1; depth must be a distance > 0 (use inf for sky)")
    hyper.release()
    b = hf.HyperFrameBuilder(pool)
    b.push(frames[0], t=0.0, depth=np.full((6, 5), 2.0))
    with pytest.raises(ValueError) as info:
        b.push(frames[1], t=0.0, depth=holed, lens=hf.Lens(focus_distance=2.0, f_stop=2.0))
    assert str(info.value) == ("depth frame 1 has a value <= 0 (0) at row 3, column 1; depth "
                               "must be a distance > 0 (use inf for sky)")
    holed[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"^depth frame 1 has a NaN at row 3, column 1; "):
        b.push(frames[1], t=0.0, depth=holed)
    assert b.frames_pushed == 1


def test_a_big_endian_pools_reserved_views_are_in_this_machines_byte_order(rng):
    """A '>u2' pool is uint16 in this machine's order, and so are reserve()'s views (said
    in docs/effects.md and the pool's docstring, a review's find: a file's raw big-endian
    bytes read into one are byte-swapped pixels; np.frombuffer(raw, '>u2') assigned are
    the values)."""
    pool = make_pool(shape=(4, 5, 3), dtype=">u2")
    b = hf.HyperFrameBuilder(pool)
    color, _, _ = b.reserve(0.0)
    assert pool.dtype == np.uint16 and color.dtype == np.uint16 and color.dtype.isnative
    b.cancel()


def test_a_pool_of_another_dtype_or_too_large_is_one_line():
    with pytest.raises(TypeError, match=r"dtype=float64 must be uint8, uint16 or float32"):
        hf.HyperFramePool((4, 4, 3), np.float64)
    # 3 x 100000 x 4000 x 4000 x 4 B = 19,200,000,000,000 B: 19.2 TB (was "1.79e+04 GiB")
    with pytest.raises(ValueError, match=r"a pool of 3 slots x 100000 frames of 4000x4000x4 "
                                         r"uint8 needs 19\.2 TB, more than can be "
                                         r"allocated here: lower capacity"):
        hf.HyperFramePool((4000, 4000, 4), np.uint8, capacity=100000)


def test_window_weights_must_be_in_order():
    with pytest.raises(ValueError, match="starts must be non-decreasing"):
        hf.WindowWeights(np.array([2, 0]), np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match=r"WindowWeights: starts\[0\]=-1; frame indices count "
                                         r"from 0"):  # when it is made, not when it is used
        hf.WindowWeights(np.array([-1, 0]), np.full((2, 2), 0.5))


def test_sliding_in_span_names_the_halo_it_needs():
    with pytest.raises(ValueError, match="windows of 4 frames need 3 halo frames carried over, "
                                         "this hyperframe has 1"):
        hf.sliding_in_span(np.ones(4) / 4, 1, first_index=5, halo=1, frame_count=6)


def test_window_weights_of_a_curve_name_or_bad_count_say_so():
    """A curve's name where its weights go (the docs' ``weights``, a user's ``"box"``)
    was NumPy's "could not convert string to float" (its length, 3, taken for the
    window's); a negative count NumPy's broadcast error."""
    with pytest.raises(TypeError, match=r"^weights='box' must be an array of one weight per "
                                        r"frame of the window: a curve's are "
                                        r"hf.curve_weights\('box', window\)$"):
        hf.sliding_in_span("box", 2, 0, 0, 10)
    with pytest.raises(TypeError, match=r"^weights='triangle' must be an array"):
        hf.WindowWeights.sliding("triangle", 3, 2)
    with pytest.raises(TypeError, match=r"^weights=\[None, 1\] must be an array of numbers"):
        hf.sliding_in_span([None, 1], 2, 0, 0, 10)
    with pytest.raises(ValueError, match=r"^weights has shape \(\); expected \(window,\)"):
        hf.sliding_in_span(np.float64(0.5), 1, 0, 0, 10)
    with pytest.raises(ValueError, match=r"^count=-1 must be an integer >= 0$"):
        hf.WindowWeights.sliding(np.ones(4) / 4, -1, 2)
    k0, ww = hf.sliding_in_span([0.5, 0.5], 2, 0, 0, 10)  # a list still serves
    assert k0 == 0 and ww.starts.tolist() == [0, 2, 4, 6, 8] and ww.rows.shape == (5, 2)


@pytest.mark.parametrize("kwargs, said", [
    ({"frame_bytes": "1000"}, r"^frame_bytes='1000' must be an integer >= 1$"),
    ({"frame_bytes": None}, r"^frame_bytes=None must be an integer >= 1$"),
    ({"frame_bytes": 1000, "frames_per_output": "8"},
     r"^frames_per_output='8' must be an integer >= 1$"),
    ({"frame_bytes": 1000, "halo": -1}, r"^halo=-1 must be an integer >= 0$"),
    ({"frame_bytes": 0}, r"^frame_bytes=0 must be an integer >= 1$"),
    ({"frame_bytes": 1000, "cap": 0}, r"^cap=0 must be an integer >= 1$"),
    ({"frame_bytes": 1000, "free_bytes": "1G"}, r"^free_bytes='1G' must be a whole number"),
    ({"frame_bytes": 1000, "free_bytes": 0.5}, r"^free_bytes=0.5 must be a whole number"),
    ({"frame_bytes": 1000, "free_bytes": True}, r"^free_bytes=True must be a whole number"),
])
def test_auto_granularity_names_a_bad_argument(kwargs, said):
    """(was: '1000' a bare TypeError of '<' from inside, 0 a line naming no value)"""
    kwargs = {"free_bytes": 1 << 30, **kwargs}
    with pytest.raises(ValueError, match=said):
        hf.auto_granularity(kwargs.pop("frame_bytes"), **kwargs)


def test_auto_granularity_takes_free_bytes_written_as_a_float():
    """free_bytes=8e9 is a whole number of bytes (was: refused as not one, which it is;
    before that, a float's granularity where the memory decided, 24.0)."""
    fb = 1920 * 1080 * 3
    for free in (8e9, 1e9, np.float64(1e9)):
        n = hf.auto_granularity(fb, frames_per_output=8, free_bytes=free)
        assert type(n) is int and n == hf.auto_granularity(fb, frames_per_output=8,
                                                           free_bytes=int(free))
