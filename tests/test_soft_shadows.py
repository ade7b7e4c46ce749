"""A scene's ``light_angle``: each sub-frame lit from its own point of the sun's disk
(:attr:`hfrender.sampler.Plan.sun`), so the fused shadow has a penumbra as an area
light's. The widths are worked by hand from an orthographic camera (tests/shadow_helpers.py's
scene: 40 pixels a metre across the floor)."""

import math

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf
from hfrender.color import linear_to_srgb, srgb_to_linear
from hfrender.errors import InputError
from hfrender.renderer.lamps import sun
from hfrender.sampler import SampleSchedule

W, H, PPM = 200, 120, 40.0  # pixels, pixels a metre across the floor
FLOOR, AMBIENT = 0.5, 0.25
SCENE = '''
import math
import hfrender as hf


class Plate(hf.Scene):
    background = (0.0, 0.0, 0.0)
    ambient = {ambient}
    light_direction = (0, 1, 0)
    shadows = True{angle}

    def setup(self):
        self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0), color=({floor},) * 3))
        self.add(hf.Cube(position=(0, 1.0, 0), scale=(1, 0.02, 1), color=(0.2, 0.3, 0.9)))
        self.camera.orthographic = True
        self.camera.ortho_height = {height}
        self.camera.position = (0, 10 / math.sqrt(5), 20 / math.sqrt(5))
        self.camera.look_at((0, 0, 0))
'''


def plate_file(tmp_path, angle=None):
    """A 1 m square cube 2 cm thick (a plate, so that one edge casts: a thick cube's top
    and bottom edges cast either side), its middle 1 m above the floor, lit from straight
    above, seen from up the slope (0, 1, 2) as tests/shadow_helpers.py's."""
    line = "" if angle is None else f"\n    light_angle = {angle}"
    path = tmp_path / f"plate_{angle}.py"
    path.write_text(SCENE.format(ambient=AMBIENT, angle=line, floor=FLOOR, height=H / PPM))
    return path


def render(path, samples):
    frames, _ = render_frames(path, first_frame=0, count=1, size=(W, H), samples=samples,
                              backend="cpu", reconstruct="off")
    return frames[0]


def cut_through_the_shadow(picture):
    """The floor's light across x (metres from the plate's middle; the lit share, in
    linear light, of the red channel averaged over the rows of floor |z| < 0.25 m)."""
    rows = slice(int(H / 2 - 0.25 / math.sqrt(5) * PPM) + 1, int(H / 2 + 0.25 / math.sqrt(5)
                                                                     * PPM))
    red = srgb_to_linear(picture[rows, :, 0].astype(np.float64) / 255).mean(0)
    return (np.arange(W) + 0.5 - W / 2) / PPM, red


def crossing(x, share, level):
    """Where ``share`` first passes ``level`` going out from the plate's middle along
    ``x`` (> 0; linear between pixels)."""
    x, share = x[x > 0], share[x > 0]
    i = int(np.flatnonzero(share >= level)[0])
    return float(np.interp(level, share[i - 1:i + 1], x[i - 1:i + 1]))


def disk_share_10_90():
    """The 10-90% width of a round light's ramp as a share of its whole (2 x height x
    tan(half the angle)): the share of a disk of radius 1 past a chord at d is (acos d -
    d sqrt(1 - d^2)) / pi, 10% at d = 0.6870 (so 0.687 of the whole)."""
    d = np.linspace(0.0, 1.0, 100001)
    past = (np.arccos(d) - d * np.sqrt(1 - d * d)) / math.pi
    return float(np.interp(0.1, past[::-1], d[::-1]))


