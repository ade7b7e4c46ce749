"""The CUDA backend's motion-blur reconstruction without a GPU: its host logic
(hfrender/backends/cuda/reconstruct.py) drives the kernels of shaders/cuda/reconstruct.cu in
the CPU emulator (tests/cuda_emu), compared with the NumPy reference
(``CPUBackend.reconstruct``) on small seeded random cases."""

import numpy as np
import pytest
from cuda_emu import session_emulator

import hfrender as hf
import hfrender.backends.cpu.reconstruct as cpu_rc
from hfrender.backends.cpu import CPUBackend, recon_fast
from hfrender.backends.cpu.recon_cells import cells, frame_speeds
from hfrender.backends.cuda import launches
from hfrender.backends.cuda import reconstruct as cuda_rc
from hfrender.sampler import SampleSchedule

CPU = CPUBackend()
H, W = 12, 20


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return session_emulator(tmp_path_factory)  # one build per session, shared by modules


def scene(rng, n, dtype, *, speed=300.0, still=False):
    """``n`` sub-frames: random colour and depth (a few levels, so depths tie; sky at
    infinite depth, which is still and no hole), a near square
    moving with a shared velocity plus a per-pixel jitter (so splats collide), and a second,
    farther square moving the other way."""
    if dtype == np.float32:
        frames = rng.random((n, H, W, 4), dtype=np.float32)
    else:
        frames = rng.integers(0, 256, (n, H, W, 4)).astype(np.uint8)
    levels = np.array([1.0, 2.0, 2.5, 4.0, np.inf], np.float32)  # inf: the sky, still
    depth = levels[rng.integers(0, len(levels), (n, H, W))]
    velocity = np.zeros((n, H, W, 2), np.float32)
    if not still:
        for j in range(n):
            y0, x0 = rng.integers(1, H - 6), rng.integers(1, W - 8)
            v = rng.uniform(0.5, 1.0, 2) * speed * rng.choice([-1, 1], 2)
            jitter = rng.normal(0, 0.1 * speed, (5, 6, 2))
            velocity[j, y0 : y0 + 5, x0 : x0 + 6] = v + jitter
            depth[j, y0 : y0 + 5, x0 : x0 + 6] = rng.choice([0.5, 0.5, 0.75], (5, 6))
            y1, x1 = rng.integers(0, H - 3), rng.integers(0, W - 3)
            velocity[j, y1 : y1 + 3, x1 : x1 + 3] = -v * 0.5
            depth[j, y1 : y1 + 3, x1 : x1 + 3] = 3.0
    return frames, depth, velocity


def one_window(n, shutter=1 / 60):
    times = (np.arange(n) + 0.5) / n * shutter
    ramp = np.linspace(1.0, 2.0, n)  # unequal weights
    ww = hf.WindowWeights(np.array([0]), (ramp / ramp.sum())[None])
    return times, ww, np.array([[0.0, shutter]])


def both(dev, frames, depth, velocity, times, ww, spans, linear=True, lenses=None, shifts=None):
    gpu = np.empty((ww.count,) + frames.shape[1:], frames.dtype)
    cuda_rc.reconstruct(dev, frames, depth, velocity, times, ww, spans, lenses, linear, gpu,
                        shifts=shifts)
    cpu = CPU.reconstruct(frames, depth, velocity, times, ww, spans, lenses, linear,
                          shifts=shifts)
    return gpu, cpu


def assert_close(gpu, cpu):
    """Within 1 code value (float32: 1e-5), and different at all in under 0.1% of values."""
    assert gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    diff = np.abs(gpu.astype(np.float64) - cpu.astype(np.float64))
    assert diff.max() <= (1e-5 if gpu.dtype == np.float32 else 1), diff.max()
    assert (diff > 0).mean() < 1e-3, (diff > 0).mean()


