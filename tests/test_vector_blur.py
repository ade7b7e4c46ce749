"""hf.vector_blur: motion blur from one sharp frame and its motion vectors (the
reconstruction with one sub-frame at the shutter's middle)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError

H, W = 48, 64
BG, FG = 0.2, 1.0
TOP, LEFT, SIDE = 20, 28, 8  # the square: rows 20..27, columns 28..35


def square(vx: float, vy: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A bright square moving (vx, vy) pixels a frame (y down) in front of a still grey
    background: frame, velocity, depth."""
    f = np.full((H, W, 3), BG, np.float32)
    f[TOP:TOP + SIDE, LEFT:LEFT + SIDE] = FG
    v = np.zeros((H, W, 2), np.float32)
    v[TOP:TOP + SIDE, LEFT:LEFT + SIDE] = (vx, vy)
    d = np.full((H, W), 10.0, np.float32)
    d[TOP:TOP + SIDE, LEFT:LEFT + SIDE] = 2.0
    return f, v, d


def box_profile(speed: float, shutter: float) -> np.ndarray:
    """The row's analytic profile: the square's box (pixel centres covered) convolved with
    a box of ``speed * shutter / 360`` pixels (its displacement over the shutter)."""
    x = np.arange(W, dtype=np.float64)
    half = speed * shutter / 360 / 2
    a = np.clip(x - (LEFT + SIDE - 0.5), -half, half)
    b = np.clip(x - (LEFT - 0.5), -half, half)
    cover = (b - a) / (2 * half)
    return BG * (1 - cover) + FG * cover


def test_square_streaks_over_five_pixels_as_the_box_convolution() -> None:
    f, v, d = square(10, 0)
    out = hf.vector_blur(f, v, d, shutter=180, backend="cpu")
    row = out[TOP + 3, :, 0]
    want = box_profile(10, 180)
    # 180 degrees of 10 px a frame: 5 px of travel, ramps 5 px wide on both sides. The
    # reconstruction samples 6 times over the shutter (one per 5/6 px) at whole pixels:
    # within 0.02 (an eighth of one ramp step, 0.16) of the continuous profile; 0.011 seen
    assert np.abs(row - want).max() < 0.02
    assert row[LEFT - 4] == pytest.approx(BG) and row[LEFT - 2] > BG + 0.1  # 2.5 px out
    assert row[LEFT + SIDE + 1] > BG + 0.1 and row[LEFT + SIDE + 3] == pytest.approx(BG)
    assert abs(out.sum() - f.sum()) / f.sum() < 1e-3  # energy conserved
    still = np.ones((H, W), bool)  # far from the square and its streak: untouched
    still[TOP - 1:TOP + SIDE + 1, LEFT - 4:LEFT + SIDE + 4] = False
    assert np.array_equal(out[still], f[still])


def test_without_depth_moving_is_in_front() -> None:
    """No depth: two layers, what moves over what stands still (was: one plane of equal
    depth, the square's place never uncovered: it stayed at full brightness, energy +1.4%)."""
    f, v, d = square(10, 0)
    with_depth = hf.vector_blur(f, v, d, backend="cpu")
    without = hf.vector_blur(f, v, backend="cpu")
    np.testing.assert_array_equal(without, with_depth)


def test_depth_keeps_a_still_post_in_front() -> None:
    """A still post nearer than the moving square stays sharp with depth; without depth
    the streak passes over it (the documented cost of no depth)."""
    f, v, d = square(10, 0)
    f[:, LEFT + SIDE + 1] = 0.5  # a post just right of the square, where its streak goes
    d[:, LEFT + SIDE + 1] = 1.0
    kept = hf.vector_blur(f, v, d, backend="cpu")
    np.testing.assert_array_equal(kept[:, LEFT + SIDE + 1], f[:, LEFT + SIDE + 1])
    over = hf.vector_blur(f, v, backend="cpu")
    assert over[TOP + 3, LEFT + SIDE + 1, 0] > 0.6


@pytest.mark.parametrize("vy, lit, dark", [(-7, (TOP - 2, LEFT + SIDE), (TOP - 2, LEFT - 1)),
                                           (7, (TOP - 2, LEFT - 1), (TOP - 2, LEFT + SIDE))])