@pytest.mark.usefixtures("gl_context")
def test_a_20_degree_sun_gives_the_plates_shadow_its_penumbra(tmp_path):
    """light_angle 20: at 1 m the penumbra spans 2 x 1 m x tan(10 deg) = 0.353 m (14 px),
    its 10-90% ramp 0.687 of that (9.7 px), each side, within 20%; the umbra as dark as a
    hard shadow, the floor well outside it lit at the disk's mean n.l ((1 + cos 10) / 2)."""
    picture = render(plate_file(tmp_path, 20), 64)
    x, light = cut_through_the_shadow(picture)
    c = float(srgb_to_linear(FLOOR))
    dark, full = c * AMBIENT, c * (AMBIENT + (1 - AMBIENT) * (1 + math.cos(math.radians(10))) / 2)
    share = (light - dark) / (full - dark)
    whole = 2 * 1.0 * math.tan(math.radians(10))
    want = disk_share_10_90() * whole
    assert want == pytest.approx(0.2423, abs=1e-4)
    right = crossing(x, share, 0.9) - crossing(x, share, 0.1)
    left = crossing(-x[::-1], share[::-1], 0.9) - crossing(-x[::-1], share[::-1], 0.1)
    assert right == pytest.approx(want, rel=0.2) and left == pytest.approx(want, rel=0.2)
    assert crossing(x, share, 0.5) == pytest.approx(0.5, abs=0.5 / PPM)  # (the edge's middle)
    red = picture[..., 0].astype(int)
    cols = np.abs(x) < 0.5 - whole / 2 - 1 / PPM  # the umbra, under the plate
    umbra = red[H // 2 - 4:H // 2 + 4, cols]
    assert np.abs(umbra - round(float(linear_to_srgb(dark)) * 255)).max() <= 1
    lit = red[H // 2 - 4:H // 2 + 4, np.abs(x) > 0.5 + whole / 2 + 1 / PPM]
    assert np.abs(lit - round(float(linear_to_srgb(full)) * 255)).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_light_angle_0_draws_the_hard_shadow_bit_for_bit(tmp_path):
    """light_angle 0 (set or not) is the sharp shadow, the same bytes; with 20 degrees a
    still renders the same bytes twice (the disk's points are the plan's, not random)."""
    unset = render(plate_file(tmp_path), 8)
    np.testing.assert_array_equal(render(plate_file(tmp_path, 0), 8), unset)
    soft = render(plate_file(tmp_path, 20), 8)
    np.testing.assert_array_equal(render(plate_file(tmp_path, 20), 8), soft)
    x, light = cut_through_the_shadow(unset)
    ramp = (light > light.min() + 0.01) & (light < light.max() - 0.01)
    assert ramp.sum() <= 4  # hard: the edge within a pixel each side
    assert (cut_through_the_shadow(soft)[1] != light).sum() > 10


def test_sun_points_on_the_disk_as_the_lens_does():
    """Sub-frame j's sun point: stratified over the window as the lens's (each window the
    same points, mean near 0, E[r^2] = 1/2), in an order of its own, the same however the
    frames are planned (chunks, --samples auto's counts: one point alone the middle)."""
    schedule = SampleSchedule(samples=64, jitter=True, seed=3)
    plan = schedule.plan(2)
    r = np.hypot(*plan.sun[:64].T)
    assert r.max() <= 1.0 and abs(plan.sun[:64].mean(0)).max() < 0.05
    assert (r ** 2).mean() == pytest.approx(0.5, abs=0.01)
    np.testing.assert_allclose(np.sort(r), np.sort(np.hypot(*plan.lens[:64].T)))
    assert not np.allclose(plan.sun[:64], plan.lens[:64])  # (another order and turn)
    np.testing.assert_array_equal(np.concatenate([schedule.plan(1, 0).sun,
                                                  schedule.plan(1, 1).sun]), plan.sun)
    counted = schedule.plan_counts(np.array([64, 1]))
    np.testing.assert_array_equal(counted.sun[:64], plan.sun[:64])
    np.testing.assert_array_equal(counted.sun[64:], 0.0)
    wide = SampleSchedule(samples=8, shutter_deg=540).plan(3)
    assert len(wide.sun) == len(wide.times)


def test_sun_maps_the_disk_onto_the_suns_cap():
    """The disk's middle is light_direction; its rim half the angle off it; r^2 even over
    the cap's solid angle; angle 0 light_direction's whatever the point."""

    class Sky(hf.Scene):
        light_direction = (0, 2, 0)
        light_angle = 20

    scene = Sky()
    np.testing.assert_array_equal(sun(scene), [0.0, 1.0, 0.0])
    rim = sun(scene, (0.6, 0.8))
    assert math.degrees(math.acos(rim[1])) == pytest.approx(10.0)
    half = sun(scene, (math.sqrt(0.5), 0.0))  # half the cap's solid angle
    assert 1 - half[1] == pytest.approx((1 - math.cos(math.radians(10))) / 2)
    assert np.linalg.norm(half) == pytest.approx(1.0)
    scene.light_angle = 0
    np.testing.assert_array_equal(sun(scene, (0.6, 0.8)), [0.0, 1.0, 0.0])


@pytest.mark.parametrize("value", [90, -1, float("nan"), "wide", True])
def test_light_angle_is_checked_in_one_line(value):
    """0 up to 90 degrees (90 left out), in the class body and set later alike."""
    shown = {90: "90", -1: "-1", "wide": "'wide'", True: "True"}.get(value, "nan")
    told = (f"Bad.light_angle={shown} must be a finite number >= 0 and < 90 (degrees: the "
            "sun's angular diameter, 0 sharp shadows, 0.526 the real sun's)")
    with pytest.raises(InputError) as caught:
        class Bad(hf.Scene):
            light_angle = value
    assert str(caught.value) == told

    class Bad(hf.Scene):  # noqa: F811 (set in setup() or update(t) instead)
        pass

    with pytest.raises(InputError) as caught:
        Bad().light_angle = value
    assert str(caught.value) == told
    scene = Bad()
    scene.light_angle = 0.526
    assert scene.light_angle == 0.526


@pytest.mark.parametrize("shadows, said", [
    (False, ["Sun.light_angle=12 softens the sun's shadows, but the scene's shadows=False (as "
             "at t=0.5 s): it casts none, and the angle only averages the light's n·l over "
             "its disk; set shadows = True (in the class body, setup() or update(t)), or "
             "leave light_angle 0"]),
    (True, []),
], ids=["no-shadows", "shadows"])
def test_a_light_angle_without_shadows_is_said_once(tmp_path, caplog, shadows, said):
    """light_angle softens the sun's shadows, but a scene whose shadows are off (the
    default) casts none: was taken without a word (a new user's trial, 'light_angle = 20'
    and a sphere lit as before); now a warning naming the scene, once (two stills in one
    process: one warning)."""
    from hfrender.cli import main

    scene = tmp_path / f"sun_{shadows}.py"
    scene.write_text("import hfrender as hf\n\n\nclass Sun(hf.Scene):\n"
                     f"    light_angle = 12\n    shadows = {shadows}\n\n"
                     "    def setup(self):\n        self.add(hf.Sphere())\n"
                     "        self.camera.position = (0, 0, 4)\n")
    with caplog.at_level("WARNING"):
        for _ in range(2):
            assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size",
                         "32x18", "--samples", "1", "-t", "0.5", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records if "light_angle" in r.getMessage()] == said


@pytest.mark.parametrize("angle, most", [(40, (45, 56)), (0, (4, 4))], ids=["40", "0"])
def test_samples_auto_counts_the_suns_penumbra(tmp_path, capsys, angle, most):
    """--samples auto measured motion and lens blur alone: a still scene's wide sun drew
    its range's least, 4 sub-frames, 4 copies of the shadow (a new user's trial: a column
    under light_angle 20 at 320x180). The plate's penumbra at 40 degrees is 2 x 1 m x
    tan(20 deg) = 0.73 m, 29 px: about (29 / 4)^2 = 53 sun points, as a lens's circle of
    confusion of 29 px asks; at 0, none."""
    from hfrender.cli import main

    assert main(["still", str(plate_file(tmp_path, angle)), "-o", str(tmp_path / "s.png"),
                 "--size", f"{W}x{H}", "--samples", "auto", "--samples-range", "4:64",
                 "--reconstruct", "off"]) == 0
    said = capsys.readouterr().out
    count = float(said.split("samples auto 4:64 (")[1].split(" per frame")[0])
    assert most[0] <= count <= most[1], said


def test_a_fixed_count_too_low_for_the_suns_penumbra_is_said(tmp_path, caplog):
    """At 8 samples the 40-degree plate's 29 px penumbra is 8 copies of its shadow about
    10 px apart: was drawn without a word (the default count); now a warning, as a lens's
    copies are, naming what blurs it smoothly."""
    from hfrender.cli import main

    with caplog.at_level("WARNING"):
        assert main(["still", str(plate_file(tmp_path, 40)), "-o", str(tmp_path / "s.png"),
                     "--size", f"{W}x{H}", "--samples", "8", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(said) == 1 and said[0].startswith(
        "frame 0's soft shadows spread up to 29 px (light_angle 40, the sun's penumbra): "
        "its 8 points of the sun's disk show as copies about 10 px apart; --samples auto "
        "(about 5"), said
