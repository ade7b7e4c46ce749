"""Arrays in every form the effects take them, one rule for each form across the arguments
(an array sweep's leftovers: a big-endian dtype, a memoryview, nested lists, a list of
tensors, a one-element array for one number, a pushed depth checked when pushed)."""

import warnings

import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError, InputTypeError

torch = pytest.importorskip("torch")

H, W = 6, 5


def clip(rng, n=4, c=3):
    return rng.integers(0, 256, (n, H, W, c), dtype=np.uint8)


def metres(rng, n=4):
    return rng.uniform(1.0, 5.0, (n, H, W)).astype(np.float32)


def dof(frames, depth, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a focus note, not what is tested)
        return hf.depth_of_field(frames, depth, **kw)


def test_a_big_endian_dtype_is_its_values_in_a_pool_and_said_as_such_for_a_result(rng):
    """Was: "dtype=>u2 must be uint8, uint16 or float32", though '>u2' is 16 bits."""
    pool = hf.HyperFramePool((H, W, 3), ">u2", capacity=2)
    assert pool.dtype == np.dtype(np.uint16)  # the arena's byte order is the pool's own
    frame = rng.integers(0, 65536, (H, W, 3), dtype=np.uint16)
    builder = hf.HyperFrameBuilder(pool)
    builder.push(frame.astype(">u2"), 0.0)
    hyper = builder.push(frame, 0.1)
    np.testing.assert_array_equal(hyper.frames[0], frame)
    assert hf.HyperFramePool((H, W, 3), ">f4", capacity=2).dtype == np.dtype(np.float32)
    linear = rng.random((H, W, 3), dtype=np.float32)
    with pytest.raises(InputTypeError) as info:
        hf.from_linear(linear, ">u2")
    assert str(info.value) == ("dtype=>u2 is big-endian uint16; give uint16 (the result is "
                               "in this machine's byte order: .astype('>u2') of it gives "
                               "big-endian bytes)")
    assert hf.from_linear(linear, "<u2").dtype == np.uint16  # (this machine's order)


def test_a_buffer_is_read_as_numpy_reads_it_and_each_argument_says_its_own_kinds(rng):
    """Was: memoryview(frames) refused, and depth's line offered "a list of NumPy frames"."""
    frames, depth = clip(rng), metres(rng)
    want = hf.motion_blur(frames, 2)
    got = hf.motion_blur(memoryview(frames), 2)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        dof(memoryview(frames), memoryview(depth), focus_distance=2.0, f_stop=2.0),
        dof(frames, depth, focus_distance=2.0, f_stop=2.0))
    with pytest.raises(InputTypeError) as info:
        hf.motion_blur("frames.mp4", 2)
    assert str(info.value) == (
        "frames must be a NumPy array, an object with __dlpack__ (torch, JAX, CuPy) or the "
        "buffer protocol (memoryview), or a list of frames; got builtins.str")
    with pytest.raises(InputTypeError) as info:
        dof(frames, 3, focus_distance=2.0, f_stop=2.0)
    assert str(info.value) == (
        "depth must be a NumPy array, an object with __dlpack__ (torch, JAX, CuPy) or the "
        "buffer protocol (memoryview), or a list of (H, W) depth frames or of rows of "
        "metres; got builtins.int")


