"""Bad input to the library's effects, one clear line each: motion blur's frames, windows
and weights, fuse's windows, sRGB encoding and decoding, wrong types, lists of what is not
a NumPy frame, channels first, arrays given for numbers; nothing written into the caller's
arrays."""

import numpy as np
import pytest
from validation_helpers import (
    LENS,
    D,
    F,
)

import hfrender as hf


@pytest.mark.parametrize("frames, window, kwargs, exc, message", [
    (np.zeros((4, 4, 3), np.uint8), 2, {}, ValueError,
     r"^frames must have shape \(N, H, W, C\); got 3-D shape \(4, 4, 3\) \(one \(H, W, C\) "
     r"frame: frames\[None\]; \(N, H, W\) grey frames: frames\[\.\.\., None\]\)$"),
    (np.zeros((0, 4, 4, 3), np.uint8), 1, {}, ValueError,
     r"frames is empty \(shape \(0, 4, 4, 3\)\); every dimension must be >= 1"),
    (np.zeros((3, 4, 4, 2), np.uint8), 1, {}, ValueError,
     r"frames has C=2 channels \(shape \(3, 4, 4, 2\)\); allowed: 1 \(gray\), 3 \(RGB\), 4"),
    (np.zeros((3, 4, 4, 3), np.int64), 1, {}, TypeError,
     r"frames has dtype int64; allowed: uint8, uint16, float32"),
    (np.zeros((3, 4, 4, 3), np.float64), 1, {}, TypeError,
     r"^frames has dtype float64; allowed: uint8, uint16, float32 \(float frames are linear "
     r"light: pass frames\.astype\(numpy\.float32\), or a torch tensor's frames\.float\(\)\)$"),
    (F, 0, {}, ValueError, r"window=0 must be an integer \[1, 5\]"),
    (F, 6, {}, ValueError, r"^window=6 is longer than the 5 frames given: give at least 6 "
     r"frames, or a window of at most 5$"),
    (F, 2.5, {}, ValueError, r"window=2.5 must be an integer \[1, 5\]"),
    (F, 2, {"stride": 0}, ValueError, r"stride=0 must be an integer >= 1"),
    (F, 2, {"weights": "sinc"}, ValueError,
     r"weights='sinc' is not a shutter curve; use one of box, triangle, gaussian"),
    (F, 2, {"weights": [1, 2, 3]}, ValueError, r"weights has shape \(3,\); .* shape \(2,\)"),
    (F, 2, {"weights": [1, -1]}, ValueError,
     r"^weights=\[ 1\. -1\.\] must be finite, >= 0, and not all zero$"),
    (F, 2, {"linear_light": "yes"}, TypeError, r"linear_light='yes' must be True or False"),
    (F, 2, {"backend": "opencl"}, ValueError,
     r"backend='opencl' is not a backend; choose one of auto, cpu, cuda"),
    ("frames.mp4", 2, {}, TypeError, r"frames must be a NumPy array, an object with __dlpack__"),
])
def test_motion_blur_bad_input(frames, window, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        hf.motion_blur(frames, window, **kwargs)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_frames_are_told_the_conversion_that_works(dtype):
    """float64 (NumPy's default) and float16 frames get one line naming the cast; doing what
    it says gives the float32 result."""
    rng = np.random.default_rng(int(np.dtype(dtype).itemsize))
    frames = rng.random((1, 6, 8, 3)).astype(dtype)
    depth = rng.uniform(0.5, 4.0, (1, 6, 8)).astype(np.float32)
    calls = {
        "motion_blur": lambda f: hf.motion_blur(f, 1),
        "depth_of_field": lambda f: hf.depth_of_field(f, depth, focus_distance=1.0, f_stop=2.0),
        "to_linear": hf.to_linear,
    }
    for name, call in calls.items():
        with pytest.raises(TypeError) as info:
            call(frames)
        assert str(info.value).endswith(
            "float32 (float frames are linear light: pass frames.astype(numpy.float32), or a "
            "torch tensor's frames.float())"), name
        out = call(frames.astype(np.float32))
        assert out.dtype == np.float32 and out.shape[-3:] == (6, 8, 3), name
    assert np.array_equal(hf.to_linear(frames.astype(np.float32)), frames.astype(np.float32))


def test_fuse_rejects_windows_beyond_the_hyperframe():
    h = hf.HyperFrame(F)
    with pytest.raises(ValueError, match=r"weights reach frames \[3, 6\) but the hyperframe "
                                         r"holds 5 frames"):
        hf.fuse(h, hf.WindowWeights.sliding(np.ones(3) / 3, 1, 1, first=3))
    with pytest.raises(ValueError, match="lens given but the hyperframe has no depth plane"):
        hf.fuse(h, hf.WindowWeights.sliding(np.ones(1), 1, 1), lens=hf.Lens(2.0, 2.8))


def test_nothing_written_into_caller_arrays_on_error():
    frames = F.copy()
    with pytest.raises(ValueError, match=r"^window=9 is longer than the 5 frames given"):
        hf.motion_blur(frames, 9)
    assert np.array_equal(frames, F)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32])
