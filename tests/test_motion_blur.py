import numpy as np
import pytest
from conftest import reference_blur, srgb_encode
from hypothesis import given, settings
from hypothesis import strategies as st

import hfrender as hf


def test_box_blur_of_moving_edge_is_a_linear_ramp():
    # a white half-plane whose edge moves 3 px per frame; float32 = linear light
    width, speed, window = 80, 3, 8
    x = np.arange(width)
    frames = np.stack([(x < 20 + speed * j).astype(np.float32) for j in range(window)])
    frames = np.repeat(frames[:, None, :, None], 4, axis=1)  # (8, 4, 80, 1)
    out = hf.motion_blur(frames, window)[0, 0, :, 0]
    # pixel x is white in the frames j with x < 20 + 3j: all 8 left of 20, then one frame
    # fewer every 3 px: a staircase ramp from 1 to 0 over the distance the edge travels
    covered = np.clip(window - np.floor((x - 20) / speed) - 1, 0, window)
    np.testing.assert_allclose(out, covered / window, atol=1e-6)
    ramp = out[(out > 0) & (out < 1)]
    assert len(ramp) == speed * (window - 1)  # the edge's travel between first and last frame
    assert np.all(np.diff(out) <= 0)


def test_linear_light_and_code_value_blending_differ_as_srgb_says():
    frames = np.zeros((2, 1, 1, 3), np.uint8)
    frames[1] = 255
    code = hf.motion_blur(frames, 2, linear_light=False)[0, 0, 0]
    light = hf.motion_blur(frames, 2, linear_light=True)[0, 0, 0]
    assert code.tolist() == [128, 128, 128]  # 127.5 rounds up
    expected = int(np.floor(255 * srgb_encode(0.5) + 0.5))  # 0.7354 * 255 = 187.5
    assert expected == 188
    assert light.tolist() == [expected] * 3


def test_alpha_is_blended_linearly_in_linear_light_mode():
    frames = np.zeros((2, 1, 1, 4), np.uint8)
    frames[1] = 255
    out = hf.motion_blur(frames, 2)[0, 0, 0]
    assert out.tolist() == [188, 188, 188, 128]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("linear", [True, False])
@pytest.mark.parametrize("weights", ["box", "triangle", "gaussian"])
def test_matches_float64_reference(rng, dtype, channels, linear, weights):
    n, window, stride = 11, 4, 1 if weights == "box" else 2
    if dtype == np.float32:
        frames = rng.random((n, 5, 7, channels), dtype=np.float32)
    else:
        frames = rng.integers(0, np.iinfo(dtype).max + 1, (n, 5, 7, channels)).astype(dtype)
    out = hf.motion_blur(frames, window, stride=stride, weights=weights, linear_light=linear)
    ref = reference_blur(frames, hf.curve_weights(weights, window), stride, linear)
    assert out.dtype == frames.dtype and out.shape == ref.shape
    tol = 1e-5 if dtype == np.float32 else 1  # one code value (LUT quantisation)
    np.testing.assert_allclose(out.astype(np.float64), ref, atol=tol, rtol=1e-5)
    if dtype != np.float32 and not linear and weights == "box":
        assert np.array_equal(out, ref)  # integer running sums are exact


def test_running_sums_equal_direct_sums_over_a_long_sequence(rng):
    frames = rng.integers(0, 256, (300, 3, 4, 3), dtype=np.uint8)
    for linear in (True, False):
        box = hf.motion_blur(frames, 16, stride=1, linear_light=linear)
        ref = reference_blur(frames, np.ones(16), 1, linear)
        assert np.abs(box.astype(int) - ref).max() <= (1 if linear else 0)


def test_user_weights_are_normalised(rng):
    frames = rng.integers(0, 256, (6, 2, 2, 3), dtype=np.uint8)
    a = hf.motion_blur(frames, 3, weights=[1, 2, 1], linear_light=False)
    b = hf.motion_blur(frames, 3, weights=np.array([10.0, 20.0, 10.0]), linear_light=False)
    assert np.array_equal(a, b)
    ref = reference_blur(frames, [0.25, 0.5, 0.25], 3, False)
    assert np.abs(a.astype(int) - ref).max() <= 1