def test_nested_lists_of_numbers_are_read_alike_for_depth_and_velocity(rng):
    """Was: vector_blur took velocity.tolist() and refused depth.tolist()."""
    frame, depth = clip(rng, 1)[0], metres(rng, 1)[0]
    velocity = rng.uniform(-3, 3, (H, W, 2)).astype(np.float32)
    want = hf.vector_blur(frame, velocity, depth)
    np.testing.assert_array_equal(hf.vector_blur(frame, velocity.tolist(), depth.tolist()),
                                  want)
    frames, depths = clip(rng), metres(rng)
    np.testing.assert_array_equal(
        dof(frames, depths.tolist(), focus_distance=2.0, f_stop=2.0),
        dof(frames, depths, focus_distance=2.0, f_stop=2.0))
    for bad, kind in [([["near", "far"]], "str"), ([[True, False]], "bool"),
                       ([[1.5, None]], None), ([[1.5, 2j]], "complex128"),
                       ([depth[0], ["a"]], "str"), ([[1.5, 2.0], [3.0]],
                                                    "rows of unequal lengths")]:
        found = "holding None" if kind is None else f"of {kind}"  # (was 'of NoneType')
        with pytest.raises(InputTypeError) as info:  # what was found, not the rows' list
            hf.vector_blur(frame, velocity, bad)
        assert str(info.value) == (f"depth is a list {found}; depth takes numbers "
                                   "(metres): give an array of metres (np.asarray(depth, "
                                   "np.float32))")
        with pytest.raises(InputTypeError) as info:  # velocity's said the same way
            hf.vector_blur(frame, bad, depth)  # (was "velocity has dtype <U1; expected ...")
        assert str(info.value) == (f"velocity is a list {found}; velocity takes numbers "
                                   "(pixels a frame, x to the right and y down): give an "
                                   "array of shape (1, 6, 5, 2) (or (6, 5, 2) for one frame)")
    with pytest.raises(InputTypeError, match=r"^frames is a list holding builtins\.list; a "
                       r"list takes frames: give an array of a pixel type \(np\.asarray\("
                       r"frames, np\.uint8\)\)$"):  # (frames' numbers need their dtype)
        hf.motion_blur(frames.tolist(), 2)


def test_a_value_of_no_numbers_is_said_with_its_dtype_and_article(rng):
    """Was: a complex or bool tensor "velocity is a torch.Tensor" (float tensors are taken:
    its dtype is what is wrong), "a ellipsis", "a object" and [None] "a list of NoneType";
    a class given by mistake (np.uint8) "a type of generic' objects>"."""
    frame, depth = clip(rng, 1)[0], metres(rng, 1)[0]
    vectors = rng.uniform(-3, 3, (H, W, 2))
    for bad, held in [(torch.from_numpy(vectors.astype(np.complex64)),
                       "a torch.Tensor of complex64"),
                      (torch.from_numpy(vectors > 0), "a torch.Tensor of bool"),
                      (..., "an ellipsis"), (object(), "an object"), ("fast", "a str"),
                      ([None], "a list holding None"),
                      (np.uint8, "a type")]:  # (its class-level dtype: "a type of generic'
                      # objects>", was)
        with pytest.raises(InputTypeError) as info:
            hf.vector_blur(frame, bad, depth)
        assert str(info.value) == (f"velocity is {held}; velocity takes numbers (pixels a "
                                   "frame, x to the right and y down): give an array of shape "
                                   "(1, 6, 5, 2) (or (6, 5, 2) for one frame)")
    want = hf.vector_blur(frame, vectors.astype(np.float32), depth)  # a float tensor: taken
    np.testing.assert_array_equal(
        hf.vector_blur(frame, torch.from_numpy(vectors.astype(np.float32)), depth), want)


def test_a_list_of_tensors_is_frames_and_gives_a_tensor(rng):
    """Was: "frames is a list holding torch.Tensor; ... torch.stack(frames)"."""
    frames, depth = clip(rng), metres(rng)
    got = hf.motion_blur([torch.from_numpy(f) for f in frames], 2)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.uint8
    np.testing.assert_array_equal(got.numpy(), hf.motion_blur(frames, 2))
    got = dof([torch.from_numpy(f) for f in frames], [torch.from_numpy(d) for d in depth],
              focus_distance=2.0, f_stop=2.0)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), dof(frames, depth, focus_distance=2.0,
                                                   f_stop=2.0))
    with pytest.raises(InputTypeError) as info:
        hf.motion_blur([frames[0], torch.from_numpy(frames[1])], 2)
    assert str(info.value) == ("frames is a list of numpy.ndarray and torch.Tensor; give "
                               "frames of one kind (the result is of their kind)")
    with pytest.raises(InputError) as info:
        hf.motion_blur([torch.from_numpy(frames[0]), torch.zeros((H, W, 4), dtype=torch.uint8)],
                       2)
    assert str(info.value) == ("frames: all frames of a list must share shape and dtype; "
                               "frame 0 is uint8 (6, 5, 3), frame 1 is uint8 (6, 5, 4)")


