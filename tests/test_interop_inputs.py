"""Arrays from other libraries given wrongly: tensors that require grad (as parameters, in
lists), byte orders mixed in one list, NumPy masked arrays: each one line naming the
argument, nothing read through a mask (moved from test_interop.py as it grew)."""

import warnings

import numpy as np
import pytest

import hfrender as hf


@pytest.mark.parametrize("call, name", [
    (lambda g: hf.vector_blur(np.zeros((4, 5, 3), np.uint8), g(np.ones((4, 5, 2)))), "velocity"),
    (lambda g: hf.motion_blur(np.zeros((2, 4, 5, 3), np.uint8), 2, weights=g([1.0, 3.0])),
     "weights"),
    (lambda g: hf.curve_weights(g([1.0, 2.0, 1.0]), 3), "curve"),
    (lambda g: hf.vector_blur(np.zeros((4, 5, 3), np.uint8), np.ones((4, 5, 2)),
                              shutter=g([90.0])), "shutter"),
    (lambda g: hf.vector_blur(np.zeros((4, 5, 3), np.uint8), np.ones((4, 5, 2)),
                              max_length=g([3.0])), "max_length"),
    (lambda g: hf.depth_of_field(np.zeros((2, 4, 5, 3), np.uint8), np.ones((2, 4, 5)),
                                 focus_distance=g([2.0, 3.0]), f_stop=2.8), "focus_distance"),
])
def test_a_parameter_tensor_that_requires_grad_is_one_line_naming_it(call, name):
    """A flow network's velocity, or weights, a shutter, a focus pull made by torch with
    grad on: was torch's RuntimeError "Can't call numpy() on Tensor that requires grad"
    from deep in np.asarray, a traceback (an array-user's sweep)."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")

    def grad(values):
        return torch.tensor(np.asarray(values, np.float32), requires_grad=True)

    with pytest.raises(hf.InputTypeError) as info:
        call(grad)
    assert str(info.value) == (f"{name} (torch.Tensor) requires grad: pass {name}.detach() "
                               "(its values are read; no gradient flows back)")


@pytest.mark.parametrize("call, name", [
    (lambda g: hf.motion_blur(np.zeros((2, 4, 5, 3), np.uint8), 2, weights=g), "weights"),
    (lambda g: hf.depth_of_field(np.zeros((2, 4, 5, 3), np.uint8), np.ones((2, 4, 5)),
                                 focus_distance=g, f_stop=2.8), "focus_distance"),
    (lambda g: hf.vector_blur(np.zeros((4, 5, 3), np.uint8), np.ones((4, 5, 2)),
                              shutter=(g,)), "shutter[0]"),
])
def test_a_list_holding_tensors_that_require_grad_is_one_line_naming_the_item(call, name):
    """weights=[a, b] or focus_distance=[a, b] of 0-d tensors that require grad was torch's
    RuntimeError "Can't call numpy() on Tensor that requires grad", a traceback: grad_free
    looked at the list only (a review's find)."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    items = [torch.tensor(2.0), torch.tensor(3.0, requires_grad=True)]
    with pytest.raises(hf.InputTypeError) as info:
        call(items)
    assert str(info.value) == (f"{name}[1] (torch.Tensor) requires grad: pass {name}[1]"
                               ".detach() (its values are read; no gradient flows back)")


def test_a_depth_list_mixing_a_tensor_that_requires_grad_with_rows_is_one_line():
    """depth=[tensor row requiring grad, [metres], ...] (or the tensor in a row) was torch's
    RuntimeError "Can't call numpy() on Tensor that requires grad" from np.asarray in
    interop.real_numbers, a traceback (a review's find)."""
    torch = pytest.importorskip("torch", reason="torch is installed by the test command")
    row = torch.full((5,), 2.0, requires_grad=True)
    frame = np.zeros((4, 5, 3), np.uint8)
    for depth, name in [([row] + [[2.0] * 5] * 3, "depth[0]"),
                        ([[2.0] * 5, [2.0] * 4 + [row[0]]] + [[2.0] * 5] * 2, "depth[1][4]"),
                        ([[2.0] * 5, [row[0], 2.0]], "depth[1][0]")]:  # (ragged besides)
        for call in (lambda d: hf.vector_blur(frame, np.ones((4, 5, 2)), d),
                     lambda d: hf.depth_of_field(frame, d, focus_distance=2.0, f_stop=2.8)):
            with pytest.raises(hf.InputTypeError) as info:
                call(depth)
            assert str(info.value) == (f"{name} (torch.Tensor) requires grad: pass {name}"
                                       ".detach() (its values are read; no gradient flows "
                                       "back)")


def test_a_list_of_frames_in_both_byte_orders_is_their_values(rng):
    """A list of 16-bit frames, some read big-endian ('>u2'), some native, was refused: 'all
    frames of a list must share shape and dtype; frame 0 is >u2 (4, 5, 3), frame 1 is uint16
    (4, 5, 3)', though both are uint16 (an array-user's sweep)."""
    frames = rng.integers(0, 65536, (2, 4, 5, 3), dtype=np.uint16)
    got = hf.motion_blur([frames[0].astype(">u2"), frames[1]], 2, linear_light=False)
    want = (frames[0].astype(np.float64) + frames[1]) / 2
    assert got.dtype == np.uint16 and np.abs(got[0] - want).max() <= 0.5
    with pytest.raises(hf.InputError) as e:  # another type is still said as it is
        hf.motion_blur([frames[0].astype(">u2"), frames[1].astype(np.uint8)], 2)
    assert str(e.value) == ("frames: all frames of a list must share shape and dtype; frame 0 "
                            "is >u2 (4, 5, 3), frame 1 is uint8 (4, 5, 3)")


def test_a_masked_array_with_values_masked_is_refused_not_read_unmasked(rng):
    """np.ma arrays were read through their masks: a depth or a velocity masked where it is
    invalid (a flow's occlusions, a sensor's holes) was blurred with the values under the
    mask, without a word (an array-user's sweep). Now one line says how many are masked and
    what to give; a masked array with none masked is its values."""
    frames = rng.integers(0, 256, (2, 4, 5, 3), dtype=np.uint8)
    depth = rng.uniform(1.0, 5.0, (2, 4, 5)).astype(np.float32)
    velocity = rng.normal(0.0, 2.0, (4, 5, 2)).astype(np.float32)
    lens = dict(focus_distance=2.0, f_stop=1.4, sensor_width_mm=2.0)
    calls = {
        "frames": lambda m: hf.motion_blur(m(frames), 2),
        "depth": lambda m: hf.depth_of_field(frames, m(depth), **lens),
        "velocity": lambda m: hf.vector_blur(frames[0], m(velocity)),
    }
    arrays = {"frames": frames, "depth": depth, "velocity": velocity}
    for name, call in calls.items():
        a = arrays[name]
        mask = np.zeros(a.shape, bool)
        mask[1, 2] = True  # a whole pixel: 1 value of a depth, 2 of a velocity, ...
        with pytest.raises(hf.InputError) as e:
            call(lambda x, mask=mask: np.ma.masked_array(x, mask=mask))
        count, size = int(mask.sum()), a.size
        assert str(e.value) == (f"{name} is a masked array with {count} of {size} values "
                                "masked; hfrender reads every value, the masked ones too: give "
                                f"{name}.filled(v), v what they stand for")
        np.testing.assert_array_equal(call(np.ma.masked_array), call(np.asarray))


def test_masked_lens_values_hyperframes_and_pushed_frames_are_refused_not_read(rng):
    """A masked focus_distance, f_stop (a keyword's or a Lens's), focus_pixel, hyperframe
    given to fuse and frame pushed into a pool were read through their masks without a word
    (a review's find); each is now the masked-array line naming it."""
    frames = rng.integers(0, 256, (2, 4, 5, 3), dtype=np.uint8)
    depth = rng.uniform(1.0, 5.0, (2, 4, 5)).astype(np.float32)
    hyper_mask = np.zeros(frames.shape, bool)
    hyper_mask[0, 1, 2] = True  # one pixel's 3 values
    depth_mask = np.zeros(depth.shape, bool)
    depth_mask[1, 3, :2] = True
    weights = hf.WindowWeights.sliding(np.ones(2) / 2, 1, 2)
    builder = hf.HyperFrameBuilder(hf.HyperFramePool((4, 5, 3), np.uint8, capacity=2))

    def dof(**kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a focus note)
            return hf.depth_of_field(frames, depth, **kw)

    calls = [
        ("focus_distance", 1, 2,
         lambda: dof(focus_distance=np.ma.masked_array([2.0, 3.0], mask=[0, 1]), f_stop=2.0)),
        ("f_stop", 1, 1,
         lambda: dof(focus_distance=2.0, f_stop=np.ma.masked_array([2.0], mask=[1]))),
        ("f_stop", 1, 1, lambda: hf.Lens(2.0, np.ma.masked_array(2.8, mask=True))),
        ("focus_pixel", 1, 2,
         lambda: dof(focus_pixel=np.ma.masked_array([1, 2], mask=[0, 1]), f_stop=2.0)),
        ("hyperframe.frames", 3, frames.size,
         lambda: hf.fuse(hf.HyperFrame(np.ma.masked_array(frames, hyper_mask)), weights)),
        ("hyperframe.depth", 2, depth.size,
         lambda: hf.fuse(hf.HyperFrame(frames, np.ma.masked_array(depth, depth_mask)),
                         weights, lens=hf.Lens(2.0, 2.0))),
        ("frame", 3, frames[0].size,
         lambda: builder.push(np.ma.masked_array(frames[0], hyper_mask[0]), 0.0)),
        ("depth", 2, depth[1].size,
         lambda: hf.HyperFrameBuilder(hf.HyperFramePool((4, 5, 3), np.uint8, capacity=2,
                                                        depth=True)).push(
             frames[1], 0.0, np.ma.masked_array(depth[1], depth_mask[1]))),
    ]
    for name, count, size, call in calls:
        with pytest.raises(hf.InputError) as e:
            call()
        assert str(e.value) == (f"{name} is a masked array with {count} of {size} values "
                                "masked; hfrender reads every value, the masked ones too: give "
                                f"{name}.filled(v), v what they stand for")
    assert builder.push(frames[0], 0.0) is None  # (the refused frame was not written)


def test_a_masked_array_with_nothing_masked_is_read_as_a_plain_array(rng):
    """One with nothing masked passed on as a MaskedArray (native() kept the subclass), so a
    result came back masked, or a later step read it through np.ma's rules (a review's
    find); now its data, a plain ndarray."""
    from hfrender.interop import to_numpy

    frames = rng.integers(0, 256, (2, 4, 5, 3), dtype=np.uint8)
    for given in (np.ma.masked_array(frames), np.ma.masked_array(frames.astype(">u2"))):
        arr, _ = to_numpy(given, "frames")
        assert type(arr) is np.ndarray
        np.testing.assert_array_equal(arr, frames)
    for given in (np.ma.masked_array(frames), [np.ma.masked_array(f) for f in frames]):
        got = hf.motion_blur(given, 2)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, hf.motion_blur(frames, 2))
