"""Bokeh shaped by the aperture's blades in depth mode (``hf.depth_of_field``, ``--dof
depth``, ``hfrender fx --depth``), as ``--dof lens`` draws it: the polygon of the camera's
blades inscribed in the circle of confusion, a corner to the right behind the focus plane,
turned over in front of it. The CUDA kernels' polygons are in test_bokeh_shape_cuda.py."""

import math
import re
import textwrap

import numpy as np
import pytest
from bokeh_shape_helpers import FOCUS, gather_by_hand, in_polygon, rules_scene
from render_helpers import linear, render_frames

import hfrender as hf
from hfrender.backends.cpu.dof import defocus
from hfrender.backends.cpu.dof_fast import defocus_fast
from hfrender.dof_layers import disk_tables
from hfrender.errors import InputError
from hfrender.optics import disk_offsets, gather_offsets

H, W = 96, 128


def as_set(offsets):
    return {(int(a), int(b)) for a, b in offsets}


@pytest.mark.parametrize("blades", [3, 5, 6, 8])
def test_the_disks_are_the_polygons_pixels_nested_by_size(blades):
    max_d2 = 150
    offsets, d2 = disk_offsets(max_d2, blades)
    ax = np.arange(-13, 14)
    dy, dx = (a.ravel() for a in np.meshgrid(ax, ax, indexing="ij"))
    want = in_polygon(dy, dx, blades, math.sqrt(max_d2))
    assert as_set(offsets) == as_set(np.stack([dy[want], dx[want]], 1))
    area = blades / 2 * max_d2 * math.sin(2 * math.pi / blades)
    assert len(offsets) == pytest.approx(area, rel=0.06)
    assert np.all(np.diff(d2) >= 0)
    for r2 in (9, 40, 100):  # a smaller disk is the first pixels of a larger one
        small, _ = disk_offsets(r2, blades)
        assert as_set(offsets[: len(small)]) == as_set(small)
    _, area_of_d2, _ = disk_tables(max_d2, blades)
    assert area_of_d2[-1] == len(offsets) and area_of_d2[0] == 1


def test_a_round_aperture_keeps_its_disks():
    offsets, d2 = disk_offsets(200)
    assert np.all(d2 == (offsets ** 2).sum(1))
    assert len(offsets) == 633  # the lattice points of the disk of radius sqrt(200)
    g, far, near = gather_offsets(200)
    np.testing.assert_array_equal(g, offsets)
    assert far is near


def test_an_odd_polygon_is_turned_over_in_front_of_the_focus_plane():
    offsets, d2 = disk_offsets(100, 5)
    right = (0, 10)  # a corner of the far pentagon; the opposite side is an edge
    assert right in as_set(offsets) and (0, -10) not in as_set(offsets)
    g, far, near = gather_offsets(100, 5)
    # output p takes source q = p + d; behind the focus q covers p if p - q = -d is in
    # its pentagon, in front if -d is in the turned-over one: d itself is in the pentagon
    assert as_set(g[far <= 100]) == as_set(-offsets)
    assert as_set(g[near <= 100]) == as_set(offsets)