def test_a_one_element_array_is_its_number_for_one_value_keywords(rng):
    """Was: f_stop=np.array([1.4]) and focus_disparity=np.array([0.5]) refused as "not a
    number", where focus_distance=np.array([2.0]) is one distance for every frame."""
    frames, depth = clip(rng), metres(rng)
    np.testing.assert_array_equal(
        dof(frames, depth, focus_distance=2.0, f_stop=np.array([1.4]),
            focal_length_mm=torch.tensor([50.0])),
        dof(frames, depth, focus_distance=2.0, f_stop=1.4))
    disparity = 1.0 / depth
    np.testing.assert_array_equal(
        dof(frames, disparity, depth_kind="disparity", focus_disparity=np.array([0.5]),
            max_blur=np.array([6.0])),
        dof(frames, disparity, depth_kind="disparity", focus_disparity=0.5, max_blur=6.0))
    with pytest.raises(InputError) as info:
        dof(frames, depth, focus_distance=2.0, f_stop=np.array([1.4, 2.8]))
    assert str(info.value) == ("f_stop=array([1.4, 2.8]) holds 2 values; give one number: it "
                               "serves every frame (a focus pull is focus_distance's, one per "
                               "frame)")
    for bad, shown in [(np.array(["1.4"]), "array(['1.4'], dtype='<U3')"),
                       (np.array([True]), "array([ True])")]:  # (was: '1.4', True)
        with pytest.raises(InputTypeError) as info:  # refused as given, not as reshaped
            dof(frames, depth, focus_distance=2.0, f_stop=bad)
        assert str(info.value) == f"f_stop={shown} must be a finite number > 0"


def test_a_pushed_depth_is_checked_at_push_as_fuse_checks_it(rng):
    """Was: a NaN, or a depth of strings, found at fuse (or NumPy's bare ValueError)."""
    pool = hf.HyperFramePool((H, W, 3), np.uint8, capacity=4, depth=True)
    builder = hf.HyperFrameBuilder(pool, first_index=10)
    frames, depth = clip(rng), metres(rng)
    depth[2, 3, 1] = np.nan
    builder.push(frames[0], 0.0, depth[0])
    builder.push(frames[1], 0.1, depth[1])
    with pytest.raises(InputError) as info:
        builder.push(frames[2], 0.2, depth[2])
    assert str(info.value) == ("depth frame 12 has a NaN at row 3, column 1; depth must be a "
                               "distance > 0 (use inf for sky)")
    with pytest.raises(InputTypeError) as info:
        builder.push(frames[2], 0.2, np.full((H, W), "far"))
    assert str(info.value) == ("depth frame 12 has dtype <U3; depth must be numeric (float32 "
                               "metres)")
    builder.push(frames[2], 0.2, np.where(np.isnan(depth[2]), 3.0, depth[2]))
    hyper = builder.push(frames[3], 0.3, depth[3])
    assert hyper is not None and hyper.depth[2, 3, 1] == np.float32(3.0)


class OnDevice:
    """A CUDA tensor as NumPy meets one: np.asarray refuses it (torch's TypeError), its
    tolist() copies its values to the host."""

    def __init__(self, values):
        self.values, self.shape, self.ndim = values, np.shape(values), np.ndim(values)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to "
                        "copy the tensor to host memory first.")

    def tolist(self):
        return list(self.values)


