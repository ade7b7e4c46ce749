"""An integrator's trial of the effects library: what a pipeline importing hfrender met."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hfrender as hf


def test_exact_dof_of_light_near_float32_max_warns_nothing():
    """A frame of light near float32's top (the exact gather takes it) gave NumPy's
    'overflow encountered in scalar multiply' from inside the library (the cap on what a
    pixel sees past its edge, 4x the frame's level, overflowed to inf)."""
    h, w = 48, 64
    frame = np.full((h, w, 3), 3e38, np.float32)
    depth = np.full((h, w), 5.0, np.float32)
    depth[:, :20] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = hf.depth_of_field(frame, depth, focus_distance=5.0, f_stop=1.4,
                                focal_length_mm=100, method="exact")
    assert np.isfinite(out).all()
    assert out.min() == pytest.approx(3e38, rel=1e-4)


def test_backend_chosen_by_the_environment_says_so(monkeypatch):
    """HFRENDER_BACKEND=cuda on a machine without CUDA: the error named no variable, and a
    caller who passed no backend could not tell where 'cuda' came from."""
    import hfrender.backends as backends
    from hfrender.errors import BackendUnavailable

    def no_cuda(name):
        raise BackendUnavailable("no CUDA driver: libcuda.so.1 cannot be loaded")

    monkeypatch.setattr(backends, "load", no_cuda)
    monkeypatch.setenv("HFRENDER_BACKEND", "cuda")
    frames = np.zeros((2, 4, 4, 3), np.uint8)
    with pytest.raises(BackendUnavailable) as info:
        hf.motion_blur(frames, window=2)
    assert str(info.value) == ("no CUDA driver: libcuda.so.1 cannot be loaded "
                               "(HFRENDER_BACKEND=cuda chose it: unset it, or set it to "
                               "auto, to run on the CPU here)")
    with pytest.raises(BackendUnavailable) as info:  # named by the caller: as it was
        hf.motion_blur(frames, window=2, backend="cuda")
    assert str(info.value) == "no CUDA driver: libcuda.so.1 cannot be loaded"


def test_one_frame_of_the_wrong_layout_is_told_its_own_fix():
    """One frame to depth_of_field: channels first (C, H, W) was told torch's permute of a
    batch, ``permute(0, 2, 3, 1)`` (an error for a 3-D tensor), and a grey (H, W) frame got
    no hint at all."""
    depth = np.full((12, 16), 2.0, np.float32)
    kw = dict(focus_distance=2.0, f_stop=2.8)
    with pytest.raises(hf.InputError) as info:
        hf.depth_of_field(np.zeros((3, 12, 16), np.uint8), depth, **kw)
    assert str(info.value).endswith("channels first? move them last: frames.permute(1, 2, 0) "
                                    "(torch) or numpy.moveaxis(frames, -3, -1)")
    with pytest.raises(hf.InputError) as info:  # a batch: as it was
        hf.motion_blur(np.zeros((2, 3, 12, 16), np.uint8), window=2)
    assert "frames.permute(0, 2, 3, 1) (torch)" in str(info.value)
    with pytest.raises(hf.InputError) as info:
        hf.depth_of_field(np.zeros((12, 16), np.uint8), depth, **kw)
    assert str(info.value) == ("frames must have shape (N, H, W, C) or (H, W, C); got 2-D "
                               "shape (12, 16) (one (H, W) grey frame: frames[..., None])")
    with pytest.raises(hf.InputError) as info:  # motion_blur takes no single frame: its
        hf.motion_blur(np.zeros((12, 16), np.uint8), window=2)  # [..., None] was refused too
    assert str(info.value) == ("frames must have shape (N, H, W, C); got 2-D shape (12, 16) "
                               "(one (H, W) grey frame: a clip of them is "
                               "numpy.stack(frames)[..., None])")


@pytest.mark.parametrize("kw, kind, text", [
    ({"frame_shape": (4, 4, 2)}, hf.InputError,
     "frame_shape=(4, 4, 2) must be (H, W, C): whole sizes >= 1, C 1 (gray), 3 (RGB) or 4 "
     "(RGBA)"),
    ({"frame_shape": (4.5, 4, 3)}, hf.InputError,
     "frame_shape=(4.5, 4, 3) must be (H, W, C): whole sizes >= 1, C 1 (gray), 3 (RGB) or 4 "
     "(RGBA)"),
    ({"capacity": 2.5}, hf.InputTypeError, "capacity=2.5 must be an integer >= 1"),
    ({"capacity": "4"}, hf.InputTypeError, "capacity='4' must be an integer >= 1"),
    ({"max_in_flight": 1.5}, hf.InputTypeError, "max_in_flight=1.5 must be an integer >= 1"),
    ({"slots": 0}, hf.InputError, "slots=0 must be an integer >= 1"),
])
def test_a_pool_of_frames_the_fusion_cannot_take_is_refused_when_made(kw, kind, text):
    """HyperFramePool took (H, W, 2) frames (refused only at fuse, after a stream was
    pushed), cut a capacity of 2.5 to 2, and met '4' with a bare TypeError of '<'."""
    args = {"frame_shape": (4, 4, 3), "dtype": np.uint8, **kw}
    with pytest.raises(kind) as info:
        hf.HyperFramePool(**args)
    assert str(info.value) == text


def test_a_pool_takes_numpy_sizes():
    pool = hf.HyperFramePool(np.zeros((4, 6, 1)).shape, np.uint8, capacity=np.int64(2),
                             slots=1)
    assert (pool.frame_shape, pool.capacity) == ((4, 6, 1), 2)


def test_a_generator_of_frames_is_told_how_to_pass_it():
    """A pipeline's frames often come from a generator: the error named the type alone."""
    frames = (np.zeros((4, 4, 3), np.uint8) for _ in range(3))
    with pytest.raises(hf.InputTypeError) as info:
        hf.motion_blur(frames, window=2)
    assert str(info.value) == (
        "frames must be a NumPy array, an object with __dlpack__ (torch, JAX, CuPy) or the "
        "buffer protocol (memoryview), or a list of frames; got builtins.generator (frames "
        "one at a time: "
        "numpy.stack(list(frames)), or hf.HyperFrameBuilder to blend a stream as it comes)")


def test_srgb_floats_through_16_bit_codes_as_the_readme_says():
    """float32 frames are linear light whatever linear_light says (nothing to decode); the
    README's way for sRGB-encoded floats, 16-bit codes, blends them in linear light."""
    rng = np.random.default_rng(7)
    x = rng.random((4, 6, 8, 3)).astype(np.float32)  # sRGB-encoded, 0..1
    assert np.array_equal(hf.motion_blur(x, window=2),
                          hf.motion_blur(x, window=2, linear_light=False))
    codes = (x * 65535).round().astype(np.uint16)
    out = hf.motion_blur(codes, window=2) / 65535
    lin = hf.to_linear(codes).astype(np.float64)
    mean = (lin[0::2] + lin[1::2]) / 2
    want = np.where(mean <= 0.0031308, 12.92 * mean, 1.055 * mean ** (1 / 2.4) - 0.055)
    assert np.abs(out - want).max() < 1.5 / 65535


def test_a_hyperframe_of_a_list_of_frames_is_one_line():
    frames = [np.zeros((4, 4, 3), np.uint8)] * 2
    with pytest.raises(hf.InputTypeError) as info:
        hf.HyperFrame(frames)
    assert str(info.value) == ("HyperFrame frames is a list; expected an (N, H, W, C) array "
                               "(a list of frames: numpy.stack(frames))")
