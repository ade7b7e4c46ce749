"""``fx --depth-resize linear`` of a disparity map: a plane's disparity is linear in image
space (``d = a x + b y + c`` for any plane seen by a pinhole), so interpolating the
disparity itself gives a slanted plane's disparity at the new pixel centres exactly; the
map's inverse (the stand-in metres) interpolated bends it (was: 0.69% of the map's range
off at 4x up, 0.50% at 2.5x up, 0.06% at 4x down, between each two pixels of the far end
bowed toward the far side: a 24 px largest blur's 0.17 px; now 1.5e-7, float32's)."""

import numpy as np
import pytest

from hfrender.disparity import Disparity
from hfrender.io.depth_fit import depth_for

NEAR, FAR = 1.0, 0.05  # the plane's disparity at its left and right edges (near is large)


def plane(w: int, h: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The disparity of a plane slanting away to the right (and a little down) seen in a
    (h, w) map, at its pixel centres ``x`` and ``y`` (0..w-1, 0..h-1 at its own pixels):
    the same picture whatever the map's size."""
    u, v = (x + 0.5) / w, (y + 0.5) / h
    return NEAR + (FAR - NEAR) * (0.9 * u[None, :] + 0.1 * v[:, None])


def disparity_after(tmp_path, small: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``small`` (a disparity map, .npy) scaled to ``size`` (w, h) by fx's depth pass
    (depth_for, --depth-resize linear), as disparity again: the stand-in metres are the
    map's inverse times one scale, which the focus's stand-in metres give."""
    np.save(tmp_path / "d.npy", small.astype(np.float32))
    focus = 0.5
    depth = depth_for(str(tmp_path / "d.npy"), Disparity(24.0, focus), False, size, 1,
                      lambda _: None, "linear")
    return depth.focus * focus / depth.first.astype(np.float64)


@pytest.mark.parametrize("small, big", [((16, 9), (64, 36)), ((64, 36), (16, 9)),
                                        ((20, 12), (50, 30))],
                         ids=["4x up", "4x down", "2.5x up"])
def test_a_resized_disparity_map_is_the_planes_disparity_at_the_new_pixel_centres(
        tmp_path, small, big):
    (w0, h0), (w1, h1) = small, big
    got = disparity_after(tmp_path, plane(w0, h0, np.arange(w0), np.arange(h0)), big)
    # each new pixel's centre in the small map's pixels (the scaler's: by pixel centres);
    # the border pixels, held at the map's edge by the scaler, left out
    x = (np.arange(w1) + 0.5) * (w0 / w1) - 0.5
    y = (np.arange(h1) + 0.5) * (h0 / h1) - 0.5
    inside = np.ix_((y >= 0) & (y <= h0 - 1), (x >= 0) & (x <= w0 - 1))
    off = np.abs(got - plane(w0, h0, x, y))[inside].max() / (NEAR - FAR)
    assert off < 1e-5, f"{off:.2%} of the map's range off"


def test_sky_in_a_resized_disparity_map_stays_sky_and_its_edge_goes_between(tmp_path):
    """A disparity of 0 (sky) beside 0.5: sky where the new pixel takes none of the near
    side, and between the two where it takes both (disparity 0.25: twice as far)."""
    small = np.zeros((2, 4), np.float32)
    small[:, 2:] = 0.5
    got = disparity_after(tmp_path, small, (8, 4))
    np.testing.assert_allclose(got[0], [0, 0, 0, 0.125, 0.375, 0.5, 0.5, 0.5], atol=1e-6)


@pytest.mark.parametrize("small, big", [((16, 9), (64, 36)), ((20, 12), (50, 30))],
                         ids=["4x up", "2.5x up"])
def test_a_resized_metres_pass_is_the_planes_depth_and_its_edges_blur_between(
        tmp_path, small, big):
    """A depth pass in metres is resized linearly in 1/z, as a disparity map is: a slanted
    plane (1 m to 20 m) comes out at its true depth at the new pixel centres (was: linear in
    metres, 6.0% off at 4x up), and an edge between a box at 1 m and a wall at 5 m gives
    its pixels between the circle of confusion of each side mixed as the pixel mixes
    them, the blur a footage pixel across the edge has (was: up to 38% of the two blurs'
    difference off: 0.64 px where 1.6 px mixes them, nearly as sharp as the wall in focus)."""
    from hfrender.optics import Lens

    (w0, h0), (w1, h1) = small, big
    lens = Lens(5.0, 1.4)
    x = (np.arange(w1) + 0.5) * (w0 / w1) - 0.5
    y = (np.arange(h1) + 0.5) * (h0 / h1) - 0.5
    inside = np.ix_((y >= 0) & (y <= h0 - 1), (x >= 0) & (x <= w0 - 1))
    z = 1 / plane(w0, h0, np.arange(w0), np.arange(h0))
    np.save(tmp_path / "z.npy", z.astype(np.float32))
    got = depth_for(str(tmp_path / "z.npy"), 1.0, False, big, 1, lambda _: lens,
                    "linear").first.astype(np.float64)
    off = np.abs(got / (1 / plane(w0, h0, x, y)) - 1)[inside].max()
    assert off < 1e-5, f"{off:.2%} off"
    edge = np.full((h0, w0), 5.0, np.float32)
    edge[:, : w0 // 2] = 1.0
    np.save(tmp_path / "edge.npy", edge)
    got = depth_for(str(tmp_path / "edge.npy"), 1.0, False, big, 1, lambda _: lens,
                    "linear").first[h1 // 2].astype(np.float64)
    wall = np.clip(x - (w0 // 2 - 1), 0, 1)  # each new pixel's share of the wall
    between = (got > 1) & (got < 5)
    assert between.sum() == 4 if w1 // w0 == 4 else between.sum() > 0
    near, far = lens.coc_px(np.float64(1.0), w1), lens.coc_px(np.float64(5.0), w1)
    mixed = (1 - wall) * near + wall * far
    np.testing.assert_allclose(lens.coc_px(got, w1), mixed, atol=1e-4 * near)