def test_a_focus_tensor_off_the_cpu_is_read_or_said_in_one_line(rng):
    """Was: focus_pixel of a GPU tensor (a tensor's argmax) torch's TypeError "can't convert
    cuda:0 device type tensor to numpy", a traceback, and a focus pull's alike; a meta f_stop
    torch's RuntimeError "Tensor.item() cannot be called on meta tensors"."""
    frames, depth = clip(rng), metres(rng)
    np.testing.assert_array_equal(dof(frames, depth, focus_pixel=OnDevice([3, 4]), f_stop=2.0),
                                  dof(frames, depth, focus_pixel=(3, 4), f_stop=2.0))
    np.testing.assert_array_equal(
        dof(frames, depth, focus_distance=OnDevice([1.5, 2.0, 2.5, 3.0]), f_stop=2.0),
        dof(frames, depth, focus_distance=[1.5, 2.0, 2.5, 3.0], f_stop=2.0))
    meta = torch.empty(2, dtype=torch.int64, device="meta")
    with pytest.raises(InputError) as info:
        dof(frames, depth, focus_pixel=meta, f_stop=2.0)
    assert str(info.value) == (
        "focus_pixel=tensor(..., device='meta', size=(2,), dtype=torch.int64) must be (x, y), "
        "two whole numbers >= 0: the pixel's column and row from the top left corner (e.g. "
        "(320, 180)); its values cannot be read on meta: give focus_pixel.cpu()")
    with pytest.raises(InputTypeError) as info:
        dof(frames, depth, focus_distance=torch.empty(4, device="meta"), f_stop=2.0)
    assert str(info.value) == ("focus_distance=tensor(..., device='meta', size=(4,)) cannot be "
                               "read on meta: give focus_distance.cpu()")
    for f_stop in (torch.empty((), device="meta"), torch.empty(1, device="meta")):
        with pytest.raises(InputTypeError) as info:
            dof(frames, depth, focus_distance=2.0, f_stop=f_stop)
        assert str(info.value) == ("f_stop=tensor(..., device='meta', size=()) cannot be read "
                                   "on meta: give f_stop.cpu()")


class OneOnDevice(OnDevice):
    """A 0-d CUDA tensor as NumPy meets one: np.asarray refuses it, item() reads it."""

    def item(self):
        return self.values


def test_a_focus_pull_listing_tensors_off_the_cpu_is_read_as_their_numbers(rng):
    """focus_distance=[t0, t1, ...] of 0-d GPU tensors was torch's TypeError "can't convert
    cuda:0 device type tensor to numpy" from np.ndim(focus_distance), before the list was
    read item by item (a review's find); now each item is its number, as a list of floats."""
    frames, depth = clip(rng), metres(rng)
    pull = [1.5, 2.0, 2.5, 3.0]
    for given in ([OneOnDevice(f) for f in pull], tuple(OneOnDevice(f) for f in pull)):
        np.testing.assert_array_equal(dof(frames, depth, focus_distance=given, f_stop=2.0),
                                      dof(frames, depth, focus_distance=pull, f_stop=2.0))
    with pytest.raises(InputError) as info:
        dof(frames, depth, focus_distance=[OneOnDevice(2.0), OneOnDevice(-1.0)] * 2,
            f_stop=2.0)
    assert str(info.value).startswith("frame 1: focus_distance=-1 must be ")


