import math

import numpy as np
import pytest

from hfrender.sampler import SampleSchedule


@pytest.mark.parametrize("position, open_at", [("start", 0.0), ("center", -0.5), ("end", -1.0)])
def test_stratified_times_inside_the_open_shutter(position, open_at):
    s = SampleSchedule(fps=25, shutter_deg=90, position=position, samples=4)
    plan = s.plan(3, first_frame=10)
    shutter = 90 / 360 / 25
    for k in range(3):
        t = plan.times[plan.output == k]
        start = (10 + k) / 25 + open_at * shutter
        np.testing.assert_allclose(t, start + (np.arange(4) + 0.5) / 4 * shutter)
    assert plan.weights.starts.tolist() == [0, 4, 8] and plan.overlap == 0


def test_curves_weight_the_samples():
    rows = SampleSchedule(samples=4, curve="triangle").plan(1).weights.rows[0]
    np.testing.assert_allclose(rows, np.array([1, 3, 3, 1]) / 8)  # tent at stratum centres
    g = SampleSchedule(samples=5, curve="gaussian").plan(1).weights.rows[0]
    assert g.argmax() == 2 and g.sum() == pytest.approx(1) and np.allclose(g, g[::-1])


def test_jitter_is_seeded_and_stays_in_its_stratum():
    a = SampleSchedule(samples=8, jitter=True, seed=3).plan(4)
    b = SampleSchedule(samples=8, jitter=True, seed=3).plan(4)
    c = SampleSchedule(samples=8, jitter=True, seed=4).plan(4)
    np.testing.assert_array_equal(a.times, b.times)
    assert not np.allclose(a.times, c.times)
    plain = SampleSchedule(samples=8).plan(4).times
    stratum = 180 / 360 / 30 / 8
    assert np.all(np.abs(a.times - plain) <= stratum / 2)
    # a chunk plans exactly what the whole render plans for those frames
    np.testing.assert_array_equal(SampleSchedule(samples=8, jitter=True, seed=3).plan(
        2, first_frame=2).times, a.times[16:])


def test_overlapping_windows_share_one_grid():
    s = SampleSchedule(fps=10, shutter_deg=540, samples=6)
    assert (s.per_frame, s.window, s.effective_shutter_deg) == (4, 6, 540)
    plan = s.plan(5)
    assert len(plan.times) == 4 * 4 + 6 and plan.overlap == 2 and plan.step == 4
    assert np.all(np.diff(plan.times) > 0)  # each drawn once, in order
    for k in range(5):  # each window spans 1.5 frame intervals centred on k / fps
        t = plan.times[plan.weights.starts[k]: plan.weights.starts[k] + 6]
        assert t.mean() == pytest.approx(k / 10) and t[-1] - t[0] == pytest.approx(
            1.5 / 10 * 5 / 6)


@pytest.mark.parametrize("blades", [0, 6])
def test_one_sample_looks_through_the_apertures_centre(blades):
    """One lens position was 0.71 of the radius off the centre: a still of --samples 1
    moved whatever was out of focus (7 px at f/1, a trial); it is a pinhole's view now."""
    plan = SampleSchedule(samples=1, aperture_blades=blades, jitter=True).plan(5)
    assert plan.lens.shape == (5, 2) and not plan.lens.any()
    two = SampleSchedule(samples=2).plan(1).lens  # two: the stratified points as before
    np.testing.assert_allclose(np.sort(np.hypot(*two.T)), [0.5, 0.75 ** 0.5])


def test_lens_points_are_stratified_on_the_aperture():
    plan = SampleSchedule(samples=64).plan(2)
    pts = plan.lens[:64]
    r = np.hypot(pts[:, 0], pts[:, 1])
    assert r.max() <= 1.0 and abs(pts.mean(0)).max() < 0.05
    assert (r ** 2).mean() == pytest.approx(0.5, abs=0.01)  # uniform disk: E[r^2] = 1/2
    np.testing.assert_array_equal(np.sort(r), np.sort(np.hypot(*plan.lens[64:].T)))
    hexa = SampleSchedule(samples=64, aperture_blades=6).plan(1).lens
    ang = np.arctan2(hexa[:, 1], hexa[:, 0])
    rh = np.hypot(hexa[:, 0], hexa[:, 1])
    apothem = math.cos(math.pi / 6)
    # inside the hexagon: r * cos(angle to the nearest edge normal) <= 1 * cos(pi/6)
    rel = (ang % (math.pi / 3)) - math.pi / 6
    assert np.all(rh * np.cos(rel) <= apothem + 1e-9)