def _reconstructed(names):
    return {n for n in names if n.startswith("hf_rc_")}


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_a_moving_square_matches_the_cpu(launched, rng, dtype):
    dev, names = launched
    frames, depth, velocity = scene(rng, 3, dtype)
    times, ww, spans = one_window(3)
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    assert_close(gpu, cpu)
    # the case reconstructs (every kernel ran, with borders and ties) and it matters
    assert _reconstructed(names) == {"hf_rc_base", "hf_rc_fill", "hf_rc_splat", "hf_rc_resolve",
                                     "hf_rc_ties",
                                     "hf_rc_border", "hf_rc_accumulate", "hf_rc_cell_add"}
    plain = CPU.fuse(frames, None, ww, None, True)
    assert np.abs(cpu.astype(np.float64) - plain).max() > 0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_sub_frames_moved_by_their_antialiasing_shifts_match_the_cpu(launched, rng, dtype):
    """Each sub-frame's antialiasing shift (x, y px) moves where its pixels land and where
    its layer is sampled, on the device as on the CPU: both differ from the unshifted."""
    dev, _ = launched
    frames, depth, velocity = scene(rng, 3, dtype)
    times, ww, spans = one_window(3)
    shifts = rng.uniform(-0.5, 0.5, (3, 2))
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans, shifts=shifts)
    assert_close(gpu, cpu)
    still, _ = both(dev, frames, depth, velocity, times, ww, spans)
    assert np.abs(gpu.astype(np.float64) - still).max() > 0
    zero, _ = both(dev, frames, depth, velocity, times, ww, spans, shifts=np.zeros((3, 2)))
    assert np.array_equal(zero, still)  # no shift: bit for bit the unshifted


def test_holes_show_the_still_pixels_behind_them_as_the_cpu(launched, rng, monkeypatch):
    """A case where the hole fill changes the picture: the kernel's fill matches NumPy's."""
    dev, _ = launched
    frames, depth, velocity = scene(rng, 3, np.float32, still=True)
    # a square moving in every sub-frame where it is: its pixels are holes (never still)
    y0, x0 = rng.integers(2, H - 7), rng.integers(2, W - 9)
    velocity[:, y0 : y0 + 5, x0 : x0 + 6] = rng.uniform(300, 600, 2) * rng.choice([-1, 1], 2)
    depth[:, y0 : y0 + 5, x0 : x0 + 6] = 0.5
    times, ww, spans = one_window(3)
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    assert_close(gpu, cpu)
    monkeypatch.setattr(cpu_rc, "fill", lambda *args: None)
    unfilled = CPU.reconstruct(frames, depth, velocity, times, ww, spans, None, True)
    assert np.abs(unfilled - cpu).max() > 1e-3


def _fill_by_loop(color, depth, hole, surface, w, reach):
    """The fill rule written out pixel by pixel, ring by ring (right, left, down, up;
    float32 sums; a ring reads no hole or one an earlier ring filled; a hole is filled by
    ring k only where its ``reach`` is at least k)."""
    out, h = color.copy(), len(hole) // w
    ready = ~hole
    for ring in range(1, int(reach.max()) + 1):
        now, filled = out.copy(), []
        for p in np.flatnonzero(hole & ~ready & (reach >= ring)):
            y, x = divmod(int(p), w)
            total, count = np.zeros(color.shape[1], np.float32), 0
            for inside, q in ((x < w - 1, p + 1), (x > 0, p - 1), (y < h - 1, p + w),
                              (y > 0, p - w)):
                if inside and ready[q] and depth[q] > surface[p]:
                    total, count = (total + now[q]).astype(np.float32), count + 1
            if count:
                out[p] = total / np.float32(count)
                filled.append(p)
        ready[filled] = True
    return out


