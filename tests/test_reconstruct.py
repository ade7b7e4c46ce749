"""Motion reconstruction between sub-frames (``--reconstruct``), on the CPU backend.

Synthetic cases check it against the exact shutter average (known in closed form for a
translating bar); rendered ones check what it must leave alone (a still scene is
bit-identical to plain sampling; a still occluder stays sharp) and that hyperframe
boundaries, overlapping shutters and depth of field do not change it.
"""

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf
from hfrender.config import ConfigError
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

SCENE = '''
import hfrender as hf

class Scene(hf.Scene):
    duration = 0.4
    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.5, 0.3)))
        self.post = self.add(hf.Cube(position=(0.2, 0, 1.0), scale=(0.3, 3, 0.3),
                                     color=(0.2, 0.3, 0.9)))
        self.box = self.add(hf.Cube(scale=0.5, color=(0.9, 0.3, 0.1)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
    def update(self, t):
        self.box.position = ({speed} * (t - 0.05), 0.1, 0)
'''


@pytest.fixture
def scenes(tmp_path):
    still, moving = tmp_path / "still.py", tmp_path / "moving.py"
    still.write_text(SCENE.format(speed=0.0))
    moving.write_text(SCENE.format(speed=40.0))
    return still, moving


@pytest.mark.usefixtures("gl_context")
def test_a_still_scene_renders_bit_identical_with_reconstruction(scenes):
    still, _ = scenes
    settings = {"size": (64, 36), "samples": 4, "duration": 0.2}
    plain, _ = render_frames(still, reconstruct="off", **settings)
    rec, stats = render_frames(still, reconstruct="on", **settings)
    assert stats.reconstruct and np.array_equal(plain, rec)
    _, stats = render_frames(still, backend="cpu", **settings)
    assert not stats.reconstruct  # auto: on where the fusion runs on CUDA only


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_is_the_same_across_hyperframe_boundaries(scenes):
    _, moving = scenes
    settings = {"size": (64, 36), "samples": 4, "reconstruct": "on", "duration": 0.3}
    whole, _ = render_frames(moving, granularity=36, **settings)
    cut, stats = render_frames(moving, granularity=4, **settings)
    assert stats.granularity == 4 and np.array_equal(whole, cut)
    wide, _ = render_frames(moving, shutter=540.0, granularity=7, **settings)
    wide_whole, _ = render_frames(moving, shutter=540.0, granularity=41, **settings)
    assert np.array_equal(wide, wide_whole)  # overlapping windows, halo carried


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_blurs_more_smoothly_than_the_same_sub_frames(scenes):
    """Against 64 plain sub-frames, reconstruction from 4 is closer than plain 4."""
    _, moving = scenes
    settings = {"size": (64, 36), "duration": 0.1, "antialias": False}
    ref, _ = render_frames(moving, samples=64, reconstruct="off", **settings)
    plain, _ = render_frames(moving, samples=4, reconstruct="off", **settings)
    rec, _ = render_frames(moving, samples=4, reconstruct="on", **settings)
    blurred = np.abs(ref.astype(int) - plain.astype(int)).max(-1) > 0
    assert blurred.mean() > 0.05  # the box moves: a real part of the picture differs

    def err(a):
        return np.abs(a.astype(float) - ref.astype(float))[blurred].mean()

    assert err(rec) < 0.6 * err(plain)


