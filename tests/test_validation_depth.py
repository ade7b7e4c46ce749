"""Bad input to ``hf.depth_of_field``, one clear line each: its depth (matching frames, a
bad value named by frame, row and column, a tool's shapes), grey frames, an argument refused
before any note on the lens; scalars in 0-d arrays taken as their numbers."""

import numpy as np
import pytest
from validation_helpers import (
    LENS,
    D,
    F,
)

import hfrender as hf


@pytest.mark.parametrize("depth, kwargs, exc, message", [
    (np.full((5, 4, 5), 2.0), {}, ValueError,
     r"depth has shape \(5, 4, 5\); it must match frames \(5, 4, 4, 3\) .*: \(5, 4, 4\)"),
    (np.where(np.arange(80).reshape(5, 4, 4) == 17, np.nan, 2.0), {}, ValueError,
     r"^depth frame 1 has a NaN at row 0, column 1; depth must be a distance > 0 \(use inf "
     r"for sky\)$"),
    (np.where(np.arange(80).reshape(5, 4, 4) == 3, -1.0, 2.0), {}, ValueError,
     r"^depth frame 0 has a value <= 0 \(-1\) at row 0, column 3; depth must be a distance > "
     r"0 \(use inf for sky\)$"),
    (D, {"f_stop": 0}, ValueError, r"f_stop=0 must be a finite number > 0"),
    (D, {"f_stop": -2.0}, ValueError, r"f_stop=-2.0 must be a finite number > 0"),
    (D, {"focus_distance": 0.05}, ValueError,
     r"focus_distance=0.05 must be a distance in metres greater than the focal "
     r"length \(0.05 m, a 50 mm lens\), or inf"),
    (D, {"focus_distance": 0.2, "focal_length_mm": 300}, ValueError,
     r"focus_distance=0.2 .* \(0.3 m, a 300 mm lens\)"),
    # 0 blurs nothing, as 1.5 does: the same line, naming the least that blurs (it said
    # "must be a finite number > 0", which 1 is)
    (D, {"max_coc_px": 0}, ValueError, r"max_coc_px=0 blurs nothing: .* give at least 2, or "),
    (D, {"max_coc_px": float("inf")}, ValueError,
     r"max_coc_px=inf must be a finite number of pixels, at least 2 \(no cap: leave it out\)$"),
    (D, {"sensor_width_mm": float("nan")}, ValueError, r"sensor_width_mm=nan must be"),
    # not numbers at all: TypeErrors too (a text field's "2" passed on as it is)
    (D, {"focus_distance": "2"}, TypeError, r"focus_distance='2' must be a distance in metres"),
    (D, {"f_stop": "2.8"}, TypeError, r"f_stop='2.8' must be a finite number > 0"),
    (D, {"aperture_blades": "6"}, TypeError,
     r"aperture_blades='6' must be a whole number, 0 \(round\) or"),
])
def test_depth_of_field_bad_input(depth, kwargs, exc, message):
    args = {**LENS, **kwargs}
    with pytest.raises(exc, match=message):
        hf.depth_of_field(F, depth, **args)


def test_single_frame_needs_matching_single_depth():
    with pytest.raises(ValueError, match=r"depth has shape \(3, 4\); it must match frames "
                                         r"\(4, 4, 3\) without the channel axis: \(4, 4\)"):
        hf.depth_of_field(F[0], np.full((3, 4), 2.0), **LENS)
    with pytest.raises(ValueError, match=r"depth has shape \(2, 2\); it must match frames "
                                         r"\(4, 4, 3\) without the channel axis: \(4, 4\); scale "
                                         r"a depth pass of another size to the frames first "):
        hf.depth_of_field(F[0], np.full((2, 2), 2.0), **LENS)  # (its shape: a hint)
    with pytest.raises(ValueError, match=r"without the channel axis: \(4, 4\)$"):
        hf.depth_of_field(F[0], np.full((3, 4), 2.0), **LENS)  # (another shape: none)
    # (H, W, 1) depth passes as well as (H, W)
    a = hf.depth_of_field(F[0], np.full((4, 4, 1), 2.0), **LENS)
    b = hf.depth_of_field(F[0], np.full((4, 4), 2.0), **LENS)
    # and (1, H, W): one frame's, batched as a tool batches it (was refused, a trial)
    np.testing.assert_array_equal(hf.depth_of_field(F[0], np.full((1, 4, 4), 2.0), **LENS), b)
    assert a.shape == (4, 4, 3) and np.array_equal(a, b)


