"""The fast depth of field (layers by circle of confusion, disks by FFT) against the exact
gather it replaces by default: quality on test scenes, the occlusion rules, energy, the
CUDA kernels on the CPU emulator, and the method's name checked at the edge."""

import dataclasses

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender import dof_boxes, dof_composite, dof_frame, dof_layers
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.backends.cuda import launches
from hfrender.dof_fft import window
from hfrender.dof_layers import FAR, MAX_LAYERS, NEAR, disk_tables, make_plan
from hfrender.errors import InputError

CPU = CPUBackend()
FOCUS = 1.0
H, W = 120, 200


def psnr(test, ref, peak=1.0):
    """dB, linear light, peak 1 (highlights above 1 count at their full value)."""
    mse = float(np.mean((np.asarray(test, np.float64) - ref) ** 2))
    return np.inf if mse == 0 else 10 * np.log10(peak * peak / mse)


def lens_for(depth, coc_px, width=W):
    """A 50 mm lens focused at FOCUS whose largest circle of confusion is ``coc_px``."""
    widest = hf.Lens(FOCUS, 1.0).coc_px(depth, width).max()
    return hf.Lens(FOCUS, float(widest / coc_px))


def texture(rng, h=H, w=W, cell=8):
    """Smooth value noise (a random grid, bilinear) plus a fine grain: RGB in [0, 1]."""
    grid = rng.random((h // cell + 2, w // cell + 2, 3), dtype=np.float32)
    y, x = np.arange(h) / cell, np.arange(w) / cell
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None, None], (x - x0)[None, :, None]
    top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x0 + 1] * fx
    bottom = grid[y0 + 1][:, x0] * (1 - fx) + grid[y0 + 1][:, x0 + 1] * fx
    smooth = top * (1 - fy) + bottom * fy
    return (0.85 * smooth + 0.15 * rng.random((h, w, 3), dtype=np.float32)).astype(np.float32)


def planes(rng):
    """Fronto-parallel planes: a far background, a near disc, an in-focus box, a box
    beyond focus, thin lines (1 px near, 1 px in focus, 2 px far) and bright points."""
    img = texture(rng)
    depth = np.full((H, W), 8.0, np.float32)
    yy, xx = np.mgrid[0:H, 0:W]
    for mask, d, colour in (
            ((yy - 50) ** 2 + (xx - 60) ** 2 < 22 ** 2, 0.6, (1.0, 0.3, 0.2)),
            ((abs(yy - 45) < 15) & (abs(xx - 125) < 16), FOCUS, (0.2, 0.5, 0.9)),
            ((abs(yy - 35) < 12) & (abs(xx - 170) < 12), 2.5, (0.9, 0.9, 0.2)),
            (xx == 30, 0.45, (1.0, 1.0, 1.0)), (xx == 100, FOCUS, (1.0, 0.2, 1.0)),
            ((yy >= 20) & (yy < 22), 4.0, (0.1, 0.9, 0.1))):
        img[mask] = img[mask] * 0.3 + np.float32(colour) * 0.7
        depth[mask] = d
    points = rng.integers((2, 2), (H - 2, W - 2), (8, 2))
    img[points[:, 0], points[:, 1]] = rng.uniform(5, 20, (8, 1)).astype(np.float32)
    return img, depth


def slanted(rng):
    """:func:`planes` standing on a floor that recedes from 0.4 m to 8 m: a circle of
    confusion for every depth, so neighbouring classes share layers."""
    img, depth = planes(rng)
    f0 = int(H * 0.6)
    depth[f0:] = (1.0 / np.linspace(1 / 8.0, 1 / 0.4, H - f0, dtype=np.float32))[:, None]
    img[f0:] = texture(rng)[f0:] * np.float32([0.8, 0.7, 0.5])
    points = np.stack([rng.integers(f0, H - 2, 6), rng.integers(2, W - 2, 6)], 1)
    img[points[:, 0], points[:, 1]] = rng.uniform(5, 20, (6, 1)).astype(np.float32)
    return img, depth


FAR_FOOT = 76  # a foot 3 m away, behind the focus plane: the background's larger disks
#               are gathered through the pole's layer


