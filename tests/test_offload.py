"""Fusion in child processes (hfrender.engine.offload): hyperframes cross by place in a
shared arena, results and errors come back (their tracebacks, their types, the child's log),
a closed set refuses calls."""

import logging

import numpy as np
import pytest
from offload_helpers import (
    _filled,
    processes_fixture,  # noqa: F401  (the fixture)
    shared_pool_fixture,  # noqa: F401  (the fixture)
    two_cores_fixture,  # noqa: F401  (the fixture)
)

from hfrender.engine import offload
from hfrender.engine.offload import FusionProcessError, FusionProcesses
from hfrender.engine.render_fusion import fuse_frames
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.shared import ArrayRef, describe
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens


def test_a_hyperframe_crosses_by_place_and_the_child_reads_the_slot_as_it_is_now(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    shared = describe(hyper, shared_pool.storage)
    assert isinstance(shared.arrays["frames"], ArrayRef)  # an offset, not a copy
    assert isinstance(shared.arrays["depth"], ArrayRef)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "frames"), hyper.frames)
    hyper.frames[2:4] = rng.integers(0, 256, hyper.frames[2:4].shape, dtype=np.uint8)
    np.testing.assert_array_equal(processes.call(getattr, hyper, "frames"), hyper.frames)
    first, second = hyper.split(3, halo=1)  # views that start inside the slot
    np.testing.assert_array_equal(processes.call(getattr, second, "depth"), second.depth)
    turned = HyperFrame(frames=hyper.frames[::-1, :, ::-2])  # negative and uneven strides
    np.testing.assert_array_equal(processes.call(getattr, turned, "frames"), turned.frames)
    free = HyperFrame(frames=hyper.frames.copy())  # outside the arena: it travels as a copy
    assert isinstance(describe(free, shared_pool.storage).arrays["frames"], np.ndarray)
    np.testing.assert_array_equal(processes.call(getattr, free, "frames"), hyper.frames)
    first.release()
    second.release()


def test_frames_fused_in_the_child_are_the_frames_fused_here(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    hyper.lenses = [Lens(focus_distance=3.0 + i, f_stop=1.4, aperture_blades=5)
                    for i in range(6)]
    rows = rng.dirichlet(np.ones(3), size=2)
    windows = WindowWeights(np.array([0, 3]), rows)
    how = dict(backend="cpu", shutter=None, dof_method="fast", channels=slice(0, 3),
               dtype=np.dtype(np.uint16))
    here = fuse_frames(hyper, windows, **how)
    there = processes.call(fuse_frames, hyper, windows, **how)
    assert there.dtype == np.uint16 and there.shape == (2, 12, 16, 3)
    assert here.std() > 1000  # defocused noise, not a flat frame
    np.testing.assert_array_equal(there, here)
    hyper.release()


def test_an_error_in_the_child_is_raised_here_with_the_childs_traceback(
        shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    with pytest.raises(AttributeError, match="no_such_plane") as info:
        processes.call(getattr, hyper, "no_such_plane")
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "in the fusion process" in notes and "Traceback" in notes
    np.testing.assert_array_equal(processes.call(getattr, hyper, "depth"), hyper.depth)
    hyper.release()


def test_a_memory_error_in_the_child_stays_a_memory_error(shared_pool, processes, rng):
    hyper = _filled(shared_pool, rng)
    with pytest.raises(MemoryError):  # the engine splits the hyperframe on this
        processes.call(np.resize, hyper, (2**46,))
    hyper.release()


class _Unpicklable(MemoryError):
    def __init__(self, need, have):
        super().__init__(f"need {need} bytes, have {have}")


def test_an_error_that_does_not_pickle_comes_back_as_its_nearest_builtin():
    stand_in = offload._portable(_Unpicklable(10, 2))
    assert type(stand_in) is MemoryError
    assert str(stand_in) == "_Unpicklable: need 10 bytes, have 2"
    assert "in the fusion process" in "".join(stand_in.__notes__)


def test_the_childs_log_records_are_told_here(shared_pool, processes, rng, caplog):
    hyper = _filled(shared_pool, rng)
    caplog.set_level(logging.WARNING, logger="hfrender")
    processes.call(logging.getLogger("hfrender.backends.cpu.dof").warning, hyper)
    told = [r for r in caplog.records if r.name == "hfrender.backends.cpu.dof"]
    assert len(told) == 1 and told[0].levelno == logging.WARNING
    assert told[0].getMessage().startswith("HyperFrame((6, 12, 16, 4) uint8, ")  # (its repr)
    hyper.release()


def test_a_closed_set_of_processes_refuses_calls(shared_pool, rng):
    procs = FusionProcesses(shared_pool.storage)
    hyper = _filled(shared_pool, rng)
    procs.close()
    with pytest.raises(FusionProcessError, match="the fusion processes were closed"):
        procs.call(getattr, hyper, "frames")
    hyper.release()


def test_the_childs_planes_are_read_only_there(shared_pool, rng):
    hyper = _filled(shared_pool, rng)
    there = describe(hyper, shared_pool.storage).open(shared_pool.arena)
    np.testing.assert_array_equal(there.frames, hyper.frames)
    assert not there.frames.flags.writeable and not there.depth.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        there.frames[0, 0, 0, 0] = 1
    hyper.release()


class _OldException(Exception):
    add_note = None  # as on Python 3.10, which has no add_note


def test_a_childs_traceback_is_kept_as_a_note_on_python_3_10_too():
    stand_in = offload._portable(_OldException("broken"))
    assert "in the fusion process" in "".join(stand_in.__notes__)
    assert "_OldException: broken" in "".join(stand_in.__notes__)