SHIFT_SCENES = {
    "perspective": "import hfrender as hf\n\nclass S(hf.Scene):\n"
                   "    background = (0, 0, 0)\n    def setup(self):\n"
                   "        self.add(hf.Cube(position=(0.12, 0.08, 0), scale=(1, 1, 0.1),\n"
                   "                         color=(1, 1, 1), emissive=1.0))\n"
                   "        self.camera.position = (0, 0, 5)\n{ortho}",
    "shader": "void mainImage(out vec4 c, in vec2 p) {\n"
              "    vec2 q = abs(p - vec2(31.3, 17.2));\n"
              "    c = vec4(vec3(q.x < 6.0 && q.y < 5.0 ? 1.0 : 0.0), 1.0);\n}\n"}


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("kind", ["perspective", "orthographic", "shader"])
def test_a_sub_frames_shift_is_where_its_antialiasing_offset_moved_its_picture(
        tmp_path, monkeypatch, kind):
    """What reconstruction warps from: each sub-frame's shift in its hyperframe is how far
    its antialiasing offset moved its picture, in its pixels (x, y down). A perspective
    camera and a shader move it against the offset, an orthographic camera with it."""
    from hfrender.engine import draw, render_fusion

    ortho = "        self.camera.orthographic = True\n" if kind == "orthographic" else ""
    path = tmp_path / ("s.frag" if kind == "shader" else "s.py")
    path.write_text(SHIFT_SCENES["shader" if kind == "shader" else "perspective"].replace(
        "{ortho}", ortho))
    seen, real = [], render_fusion.RenderFusion.fuse
    monkeypatch.setattr(render_fusion.RenderFusion, "fuse", lambda self, hyper, *a, **k: (
        seen.append(np.array(hyper.shifts[hyper.halo:])), real(self, hyper, *a, **k))[1])
    centres = []
    for offset in [(0.0, 0.0), (3.0, 0.0), (0.0, 2.0)]:  # whole pixels: a sharp edge moves
        monkeypatch.setattr(draw.SubframeDrawer, "_pixel_offset",
                            lambda self, plan, j, index, offset=offset: offset)
        out, _ = render_frames(path, size=(64, 36), samples=1, count=1, duration=0.1)
        bright = out[0, ..., 0].astype(float)
        ys, xs = np.mgrid[: bright.shape[0], : bright.shape[1]]
        centres.append(((bright * xs).sum() / bright.sum(), (bright * ys).sum() / bright.sum()))
    sign = 1 if kind == "orthographic" else -1
    assert [tuple(s[0]) for s in seen] == [(0, 0), (3 * sign, 0), (0, -2 * sign)]
    for shift, centre in zip(seen[1:], centres[1:], strict=True):
        moved = np.subtract(centre, centres[0])
        np.testing.assert_allclose(moved, shift[0], atol=1e-9)


def with_lens(scene, path, f_stop):
    """``scene`` copied to ``path`` with a lens: ``f_stop``, focused at 4 m."""
    path.write_text(scene.read_text().replace(
        "self.camera.look_at((0, 0, 0))",
        f"self.camera.look_at((0, 0, 0))\n        self.camera.f_stop = {f_stop}\n"
        "        self.camera.focus_distance = 4.0"))
    return path


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_with_depth_of_field_from_depth(scenes, tmp_path):
    focused = with_lens(scenes[1], tmp_path / "focused.py", f_stop=1.4)
    settings = {"size": (64, 36), "samples": 4, "duration": 0.2, "dof": "depth"}
    rec, stats = render_frames(focused, reconstruct="on", **settings)
    plain, _ = render_frames(focused, reconstruct="off", **settings)
    assert stats.reconstruct and stats.dof == "depth"
    assert rec.shape == plain.shape and not np.array_equal(rec, plain)
    assert np.abs(rec.astype(int) - plain.astype(int)).mean() < 6  # the same picture
    exact, _ = render_frames(focused, reconstruct="off", dof_method="exact", **settings)
    assert np.abs(exact.astype(int) - plain.astype(int)).mean() < 1  # fast is near exact


