import numpy as np

import hfrender as hf

LENS = hf.Lens(1.0, 1.4, sensor_width_mm=9.0)


def test_fuse_is_defocus_per_sub_frame_then_weighted_windows(rng):
    n, h, w = 7, 24, 24
    frames = rng.random((n, h, w, 3), dtype=np.float32)
    depth = rng.choice([1.0, 2.5, np.inf], size=(n, 1, 1)).astype(np.float32) * np.ones((h, w))
    depth[:, 8:16, 8:16] = 0.6  # a near square in every sub-frame
    hyper = hf.HyperFrame(frames, depth.astype(np.float32))
    ww = hf.WindowWeights.from_dense(np.array([
        [0.2, 0.3, 0.5, 0, 0, 0, 0],
        [0, 0, 0.25, 0.25, 0.25, 0.25, 0],  # overlapping windows share frame 2
        [0, 0, 0, 0, 0, 0.4, 0.6],
    ]))
    out = hf.fuse(hyper, ww, lens=LENS)
    dof = np.stack([hf.depth_of_field(frames[j], depth[j], focus_distance=1.0, f_stop=1.4,
                                      sensor_width_mm=9.0) for j in range(n)])
    expected = np.einsum("kj,jhwc->khwc", ww.to_dense(n), dof)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_fuse_uint8_rgba_frames_like_the_renderer_writes(rng):
    frames = rng.integers(0, 256, (8, 10, 12, 4), dtype=np.uint8)
    hyper = hf.HyperFrame(frames, np.full((8, 10, 12), 1.0, np.float32))
    ww = hf.WindowWeights.sliding(hf.curve_weights("box", 4), 2, 4)
    out = hf.fuse(hyper, ww, lens=LENS)  # all in focus: pure motion blur
    np.testing.assert_array_equal(out, hf.motion_blur(frames, 4))
    assert out.dtype == np.uint8 and out.shape == (2, 10, 12, 4)


def test_window_weights_dense_round_trip(rng):
    dense = np.zeros((3, 9))
    dense[0, 0:3] = rng.random(3) + 0.1
    dense[1, 2:7] = rng.random(5) + 0.1
    dense[2, 6:9] = rng.random(3) + 0.1
    ww = hf.WindowWeights.from_dense(dense)
    assert ww.starts.tolist() == [0, 2, 6] and ww.width == 5
    np.testing.assert_array_equal(ww.to_dense(9), dense)


def test_a_bad_lens_sequence_names_the_item_that_is_no_lens(rng):
    """``lens=[Lens, None]`` and ``lens="ab"`` both said "a sequence needs one Lens per
    frame (2); got 2 items" (a trial): a string is no sequence of lenses, and an item that
    is no lens is named."""
    import pytest

    hyper = hf.HyperFrame(rng.random((2, 6, 8, 3), dtype=np.float32),
                          np.full((2, 6, 8), 2.0, np.float32))
    ww = hf.WindowWeights.from_dense(np.array([[0.5, 0.5]]))
    with pytest.raises(TypeError, match=r"^lens\[1\]=None must be a hf\.Lens \(one per "
                                        r"frame\)$"):
        hf.fuse(hyper, ww, lens=[LENS, None])
    with pytest.raises(TypeError, match=r"^lens='ab' must be a hf\.Lens, a sequence of one "):
        hf.fuse(hyper, ww, lens="ab")
    for zero_d, said in ((np.array(2), "array(2)"),  # (was: "iteration over a 0-d array")
                         (np.array(LENS, object), "array(Lens(focus_distance=1.0, f_stop=1.4, ")):
        with pytest.raises(hf.InputError) as e:
            hf.fuse(hyper, ww, lens=zero_d)
        line = str(e.value)  # one line, a long value cut short (its repr was two lines)
        assert line.startswith(f"lens={said}") and "\n" not in line
        assert line.endswith(" must be a hf.Lens, a sequence of one per frame, or None")
    with pytest.raises(ValueError, match=r"^lens: a sequence needs one Lens per frame \(2\); "
                                         r"got 3$"):
        hf.fuse(hyper, ww, lens=[LENS] * 3)
    np.testing.assert_array_equal(hf.fuse(hyper, ww, lens=[LENS, LENS]),
                                  hf.fuse(hyper, ww, lens=LENS))


