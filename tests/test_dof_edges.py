"""A defocused foreground over an in-focus background (a branch before the subject): past
its silhouette's edge a defocused pixel sees the in-focus surface behind it, so its edge
fades as a lens draws it and its light is counted once (it was kept at full strength
inside the silhouette and spread over the background too: up to twice the light)."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cuda import launches
from hfrender.optics import disk_offsets

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


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return launches.Device(np, session_emulator(tmp_path_factory).run)


def fused(dev, backend, img, depth, lens, method):
    """One frame's depth of field by ``method`` on the CPU or the CUDA kernels (on the
    emulator)."""
    frames, depths = img[None], depth[None]
    weights = hf.WindowWeights.from_dense(np.ones((1, 1)))
    if backend == "cpu":
        return CPUBackend().fuse(frames, depths, weights, [lens], True, dof_method=method)[0]
    out = np.empty_like(frames)
    launches.fuse(dev, frames, depths, weights, [lens], True, out, dof_method=method)
    return out[0]


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


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
@pytest.mark.parametrize("blades", [0, 5])
def test_a_near_disc_before_a_sharp_card_and_a_far_wall_is_the_gathers_picture(
        dev, rng, blades, backend, monkeypatch):
    """Focused close: the near disc's layers gather the sharp card (the far wall, whose
    disks are larger, fills what they see past the disc from its own spread, at most the
    share of their disks it lies in: a gather of its pixels' weight alone); the
    fast layers (CPU, and the CUDA kernels on the emulator: a gather reads its box alone,
    past it its sums wrap around the grid) against the exact gather."""
    from hfrender import dof_frame

    img, depth, _, mask = card(rng)
    img = img + rng.random(img.shape, dtype=np.float32) * np.float32(0.3)  # texture
    xx = np.mgrid[0:H, 0:W][1]
    cx = int(np.nonzero(mask)[1].mean())  # the wall from the disc's middle on
    depth = np.where(mask, 0.4, np.where(xx > cx, 20.0, 0.6)).astype(np.float32)
    lens = hf.Lens(0.6, 2.8, aperture_blades=blades)
    r = lens.coc_radius_px(np.float32([0.4, 20.0]), W, H)
    assert 1.5 < r[0] < r[1]  # the wall's disks larger than the disc's
    seen = []
    real = dof_frame._gathered
    opened = []  # the gathers of how much of the disc's disks the wall fills: a weight alone
    monkeypatch.setattr(dof_frame, "_gathered", lambda ops, source, disks, win, side: (
        (seen if source[0].shape[-3] > 1 else opened).append(win))
        or real(ops, source, disks, win, side))
    img[(depth == np.float32(0.6)) & (xx == cx - 20)] = 1e4  # a bright line on the card
    fast, exact = (fused(dev, backend if m == "fast" else "cpu", img, depth, lens, m)
                   for m in ("fast", "exact"))
    assert seen and opened  # the card gathered (the wall's light is not: its own spread
    # fills what the disc's pixels see past its edge, ROLE_FAR; its pixels' weight alone is)
    wall = depth == np.float32(20.0)
    assert np.abs(fast - exact)[wall].max() < 1e-3  # the dim wall's light, kept
    near = mask & (np.abs(exact - img).max(-1) > 0)
    assert np.abs(fast - exact)[near].max() < 2e-2 * float(np.abs(exact[near]).max())
    sharp = (depth == np.float32(0.6)) & (np.abs(exact - img).max(-1) == 0)
    assert sharp.sum() > 500 and np.array_equal(fast[sharp], img[sharp])


@pytest.mark.parametrize("wall", [True, False])
@pytest.mark.parametrize("method", ["fast", "exact"])
def test_a_highlight_in_focus_past_a_defocused_edge_is_not_copied_onto_it(rng, method, wall):
    """A spark in focus seen through a pinhole in a defocused plane (and one beside its
    edge): the plane's pixels see the frame's usual light past their edges (at most
    ``SEEN_FACTOR`` x ``SEEN_PERCENTILE`` of it), not the spark's: it was copied onto ~30
    of them at 1/30 of its light each (a review: 1000 units of light made)."""
    img = np.full((H, W, 3), 0.5, np.float32)
    depth = np.full((H, W), NEAR, np.float32)
    if wall:  # a wall in focus at the right, grey with texture (else the spark alone is)
        depth[:, W - 40:] = FOCUS
        img[:, W - 40:] = 0.2 + 0.3 * rng.random((H, 40, 3), dtype=np.float32)
    y, x = int(rng.integers(30, 66)), int(rng.integers(40, 80))
    img[y, x], depth[y, x] = 1000.0, FOCUS  # seen through a pinhole in the near plane
    if wall:
        img[y, W - 38] = 1000.0  # and one on the wall, two pixels past the plane's edge
    out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=2.8, method=method)
    plane = depth == NEAR
    assert out[plane].max() < 2.0  # was ~35 around the pinhole and beside the edge
    assert out.sum() < img.sum()  # the plane hides most of the pinhole's spark: no light made
    edge = plane & (np.abs(out - img).max(-1) > 0.01)
    assert edge[:, W - 50:W - 40].any() == wall  # the plane's edge still sees the wall


def test_a_small_lit_subject_in_a_dark_frame_is_seen_past_an_edge(rng):
    """A black frame, a bright spot in focus (4 pixels) beside a defocused disc's edge:
    the frame's percentile is black, yet the edge sees the patch (a review: it went black
    where a frame-wide clamp alone cut it)."""
    img = np.zeros((H, W, 3), np.float32)
    depth = np.full((H, W), FOCUS, np.float32)
    yy, xx = np.mgrid[0:H, 0:W]
    disc = (yy - 48) ** 2 + (xx - 70) ** 2 < 14 ** 2
    img[disc], depth[disc] = 0.02, NEAR
    img[45:47, 85:87] = float(rng.uniform(0.6, 0.9))  # past its right edge, in no row of 7k
    out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=2.8, method="exact")
    edge = disc & (xx > 76)
    assert out[edge].max() > 0.05  # the spot seen past the edge (the disc itself is 0.02)


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
def test_a_defocused_edge_stays_soft_as_the_background_leaves_focus(rng, method):
    """A defocused disc before a wall: the wall seen past the disc's edge whether it is in
    focus or blurred by a pixel (its blur passing a pixel made the edge hard at once; now
    a source behind a defocused pixel with a smaller disk is seen like one in focus, and
    its own spread, a pixel here, weighs its nearest pixels a little more: 7e-3)."""
    img, _, _, mask = card(rng)
    lens = hf.Lens(FOCUS, 1.4)
    yy, xx = np.mgrid[0:H, 0:W]
    cy, cx = (int(round(float(a[mask].mean()))) for a in (yy, xx))
    edge = mask & ~np.roll(mask, 3, 0) | mask & ~np.roll(mask, -3, 0)  # 3 px inside it
    rings = []
    for far in (3.8, 4.1):  # the wall's blur: below and past a pixel
        r = float(lens.coc_radius_px(np.float32([far]), W, H)[0])
        assert (r < 1.0) == (far == 3.8) and 0.9 < r < 1.1
        depth = np.where(mask, NEAR, far).astype(np.float32)
        out = hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=1.4, method=method)
        rings.append(out[edge])
    fg, bg = img[cy, cx], img[~mask][0]
    seen = np.abs(rings[1] - fg).max(-1).max()
    assert seen > 0.1 * float(np.abs(bg - fg).max())  # the wall shows inside the edge
    assert np.abs(rings[1] - rings[0]).max() < 1e-2  # as much as when it was in focus


def highlights_past_an_edge(rng):
    """A near disc before a far wall of a smaller disk (under 0.7 of its radius: what the
    disc sees behind it, and its own light spread), a line of highlights in the wall just
    past the disc's edge, off the rows ``seen_top`` samples (every 7th)."""
    from hfrender.dof_composite import seen_top

    yy, xx = np.mgrid[0:H, 0:W]
    disc = (yy - 48) ** 2 + (xx - 80) ** 2 < 20 ** 2
    depth = np.where(disc, 0.6, 30.0).astype(np.float32)
    lens = hf.Lens(FOCUS, 1.4, sensor_width_mm=12.0)
    img = (rng.random((H, W, 3), dtype=np.float32) * 0.5 + 0.05).astype(np.float32)
    img[disc] = (0.5, 0.2, 0.1)
    rows = np.arange(20, 76)
    img[rows[rows % 7 != 0], 103] = 100.0
    r = lens.coc_radius_px(np.float32([0.6, 30.0]), W, H)
    assert 1 < r[1] < 0.7 * r[0]
    assert float(seen_top(np, np.moveaxis(img, -1, 0))) < 100.0  # the highlights are cut
    return img, depth, lens


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_a_highlight_seen_past_an_edge_is_cut_as_the_exact_gather_cuts_it(dev, rng, backend):
    """What a pixel sees behind it past its edge is cut to ``seen_top`` before it is
    weighed, by the fast layers as by the gather; the CUDA kernels (fast and exact) on the
    emulator."""
    img, depth, lens = highlights_past_an_edge(rng)
    exact = fused(dev, "cpu", img, depth, lens, "exact")
    for method in ("fast", "exact"):
        out = fused(dev, backend, img, depth, lens, method)
        assert np.abs(out - exact).max() < (1e-3 if method == "fast" else 1e-5)
    inside = (depth == np.float32(0.6)) & (np.abs(exact - img).max(-1) > 0.05)
    assert inside.sum() > 100  # the disc's edge sees the wall


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


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
@pytest.mark.parametrize("blades", [0, 5])
def test_a_disc_gathers_a_dim_far_wall_and_a_bright_card_in_one_transform(
        dev, rng, blades, backend, monkeypatch):
    """A near disc whose box sees a card in focus all around it (a few 1e5 just past its
    edge) and a dim far wall across its middle (larger disks: its own spread fills what the
    disc's pixels see past it), and the picture is the exact gather's: the
    highlights cut to the frame's usual light before they are seen (uncut: 1.3e4 off),
    the dim wall's colour kept through the shared rounding."""
    from hfrender import dof_frame

    img, depth, _, mask = card(rng)
    img = img + rng.random(img.shape, dtype=np.float32) * np.float32(0.3)  # texture
    yy, xx = np.mgrid[0:H, 0:W]
    cy = int(np.nonzero(mask)[0].mean())
    wall = ~mask & (np.abs(yy - cy) < 4)
    depth = np.where(mask, 0.4, np.where(wall, 20.0, 0.6)).astype(np.float32)
    img[wall] *= np.float32(0.01)  # dim
    beside = (depth == np.float32(0.6)) & (np.roll(mask, 2, 1) | np.roll(mask, -2, 1))
    beside &= yy % 7 > 0  # off the rows seen_top samples: 1e5 is cut to the usual light
    ys, xs = np.nonzero(beside)
    img[ys[::4], xs[::4]] = 1e5  # a few just past the disc's edge, all round
    lens = hf.Lens(0.6, 2.8, aperture_blades=blades)
    calls = []
    real = dof_frame._gathered
    monkeypatch.setattr(dof_frame, "_gathered", lambda ops, source, disks, win, side: (
        calls.append(win)) or real(ops, source, disks, win, side))
    fast = fused(dev, backend, img, depth, lens, "fast")
    exact = fused(dev, "cpu", img, depth, lens, "exact")
    assert calls  # the card gathered; the wall not (ROLE_FAR: its own spread fills)
    assert np.abs(fast - exact)[wall].max() < 1e-3 * float(img[wall].max()) + 1e-4
    near = mask & (np.abs(exact - img).max(-1) > 0)
    assert np.abs(fast - exact)[near].max() < 2e-2 * float(np.abs(exact[near]).max())


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
