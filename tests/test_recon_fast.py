"""recon_fast's outlier streaks as the CUDA backend runs them (on ``dev.xp``): only array
calls CuPy 13 has, the same pictures however they are cut up."""

from __future__ import annotations

import types

import numpy as np

from hfrender.backends.cpu import recon_fast

H, W = 60, 160
ROW, COL = 45, 80  # the outlier pixel, as tests/test_vector_outliers.py


def cupy13_like() -> types.ModuleType:
    """NumPy as CuPy 13 takes it: ``repeat`` refuses an array of counts ("cupy.ndarray
    cannot be specified as 'repeats' argument")."""
    xp = types.ModuleType("cupy13_like")
    xp.__getattr__ = lambda name: getattr(np, name)  # type: ignore[method-assign]

    def repeat(a, repeats, axis=None):
        if isinstance(repeats, np.ndarray):
            raise ValueError("cupy.ndarray cannot be specified as 'repeats' argument.")
        return np.repeat(a, repeats, axis)

    xp.repeat = repeat  # type: ignore[attr-defined]
    return xp


def streak_case(speeds: list[float], seed: int = 3) -> tuple:
    """A seeded random picture with white outliers on row ROW from column COL on, each
    moving ``speeds[i]`` px a second right over the cell (-0.25, 0.25) s (half as many px
    of travel, centred on it); a far still ground (nothing covers them)."""
    rng = np.random.default_rng(seed)
    lin = rng.random((H, W, 3), dtype=np.float32)
    velocity = np.zeros((H, W, 2), np.float32)
    fast = ROW * W + COL + np.arange(len(speeds))
    lin.reshape(-1, 3)[fast] = 1.0
    velocity.reshape(-1, 2)[fast, 0] = speeds
    depth = np.ones((H, W), np.float32)
    cover_d = np.full((H, W), np.inf, np.float32)
    return fast, (lin, depth, velocity), cover_d, (-0.25, 0.25, 0.0)


def test_streaks_run_on_an_array_module_without_array_repeats() -> None:
    """The outlier test's streak (200 px a frame at 180 degrees: 100 px of travel) drawn
    through a CuPy-13-like module: each pixel of its travel covered 1/100 (was: ValueError,
    the CUDA backend's outliers refused by CuPy < 14)."""
    fast, frame, cover_d, cell = streak_case([200.0])
    where, sums, cover = recon_fast.streaks(cupy13_like(), fast, frame, cover_d, cell)
    cols = where - ROW * W
    assert cols.min() == COL - 50 and cols.max() == COL + 50
    assert np.abs(cover[1:-1] - 0.01).max() < 1e-12 and abs(cover.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(sums, cover[:, None] * np.ones(3), rtol=0, atol=1e-15)


def test_streaks_land_in_chunks_adding_into_the_same_sums_bit_for_bit(monkeypatch) -> None:
    """40 outliers of 1e4-5e4 px a second across the frame (6621 landings in it): with
    chunks of 500 landings no step of the drawing holds more (was: all at once, memory
    growing with the travel: 2e7 landings for one vector of 100 diagonals at 1080p) and the
    sums are the unchunked ones bit for bit (each chunk's bincount starts from the sums so
    far, in the same order)."""
    rng = np.random.default_rng(11)
    speeds = rng.uniform(1e4, 5e4, 40)
    fast, frame, cover_d, cell = streak_case(list(speeds))
    frame[2].reshape(-1, 2)[fast, 1] = rng.uniform(-300, 300, 40)  # (their rows' splits)
    whole = recon_fast.streaks(np, fast, frame, cover_d, cell)
    sizes = []
    real = recon_fast._bilinear

    def counted(xp, place, *args):
        sizes.append(len(place[0]))
        return real(xp, place, *args)

    monkeypatch.setattr(recon_fast, "_bilinear", counted)
    monkeypatch.setattr(recon_fast, "STREAK_CHUNK", 500, raising=False)
    chunked = recon_fast.streaks(np, fast, frame, cover_d, cell)
    assert max(sizes) <= 500 and sum(sizes) > 4 * 6000
    for a, b in zip(whole, chunked, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    # (each one's light in the frame: its 160 px of the row over its travel, 0.5 s of it)
    assert len(whole[0]) > 500 and abs(whole[2].sum() - (160 / (0.5 * speeds)).sum()) < 1e-3
