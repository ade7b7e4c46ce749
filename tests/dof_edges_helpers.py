"""The defocused-edge tests' shared pieces: ``card`` (a disc at ``NEAR`` before a wall in
focus at ``FOCUS``, ``H`` x ``W``) and the ``dev`` fixture (the CUDA emulator's device)."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender.backends.cuda import launches

H, W = 96, 160
FOCUS, NEAR = 2.0, 0.5


def card(rng):
    """A disc of one colour at NEAR before a wall of another in focus, away from the
    borders; the lens, and the disc's mask."""
    yy, xx = np.mgrid[0:H, 0:W]
    cy, cx, radius = rng.integers(36, 60), rng.integers(50, 110), rng.uniform(9, 15)
    mask = (yy - cy) ** 2 + (xx - cx) ** 2 < radius ** 2
    fg, bg = (rng.random(3, dtype=np.float32) + np.float32(0.05) for _ in range(2))
    img = np.where(mask[..., None], fg, bg).astype(np.float32)
    depth = np.where(mask, NEAR, FOCUS).astype(np.float32)
    return img, depth, hf.Lens(FOCUS, float(rng.uniform(2.4, 3.2))), mask


@pytest.fixture(name="dev", scope="module")
def dev_fixture(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)
