"""Depth of field once per output frame (``hfrender/backends/cpu/dof_window.py``) against
one fast defocus per sub-frame (``CPUBackend.fuse(..., dof_window=False)``): equal where
the classes stay put, close where objects move, energy, and the fallbacks (a lens per
sub-frame, too much moving)."""

import numpy as np
import pytest
from dof_fast_helpers import FOCUS, lens_for, texture

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cpu import dof_share as ds
from hfrender.backends.cpu import dof_window as dw

CPU = CPUBackend()
H, W, N = 96, 160, 8
BOX = hf.WindowWeights.sliding(np.full(N, 1 / N), 1, N)  # one output frame of N sub-frames


def psnr(test, ref, peak=1.0):
    mse = float(np.mean((np.asarray(test, np.float64) - ref) ** 2))
    return np.inf if mse == 0 else 10 * np.log10(peak * peak / mse)


def still_depth(rng):
    """A slanted floor (many classes: merged layers), a near disc, a far box, a box in focus."""
    yy, xx = np.mgrid[0:H, 0:W]
    depth = (0.5 + 6.0 * (yy / H) ** 2).astype(np.float32)
    depth[(yy - 40) ** 2 + (xx - 50) ** 2 < 18 ** 2] = 0.55
    depth[20:45, 100:130] = 4.0
    depth[55:80, 115:140] = 1.0
    return depth


@pytest.fixture
def per_frame_calls(monkeypatch):
    """How many times the window path fell back to a per-sub-frame defocus."""
    calls = []
    real = dw.defocus_fast

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(dw, "defocus_fast", spy)
    return calls


def both(frames, depth, lens, weights=BOX):
    window = CPU.fuse(frames, depth, weights, lens, True)
    return window, CPU.fuse(frames, depth, weights, lens, True, dof_window=False)


def test_a_still_scene_float_matches_per_sub_frame(rng, per_frame_calls):
    depth = still_depth(rng)
    frames = np.stack([texture(rng, H, W) * rng.uniform(0.5, 2.0) for _ in range(N)])
    lens = lens_for(depth, 20, W)
    window, per_frame = both(frames, np.stack([depth] * N), lens)
    assert not per_frame_calls  # one defocus for the window
    np.testing.assert_allclose(window, per_frame, rtol=1e-5, atol=2e-6)
    assert np.abs(window - frames.mean(0)).max() > 0.05  # it did blur


def test_a_still_scene_uint8_within_one_code_value(rng, per_frame_calls):
    depth = still_depth(rng)
    frames = (rng.random((N, H, W, 4)) * 255).astype(np.uint8)
    lens = [lens_for(depth, 14, W)] * N  # a list of equal lenses: one group
    window, per_frame = both(frames, np.stack([depth] * N), lens)
    assert not per_frame_calls
    assert np.abs(window.astype(int) - per_frame).max() <= 1


def moving_scene(rng, step=2):
    """A defocused near disc and an in-focus bar crossing the floor, ``step`` px a sub-frame."""
    base_img, base_depth = texture(rng, H, W), still_depth(rng)
    yy, xx = np.mgrid[0:H, 0:W]
    frames, depth = [], []
    for j in range(N):
        img, d = base_img.copy(), base_depth.copy()
        disc = (yy - 60) ** 2 + (xx - 40 - step * j) ** 2 < 14 ** 2
        bar = (abs(xx - 120 + step * j) < 3) & (yy > 10) & (yy < 70)
        img[disc], d[disc] = (1.0, 0.4, 0.2), 0.6
        img[bar], d[bar] = (0.9, 0.9, 1.0), 1.0
        frames.append(img)
        depth.append(d)
    return np.stack(frames), np.stack(depth)


def test_a_moving_object_stays_within_the_measured_tolerance(rng, per_frame_calls):
    frames, depth = moving_scene(rng)
    lens = lens_for(depth[0], 20, W)
    cls = dw.window_classes(list(depth), [lens] * N)
    assert 0.02 < cls.moving_share < dw.MAX_MOVING  # the approximation is exercised
    window, per_frame = both(frames, depth, lens)
    assert not per_frame_calls
    assert psnr(window, per_frame) >= 40.0
    still = ~np.isin(np.arange(H * W), cls.index).reshape(H, W)
    far = still & (depth[0] > 3.0)  # still pixels far from the movers: (nearly) the same
    assert np.abs(window[0] - per_frame[0])[far].mean() < 5e-4