def _fill_on_the_kernel(emu, color, depth, hole, surface, shape, reach):
    """``hf_rc_fill`` a ring at a time, until one fills nothing (the backend looks every
    few rings, up to the deepest reach: the same picture)."""
    h, w = shape
    n, gpu = h * w, color.copy()
    level = np.where(hole, 0x7FFFFFFF, 0).astype(np.int32)
    for ring in range(1, n + 2):
        changed = np.zeros(1, np.int32)
        emu.run("hf_rc_fill", ((n + 255) // 256, 1, 1), (256, 1, 1),
                (surface, depth, reach, launches.I32(ring), launches.I32(h), launches.I32(w),
                 launches.I32(color.shape[1]), level, changed, gpu))
        if not changed[0]:
            break
    return gpu


@pytest.mark.parametrize("shape", [(1, 7), (6, 1), (2, 2), (5, 8), (9, 11)])
@pytest.mark.parametrize("channels", [3, 4])
def test_the_fill_kernel_is_the_cpu_fill_at_the_edges_and_at_ties(emu, rng, shape, channels):
    """Holes in the first and last rows and columns, one-row and one-column frames,
    neighbours at the hole's own depth (not behind it), holes several rings deep: bit for
    bit the CPU's, and both the rule written out."""
    h, w = shape
    n = h * w
    for case in range(20):
        hole = rng.random(n) < (0.5 if case % 2 else 0.85)  # (deep holes: most pixels)
        color = rng.random((n, channels), dtype=np.float32)
        levels = np.array([0.5, 1.0, 2.0, np.inf], np.float32)
        depth, surface = levels[rng.integers(0, 4, n)], levels[rng.integers(0, 3, n)]
        depth[hole] = np.inf
        reach = rng.integers(1, 5, n).astype(np.int32)  # each hole's own depth of rings
        cpu = color.copy()
        cpu_rc.fill(cpu, depth, hole, surface, np.flatnonzero(hole), w, reach)
        np.testing.assert_array_equal(cpu, _fill_by_loop(color, depth, hole, surface, w,
                                                         reach))
        gpu = _fill_on_the_kernel(emu, color, depth, hole, surface, shape, reach)
        np.testing.assert_array_equal(gpu.view(np.uint32), cpu.view(np.uint32))


@pytest.mark.parametrize("exact", [False, True])
def test_what_enters_the_frame_comes_from_the_neighbour_as_the_cpu(launched, rng, exact):
    """A bar outside the frame in the first sub-frame and gone in the last: the neighbour's
    pixels that lay outside own's frame land wherever they fall (without that, the edge
    columns keep under 75% of the streak's light), as on the CPU. ``exact``: times and
    speed in powers of two, so pixels move back onto the outer centres themselves (0 and
    W - 1 are inside)."""
    dev, _ = launched
    n = 4
    shutter = 1 / 64 if exact else 1 / 60
    times, ww, spans = one_window(n, shutter)
    if exact:  # a whole number of pixels between sub-frames
        speed = 256.0 * int(rng.integers(9, 11))
        x0 = -speed * times[0] - 4.0
    else:
        speed = float(rng.uniform(1.1, 1.3)) * (W + 6) / (times[-1] - times[0])
        x0 = -speed * times[0] - 3 - float(rng.uniform(0.5, 1.5))
    frames = np.full((n, H, W, 4), 0.2, np.float32)
    depth = np.full((n, H, W), 6.0, np.float32)
    velocity = np.zeros((n, H, W, 2), np.float32)
    centres = np.arange(W) + 0.5
    for j, t in enumerate(times):
        on = (centres >= x0 + speed * t) & (centres < x0 + speed * t + 3)
        frames[j][:, on, :3], depth[j][:, on], velocity[j][:, on, 0] = 0.9, 2.0, speed
    assert not velocity[0].any() and not velocity[-1].any() and velocity[1:-1].any()
    if exact:  # a pixel of 1 that moves back onto column 0 at 0's time, one of 2 onto W - 1
        k = round(speed * (times[1] - times[0]))  # (0 and 3 show the background there)
        for j, col in ((1, k), (2, W - 1 - k)):
            frames[j][:, col, :3], depth[j][:, col], velocity[j][:, col, 0] = 0.5, 1.0, speed
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    assert_close(gpu, cpu)
    if exact:  # whole-pixel steps round at ties: the light is the parity case's, not the point
        return
    # the exact light above the background per column: each sub-frame's weight times the
    # bar's mean cover over its cell (what reconstruction estimates: plain fusion's weights)
    edges = cells(times, 0.0, shutter)
    light = np.zeros(W)
    for j in range(n):
        ts = edges[j] + (np.arange(1024) + 0.5) / 1024 * (edges[j + 1] - edges[j])
        cover = [(centres >= x0 + speed * t) & (centres < x0 + speed * t + 3) for t in ts]
        light += ww.rows[0][j] * 0.7 * np.mean(cover, axis=0)
    for edge in (slice(0, 4), slice(W - 4, W)):
        shown = (gpu[0, :, edge, 0] - 0.2).mean(0).sum()
        assert shown == pytest.approx(light[edge].sum(), rel=0.25)


def test_code_values_blend_as_the_cpu(launched, rng):
    dev, _ = launched
    frames, depth, velocity = scene(rng, 3, np.uint8)
    times, ww, spans = one_window(3)
    assert_close(*both(dev, frames, depth, velocity, times, ww, spans, linear=False))


def test_overlapping_windows_share_sub_frames_as_the_cpu(launched, rng):
    """Shutter 720 degrees: each sub-frame is in two windows, with a cell in each."""
    dev, _ = launched
    schedule = SampleSchedule(30.0, 720.0, samples=3)
    plan = schedule.plan(2, first_frame=1)
    n = len(plan.times)
    frames, depth, velocity = scene(rng, n, np.uint8, speed=60.0)
    spans = schedule.shutter_spans(np.array([1, 2]))
    assert plan.weights.count == 2 and plan.weights.frames_needed() <= n
    assert np.intersect1d(plan.weights.starts[0] + np.flatnonzero(plan.weights.rows[0]),
                          plan.weights.starts[1] + np.flatnonzero(plan.weights.rows[1])).size
    assert_close(*both(dev, frames, depth, velocity, plan.times, plan.weights, spans))


def test_a_single_sample_window_matches_the_cpu(launched, rng):
    dev, _ = launched
    frames, depth, velocity = scene(rng, 2, np.float32)
    times = np.array([0.004, 0.012])
    ww = hf.WindowWeights(np.array([0, 1]), np.ones((2, 1)))
    spans = np.array([[0.0, 0.008], [0.008, 0.016]])
    assert_close(*both(dev, frames, depth, velocity, times, ww, spans))


def test_chunks_of_intermediate_times_sum_as_the_cpu(launched, rng, monkeypatch):
    """Chunks of 2 intermediate times (the CPU's and the device's): the same sums."""
    dev, _ = launched
    monkeypatch.setattr(cpu_rc, "CHUNK_ELEMS", 2 * H * W)
    monkeypatch.setattr(cuda_rc, "CHUNK_ELEMS", 2 * H * W)
    frames, depth, velocity = scene(rng, 2, np.uint8, speed=900.0)
    times, ww, spans = one_window(2)
    speed = frame_speeds(velocity, ww)
    assert cpu_rc.half_steps(speed[0], speed[1], times[0], times[1], 0.0) > 2  # several chunks
    assert_close(*both(dev, frames, depth, velocity, times, ww, spans))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_no_motion_is_plain_fusion_bit_for_bit(launched, rng, dtype):
    dev, names = launched
    frames, depth, velocity = scene(rng, 3, dtype, still=True)
    velocity[1, 2, 3] = (1e-4, 0.0)  # moves 1.7e-6 px over the shutter: below STILL_PX
    times, ww, spans = one_window(3)
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    np.testing.assert_array_equal(gpu, cpu)
    np.testing.assert_array_equal(gpu, CPU.fuse(frames, None, ww, None, True))
    assert not _reconstructed(names)


def test_the_backend_edge_takes_strided_planes_and_a_host_out(emu, rng):
    """``CUDABackend.reconstruct`` (CuPy faked, kernels emulated): strided depth and
    velocity made contiguous at the edge, the result written into the caller's array."""
    from test_cuda_backend import fake_cupy

    from hfrender.backends.cuda import CUDABackend

    backend = CUDABackend(fake_cupy(emu))
    frames, depth, velocity = scene(rng, 2, np.uint8)
    times, ww, spans = one_window(2)
    wide = np.zeros((2, H, W, 3), np.float32)
    wide[..., :2] = velocity
    deep = np.zeros((2, H, 2 * W), np.float32)
    deep[..., ::2] = depth
    out = np.empty((1, H, W, 4), np.uint8)
    got = backend.reconstruct(frames, deep[..., ::2], wide[..., :2], times, ww, spans, None,
                              True, out)
    assert got is out
    assert_close(out, CPU.reconstruct(frames, depth, velocity, times, ww, spans, None, True))


def test_depth_of_field_defocuses_before_the_warp_as_the_cpu(launched, rng):
    dev, _ = launched
    frames, depth, velocity = scene(rng, 3, np.uint8)
    times, ww, spans = one_window(3)
    lenses = [hf.Lens(1.0 + 0.2 * j, 1.4, sensor_width_mm=9.0) for j in range(3)]
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans, lenses=lenses)
    assert_close(gpu, cpu)
    sharp = CPU.reconstruct(frames, depth, velocity, times, ww, spans, None, True)
    assert np.abs(cpu.astype(np.float64) - sharp).max() > 0  # the lens blurred something