def pole(rng, foot=int(H * 0.85)):
    """:func:`slanted` with a pole one pixel wide standing on the floor at its foot's own
    distance: the pole and that band of the floor share a layer (in front of the focus
    plane by default)."""
    img, depth = slanted(rng)
    depth[10:foot, 150] = depth[foot, 0]
    img[10:foot, 150] = np.float32([0.9, 0.9, 0.8])
    return img, depth


@pytest.mark.parametrize("scene", [planes, slanted, pole])
@pytest.mark.parametrize("coc", [8, 24])
def test_fast_is_within_40_db_of_the_exact_gather(rng, scene, coc, monkeypatch):
    if scene is pole:  # every cut that makes any grid smaller (one pixel is enough)
        monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
    img, depth = scene(rng)
    lens = lens_for(depth, coc)
    exact = defocus(img, depth, lens)
    fast = defocus_fast(img, depth, lens)
    assert np.abs(exact - img).max() > 0.1  # a real blur
    assert psnr(fast, exact) >= 40.0
    if scene is planes:  # few classes: one layer each, the gather's sums by FFT
        assert psnr(fast, exact) >= 80.0


def test_bokeh_of_bright_points_keeps_its_energy_and_shape(rng):
    """Bright points before and behind the focus plane, on planes of their own and on a
    slanted floor (merged layers: a disc between two disks): each disc holds the point's
    light, lit where the gather lights it (above 1e-2, some 5% of the disc's level: the
    nearer floor's layers see the point behind them with their layer's disk, a faint halo
    of up to 4e-3 where the gather's pixels, each with its own disk, have 8e-4)."""
    img = np.zeros((H, W, 3), np.float32)
    _, depth = slanted(rng)
    spots = [(30, 40, 0.55), (30, 150, 3.0), (105, 60, None), (78, 150, None)]
    for y, x, d in spots:
        img[y, x] = rng.uniform(20, 50)
        if d is not None:
            depth[max(0, y - 30):y + 31, x - 30:x + 31] = d  # wider than disc + disc
    lens = lens_for(depth, 24)
    exact = defocus(img, depth, lens)
    fast = defocus_fast(img, depth, lens)
    for y, x, d in spots:
        win = (slice(y - 14, y + 15), slice(x - 14, x + 15))
        if d is None:  # on the floor the gather renormalises by the sources it sees (and
            # fills what a pixel's disk sees past the floor from the farther floor's spread,
            # as far as it lies in the pixel's disk, pixel by pixel, where the layers take
            # the other layers' alone: 5.9% apart here behind the focus plane, 0.4% before
            # it); the layers keep 90.6% and 96.0% of the point's light, the gather 96.3%
            # and 96.4%
            np.testing.assert_allclose(fast[win].sum(), exact[win].sum(), rtol=0.07)
            assert fast[win].sum() >= 0.88 * img[y, x].sum()
        else:  # on a plane: all of the point's light, as the gather
            np.testing.assert_allclose(fast[win].sum(), exact[win].sum(), rtol=1e-4)
            np.testing.assert_allclose(fast[win].sum(), img[y, x].sum(), rtol=1e-4)
        lit_fast, lit_exact = fast[win][..., 0] > 1e-2, exact[win][..., 0] > 1e-2
        iou = (lit_fast & lit_exact).sum() / (lit_fast | lit_exact).sum()
        assert lit_exact.sum() > 20 and iou >= 0.9, (y, x, iou)


def test_in_focus_pixels_over_a_blurred_background_are_bit_identical(rng):
    img, depth = slanted(rng)
    box = (slice(30, 60), slice(110, 140))
    depth[box] = FOCUS
    fast = defocus_fast(img, depth, lens_for(depth, 24))
    np.testing.assert_array_equal(fast[box], img[box])
    assert np.abs(fast - img).max() > 0.1


def test_a_defocused_foreground_spreads_over_a_sharp_background(rng):
    img = texture(rng)
    depth = np.full((H, W), FOCUS, np.float32)
    sq = (slice(40, 80), slice(60, 100))
    img[sq] = (1.0, 0.0, 0.0)
    depth[sq] = 0.5
    lens = lens_for(depth, 16)
    fast = defocus_fast(img, depth, lens)
    exact = defocus(img, depth, lens)
    np.testing.assert_allclose(fast, exact, atol=1e-5)
    row = fast[60, :, 0] - img[60, :, 0]  # red over the sharp texture, fading, r = 8 px
    assert row[100] > 0.15 and row[106] > 0.005 and not row[109:].any()
    far = (slice(0, 20), slice(0, 30))
    np.testing.assert_array_equal(fast[far], img[far])