def test_sign_of_y_streaks_along_the_diagonal(vy: float, lit: tuple, dark: tuple) -> None:
    """y down: (7, -7) moves up and to the right, its streak lights the pixels above the
    square's right edge, not those above its left (a centred shutter streaks both ways
    along the motion, so a straight move up and down look alike: the diagonal tells)."""
    f, v, d = square(7, vy)
    out = hf.vector_blur(f, v, d, backend="cpu")
    assert out[lit][0] > BG + 0.03
    assert out[dark][0] == pytest.approx(BG)


def test_close_to_many_sub_frames() -> None:
    """Against hfrender's own fusion of 64 sub-frames of the square drawn (8x8 supersampled)
    across the shutter: 58.3 dB PSNR, 0.0092 at most."""
    s, n = 8, 64

    def drawn(off: float) -> np.ndarray:
        big = np.full((H * s, W * s), BG, np.float32)
        x0 = int(round((LEFT + off) * s))
        big[TOP * s:(TOP + SIDE) * s, x0:x0 + SIDE * s] = FG
        return np.repeat(big.reshape(H, s, W, s).mean(axis=(1, 3))[..., None], 3, -1)

    subs = np.stack([drawn(10 * 0.5 * ((k + 0.5) / n - 0.5)) for k in range(n)])
    ref = hf.motion_blur(subs, n, backend="cpu")[0]
    out = hf.vector_blur(*square(10, 0), backend="cpu")
    psnr = 10 * np.log10(1 / np.mean((out - ref) ** 2))
    assert psnr > 55 and np.abs(out - ref).max() < 0.015


def test_frames_dtypes_and_batches() -> None:
    f, v, d = square(10, 0)
    one = hf.vector_blur(f, v, d, backend="cpu")
    both = hf.vector_blur(np.stack([f, f]), np.stack([v, v * 0]), np.stack([d, d]),
                          backend="cpu")
    np.testing.assert_array_equal(both[0], one)
    np.testing.assert_array_equal(both[1], f)  # still: as it was
    u8 = hf.vector_blur((f * 255).round().astype(np.uint8), v, d, backend="cpu")
    assert u8.dtype == np.uint8 and u8[TOP + 3, LEFT - 4, 0] == 51
    assert u8[TOP + 3, LEFT, 0] == 205  # sRGB codes of the linear 0.678
    out = np.empty_like(f)
    assert hf.vector_blur(f, v, d, backend="cpu", out=out) is out
    np.testing.assert_array_equal(out, one)
    wide = hf.vector_blur(f, v, d, shutter=360, backend="cpu")[TOP + 3, :, 0]
    assert np.abs(wide - box_profile(10, 360)).max() < 0.02


def one_bad(row: int, col: int, axis: int, value: float) -> np.ndarray:
    """Still vectors but ``value`` at (``row``, ``col``) on ``axis`` (0: x, 1: y)."""
    vel = np.zeros((H, W, 2))
    vel[row, col, axis] = value
    return vel


@pytest.mark.parametrize("kw, message", [
    (dict(velocity=np.zeros((H, W, 3))), "velocity has shape (48, 64, 3); expected (1, 48, 64, "
     "2) (or (48, 64, 2) for one frame): pixels a frame, x to the right and y down"),
    # (were "velocity has not numbers")
    (dict(velocity=np.zeros((H, W, 2), complex)), "velocity is an array of complex128; "
     "velocity takes numbers (pixels a frame, x to the right and y down): give an array of "
     "shape (1, 48, 64, 2) (or (48, 64, 2) for one frame)"),  # (as depth's list says it)
    (dict(velocity=np.full((H, W, 2), "a")), "velocity is an array of str; velocity takes "
     "numbers (pixels a frame, x to the right and y down): give an array of shape (1, 48, "
     "64, 2) (or (48, 64, 2) for one frame)"),
    (dict(velocity=None), "velocity is None; velocity takes numbers (pixels a frame, x to "
     "the right and y down): give an array of shape (1, 48, 64, 2) (or (48, 64, 2) for one "
     "frame)"),  # (was "velocity is a NoneType")
    (dict(velocity=np.full((H, W, 2), np.nan)), "velocity at row 0, column 0 has x = nan; "
     "it must be finite pixels a frame"),  # (one frame's: its pixel, no frame number)
    (dict(velocity=one_bad(7, 5, 1, -np.inf)), "velocity at row 7, column 5 has y = -inf; "
     "it must be finite pixels a frame"),  # (row, column: as the too-long vector's line)
    (dict(shutter=0), "shutter=0 must be degrees in (0, 720] (180: half a frame's motion, "
     "360: all of it)"),
    (dict(shutter="wide"), "shutter='wide' must be degrees in (0, 720] (180: half a frame's "
     "motion, 360: all of it)"),
    # (were a TypeError "'int' object is not subscriptable", a KeyError: None, and a NumPy
    # number said to be an array of shape (1,))
    (dict(out=0), "out is int; expected a writable C-contiguous float32 NumPy array of "
     "shape (48, 64, 3)"),
    (dict(out={}), "out is dict; expected a writable C-contiguous float32 NumPy array of "
     "shape (48, 64, 3)"),
    (dict(out=np.float32(0.5)), "out is float32; expected a writable C-contiguous float32 "
     "NumPy array of shape (48, 64, 3)"),
])
def test_bad_input_one_line(kw: dict, message: str) -> None:
    f, v, d = square(10, 0)
    args = {"velocity": v, **kw}
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, args.pop("velocity"), d, backend="cpu", **args)
    assert str(err.value) == message