def point_scene(depth_of_point, h=H, w=W):
    img = np.zeros((h, w, 3), np.float32)
    img[h // 2, w // 2] = (40.0, 20.0, 10.0)
    depth = np.full((h, w), depth_of_point, np.float32)
    return img, depth


@pytest.mark.parametrize("method", [defocus, defocus_fast])
@pytest.mark.parametrize("blades", [5, 6])
@pytest.mark.parametrize("side", ["far", "near"])
def test_a_bright_point_spreads_over_its_polygon_with_all_its_light(method, blades, side):
    img, depth = point_scene(8.0 if side == "far" else 0.58)
    lens = hf.Lens(FOCUS, 1.0, sensor_width_mm=9.0, aperture_blades=blades)
    r2 = float(lens.coc_radius_px(depth[0, 0], W, H)) ** 2
    assert 150 < r2 < 600  # a radius of 12-24 px: well inside the frame
    out = method(img, depth, lens)
    np.testing.assert_allclose(out.sum(axis=(0, 1)), img.sum(axis=(0, 1)), rtol=1e-4)
    offsets, _ = disk_offsets(int(math.floor(r2)), blades)
    shape = offsets if side == "far" else -offsets  # turned over in front
    lit = np.argwhere(out[..., 0] > 1e-4) - (H // 2, W // 2)
    assert as_set(lit) == as_set(shape)
    np.testing.assert_allclose(out[H // 2 + shape[:, 0], W // 2 + shape[:, 1], 0],
                               40.0 / len(shape), rtol=1e-4)  # evenly over its pixels


@pytest.mark.parametrize("blades", [5, 6])
def test_fast_is_within_40_db_of_the_exact_gather_with_blades(rng, blades):
    from dof_fast_helpers import lens_for, psnr, slanted

    img, depth = slanted(rng)
    lens = lens_for(depth, 24)
    lens = hf.Lens(lens.focus_distance, lens.f_stop, aperture_blades=blades)
    exact = defocus(img, depth, lens)
    round_exact = defocus(img, depth, hf.Lens(lens.focus_distance, lens.f_stop))
    assert psnr(defocus_fast(img, depth, lens), exact) >= 40.0
    assert psnr(round_exact, exact) < 40.0  # the shape is more than the fast method's error


@pytest.mark.parametrize("bad", [2, 65, -1, True, 5.0, "6"])
def test_a_bad_blade_count_is_one_clear_error(rng, bad):
    img, depth = point_scene(8.0, 8, 8)
    kind = "" if type(bad) is int else "a whole number, "  # (was: 5.0 "must be 0 (round)
    said = f"aperture_blades={bad!r} must be {kind}0 (round) or between 3 and 64"  # or 3-64")
    with pytest.raises(InputError, match=f"^{re.escape(said)}$"):
        hf.Lens(FOCUS, 2.0, aperture_blades=bad)
    with pytest.raises(InputError, match=f"^{re.escape(said)}$") as told:
        hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=2.0, aperture_blades=bad)
    # no number of blades (True, "6"): a TypeError too, as f_stop=True is (was: True not)
    assert isinstance(told.value, TypeError) == (bad is True or isinstance(bad, str))


def test_depth_of_field_takes_the_blades(rng):
    img, depth = point_scene(8.0)
    kw = dict(focus_distance=FOCUS, f_stop=1.0, sensor_width_mm=9.0, backend="cpu")
    hexagon = hf.depth_of_field(img, depth, aperture_blades=6, **kw)
    np.testing.assert_array_equal(hexagon, defocus_fast(
        img, depth, hf.Lens(FOCUS, 1.0, sensor_width_mm=9.0, aperture_blades=6)))
    round_ = hf.depth_of_field(img, depth, **kw)
    assert (hexagon[..., 0] > 1e-4).sum() < 0.9 * (round_[..., 0] > 1e-4).sum()


BOKEH = textwrap.dedent("""
    import hfrender as hf

    class Bokeh(hf.Scene):
        duration = 0.1
        background = (0.0, 0.0, 0.0)

        def setup(self):
            # a lamp far behind the focus plane (left) and one near the camera (right)
            self.add(hf.Sphere(radius=0.06, position=(-0.55, 0.0, -6.0), color=(1, 1, 1),
                               emissive=1.0))
            self.add(hf.Sphere(radius=0.02, position=(0.1, 0.0, 3.0), color=(1, 1, 1),
                               emissive=1.0))
            self.camera.position = (0, 0, 5)
            self.camera.look_at((0, 0, 0))
            self.camera.focal_length_mm = 135
            self.camera.f_stop = 0.5
            self.camera.focus_distance = 5.0
            self.camera.aperture_blades = 5
""")


def test_a_depth_render_draws_the_bokeh_that_a_lens_render_draws(tmp_path, caplog):
    """--dof lens at 256 lens positions against --dof depth: each lamp's pentagon, the
    far one a corner to the right, the near one turned over (corner to the left)."""
    import logging

    path = tmp_path / "bokeh.py"
    path.write_text(BOKEH)
    kw = dict(count=1, size=(192, 108), samples=256, msaa=1)
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        depth, _ = render_frames(path, dof="depth", **kw)
    assert not [r for r in caplog.records if "blades" in r.getMessage()]
    lens, _ = render_frames(path, dof="lens", **kw)
    a, b = linear(lens[0]).mean(-1), linear(depth[0]).mean(-1)
    for half in (slice(0, 96), slice(96, 192)):  # the far lamp, then the near one
        ma, mb = lit(a[:, half]), lit(b[:, half])
        iou = overlap(ma, mb)
        ys, xs = np.nonzero(mb)
        cy, cx = int(round(ys.mean())), int(round(xs.mean()))
        turned = np.roll(np.roll(mb[::-1, ::-1], 2 * cy - mb.shape[0] + 1, 0),
                         2 * cx - mb.shape[1] + 1, 1)  # the other way round, in place
        # measured: IoU 0.97 and 0.96, turned over 0.86 and 0.86
        assert mb.sum() > 400 and iou >= 0.9 and overlap(ma, turned) < iou - 0.07, (
            iou, overlap(ma, turned))


def lit(light):
    """The bokeh's pixels: above a quarter of the median of what is lit at all (the depth
    gather keeps a lamp's own pixels at its brightness: a core the lens render has not)."""
    return light > 0.25 * np.median(light[light > 0.02 * light.max()])


def overlap(a, b):
    return (a & b).sum() / (a | b).sum()


@pytest.mark.parametrize("blades", [3, 5])
def test_planes_on_both_sides_of_the_focus_with_odd_blades(rng, blades):
    """A polygon and its turned-over self are not nested: where a near and a far layer of
    about one size meet, the fast method's shortcuts (a farther layer's scatter, or a
    gather with the pixel's disk) are not the gather's intersection of the two. Measured:
    54.5 dB at 3 blades, 139 dB at 5, on this scene."""
    from dof_fast_helpers import lens_for, planes, psnr

    img, depth = planes(rng)
    lens = lens_for(depth, 24)
    lens = hf.Lens(lens.focus_distance, lens.f_stop, aperture_blades=blades)
    assert psnr(defocus_fast(img, depth, lens), defocus(img, depth, lens)) >= 50.0


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("blades", [0, 5, 6])
def test_a_slanted_floor_with_depth_noise(blades, seed):
    """0.3% noise on every pixel's depth (a stress test: rendered depth is smooth): the
    floor's rows scatter over many classes. Fast against exact, seeds 0 and 1: 41.6 and
    42.3 dB round, 38.1 and 42.8 dB with 5 blades, 37.8 and 40.9 dB with 6 (33.5 and 38.9,
    34.1 and 40.1 before the peak window grew with the number of disk sizes)."""
    from dof_fast_helpers import lens_for, psnr, slanted

    rng = np.random.default_rng(seed)
    img, depth = slanted(rng)
    depth = (depth * (1 + 0.003 * rng.standard_normal(depth.shape))).astype(np.float32)
    lens = lens_for(depth, 24)
    lens = hf.Lens(lens.focus_distance, lens.f_stop, aperture_blades=blades)
    assert psnr(defocus_fast(img, depth, lens), defocus(img, depth, lens)) >= 37.0


@pytest.mark.parametrize("blades", [5, 6])
def test_the_exact_gather_is_its_rules_written_out(rng, blades):
    from hfrender.optics import FRONT_TOLERANCE

    img, depth, lens = rules_scene(rng, blades)
    np.testing.assert_allclose(defocus(img, depth, lens),
                               gather_by_hand(img, depth, lens, FRONT_TOLERANCE),
                               rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("method", [defocus, defocus_fast])
@pytest.mark.parametrize("lamp_px", [2.0, 3.5])
def test_a_far_lamp_over_a_farther_sky_keeps_its_light(method, lamp_px):
    """A small lamp behind the focus plane before a blue sky much farther: the light it
    adds to the sky spreads evenly over its bokeh, as a lens spreads it, and where it hides
    the sky, the sky shows through its blur. Normalising the lamp's light over the share of
    its own pixels' disks it covers added 9-20% and kept a core at 2.1-2.7x the bokeh's
    mean; filling the shortfall with nothing would take sky away (hfrender.dof_composite)."""
    h, w = 96, 128
    yy, xx = np.mgrid[0:h, 0:w]
    lamp = (yy - 48) ** 2 + (xx - 64) ** 2 <= lamp_px ** 2
    sky, light = np.float32([0.2, 0.3, 0.5]), np.float32([1.0, 0.8, 0.6])
    img = np.broadcast_to(sky, (h, w, 3)).copy()
    img[lamp] = light
    depth = np.where(lamp, np.float32(2.2), np.float32(100.0))
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=7.0)  # the lamp's disk: 9.4 px, the sky's 17
    out = method(img, depth, lens)
    added = out[16:80, 32:96] - sky  # around the lamp, away from the borders
    np.testing.assert_allclose(added.sum(axis=(0, 1)), lamp.sum() * (light - sky), rtol=0.01)
    red = added[..., 0]
    assert red.max() < 1.5 * red[red > 0.25 * red.max()].mean()  # measured 1.21-1.34


@pytest.mark.parametrize("method", [defocus, defocus_fast])
@pytest.mark.parametrize("sky_at", [2.4, 2.7, 3.3, 20.0])
def test_a_far_lamps_bokeh_over_a_sky_a_little_farther_has_no_core(method, sky_at):
    """A lens sees a uniform sky behind a small lamp through the part of the aperture the
    lamp leaves open, however far the sky: the bokeh is the one of the lamp before a sky at
    its own depth. The sky's sources seen through a lamp pixel's disk each weighed 1 / the
    sky's area: the lamp's pixels fell short by 1 - lamp / sky area, under the fill's 0.3
    the lamp's light was normalised up: its core 0.09-0.28 brighter, on 0.67 added at the
    middle (sky disks 1.1-1.6x the lamp's; the night lamp of ``benchmarks/hdr.py``'s
    entry: 1.3x). A sky 3x the lamp's disk was filled from behind already. Now the sky's
    own spread fills what the lamp's pixels' disks see past the lamp."""
    h, w = 96, 128
    yy, xx = np.mgrid[0:h, 0:w]
    lamp = (yy - 48) ** 2 + (xx - 64) ** 2 <= 2.5 ** 2
    sky, light = np.float32([0.2, 0.3, 0.5]), np.float32([9.0, 6.0, 3.0])
    img = np.broadcast_to(sky, (h, w, 3)).copy()
    img[lamp] = light
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=7.0)  # the lamp's disk at 2.2 m: 9.4 px
    areas = np.pi * lens.coc_radius_px(np.float32([2.2, sky_at]), w, h) ** 2
    assert 1.05 < areas[1] / areas[0] < 4  # the sky's disk 1.1, 1.3, 1.6, 3.3x the lamp's
    far = method(img, np.where(lamp, np.float32(2.2), np.float32(sky_at)), lens)
    alike = method(img, np.full((h, w), 2.2, np.float32), lens)  # the bokeh a lens draws
    added = alike[..., 0] - sky[0]
    assert added[48, 64] > 0.5 and (added > 0.1).sum() > 3 * lamp.sum()  # a disc, lit
    np.testing.assert_allclose(far[16:80, 32:96], alike[16:80, 32:96], atol=1e-4 * 9.0)


@pytest.mark.parametrize("method", [defocus, defocus_fast])
def test_a_far_highlight_beside_a_nearer_blurred_edge_is_not_brightened(method):
    """A lamp 200x white at 100 m, 4 px beside the edge of a dark object at 3 m (both past
    the focus plane; the lamp's disk the larger): on the object's blurred edge its bokeh
    stays at its level in the open (0.97x; the lens of ``benchmarks/dof_lens_reference.py``:
    1.08x). Counted through the pixel's own disk it was 1.30x, and weighed 1 / that pixel's
    area (tried 2026-12-04, taken back) 2.07x: a point's light over the smaller disk."""
    h, w = 96, 128
    yy, xx = np.mgrid[0:h, 0:w]
    lamp = (abs(yy - 48) <= 1) & (abs(xx - 70) <= 1)
    obj = xx < 66
    img = np.full((h, w, 3), 0.1, np.float32)
    img[lamp], img[obj] = 200.0, 0.05
    lens = hf.Lens(1.0, 1.4, sensor_width_mm=7.0)
    out = method(img, np.where(obj, np.float32(3.0), np.float32(100.0)), lens)[..., 0]
    alone = method(np.where(lamp[..., None], img, np.float32(0.1)), np.full((h, w), 100.0,
                   np.float32), lens)[..., 0]  # the same lamp with nothing before it
    level = alone[48, 70]
    assert level > 1.5 and out[48, 80] == pytest.approx(alone[48, 80], rel=0.15)
    assert 0.8 * level < out[48, 55:66].max() < 1.2 * level  # the edge, in its blur
    assert out[48, 50:55].max() < 0.2  # the object's inside, past the lamp's reach
