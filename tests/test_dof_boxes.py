"""Where the fast depth of field runs its FFTs (:mod:`hfrender.dof_boxes`): the rows and
columns of each layer's pixels, bands of rows, boxes cut where a window of its own pays, the
same from the host's table of every row's columns (the CPU) as from the table the CUDA
backend's ``hf_dof_spans`` writes (on the CPU emulator)."""

import numpy as np
import pytest
from cuda_emu import session_emulator

from hfrender import dof_boxes
from hfrender.backends.cuda import launches
from hfrender.dof_boxes import EMPTY, Spans, bands, layer_boxes, span_table


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


def test_a_band_whose_rows_all_hold_pixels_is_left_uncut_only_where_no_cut_pays(rng,
                                                                              monkeypatch):
    """The shortcut (:func:`dof_boxes._uncut`) gives the cuts the full search gives."""
    cuts = dof_boxes._cuts
    uncut = 0
    for _ in range(300):
        n, reach = int(rng.integers(2, 200)), int(rng.integers(1, 40))
        kind = rng.integers(3)  # a floor band, a pole on one, rows of any width
        first = rng.integers(0, 30 if kind < 2 else 300, n)
        last = first + rng.integers(0, 30, n) + (600 if kind == 0 else 0)
        if kind == 1:  # the narrow rows of a pole on the wide ones of a floor band
            wide = slice(int(rng.integers(1, n)), None)
            first[wide], last[wide] = 0, int(rng.integers(300, 2000))
        shortcut = dof_boxes._uncut(first, last, 2 * reach)
        with monkeypatch.context() as m:
            m.setattr(dof_boxes, "_uncut", lambda *a: False)
            full = cuts(first, last, reach)
        assert cuts(first, last, reach) == full
        if shortcut:
            uncut += 1
            assert full == [(0, n)]
    assert uncut > 30  # the shortcut was taken, and not always
    assert uncut < 290


def test_the_spans_kernel_finds_every_layers_first_and_last_column_in_each_row(dev, rng):
    """Rows over several blocks of threads; runs of a layer, single pixels, rows in focus
    alone; a layer index past the plan's (none should be) is left out, not written."""
    n, h, w = 6, 300, 41
    layer = rng.integers(-1, n, (h, w)).astype(np.int32)
    layer[rng.integers(0, h, 60)] = rng.integers(-1, n)  # rows of one layer (runs)
    layer[3] = -1  # a row in focus alone
    layer[7] = -1
    layer[7, 5] = 2  # one pixel of one layer
    layer[11] = n - 1  # a row of the last layer alone
    layer[290, 0] = n  # past the plan's layers
    first, last = np.full((n + 1, h), w, np.int32), np.full((n + 1, h), -1, np.int32)
    dev.launch("hf_dof_spans", launches._grid(h), (launches.BLOCK, 1, 1),
               (layer, np.int32(h), np.int32(w), np.int32(n), first, last))
    want = _spans_table(np.where(layer < n, layer, -9), n)
    np.testing.assert_array_equal(first, want[0])
    np.testing.assert_array_equal(last, want[1])
    assert first[2, 7] == last[2, 7] == 5 and (last[:n, 3] == -1).all()
    assert (first[n, 3], last[n, 3]) == (0, w - 1)  # the pixels in focus: entry n
    assert (last[n - 1, 11], first[n - 1, 11]) == (w - 1, 0)