@pytest.mark.parametrize("shape", [(1, 9), (9, 1), (2, 2), (3, 5)])
def test_samples_past_the_frame_and_ties_with_the_still_depth_as_the_cpu(launched, rng, shape):
    """Tiny frames whose moving pixels sit on the outer rows and columns, so borders sample
    past the frame's edges (the half-pixel rule), and moving depths equal to still ones (a
    border only where the landing is strictly in front): the CPU's picture."""
    dev, _ = launched
    h, w = shape
    n = 3
    frames = rng.random((n, h, w, 3), dtype=np.float32)
    levels = np.array([1.0, 2.0, 4.0], np.float32)
    depth = levels[rng.integers(0, 3, (n, h, w))]
    velocity = np.zeros((n, h, w, 2), np.float32)
    moving = rng.random((n, h, w)) < 0.6
    velocity[moving] = rng.normal(0, 400, (int(moving.sum()), 2))
    velocity[..., 1] *= 0.01 if h == 1 else 1.0  # mostly along the frame's one row
    velocity[..., 0] *= 0.01 if w == 1 else 1.0
    depth[moving] = levels[rng.integers(0, 2, int(moving.sum()))]  # ties with still pixels
    times, ww, spans = one_window(n)
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    assert_close(gpu, cpu)
    assert np.abs(cpu.astype(np.float64) - CPU.fuse(frames, None, ww, None, True)).max() > 0