def test_stride_defaults_to_window_and_counts_outputs(rng):
    frames = rng.random((10, 2, 2, 1), dtype=np.float32)
    assert hf.motion_blur(frames, 3).shape[0] == 3  # (10 - 3) // 3 + 1
    assert hf.motion_blur(frames, 3, stride=1).shape[0] == 8
    assert hf.motion_blur(frames, 3, stride=4).shape[0] == 2
    np.testing.assert_allclose(hf.motion_blur(frames, 3, stride=4)[1], frames[4:7].mean(0),
                               rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 9), h=st.integers(1, 4), w=st.integers(1, 4),
       c=st.sampled_from([1, 3, 4]), dtype=st.sampled_from(["uint8", "uint16", "float32"]),
       data=st.data())
def test_shape_and_dtype_rules(n, h, w, c, dtype, data):
    window = data.draw(st.integers(1, n))
    stride = data.draw(st.integers(1, 5))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    frames = (rng.random((n, h, w, c)) * (1 if dtype == "float32" else 255)).astype(dtype)
    out = hf.motion_blur(frames, window, stride=stride, linear_light=False)
    m = (n - window) // stride + 1
    assert out.shape == (m, h, w, c) and out.dtype == frames.dtype
    # a convex blend never leaves the range of its window
    for k in range(m):
        win = frames[k * stride : k * stride + window].astype(np.float64)
        assert np.all(out[k] >= win.min(0) - 1e-6) and np.all(out[k] <= win.max(0) + 1e-6)


@pytest.mark.parametrize("weights", ["box", "triangle"])
@pytest.mark.parametrize("linear", [True, False])
def test_frames_large_enough_for_parallel_bands_give_the_same_result(rng, weights, linear):
    from hfrender.backends.cpu.blur import MIN_PARALLEL_BYTES

    frames = rng.integers(0, 256, (6, 97, 1024, 3), dtype=np.uint8)  # odd rows per band
    assert frames[0].nbytes >= MIN_PARALLEL_BYTES
    out = hf.motion_blur(frames, 3, stride=1, weights=weights, linear_light=linear)
    ref = reference_blur(frames, hf.curve_weights(weights, 3), 1, linear)
    assert np.abs(out.astype(int) - ref).max() <= (0 if weights == "box" and not linear else 1)


# bytes of scratch per frame element that each box path keeps for a whole call
# (accumulator, decoded frame, quotient, ...); any temporary on top would show up
BOX_SCRATCH = {("uint8", True): 4 + 2 + 2 + 1, ("uint8", False): 2,
               ("uint16", True): 8 + 4 + 4 + 1 + 4 + 1, ("float32", True): 8 + 4 + 4}
BOX_KEPT = {("uint8", True): 4 + 2 + 2 + 1, ("uint8", False): 2, ("uint16", True): 8 + 4 + 4,
            ("float32", True): 8 + 4 + 4}  # of which kept between calls


@pytest.mark.parametrize("dtype, linear", list(BOX_SCRATCH))
def test_box_blur_allocates_nothing_per_output_frame(rng, dtype, linear):
    import tracemalloc

    from hfrender.backends.cpu import blur
    from hfrender.backends.cpu.blur import MIN_PARALLEL_BYTES
    from hfrender.backends.cpu.color import LOOKUP_CHUNK

    rows = 200 if dtype == "uint8" else 50  # one band: frames under MIN_PARALLEL_BYTES
    scale = 1 if dtype == "float32" else 200
    frames = (rng.random((40, rows, 320, 4)) * scale).astype(dtype)
    assert frames[0].nbytes < MIN_PARALLEL_BYTES
    hf.motion_blur(frames[:8], 4, stride=1, linear_light=linear)  # warm the tables
    blur._local.__dict__.clear()  # no scratch kept from earlier calls on this thread

    def peak_above_output() -> int:
        tracemalloc.start()
        out = hf.motion_blur(frames, 4, stride=1, linear_light=linear)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak - out.nbytes

    index = 8 * LOOKUP_CHUNK if (dtype, linear) != ("uint8", False) else 0
    expected = BOX_SCRATCH[dtype, linear] * frames[0].size + index
    # slack: NumPy's casting buffers (64 KiB); a frame-sized temporary is 128 KiB or more
    first = peak_above_output()
    assert first < expected + 96 * 1024, (first, expected)
    # the running sums' scratch is kept per thread: a streaming caller's next call on
    # frames of the same shape allocates none of it again (the float paths' colour
    # transfer still has its own, per call)
    kept = BOX_KEPT[dtype, linear] * frames[0].size + (index if dtype == "uint8" else 0)
    again = peak_above_output()
    assert again < first - kept + 96 * 1024, (again, first, kept)