@pytest.mark.parametrize("d", [0.45, 3.0])
def test_energy_is_conserved_with_moving_light(rng, d):
    """Uniform depth (one class), HDR light moving: out = mean of the sub-frames' light."""
    frames = np.zeros((N, H, W, 3), np.float32)
    patch = rng.random((20, 50, 3), dtype=np.float32) * 4
    for j in range(N):
        frames[j, 38:58, 50 + 3 * j:100 + 3 * j] = patch
    depth = np.full((N, H, W), d, np.float32)
    lens = lens_for(depth[0], 16, W) if d > 1 else hf.Lens(1.0, 1.4)
    weights = hf.WindowWeights.from_dense(rng.dirichlet(np.ones(N))[None])
    window, per_frame = both(frames, depth, lens, weights)
    np.testing.assert_allclose(window.sum(), frames.sum(axis=(1, 2, 3)) @ weights.rows[0],
                               rtol=1e-4)
    np.testing.assert_allclose(window, per_frame, rtol=1e-5, atol=1e-5)


def test_a_focus_pull_falls_back_to_per_sub_frame(rng, per_frame_calls):
    frames, depth = moving_scene(rng)
    lenses = [hf.Lens(0.8 + 0.05 * j, 1.4, sensor_width_mm=12.0) for j in range(N)]
    window, per_frame = both(frames, depth, lenses)
    assert len(per_frame_calls) == N
    np.testing.assert_array_equal(window, per_frame)


def test_equal_lenses_are_grouped(rng, per_frame_calls):
    """Two lenses, alternating: two groups, each one defocus (still scene: as per frame)."""
    depth = np.stack([still_depth(rng)] * N)
    frames = np.stack([texture(rng, H, W) for _ in range(N)])
    a, b = hf.Lens(1.0, 1.4, sensor_width_mm=12.0), hf.Lens(2.0, 2.0, sensor_width_mm=12.0)
    window, per_frame = both(frames, depth, [a, b] * (N // 2))
    assert not per_frame_calls
    np.testing.assert_allclose(window, per_frame, rtol=1e-5, atol=2e-6)


def test_too_much_moving_falls_back(rng, per_frame_calls):
    frames = rng.random((N, 24, 32, 3), dtype=np.float32)
    depth = rng.choice([0.6, 1.0, 2.5], size=(N, 24, 32)).astype(np.float32)
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=3.0)
    window, per_frame = both(frames, depth, lens)
    assert len(per_frame_calls) == N
    np.testing.assert_array_equal(window, per_frame)


def test_jitter_that_changes_classes_within_layers_keeps_the_window_path(rng, per_frame_calls):
    """Sub-pixel jitter on the slanted floor moves most pixels' depth a little: more than
    MAX_MOVING of them change class, but few change layer (the fallback's measure: it cost
    a focus pull at 640x360 15x --dof lens)."""
    base = still_depth(rng)
    frames = np.stack([texture(rng, H, W)] * N)
    depth = np.stack([base * np.float32(1 + 0.004 * rng.standard_normal()) for _ in range(N)])
    lens = lens_for(base, 40, W)
    cls = dw.window_classes(list(depth), [lens] * N)
    assert cls.moving_share > 2 * dw.MAX_MOVING  # most of the frame changes class
    window, per_frame = both(frames, depth, lens)
    assert not per_frame_calls  # and the window is still defocused once
    assert psnr(window, per_frame) >= 40.0  # 41.6-45.9 dB over 8 seeds


def test_moving_lamps_before_a_far_sky_fill_their_shortfall_as_per_sub_frame(rng):
    """Lamps that change layer (their slots) before a blue sky much farther: each slot's
    shortfall is filled from the sky behind it as each sub-frame's is (measured 71-72 dB;
    47 dB with the far light the slots gather left out of their behind sums)."""
    yy, xx = np.mgrid[0:H, 0:W]
    sky = np.float32([0.2, 0.3, 0.5])
    frames = np.broadcast_to(sky, (N, H, W, 3)).copy()
    depth = np.full((N, H, W), 100.0, np.float32)
    spots = rng.uniform((20, 30), (H - 20, W - 30), (5, 2))
    for j in range(N):
        for k, (cy, cx) in enumerate(spots):
            lamp = (yy - cy) ** 2 + (xx - cx - 1.5 * j) ** 2 <= 3.0 ** 2
            frames[j][lamp], depth[j][lamp] = (1.0, 0.8, 0.6), 2.2 + 0.3 * k
    window, per_frame = both(frames, depth, hf.Lens(1.0, 1.4, sensor_width_mm=12.0))
    assert np.abs(window - frames.mean(0)).max() > 0.1  # the lamps are blurred
    assert psnr(window, per_frame) >= 60.0


def test_nothing_blurred_is_the_weighted_mean(rng):
    frames = rng.random((N, 16, 24, 3), dtype=np.float32)
    depth = np.full((N, 16, 24), 2.0, np.float32)
    weights = hf.WindowWeights.from_dense(rng.dirichlet(np.ones(N))[None])
    got = CPU.fuse(frames, depth, weights, hf.Lens(2.0, 8.0), True)
    np.testing.assert_allclose(got[0], np.tensordot(weights.rows[0], frames, 1), rtol=1e-5,
                               atol=1e-6)


def test_exact_is_still_the_gather_per_sub_frame(rng):
    frames, depth = moving_scene(rng)
    frames, depth = frames[:2, :40, :60], depth[:2, :40, :60]
    ww = hf.WindowWeights.sliding(np.full(2, 0.5), 1, 2)
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=3.0)
    a = CPU.fuse(frames, depth, ww, lens, True, dof_method="exact")
    b = CPU.fuse(frames, depth, ww, lens, True, dof_method="exact", dof_window=False)
    np.testing.assert_array_equal(a, b)


