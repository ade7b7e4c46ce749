"""Frames that share one plan of the CUDA backend's fast depth of field
(``hfrender/backends/cuda/dof_plans.py``): which frames do, their classes counted on the
device, and the pictures (the kernels on the CPU emulator) against the CPU's frame by frame
and the exact gather."""

import dataclasses

import numpy as np
import pytest
from cuda_emu import session_emulator
from dof_fast_helpers import CPU, FOCUS, lens_for, psnr, slanted

import hfrender as hf
from hfrender.backends.cpu.dof import squared_radii
from hfrender.backends.cuda import dof as cuda_dof
from hfrender.backends.cuda import dof_plans, launches
from hfrender.backends.cuda.dof_plans import (
    PLAN_PIXELS,
    frame_classes,
    plan_of,
    plan_pixels,
    plan_runs,
)
from hfrender.dof_layers import classes, disk_tables, make_plan


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


MOST = 120  # the frames' largest floor(r^2) in the tests of plan_runs
AREAS = np.unique(disk_tables(MOST)[1])[1:]  # every disk of more than one pixel
SIZE = 2 * int(AREAS[-1]) + 1


def histograms(*frames):
    """Each frame's histogram (index key + the largest area): ``frames`` are dicts of
    {key: pixels}, a key ``side * area`` (0: the pixels in focus)."""
    counts = np.zeros((len(frames), SIZE), np.int64)
    for z, classes_of in enumerate(frames):
        for key, pixels in classes_of.items():
            counts[z, key + SIZE // 2] = pixels
    return counts


FLOOR = {int(a): 50 for a in AREAS[:40]}  # a slanted floor: 40 classes, merged into layers


def test_frames_with_the_same_plan_share_it_as_many_as_the_pixels_hold(monkeypatch):
    counts, most = histograms(*[FLOOR] * 7), np.full(7, MOST)
    made = []  # the same histogram as the frame before: its plan (one depth frame a shot)
    monkeypatch.setattr(dof_plans, "make_plan", lambda *a, **k: made.append(1) or make_plan(
        *a, **k))
    runs = plan_runs(counts, most, 0, 100, 300)
    assert [r for r, _ in runs] == [(0, 3), (3, 6), (6, 7)] and len(made) == 1
    counts[4, SIZE // 2 + int(AREAS[0])] += 1  # a pixel more in one frame: its plan is made
    assert len(plan_runs(counts, most, 0, 100, 300)) == 3 and len(made) == 4
    assert runs[0][1].layers == plan_of(counts[0], MOST, 0).layers
    assert [r for r, _ in plan_runs(counts, most, 0, 100, 0)] == [(z, z + 1) for z in range(7)]
    assert [r for r, _ in plan_runs(counts, most, 0, 100, 10**6)] == [(0, 7)]
    monkeypatch.setattr(dof_plans, "MAX_GRID_Z", 2)  # no more frames than a launch's grid z
    assert [r for r, _ in plan_runs(counts, most, 0, 1, 10**6)] == [(0, 2), (2, 4), (4, 6),
                                                                    (6, 7)]


def test_frames_in_focus_throughout_are_runs_of_their_own():
    counts = histograms({0: 9}, {0: 9}, FLOOR, FLOOR, {0: 9}, FLOOR)
    runs = plan_runs(counts, np.array([0, 0, MOST, MOST, 0, MOST]), 0, 100, 10**6)
    assert [r for r, _ in runs] == [(0, 2), (2, 4), (4, 5), (5, 6)]
    assert [plan is None for _, plan in runs] == [True, False, True, False]


def test_a_frame_whose_own_plan_differs_starts_a_run_of_its_own():
    """The same classes, but in one frame a dense one (a wall) that its own plan gives a
    layer of its own: that frame's plan is its own (the run's would merge the wall)."""
    wall = {**FLOOR, int(AREAS[30]): 5000}
    assert plan_of(histograms(wall)[0], MOST, 0).layers != plan_of(
        histograms(FLOOR)[0], MOST, 0).layers
    runs = plan_runs(histograms(FLOOR, wall, FLOOR, FLOOR), np.full(4, MOST), 0, 1, 10**6)
    assert [r for r, _ in runs] == [(0, 1), (1, 2), (2, 4)]
    pulled = {-k: n for k, n in FLOOR.items()}  # the focus pulled: the floor before it
    runs = plan_runs(histograms(FLOOR, pulled), np.full(2, MOST), 0, 1, 10**6)
    assert [r for r, _ in runs] == [(0, 1), (1, 2)]


def test_a_run_gathers_the_pixels_in_focus_where_any_of_its_frames_has_some():
    runs = plan_runs(histograms(FLOOR, {**FLOOR, 0: 300}, FLOOR), np.full(3, MOST), 0, 1,
                     10**6)
    assert [r for r, _ in runs] == [(0, 3)] and runs[0][1].focus
    assert not plan_runs(histograms(FLOOR, FLOOR), np.full(2, MOST), 0, 1, 10**6)[0][1].focus


def test_a_devices_memory_sets_the_pixels_of_a_plan():
    assert plan_pixels(141 * 2**30) == PLAN_PIXELS  # an H200: the most
    assert plan_pixels(8 * 2**30) == 2**30 // 512  # a small card: an eighth of it
    assert plan_pixels(0) == 0


@pytest.mark.parametrize("bins", [dof_plans.COUNTS_AT_ONCE, 1])
def test_each_frames_classes_counted_at_once_are_its_own(rng, monkeypatch, bins):
    """All frames' histograms in one pass, or (``bins`` 1: a huge blur's) a frame a pass."""
    monkeypatch.setattr(dof_plans, "COUNTS_AT_ONCE", bins)
    img, depth = slanted(rng)
    depths = np.ascontiguousarray(np.stack([depth, depth[::-1], depth * np.float32(1.3)]))
    lenses = [lens_for(depth, 12), hf.Lens(0.8, 2.0), hf.Lens(3.0, 1.4)]
    r2 = np.stack([squared_radii(d, ln, depth.shape[1], depth.shape[0])[0]
                   for d, ln in zip(depths, lenses, strict=True)])
    max_d2 = int(np.floor(r2.max()))
    keys, counts = frame_classes(np, r2, depths, np.array([ln.focus_distance for ln in lenses]),
                                 max_d2, 0)
    for z, lens in enumerate(lenses):
        want_keys, want_counts = classes(np, r2[z], depths[z], lens.focus_distance, max_d2)
        np.testing.assert_array_equal(keys[z], want_keys)
        np.testing.assert_array_equal(counts[z], want_counts)
    # one frame's plan from the call's histograms is the plan of its own classes
    d2 = int(np.floor(r2[1].max()))
    own_keys, own_counts = classes(np, r2[1], depths[1], lenses[1].focus_distance, d2)
    max_area = int(disk_tables(d2)[1][-1])
    want, got = make_plan(own_counts, max_area, d2), plan_of(counts[1], d2, 0)
    assert got.layers == want.layers and got.max_area == want.max_area
    np.testing.assert_array_equal(got.layer_of_key, want.layer_of_key)


def pan(rng, frames, step=3):
    """The slanted scene panned ``step`` pixels a frame."""
    img, depth = slanted(rng)
    lin = np.ascontiguousarray(np.stack([np.roll(img, step * z, axis=1)
                                         for z in range(frames)]))
    return lin, np.ascontiguousarray(np.stack([np.roll(depth, step * z, axis=1)
                                               for z in range(frames)]))


def test_a_pans_frames_share_a_plan_and_keep_each_its_own_picture(dev, rng, monkeypatch):
    """Five frames of a pan share one plan (the same classes): each frame's picture is
    the CPU's of that frame alone, with five frames' work in each launch."""
    lin, depths = pan(rng, 5)
    lens = lens_for(depths[0], 16)
    runs, launched = [], []
    monkeypatch.setattr(cuda_dof, "plan_runs", lambda *a: runs.append(plan_runs(*a)) or runs[-1])
    own = dataclasses.replace(dev, dof_plan_pixels=depths.size, run=lambda *a: (
        launched.append(a[:2]), dev.run(*a)))
    got = cuda_dof.defocus_frames(own, lin, depths, [lens] * 5)
    assert [r for r, _ in runs[0]] == [(0, 5)]
    assert {grid[2] for name, grid in launched if name == "hf_dof_accumulate"} == {5}
    for z in range(5):
        want = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True)[0]
        np.testing.assert_allclose(got[z], want, rtol=1e-5, atol=1e-5)
        sharp = np.abs(depths[z] - FOCUS) < 1e-6
        assert sharp.sum() > 100 and np.array_equal(got[z][sharp], lin[z][sharp])


def test_a_focus_pulls_frames_keep_each_its_own_plan(dev, rng, monkeypatch):
    """A fast focus pull (0.6 to 2.5 m over six frames, f/1.4): counting the classes
    together let three frames share a plan 7 dB further from the exact gather; each
    frame's own plan differs, so each keeps it: each the CPU's frame alone, at least 40 dB
    from the exact gather."""
    img, depth = slanted(rng)
    lin = np.ascontiguousarray(np.stack([img] * 6))
    depths = np.ascontiguousarray(np.stack([depth] * 6))
    lenses = [hf.Lens(0.6 + 0.38 * z, 1.4) for z in range(6)]
    runs = []
    monkeypatch.setattr(cuda_dof, "plan_runs", lambda *a: runs.append(plan_runs(*a)) or runs[-1])
    shared = cuda_dof.defocus_frames(dataclasses.replace(dev, dof_plan_pixels=depths.size),
                                     lin, depths, lenses)
    assert [r for r, _ in runs[0]] == [(z, z + 1) for z in range(6)]
    for z, lens in enumerate(lenses):  # (each the CPU's frame alone: was the emulator's
        # frames again one plan at a time, 26 s of the suite's slowest test)
        want = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True)[0]
        np.testing.assert_allclose(shared[z], want, rtol=1e-5, atol=1e-5)
        exact = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True,
                                   dof_method="exact")[0]
        assert psnr(shared[z], exact) >= 40.0, z


def test_a_frame_with_a_wall_of_its_own_keeps_its_own_plan_and_picture(dev, rng, monkeypatch):
    """Four frames of the slanted scene, the first with a near wall at a distance the floor
    has too (the same classes): the wall's dense class gets a layer of its own in that
    frame's plan, which the frames' classes counted together merged (47 against 53 dB from
    the exact gather, a review's case). That frame keeps its own plan, the other three share
    one, and each is the CPU's frame alone."""
    img, depth = slanted(rng)
    depths = np.stack([depth] * 4)
    depths[0, 5:45, 100:140] = 0.45
    lin, depths = np.ascontiguousarray(np.stack([img] * 4)), np.ascontiguousarray(depths)
    lens = lens_for(depth, 16)
    runs = []
    monkeypatch.setattr(cuda_dof, "plan_runs", lambda *a: runs.append(plan_runs(*a)) or runs[-1])
    got = cuda_dof.defocus_frames(dataclasses.replace(dev, dof_plan_pixels=depths.size), lin,
                                  depths, [lens] * 4)
    assert [r for r, _ in runs[0]] == [(0, 1), (1, 4)]
    for z in range(4):
        want = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True)[0]
        np.testing.assert_allclose(got[z], want, rtol=1e-5, atol=1e-5)
