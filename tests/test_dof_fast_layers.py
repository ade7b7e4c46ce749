"""The fast depth of field's layers: a plan's classes and layers (merged when they do not
fit, counted by sums), a window's grid as small as no wrapping allows, a box cut changing the
picture by rounding alone, a gather's light cleaned in its box's rows."""

import numpy as np
import pytest
from dof_fast_helpers import (
    FAR_FOOT,
    H,
    W,
    lens_for,
    pole,
    slanted,
)

from hfrender import dof_boxes
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.dof_fft import window
from hfrender.dof_layers import FAR, MAX_LAYERS, NEAR, disk_tables, make_plan


def test_a_plan_gives_each_class_a_layer_when_they_fit_and_merges_them_when_not():
    _, area_of_d2, _ = disk_tables(130)
    areas = np.unique(area_of_d2[1:])  # every disk of more than one pixel
    max_area = int(area_of_d2[-1])
    counts = np.zeros(2 * max_area + 1, np.int64)
    for key, n in ((-areas[9], 100), (-areas[1], 30), (areas[3], 500), (areas[11], 7)):
        counts[key + max_area] = n
    plan = make_plan(counts, max_area, max_d2=130)
    assert [(x.side, x.lo, x.hi) for x in plan.layers] == [
        (NEAR, areas[9], areas[9]), (NEAR, areas[1], areas[1]), (FAR, areas[3], areas[3]),
        (FAR, areas[11], areas[11])]
    assert not plan.t_of_key.any()
    counts[max_area + areas] = 10  # every far class: a slanted floor
    counts[max_area + areas[3]] = 500  # and a plane on it
    plan = make_plan(counts, max_area, max_d2=130)
    assert len(plan.layers) <= MAX_LAYERS
    far = [x for x in plan.layers if x.side == FAR]
    assert all(a.hi < b.lo for a, b in zip(far, far[1:], strict=False))  # ordered, disjoint
    keys = np.flatnonzero(counts) - max_area
    assert (plan.layer_of_key[keys + max_area] >= 0).all()  # every class has a layer
    t = plan.t_of_key[keys + max_area]
    assert (t >= 0).all() and (t <= 1).all() and (t > 0).any()
    assert (FAR, areas[3], areas[3]) in [(x.side, x.lo, x.hi) for x in plan.layers]  # a plane


@pytest.mark.parametrize("blades", [0, 6])
def test_the_plans_layer_count_by_sums_is_the_count_of_the_layers_it_stands_for(rng, blades):
    """The search's counter (:func:`dof_cells._counter`, every step at once) against
    counting the starts that :func:`dof_cells._starts` makes, on random classes and steps."""
    from hfrender.dof_cells import _counter, _starts

    _, area_of_d2, _ = disk_tables(900, blades)
    disks = np.unique(area_of_d2[area_of_d2 > 1])
    for _ in range(20):
        sides = [(np.sort(rng.choice(disks, int(rng.integers(0, 30)), replace=False)), None)
                 for _ in range(2)]
        peaks = [rng.random(len(a)) < 0.15 for a, _ in sides]
        steps = rng.uniform(1e-3, 3.0, 8)
        want = [sum(int(_starts(a, p, step).sum()) for (a, _), p in zip(sides, peaks,
                                                                        strict=True))
                for step in steps]
        got = _counter(sides, peaks)(steps)
        assert got.tolist() == want, (steps, [len(a) for a, _ in sides])


def _smaller_smooth(n):
    """The largest 5-smooth number below ``n``."""
    def smooth(k):
        for p in (2, 3, 5):
            while k % p == 0:
                k //= p
        return k == 1
    return next(k for k in range(n - 1, 0, -1) if smooth(k))


@pytest.mark.parametrize("box", [(30, 44, 50, 96), (0, 12, 0, 200), (100, 120, 150, 200),
                                 (5, 60, 20, 180), (50, 70, 0, 40)])