def slow_pull(step):
    """A focus pull of ``step`` (relative) a sub-frame: 1% a frame of 8 sub-frames is 0.00125."""
    return [hf.Lens(1.0 * (1 + step) ** j, 1.4, sensor_width_mm=12.0) for j in range(N)]


def test_a_slow_focus_pull_shares_one_lens_within_the_tolerance(rng, per_frame_calls):
    frames, depth = moving_scene(rng)
    lenses = slow_pull(0.00125)
    spans = {j: ds.depth_range(depth[j]) for j in range(N)}
    (shared, group), = ds.lens_groups([(j, 1 / N) for j in range(N)], lenses, spans,
                                      size=(W, H))
    assert len(group) == N and shared not in lenses
    assert lenses[0].focus_distance < shared.focus_distance < lenses[-1].focus_distance
    assert max(ds.coc_shift(ln, shared, ds.depth_range(depth), W, H) for ln in lenses) <= 0.25
    window, per_frame = both(frames, depth, lenses)
    assert not per_frame_calls  # one defocus for the window, not N
    assert psnr(window, per_frame) >= 45.0  # measured 50 dB (52.5 dB with one lens: the movers)
    still = CPU.fuse(frames, depth, BOX, lenses[0], True)  # not just the first lens
    assert np.abs(window - per_frame).mean() < np.abs(still - per_frame).mean()


def test_a_fast_focus_pull_is_halved_until_each_part_is_within_the_tolerance(rng):
    depth = still_depth(rng)
    lenses = slow_pull(0.02)  # about 0.4 px a sub-frame at the near disc
    spans = {j: ds.depth_range(depth) for j in range(N)}
    groups = ds.lens_groups([(j, 1 / N) for j in range(N)], lenses, spans, size=(W, H))
    assert 1 < len(groups) < N
    assert [j for _, g in groups for j, _ in g] == list(range(N))  # in order, each once
    for shared, g in groups:
        assert all(ds.coc_shift(lenses[j], shared, spans[j], W, H) <= ds.LENS_TOLERANCE_PX
                   for j, _ in g)
    assert len(ds.lens_groups([(j, 1 / N) for j in range(N)], lenses, spans, 0.0)) == N


def test_only_lenses_that_differ_in_focus_and_aperture_share():
    a = hf.Lens(2.0, 2.8)
    assert ds.shared_lens([a, a], [0.5, 0.5]) == a
    assert ds.shared_lens([a, hf.Lens(2.0, 2.8, focal_length_mm=35.0)], [0.5, 0.5]) is None
    both_ = ds.shared_lens([hf.Lens(2.0, 2.0), hf.Lens(3.0, 4.0)], [0.75, 0.25])
    assert both_.focus_distance == pytest.approx(2.25)
    assert 1 / both_.f_stop == pytest.approx(0.75 / 2.0 + 0.25 / 4.0)  # the mean aperture


