"""Frames that share one plan of the CUDA backend's fast depth of field
(``hfrender/backends/cuda/dof_plans.py``): which frames do, their classes counted on the
device, and the pictures (the kernels on the CPU emulator) against the CPU's frame by frame
and the exact gather."""

import dataclasses

import numpy as np
import pytest
from cuda_emu import session_emulator
from test_dof_fast import CPU, FOCUS, lens_for, psnr, slanted

import hfrender as hf
from hfrender.backends.cpu.dof import squared_radii
from hfrender.backends.cuda import dof as cuda_dof
from hfrender.backends.cuda import launches
from hfrender.backends.cuda.dof_plans import (
    MAX_LAYERS,
    PLAN_PIXELS,
    SHARE_SLACK,
    frame_classes,
    plan_of,
    plan_pixels,
    plan_runs,
)
from hfrender.dof_layers import classes, disk_tables, make_plan


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


def histograms(*class_sets, size=201):
    """Each frame's histogram (index key + 100) with 10 pixels in each class of its set
    (keys in -100 .. 100; a key of 0 is the pixels in focus)."""
    counts = np.zeros((len(class_sets), size), np.int64)
    for z, keys in enumerate(class_sets):
        counts[z, np.asarray(list(keys), int) + size // 2] = 10
    return counts


LENS = hf.Lens(2.0, 1.4)


def test_frames_with_the_same_classes_share_plans_as_many_as_the_pixels_hold():
    counts = histograms(*[range(1, 41)] * 7)
    blurred, lenses = np.full(7, 50), [LENS] * 7
    assert plan_runs(counts, blurred, lenses, 100, 300) == [(0, 3), (3, 6), (6, 7)]
    assert plan_runs(counts, blurred, lenses, 100, 0) == [(z, z + 1) for z in range(7)]
    assert plan_runs(counts, blurred, lenses, 100, 10**6) == [(0, 7)]
    # through another lens (a focus pulled), a frame's plan is its own
    lenses[3] = hf.Lens(2.1, 1.4)
    assert plan_runs(counts, blurred, lenses, 100, 10**6) == [(0, 3), (3, 4), (4, 7)]


def test_frames_in_focus_throughout_are_runs_of_their_own():
    counts = histograms([0], [0], range(1, 30), range(1, 30), [0], range(1, 30))
    most = np.array([0, 0, 9, 9, 0, 9])
    assert plan_runs(counts, most, [LENS] * 6, 100, 10**6) == [(0, 2), (2, 4), (4, 5), (5, 6)]


def test_a_frame_whose_classes_widen_the_plans_too_much_starts_its_own():
    base = range(1, 41)  # 40 classes (over the layers a plan holds unmerged)
    most, lenses = np.full(2, 50), [LENS] * 2
    within = int(40 * SHARE_SLACK)  # the classes the second frame may add
    for shift, runs in ((within, [(0, 2)]), (within + 1, [(0, 1), (1, 2)])):
        counts = histograms(base, range(1 + shift, 41 + shift))  # a slanted floor moved
        assert plan_runs(counts, most, lenses, 1, 10**6) == runs, shift
    wider = histograms(base, range(1, 61))  # more classes in the second: none new to it
    assert plan_runs(wider, most, lenses, 1, 10**6) == [(0, 2)]
    # however different, a few classes together keep a layer each: nothing merges
    small = histograms(range(1, MAX_LAYERS // 2 + 1), range(-MAX_LAYERS // 2, 0))
    assert plan_runs(small, most, lenses, 1, 10**6) == [(0, 2)]
    small = histograms(range(1, MAX_LAYERS // 2 + 2), range(-MAX_LAYERS // 2, 0))
    assert plan_runs(small, most, lenses, 1, 10**6) == [(0, 1), (1, 2)]


def test_a_devices_memory_sets_the_pixels_of_a_plan():
    assert plan_pixels(141 * 2**30) == PLAN_PIXELS  # an H200: the most
    assert plan_pixels(8 * 2**30) == 2**30 // 512  # a small card: an eighth of it
    assert plan_pixels(0) == 0


def test_each_frames_classes_counted_at_once_are_its_own(rng):
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
    want, got = make_plan(own_counts, max_area, d2), plan_of(counts[1:2], d2, 0)
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
    assert runs == [[(0, 5)]]
    assert {grid[2] for name, grid in launched if name == "hf_dof_accumulate"} == {5}
    for z in range(5):
        want = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True)[0]
        np.testing.assert_allclose(got[z], want, rtol=1e-5, atol=1e-5)
        sharp = np.abs(depths[z] - FOCUS) < 1e-6
        assert sharp.sum() > 100 and np.array_equal(got[z][sharp], lin[z][sharp])


def test_a_focus_pulls_frames_keep_each_its_own_plan(dev, rng, monkeypatch):
    """A fast focus pull (0.6 to 2.5 m over six frames, f/1.4): counting classes alone let
    three frames share a plan 7 dB further from the exact gather; through six lenses each
    frame has its own plan and picture, at least 40 dB from the exact gather."""
    img, depth = slanted(rng)
    lin = np.ascontiguousarray(np.stack([img] * 6))
    depths = np.ascontiguousarray(np.stack([depth] * 6))
    lenses = [hf.Lens(0.6 + 0.38 * z, 1.4) for z in range(6)]
    runs = []
    monkeypatch.setattr(cuda_dof, "plan_runs", lambda *a: runs.append(plan_runs(*a)) or runs[-1])
    shared = cuda_dof.defocus_frames(dataclasses.replace(dev, dof_plan_pixels=depths.size),
                                     lin, depths, lenses)
    assert runs == [[(z, z + 1) for z in range(6)]]
    alone = cuda_dof.defocus_frames(dev, lin, depths, lenses)
    np.testing.assert_array_equal(shared, alone)
    for z, lens in enumerate(lenses):
        exact = CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True,
                                   dof_method="exact")[0]
        assert psnr(shared[z], exact) >= 40.0, z
