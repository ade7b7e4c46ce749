"""A defocused foreground over an in-focus background (a branch before the subject): past
its silhouette's edge a defocused pixel sees the in-focus surface behind it, so its edge
fades as a lens draws it and its light is counted once (it was kept at full strength
inside the silhouette and spread over the background too: up to twice the light).
What is seen past such an edge (cards, highlights, a small lit subject) is in
test_dof_edges_seen.py."""

import numpy as np
import pytest
from dof_edges_helpers import (
    FOCUS,
    NEAR,
    H,
    W,
    card,
    dev_fixture,  # noqa: F401  (the fixture)
)

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import launches
from hfrender.optics import disk_offsets


def layered(img, depth, lens, mask, near=NEAR):
    """The two layers composited: the disc's light and coverage spread by its disk (its
    whole pixels, as hfrender counts them; the disc at ``near``), over the wall (one
    colour: the wall behind the disc is the wall around it, whatever its blur)."""
    r2 = float(lens.coc_radius_px(np.float32([near]), W, H)[0]) ** 2
    offsets, d2s = disk_offsets(int(np.floor(r2)))
    disk = offsets[d2s <= np.floor(r2)]
    cover = sum(np.roll(mask, (int(dy), int(dx)), (0, 1)) for dy, dx in disk) / len(disk)
    fg, bg = img[mask][0], img[~mask][0]
    return (cover[..., None] * fg + (1 - cover[..., None]) * bg).astype(np.float32)


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_defocused_disc_over_an_in_focus_wall_is_its_two_layers_composited(rng, method):
    img, depth, lens, mask = card(rng)
    out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=lens.f_stop,
                            method=method)
    ref = layered(img, depth, lens, mask)
    edge = mask & (np.abs(ref - img).max(-1) > 0.02)  # inside the disc, where it fades
    assert edge.sum() > 50
    assert np.abs(out - ref).max() < 2e-4  # was up to the colours' difference: a hard edge
    assert np.abs(out[edge] - img[edge]).max() > 0.05
    np.testing.assert_allclose(out.sum((0, 1)), img.sum((0, 1)), rtol=1e-4)


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_defocused_bright_point_over_an_in_focus_wall_keeps_its_light(rng, method):
    """A near spark over a textured wall in focus: its light is its disk's, once (its own
    pixel kept it whole as well: 2x the light)."""
    img = (rng.random((H, W, 3), dtype=np.float32) * np.float32(0.5)).astype(np.float32)
    depth = np.full((H, W), FOCUS, np.float32)
    y, x = rng.integers(30, 66), rng.integers(40, 120)
    img[y, x], depth[y, x] = 1000.0, 0.3
    out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=2.8, method=method)
    np.testing.assert_allclose(out.sum((0, 1)), img.sum((0, 1)), rtol=2e-4)
    assert out[y, x].max() < 100  # its own pixel: its share of the disk and the wall's
    far = np.ones((H, W), bool)
    far[y - 12:y + 13, x - 12:x + 13] = False
    assert np.array_equal(out[far], img[far])  # the wall beyond its disk, bit for bit


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_the_cuda_kernels_see_the_in_focus_wall_as_numpy_does(dev, rng, method):
    """On the CPU emulator: the exact gather's kernel and the fast method's gathers."""
    img, depth, lens, mask = card(rng)
    ref = layered(img, depth, lens, mask)
    frames, depths = img[None], depth[None]
    weights = hf.WindowWeights.from_dense(np.ones((1, 1)))
    gpu = np.empty_like(frames)
    launches.fuse(dev, frames, depths, weights, [lens], True, gpu, dof_method=method)
    cpu = CPUBackend().fuse(frames, depths, weights, [lens], True, dof_method=method)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)
    assert np.abs(gpu[0] - ref).max() < 2e-4