@pytest.mark.parametrize("seed", range(6))
def test_coc_shift_is_the_largest_difference_over_the_depths(seed):
    rng = np.random.default_rng(seed)
    a, b = (hf.Lens(float(rng.uniform(0.5, 5)), float(rng.uniform(1.2, 8)),
                    max_coc_px=float(rng.choice([20.0, 400.0]))) for _ in range(2))
    lo, hi = sorted(rng.uniform(0.3, 12, 2))
    d = np.concatenate([np.geomspace(lo, hi, 200001), [a.focus_distance, b.focus_distance]])
    d = d[(d >= lo) & (d <= hi)]
    dense = np.abs(a.coc_radius_px(d, 640, 360).astype(np.float64)
                   - b.coc_radius_px(d, 640, 360)).max()
    got = ds.coc_shift(a, b, (lo, hi), 640, 360)
    assert dense - 1e-5 <= got <= dense * (1 + 1e-3) + 1e-5
    assert ds.coc_shift(a, b, (lo, np.inf), 640, 360) >= got  # the sky counts too


def test_window_classes_find_the_moving_pixels_from_the_depth_range(rng):
    _, depth = moving_scene(rng)
    lens = lens_for(depth[0], 20, W)
    cls = dw.window_classes(list(depth), [lens] * N)
    tables = ds.disk_tables(cls.max_d2)[1]
    keys = np.stack([ds._keys(d, lens, W, H, tables, cls.max_d2) for d in depth])  # one by one
    moving = (keys != keys[:1]).any(axis=0).reshape(-1)
    np.testing.assert_array_equal(cls.index, np.flatnonzero(moving))
    np.testing.assert_array_equal(cls.moving_keys, keys.reshape(N, -1)[:, moving])
    edges = np.arange(-cls.max_area, cls.max_area + 2)
    np.testing.assert_array_equal(cls.counts, np.histogram(keys, edges)[0])


def test_a_moving_disc_sees_a_blurred_wall_past_its_edge_as_per_sub_frame(rng,
                                                                          per_frame_calls):
    """A near disc moving over a wall behind it whose disk is smaller than its own (seen
    past the disc's edge, and its own light spread): the pixels it uncovers see the wall
    in some sub-frames; the window's slots as the sub-frames do."""

    base = texture(rng, H, W)
    yy, xx = np.mgrid[0:H, 0:W]
    frames, depth = [], []
    for j in range(N):
        img, d = base.copy(), np.full((H, W), 1.4, np.float32)
        disc = (yy - 48) ** 2 + (xx - 60 - 3 * j) ** 2 < 16 ** 2
        img[disc], d[disc] = (1.0, 0.4, 0.2), 0.6
        frames.append(img)
        depth.append(d)
    frames, depth = np.stack(frames), np.stack(depth)
    lens = hf.Lens(FOCUS, 1.4, sensor_width_mm=12.0)
    r = lens.coc_radius_px(np.float32([0.6, 1.4]), W, H)
    assert r[0] > 5 and 1 < r[1] < 0.6 * r[0]  # the wall: seen, and spread
    window, per_frame = both(frames, depth, lens)
    assert not per_frame_calls
    # 55.8 dB (2026-12-05); without what a moving pixel sees behind it (the slots' hid
    # sums) 47.4
    assert psnr(window, per_frame) >= 50.0


def test_a_still_disc_sees_a_blurred_wall_as_per_sub_frame(rng, per_frame_calls):
    """The same disc standing still, each sub-frame's light its own: the window's one
    defocus is the sub-frames', the wall's scatter at the disc's pixels and what they see
    behind them included."""
    yy, xx = np.mgrid[0:H, 0:W]
    disc = (yy - 48) ** 2 + (xx - 60) ** 2 < 16 ** 2
    depth = np.where(disc, 0.6, 1.4).astype(np.float32)
    frames = np.stack([texture(rng, H, W) * rng.uniform(0.5, 2.0) for _ in range(N)])
    window, per_frame = both(frames, np.stack([depth] * N),
                             hf.Lens(FOCUS, 1.4, sensor_width_mm=12.0))
    assert not per_frame_calls
    np.testing.assert_allclose(window, per_frame, rtol=1e-5, atol=2e-6)
