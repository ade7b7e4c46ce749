"""Motion reconstruction between sub-frames (``--reconstruct``), on the CPU backend:
synthetic cases checked against the exact shutter average (known in closed form for a
translating bar), a still occluder stays sharp, chunks and overlapping windows change
nothing, bad input is one line (rendered scenes: test_reconstruct_render.py; the hints a
render gives: test_reconstruct_hints.py)."""


import numpy as np
import pytest

import hfrender as hf
from hfrender.errors import InputError
from hfrender.sampler import SampleSchedule, pixel_offsets

H, W = 6, 96


def _bar(t, x0, speed, width=5.0, depth=2.0):
    """A bar of ``width`` px at ``x0 + speed * t`` over a still background (linear light)."""
    color = np.full((H, W, 4), 0.2, np.float32)
    color[..., 3] = 1.0
    z = np.full((H, W), 6.0, np.float32)
    vel = np.zeros((H, W, 2), np.float32)
    centres = np.arange(W) + 0.5
    on = (centres >= x0 + speed * t) & (centres < x0 + speed * t + width)
    color[:, on, :3] = (0.9, 0.6, 0.1)
    z[:, on] = depth
    vel[:, on, 0] = speed
    return color, z, vel


def _hyperframe(times, **bar):
    parts = [_bar(t, **bar) for t in times]
    frames, depth, vel = (np.stack(p) for p in zip(*parts, strict=True))
    return hf.HyperFrame(frames, depth, np.asarray(times, np.float64), velocity=vel)


def _exact(t0, t1, **bar):
    ts = t0 + (np.arange(2048) + 0.5) / 2048 * (t1 - t0)
    return np.mean([_bar(t, **bar)[0] for t in ts], axis=0)


def _psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a[..., :3] - b[..., :3]) ** 2))


@pytest.mark.parametrize("samples", [4, 8])
def test_a_translating_bar_matches_the_exact_shutter_average(rng, samples):
    speed = float(rng.uniform(1500, 3000))  # 25-50 px over a 1/60 s shutter
    bar = {"x0": float(rng.uniform(10, 20)), "speed": speed}
    shutter = (0.0, 1 / 60)
    times = (np.arange(samples) + 0.5) / samples * shutter[1]
    hyper = _hyperframe(times, **bar)
    ww = hf.WindowWeights(np.array([0]), np.full((1, samples), 1 / samples))
    rec = hf.fuse(hyper, ww, backend="cpu", shutter=[shutter])[0]
    plain = hf.fuse(hyper, ww, backend="cpu")[0]
    exact = _exact(*shutter, **bar)
    # light is conserved, and the streak is smooth where plain sampling strobes
    assert rec[..., :3].sum() == pytest.approx(exact[..., :3].sum(), rel=2e-3)
    assert _psnr(rec, exact) > 40
    assert _psnr(rec, exact) > _psnr(plain, exact) + 10


def _pan(t, speed, phase, shift=(0.0, 0.0)):
    """A smooth texture panning across the whole frame at ``speed`` px/s, its picture moved
    by ``shift`` (x, y px: a sub-frame's antialiasing offset's)."""
    place = np.arange(W) + 0.5 - shift[0] - speed * t
    color = np.ones((H, W, 4), np.float32)
    color[..., :3] = (0.5 + 0.4 * np.sin(2 * np.pi * place / 16 + phase))[None, :, None]
    return color, np.full((H, W), 2.0, np.float32), np.tile(np.float32([speed, 0]), (H, W, 1))


