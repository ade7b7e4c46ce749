"""Every path that splits, carries, copies, shares or keeps a hyperframe takes each of its
per-frame arrays (``frame.ARRAYS``): a new one forgotten in one place fails here."""

from dataclasses import fields

import numpy as np
import pytest

import hfrender as hf
from hfrender.engine.keep import SampleKeeper
from hfrender.hyperframe import shared
from hfrender.hyperframe.builder import HyperFrameBuilder
from hfrender.hyperframe.frame import ARRAYS, HyperFrame
from hfrender.sampler import SampleSchedule
from tests.store_helpers import SETTINGS

NOT_PER_FRAME = {"first_index", "halo", "overlap", "priority", "status", "retry_count",
                 "created_at", "lenses", "slot", "pool", "_released", "_parts"}
H, W = 3, 4
SHAPES = {"frames": (H, W, 4), "timestamps": (), "apertures": (2,), "shifts": (2,),
          "depth": (H, W), "velocity": (H, W, 2)}  # a test of a new array adds its shape


def seeded(n, seed=7):
    """Distinct seeded values for each of ARRAYS over ``n`` frames (times rising)."""
    rng = np.random.default_rng(seed)
    out = {k: rng.random((n, *SHAPES[k])) for k in ARRAYS}
    out["frames"] = rng.integers(0, 256, (n, *SHAPES["frames"]), np.uint8)
    out["depth"] = out["depth"].astype(np.float32)
    out["velocity"] = out["velocity"].astype(np.float32)
    out["timestamps"] = np.sort(out["timestamps"])
    return out


def assert_rows(hyper, want, first=None):
    lo = hyper.first_index if first is None else first
    for k in ARRAYS:
        got = getattr(hyper, k)
        assert got is not None, k
        np.testing.assert_array_equal(np.asarray(got), want[k][lo : lo + hyper.frame_count],
                                      err_msg=k)


def built(want, halo=2, granularity=4, storage=None):
    """The hyperframes of a builder fed ``want``'s rows and planes, as a render feeds it
    (each released when the next is asked for)."""
    n = len(want["timestamps"])
    builder = HyperFrameBuilder.create((H, W, 4), np.uint8, halo=halo, granularity=granularity,
                                       depth=True, velocity=True, storage=storage)
    for i in range(n):
        target = builder.reserve(float(want["timestamps"][i]), None,
                                 tuple(want["apertures"][i]), tuple(want["shifts"][i]))
        target.color[...] = want["frames"][i]
        target.depth[...] = want["depth"][i]
        target.velocity[...] = want["velocity"][i]
        for h in (builder.commit(), builder.flush_remaining() if i == n - 1 else None):
            if h is not None:
                yield h
                h.release()


def test_every_per_frame_field_of_a_hyperframe_is_in_arrays():
    names = {f.name for f in fields(HyperFrame)}
    assert names - NOT_PER_FRAME == set(ARRAYS) and set(SHAPES) == set(ARRAYS)


def test_split_keeps_every_array():
    want = seeded(6)
    a, b = HyperFrame(**want, overlap=2).split(3)
    assert (a.first_index, b.first_index) == (0, 1)
    assert_rows(a, want)
    assert_rows(b, want)


def test_the_builder_and_its_halo_keep_every_array():
    want = seeded(11)
    seen = []
    for h in built(want):
        assert_rows(h, want)
        seen.append((h.first_index, h.halo, h.frame_count))
    assert seen == [(0, 0, 4), (2, 2, 4), (4, 2, 4), (6, 2, 4), (8, 2, 3)]


@pytest.mark.skipif(not shared.available(), reason="no memfd on this system")
def test_a_hyperframe_for_another_process_keeps_every_array():
    want = seeded(7)
    arena = shared.SharedArena()
    for h in built(want, storage=arena):
        assert_rows(shared.describe(h, arena).open(h.pool.arena), want)
    arena.release()


def test_a_sample_store_and_its_hyperframes_keep_every_array(tmp_path):
    frames = 3
    want = seeded(2 * frames)
    want["timestamps"] = SampleSchedule(30.0, 180.0, "center", "box", 2).plan(frames).times
    keeper = SampleKeeper(str(tmp_path / "s.samples"), {**SETTINGS, "frames": frames}, (W, H))
    for h in built(want):
        keeper.add(h)
    assert keeper.close(None, frames, type("Stats", (), {})()) is None
    store = hf.SampleStore.open(tmp_path / "s.samples")
    got = list(store.hyperframes(granularity=4))
    assert [(h.first_index, h.halo, h.frame_count) for h in got] == [(0, 0, 4), (4, 0, 2)]
    for h in got:
        assert_rows(h, want)