def post_and_band(rng, w=480):
    """A near floor band (the frame's width) crossed by a thin post in focus, the rest a far
    wall blurred more than the band (the band does not see it past its edges: it is
    gathered through the band): the frame, its depth and the post's column."""
    img = (rng.random((H, w, 3), dtype=np.float32) + np.float32(0.05)).astype(np.float32)
    depth = np.full((H, w), 30.0, np.float32)
    y0 = int(rng.integers(40, 56))
    depth[y0:y0 + 12] = 1.2
    post = int(rng.integers(100, w - 100))
    depth[:, post] = FOCUS
    img[:, post] = np.float32([1.5, 0.2, 0.1])
    return img, depth, post


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
@pytest.mark.parametrize("blades", [0, 5])
def test_a_near_band_gathers_what_is_in_focus_only_around_it(dev, rng, blades, backend,
                                                             monkeypatch):
    """The band sees the post past its pixels' edges only within reach of it, and its
    gather of the light in focus is transformed over that part alone (it was the whole
    band's width); the picture is the exact gather's (the CUDA kernels on the emulator)."""
    from hfrender import dof_frame

    img, depth, post = post_and_band(rng)
    lens = hf.Lens(FOCUS, 1.4, aperture_blades=blades)
    band, wall = lens.coc_radius_px(np.float32([1.2, 30.0]), depth.shape[1], H)
    reach = int(np.ceil(band))
    assert 3 <= reach <= 12 and wall > band + 1  # the wall: behind, blurred more
    seen = []
    real = dof_frame._gathered
    opened = []  # the gathers of how much of the band's disks the wall fills: a weight alone
    monkeypatch.setattr(dof_frame, "_gathered", lambda ops, source, disks, win, side: (
        (seen if source[0].shape[-3] > 1 else opened).append(win))
        or real(ops, source, disks, win, side))
    frames, depths = img[None], depth[None]
    weights = hf.WindowWeights.from_dense(np.ones((1, 1)))
    fast = np.empty_like(frames)
    if backend == "cuda":
        launches.fuse(dev, frames, depths, weights, [lens], True, fast, dof_method="fast")
    else:
        fast = CPUBackend().fuse(frames, depths, weights, [lens], True, dof_method="fast")
    exact = CPUBackend().fuse(frames, depths, weights, [lens], True, dof_method="exact")
    assert len(seen) == 1 and len(opened) == 1  # the wall lies around the whole band
    assert opened[0].x0 == 0 and opened[0].x1 >= depth.shape[1]
    win = seen[0]
    assert win.x0 >= post - 2 * reach - 1 and win.x1 <= post + 2 * reach + 2  # was 0 and W
    band = depth == np.float32(1.2)
    sees = band & (np.abs(np.arange(depth.shape[1]) - post) <= reach)[None]
    assert np.abs(fast[0] - img)[sees].max() > 0.05  # the post's light is seen past the edge
    np.testing.assert_allclose(fast, exact, atol=2e-4)


@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_disc_over_a_wall_is_its_two_layers_whatever_the_walls_blur(rng, method):
    """The wall's blur swept from under a pixel to 0.9 of the disc's: a wall of one colour
    blurred is itself, so a lens draws the disc's two layers composited every time. A
    rule that let such a wall spread its own light alone, from half the disc's radius on,
    drew the disc's edge too hard and its light renormalised over its own surface: up to
    0.18 off."""
    img, _, _, mask = card(rng)
    lens = hf.Lens(FOCUS, 1.0, sensor_width_mm=12.0)
    near = 1.1  # before the focus plane (2 m), its blur as large as the far wall's can be
    r_near = float(lens.coc_radius_px(np.float32([near]), W, H)[0])
    radii = []
    for far in np.geomspace(2.05, 8.0, 6):
        radii.append(float(lens.coc_radius_px(np.float32([far]), W, H)[0]))
        depth = np.where(mask, near, far).astype(np.float32)
        out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=1.0,
                                sensor_width_mm=12.0, method=method)
        ref = layered(img, depth, lens, mask, near)
        assert np.abs(out - ref).max() < 2e-3, far
    assert radii[0] < 1 and 0.85 * r_near < radii[-1] < 0.95 * r_near