def test_a_window_grid_is_as_small_as_nothing_wrapping_around_allows(rng, box):
    """What the box's light spreads to by a disk of ``reach``, on the window's grid
    (circular), equals the plain convolution over the window (what a box's pixels gather
    is the same sums turned over); a box inside the image needs no guard band, and the next
    smaller 5-smooth grid wraps around into the window."""
    reach = 17
    offsets, _, _ = disk_tables(reach * reach)
    win = window(box, reach, H, W)
    (y0, y1, x0, x1), (h, w) = box, win.size
    inside = box[0] >= reach and box[1] <= H - reach and box[2] >= reach and box[3] <= W - reach
    assert (win.shape == (h, w)) == inside  # the inner box's window is 48 x 80: 5-smooth
    field = rng.random((y1 - y0, x1 - x0))

    def error(grid):
        ring, line = np.zeros(grid), np.zeros((grid[0] + 2 * reach, grid[1] + 2 * reach))
        ring[y0 - win.y0:y1 - win.y0, x0 - win.x0:x1 - win.x0] = field
        start = ring.copy()
        ring[:] = 0
        for dy, dx in offsets:
            ring += np.roll(start, (dy, dx), axis=(0, 1))
            line[reach + dy:reach + dy + grid[0], reach + dx:reach + dx + grid[1]] += start
        return np.abs(ring[:h, :w] - line[reach:reach + h, reach:reach + w]).max()

    assert error(win.shape) < 1e-9
    for axis in (0, 1):
        fewer = list(win.shape)
        fewer[axis] = _smaller_smooth(fewer[axis])
        if fewer[axis] >= (h, w)[axis]:  # a guarded side: the guard is needed to the point
            assert error(tuple(fewer)) > 0.01, (axis, fewer)


@pytest.mark.parametrize(("foot", "coc"), [(int(H * 0.85), 24), (FAR_FOOT, 8), (FAR_FOOT, 24)])
def test_cutting_a_layers_box_changes_the_picture_by_rounding_alone(rng, monkeypatch, foot,
                                                                    coc):
    """:func:`pole` with every box cut that makes a grid smaller, against no cuts at all:
    each pixel's light is transformed once and gathered once, whichever box holds it, and
    a far layer's own light, in any of its boxes, is never gathered as behind it."""
    img, depth = pole(rng, foot)
    lens = lens_for(depth, coc)
    monkeypatch.setattr(dof_boxes, "WINDOW_COST", 10 ** 12)
    whole = defocus_fast(img, depth, lens)
    cut = []
    real = dof_boxes._cuts

    def counted(first, last, reach):
        parts = real(first, last, reach)
        cut.append(len(parts))
        return parts

    monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
    monkeypatch.setattr(dof_boxes, "_cuts", counted)
    parts = defocus_fast(img, depth, lens)
    assert max(cut) >= 2  # the pole's layer: the pole and the floor band at its foot
    np.testing.assert_allclose(parts, whole, rtol=0, atol=2e-6 * float(img.max()))


@pytest.mark.parametrize("scene", [slanted, pole])  # (planes: no gather, far light spreads)
def test_a_gathers_light_cleaned_in_its_box_rows_alone_gives_the_whole_windows_picture(
        rng, scene, monkeypatch):
    """A gather reads its box's rows alone, so its rounding is taken out there alone (by the
    largest values of its whole window): the picture of cleaning every row, bit for bit.
    A sparse channel (all but a few pixels dark) makes the cleaning matter."""
    from hfrender.backends.cpu import dof_fast

    monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)  # cut boxes: windows past their boxes
    img, depth = scene(rng)
    img[..., 2] = 0.0
    img[::37, ::41, 2] = 50.0
    lens = lens_for(depth, 24)
    in_rows = defocus_fast(img, depth, lens)
    ready, asked = dof_fast._Ops.ready, []

    def everywhere(self, light, rows=None):
        asked.append(rows)
        return ready(self, light)

    monkeypatch.setattr(dof_fast._Ops, "ready", everywhere)
    assert np.array_equal(in_rows, defocus_fast(img, depth, lens))
    assert any(rows is not None for rows in asked)