def test_cli_says_sub_frames_drawn_and_refuses_a_bad_mode(tmp_path):
    shader = textwrap.dedent("""
        void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / iResolution.x, 0.5, 0.2, 1.0); }
    """)
    (tmp_path / "s.frag").write_text(shader)
    run = [sys.executable, "-m", "hfrender", "render", str(tmp_path / "s.frag"), "--size",
           "32x16", "--duration", "0.2", "--samples", "3", "-o", str(tmp_path / "o.mp4")]
    done = subprocess.run(run + ["--stats", "--reconstruct", "on"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sub-frames drawn: 18" in done.stdout
    assert "fragment shader" in done.stderr and "plain sub-frames" in done.stderr
    bad = subprocess.run(run + ["--reconstruct", "maybe"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert bad.returncode == 2 and "invalid choice: 'maybe'" in bad.stderr


def test_samples_auto_follows_the_motion():
    from hfrender.engine.adaptive import needed

    assert needed(0.0, 0.0, True, (4, 64)) == 4  # still: the minimum
    assert needed(37.0, 0.0, True, (4, 64)) == 7  # ceil(37 / 6 px)
    assert needed(37.0, 0.0, False, (4, 64)) == 37  # without reconstruction: 1 px gaps
    assert needed(900.0, 0.0, True, (4, 64)) == 64  # capped
    assert needed(0.0, 30.0, True, (4, 64)) == 57  # a 30 px lens blur: ceil((30/4)^2)


@pytest.mark.usefixtures("gl_context")
def test_samples_auto_draws_few_sub_frames_where_nothing_moves(scenes, tmp_path, caplog):
    still, moving = scenes
    settings = {"size": (64, 36), "duration": 0.1, "samples": "auto", "samples_range": (2, 24)}
    with caplog.at_level("WARNING"):
        _, stats = render_frames(still, **settings)
    assert stats.subframes == 3 * 2 and caplog.records == []  # the minimum, nothing capped
    with caplog.at_level("WARNING"):  # a cap of 3 is too few for the motion: said, once
        _, stats = render_frames(moving, **{**settings, "samples_range": (2, 3)})
    said = [r.getMessage() for r in caplog.records]
    assert stats.subframes == 3 * 3 and len(said) == 1, said
    m = re.fullmatch(r"(\d) frames? wanted more sub-frames than --samples-range allows \(3\), "
                     r"frame (\d) the most: about (\d+), for its motion, so they may show "
                     r"steps; raise the cap \(--samples-range 2:\3\)(, or --reconstruct on)?",
                     said[0])
    assert m and 1 <= int(m.group(1)) <= 3 and int(m.group(3)) > 3, said  # the most, once
    frames, stats = render_frames(moving, **settings)
    assert 3 * 2 < stats.subframes < 3 * 24 and frames.shape == (3, 36, 64, 3)
    with pytest.raises(ConfigError, match="^--samples auto with --shutter 540: an adaptive count "):
        render_frames(moving, **settings, shutter=540.0)
    with pytest.raises(ConfigError, match=r"samples_range=\(8, 4\) must be MIN:MAX"):
        render_frames(moving, **{**settings, "samples_range": (8, 4)})


CROSSING = SCENE.replace("duration = 0.4", "duration = 0.1").replace(
    "{speed} * (t - 0.05), 0.1, 0", "400 * (t - (1 / 30 - 1 / 120)), 0.1, 0")


@pytest.mark.usefixtures("gl_context")
def test_samples_auto_sees_an_object_on_screen_only_while_the_shutter_opens(tmp_path):
    """At 30 fps and 180 degrees, frame 1's shutter opens with the box in the middle of
    the picture, and it leaves it long before the shutter is half open: a probe at the
    middle alone sees only still pixels and draws the fewest sub-frames (one faint box)."""
    scene = tmp_path / "crossing.py"
    scene.write_text(CROSSING)
    settings = {"size": (64, 36), "samples": "auto", "samples_range": (2, 24)}
    frames, stats = render_frames(scene, **settings)
    assert stats.subframes == 2 + 24 + 2  # frame 1 at the most; 0 and 2 see nothing move
    fixed, _ = render_frames(scene, **{**settings, "samples": 24})
    assert np.abs(frames[1].astype(int) - fixed[1]).mean() < 1.0  # as many as a fixed 24


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_with_lens_depth_of_field(scenes, tmp_path):
    """Each sub-frame keeps its own lens position; the motion of its view is warped."""
    lens = with_lens(scenes[1], tmp_path / "lens.py", f_stop=2.0)
    settings = {"size": (64, 36), "samples": 4, "duration": 0.1, "dof": "lens"}
    rec, stats = render_frames(lens, reconstruct="on", **settings)
    plain, _ = render_frames(lens, reconstruct="off", **settings)
    assert stats.reconstruct and stats.dof == "lens"
    diff = np.abs(rec.astype(int) - plain.astype(int))
    assert diff.max() > 10 and diff.mean() < 6  # the streak filled in; the same picture


@pytest.mark.parametrize("args, told", [([], True), (["--samples", "64"], False),
                                        (["--dof", "depth"], False)])
def test_too_few_lens_positions_for_the_blur_are_said(tmp_path, caplog, args, told):
    """A foreground post 0.7 m away at f/1.4, focused at 2 m: a 30 px blur drawn from 8 lens
    positions showed as 8 copies of it, with "dof lens" alone said. A fixed count that
    spreads them more than 8 px apart is now said, with what blurs it smoothly."""
    from hfrender.cli import main

    scene = tmp_path / "post.py"
    scene.write_text(textwrap.dedent("""
        import hfrender as hf

        class Post(hf.Scene):
            duration = 0.1

            def setup(self):
                self.add(hf.Cube(position=(0, 0, -0.7), scale=(0.05, 1, 0.05)))
                self.add(hf.Plane(position=(0, 0, -2), rotation=(1.5708, 0, 0), scale=4))
                self.camera.position = (0, 0, 0)
                self.camera.look_at((0, 0, -1))
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 2.0
    """))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    if not told:
        assert said == []
        return
    lens = hf.Camera(f_stop=1.4, focus_distance=2.0).lens(None, aspect=16 / 9)
    coc = float(lens.coc_px(np.array([0.675]), 640)[0])  # the post's face, the nearest thing
    caplog.clear()  # one sample: the aperture's centre, no depth of field (was "1 lens
    with caplog.at_level("WARNING"):  # positions show as copies", drawn off the centre)
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args, "--samples", "1"]) == 0
    one = [r.getMessage() for r in caplog.records if "one lens position" in r.getMessage()]
    assert len(one) == 1 and re.fullmatch(
        r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\), but one sample "
        r"is one lens position, its centre: no depth of field; --samples (\d+), or --dof "
        r"depth \(from one sample\)", one[0]), one
    assert abs(int(re.search(r"up to (\d+)", one[0]).group(1)) - coc) <= 1
    assert len(said) == 1, said
    m = re.fullmatch(r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\): 8 "
                     r"lens positions show as copies about (\d+) px apart; --samples auto "
                     r"\(about (\d+) here\) or --dof depth blur it smoothly", said[0])
    assert m, said[0]
    assert abs(int(m.group(1)) - coc) <= 1 and abs(int(m.group(2)) - coc / 8 ** 0.5) <= 1
    assert abs(int(m.group(3)) - (coc / 4) ** 2) <= 0.1 * (coc / 4) ** 2  # 4 px apart
    caplog.clear()  # nearer, past what auto draws by default: its range is named
    scene.write_text(scene.read_text().replace("position=(0, 0, -0.7)", "position=(0, 0, -0.3)"))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    assert len(said) == 1 and re.search(r"; --samples auto --samples-range 4:(\d+) "
                                        r"\(the range now stops at 64\) or --dof depth",
                                        said[0]), said
    caplog.clear()  # nearer still: more than any count, --dof depth alone
    scene.write_text(scene.read_text().replace("position=(0, 0, -0.3)", "position=(0, 0, -0.12)"))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "640x360",
                     *args]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    assert len(said) == 1 and re.search(r"; --dof depth blurs it smoothly \(about (\d+) lens "
                                        r"positions would\)$", said[0]), said
    assert int(re.search(r"about (\d+) lens positions would", said[0]).group(1)) > 4096