def test_a_lone_sub_frame_pools_its_sums_to_the_same_bits(monkeypatch):
    """A vector blur (one sub-frame, no neighbour) sums what its splats showed per pixel of
    the frame, the base taken off once (``PooledSums``: no base gathered per hit, no
    per-chunk sums merged; ~15% of a 1080p frame), to the bits of the grouped sums that
    cells between sub-frames keep; several flushes add up as one."""
    import hfrender.backends.cpu.reconstruct as cpu_rc
    from hfrender.backends.cpu import recon_sums

    rng = np.random.default_rng(7)
    f = rng.random((H, W, 3), dtype=np.float32)
    v = np.zeros((H, W, 2), np.float32)
    v[10:30, 12:40] = rng.uniform(-12, 12, 2).astype(np.float32)
    v[25:40, 30:50] = rng.uniform(-12, 12, (15, 20, 2)).astype(np.float32)
    d = rng.uniform(1, 9, (H, W)).astype(np.float32)
    used = []
    monkeypatch.setattr(cpu_rc, "PooledSums", lambda *a: used.append("pooled")
                        or recon_sums.PooledSums(*a))
    monkeypatch.setattr(cpu_rc, "CHUNK_ELEMS", 2 * H * W)  # chunks of 2 times, flushed often
    pooled = hf.vector_blur(f, v, d, backend="cpu")
    assert used == ["pooled", "pooled"]  # both halves of the shutter
    monkeypatch.setattr(cpu_rc, "PooledSums", recon_sums.GroupedSums)
    grouped = hf.vector_blur(f, v, d, backend="cpu")
    assert np.abs(grouped - f).max() > 0.1  # it blurred
    np.testing.assert_array_equal(pooled, grouped)


def test_straight_alpha_keeps_a_transparent_pixels_colour_out_of_the_streak() -> None:
    """premultiplied=False, as motion_blur and depth_of_field take it (was: no such keyword,
    so a PNG's straight RGBA went in as premultiplied: the transparent red around a moving
    opaque white square streaked in with it, pink where the streak is half covered)."""
    f = np.zeros((H, W, 4), np.uint8)
    f[..., 0] = 255  # transparent red: a PNG's colour where nothing is
    f[TOP:TOP + SIDE, LEFT:LEFT + SIDE] = 255  # an opaque white square
    v = np.zeros((H, W, 2), np.float32)
    v[TOP:TOP + SIDE, LEFT:LEFT + SIDE] = (10, 0)
    out = hf.vector_blur(f, v, premultiplied=False, backend="cpu")
    assert out.dtype == np.uint8 and out.shape == f.shape
    row = out[TOP + 3]
    seen = row[:, 3] > 0
    assert seen.sum() == SIDE + 6  # ramps 5 px wide about both edges (3 px out, at 4/255)
    assert 0 < row[LEFT - 2, 3] < 255 and row[LEFT + 4, 3] == 255
    assert (row[seen, :3] == 255).all()  # the square's white alone, no red mixed in
    assert (row[~seen] == 0).all()  # transparent: its colour does not count (as motion_blur)
    assert (out[:TOP] == 0).all() and (out[TOP:TOP + SIDE, LEFT + 4] == 255).all()
    # the premultiplied reading of the same frame streaks the red in
    assert hf.vector_blur(f, v, backend="cpu")[TOP + 3, LEFT - 2, 1] < 255
    with pytest.raises(InputError, match="premultiplied=False is for RGBA frames"):
        hf.vector_blur(f[..., :3], v, premultiplied=False)
    out = np.empty_like(f)
    assert hf.vector_blur(f, v, premultiplied=False, out=out) is out
    assert np.array_equal(out[TOP + 3], row)
    assert np.array_equal(out, hf.vector_blur(f[None], v, premultiplied=False)[0])


