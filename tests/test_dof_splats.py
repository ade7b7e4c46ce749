"""Highlights between two disks of a layer splatted with their own disk
(:mod:`hfrender.dof_splats`; a DoF audit: a point on a slanted wall lit 109 px, its
layer's larger disk, where the exact gather lights its own 89)."""

import numpy as np
import pytest

import hfrender as hf
from hfrender import dof_splats

H, W = 120, 200
LENS = dict(focus_distance=2.0, f_stop=1.4, focal_length_mm=85.0)


def wall() -> np.ndarray:
    """Depth of a wall receding from 1 to 10 m, left to right."""
    return np.broadcast_to((1 + 9 * np.arange(W) / W).astype(np.float32), (H, W)).copy()


def lit_by(point: tuple[int, int], level: float, method: str, depth: np.ndarray,
           background: float = 0.1, blades: int = 0) -> np.ndarray:
    """What one point of ``level`` adds to a flat background."""
    bg = np.full((H, W, 3), background, np.float32)
    img = bg.copy()
    img[point] = level
    lens = dict(LENS, method=method, aperture_blades=blades)
    return (hf.depth_of_field(img, depth, **lens) - hf.depth_of_field(bg, depth, **lens))[..., 0]


@pytest.mark.parametrize("x", [120, 150, 175])
def test_a_highlight_on_a_slanted_wall_has_its_own_disk(x):
    """The fast method lights the pixels the exact gather does (were its layer's larger
    disk's too: 109 px against 89 at x = 120), flat, its light kept."""
    depth = wall()
    fast = lit_by((60, x), 1000.0, "fast", depth)
    exact = lit_by((60, x), 1000.0, "exact", depth)
    lit = np.abs(exact) > 1e-3
    np.testing.assert_array_equal(np.abs(fast) > 1e-3, lit)
    inside = fast[lit]  # one level (were two: a core, and a ring at a fifth of it), within
    assert inside.max() / inside.min() < 1.03  # what the wall's slope does to the gather's
    assert fast.sum() == pytest.approx(999.9, rel=6e-3)  # (1.048 at x = 120, +0.4% light)