@pytest.mark.usefixtures("gl_context")
def test_a_cut_under_samples_auto_is_not_told_to_raise_the_range_past_its_limit(tmp_path,
                                                                               caplog):
    """A box jumping at a frame's time (a cut) made the probe see a speed of millions of
    pixels a second: "raise the cap (--samples-range 4:296297)", a range refused (4096 at
    most)."""
    path = tmp_path / "cut.py"
    path.write_text(textwrap.dedent("""
        import hfrender as hf

        class Cut(hf.Scene):
            duration = 0.2

            def setup(self):
                self.box = self.add(hf.Cube())

            def update(self, t):
                self.box.position = (0, 0, 0) if t < 0.1 else (1.5, 0, 0)
    """))
    with caplog.at_level("WARNING"):
        render_frames(path, size=(64, 36), samples="auto")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].endswith(
        "for its motion, so they may show steps; more than any count (4096): a cut between "
        "two sub-frames (nothing to mend: its frame draws the most) or an object faster than "
        "they can follow"), said


@pytest.mark.usefixtures("gl_context")
def test_the_copies_of_a_lamp_a_few_pixels_across_are_warned_of(tmp_path, caplog):
    """The lens hint looks at the frame's depth at the render's size (was: at a quarter of
    it, where a lamp 3 px across was no pixel, and its 8 copies went unsaid)."""
    from hfrender.cli import main

    scene = tmp_path / "lamp.py"
    scene.write_text(textwrap.dedent("""
        import hfrender as hf

        class Lamp(hf.Scene):
            duration = 0.1
            background = (0, 0, 0)

            def setup(self):
                self.add(hf.Sphere(position=(0, 0, -0.5), radius=0.0018))
                self.camera.position = (0, 0, 0)
                self.camera.look_at((0, 0, -1))
                self.camera.f_stop = 1.4
                self.camera.focus_distance = 2.0
    """))
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "--size", "320x180",
                     "--samples", "8"]) == 0
    said = [r.getMessage() for r in caplog.records if "lens positions" in r.getMessage()]
    lens = hf.Camera(f_stop=1.4, focus_distance=2.0).lens(None, aspect=16 / 9)
    coc = float(lens.coc_px(np.array([0.4982]), 320)[0])  # the lamp's near face
    assert len(said) == 1 and re.match(rf"frame 0 blurs up to {round(coc)} px", said[0]), said