def test_a_bad_depth_names_its_frame_row_and_column_as_the_velocity_line_does():
    """It said 'depth contains 96 NaN value(s), the first at index (0, 0, 5)', where the
    velocity line says 'velocity of frame 1 at row 7, column 5' and fx 'depth frame 6 (d.npy)
    has a NaN at pixel (x=4, y=3)': now the frame where there are several, then the row and
    column, as fx says it (its count that frame's)."""
    frames = np.zeros((4, 24, 32, 3), np.uint8)
    depth = np.where(np.arange(32) == 5, np.nan, np.full((4, 24, 32), 2.0, np.float32))
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, depth, focus_distance=2, f_stop=2)
    assert str(e.value) == ("depth frame 0 has 24 NaNs, the first at row 0, column 5; depth "
                            "must be a distance > 0 (use inf for sky)")
    rng = np.random.default_rng(7)
    depth = rng.uniform(1.0, 9.0, (4, 24, 32)).astype(np.float32)
    depth[2, 17, 9], depth[3, 1, 1] = -0.25, 0.0  # the first frame holding one is named
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, depth, focus_distance=2, f_stop=2)
    assert str(e.value) == ("depth frame 2 has a value <= 0 (-0.25) at row 17, column 9; "
                            "depth must be a distance > 0 (use inf for sky)")
    for one in (depth[2], depth[2:3]):  # one depth for all frames, one frame: no frame said
        with pytest.raises(hf.InputError) as e:
            hf.depth_of_field(frames[:len(one) if one.ndim == 3 else 4], one,
                              focus_distance=2, f_stop=2)
        assert str(e.value) == ("depth has a value <= 0 (-0.25) at row 17, column 9; depth "
                                "must be a distance > 0 (use inf for sky)")


@pytest.mark.parametrize("bad, message", [
    (dict(method="bogus"), r"^method='bogus' is not one of"),
    (dict(backend="nope"), r"^backend='nope' is not a backend"),
    (dict(premultiplied=False), r"^premultiplied=False is for RGBA frames"),
])
def test_depth_of_field_refuses_an_argument_before_any_note_on_the_lens(bad, message):
    """Was: "the circles of confusion ... reach only 0.95 px" warned, then the refusal."""
    import warnings

    from hfrender.errors import InputError

    frame = np.full((8, 8, 3), 0.5, np.float32)
    depth = np.full((8, 8), 3.0, np.float32)  # past the focus: a blur far under a pixel
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(InputError, match=message):
            hf.depth_of_field(frame, depth, focus_distance=2, f_stop=8, **bad)
        assert said == []
        hf.depth_of_field(frame, depth, focus_distance=2, f_stop=8)
    assert "reach only" in str(said[0].message)  # the note itself, for a call that runs


def test_scalars_in_0_d_arrays_are_their_numbers():
    """Was: ``focus_distance=np.array(2.0)`` refused as "not a distance" (``[2.0]`` taken)."""
    rng = np.random.default_rng(7)
    frame = rng.random((16, 16, 3), dtype=np.float32)
    depth = np.linspace(1, 5, 256, dtype=np.float32).reshape(16, 16)
    lens = dict(sensor_width_mm=2.0)  # 16 px across 2 mm: a blur of pixels
    plain = hf.depth_of_field(frame, depth, focus_distance=2.0, f_stop=1.4, **lens)
    boxed = hf.depth_of_field(frame, depth, focus_distance=np.array(2.0),
                              f_stop=np.array(1.4), aperture_blades=np.array(6)[()], **lens)
    np.testing.assert_array_equal(boxed, hf.depth_of_field(frame, depth, focus_distance=2.0,
                                                           f_stop=1.4, aperture_blades=6,
                                                           **lens))
    assert np.abs(plain - frame).max() > 0.05  # blurred: the numbers were used