def test_linear_light_is_true_or_false_as_motion_blur_takes_it(rng):
    """fuse took any linear_light as its truth (a trial: "no", 0.0 and None blended uint8
    code values as the other effects refuse them, or in linear light for "no"): one line
    naming it now, NumPy's bool taken as motion_blur takes it."""
    import pytest

    frames = rng.integers(0, 256, (4, 6, 8, 3), dtype=np.uint8)
    hyper = hf.HyperFrame(frames)
    ww = hf.WindowWeights.sliding(hf.curve_weights("box", 2), 2, 2)
    for bad in ("no", None, 0.0):
        with pytest.raises(hf.InputTypeError) as err:
            hf.fuse(hyper, ww, linear_light=bad)
        assert str(err.value) == f"linear_light={bad!r} must be True or False"
    codes = hf.fuse(hyper, ww, linear_light=np.False_)
    np.testing.assert_array_equal(codes, hf.motion_blur(frames, 2, linear_light=False))
    assert not np.array_equal(codes, hf.fuse(hyper, ww))  # (the two blends differ here)


def test_planes_and_shutter_that_are_no_arrays_are_one_line(rng):
    """A hyperframe's depth or velocity that is no array, frames that are a NumPy number,
    and a shutter of text: were AttributeError "'list' object has no attribute 'shape'"
    (from deep in the depth check), IndexError "tuple index out of range" and NumPy's
    ValueError "could not convert string to float: 'abc'"."""
    import pytest

    frames = rng.random((2, 6, 8, 3), dtype=np.float32)
    with pytest.raises(hf.InputTypeError) as err:
        hf.HyperFrame(frames, depth=[2.0, 2.0])
    assert str(err.value) == ("HyperFrame depth is a list; expected an (N, H, W) array of "
                              "metres (a list of depth frames: numpy.stack(depths))")
    with pytest.raises(hf.InputTypeError) as err:
        hf.HyperFrame(frames, velocity=0.5)
    assert str(err.value) == ("HyperFrame velocity is a float; expected an (N, H, W, 2) array "
                              "(a list of velocity frames: numpy.stack(velocities))")
    with pytest.raises(hf.InputTypeError) as err:
        hf.HyperFrame(np.float32(0.5))
    assert str(err.value) == ("HyperFrame frames is a float32 of shape (); expected an "
                              "(N, H, W, C) array")
    t = np.arange(2, dtype=np.float64)
    hyper = hf.HyperFrame(frames, np.full((2, 6, 8), 2.0, np.float32), t,
                          np.zeros((2, 6, 8, 2), np.float32))
    ww = hf.WindowWeights(np.arange(2), np.ones((2, 1)))
    with pytest.raises(hf.InputTypeError) as err:
        hf.fuse(hyper, ww, shutter="abc")
    assert str(err.value) == ("shutter='abc' is no (open, close) times; expected (2, 2) "
                              "seconds with close >= open")
    with pytest.raises(hf.InputError) as err:  # (the shape's line, as it was)
        hf.fuse(hyper, ww, shutter=np.zeros(2))
    assert str(err.value) == ("shutter has shape (2,); expected (2, 2) (open, close) times "
                              "with close >= open")


def test_big_endian_frames_fuse_as_motion_blur_takes_them(rng):
    """16-bit frames read big-endian (a PNG's or DPX's bytes through np.frombuffer('>u2'))
    are taken by motion_blur, but a HyperFrame of them was refused ('hyperframe.frames has
    dtype >u2; allowed: uint8, uint16, float32') and HyperFrameBuilder.push said 'dtype >u2;
    this pool holds uint16 frames' (an array-user's sweep): both take them, as their
    values, the caller's arrays untouched."""
    frames = rng.integers(0, 65536, (4, 3, 5, 3), dtype=np.uint16)
    big = frames.astype(">u2")
    kept = big.copy()
    want = (frames[0::2].astype(np.float64) + frames[1::2]) / 2  # each pair's mean code
    ww = hf.WindowWeights.sliding(np.array([0.5, 0.5]), 2, 2)
    got = hf.fuse(hf.HyperFrame(big), ww, linear_light=False)
    assert got.dtype == np.uint16
    assert np.abs(got - want).max() <= 0.5
    builder = hf.HyperFrameBuilder.create((3, 5, 3), np.uint16, granularity=4)
    hyper = [builder.push(f, t=float(j)) for j, f in enumerate(big)][-1]
    np.testing.assert_array_equal(hyper.frames, frames)
    np.testing.assert_array_equal(hf.fuse(hyper, ww, linear_light=False), got)
    np.testing.assert_array_equal(big, kept)
    assert big.dtype.str == ">u2"