def test_sub_frames_drawn_with_the_antialiasing_pattern_are_warped_from_where_they_are(rng):
    """A trial: 4 sub-frames, each moved by its antialiasing offset (docs/rendering.md),
    were warped as if drawn on the output's pixels, each cell's streak off by its offset:
    43 dB against the exact shutter average, where the same sub-frames unshifted gave 60-69.
    Warped from where their shifts put them: 57-64 dB (what bilinear resampling loses)."""
    speed, phase = float(rng.uniform(600, 900)), float(rng.uniform(0, 2 * np.pi))
    shutter = (0.0, 1 / 60)
    times = (np.arange(4) + 0.5) / 4 * shutter[1]
    shifts = pixel_offsets(4).copy()
    ww = hf.WindowWeights(np.array([0]), np.full((1, 4), 1 / 4))
    inner = slice(20, W - 20)  # (what enters at the frame's sides is not known)

    def reconstructed(moved, told):
        parts = [_pan(t, speed, phase, s) for t, s in zip(times, moved, strict=True)]
        frames, depth, vel = (np.stack(p) for p in zip(*parts, strict=True))
        hyper = hf.HyperFrame(frames, depth, times, velocity=vel, shifts=moved if told else None)
        return hf.fuse(hyper, ww, backend="cpu", shutter=[shutter])[0][:, inner]

    ts = shutter[0] + (np.arange(2048) + 0.5) / 2048 * (shutter[1] - shutter[0])
    exact = np.mean([_pan(t, speed, phase)[0] for t in ts], axis=0)[:, inner]
    unshifted = _psnr(reconstructed(np.zeros((4, 2)), False), exact)
    shifted = _psnr(reconstructed(shifts, True), exact)
    assert unshifted > 55 and shifted > 55
    assert shifted > _psnr(reconstructed(shifts, False), exact) + 10  # (the trial's)


def test_what_a_bar_uncovers_before_its_first_sub_frame_shows_the_background(rng):
    """A wide bar, slow enough that the pixels at its ends are covered in every sub-frame
    though not over the whole shutter: no sub-frame saw the background there, yet it shows
    for part of the shutter, and the reconstruction shows it from the still neighbours
    behind the bar (the bar's own colour there misses all of it)."""
    bar = {"x0": float(rng.uniform(10, 20)), "speed": float(rng.uniform(600, 900)),
           "width": 40.0}  # 10-15 px over the shutter, 4 sub-frames
    shutter = (0.0, 1 / 60)
    times = (np.arange(4) + 0.5) / 4 * shutter[1]
    ww = hf.WindowWeights(np.array([0]), np.full((1, 4), 1 / 4))
    rec = hf.fuse(_hyperframe(times, **bar), ww, backend="cpu", shutter=[shutter])[0]
    exact = _exact(*shutter, **bar)
    always = np.all([_bar(t, **bar)[2][0, :, 0] != 0 for t in times], axis=0)
    ends = always & (np.abs(exact[0, :, 0] - 0.9) > 1e-4)  # not the bar over all the shutter
    assert ends.sum() >= 2
    missed = np.abs(0.9 - exact[0, ends, 0]).mean()  # the bar's colour there
    assert np.abs(rec[0, ends, 0] - exact[0, ends, 0]).mean() < 0.75 * missed


@pytest.mark.parametrize("samples", [2, 3, 4])
def test_a_bar_whose_streak_is_its_width_keeps_its_light_with_few_sub_frames(rng, samples):
    """An audit: a 20 px bar moving 20 px, from 2-4 sub-frames, gained 0.5-4% of light and
    a flat top (8 px at the bar's colour where the exact streak is a tent): the pixels its
    sub-frames all cover, uncovered at the shutter's ends several pixels deep, showed the
    bar's own colour. They show the background: light as the exact average, and its tent."""
    width = float(rng.integers(16, 24))  # whole pixels: every sub-frame holds its light
    shutter = (0.0, 1 / 60)
    bar = {"x0": float(rng.uniform(20, 30)), "speed": width / shutter[1], "width": width}
    times = (np.arange(samples) + 0.5) / samples * shutter[1]
    ww = hf.WindowWeights(np.array([0]), np.full((1, samples), 1 / samples))
    rec = hf.fuse(_hyperframe(times, **bar), ww, backend="cpu", shutter=[shutter])[0]
    exact = _exact(*shutter, **bar)
    assert rec[..., :3].sum() == pytest.approx(exact[..., :3].sum(), rel=2e-3)
    assert _psnr(rec, exact) > 40
    top = np.abs(rec[0, :, 0] - 0.9) < 1e-3  # the bar's colour whole (the tent's top alone)
    assert top.sum() <= 1