@pytest.mark.parametrize("d", [0.45, 3.0, np.inf])
def test_energy_is_conserved_away_from_the_borders(rng, d):
    img = np.zeros((H, W, 3), np.float32)
    img[45:75, 60:140] = rng.random((30, 80, 3), dtype=np.float32) * 4  # HDR too; 2 radii
    #                                     from the borders: no light lost, none renormalised
    depth = np.full((H, W), d, np.float32)
    fast = defocus_fast(img, depth, hf.Lens(FOCUS, 1.4, sensor_width_mm=12.0))
    assert np.abs(fast - img).max() > 0.1
    np.testing.assert_allclose(fast.sum(axis=(0, 1)), img.sum(axis=(0, 1)), rtol=1e-4)


def test_the_exact_method_is_the_gather(rng):
    img, depth = planes(rng)
    kw = dict(focus_distance=FOCUS, f_stop=2.0, backend="cpu")
    np.testing.assert_array_equal(hf.depth_of_field(img, depth, method="exact", **kw),
                                  defocus(img, depth, hf.Lens(FOCUS, 2.0)))
    assert not np.array_equal(hf.depth_of_field(img, depth, **kw),
                              hf.depth_of_field(img, depth, method="exact", **kw))


@pytest.mark.parametrize("bad", ["slow", "FAST", None, 1])
def test_an_unknown_method_is_one_clear_error(rng, bad):
    """Named as each call spells it (was "dof method=" for both: neither keyword)."""
    img, depth = rng.random((8, 8, 3), dtype=np.float32), np.full((8, 8), 2.0, np.float32)
    with pytest.raises(InputError) as err:
        hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=2.0, method=bad)
    assert str(err.value) == f"method={bad!r} is not one of 'fast', 'exact'"
    ww = hf.WindowWeights.sliding(np.ones(1), 1, 1)
    with pytest.raises(InputError, match="is not one of 'fast', 'exact'"):
        CPU.fuse(img[None], depth[None], ww, hf.Lens(FOCUS, 2.0), True, dof_method=bad)
    with pytest.raises(InputError) as err:
        hf.fuse(hf.HyperFrame(img[None], depth[None]), ww, lens=hf.Lens(FOCUS, 2.0),
                dof_method=bad)
    assert str(err.value) == f"dof_method={bad!r} is not one of 'fast', 'exact'"


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


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("scene", ["slanted", "pole", "far pole"])
def test_the_cuda_kernels_match_numpy_on_the_emulator(dev, rng, dtype, scene, monkeypatch):
    n = 2
    if scene == "pole":  # the pole's foot on the floor, its layer's box cut in two
        monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
        img, depth = pole(rng)
        img, depth = img[60:108, 110:190], depth[60:108, 110:190]
    elif scene == "far pole":  # the same behind the focus plane: the cut layer gathers
        monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)
        img, depth = pole(rng, FAR_FOOT)
        img, depth = img[36:84, 110:190], depth[36:84, 110:190]
    else:
        img, depth = slanted(rng)
    frames = np.stack([img, img[::-1]])[:, :48, :80]
    depth = np.ascontiguousarray(np.stack([depth, depth[::-1]])[:, :48, :80])
    if dtype == np.uint8:
        frames = (np.clip(frames, 0, 1) * 255 + 0.5).astype(np.uint8)
    frames = np.ascontiguousarray(frames)
    lenses = [lens_for(depth[j], 20, 80) for j in range(n)]
    ww = hf.WindowWeights.from_dense(np.array([[0.5, 0.5], [0.0, 1.0]]))
    gpu = np.empty((2, 48, 80, 3), dtype)
    launches.fuse(dev, frames, depth, ww, lenses, True, gpu, dof_method="fast")
    cpu = CPU.fuse(frames, depth, ww, lenses, True, dof_method="fast")
    if dtype == np.float32:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    else:
        assert np.abs(gpu.astype(int) - cpu).max() <= 1
    if dtype == np.float32:  # (in 8 bits the far pole's crop rounds to the gather's codes)
        exact = CPU.fuse(frames, depth, ww, lenses, True, dof_method="exact")
        assert np.abs(gpu.astype(np.float64) - exact).max() > 0  # not the gather's kernels


