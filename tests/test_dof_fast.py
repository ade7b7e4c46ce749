"""The fast depth of field (layers by circle of confusion, disks by FFT) against the exact
gather it replaces by default: quality on test scenes, the occlusion rules, energy, the
CUDA kernels on the CPU emulator, and the method's name checked at the edge."""

import dataclasses

import numpy as np
import pytest
from dof_fast_helpers import (
    CPU,
    FAR_FOOT,
    FOCUS,
    H,
    W,
    dev_fixture,  # noqa: F401  (the fixture)
    lens_for,
    planes,
    pole,
    psnr,
    slanted,
    texture,
)

import hfrender as hf
from hfrender import dof_boxes, dof_composite, dof_frame, dof_layers
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.errors import InputError


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