def test_a_hole_is_filled_as_deep_as_its_surface_moves_in_the_cell():
    """A surface moving |v| px/s over a cell half of ``span`` s uncovers pixels up to
    |v| span from its edge: 1.5 times that in rings (a diagonal's steps) plus the first;
    a still or slow one (a propeller's hub) one ring, its own colour inside."""
    from hfrender.backends.cpu.recon_fill import fill, reach

    v = np.zeros((1, 5, 2), np.float32)
    v[0, :, 0], v[0, 4] = [0, 30, 300, 3000, 0], (180, 240)  # the last: 300 px/s, diagonal
    assert reach(np, v, 1 / 60).tolist() == [1, 2, 9, 76, 9]
    # a row of holes behind a still pixel: filled 1 and 3 rings deep
    for rings, grey in ((1, [0.5, 0.5, 0.9, 0.9, 0.9]), (3, [0.5, 0.5, 0.5, 0.5, 0.9])):
        color = np.array([[0.5]] + [[0.9]] * 4, np.float32)
        hole = np.array([False, True, True, True, True])
        depth = np.array([5.0, np.inf, np.inf, np.inf, np.inf], np.float32)
        fill(color, depth, hole, np.full(5, 1.0, np.float32), np.flatnonzero(hole), 5,
             np.full(5, rings, np.int32))
        np.testing.assert_array_equal(color[:, 0], np.float32(grey))


@pytest.mark.parametrize("samples", [4, 8])
def test_a_bar_entering_the_frame_brings_its_streak_in_with_it(rng, samples):
    """At the first sub-frame the bar is still outside the frame, at the last it has left
    on the other side: what a sub-frame could not show (outside it) comes from its
    neighbour, wherever it lands, and the streaks at both edges are whole."""
    speed = float(rng.uniform(9000, 10000))  # 150-167 px over the shutter: across the frame
    shutter = (0.0, 1 / 60)
    times = (np.arange(samples) + 0.5) / samples * shutter[1]
    bar = {"x0": -speed * times[0] - float(rng.uniform(6, 8)), "speed": speed}
    assert not _bar(times[0], **bar)[2].any() and not _bar(times[-1], **bar)[2].any()
    ww = hf.WindowWeights(np.array([0]), np.full((1, samples), 1 / samples))
    rec = hf.fuse(_hyperframe(times, **bar), ww, backend="cpu", shutter=[shutter])[0]
    exact = _exact(*shutter, **bar)
    assert rec[..., :3].sum() == pytest.approx(exact[..., :3].sum(), rel=5e-3)
    for edge in (slice(0, 16), slice(W - 16, W)):  # the streak's light above the background
        light = (exact[:, edge, :3] - 0.2).sum()  # (without: 4-71% of it where it enters)
        assert (rec[:, edge, :3] - 0.2).sum() == pytest.approx(light, rel=0.25)


def test_overlapping_windows_reconstruct_each_over_its_own_shutter(rng):
    """Shutter 720 degrees: sub-frames shared by two windows, each over its own span."""
    speed, fps = float(rng.uniform(800, 1200)), 30.0
    schedule = SampleSchedule(fps, 720.0, samples=8)
    plan = schedule.plan(2, first_frame=1)
    hyper = _hyperframe(plan.times, x0=5.0, speed=speed)
    spans = schedule.shutter_spans(np.array([1, 2]))
    rec = hf.fuse(hyper, plan.weights, backend="cpu", shutter=spans)
    for k in range(2):
        exact = _exact(*spans[k], x0=5.0, speed=speed)
        assert _psnr(rec[k], exact) > 38


