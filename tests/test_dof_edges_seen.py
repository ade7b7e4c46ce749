"""What is seen past a defocused foreground's edge: a sharp card and a far wall gathered by a
near disc (and a dim far wall with a bright card in one transform), a highlight in focus not
copied onto the edge, a small lit subject in a dark frame, an edge that stays soft as the
background leaves focus, and highlights past an edge cut as the exact gather cuts them."""

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
