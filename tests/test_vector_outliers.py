"""hf.vector_blur with outlier vectors (a bad optical-flow match, geometry by the camera):
a lone fast pixel costs its own streak, not a step of every moving pixel's at each pixel
of it; ``max_length`` clamps vectors as Blender's Max Speed; absurd ones are one line."""

from __future__ import annotations

import numpy as np
import pytest

import hfrender as hf
import hfrender.backends.cpu.reconstruct as cpu_rc
from hfrender.errors import InputError

H, W = 60, 160
BG = 0.2
ROW, COL = 45, 80  # the outlier pixel


def scene(fast: float | None, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random colours over a grey ground, a 30x40 block moving (6, 2) px a frame in
    the top rows (1200 moving pixels), and, with ``fast``, one white pixel moving ``fast``
    px a frame to the right on row ROW."""
    rng = np.random.default_rng(seed)
    f = np.full((H, W, 3), BG, np.float32)
    f[2:32, 10:50] = rng.random((30, 40, 3), dtype=np.float32)
    v = np.zeros((H, W, 2), np.float32)
    v[2:32, 10:50] = (6.0, 2.0)
    if fast is not None:
        f[ROW, COL] = 1.0
        v[ROW, COL] = (fast, 0.0)
    return f, v


def landings(monkeypatch) -> list[int]:
    """Counts what the reconstruction's splatting lands (every moving pixel at every time)."""
    seen = [0]
    real = cpu_rc._targets

    def counted(*args):
        got = real(*args)
        seen[0] += 0 if got is None else len(got[0])
        return got

    monkeypatch.setattr(cpu_rc, "_targets", counted)
    return seen


def test_a_lone_fast_pixel_costs_its_own_streak(monkeypatch) -> None:
    """One pixel at 5000 px a frame: the block is splatted as often as without it (was:
    1250 times per half-shutter instead of 2, the block's 1200 pixels each time)."""
    seen = landings(monkeypatch)
    hf.vector_blur(*scene(None), backend="cpu")
    calm = seen[0]
    seen[0] = 0
    hf.vector_blur(*scene(5000.0), backend="cpu")
    assert calm > 4000 and seen[0] <= 1.5 * calm


def test_pictures_away_from_the_outlier_are_unchanged_bit_for_bit() -> None:
    calm = hf.vector_blur(*scene(None), backend="cpu")
    wild = hf.vector_blur(*scene(5000.0), backend="cpu")
    away = np.ones((H, W), bool)
    away[ROW - 1 : ROW + 2] = False  # the outlier's row (its streak) and its hole's ring
    assert np.array_equal(calm[away], wild[away])
    assert not np.array_equal(calm[ROW], wild[ROW])


def test_an_outliers_streak_is_its_light_spread_over_its_travel() -> None:
    """200 px a frame at 180 degrees: 100 px of travel centred on the pixel, each pixel of
    it covered 1/100 of the shutter: 0.2 + 0.8 / 100; its place shows the ground too."""
    f, v = scene(200.0)
    out = hf.vector_blur(f, v, backend="cpu")
    row = out[ROW, :, 0].astype(np.float64)
    inside = row[COL - 49 : COL + 50]
    assert np.abs(inside - (BG + 0.8 / 100)).max() < 1.5e-3
    assert row[: COL - 51] == pytest.approx(BG) and row[COL + 52 :] == pytest.approx(BG)
    assert (row - BG).sum() == pytest.approx(0.8, rel=0.02)  # its light, all of it


def test_an_outlier_leaving_the_frame_costs_what_lies_inside() -> None:
    """1.5e4 px a frame (under 100 diagonals, 17088 px): its streak leaves the frame within
    80 px each way; only that part is drawn (the test of 1e5 px took 6 minutes before)."""
    f, v = scene(1.5e4)
    out = hf.vector_blur(f, v, backend="cpu")
    row = np.delete(out[ROW, :, 0], COL)  # the row but the pixel's own place:
    assert np.abs(row - (BG + 0.8 / 7500)).max() < 1e-6  # 7500 px of travel, 1 / 7500 each


@pytest.mark.parametrize("size", [1e7, np.inf, np.nan])
def test_absurd_vectors_are_one_line(size: float) -> None:
    f, v = scene(None)
    v[ROW, COL] = (size, 0.0)
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, v, backend="cpu")
    said = str(err.value)
    assert "\n" not in said and said.startswith("velocity")
    if size == 1e7:  # (row, column): the array's order, not focus_pixel's (x, y)
        assert said == (f"velocity at row {ROW}, column {COL} is 1e+07 px a frame, over 100 "
                        "frame diagonals (1.709e+04 px): not a motion; give max_length=PX to "
                        "clamp such vectors")
    else:  # (was: 'at index (45, 80, 0)', the order of none of the other lines)
        assert said == (f"velocity at row {ROW}, column {COL} has x = {size}; it must be "
                        "finite pixels a frame")