def test_a_still_occluder_in_front_stays_sharp(rng):
    """A bar passing behind a still post: the post's pixels keep their own colour."""
    times = (np.arange(8) + 0.5) / 8 / 60
    hyper = _hyperframe(times, x0=10.0, speed=3000.0, depth=3.0)
    post = slice(40, 46)
    hyper.frames[:, :, post, :3] = (0.1, 0.3, 0.9)
    hyper.depth[:, :, post] = 1.0  # nearer than the bar
    hyper.velocity[:, :, post] = 0.0
    ww = hf.WindowWeights(np.array([0]), np.full((1, 8), 1 / 8))
    rec = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)])[0]
    plain = hf.fuse(hyper, ww, backend="cpu")[0]
    assert np.array_equal(rec[:, post], plain[:, post])
    assert np.abs(rec[:, post] - hyper.frames[0][:, post]).max() < 1e-6
    exact = _exact(0.0, 1 / 60, x0=10.0, speed=3000.0)
    assert np.abs(rec[:, 20:38, :3] - exact[:, 20:38, :3]).max() < 0.05  # blurred beside it


def test_intermediate_times_in_several_chunks_give_what_one_chunk_gives(rng, monkeypatch):
    """The half-cells' times split into chunks of two (each chunk its own z-buffers over the
    pixels it lands on, their sums merged per pixel) against all times at once."""
    import hfrender.backends.cpu.reconstruct as cpu_rc

    speed = float(rng.uniform(4000, 6000))  # 8-12 px per half-cell: several times each
    times = (np.arange(4) + 0.5) / 4 / 60
    hyper = _hyperframe(times, x0=float(rng.uniform(5, 15)), speed=speed)
    hyper.frames[:, 2:4, :, :3] *= 0.5  # rows that differ, so a row mix-up would show
    ww = hf.WindowWeights(np.array([0]), np.full((1, 4), 1 / 4))
    assert cpu_rc.half_steps(speed, speed, times[1], times[0], times[0] / 2 + times[1] / 2) > 4
    whole = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)])
    monkeypatch.setattr(cpu_rc, "CHUNK_ELEMS", 2 * H * W)
    chunks = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)])
    plain = hf.fuse(hyper, ww, backend="cpu")
    assert np.abs(whole - plain).max() > 0.1  # the reconstruction did something
    np.testing.assert_allclose(chunks, whole, rtol=0, atol=1e-6)


def test_several_chunks_are_merged_without_sorting_their_pixels(rng, monkeypatch):
    """The chunks' landed pixels are merged through a mask of the frame, not np.unique over
    all of them (a sort: 0.4 s of a 1.8 s 1080p vector blur), to the very same bits."""
    import types

    import hfrender.backends.cpu.reconstruct as cpu_rc

    times = (np.arange(4) + 0.5) / 4 / 60
    hyper = _hyperframe(times, x0=float(rng.uniform(5, 15)), speed=float(rng.uniform(4000, 6000)))
    ww = hf.WindowWeights(np.array([0]), np.full((1, 4), 1 / 4))
    monkeypatch.setattr(cpu_rc, "CHUNK_ELEMS", 2 * H * W)
    chunks = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)])

    def no_sort(*_args, **_kwargs):
        raise AssertionError("np.unique over the chunks' pixels")

    monkeypatch.setattr(cpu_rc, "np", types.SimpleNamespace(**{**vars(np), "unique": no_sort}))
    np.testing.assert_array_equal(hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)]),
                                  chunks)


def test_a_sub_frames_moving_layer_lives_only_while_its_cells_sample_it(rng, monkeypatch):
    """A moving layer is a frame of C + 1 float planes: held for every sub-frame of a
    window, it would add several frames of memory at 1080p. Cell i samples the layers of
    sub-frames i - 1, i and i + 1 alone, so at most three are alive at once, and none
    after the window; the picture is the one made with every layer kept."""
    import weakref

    import hfrender.backends.cpu.reconstruct as cpu_rc

    n = 8
    times = (np.arange(n) + 0.5) / n / 60
    hyper = _hyperframe(times, x0=float(rng.uniform(5, 15)), speed=float(rng.uniform(2000, 3000)))
    ww = hf.WindowWeights(np.array([0]), np.full((1, n), 1 / n))
    alive, most, made = [], [0], [0]

    def counted(*args):
        out = real(*args)
        alive.append(weakref.ref(out))
        most[0] = max(most[0], sum(r() is not None for r in alive))
        made[0] += 1
        return out

    from hfrender.backends.cpu import recon_frame

    real = recon_frame.layer  # (where the sub-frames are read: recon_frame.Frame)
    monkeypatch.setattr(recon_frame, "layer", counted)
    got = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)])
    assert made[0] == n and 2 <= most[0] <= 3
    assert all(r() is None for r in alive)
    monkeypatch.setattr(cpu_rc._Frame, "let_go", lambda self: None)  # every layer kept
    np.testing.assert_array_equal(hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 1 / 60)]), got)


