"""A call over many frames makes the depth steps (circles of confusion, classes, plan) of
a frame whose depth and lens are the frame before's once (``backends/cpu/dof_plan.py``):
the pictures bit for bit a call a frame's."""

import numpy as np
from dof_fast_helpers import CPU, lens_for, slanted

import hfrender as hf
from hfrender.backends.cpu import dof_plan
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.backends.cpu.dof_plan import LastFrame, depth_steps


def test_a_frame_with_the_frame_befores_depth_and_lens_takes_its_steps(rng):
    img, depth = slanted(rng)
    lens = lens_for(depth, 16)
    last = LastFrame()
    first = depth_steps(depth, lens, depth.shape[1], depth.shape[0], last)
    again = depth_steps(depth.copy(), lens, depth.shape[1], depth.shape[0], last)  # equal
    assert again[0] is first[0] and again[2] is first[2]
    moved = depth.copy()
    moved[5, 7] *= np.float32(1.01)  # one pixel of another depth
    other = depth_steps(moved, lens, depth.shape[1], depth.shape[0], last)
    assert other[0] is not first[0] and other[0][5, 7] != first[0][5, 7]
    lens2 = hf.Lens(lens.focus_distance, lens.f_stop * 1.1)
    assert depth_steps(moved, lens2, depth.shape[1], depth.shape[0], last)[1] < other[1]
    alone = depth_steps(depth, lens, depth.shape[1], depth.shape[0])  # no call to share
    assert alone[0] is not first[0] and np.array_equal(alone[0], first[0])


def test_a_locked_off_shot_makes_its_plan_once_a_call_and_the_same_pictures(rng,
                                                                            monkeypatch):
    img, depth = slanted(rng)
    frames = np.ascontiguousarray(np.stack([img, img[:, ::-1], img * np.float32(0.5), img]))
    depths = np.ascontiguousarray(np.stack([depth] * 4))
    lens = lens_for(depth, 16)
    made = []
    real = dof_plan.squared_radii
    monkeypatch.setattr(dof_plan, "squared_radii", lambda *a: made.append(1) or real(*a))
    got = CPU.depth_of_field(frames, depths, lens, True)
    assert len(made) == 1  # once for the call's four frames
    for z in range(4):
        np.testing.assert_array_equal(got[z], defocus_fast(frames[z], depths[z], lens))
    assert len(made) == 5  # a frame alone: its own
    depths[2, 40:60, 30:50] = 0.6  # a frame of another depth: its own steps, then again
    made.clear()
    got = CPU.depth_of_field(frames, depths, lens, True)
    assert len(made) == 3
    np.testing.assert_array_equal(got[2], defocus_fast(frames[2], depths[2], lens))
    np.testing.assert_array_equal(got[3], defocus_fast(frames[3], depths[3], lens))