def test_a_pole_on_the_floor_band_of_its_distance_gets_a_box_of_its_own():
    """One layer: a pole one pixel wide (column 50, rows 0-79) on a floor band (rows 80-89),
    and apart from them a block. The band's box is cut at the pole's foot where a cut saves
    more than a window costs; the block stays whole; every pixel is in exactly one box."""
    layer = np.full((120, 200), -1, np.int32)
    layer[0:80, 50] = 0
    layer[80:90] = 0
    layer[105:115, 20:60] = 0
    spans = Spans.of_layers(layer, 1)
    boxes = layer_boxes(spans, 0, 4)
    assert boxes == [(0, 80, 50, 51), (80, 90, 0, 200), (105, 115, 20, 60)]
    count = np.zeros(layer.shape, int)
    for y0, y1, x0, x1 in boxes:
        count[y0:y1, x0:x1] += layer[y0:y1, x0:x1] == 0
    assert (count == (layer == 0)).all()
    assert layer_boxes(spans, 0, 6)[:2] == [(0, 80, 50, 51), (80, 90, 0, 200)]
    # a pole too short to be worth a window of its own stays in the floor's box
    layer[:75, 50] = -1
    assert layer_boxes(Spans.of_layers(layer, 1), 0, 4)[0] == (75, 90, 0, 200)


def _spans_table(layer, n):
    """Every layer's first and last column in each row, and the pixels in focus' (-1) as
    entry n, as ``hf_dof_spans`` writes them (a row without the layer: first = width,
    last = -1), by NumPy."""
    h, w = layer.shape
    first, last = np.full((n + 1, h), w, np.int32), np.full((n + 1, h), -1, np.int32)
    for k in range(n + 1):
        for y in range(h):
            cols = np.flatnonzero(layer[y] == (k if k < n else -1))
            if len(cols):
                first[k, y], last[k, y] = cols[0], cols[-1]
    return first, last


@pytest.mark.parametrize("reach", [1, 4, 9])
def test_boxes_from_the_hosts_table_are_those_from_the_devices(rng, reach):
    """The host's table of every row's columns (:func:`span_table`, from runs) is the
    table ``hf_dof_spans`` writes (the loop below), and places the same boxes."""
    n, h, w = 5, 90, 70
    layer = np.full((h, w), -1, np.int32)
    for _ in range(12):  # blocks, lines, single pixels of random layers
        y0, x0 = int(rng.integers(0, h)), int(rng.integers(0, w))
        layer[y0:y0 + int(rng.integers(1, 30)), x0:x0 + int(rng.integers(1, 25))] = \
            rng.integers(0, n)
    layer[40:44] = -1  # rows in focus alone
    layer[50] = n - 1  # a row of one layer alone
    layer[60, -1] = 2  # a run of one pixel at a row's end
    first, last = _spans_table(layer, n)
    got = span_table(layer, n)
    np.testing.assert_array_equal(got[0], np.where(first <= last, first, EMPTY))
    np.testing.assert_array_equal(got[1], last)
    table, spans = Spans.of_table(first, last), Spans.of_layers(layer, n)
    np.testing.assert_array_equal(spans.rows, [(layer == k).any(axis=1) for k in range(n)]
                                  + [(layer == -1).any(axis=1)])
    for j in range(n):
        assert layer_boxes(spans, j, reach) == layer_boxes(table, j, reach)
    assert sum(len(layer_boxes(table, j, reach)) for j in range(n)) >= n


@pytest.mark.parametrize("gap", [1, 3, 5])
def test_rows_fall_into_bands_split_where_more_than_the_gap_apart(rng, gap):
    """``bands`` against a walk over the rows: a new band wherever a row is more than
    ``gap`` after the last; each band from its first row to one past its last."""
    rows = np.flatnonzero(rng.random(300) < rng.uniform(0.02, 0.5))
    expected: list[list[int]] = []
    for r in rows:
        if expected and r - expected[-1][1] <= gap:
            expected[-1][1] = int(r)
        else:
            expected.append([int(r), int(r)])
    assert bands(rows, gap) == [(a, b + 1) for a, b in expected]
    assert bands(rows[:0], gap) == []
    assert bands(np.array([7]), gap) == [(7, 8)]