def test_no_motion_is_bit_identical_to_plain_fusion(rng):
    frames = rng.integers(0, 256, (6, 9, 14, 4), dtype=np.uint8)
    depth = rng.uniform(1, 9, (6, 9, 14)).astype(np.float32)
    hyper = hf.HyperFrame(frames, depth, np.arange(6) / 180.0,
                          velocity=np.zeros((6, 9, 14, 2), np.float32))
    ww = hf.WindowWeights.sliding(np.full(3, 1 / 3), 2, 3)
    spans = np.array([[0.0, 3 / 180], [3 / 180, 6 / 180]])
    assert np.array_equal(hf.fuse(hyper, ww, backend="cpu", shutter=spans),
                          hf.fuse(hyper, ww, backend="cpu"))


def test_bad_shutter_spans_and_missing_planes_are_one_line(rng):
    hyper = _hyperframe([0.0, 0.01], x0=5.0, speed=100.0)
    ww = hf.WindowWeights(np.array([0]), np.full((1, 2), 0.5))
    with pytest.raises(InputError, match=r"shutter has shape \(2,\); expected \(1, 2\)"):
        hf.fuse(hyper, ww, backend="cpu", shutter=[0.0, 0.02])
    hyper.velocity = None
    with pytest.raises(InputError, match="no velocity plane"):
        hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 0.02)])


@pytest.mark.parametrize("shifts, got", [
    (np.zeros(2), "shape (2,)"), (np.zeros((3, 2)), "shape (3, 2)"),
    (np.zeros((2, 2)).T[:, :1], "shape (2, 1)"), ([[0.1, 0.2], [np.nan, 0.0]], "a NaN or inf")])
def test_bad_antialiasing_shifts_are_one_line(shifts, got):
    """A library user's HyperFrame(shifts=...) of the wrong shape, or a NaN, was an
    IndexError from deep in the reconstruction ("invalid index to scalar variable", "index
    -9223372036854775808 is out of bounds")."""
    hyper = _hyperframe([0.0, 0.01], x0=5.0, speed=100.0)
    hyper.shifts = shifts
    ww = hf.WindowWeights(np.array([0]), np.full((1, 2), 0.5))
    with pytest.raises(InputError) as err:
        hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 0.02)])
    assert str(err.value) == (f"hyperframe.shifts has {got}; expected (2, 2): finite pixels "
                              "(x, y down) each frame's antialiasing offset moved its picture "
                              "by")
    hyper.shifts = [[0.25, -0.25], [-0.25, 0.25]]  # a list of pairs: taken
    moved = hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 0.02)])
    hyper.shifts = None
    assert not np.array_equal(moved, hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 0.02)]))


@pytest.mark.parametrize("shifts, found", [
    ([["a", "b"], ["c", "d"]], "a list of str"),  # (were "has not numbers", then "dtype <U1")
    (np.zeros((2, 2), complex), "an array of complex128")])
def test_antialiasing_shifts_of_no_numbers_are_said_as_velocity(shifts, found):
    """Shifts that are no real numbers are said as velocity's and depth's are (was "has
    dtype <U1; expected (2, 2)", a wording of its own)."""
    hyper = _hyperframe([0.0, 0.01], x0=5.0, speed=100.0)
    hyper.shifts = shifts
    ww = hf.WindowWeights(np.array([0]), np.full((1, 2), 0.5))
    with pytest.raises(InputError) as err:
        hf.fuse(hyper, ww, backend="cpu", shutter=[(0.0, 0.02)])
    assert str(err.value) == (f"hyperframe.shifts is {found}; hyperframe.shifts takes numbers "
                              "(pixels, x and y down, each frame's antialiasing offset moved "
                              "its picture by): give an array of shape (2, 2)")