def test_a_nan_of_one_frame_of_several_names_its_frame_row_and_column() -> None:
    f, v = scene(None)
    v2 = np.stack([v, v])
    v2[1, 3, 7, 1] = np.nan
    with pytest.raises(InputError) as err:
        hf.vector_blur(np.stack([f, f]), v2, backend="cpu")
    assert str(err.value) == ("velocity of frame 1 at row 3, column 7 has y = nan; it must be "
                              "finite pixels a frame")

def test_a_vector_over_the_limit_even_clamped_is_told_the_limit() -> None:
    """max_length given but itself over 100 diagonals: the line says the clamped vector is
    still over and the most max_length may be (was: 'give max_length= to clamp such
    vectors', which it had been given)."""
    f, v = scene(1e12)
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, v, max_length=1e9, backend="cpu")
    assert str(err.value) == (f"velocity at row {ROW}, column {COL} is 1e+12 px a frame; "
                              "clamped to max_length=1e+09 it is still over 100 frame "
                              "diagonals (1.709e+04 px): not a motion; give a max_length of "
                              "at most 1.709e+04")
    frames = np.stack([f, f])
    v2 = np.stack([scene(None)[1], v])
    with pytest.raises(InputError) as err:
        hf.vector_blur(frames, v2, max_length=1e9, backend="cpu")
    assert str(err.value).startswith(f"velocity of frame 1 at row {ROW}, column {COL} is ")


def test_max_length_clamps_each_vector_keeping_its_direction() -> None:
    f, v = scene(None)
    v[2:32, 10:50] = (30.0, 40.0)  # 50 px a frame
    clamped = hf.vector_blur(f, v, max_length=10, backend="cpu")
    slow = v.copy()
    slow[2:32, 10:50] = (6.0, 8.0)  # 10 px a frame, the same way
    np.testing.assert_allclose(clamped, hf.vector_blur(f, slow, backend="cpu"), atol=2e-6)
    assert not np.allclose(clamped, hf.vector_blur(f, v, backend="cpu"), atol=1e-3)
    same = hf.vector_blur(f, slow, max_length=10.5, backend="cpu")  # shorter: untouched
    assert np.array_equal(same, hf.vector_blur(f, slow, backend="cpu"))


def test_max_length_takes_the_absurd_out_of_an_outlier() -> None:
    f, v = scene(1e12)
    out = hf.vector_blur(f, v, max_length=200, backend="cpu")
    f2, v2 = scene(200.0)
    assert np.array_equal(out, hf.vector_blur(f2, v2, backend="cpu"))


@pytest.mark.parametrize("value", [0, -3, np.nan, np.inf, "far", [5, 6], True])
def test_bad_max_length_is_one_line(value: object) -> None:
    f, v = scene(None)
    with pytest.raises(InputError) as err:
        hf.vector_blur(f, v, max_length=value, backend="cpu")
    said = str(err.value)
    assert "\n" not in said and said.startswith("max_length=") and "pixels a frame" in said
    assert said.endswith("no clamp: leave it out")