def test_the_far_fill_takes_the_shortfall_as_far_as_the_far_light_covers(dev):
    """``composite`` and ``hf_dof_composite`` (the CUDA kernel, on the emulator) by hand: a
    pixel whose own light weighs 0.3 of its disk (inside 1) takes far light of colour 4 for
    the rest where that light covers it (weight 0.9: fill 0.7), for its weight where it
    covers less (0.2: fill 0.2, the rest normalised), for the share of its own disk where
    that light lies where that is less (0.1: a nearer object hides the rest, fill 0.1),
    and none under a shortfall of 1e-4 (in focus and rounding: the pixel bit for bit) or
    where no far light reaches it (its own light normalised; no 0 / 0 of the far light)."""
    from hfrender.backends.cuda.launches import BLOCK, I32, I64, _grid
    from hfrender.dof_composite import composite

    own = np.float32([0.3, 0.3, 1.0 - 5e-5, 0.3, 0.3])
    far_w = np.float32([0.9, 0.2, 0.5, 0.9, 0.0])
    opened = np.float32([1.0, 1.0, 1.0, 0.1, 1.0])
    front = np.zeros((2, 5), np.float32)
    back = np.stack([own * np.float32(0.5), own])  # colour 0.5
    behind = np.zeros((2, 5), np.float32)
    far = np.stack([far_w * np.float32(4.0), far_w])  # colour 4
    inside = np.ones(5, np.float32)
    want = np.float32([(0.15 + 0.7 * 4) / 1.0, (0.15 + 0.2 * 4) / 0.5, 0.5,
                       (0.15 + 0.1 * 4) / 0.4, 0.5])
    got = composite(np, front[:1], front[1], back[:1].copy(), back[1].copy(), behind[:1],
                    behind[1], inside, far=far, open_=opened)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    out = np.empty(5, np.float32)
    dev.launch("hf_dof_composite", _grid(5), (BLOCK, 1, 1),
               (front, back.copy(), behind, inside, far, opened, I32(1), np.zeros(1, np.float32),
                I32(0), I64(5), I32(1), out))
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_what_a_near_pixel_sees_behind_fills_its_shortfall_as_far_as_it_lies(dev):
    """``composite`` and ``hf_dof_composite`` by hand: a pixel before the focus plane whose
    own light (colour 1) weighs 0.7 of its disk, the rest of its disk on a background of
    colour 0.2 (``hid``: its mean, weight the share of the disk it lies in), takes that
    background for its shortfall (a lens: 0.7 + 0.3 x 0.2; normalised over its own
    surface, 1.0); for less where the background lies in less of its disk (0.1: the rest
    normalised); after the far light (0.1 of it, colour 4); and none under a shortfall of
    1e-4 or with no background in its disk (its own light normalised, no 0 / 0)."""
    from hfrender.backends.cuda.launches import BLOCK, I32, I64, _grid
    from hfrender.dof_composite import composite

    own = np.float32([0.7, 0.7, 1.0 - 5e-5, 0.7, 0.7])
    hid_w = np.float32([0.3, 0.1, 0.3, 0.0, 0.3])
    far_w = np.float32([0.0, 0.0, 0.0, 0.0, 0.1])
    front = np.zeros((2, 5), np.float32)
    back = np.stack([own, own])  # colour 1
    behind = np.zeros((2, 5), np.float32)
    far = np.stack([far_w * np.float32(4.0), far_w])
    opened = np.ones(5, np.float32)
    hid = np.stack([hid_w * np.float32(0.2), hid_w])
    inside = np.ones(5, np.float32)
    want = np.float32([0.7 + 0.3 * 0.2, (0.7 + 0.1 * 0.2) / 0.8, 1.0, 1.0,
                       0.7 + 0.1 * 4 + 0.2 * 0.2])
    got = composite(np, front[:1], front[1], back[:1].copy(), back[1].copy(), behind[:1],
                    behind[1], inside, far=far, open_=opened, hid=hid)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    out = np.empty(5, np.float32)
    dev.launch("hf_dof_composite", _grid(5), (BLOCK, 1, 1),
               (front, back.copy(), behind, inside, far, opened, I32(1), hid, I32(1), I64(5),
                I32(1), out))
    np.testing.assert_allclose(out, want, rtol=1e-6)
