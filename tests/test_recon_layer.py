"""What a warped moving surface shows (hfrender/backends/cpu/recon_layer.py): its moving
layer sampled where the pixel was, at the landings and their borders. Against analytic
scenes drawn with a box filter (16 coverage samples a pixel), each against the average of
many more sub-frames."""

import numpy as np

import hfrender as hf
from hfrender.backends.cpu import CPUBackend
from hfrender.backends.cpu.recon_layer import FREE, borders, layer, resampled, samples

CPU = CPUBackend()
H, W, SS = 48, 64, 4
SHUTTER = 1 / 60
BACK, ROD = np.float32([0.1, 0.2, 0.3]), np.float32([0.9, 0.8, 0.5])


def rod(t, pivot, omega, angle, width=2.0, length=40.0):
    """A thin rod turning about ``pivot`` (y, x) at ``omega`` rad/s: colour (box-filtered
    coverage), depth and velocity (vx, vy) in pixels per second of the pixels it touches."""
    ys = (np.arange(H * SS) + 0.5) / SS - 0.5  # pixel centres at integer coordinates
    xs = (np.arange(W * SS) + 0.5) / SS - 0.5
    y, x = np.meshgrid(ys, xs, indexing="ij")
    a = angle + omega * t
    ry, rx = y - pivot[0], x - pivot[1]
    along, across = ry * np.cos(a) + rx * np.sin(a), -ry * np.sin(a) + rx * np.cos(a)
    inside = (np.abs(across) < width / 2) & (along > 0) & (along < length)
    cover = inside.reshape(H, SS, W, SS).mean((1, 3)).astype(np.float32)[..., None]
    colour = BACK * (1 - cover) + ROD * cover
    touched = cover[..., 0] > 0
    cy, cx = np.mgrid[0:H, 0:W].astype(np.float32)
    velocity = np.zeros((H, W, 2), np.float32)
    velocity[..., 0] = np.where(touched, omega * (cy - pivot[0]), 0)  # d(x)/dt
    velocity[..., 1] = np.where(touched, -omega * (cx - pivot[1]), 0)  # d(y)/dt
    depth = np.where(touched, 1.0, 5.0).astype(np.float32)
    return colour, depth, velocity


def streak(draw, n):
    """Reconstruction from ``n`` sub-frames, plain fusion of them, and the average of 192."""
    times = (np.arange(n) + 0.5) / n * SHUTTER
    drawn = [draw(t) for t in times]
    frames, depth, velocity = (np.stack([d[i] for d in drawn]) for i in range(3))
    ww = hf.WindowWeights(np.array([0]), np.full((1, n), 1.0 / n))
    spans = np.array([[0.0, SHUTTER]])
    rec = CPU.reconstruct(frames, depth, velocity, times, ww, spans, None, True)[0]
    ref = np.mean([draw(t)[0] for t in (np.arange(192) + 0.5) / 192 * SHUTTER], axis=0)
    return rec, frames.mean(0), ref