def bar_scene(outlier_depth: float, seed: int = 5) -> tuple[np.ndarray, ...]:
    """A still grey ground 10 m away, a near bar 1 m away (rows 38-52, columns 70-109,
    seeded random colours) moving 2 px a frame right, and a white pixel at (ROW, 40) at
    ``outlier_depth`` moving 200 px a frame right: its streak (columns -10 to 90 at 180
    degrees) runs into the bar."""
    rng = np.random.default_rng(seed)
    f = np.full((H, W, 3), BG, np.float32)
    f[38:53, 70:110] = rng.random((15, 40, 3), dtype=np.float32)
    v = np.zeros((H, W, 2), np.float32)
    v[38:53, 70:110] = (2.0, 0.0)
    d = np.full((H, W), 10.0, np.float32)
    d[38:53, 70:110] = 1.0
    calm = (f.copy(), v.copy(), d.copy())
    f[ROW, 40], v[ROW, 40], d[ROW, 40] = 1.0, (200.0, 0.0), outlier_depth
    return calm, (f, v, d)


def test_a_far_outliers_streak_passes_behind_a_nearer_moving_bar() -> None:
    """The streak is drawn up to the bar and not over it: the bar's pixels (those it covers
    all the shutter: it moves 1 px in it) keep their colour bit for bit (before: the streak
    was laid over every moving surface, 0.8 / 100 of white across the bar's row)."""
    calm, wild = bar_scene(5.0)
    before = hf.vector_blur(*calm, backend="cpu")
    after = hf.vector_blur(*wild, backend="cpu")
    bar = (slice(38, 53), slice(71, 109))
    assert np.array_equal(after[bar], before[bar])
    lit = after[ROW, 0:35, 0].astype(np.float64)  # its streak left of the bar, as in the open
    assert np.abs(lit - (BG + 0.8 / 100)).max() < 1.5e-3


@pytest.mark.parametrize("depth", [0.5, None])
def test_a_nearer_outlier_or_one_without_depth_streaks_over_the_moving_bar(depth) -> None:
    """Nearer than the bar (0.5 m), or without depth (what moves: one layer, the outlier
    laid over it), the streak crosses the bar: 0.8 / 100 of white more on its row."""
    calm, wild = bar_scene(0.5)
    if depth is None:
        calm, wild = calm[:2], wild[:2]
    before = hf.vector_blur(*calm, backend="cpu")
    after = hf.vector_blur(*wild, backend="cpu")
    gain = (after[ROW, 71:90] - before[ROW, 71:90]).astype(np.float64)
    assert np.abs(gain - (1.0 - before[ROW, 71:90]) / 100).max() < 2e-3
    assert np.array_equal(after[ROW + 2 :, 71:109], before[ROW + 2 :, 71:109])


def test_an_outlier_inside_a_moving_surface_leaves_a_hole_carried_along_its_motion() -> None:
    """An outlier at (15, 30) inside the block moving 12 px a frame down: off its row, only
    the pixels its place passes over with the block change (column 30, rows 12-18: 3 px of
    travel each way at 180 degrees), each by at most 1/6 (the 6 px of travel) of the span
    of colours there (the block without that pixel for about 1/6 of the shutter)."""
    f, v = scene(None)
    v[2:32, 10:50] = (0.0, 12.0)
    calm = hf.vector_blur(f, v, backend="cpu")
    v[15, 30] = (5000.0, 0.0)
    wild = hf.vector_blur(f, v, backend="cpu")
    change = np.abs(wild.astype(np.float64) - calm).max(-1)
    change[15] = 0.0  # its streak's row
    rows, cols = np.nonzero(change)
    assert set(cols.tolist()) == {30} and (rows.min(), rows.max()) == (12, 18)
    near = f[9:22, 29:32]
    assert 0.05 < change.max() <= (near.max() - near.min()) / 6