def test_scratch_is_kept_per_thread_up_to_a_bound(monkeypatch):
    import threading

    from hfrender.backends.cpu import blur
    from hfrender.limits import usable_cores

    monkeypatch.setattr(blur, "SCRATCH_KEEP_BYTES", (1 << 20) * usable_cores())
    blur._local.__dict__.clear()  # 1 MiB a thread from here on
    a = blur.scratch("acc", (256, 1024), np.uint16)  # 512 KiB: kept
    assert a.shape == (256, 1024) and a.dtype == np.uint16
    assert np.shares_memory(blur.scratch("acc", (255, 1024), np.uint16), a)  # a band a row less
    c = blur.scratch("acc", (256, 1024), np.uint32)  # 1 MiB: the buffer grows
    assert not np.shares_memory(c, a)
    assert np.shares_memory(blur.scratch("acc", (256, 1024), np.uint16), c)
    big = blur.scratch("lin", (512, 1024), np.uint16)  # 1 MiB more: over the share, not kept
    assert not np.shares_memory(blur.scratch("lin", (512, 1024), np.uint16), big)
    other = []
    t = threading.Thread(target=lambda: other.append(blur.scratch("acc", (4,), np.uint8)))
    t.start()
    t.join()
    assert not np.shares_memory(blur.scratch("acc", (4,), np.uint8), other[0])  # its own
    blur.release_scratch()
    assert not np.shares_memory(blur.scratch("acc", (256, 1024), np.uint16), c)


def test_band_threads_are_started_once_per_process(monkeypatch):
    import os
    import threading
    import time

    from hfrender.backends.cpu import blur

    pool = blur._band_pool()
    assert blur._band_pool() is pool
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as in a forked child: its own threads
    assert blur._band_pool() is not pool
    monkeypatch.undo()
    with blur._pools_lock:  # a fork while another thread held the lock: the child's is free
        blur._after_fork()
        assert not blur._pools_lock.locked() and blur._pools == {}
    # a band that fails is raised only once every band has finished writing its rows
    done = threading.Event()

    def band(f, o):
        if o[0, 0, 0, 0] == 1:
            raise ValueError("band 0 failed")
        time.sleep(0.2)
        done.set()

    frames = np.zeros((1, 64, 2048, 3), np.uint8)
    out = np.zeros_like(frames)
    out[:, :32] = 1
    with pytest.raises(ValueError, match="band 0 failed"):
        blur.in_bands(band, frames, out, workers=2)
    assert done.is_set()


def test_opaque_alpha_stays_opaque_in_linear_light(rng):
    frames = np.full((5, 130, 1024, 4), 255, np.uint8)  # big enough for parallel bands
    frames[..., :3] = rng.integers(0, 256, (5, 130, 1024, 3))
    for weights in ("box", "triangle"):
        out = hf.motion_blur(frames, 2, stride=1, weights=weights)
        assert out[..., 3].min() == 255, weights


def test_box_window_of_three_rounds_exact_halves_up():
    frames = np.array([0, 0, 1, 2, 2], np.uint8).reshape(5, 1, 1, 1)
    frames = frames * 121 // 2  # 0 0 60 121 121: means 20, 60.33, 100.67
    out = hf.motion_blur(frames, 3, stride=1, linear_light=False)[:, 0, 0, 0]
    assert out.tolist() == [20, 60, 101]
    halves = np.array([120, 121], np.uint8).reshape(2, 1, 1, 1)
    assert hf.motion_blur(halves, 2, linear_light=False)[0, 0, 0, 0] == 121  # 120.5 -> 121


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_weighted_code_value_ties_round_up(rng, dtype):
    # weights 1,3,3,1 (/8): many outputs are exact halves; compare with integer arithmetic
    top = np.iinfo(dtype).max
    frames = rng.integers(0, top + 1, (40, 6, 7, 3)).astype(dtype)
    out = hf.motion_blur(frames, 4, stride=1, weights=[1, 3, 3, 1], linear_light=False)
    f = frames.astype(np.int64)
    s = f[:-3] + 3 * f[1:-2] + 3 * f[2:-1] + f[3:]  # 8 x the exact weighted mean
    exact = (2 * s + 8) // 16  # round half up
    assert np.mean(s % 8 == 4) > 0.05  # the data really has ties
    assert np.array_equal(out, exact)