@pytest.mark.usefixtures("gl_context")
def test_a_render_of_fast_motion_with_few_samples_says_its_copies(tmp_path, caplog):
    """A trial's propeller strobed as 8 copies 19 px apart without a word, where lens depth
    of field's copies were said: a fixed count whose sub-frames lie more than 8 px apart at
    the frame's fastest pixels says so, with what blurs it (not with --samples auto, nor
    where reconstruction fills gaps that size, nor for slow motion)."""
    import re
    import textwrap

    from hfrender.cli import main

    scene = tmp_path / "fast.py"
    source = textwrap.dedent("""
        import hfrender as hf

        class Fast(hf.Scene):
            duration = 0.2

            def setup(self):
                self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))
                self.camera.position = (0, 0, 5)
                self.camera.look_at((0, 0, 0))

            def update(self, t):
                self.bar.position = (SPEED * (t - 0.1), 0, 0)
    """)

    def told(speed, *args):
        scene.write_text(source.replace("SPEED", f"{speed:.1f}"))
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["still", str(scene), "-o", str(tmp_path / "p.png"), "-t", "0.1",
                         "--size", "640x360", *args]) == 0
        return [r.getMessage() for r in caplog.records if "sub-frames show" in r.getMessage()]

    # 640 px over 5 m * 36 / 50 = 3.6 m at the bar: 177.8 px/m; 30 m/s over 1/60 s: 88.9 px
    said = told(30.0)
    assert len(said) == 1, said
    m = re.fullmatch(r"frame 3 moves up to (\d+) px while the shutter is open: its 8 "
                     r"sub-frames show as copies about (\d+) px apart; --samples auto "
                     r"--samples-range 4:(\d+) \(the range now stops at 64\) or --reconstruct "
                     r"on blur it smoothly", said[0])  # (past auto's range: a review)
    assert m, said[0]
    moved = int(m.group(1))
    assert abs(moved - 88.9) <= 5 and abs(int(m.group(2)) - moved / 8) <= 1
    assert abs(int(m.group(3)) - moved) <= 2  # a sub-frame a pixel apart
    assert told(30.0, "--samples", "auto") == []
    assert told(30.0, "--reconstruct", "on") == []  # 11 px: reconstruction fills it
    assert told(6.0) == []  # 18 px over 8 sub-frames: 2 px apart
    # a jump at frame 3's time (mid-shutter): a cut, not motion to reconstruct (a trial's
    # "moves up to 166667 px ... --reconstruct on blurs it smoothly")
    source = source.replace("SPEED * (t - 0.1)", "(-1 if t < 0.1 else 1) * SPEED / 30")
    assert told(30.0) == []
    jumps = [r.getMessage() for r in caplog.records if "jumps" in r.getMessage()]
    assert len(jumps) == 1 and re.fullmatch(
        r"frame 3: something jumps while the shutter is open \((\d+) times the picture's "
        r"width at once\): a cut\? it shows as copies from both sides of it; a cut falls "
        r"between two frames' shutters at a frame's time k / fps with --shutter-position "
        r"start, at \(k \+ 1/2\) / fps with the centred shutter \(of at most 360 degrees\)",
        jumps[0]), jumps
    told(30.0, "--shutter-position", "start")  # the cut at the shutter's opening: unsaid
    assert not [r for r in caplog.records if "jumps" in r.getMessage()]


@pytest.mark.usefixtures("gl_context")
def test_the_motion_hint_draws_only_times_the_render_draws(tmp_path, caplog):
    """A review's: a scene undefined before t = 0 rendered with --shutter-position start
    (as the README advises) failed in the hint, which drew the shutter's very opening and
    a step before it; the hint never fails a render."""
    import textwrap

    from hfrender.cli import main

    scene = tmp_path / "root.py"
    scene.write_text(textwrap.dedent("""
        import math
        import hfrender as hf

        class Root(hf.Scene):
            duration = 0.2

            def setup(self):
                self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))

            def update(self, t):
                self.bar.position = (20 * math.sqrt(t), 0, -5)
    """))
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "r.mp4"), "--size", "64x36",
                     "--samples", "4", "--shutter-position", "start", "--quiet"]) == 0
    assert (tmp_path / "r.mp4").exists()