def _moving(rng, n=3, h=5, w=12):
    """A reconstructing hyperframe's planes: a bar moving right over a still background."""
    frames = rng.random((n, h, w, 4), dtype=np.float32)
    frames[..., 3] = 1.0
    depth = np.full((n, h, w), 6.0, np.float32)
    depth[:, :, 4:7] = 2.0
    velocity = np.zeros((n, h, w, 2), np.float32)
    velocity[:, :, 4:7, 0] = 120.0
    return frames, depth, velocity, np.arange(n) / 180.0


def test_masked_planes_with_nothing_masked_reconstruct_as_plain_arrays(rng):
    """fuse checked the planes (interop.unmasked) but gave reconstruct the raw ones: a
    masked depth and velocity with nothing masked reached the CPU reconstruct as
    MaskedArrays (NumPy's UserWarning "'partition' will ignore the 'mask'", a review's
    find). Now the checked, plain arrays go on: no warning, the plain arrays' result."""
    import warnings

    frames, depth, velocity, t = _moving(rng)
    ww = hf.WindowWeights(np.array([0]), np.full((1, 3), 1 / 3))
    spans = [(0.0, 3 / 180)]
    want = hf.fuse(hf.HyperFrame(frames, depth, t, velocity), ww, backend="cpu", shutter=spans)
    masked = hf.HyperFrame(frames, np.ma.masked_array(depth), t, np.ma.masked_array(velocity))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = hf.fuse(masked, ww, backend="cpu", shutter=spans)
        out = np.zeros_like(want)
        assert hf.fuse(masked, ww, backend="cpu", shutter=spans, out=out) is out
    assert type(got) is np.ndarray and not np.array_equal(want, frames.mean(0)[None])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(out, want)


def test_a_plane_fuse_does_not_read_is_not_refused_for_its_mask(rng):
    """A velocity with values masked was refused with shutter=None, where fuse never reads
    it (nor depth without lens= or shutter=): now each plane is checked where it is read,
    and refused there as before."""
    import pytest

    frames, depth, velocity, t = _moving(rng)
    ww = hf.WindowWeights(np.array([0]), np.full((1, 3), 1 / 3))
    mask = np.zeros(velocity.shape, bool)
    mask[1, 2, 5] = True  # one pixel's (x, y)
    holes = hf.HyperFrame(frames, np.ma.masked_array(depth, depth > 5), t,
                          np.ma.masked_array(velocity, mask))
    np.testing.assert_allclose(hf.fuse(holes, ww, backend="cpu"), frames.mean(0)[None],
                               rtol=1e-6)
    holes.depth = depth
    with pytest.raises(hf.InputError) as err:
        hf.fuse(holes, ww, backend="cpu", shutter=[(0.0, 3 / 180)])
    assert str(err.value) == ("hyperframe.velocity is a masked array with 2 of 360 values "
                              "masked; hfrender reads every value, the masked ones too: give "
                              "hyperframe.velocity.filled(v), v what they stand for")


def test_a_nan_depth_under_a_shutter_is_refused_as_under_a_lens(rng):
    """With shutter= the depth plane went to reconstruct unchecked (validate.depth ran only
    for lens=): a NaN was taken. Now it is the depth line, as under a lens."""
    import pytest

    frames, depth, velocity, t = _moving(rng)
    depth[1, 3, 7] = np.nan
    hyper = hf.HyperFrame(frames, depth, t, velocity)
    ww = hf.WindowWeights(np.array([0]), np.full((1, 3), 1 / 3))
    line = ("hyperframe.depth frame 1 has a NaN at row 3, column 7; depth must be a distance "
            "> 0 (use inf for sky)")
    for kw in ({"lens": LENS}, {"shutter": [(0.0, 3 / 180)]}):
        with pytest.raises(hf.InputError) as err:
            hf.fuse(hyper, ww, backend="cpu", **kw)
        assert str(err.value) == line