def test_from_linear_refuses_code_values_it_would_encode_twice(dtype):
    """Integer frames are sRGB codes already: encoding them again was silently wrong (128
    came back 255); they get one line saying what from_linear takes and what decodes them."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize + 20)
    codes = rng.integers(0, 256, (2, 3, 4, 3)).astype(dtype)
    with pytest.raises(TypeError) as info:
        hf.from_linear(codes)
    assert str(info.value) == (f"linear has dtype {np.dtype(dtype)}; allowed: float32 (integer "
                               "frames are sRGB code values already; to_linear decodes them)")
    if dtype != np.int32:  # what the line says to do: the codes back, exactly
        back = hf.from_linear(hf.to_linear(codes), dtype)
        np.testing.assert_array_equal(back, codes)


def test_from_linear_refuses_nan_and_names_where():
    rng = np.random.default_rng(31)
    lin = rng.random((3, 5, 3), dtype=np.float32)
    lin[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match=r"^linear has 1 non-finite value\(s\) \(NaN or inf\), "
                                         r"the first at row 1, column 2 \(channel 0\); "
                                         r"float32 frames must"):
        hf.from_linear(lin)
    lin[1, 2, 0] = 0.5
    assert hf.from_linear(lin).dtype == np.uint8


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_to_linear_refuses_what_from_linear_refuses(bad):
    """``to_linear`` gave float32 frames with a NaN back as they were (NaN), ``from_linear``
    refused them: both refuse now, naming where the first is."""
    rng = np.random.default_rng(33)
    lin = rng.random((2, 3, 5, 4), dtype=np.float32)
    lin[1, 2, 4, 3] = bad
    lines = []
    for call, name in ((hf.to_linear, "frames"), (hf.from_linear, "linear")):
        with pytest.raises(hf.InputError) as e:
            call(lin)
        lines.append(str(e.value).replace(name, "X", 1))
    assert lines == ["X has 1 non-finite value(s) (NaN or inf), the first of frame 1 at row "
                     "2, column 4 (channel 3); float32 frames must be finite linear light"] * 2
    lin[1, 2, 4, 3] = 0.25
    np.testing.assert_array_equal(hf.to_linear(lin), lin)


def test_finite_frames_whose_sum_overflows_pass_and_an_inf_among_them_is_named():
    """The check sums the frames (one pass): a sum past float32's range is looked at value
    by value, so large finite light passes and a lone inf among it is still found."""
    from hfrender import validate

    rng = np.random.default_rng(32)
    big = rng.uniform(1e37, 3e38, (2, 6, 7, 3)).astype(np.float32)
    validate.finite(big, "frames")  # no error: every value is finite
    big[1, 4, 2, 1] = np.inf
    with pytest.raises(ValueError, match=r"^frames has 1 non-finite value\(s\) \(NaN or inf\), "
                                         r"the first of frame 1 at row 4, column 2 \(channel 1\);"):
        validate.finite(big, "frames")
    small = rng.random((2, 6, 7, 3), dtype=np.float32)
    small[0, 1, 2] = (np.inf, -np.inf, 0.5)  # inf - inf: the sum is NaN, not inf
    with pytest.raises(ValueError, match=r"has 2 non-finite value\(s\)"):
        validate.finite(small, "frames")


def test_fuse_and_window_weights_name_what_they_take():
    """What the README's users pass by mistake is one line, not an AttributeError; lists
    are taken as arrays."""
    rng = np.random.default_rng(41)
    pool = hf.HyperFramePool((4, 6, 3), np.uint8, capacity=4, depth=True)
    builder = hf.HyperFrameBuilder(pool, halo=0)
    hyper = None
    for j in range(4):
        hyper = builder.push(rng.integers(0, 256, (4, 6, 3), dtype=np.uint8), t=j / 30,
                             depth=np.full((4, 6), 2.0, np.float32)) or hyper
    with pytest.raises(TypeError, match=r"^weights is ndarray; fuse takes hf.WindowWeights "):
        hf.fuse(hyper, np.ones(4) / 4)
    with pytest.raises(TypeError, match=r"^lens=2.8 must be a hf.Lens, a sequence of one per "
                                        r"frame, or None$"):
        hf.fuse(hyper, hf.WindowWeights.sliding(np.ones(4) / 4, 1, 1), lens=2.8)
    with pytest.raises(ValueError, match=r"^WindowWeights: rows must be finite numbers"):
        hf.WindowWeights([0], [[0.5, np.nan]])
    from_lists = hf.WindowWeights([0], [[0.25] * 4])
    assert from_lists.starts.dtype == np.int64 and from_lists.rows.dtype == np.float64
    out = hf.fuse(hyper, from_lists)
    np.testing.assert_array_equal(out, hf.fuse(hyper, hf.WindowWeights.sliding(
        np.full(4, 0.25), 1, 1)))
    hyper.release()


def test_what_an_effects_library_user_passes_wrong_is_one_clear_line():
    from hfrender.errors import InputError

    frames = np.zeros((4, 2, 2, 3), np.uint8)
    cases = [(lambda: hf.motion_blur(frames, window=2, weights=np.array(["a", "b"])),
              r"^weights=array\(\['a', 'b'\].* must be one of box, triangle, gaussian or an "
              r"array of 2 real numbers$"),
             (lambda: hf.from_linear(np.zeros((2, 2, 3), np.float32), "u9"),
              r"^dtype='u9' must be uint8 or uint16$"),
             (lambda: hf.motion_blur([], window=2),
              r"^frames is an empty list: give at least one frame$")]
    for call, message in cases:
        with pytest.raises(InputError, match=message):
            call()
    np.testing.assert_array_equal(hf.curve_weights(np.array([1e308, 1e308]), 2), [0.5, 0.5])


@pytest.mark.parametrize("call, message", [
    # was: [0.333 0.667 0.] (3 weights, one zero), [0.5 0.5], a bare TypeError
    (lambda: hf.curve_weights("triangle", 2.5), r"^n=2\.5 must be an integer \[1, 16777216\]$"),
    (lambda: hf.curve_weights("box", 1.5), r"^n=1\.5 must be an integer \[1, 16777216\]$"),
    (lambda: hf.curve_weights("box", "3"), r"^n='3' must be an integer \[1, 16777216\]$"),
    # was: NumPy's "Maximum allowed size exceeded"; the caller's curve= and n= said as
    # weights= and window= (motion_blur's keywords)
    (lambda: hf.curve_weights("box", 10**30), r"^n=1000000000000000000000000000000 must be an "
     r"integer \[1, 16777216\]$"),
    (lambda: hf.curve_weights("box", 2**24 + 1), r"^n=16777217 must be an integer \[1, "
     r"16777216\]$"),
    (lambda: hf.curve_weights("sinc", 3), r"^curve='sinc' is not a shutter curve; use one of "
     r"box, triangle, gaussian or an array of 3 weights$"),
    (lambda: hf.curve_weights([1, 2], 3), r"^curve has shape \(2,\); an array of weights must "
     r"have shape \(3,\), one per frame of the window$"),
    (lambda: hf.curve_weights([1, -1], 2), r"^curve=\[ 1\. -1\.\] must be finite, >= 0, and "
     r"not all zero$"),
    (lambda: hf.curve_weights(None, 2), r"^curve=None must be one of box, triangle, gaussian "
     r"or an array of 2 real numbers$"),
    # was: ZeroDivisionError; 3 outputs of no windows; numpy's TypeError; accepted
    (lambda: hf.sliding_in_span(np.ones(4) / 4, 0, 0, 0, 8), r"^stride=0 must be an integer "
     r">= 1$"),
    (lambda: hf.sliding_in_span(np.ones(4) / 4, -1, 0, 0, 8), r"^stride=-1 must be"),
    (lambda: hf.sliding_in_span(np.ones(4) / 4, 1.5, 0, 0, 8), r"^stride=1\.5 must be"),
    (lambda: hf.sliding_in_span(np.ones(4) / 4, 1, 0, 5, 3), r"^halo=5 must be at most "
     r"frame_count=3"),
    (lambda: hf.sliding_in_span(np.ones(4) / 4, 1, -2, 0, 3), r"^first_index=-2 must be"),
])
def test_window_helpers_refuse_what_is_not_a_whole_count(call, message):
    from hfrender.errors import InputError

    with pytest.raises(InputError, match=message):
        call()
    k0, windows = hf.sliding_in_span(np.ones(4) / 4, 2, 4, 3, 6)  # frames 4..9, 7.. new
    assert (k0, windows.count, list(windows.starts)) == (2, 2, [0, 2])
    assert hf.curve_weights("box", np.int64(3)).tolist() == [1 / 3] * 3
    most = hf.curve_weights("box", 2**24)  # the largest n taken
    assert (most.shape, most[0], most[-1]) == ((2**24,), 2.0**-24, 2.0**-24)


def test_a_list_of_what_is_not_a_numpy_frame_says_what_it_holds_and_what_to_give():
    """Was: "... or a list of NumPy frames; got builtins.list" (the README takes a list)."""
    from hfrender.errors import InputTypeError

    class Tensor:  # a frame of another library: DLPack, not NumPy
        def __dlpack__(self, stream=None):
            raise BufferError("not used")

    frames = np.zeros((4, 2, 2, 3), np.uint8)
    with pytest.raises(InputTypeError, match=r"^frames is a list of numpy\.ndarray and "
                       r"test_validation\.Tensor; give frames of one kind \(the result is of "
                       r"their kind\)$"):  # (a list of tensors alone is frames: test_array_kinds)
        hf.motion_blur([frames[0], Tensor()], window=2)
    with pytest.raises(InputTypeError, match=r"^frames\[0\] \(test_validation\.Tensor\) "
                       r"cannot be read through DLPack: not used$"):
        hf.motion_blur([Tensor(), Tensor()], window=2)
    with pytest.raises(InputTypeError, match=r"^frames is a list holding builtins\.list; a "
                       r"list takes frames: give an array of a pixel type"):
        hf.motion_blur(frames.tolist(), window=2)


def test_window_and_stride_in_0_d_arrays_are_their_numbers():
    """Was: ``window=np.array(2)`` (a count computed with NumPy, a tensor's) refused as
    "must be an integer", where ``focus_distance=np.array(2.0)`` is taken."""
    rng = np.random.default_rng(3)
    frames = rng.integers(0, 256, (6, 4, 4, 3), dtype=np.uint8)
    np.testing.assert_array_equal(hf.motion_blur(frames, np.array(3), stride=np.array(1)),
                                  hf.motion_blur(frames, 3, stride=1))
    with pytest.raises(ValueError, match=r"^window=9 is longer than the 6 frames given"):
        hf.motion_blur(frames, np.array(9))
    with pytest.raises(TypeError, match=r"^window=2.0 must be an integer \[1, 6\]$"):
        hf.motion_blur(frames, np.array(2.0))  # a 0-d float is still no count
    with pytest.raises(TypeError, match=r"^window=array\(\[2\]\) must be an integer"):
        hf.motion_blur(frames, np.array([2]))


@pytest.mark.parametrize("call, message", [
    (lambda: hf.motion_blur(F, "2"), r"^window='2' must be an integer \[1, 5\]$"),
    (lambda: hf.motion_blur(F, 2, stride="1"), r"^stride='1' must be an integer >= 1$"),
    (lambda: hf.motion_blur(F, 2, backend=1), r"^backend=1 is not a backend; choose one of "),
    (lambda: hf.motion_blur(F, 2, weights=None), r"^weights=None must be one of box, triangle, "
     r"gaussian or an array of 2 real numbers$"),
    (lambda: hf.motion_blur(F, 2, weights=5), r"^weights=5 must be one of "),
    # items that are no real numbers, said as given (was: [None, 1] as "[nan  1.]", and
    # ["1", "1"] or complex weights taken)
    (lambda: hf.motion_blur(F, 2, weights=[None, 1]), r"^weights=\[None, 1\] must be one of "),
    (lambda: hf.motion_blur(F, 2, weights=["1", "1"]), r"^weights=\['1', '1'\] must be one "),
    (lambda: hf.motion_blur(F, 2, weights=[1j, 1]), r"^weights=\[1j, 1\] must be one of "),
    (lambda: hf.depth_of_field(F[0], D[0], method=None, **LENS),
     r"^method=None is not one of 'fast', 'exact'$"),
    (lambda: hf.fuse(F, hf.WindowWeights.sliding(np.ones(2) / 2, 1, 1)),
     r"^hyperframe is ndarray; fuse takes an hf.HyperFrame \(frames alone: hf.motion_blur, "),
])
def test_a_wrong_type_is_a_type_error_too(call, message):
    """A str where a number goes, None or a number where weights go, an array where a
    hyperframe goes: one line, and a TypeError too, as the README says of wrong types (they
    were ValueErrors alone, or an AttributeError of the array's missing 'frames': a library
    user's trial)."""
    with pytest.raises(hf.InputTypeError, match=message):
        call()


def test_channels_first_frames_are_told_to_move_them_last():
    """(N, C, H, W), as torch holds frames, was refused for its W channels, no hint."""
    nchw = np.zeros((2, 3, 8, 16), np.float32)
    with pytest.raises(ValueError, match=r"^frames has C=16 channels \(shape \(2, 3, 8, 16\)\); "
                       r"allowed: 1 \(gray\), 3 \(RGB\), 4 \(RGBA\); channels first\? move "
                       r"them last: frames\.permute\(0, 2, 3, 1\) \(torch\) or "
                       r"numpy\.moveaxis\(frames, -3, -1\)$"):
        hf.motion_blur(nchw, 2)


ARGWHERE = np.argwhere(np.ones((3, 2)) > 0)  # (6, 2): a focus point's np.argwhere, say
LONG = np.arange(50.0)
DISP = dict(depth_kind="disparity", focus_disparity=0.5, max_blur=4)


@pytest.mark.parametrize("call, head", [
    (lambda v: hf.motion_blur(F, v), "window"),
    (lambda v: hf.motion_blur(F, 2, stride=v), "stride"),
    (lambda v: hf.motion_blur(F, 2, linear_light=v), "linear_light"),
    (lambda v: hf.depth_of_field(F, D, **{**LENS, "f_stop": v}), "f_stop"),
    (lambda v: hf.depth_of_field(F, D, **LENS, max_coc_px=v), "max_coc_px"),
    (lambda v: hf.depth_of_field(F, D, **LENS, aperture_blades=v), "aperture_blades"),
    (lambda v: hf.depth_of_field(F, D, focus_pixel=v, f_stop=2.8), "focus_pixel"),
    (lambda v: hf.depth_of_field(F, D, **LENS, method=v), "method"),
    (lambda v: hf.depth_of_field(F, D, **{**DISP, "focus_disparity": v}), "focus_disparity"),
    (lambda v: hf.depth_of_field(F, D, **{**DISP, "max_blur": v}), "max_blur"),
    (lambda v: hf.vector_blur(F[0], np.zeros((4, 4, 2)), shutter=v), "shutter"),
    (lambda v: hf.vector_blur(F[0], np.zeros((4, 4, 2)), max_length=v), "max_length"),
    (lambda v: hf.curve_weights("box", v), "n"),
    (lambda v: hf.from_linear(np.zeros((2, 2, 3), np.float32), v), "dtype"),
    (lambda v: hf.Lens(2.0, v), "f_stop"),
])
@pytest.mark.parametrize("value, said", [
    (ARGWHERE, "array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])"),
    (LONG, "array([ 0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15.,..."),
])
def test_an_array_given_for_a_number_is_said_on_one_line(call, head, value, said):
    """NumPy's repr of an array is several lines (was: 'window=array([[0, 0],\\n  [0, 1],
    ...' over 9 lines, 50 numbers over 4; an array-user's sweep, 66 such calls): the value
    is said as hfrender's other lines say one, on one line and cut short."""
    with pytest.raises(hf.HFRenderError) as info:
        call(value)
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(f"{head}={said} ")