def test_non_finite_float_frames_are_refused():
    frames = np.zeros((4, 2, 2, 3), np.float32)
    frames[1, 0, 1, 2] = np.inf
    with pytest.raises(ValueError, match=r"frames has 1 non-finite value\(s\) \(NaN or inf\), "
                                         r"the first of frame 1 at row 0, column 1 \(channel 2\);"):
        hf.motion_blur(frames, 2, stride=1)


def test_big_endian_frames_are_read_correctly(rng):
    frames = rng.random((4, 2, 3, 3)).astype(">f4")
    out = hf.motion_blur(frames, 2)
    np.testing.assert_allclose(out, hf.motion_blur(frames.astype(np.float32), 2))


def test_out_receives_the_result_and_is_checked(rng):
    frames = rng.integers(0, 256, (12, 9, 7, 3), dtype=np.uint8)
    want = hf.motion_blur(frames, 4, stride=2)
    out = np.full((5, 9, 7, 3), 7, np.uint8)
    assert hf.motion_blur(frames, 4, stride=2, out=out) is out
    np.testing.assert_array_equal(out, want)
    tri = hf.motion_blur(frames, 4, stride=1, weights="triangle", linear_light=False)
    out9 = np.empty((9, 9, 7, 3), np.uint8)
    hf.motion_blur(frames, 4, stride=1, weights="triangle", linear_light=False, out=out9)
    np.testing.assert_array_equal(out9, tri)
    for bad, what in [(np.empty((4, 9, 7, 3), np.uint8), r"uint8 \(4, 9, 7, 3\)"),
                      (np.empty((5, 9, 7, 3), np.uint16), r"uint16 \(5, 9, 7, 3\)"),
                      (np.empty((5, 9, 7, 3, 2), np.uint8)[..., 0],  # each rule it breaks
                       r"a strided view, not C-contiguous"),  # said (was: its dtype and
                      (np.zeros((5, 9, 7, 3), np.uint8).view(), "read-only")]:  # shape alone)
        bad.flags.writeable = what != "read-only"
        with pytest.raises(ValueError, match=rf"out is {what}; expected a writable C-contiguous "
                                             r"uint8 NumPy array of shape \(5, 9, 7, 3\)"):
            hf.motion_blur(frames, 4, stride=2, out=bad)
    with pytest.raises(TypeError, match=r"^out is list; expected a writable "):
        hf.motion_blur(frames, 4, stride=2, out=[])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("weights,stride,linear", [("box", 1, True), ("box", 1, False),
                                                   ("box", 2, True), ("triangle", 1, True)])
def test_an_out_that_is_part_of_the_input_gets_the_result_numpy_would(rng, dtype, weights,
                                                                       stride, linear):
    """``out=frames[:m]``: the running sums would read frames already overwritten; the
    result is as if computed before any was written, as NumPy's ``out=`` has it."""
    frames = (rng.integers(0, 256, (8, 4, 5, 3), dtype=np.uint8) if dtype == np.uint8
              else rng.random((8, 4, 5, 3), dtype=np.float32))
    want = hf.motion_blur(frames, 2, stride=stride, weights=weights, linear_light=linear)
    m = len(want)
    for start in (0, 1):  # the outputs over the first frames, or shifted by one
        shared = frames.copy()
        out = shared[start:start + m]
        got = hf.motion_blur(shared, 2, stride=stride, weights=weights, linear_light=linear,
                             out=out)
        assert got is out
        np.testing.assert_array_equal(out, want)


def test_fuse_into_an_out_that_is_part_of_the_hyperframe_gets_the_fresh_result(rng):
    from hfrender.hyperframe.frame import HyperFrame

    frames = rng.integers(0, 256, (6, 4, 5, 3), dtype=np.uint8)
    ww = hf.WindowWeights.sliding(np.ones(3) / 3, 4, 1)
    want = hf.fuse(HyperFrame(frames.copy()), ww)
    shared = frames.copy()
    got = hf.fuse(HyperFrame(shared), ww, out=shared[:4])
    np.testing.assert_array_equal(got, want)
    assert np.shares_memory(got, shared)