@pytest.mark.parametrize("kwargs, message", [
    ({"fps": 0}, r"fps=0 must be a number > 0"),
    ({"shutter_deg": -1}, r"shutter=-1 must be an angle in degrees > 0"),
    ({"samples": 0}, r"samples=0 must be an integer >= 1"),
    ({"position": "middle"}, r"shutter position='middle': use one of start, center, end"),
    ({"curve": "sinc"}, r"weights='sinc' is not a shutter curve"),
    ({"aperture_blades": 2}, r"aperture_blades=2 must be 0 \(round\) or between 3 and 64"),
])
def test_bad_schedules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SampleSchedule(**kwargs)


def test_shutter_above_360_is_kept_exact_when_the_grid_allows():
    from hfrender.sampler import _grid

    assert _grid(540, 8) == (6, 9)  # 1.5 frames exactly, 9 samples instead of 8
    assert _grid(900, 3) == (2, 5)
    s = SampleSchedule(shutter_deg=540, samples=8)
    assert s.effective_shutter_deg == 540 and s.window == 9
    # 450 degrees with 2 samples has no exact grid within 1..4 samples: the nearest one
    assert SampleSchedule(shutter_deg=450, samples=2).effective_shutter_deg == 360


@pytest.mark.parametrize("shutter,jitter", [(180, False), (720, True), (360, True)])
def test_a_plan_stream_agrees_with_the_whole_plan(shutter, jitter):
    from hfrender.plan_stream import PlanStream

    rng = np.random.default_rng(shutter)
    s = SampleSchedule(fps=24, shutter_deg=shutter, samples=6, jitter=jitter, seed=3,
                       curve="triangle")
    whole = s.plan(23, first_frame=5)
    stream = PlanStream(s, 5, 23, chunk=4)
    times, lens = [], []
    for base, skip, plan in stream.chunks():
        assert base + len(plan.times) <= stream.subframes
        times.append(plan.times[skip:])
        lens.append(plan.lens[skip:])
    np.testing.assert_array_equal(np.concatenate(times), whole.times)
    np.testing.assert_array_equal(np.concatenate(lens), whole.lens)
    # hyperframes of random sizes, as the builder cuts them (halo + whole outputs): the
    # same windows as the whole plan's, every output once
    start, halo, seen = 0, 0, []
    while start + halo < stream.subframes:
        n = min(stream.overlap + stream.step * int(rng.integers(1, 5)), stream.subframes - start)
        got = stream.in_span(start, halo, n)
        want = whole.weights.in_span(start, halo, n)
        assert got[0] == 5 + want[0]
        np.testing.assert_array_equal(got[1].starts, want[1].starts)
        np.testing.assert_allclose(got[1].rows, want[1].rows)
        seen += range(got[0], got[0] + got[1].count)
        start, halo = start + n - stream.overlap, stream.overlap
    assert seen == list(range(5, 28))


def test_a_long_render_is_planned_in_chunks_not_up_front():
    import time

    from hfrender.plan_stream import PlanStream

    t = time.perf_counter()
    stream = PlanStream(SampleSchedule(fps=30, samples=8), 0, 10_000_000)
    k0, w = stream.in_span(8 * 9_000_000, 0, 64)  # far into the render, at once
    assert (k0, w.count) == (9_000_000, 8) and time.perf_counter() - t < 1.0
    _, _, plan = next(stream.chunks())
    assert len(plan.times) == 64 * 8  # one chunk, not ten million frames


def test_limits_that_make_no_sense_are_one_line():
    from hfrender.config import ConfigError, RenderConfig

    with pytest.raises(ConfigError, match=r"^fps=1000000000\.0 must be a finite number >= "
                                          r"0\.001 and <= 1000$"):
        RenderConfig(fps=1e9)
    with pytest.raises(ConfigError, match=r"^fps=1e-300 must be a finite number >= 0\.001 and "):
        RenderConfig(fps=1e-300)
    with pytest.raises(ConfigError, match=r"^duration=1e\+09 s at 30 fps is 30,000,000,000 "
                                          r"frames; hfrender renders at most 10,000,000"):
        RenderConfig(duration=1e9).frame_count(4.0)


@pytest.mark.parametrize("duration, fps, frames", [(0.25, 10, 3), (0.35, 10, 4), (0.45, 10, 5),
                                                   (0.55, 10, 6), (1.0, 12.5, 13),
                                                   (0.12, 12.5, 2), (0.1, 30, 3),
                                                   (0.58, 25, 15), (1.0 / 3, 3, 1)])
def test_a_duration_of_a_frame_and_a_half_is_two_frames(duration, fps, frames):
    """Halves round up, as everywhere else: Python's round() took them to the even count
    (0.25 s at 10 fps: 2 frames, 0.35 s: 4)."""
    from hfrender.config import RenderConfig

    assert RenderConfig(duration=duration, fps=fps).frame_count(4.0) == frames