def test_an_array_given_wrongly_is_said_on_one_line_naming_its_argument(rng):
    """Was: weights=, shutter= and curve= said over several lines (NumPy's repr, or
    array2string wrapping at 75 characters), and depth_kind=np.array(["a", "b"]) NumPy's
    "truth value of an array ... is ambiguous" (a review's find)."""
    frames = rng.random((2, H, W, 3), dtype=np.float32)
    hyper = hf.HyperFrame(frames, metres(rng, 2), velocity=np.zeros((2, H, W, 2), np.float32),
                          timestamps=np.array([0.0, 0.5]))
    calls = [
        (lambda: hf.WindowWeights.sliding(np.array([["a"] * 6] * 6), 2, 2), InputTypeError,
         "weights=array([['a', 'a', 'a', 'a', 'a', 'a'], ['a', 'a', 'a', 'a', 'a', 'a'], "
         "['a', ... must be an array of numbers, one weight per frame of the window "
         "(hf.curve_weights(curve, window))"),
        (lambda: hf.fuse(hyper, hf.WindowWeights.sliding(np.ones(2) / 2, 1, 2),
                         shutter=np.array([["open", "shut"]] * 2)), InputTypeError,
         "shutter=array([['open', 'shut'], ['open', 'shut']], dtype='<U4') is no (open, close) "
         "times; expected (1, 2) seconds with close >= open"),
        (lambda: hf.curve_weights(np.full(20, -1.23456789e300), 20), InputError,
         "curve=[-1.2346e+300 -1.2346e+300 -1.2346e+300 ... -1.2346e+300 -1.2346e+300 "
         "-1.2346e+300] must be finite, >= 0, and not all zero"),
        (lambda: dof(frames, metres(rng, 2), depth_kind=np.array(["a", "b"])), InputError,
         "depth_kind=array(['a', 'b'], dtype='<U1') must be one of distance, disparity"),
        (lambda: hf.HyperFramePool(np.ones((2, 3)), np.uint8, capacity=2), InputError,
         "frame_shape=array([[1., 1., 1.], [1., 1., 1.]]) must be (H, W, C): whole sizes >= 1, "
         "C 1 (gray), 3 (RGB) or 4 (RGBA)"),
    ]
    for call, kind, line in calls:
        with pytest.raises(kind) as info:
            call()
        assert str(info.value) == line


def test_a_one_number_tensor_that_requires_grad_is_refused_as_a_focus_pull_is(rng):
    """f_stop=torch.tensor(2.0, requires_grad=True) was read through .item() without a word
    (optics.scalar), while the same tensor as focus_distance was refused with the
    requires-grad line, as docs/effects.md says any such tensor is (a review's find). Now
    every lens number is refused alike, a keyword's or an hf.Lens's; detached, it is read."""
    frames, depth = clip(rng), metres(rng)
    two = torch.tensor(2.0, requires_grad=True)
    calls = [("focus_distance", lambda: dof(frames, depth, focus_distance=two, f_stop=2.0)),
             ("f_stop", lambda: dof(frames, depth, focus_distance=2.0, f_stop=two)),
             ("f_stop", lambda: dof(frames, depth, focus_distance=2.0,
                                    f_stop=torch.tensor([2.0], requires_grad=True))),
             ("focal_length_mm", lambda: dof(frames, depth, focus_distance=2.0, f_stop=2.0,
                                             focal_length_mm=two * 25)),
             ("focus_distance", lambda: hf.Lens(two, 2.8)),
             ("f_stop", lambda: hf.Lens(2.0, two))]
    for name, call in calls:
        with pytest.raises(InputTypeError) as info:
            call()
        assert str(info.value) == (f"{name} (torch.Tensor) requires grad: pass {name}.detach() "
                                   "(its values are read; no gradient flows back)")
    assert hf.Lens(2.0, two.detach()) == hf.Lens(2.0, 2.0)
    np.testing.assert_array_equal(dof(frames, depth, focus_distance=2.0, f_stop=two.detach()),
                                  dof(frames, depth, focus_distance=2.0, f_stop=2.0))


def test_fuses_lens_list_of_tensors_off_the_cpu_is_one_line_naming_the_item():
    """hf.fuse(lens=[t0, t1]) of 0-d GPU tensors: torch's TypeError from np.ndim(lens), as
    focus_distance's was (a review's find); now the list's own line, its first item named."""
    from hfrender.lens_args import frame_lenses

    with pytest.raises(InputTypeError) as info:
        frame_lenses([OneOnDevice(1.0), OneOnDevice(2.0)], 2)
    assert str(info.value).startswith("lens[0]=") and "must be a hf.Lens" in str(info.value)
    assert "\n" not in str(info.value)