@pytest.mark.parametrize("scene", ["slanted", "far pole"])
@pytest.mark.parametrize("shared", [False, True])
def test_the_cuda_fast_path_waits_on_the_device_three_times_a_plan(dev, rng, scene, shared,
                                                                    monkeypatch):
    """The host reads the device three times a call (the depths' range, each frame's
    largest blur, each frame's classes' histogram) and twice a plan (every layer's rows and
    columns, and once every layer has scattered, the rows and columns of the pixels the far
    light of larger disks may fill: both scenes have some) however many layers and windows
    there are; a plan a frame (the emulator's default, as the CPU), or both frames' one plan
    (``shared``: mirrored frames have the same classes, so the same plan and picture)."""
    from hfrender.backends.cuda import dof as cuda_dof
    from hfrender.backends.cuda import dof_plans, dof_steps

    monkeypatch.setattr(dof_boxes, "WINDOW_COST", 0)  # more boxes, more windows
    img, depth = pole(rng, FAR_FOOT) if scene == "far pole" else slanted(rng)
    reads = []
    for module, name in ((cuda_dof, "_host"), (dof_steps, "_host"), (dof_plans, "_host"),
                         (dof_layers, "to_host"), (dof_boxes, "to_host")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, real=real: reads.append(1) or real(*a))
    floats = []  # float() of an array or NumPy scalar: a CuPy value read to the host
    monkeypatch.setattr(dof_composite, "float", lambda v: (
        floats.append(v) if isinstance(v, (np.ndarray, np.generic)) else None) or float(v),
        raising=False)
    lin = np.ascontiguousarray(np.stack([img, img[:, ::-1]]))
    depths = np.ascontiguousarray(np.stack([depth, depth[:, ::-1]]))
    lens = lens_for(depth, 20)
    windows = []
    real_window = dof_frame.window
    monkeypatch.setattr(dof_frame, "window", lambda *a: windows.append(a) or real_window(*a))
    own = dataclasses.replace(dev, dof_plan_pixels=depths[0].size * 2 if shared else 0)
    got = cuda_dof.defocus_frames(own, lin, depths, [lens, lens])
    assert len(reads) == 3 + 2 * (1 if shared else 2), len(reads)
    assert len(windows) > 20  # many windows, still four reads a frame
    assert floats == []  # nor read by a float() of a device value (disk_inside's reach)
    for z in range(2):
        np.testing.assert_allclose(got[z], defocus_fast(lin[z], depths[z], lens), rtol=1e-5,
                                   atol=1e-5)