@pytest.mark.parametrize("seconds, fps, frame", [
    (1e12, 30, 30_000_000_000_000),  # was 30,000,000,000,030: a margin of 1e-12 x 3e13
    (2.0**40 + 0.25, 2, 2**41 + 1),  # x = 2^41 + 0.5 exactly: halves up
    (2.0**40 + 0.125, 2, 2**41),  # 2^41 + 0.25: down (was 2^41 + 2)
    (2.0**40 + 0.375, 2, 2**41 + 1),  # 2^41 + 0.75: up
    (1e6 / 3, 3, 1_000_000), (0.58, 25, 15), (4.35, 100, 435),  # 434.99999999999994: a half
    (-0.25, 10, -2),  # halves up below zero too (-2.5: -2)
])
def test_the_nearest_frame_of_a_huge_duration_is_exact(seconds, fps, frame):
    """The float error margin (0.58 s at 25 fps is 14.4999...: 15) was relative to the
    frame and added to it: past 2^39 frames it was a whole frame or more, and 1e12 s at
    30 fps said 30 frames too many. The margin is for halves only, and 1e-6 at most."""
    from hfrender.config import nearest_frame

    assert nearest_frame(seconds, fps) == frame


def test_a_huge_durations_refusal_counts_its_frames_right():
    from hfrender.config import ConfigError, RenderConfig

    with pytest.raises(ConfigError, match=r"^duration=1e\+12 s at 30 fps is "
                                          r"30,000,000,000,000 frames; hfrender renders"):
        RenderConfig(duration=1e12).frame_count(4.0)


@pytest.mark.parametrize("line, said", [
    ('jitter = "false"', '[render] jitter = "false" must be true or false'),
    ('transparent = "no"', '[render] transparent = "no" must be true or false'),
    ("stats = 1", "[render] stats = 1 must be true or false"),
    ("size = [320, 180]", "[render] size = [320, 180] must be WIDTHxHEIGHT, e.g. 640x360"),
    ('fps = "abc"', '[render] fps = "abc" must be a number or a fraction such as 30000/1001'),
    ('keep_samples = "k.samples"', "[render] keep_samples belongs to one run, not to every "
     "render of the project: give it on the command line"),
])
def test_hfrender_toml_values_of_the_wrong_kind_are_refused(tmp_path, line, said):
    """A true/false setting written as text was true whatever it said ("false" jittered)."""
    from hfrender.config import ConfigError
    from hfrender.project_file import project_settings

    (tmp_path / "hfrender.toml").write_text(f"[render]\n{line}\n")
    with pytest.raises(ConfigError) as info:
        project_settings(tmp_path)
    assert str(info.value) == f"{tmp_path / 'hfrender.toml'}: {said}"


def test_hfrender_toml_takes_a_frame_rate_as_a_fraction(tmp_path):
    from hfrender.project_file import project_settings

    (tmp_path / "hfrender.toml").write_text('[render]\nfps = "24000/1001"\njitter = true\n')
    assert project_settings(tmp_path) == {"fps": 24000 / 1001, "jitter": True}


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 16, 32, 64])
def test_the_pixel_offsets_of_a_window_average_to_the_pixels_centre(n):
    """One offset in each 1/n strip of the pixel, in x and in y, at the strip's middle: the
    mean is exactly 0 (was up to a sixth of a pixel off), one sub-frame the centre."""
    from hfrender.sampler import pixel_offsets

    p = pixel_offsets(n)
    assert p.shape == (n, 2) and not p.flags.writeable
    strips = np.sort(p, axis=0)
    np.testing.assert_allclose(strips, np.repeat(((np.arange(n) + 0.5) / n - 0.5)[:, None],
                                                 2, axis=1), atol=1e-15)
    assert np.abs(p.sum(axis=0)).max() < 1e-12
    if n >= 4:  # x and y are not the same order (points on a diagonal)
        assert np.corrcoef(p[:, 0], p[:, 1])[0, 1] < 0.5


def test_an_adaptive_windows_offsets_are_those_of_its_drawn_count():
    """--samples auto: a window drawing 3 of its 8 slots takes the 3-point pattern in its
    first 3 slots, centred as a whole."""
    from types import SimpleNamespace

    from hfrender.engine.draw import SubframeDrawer
    from hfrender.plan_stream import PlanStream
    from hfrender.sampler import pixel_offsets

    schedule = SampleSchedule(samples=8)
    stream = PlanStream(schedule, 0, 3, counts=lambda first, n: np.array([8, 3, 1])[first:])
    _, _, plan = next(stream.chunks())
    drawer = SimpleNamespace(stream=stream)
    got = [SubframeDrawer._pixel_offset(drawer, plan, j, j)
           for j in range(len(plan.times)) if plan.drawn[j]]
    want = [*pixel_offsets(8).tolist(), *pixel_offsets(3).tolist(), [0.0, 0.0]]
    assert [list(g) for g in got] == want
