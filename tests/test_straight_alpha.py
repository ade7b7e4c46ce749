"""Straight alpha (``premultiplied=False``, as PNG files hold it): premultiplied and made
straight again in the space the frames are blended in, and not rounded to the frames'
codes in between (an effects-library trial: with ``linear_light=False`` the colour was
premultiplied in linear light and blended on codes, darkening every soft edge; and a still
clip's colour moved by up to 54 codes at alpha 1)."""

import numpy as np
import pytest

import hfrender as hf
from hfrender.color import premultiply, straight_alpha


@pytest.mark.parametrize("linear_light", [True, False])
def test_a_transparent_frames_colour_does_not_count(rng, linear_light):
    colour = rng.integers(0, 256, 3)
    frames = np.zeros((2, 3, 5, 4), np.uint8)
    frames[0, ..., :3], frames[0, ..., 3] = colour, 255
    frames[1, ..., :3] = rng.integers(0, 256, 3)  # under alpha 0: no light at all
    out = hf.motion_blur(frames, window=2, linear_light=linear_light, premultiplied=False)
    assert out.shape == (1, 3, 5, 4)
    np.testing.assert_array_equal(out[0, ..., :3], np.broadcast_to(colour, (3, 5, 3)))
    assert (out[0, ..., 3] == 128).all()  # 127.5 to nearest, half up


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("linear_light", [True, False])
def test_a_still_clip_of_straight_alpha_comes_back_as_it_was(rng, dtype, linear_light):
    top = np.iinfo(dtype).max
    frame = rng.integers(0, top + 1, (4, 64, 4)).astype(dtype)
    frame[..., 3] = np.array([1, 3, 5, 10, 32, 128, 200, top], dtype).repeat(8)
    frames = np.stack([frame] * 3)
    out = hf.motion_blur(frames, window=2, stride=1, linear_light=linear_light,
                         premultiplied=False)
    np.testing.assert_array_equal(out, frames[:2])  # was 54 codes off at alpha 1


def test_a_still_float_clip_of_straight_alpha_comes_back_within_an_ulp(rng):
    """As motion_blur's docstring says (an audit found 241 of 600 values 1 ulp off against
    "as they were"); transparent pixels come back 0."""
    frame = rng.random((4, 50, 4), dtype=np.float32)
    frame[0, :5, 3] = 0  # transparent
    frames = np.stack([frame] * 3)
    out = hf.motion_blur(frames, window=2, stride=1, premultiplied=False)
    seen = frame[..., 3] > 0
    np.testing.assert_array_max_ulp(out[:, seen], frames[:2, seen], maxulp=1)
    assert (out[:, ~seen] == 0).all()


def test_in_focus_pixels_of_straight_alpha_are_never_blurred(rng):
    img = rng.integers(0, 256, (24, 32, 4)).astype(np.uint8)
    img[..., 3] = rng.integers(1, 12, (24, 32))  # a faint, soft matte
    depth = np.full((24, 32), 2.0, np.float32)
    out = hf.depth_of_field(img, depth, focus_distance=2.0, f_stop=2.8, premultiplied=False)
    np.testing.assert_array_equal(out, img)


def test_code_value_premultiplication_is_on_codes(rng):
    """What ``fx --gamma-space`` blends footage with alpha in: codes times alpha."""
    frame = rng.integers(0, 256, (6, 7, 4)).astype(np.uint8)
    codes = premultiply(frame, linear_light=False)
    expect = np.rint(frame[..., :3] * (frame[..., 3:] / 255.0))
    np.testing.assert_array_equal(codes[..., :3], expect)
    assert np.array_equal(codes[..., 3], frame[..., 3])
    opaque = frame.copy()
    opaque[..., 3] = 255
    assert np.array_equal(straight_alpha(premultiply(opaque, False), False), opaque)
    assert not np.array_equal(premultiply(frame, True), codes)  # linear light is another



@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("linear_light", [True, False])
def test_an_opaque_clip_blends_the_same_straight_or_premultiplied(rng, dtype, linear_light):
    """Opaque, the two are one: the same rounding (the backends', halves up), where the
    first version rounded halves to even (14% of the codes one off)."""
    top = np.iinfo(dtype).max
    frames = rng.integers(0, top + 1, (4, 32, 64, 4)).astype(dtype)
    frames[..., 3] = top
    straight = hf.motion_blur(frames, window=2, stride=1, linear_light=linear_light,
                              premultiplied=False)
    premultiplied = hf.motion_blur(frames, window=2, stride=1, linear_light=linear_light)
    off = np.abs(straight.astype(int) - premultiplied)
    assert off.max() <= 1
    # 8-bit linear light: the premultiplied path's sums are whole 16-bit steps, these floats
    assert (off > 0).mean() <= (0.005 if dtype == np.uint8 and linear_light else 0.0)


@pytest.mark.parametrize("linear_light", [True, False])
def test_in_focus_float_pixels_of_straight_alpha_come_back_bit_for_bit(rng, linear_light):
    """float32 colour premultiplied and divided by its alpha again moved by a unit in the
    last place (0.9721249 -> 0.9721248 at alpha 0.3): the in-focus pixels of a straight
    frame came back changed, 166 of 2000 here, against "never blurred (bit for bit)"."""
    img = rng.random((40, 50, 4)).astype(np.float32)
    img[..., 3] = rng.choice(np.float32([0.3, 0.5, 0.7, 1.0]), (40, 50))
    depth = np.full((40, 50), 8.0, np.float32)
    depth[:, :25] = 2.0  # in focus: never blurred
    out = hf.depth_of_field(img, depth, focus_distance=2.0, f_stop=1.4, focal_length_mm=85,
                            premultiplied=False, linear_light=linear_light, backend="cpu")
    np.testing.assert_array_equal(out[:, :25], img[:, :25])
    assert np.abs(out[:, 35:] - img[:, 35:]).max() > 0.1  # the rest is blurred