def high_pass(e):
    """``e`` less its 3x3 mean: the error's checkerboard part."""
    p = np.pad(e, ((1, 1), (1, 1), (0, 0)), mode="edge")
    mean = sum(p[1 + dy:p.shape[0] - 1 + dy, 1 + dx:p.shape[1] - 1 + dx]
               for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9
    return e - mean


def test_a_thin_turning_rod_streaks_without_a_checkerboard(rng):
    pivot = (float(rng.uniform(4, 8)), float(rng.uniform(28, 36)))
    angle = float(rng.uniform(0.2, 0.5))
    omega = float(rng.uniform(22, 28))  # the tip: about 17 px a shutter, 1 px a half-cell
    rec, plain, ref = streak(lambda t: rod(t, pivot, omega, angle), 8)
    err, err_plain = (rec - ref) * 255, (plain - ref) * 255
    # on five seeds: 0.27-0.38 of plain 8's squared error; with the nearest-pixel landings
    # alone, 0.43-0.91, and 0.85-0.91 of it in the high frequencies (a checkerboard over
    # the streak), against 0.65-0.75 now
    assert (err ** 2).sum() < 0.42 * (err_plain ** 2).sum()
    assert (high_pass(err) ** 2).sum() < 0.8 * (err ** 2).sum()


def test_samples_resample_inside_blend_at_edges_and_know_nothing_past_the_frame(rng):
    h, w, c = 6, 7, 3
    lin = rng.random((h, w, c), dtype=np.float32)
    moving = np.zeros((h, w), bool)
    moving[1:5, 1:4] = True
    base = rng.random((5, c), dtype=np.float32)
    moving[4, w - 1] = True  # on the right edge
    pix = np.array([2 * w + 2, 2 * w + 4, 0 * w + 2, 4 * w + 5, 3 * w + 6])
    # px per second, dt = 0.01 s: 0.4 px past the right edge's centre is still the frame's,
    # 0.6 px past it is not
    vx = np.array([-0.25, 0.5, 0.0, -1.4, -1.6]) * 100
    vy = np.array([-0.5, 0.0, 0.0, 0.0, -1.0]) * 100
    idx = np.flatnonzero(moving)
    got = samples(layer(idx, lin.reshape(-1, c)[idx], h * w), (h, w), pix, vy, vx,
                  np.full(5, 0.01), base)
    # inside the surface: the bilinear mean of the four pixels around (2.5, 2.25)
    ys, xs, wy, wx = 2, 2, np.float32(0.5), np.float32(0.25)
    want = ((1 - wy) * (1 - wx) * lin[ys, xs] + (1 - wy) * wx * lin[ys, xs + 1]
            + wy * (1 - wx) * lin[ys + 1, xs] + wy * wx * lin[ys + 1, xs + 1])
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    inside = resampled(lin.reshape(-1, c), (h, w), pix[:1], vy[:1], vx[:1], np.full(1, 0.01))
    np.testing.assert_allclose(inside[0], want, rtol=1e-6)  # the colour alone, no base
    # half on the surface's last column (3), half off it: a blend with the base
    np.testing.assert_allclose(got[1], 0.5 * lin[2, 3] + 0.5 * base[1], rtol=1e-6)
    np.testing.assert_array_equal(got[2], base[2])  # a still pixel shows its base
    np.testing.assert_allclose(got[3], lin[4, w - 1], rtol=1e-6)  # 0.4 px past: the edge's
    np.testing.assert_array_equal(got[4], base[4])  # 0.6 px past the edge: unknown


def test_borders_prefer_left_right_up_down_and_only_strictly_in_front():
    h, w = 4, 5
    lut = np.full(h * w + 2 * w, h * w, np.int64)  # as _domain: room past both ends
    lut[:h * w] = np.arange(h * w)  # every pixel in the domain, in raster order
    stride = h * w + 1
    # landings at time 0 on (1, 1), (1, 3), (0, 2) and (3, 4) (a corner), depth 1
    hit_pix = np.array([6, 8, 2, 19])
    hit_keys = lut[hit_pix]
    base_d = np.full(h * w, 5.0, np.float32)
    base_d[13] = 1.0  # below (1, 3): the still surface is as near as the landing
    taken = np.full(stride, FREE, np.int32)
    taken[hit_keys] = np.arange(len(hit_keys))  # the z-buffer's winner marks
    keys, took = borders(hit_keys, hit_pix, np.ones(4, np.float32), base_d, lut, stride,
                         (h, w), taken)
    got = dict(zip((keys % stride).tolist(), took.tolist(), strict=True))
    assert got == {
        7: 0,  # between (1, 1) and (1, 3): the landing on its left first
        9: 1, 3: 2,  # right of (1, 3), and of (0, 2) (3 is above (1, 3) too: beside wins)
        5: 0, 1: 2,  # left of (1, 1), and of (0, 2) (1 is above (1, 1) too: beside wins)
        18: 3,  # left of the corner landing (3, 4); nothing wraps to the next row
        11: 0,  # below (1, 1)
        14: 3,  # above the corner landing
    }  # 13, below (1, 3), ties with its still surface (depth 1): no border
    assert (taken[keys] == -1).all()


def test_inside_landings_take_the_taps_of_the_general_rule(rng):
    """Landings from inside a surface skip the clipping and the frame's edges: where a pixel
    whose eight neighbours move lands (rounded, as the splats land), the place it came from
    is within half a pixel of it, so the shortcut's taps and weights are the general rule's
    and every tap is in the frame; at the frame's edge rows the shortcut would not hold."""
    from hfrender.backends.cpu.recon_layer import _taps, inner

    h, w = 9, 11
    moving = rng.random((h, w)) < 0.85
    moving[:, 0] = moving[0] = True  # the edges move, so inner pixels reach row and column 1
    src = np.flatnonzero(inner(moving))
    assert len(src) > 10
    n = 400
    q = rng.choice(src, n)
    vy, vx = rng.uniform(-900, 900, n), rng.uniform(-900, 900, n)
    dt = rng.uniform(-1 / 120, 1 / 120, n)
    ty, tx = np.rint(q // w + vy * dt), np.rint(q % w + vx * dt)
    kept = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)  # the splats that land in the frame
    assert kept.sum() > n / 4
    pix = (ty * w + tx).astype(np.int64)[kept]
    vy, vx, dt = vy[kept], vx[kept], dt[kept]
    fast, none = _taps((h, w), pix, vy, vx, dt, inside=True)
    full, seen = _taps((h, w), pix, vy, vx, dt)
    assert none is None and seen.all()
    for (at, weight), (at_full, weight_full) in zip(fast, full, strict=True):
        np.testing.assert_array_equal(at, at_full)
        np.testing.assert_array_equal(weight, weight_full)
    # a place past the last column: the general rule clamps, the shortcut would not
    edge = np.array([w - 1]), np.zeros(1), np.array([-30.0]), np.full(1, 0.01)
    assert _taps((h, w), *edge)[0][1][0][0] == w - 1
    assert _taps((h, w), *edge, inside=True)[0][1][0][0] == w