def crossing_bars(rng: np.random.Generator, speed: float = 40.4, back: float = 40.4
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Two bars of seeded colours, 22 px wide and 10 rows tall, one pixel apart on
    rows 3..12 at the frame's instant, moving towards each other (the left one ``speed``
    px a frame right, the right one ``back`` left) over a still grey background: frame,
    velocity, the two colours (A, B) and the column of the pixel between them."""
    a, b = (rng.uniform(0.2, 1.0, 3).astype(np.float32) for _ in range(2))
    f = np.full((16, 64, 3), BG, np.float32)
    v = np.zeros((16, 64, 2), np.float32)
    gap = 32
    f[3:13, gap - 22:gap], v[3:13, gap - 22:gap] = a, (speed, 0)
    f[3:13, gap + 1:gap + 23], v[3:13, gap + 1:gap + 23] = b, (-back, 0)
    return f, v, np.stack([a, b]), gap


@pytest.mark.parametrize("back", [40.4, 25.3])
@pytest.mark.parametrize("flip", [(1,), (0,), (0, 1)], ids=["x", "y", "xy"])
def test_crossing_streaks_without_depth_do_not_depend_on_raster_order(flip: tuple,
                                                                      back: float) -> None:
    """No depth: where two moving bars' streaks cross, neither covers the other by its
    place in raster order (was: the top-left one, so the mirrored frame blurred to
    another picture, 0.29 apart), nor does a pixel between them (a border of both
    landings) take the one on its left (0.0037 apart at unequal speeds): the blur of the
    mirrored frame is the mirrored blur."""
    f, v, _, _ = crossing_bars(np.random.default_rng(5), back=back)
    out = hf.vector_blur(f, v, shutter=360, backend="cpu")
    sign = np.ones(2, np.float32)
    for axis in flip:
        sign[1 - axis] = -1  # velocity is (x, y): a mirror in rows negates y
    mf, mv = np.flip(f, flip).copy(), (np.flip(v, flip) * sign).astype(np.float32)
    mirrored = np.flip(hf.vector_blur(mf, mv, shutter=360, backend="cpu"), flip)
    assert np.abs(out - f).max() > 0.3  # it blurred, the bars crossing
    np.testing.assert_allclose(mirrored, out, rtol=0, atol=1e-6)


def test_crossing_streaks_without_depth_share_the_light_as_a_shutter_sees_them() -> None:
    """The pixel between the bars: at 360 degrees each bar's leading edge (half a pixel
    from its centre at the frame's instant) reaches it after 0.5 / 40.4 of a frame and
    covers it to the shutter's close, so both are there over the last c = 0.5 - 0.5/40.4
    = 0.4876 of the shutter, nothing but the still grey before: the shutter sees
    (1 - c) * grey + c * (A + B) / 2, each bar half there (was: the left bar alone,
    (1 - c) * grey + c * A). The reconstruction's 21 times a half-shutter put the edge
    at 1/42 of the shutter: within 0.01 of that."""
    f, v, (a, b), gap = crossing_bars(np.random.default_rng(5))
    assert np.abs(a - b).max() > 0.3  # the colours tell which bar shows
    c = 0.5 - 0.5 / 40.4
    want = (1 - c) * BG + c * (a + b) / 2
    for row in (3, 8, 12):
        got = hf.vector_blur(f, v, shutter=360, backend="cpu")[row, gap]
        np.testing.assert_allclose(got, want, rtol=0, atol=0.01)


def test_channels_first_velocity_is_told_the_moveaxis_that_fixes_it() -> None:
    """(2, H, W) and (N, 2, H, W), a tensor's channels-first layout, were refused with the
    shape expected but not how to get it; the line now names the np.moveaxis (another shape
    that is no such transposition is told the shape alone)."""
    f, v, d = square(10, 0)
    expected = "pixels a frame, x to the right and y down"
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, np.moveaxis(v, -1, 0), d, backend="cpu")
    assert str(err.value) == (f"velocity has shape (2, {H}, {W}); expected (1, {H}, {W}, 2) "
                              f"(or ({H}, {W}, 2) for one frame): {expected}; channels first: "
                              "np.moveaxis(velocity, 0, -1) puts them last")
    two = np.stack([v, v])
    with pytest.raises(InputError) as err:
        hf.vector_blur(np.stack([f, f]), np.moveaxis(two, -1, 1), np.stack([d, d]),
                       backend="cpu")
    assert str(err.value) == (f"velocity has shape (2, 2, {H}, {W}); expected (2, {H}, {W}, 2)"
                              f": {expected}; channels first: np.moveaxis(velocity, -3, -1) "
                              "puts them last")  # (two frames: not one frame's offered)
    with pytest.raises(InputError) as err:  # (offered the one frame's shape it refuses)
        hf.vector_blur(np.stack([f, f]), np.zeros((3, H, W, 2)), np.stack([d, d]),
                       backend="cpu")
    assert str(err.value) == (f"velocity has shape (3, {H}, {W}, 2); expected (2, {H}, {W}, 2)"
                              f": {expected}")
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, np.zeros((2, W, H)), d, backend="cpu")
    assert str(err.value).endswith(f"{expected}")


def test_the_moveaxis_a_refusal_names_gives_the_vectors_back() -> None:
    """The call the line names, as written there, applied to what was refused: the blur of
    the channels-last vectors, one frame and two (the hint's axes are right; x != y)."""
    f, v, d = square(10, 0)
    v = v + np.random.default_rng(2).normal(0, 1, v.shape).astype(np.float32)
    frames, vectors, depths = np.stack([f, f[::-1]]), np.stack([v, -v]), np.stack([d, d])
    for pics, last, dep in ((f, v, d), (frames, vectors, depths)):
        first = np.moveaxis(last, -1, -3)
        with pytest.raises(InputError) as err:
            hf.vector_blur(pics, first, dep, backend="cpu")
        a, b = re.search(r"np\.moveaxis\(velocity, (-?\d), (-?\d)\)", str(err.value)).groups()
        got = hf.vector_blur(pics, np.moveaxis(first, int(a), int(b)), dep, backend="cpu")
        np.testing.assert_array_equal(got, hf.vector_blur(pics, last, dep, backend="cpu"))



def test_a_hyperframe_s_channels_first_velocity_is_told_the_moveaxis_too() -> None:
    n, h, w = 2, 6, 8
    t = np.arange(n, dtype=np.float64)
    hyper = hf.HyperFrame(np.zeros((n, h, w, 3), np.float32), np.ones((n, h, w), np.float32),
                          t, np.zeros((n, 2, h, w), np.float32))
    with pytest.raises(InputError) as err:
        hf.fuse(hyper, hf.WindowWeights(np.arange(n), np.ones((n, 1))),
                shutter=np.stack([t - 0.25, t + 0.25], axis=1), backend="cpu")
    assert str(err.value) == (f"hyperframe.velocity has shape ({n}, 2, {h}, {w}); expected "
                              f"({n}, {h}, {w}, 2); channels first: "
                              "np.moveaxis(hyperframe.velocity, -3, -1) puts them last")


def test_shape_lines_name_the_frames_as_given() -> None:
    """One (H, W, C) frame's depth of another size was told to match "frames (1, 48, 64, 3)
    ... (1, 48, 64)", a batch the caller never made (depth_of_field says (48, 64, 3)); two
    frames with one frame's vectors were told "expected (2, 48, 64, 2) (or (48, 64, 2) for
    one frame)", the shape given offered as the fix. Each line names the call's shapes."""
    f, v, d = square(10, 0)
    for rgba, straight in ((f, True), (np.concatenate([f, f[..., :1]], -1), False)):
        with pytest.raises(InputError) as err:
            hf.vector_blur(rgba, v, d[:, :-1], backend="cpu", premultiplied=straight)
        assert str(err.value) == (f"depth has shape (48, 63); it must match frames (48, 64, "
                                  f"{rgba.shape[-1]}) "
                                  "without the channel axis: (48, 64); scale a depth pass "
                                  "of another size to the frames first (nearest neighbour: "
                                  "hard edges), as hfrender fx --depth-resize does")
    with pytest.raises(InputError) as err:
        hf.vector_blur(np.stack([f, f]), v, d, backend="cpu")
    assert str(err.value) == ("velocity has shape (48, 64, 2), one frame's; the 2 frames "
                              "need one each: (2, 48, 64, 2), pixels a frame, x to the right "
                              "and y down")
    one = hf.vector_blur(f, v, d[None], backend="cpu")  # (1, H, W) depth: one frame's still
    assert np.array_equal(one, hf.vector_blur(f, v, d, backend="cpu"))
    assert one.shape == (H, W, 3)
    assert abs(float(one[24, 40, 0]) - box_profile(10, 180)[40]) < 0.011
