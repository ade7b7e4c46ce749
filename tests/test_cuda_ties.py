"""More equal rivals at a pixel than the reconstruction blends (recon_ties.RIVALS): the
device keeps the same ones as the CPU, whatever order its threads ran in."""

import numpy as np
import pytest
from cuda_emu import session_emulator
from test_cuda_reconstruct import both

import hfrender as hf
from hfrender.backends.cpu.recon_ties import RIVALS
from hfrender.backends.cuda import launches

H, W = 15, 21
T = (7, 10)  # the pixel the 24 converge on


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return session_emulator(tmp_path_factory)


def converging(sign: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 24 pixels of the 5x5 square around T (seeded random colours, all 1 m away over a
    still ground 2 m away), each moving toward T (``sign`` 1) at 4 times its offset a frame:
    about a quarter frame after the shutter's middle all 24 land on T, 24 velocities at one
    depth; or (``sign`` -1) the velocities mirrored, away from T: they met there a quarter
    frame before the middle."""
    rng = np.random.default_rng(7)
    frame = np.full((H, W, 3), 0.1, np.float32)
    velocity = np.zeros((H, W, 2), np.float32)
    depth = np.full((H, W), 2.0, np.float32)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if dy or dx:
                at = (T[0] + dy, T[1] + dx)
                frame[at] = rng.random(3, dtype=np.float32)
                velocity[at] = (-4.0 * sign * dx, -4.0 * sign * dy)
                depth[at] = 1.0
    return frame, velocity, depth


def blurred(dev, frame, velocity, depth):
    """``hf.vector_blur``'s hyperframe (one sub-frame, the shutter +-half a frame), device
    and CPU."""
    times, ww = np.zeros(1), hf.WindowWeights(np.zeros(1, np.int64), np.ones((1, 1)))
    return both(dev, frame[None], depth[None], velocity[None], times, ww,
                np.array([[-0.5, 0.5]]))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_past_the_rivals_limit_the_device_keeps_the_cpus_smallest_velocities(emu, sign):
    """24 velocities at one pixel, one depth, more than RIVALS (8: the winner and 7 more):
    the device blends the same 8 as the CPU, the winner and the 7 smallest (vy, vx)
    (was: the first 8 of hf_rc_ties' list, built in thread order: 0.036 off mirrored),
    in index order and in two shuffled orders of its threads."""
    assert RIVALS == 8
    dev = launches.Device(np, emu.run)
    frame, velocity, depth = converging(sign)
    gpu, cpu = blurred(dev, frame, velocity, depth)
    np.testing.assert_allclose(gpu, cpu, rtol=0, atol=1e-5)
    assert np.abs(cpu[0] - frame).max() > 0.1  # (the blur is there)
    for seed in (1, 2):
        emu.shuffle = seed
        try:
            shuffled, _ = blurred(dev, frame, velocity, depth)
        finally:
            emu.shuffle = None
        np.testing.assert_allclose(shuffled, cpu, rtol=0, atol=1e-5)