def test_grey_frames_to_depth_of_field_are_told_their_own_fix():
    """A grey (N, H, W) clip was read as one (H, W, C) frame and, with N of 3 or 4, told
    only to move its channels last: that made it one colour frame, blurred without a word.
    Its own fix comes first now, and does what the RGB clip of it does."""
    rng = np.random.default_rng(5)
    grey = rng.integers(0, 256, (3, 24, 64), dtype=np.uint8)
    depth = np.full((24, 64), 10.0, np.float32)
    kw = dict(focus_distance=2.0, f_stop=1.4, focal_length_mm=85.0)
    for clip in (grey, np.concatenate([grey, grey[:2]])):
        with pytest.raises(hf.InputError) as info:
            hf.depth_of_field(clip, depth, **kw)
        assert str(info.value) == (
            f"frames has C=64 channels (shape {clip.shape}); allowed: 1 (gray), 3 (RGB), 4 "
            "(RGBA); (N, H, W) grey frames? frames[..., None]" + (
                "; channels first? move them last: frames.permute(1, 2, 0) (torch) or "
                "numpy.moveaxis(frames, -3, -1)" if len(clip) == 3 else ""))
    blurred = hf.depth_of_field(grey[..., None], depth, **kw)
    as_rgb = hf.depth_of_field(np.repeat(grey[..., None], 3, axis=-1), depth, **kw)
    assert blurred.shape == (3, 24, 64, 1) and np.abs(blurred[..., 0].astype(int) - grey).max() > 50
    np.testing.assert_array_equal(blurred[..., 0], as_rgb[..., 1])


def test_a_tools_depth_shapes_pass_and_odd_arguments_are_told():
    """A library user's trial: a tensor's (1, 1, H, W) and (1, H, W, 1) depth and a batch's
    (N, 1, H, W) were refused; a (2, 2) focus_distance was flattened into 4 frames'; a
    float64 depth past float32's range leaked NumPy's overflow warning; an empty frame was
    told it lacked channels."""
    import warnings

    rng = np.random.default_rng(17)
    img = (rng.random((3, 12, 16, 3)) * 255).astype(np.uint8)
    depth = rng.uniform(0.5, 6.0, (3, 12, 16)).astype(np.float32)
    kw = dict(focus_distance=1.0, f_stop=1.4, focal_length_mm=85, sensor_width_mm=10)
    one = hf.depth_of_field(img[0], depth[0], **kw)
    assert (one != img[0]).mean() > 0.5  # (it blurs)
    for shape in ((1, 1, 12, 16), (1, 12, 16, 1)):
        np.testing.assert_array_equal(hf.depth_of_field(img[0], depth[0].reshape(shape), **kw),
                                      one)
    np.testing.assert_array_equal(hf.depth_of_field(img, depth[:, None], **kw),
                                  hf.depth_of_field(img, depth, **kw))
    still = hf.depth_of_field(img, depth[0], **kw)  # one depth for the batch, batched too
    for shape in ((1, 12, 16), (1, 1, 12, 16)):
        np.testing.assert_array_equal(hf.depth_of_field(img, depth[0].reshape(shape), **kw),
                                      still)
    with pytest.raises(ValueError, match=r"^depth has shape \(3, 2, 12, 8\); it must match"):
        hf.depth_of_field(img, depth.reshape(3, 2, 12, 8), **kw)  # (not only unit axes)
    with pytest.raises(ValueError, match=r"^focus_distance has shape \(3, 3\); give one "
                                         r"distance, or a 1-D list of one for each of the 3 "
                                         r"frames$"):
        hf.depth_of_field(img, depth, **{**kw, "focus_distance": np.ones((3, 3))})
    pull = np.array([1.0, 1.5, 2.0])  # a tool's column or row of them: as the list
    for shape in ((3, 1), (1, 3)):
        np.testing.assert_array_equal(
            hf.depth_of_field(img, depth, **{**kw, "focus_distance": pull.reshape(shape)}),
            hf.depth_of_field(img, depth, **{**kw, "focus_distance": list(pull)}))
    far = depth[0].astype(np.float64)
    far[0, 0] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = hf.depth_of_field(img[0], far, **kw)
    np.testing.assert_array_equal(got, hf.depth_of_field(img[0], np.where(far > 1e30, np.inf,
                                                                            far), **kw))
    with pytest.raises(ValueError, match=r"^frames has shape \(0, 3\): no pixels \(an empty "
                                         r"array\)$"):
        hf.to_linear(np.zeros((0, 3), np.uint8))
