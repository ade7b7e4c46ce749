"""What the fusion-process tests share: ``two_cores`` (autouse: every decision as on CI's 2
cores), a ``shared_pool`` and ``processes`` over it, ``_filled`` (a slot of random planes) and
``_alive`` (a pid not yet a zombie), and the repository's ``ROOT``."""

from pathlib import Path

import numpy as np
import pytest

from hfrender.engine import render_setup
from hfrender.engine.offload import FusionProcesses
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.pool import HyperFramePool
from hfrender.hyperframe.shared import SharedArena

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(name="two_cores", autouse=True)
def two_cores_fixture(monkeypatch):
    """Every decision as on CI's 2 cores, whatever this machine has."""
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 2)


@pytest.fixture(name="shared_pool")
def shared_pool_fixture():
    pool = HyperFramePool((12, 16, 4), np.uint8, capacity=6, depth=True, slots=2,
                          storage=SharedArena())
    yield pool
    pool.storage.release()


@pytest.fixture(name="processes")
def processes_fixture(shared_pool):
    procs = FusionProcesses(shared_pool.storage)
    yield procs
    procs.close()


def _filled(pool, rng):
    slot = pool.acquire()
    slot.frames[:] = rng.integers(0, 256, slot.frames.shape, dtype=np.uint8)
    slot.depth[:] = rng.uniform(1.0, 9.0, slot.depth.shape).astype(np.float32)
    return HyperFrame(frames=slot.frames, depth=slot.depth, timestamps=np.arange(6) / 48,
                      slot=slot, pool=pool)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in fh)
    except FileNotFoundError:
        return False