@pytest.mark.parametrize("n", [1, 16, 40])
def test_the_hosts_table_is_the_loops_on_random_layers(rng, n):
    """Every pixel its own run (random layers), whole rows of one layer, rows in focus."""
    layer = rng.integers(-1, n, (37, 23)).astype(np.int32)
    layer[5] = -1  # a row in focus alone
    layer[9] = n - 1  # a row of the last layer alone
    first, last = _spans_table(layer, n)
    got = span_table(layer, n)
    np.testing.assert_array_equal(got[0], np.where(first <= last, first, EMPTY))
    np.testing.assert_array_equal(got[1], last)
    assert got[1][n - 1, 9] == 22 and got[0][n - 1, 9] == 0
    assert got[1][n, 5] == 22 and got[0][n, 5] == 0  # the row in focus


@pytest.mark.parametrize("n", [1, 6])
def test_a_box_of_a_layers_pixels_within_a_window_holds_them_all(rng, n):
    """``Spans.box``: a box within the window holding every pixel of the layer (or of those
    in focus) in it, from the rows' spans (the least box, over the frame's width), or None."""
    h, w = 60, 80
    layer = rng.integers(-1, n, (h, w)).astype(np.int32)
    layer[rng.random((h, w)) < 0.9] = n  # mostly none of them (a layer past the plan's)
    spans = Spans.of_layers(layer, n)
    for _ in range(30):
        y0, x0 = int(rng.integers(0, h - 1)), int(rng.integers(0, w - 1))
        y1, x1 = int(rng.integers(y0 + 1, h + 1)), int(rng.integers(x0 + 1, w + 1))
        for j in range(n + 1):
            inside = layer[y0:y1, x0:x1] == (j if j < n else -1)
            box = spans.box([j], y0, y1, x0, x1)
            if not inside.any():
                first, last = spans(j, y0, y1)  # its pixels on both sides, none within
                assert box is None or ((first < x0) & (last >= x1)).any()
                continue
            ys, xs = np.nonzero(inside)
            assert y0 <= box[0] <= y0 + ys.min() and y0 + ys.max() < box[1] <= y1
            assert x0 <= box[2] <= x0 + xs.min() and x0 + xs.max() < box[3] <= x1
            ys, xs = np.nonzero(layer[y0:y1] == (j if j < n else -1))
            if len(ys):  # the frame's width: the least box
                assert spans.box([j], y0, y1, 0, w) == (y0 + ys.min(), y0 + ys.max() + 1,
                                                      xs.min(), xs.max() + 1)


@pytest.mark.parametrize("n", [3, 8])
def test_a_box_of_several_layers_is_the_union_of_their_boxes(rng, n):
    """``Spans.box`` of several layers at once (a role's, a layer's seen ones): the least box
    around their single boxes, so it holds every pixel of each of them within the window."""
    h, w = 50, 70
    layer = rng.integers(-1, n, (h, w)).astype(np.int32)
    layer[rng.random((h, w)) < 0.8] = n  # mostly none of them
    spans = Spans.of_layers(layer, n)
    for _ in range(40):
        y0, x0 = int(rng.integers(0, h - 1)), int(rng.integers(0, w - 1))
        y1, x1 = int(rng.integers(y0 + 1, h + 1)), int(rng.integers(x0 + 1, w + 1))
        some = rng.choice(n + 1, int(rng.integers(2, n + 2)), replace=False)
        boxes = [b for b in (spans.box([j], y0, y1, x0, x1) for j in some) if b is not None]
        box = spans.box(some, y0, y1, x0, x1)
        if not boxes:
            assert box is None
            continue
        assert box == (min(b[0] for b in boxes), max(b[1] for b in boxes),
                       min(b[2] for b in boxes), max(b[3] for b in boxes))
        inside = np.isin(layer[y0:y1, x0:x1], np.where(some == n, -1, some))
        ys, xs = np.nonzero(inside)
        if len(ys):
            assert box[0] <= y0 + ys.min() and y0 + ys.max() < box[1]
            assert box[2] <= x0 + xs.min() and x0 + xs.max() < box[3]