def test_a_frame_within_white_is_not_splatted(rng, monkeypatch):
    """Light up to white (an 8-bit frame's), or highlights on planes (no source between two
    disks): no splat is chosen, not even a pass over the frame for them (``choose`` is
    not called), so the picture is the one the layers alone make, bit for bit. (Comparing
    two runs at two budgets could not fail: nothing within white passes the usual light.)"""
    calls = []
    choose = dof_splats.choose
    monkeypatch.setattr(dof_splats, "choose", lambda *a, **k: calls.append(1) or choose(*a, **k))
    img = rng.random((H, W, 3), dtype=np.float32)
    img[60, 120] = 1.0
    hf.depth_of_field(img, wall(), **LENS)
    planes = np.where(np.arange(W) < W // 2, np.float32(1.2), np.float32(6.0))
    hot = img * 0.1
    hot[60, 30] = hot[60, 150] = 1000.0
    hf.depth_of_field(hot, np.broadcast_to(planes, (H, W)).copy(), **LENS)
    assert calls == []
    hf.depth_of_field(hot, wall(), **LENS)  # (the same highlights on the wall: chosen)
    assert calls == [1]


@pytest.mark.parametrize("blades", [0, 3, 5])
def test_a_highlight_before_the_focus_plane_has_its_disk_turned_over(blades):
    """Before the focus plane a splat's disk is turned over, as the layers' spectra turn an
    odd polygon's (``disk_spectrum``): it lights the exact gather's pixels, near the
    image's edges too (its disk clipped there as the FFT's grid clips a layer's)."""
    depth = np.broadcast_to((0.6 + np.arange(W) / W).astype(np.float32), (H, W)).copy()
    for point in ((60, 40), (2, 40), (60, 3)):
        fast, exact = (lit_by(point, 1000.0, m, depth, blades=blades) for m in ("fast", "exact"))
        np.testing.assert_array_equal(np.abs(fast) > 1e-3, np.abs(exact) > 1e-3)


def test_highlights_past_the_budget_take_the_brightest_first_in_each_frame():
    """``choose``: between two disks (0 < t < 1), the largest of the colour planes past the
    level, each frame's brightest first while their areas fit the budget."""
    bright = np.array([[[9, 5, 7, 2]], [[1, 8, 6, 9]]], np.float32)  # (F=2, H=1, W=4)
    keys = np.array([[[4, 4, 4, 4]], [[-3, -3, -3, -3]]], np.int32)
    t = np.array([[[0.5, 0.5, 0.5, 0.5]], [[0.5, 0.0, 0.5, 0.5]]], np.float32)
    planes = np.stack([bright, bright / 2, np.zeros_like(bright)])  # (C, F, H, W)
    at = dof_splats.choose(np, planes, keys, t, np.float32([[[3]], [[3]]]), budget=8)
    # frame 0: 9 (4 px) and 7 (4 px) fit 8, 5 does not; frame 1: 9 and 6 (8 has t = 0)
    assert sorted(at.tolist()) == [0, 2, 6, 7]
    assert dof_splats.choose(np, planes, keys, t, 10.0, budget=8) is None


def test_many_splats_are_added_by_pixel_as_a_few_one_by_one(rng, monkeypatch):
    """Past :data:`STAMPS` a window's splats are added all at once, by pixel (overlapping
    disks summed): the same light as one by one, each its stamp."""
    depth = wall()
    img = np.full((H, W, 3), 0.1, np.float32)
    ys, xs = rng.integers(10, H - 10, 60), rng.integers(60, W - 10, 60)
    img[ys, xs] = rng.uniform(20, 200, (60, 3)).astype(np.float32)
    monkeypatch.setattr(dof_splats, "STAMPS", 0)  # (a window has a few of the 60)
    by_pixel = hf.depth_of_field(img, depth, **LENS)
    monkeypatch.setattr(dof_splats, "PART_PIXELS", 50)  # a disk or two at a time
    in_parts = hf.depth_of_field(img, depth, **LENS)
    monkeypatch.setattr(dof_splats, "STAMPS", 10_000)
    one_by_one = hf.depth_of_field(img, depth, **LENS)
    np.testing.assert_allclose(by_pixel, one_by_one, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(in_parts, by_pixel, rtol=1e-5, atol=1e-5)
    monkeypatch.setattr(dof_splats, "SPLAT_BUDGET", 0.0)
    assert np.abs(hf.depth_of_field(img, depth, **LENS) - by_pixel).max() > 0.1


def test_a_windows_still_highlight_is_splatted_as_a_frames(rng):
    """A render's window (two sub-frames of a still scene, one lens): the same as each
    sub-frame defocused alone, splats and all (the window's own path, ``dof_window``)."""
    from hfrender.backends.cpu import CPUBackend

    depth = wall()
    img = np.full((H, W, 3), 0.1, np.float32)
    img[60, 120] = img[30, 60] = 500.0
    frames = np.stack([img, img])
    ww = hf.WindowWeights.from_dense(np.array([[0.5, 0.5]]))
    lens = hf.Lens(2.0, 1.4, focal_length_mm=85.0)
    window = CPUBackend().fuse(frames, np.stack([depth, depth]), ww, [lens, lens], True)
    alone = hf.depth_of_field(img, depth, **LENS)
    np.testing.assert_allclose(window[0], alone, rtol=1e-5, atol=1e-5)
    lit = np.abs(window[0, ..., 0] - lit_by((60, 120), 0.1, "fast", depth) - 0.1) > 1e-3
    assert lit[40:80, 100:140].sum() == 89  # its own disk (the layer's larger: 109)


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    from cuda_emu import session_emulator

    from hfrender.backends.cuda import launches

    return launches.Device(np, session_emulator(tmp_path_factory).run)


def test_the_cuda_backend_splats_as_numpy_does(dev, rng, monkeypatch):
    """On the CPU emulator: two frames sharing one plan, highlights on a slanted wall,
    against the CPU backend (which adds a few one by one, the GPU by pixel)."""
    from hfrender.backends.cpu import CPUBackend
    from hfrender.backends.cuda import launches

    depth = np.stack([wall()] * 2)
    frames = np.full((2, H, W, 3), 0.1, np.float32) + rng.random((2, H, W, 3), np.float32) / 20
    frames[0, 60, 120] = frames[0, 30, 150] = 300.0
    frames[1, 70, 100] = 80.0
    lens = hf.Lens(2.0, 1.4, focal_length_mm=85.0)
    ww = hf.WindowWeights.from_dense(np.eye(2))
    gpu = np.empty((2, H, W, 3), np.float32)
    launches.fuse(dev, frames, depth, ww, [lens, lens], True, gpu)
    cpu = CPUBackend().fuse(frames, depth, ww, [lens, lens], True)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    monkeypatch.setattr(dof_splats, "SPLAT_BUDGET", 0.0)
    layers_alone = CPUBackend().fuse(frames, depth, ww, [lens, lens], True)
    assert np.abs(cpu - layers_alone).max() > 0.1  # splatted


def test_the_stamps_kept_are_the_disks_within_their_budget(monkeypatch):
    """Each disk's stamp is drawn once and kept (a thread's, least recently used out first
    past STAMP_BYTES: was 256 of any size, 160 MB of 400 px disks); a stamp kept is the
    disk, turned over before the focus plane."""
    from hfrender.dof_layers import FAR, NEAR, disk_tables

    monkeypatch.setattr(dof_splats, "_kept", __import__("threading").local())
    monkeypatch.setattr(dof_splats, "STAMP_BYTES", 3 * 4 * 41 ** 2)  # three 20 px stamps
    disk = (400, 5)
    offsets = disk_tables(*disk)[0]
    for area in (100, 400, 700, 900, 400):
        for side in (FAR, NEAR):
            r, mask = dof_splats._stamp(disk, area, side)
            d = offsets[:area] * (-1 if side == NEAR else 1)
            assert r == np.abs(d).max() and mask.sum() == area
            assert (mask[d[:, 0] + r, d[:, 1] + r] == 1).all()
            assert dof_splats._stamp(disk, area, side)[1] is mask  # kept
    kept = dof_splats._kept.stamps
    assert sum(m.nbytes for m in kept.values()) <= dof_splats.STAMP_BYTES
    assert list(kept)[-1] == (400, 5, NEAR) and len(kept) < 10  # (area, blades, side)


def test_a_focus_pull_shares_its_stamps_between_calls_and_draws_as_each_alone(rng,
                                                                           monkeypatch):
    """A disk of ``area`` pixels is the same disk whatever its call's largest blur (its
    tables' ``max_d2``: the first ``area`` offsets, whole rings): the stamps were kept by
    ``max_d2`` too, which a focus pulled each call changes, so calls drew their own (as the
    spectra were until c18997df). The pull draws bit for bit as each call with none kept."""
    from hfrender.dof_layers import disk_tables

    img = np.full((H, W, 3), 0.1, np.float32)
    ys, xs = rng.integers(10, H - 10, 12), rng.integers(5, W - 10, 12)
    img[ys, xs] = rng.uniform(20, 200, (12, 3)).astype(np.float32)
    drawn = []
    monkeypatch.setattr(dof_splats, "disk_tables", lambda *a: drawn.append(a) or disk_tables(*a))
    monkeypatch.setattr(dof_splats, "_kept", __import__("threading").local())

    def pulled(i):
        return hf.depth_of_field(img, wall(), **dict(LENS, focus_distance=1.5 + 0.05 * i))

    warm = [pulled(i) for i in range(12)]
    assert 10 < len(drawn) <= 30, len(drawn)  # (24 disks; 52 drawn before)
    for i in range(12):
        monkeypatch.setattr(dof_splats, "_kept", __import__("threading").local())
        assert np.array_equal(pulled(i), warm[i]), i