def test_an_opaque_alpha_is_not_blurred_and_the_colour_is_as_without_it(rng):
    img, depth = planes(rng)
    lens = lens_for(depth, 16)
    rgba = np.concatenate([img, np.ones(img.shape[:2] + (1,), np.float32)], -1)
    got = defocus_fast(rgba, depth, lens)
    np.testing.assert_array_equal(got[..., :3], defocus_fast(img, depth, lens))
    assert np.all(got[..., 3] == 1.0)
    rgba[:, : W // 2, 3] = 0.25  # an alpha that varies is blurred with the colour
    got = defocus_fast(rgba, depth, lens)
    edge = got[:, W // 2 - 3: W // 2 + 3, 3]
    assert ((edge > 0.3) & (edge < 0.95)).any()  # blurred across the edge


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


@pytest.mark.parametrize("frames", [1, 2])
def test_the_cuda_fast_method_gathers_exactly_where_a_frame_has_few_enough_taps(
        dev, rng, monkeypatch, frames):
    """On a GPU the exact gather beats the layers up to a frame's pixels x disk offsets of
    ``Device.exact_taps`` (the H200: 8x sooner at 640x360, 64 px): there "fast" gives
    the exact gather's frames (a frame's taps, however many frames); one tap more, the
    layers' (which keep their cuFFT plans: :func:`_keep_plans`, once a call)."""
    from hfrender.backends.cuda import dof as cuda_dof
    from hfrender.optics import disk_offsets

    img, depth = slanted(rng)
    lens = lens_for(depth, 16)
    lin = np.ascontiguousarray(np.stack([img, img[:, ::-1]][:frames]))
    depths = np.ascontiguousarray(np.stack([depth, depth[:, ::-1]][:frames]))
    max_d2 = cuda_dof.max_d2_of(np.array([[depth.min(), depth.max()]] * frames),
                                [lens] * frames, W, H)
    taps = H * W * len(disk_offsets(max_d2)[1])
    kept = []
    monkeypatch.setattr(cuda_dof, "_keep_plans", kept.append)
    # the CPU's frames, each alone (were the emulator's, two runs more: the suite's 2nd slowest)
    exact, layers = ([CPU.depth_of_field(lin[z:z + 1], depths[z:z + 1], lens, True,
                                         dof_method=m)[0] for z in range(frames)]
                     for m in ("exact", "fast"))
    assert min(np.abs(a - b).max() for a, b in zip(exact, layers, strict=True)) > 1e-3
    for budget, want, plans in ((taps, exact, 0), (taps - 1, layers, 1)):
        got = cuda_dof.defocus_frames(dataclasses.replace(dev, exact_taps=budget), lin, depths,
                                      [lens] * frames)
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-5, atol=1e-5)
        assert len(kept) == plans


def test_the_fast_layers_keep_a_thread_enough_cufft_plans():
    """CuPy keeps 16 plans (no memory limit) a thread: made 128 (1 GiB); a user's larger
    cache, memory limit, no limit (-1) or no cache (0) is kept."""
    from hfrender.backends.cuda import dof as cuda_dof

    class Cache:
        def __init__(self, size, memsize):
            self.size, self.memsize = size, memsize

        def get_size(self):
            return self.size

        def set_size(self, n):
            self.size = n

        def get_memsize(self):
            return self.memsize

        def set_memsize(self, n):
            self.memsize = n

    for start, want in (((16, -1), (128, 2**30)), ((16, 8 * 2**30), (128, 8 * 2**30)),
                        ((512, -1), (512, -1)), ((-1, -1), (-1, -1)), ((0, -1), (0, -1))):
        cache = Cache(*start)
        xp = type("xp", (), {"fft": type("fft", (), {"config": type("config", (), {
            "get_plan_cache": staticmethod(lambda cache=cache: cache)})})})
        cuda_dof._keep_plans(xp)
        assert (cache.size, cache.memsize) == want, start
    cuda_dof._keep_plans(np)  # NumPy's FFTs (the emulator) keep no plans: nothing to do


def test_the_cuda_layers_make_a_frames_disks_once_however_many_it_has(dev, rng, monkeypatch):
    """The device kept the 32 newest disks' spectra: a 640x360 frame at 64 px has 35, so on
    the H200 every call made them all again (13 of its 38 ms). Kept by bytes now (as on the
    CPU): a second call makes none."""
    import dataclasses

    from hfrender.backends.cuda import dof as cuda_dof
    from hfrender.backends.cuda import dof_steps
    from hfrender.kept import Kept

    made = []
    real = dof_steps.disk_spectrum
    monkeypatch.setattr(dof_steps, "disk_spectrum", lambda *a: made.append(a[2:]) or real(*a))
    own = dataclasses.replace(dev, _tables={})
    img, depth = slanted(rng)
    lens = lens_for(depth, 40)
    lin, depths = np.ascontiguousarray(img[None]), np.ascontiguousarray(depth[None])
    first = cuda_dof.defocus_frames(own, lin, depths, [lens])
    n = len(made)
    assert n > 0 and len(set(map(repr, made))) == n  # each disk made once
    stores = []  # (was: a new Kept built for each disk asked, setdefault's argument)
    monkeypatch.setattr(dof_steps, "Kept", lambda *a: stores.append(a) or Kept(*a))
    again = cuda_dof.defocus_frames(own, lin, depths, [lens])
    assert len(made) == n and stores == []  # none made again, the store kept
    np.testing.assert_array_equal(again, first)
    own._tables.clear()
    cuda_dof.defocus_frames(own, lin, depths, [lens])
    assert len(made) == 2 * n and len(stores) == 1  # a device without one: built once