def _lone_frame(dev, frame, velocity, depth):
    """``hf.vector_blur``'s hyperframe at 360 degrees on the device and on the CPU: one
    sub-frame at the shutter's middle (time 0, the shutter +-half a frame)."""
    times, ww = np.zeros(1), hf.WindowWeights(np.zeros(1, np.int64), np.ones((1, 1)))
    return both(dev, frame[None], depth[None], velocity[None], times, ww,
                np.array([[-0.5, 0.5]]))


def test_crossing_streaks_at_equal_depth_blend_on_the_device_as_the_cpu(launched, rng):
    """Two bars moving through each other at one depth (``vector_blur`` without depth),
    plus a jittered square whose own splats collide at equal depth: every landing's equal
    rivals of its sub-frame with another velocity are blended (``hf_rc_ties``), not the
    first in raster order kept, on the device as on the CPU; and the device's blur of the
    mirrored frame is its mirrored blur (was: the left bar covered the right, 0.2 apart)."""
    dev, names = launched
    h, w = 12, 40
    frame = np.full((h, w, 3), 0.1, np.float32)
    velocity = np.zeros((h, w, 2), np.float32)
    frame[2:10, 6:18], velocity[2:10, 6:18] = rng.uniform(0.5, 1, 3), (20.3, 0)
    frame[2:10, 19:31], velocity[2:10, 19:31] = rng.uniform(0, 0.4, 3), (-20.3, 0)
    frame[4:7, 31:36] = rng.uniform(0, 1, (3, 5, 3))
    velocity[4:7, 30:36] += rng.normal(0, 3, (3, 6, 2)).astype(np.float32)
    depth = np.where(np.hypot(*velocity.transpose(2, 0, 1)) > 0, 1.0, 2.0).astype(np.float32)
    gpu, cpu = _lone_frame(dev, frame, velocity, depth)
    assert_close(gpu, cpu)
    mirrored, _ = _lone_frame(dev, frame[:, ::-1].copy(), velocity[:, ::-1] * np.float32([-1, 1]),
                              depth[:, ::-1].copy())
    assert np.abs(gpu - frame).max() > 0.3
    np.testing.assert_allclose(mirrored[0, :, ::-1], gpu[0], rtol=0, atol=1e-6)
    assert "hf_rc_ties" in names


@pytest.mark.parametrize("n, near", [(1, 0.25), (3, 0.25), (1, 3.5), (3, 3.5)])
def test_outliers_are_drawn_on_their_own_as_the_cpu(launched, rng, n, near):
    """A pixel per sub-frame far faster than the rest (recon_fast.outliers): left out of the
    kernels' splatting, its streak drawn over the cell by the same array code as the CPU's;
    nearest (0.25 m), or behind the moving squares (3.5 m: hidden where they are)."""
    dev, _ = launched
    frames, depth, velocity = scene(rng, n, np.float32)
    times, ww, spans = one_window(n)
    for j in range(n):
        y, x = int(rng.integers(0, H)), int(rng.integers(0, W))
        velocity[j, y, x] = rng.uniform(-1, 1, 2) * 2e3 + (9e3, 0)  # 150 px over the shutter
        depth[j, y, x] = near
        moving = np.hypot(velocity[j, ..., 0], velocity[j, ..., 1]) > 0
        fast, _ = recon_fast.outliers(np, velocity[j], moving, 1 / 60)
        assert fast.tolist() == [y * W + x]
    gpu, cpu = both(dev, frames, depth, velocity, times, ww, spans)
    assert_close(gpu, cpu)
    still = frames[0] if n == 1 else CPU.fuse(frames, None, ww, None, True)[0]
    assert np.abs(cpu[0] - still).max() > 0.05  # (the blur is there)
