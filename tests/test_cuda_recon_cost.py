"""What the CUDA backend's reconstruction leaves out where the CPU's does: the rivals'
kernel where no sub-frame has two motions at one depth, and the outlier search in
sub-frames no window uses (on the CPU emulator, the pictures the CPU's)."""

import numpy as np
import pytest
from cuda_emu import session_emulator
from test_cuda_reconstruct import assert_close, both, one_window

import hfrender as hf
from hfrender.backends.cuda import reconstruct as cuda_rc

H, W = 12, 20


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return session_emulator(tmp_path_factory)


def squares(n: int, seed: int, equal: bool) -> tuple[np.ndarray, ...]:
    """``n`` sub-frames of seeded random colour over a still ground 4 m away, a square 1 m
    away moving 300 px a second one way and one 2 m away the other way; ``equal``: both
    at 1 m (two motions at one depth: rivals)."""
    rng = np.random.default_rng(seed)
    frames = rng.random((n, H, W, 4), dtype=np.float32)
    depth = np.full((n, H, W), 4.0, np.float32)
    velocity = np.zeros((n, H, W, 2), np.float32)
    velocity[:, 2:7, 3:9], depth[:, 2:7, 3:9] = (300.0, 120.0), 1.0
    velocity[:, 6:10, 12:17], depth[:, 6:10, 12:17] = (-300.0, 0.0), 1.0 if equal else 2.0
    return frames, depth, velocity


@pytest.mark.parametrize("equal", [False, True])
def test_the_rivals_kernel_runs_only_where_a_sub_frame_has_two_motions_at_one_depth(
        launched, equal):
    """Every motion at a depth of its own: no hf_rc_ties launch (was: one per source and
    chunk, 12 here), the CPU's picture; two at one depth: launched, the CPU's picture."""
    dev, names = launched
    frames, depth, velocity = squares(3, 4, equal)
    gpu, cpu = both(dev, frames, depth, velocity, *one_window(3))
    assert_close(gpu, cpu)
    assert ("hf_rc_ties" in names) == equal and "hf_rc_accumulate" in names


def test_outliers_are_looked_for_only_in_the_sub_frames_the_windows_use(launched,
                                                                         monkeypatch):
    """Five sub-frames, one window over frames 1-3 with frame 2 at weight 0: the outlier
    search runs on frames 1 and 3 alone (was: all five), the CPU's picture."""
    dev, _ = launched
    seen = []
    real = cuda_rc.outliers

    def counted(xp, velocity, moving, shutter):
        seen.append(next(j for j in range(5) if np.shares_memory(velocity, vel[j])))
        return real(xp, velocity, moving, shutter)

    monkeypatch.setattr(cuda_rc, "outliers", counted)
    frames, depth, vel = squares(5, 6, False)
    times = (np.arange(5) + 0.5) / 5 / 60 - 1 / 300
    ww = hf.WindowWeights(np.array([1]), np.array([[0.25, 0.0, 0.75]]))
    gpu, cpu = both(dev, frames, depth, vel, times, ww, np.array([[0.0, 1 / 60]]))
    assert_close(gpu, cpu)
    assert seen == [1, 3]
