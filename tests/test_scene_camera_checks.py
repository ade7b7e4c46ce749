"""A scene's camera: portrait and landscape pictures framed as Blender frames them (the
sensor fit), the lens's pixel size, a camera focused at infinity, its basis worked out once,
one looking straight along up, and a scene's camera that is a camera."""

import numpy as np
import pytest
from render_helpers import render_frames
from scene_check_helpers import NAN, one_line
from test_render import write_scene

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError

# --- the sensor fit --------------------------------------------------------------------------
CARD = """
class Card(hf.Scene):
    duration = 0.04
    background = "black"
    ambient = 1.0
    def setup(self):
        self.add(hf.Plane(position=(0, 0, -2), scale=0.5, color="white"))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.sensor_fit = {fit!r}
"""


def card(tmp_path, fit, size):
    path = write_scene(tmp_path, CARD.format(fit=fit), f"card_{fit}.py")
    frames, _ = render_frames(path, count=1, size=size, samples=1, antialias=False, msaa=4)
    lit = srgb_to_linear(frames[0, ..., 0] / 255.0)  # coverage in linear light (MSAA edges)
    h, w = lit.shape
    return frames[0], float(lit[h // 2].sum()), float(lit[:, w // 2].sum())


@pytest.mark.parametrize("fit, sensor_mm, fitted_px", [
    ("horizontal", 36.0, 36),  # Blender: sensor_width_mm across the width
    ("auto", 36.0, 64),  # sensor_width_mm along the longer side: the height
    ("vertical", 24.0, 64),  # sensor_height_mm (Blender's 24 mm) along the height
])
def test_portrait_pictures_frame_as_blender_does(tmp_path, fit, sensor_mm, fitted_px):
    # a 0.5 m card at 2 m through 50 mm: 12.5 mm on the sensor
    expected = 0.5 / 2 * 50 / sensor_mm * fitted_px
    _, across, down = card(tmp_path, fit, (36, 64))
    assert across == pytest.approx(expected, abs=0.3)
    assert down == pytest.approx(expected, abs=0.3)


def test_landscape_auto_is_horizontal_and_vertical_uses_the_sensor_height(tmp_path):
    auto, across, _ = card(tmp_path, "auto", (64, 36))
    horizontal, _, _ = card(tmp_path, "horizontal", (64, 36))
    np.testing.assert_array_equal(auto, horizontal)
    assert across == pytest.approx(0.5 / 2 * 50 / 36 * 64, abs=0.3)


@pytest.mark.parametrize("fit", ["auto", "horizontal", "vertical"])
@pytest.mark.parametrize("aspect", [64 / 36, 1.0, 36 / 64])
def test_the_lens_pixel_size_agrees_with_the_projection(fit, aspect):
    camera = hf.Camera(f_stop=2.0, focus_distance=3.0, focal_length_mm=35, sensor_fit=fit)
    # the projection's x scale is 2 f / (the sensor width the picture sees)
    seen_mm = 2 * camera.focal_length_mm / camera.projection(aspect)[0, 0]
    lens = camera.lens(aspect=aspect)
    assert lens.sensor_width_mm == pytest.approx(seen_mm, rel=1e-12)
    # a circle of confusion in pixels: sensor mm / (sensor size / pixels along the fitted side)
    height_px = 640
    width_px = aspect * height_px
    side, size = camera.sensor_fitted(aspect)
    pitch_mm = size / (width_px if side == "horizontal" else height_px)
    assert lens.coc_px(8.0, width_px) == pytest.approx(lens.coc_mm(8.0) / pitch_mm, rel=1e-12)
    assert camera.lens().sensor_width_mm == 36.0  # no aspect: the sensor width, as before


@pytest.mark.parametrize("value, message", [
    ("vert", "camera.sensor_fit='vert' must be one of 'auto', 'horizontal', 'vertical'; "
             "did you mean 'vertical'?"),
    (None, "camera.sensor_fit=None must be one of 'auto', 'horizontal', 'vertical'"),
])
def test_a_bad_sensor_fit_is_one_line(value, message):
    with pytest.raises(InputError) as excinfo:
        hf.Camera().sensor_fit = value
    assert one_line(excinfo) == message
    with pytest.raises(InputError, match=r"^camera.sensor_height_mm=nan must be a finite "):
        hf.Camera(sensor_height_mm=NAN)


@pytest.mark.parametrize("dof", ["lens", "depth"])
def test_a_camera_focused_at_infinity_renders_as_one_focused_far_away(tmp_path, dof):
    """``focus_distance = math.inf`` (a lens focused at infinity, as reexpose and fx take):
    the near cube blurred (sharp focused on it, 1 m away), the frame that of a focus a
    thousand kilometres away; was refused as "must be a finite number > 0"."""
    frames = {}
    for focus in ("math.inf", "1e6", "1.0"):
        path = write_scene(tmp_path, f"""
        class Far(hf.Scene):
            duration = 0.05
            background = (0.2, 0.3, 0.4)
            def setup(self):
                self.add(hf.Cube(position=(0.3, 0, 4), scale=0.3, color="orange"))
                self.add(hf.Sphere(position=(-1, 0, -4), radius=0.8, color="white"))
                self.camera.f_stop = 1.4
                self.camera.focus_distance = {focus}
        """, name=f"far_{len(frames)}.py")
        frames[focus] = render_frames(path, size=(96, 64), samples=8, dof=dof)[0][0]
    far, inf, near = (frames[k].astype(int) for k in ("1e6", "math.inf", "1.0"))
    assert np.abs(inf - far).max() <= 1
    assert np.abs(inf - near).max() > 40  # the focus did move


def test_a_cameras_basis_is_worked_out_once_while_it_stays_where_it_is(monkeypatch):
    """A sub-frame's draw asks for the camera's basis three times (its view, its eye, the
    spheres' level): each was NumPy's cross and norm again, 0.2 ms (a profile on 2 cores,
    ~5% of showcase.py's Python a sub-frame). Now worked out once until position, target
    or up is set; the same numbers, and copies a caller may change."""
    from hfrender.scene import camera as camera_module

    crosses = []
    real_cross = camera_module.np.cross
    monkeypatch.setattr(camera_module.np, "cross",
                        lambda a, b: crosses.append(1) or real_cross(a, b))
    cam = hf.Camera(position=(1.0, 2.0, 5.0))
    cam.look_at((0.0, 0.5, 0.0))
    view = cam.view_matrix((0.01, -0.02))
    right, up, forward = cam.basis()
    right *= 0  # a caller's own copy
    assert np.array_equal(cam.view_matrix((0.01, -0.02)), view)
    assert cam.basis()[0].tolist() == [0.9805806756909201, 0.0, -0.19611613513818404]
    assert len(crosses) == 2  # right, then up: once (was 8: every call)
    cam.position = (1.0, 2.0, 5.0)  # set anew, the same place: worked out again, the same
    assert np.array_equal(cam.view_matrix((0.01, -0.02)), view) and len(crosses) == 4
    cam.position = (-1.0, 2.0, 5.0)
    assert cam.basis()[0].tolist() == [0.9805806756909201, -0.0, 0.19611613513818404]
    assert len(crosses) == 6


@pytest.mark.parametrize("above", [1, -1])
def test_a_camera_looking_straight_along_up_draws_as_one_tilted_nearly_there(tmp_path, above):
    """Looking straight up took -z as up, where a camera tilted up nearly there has +z: a
    tilt ending at the vertical turned its last picture over. Straight down (-z) was right;
    a tiny up is an up as a long one."""
    frames = []
    for k, tilt in enumerate((1e-7, 0.0)):  # radians short of the vertical
        path = write_scene(tmp_path, f"""
        class Tilt(hf.Scene):
            duration = 0.05
            def setup(self):
                self.add(hf.Cube(position=(0, {3 * above}, 0), color="white"))
                self.add(hf.Sphere(position=(0.4, {2 * above}, -0.5), radius=0.2, color="red"))
                self.camera.position = (0, 0, 0)
                self.camera.look_at((0, {above} * math.cos({tilt}), -math.sin({tilt})))
        """, name=f"tilt_{k}.py")
        frames.append(render_frames(path, size=(24, 24), samples=1)[0][0].astype(int))
    assert np.abs(frames[0] - frames[1]).max() <= 1
    assert np.abs(frames[0] - frames[0][:, ::-1]).max() > 40  # (the sphere is off-centre)
    for target in ((0, above, 0), (0, above, -1e-7)):
        right, up, _ = hf.Camera(position=(0, 0, 0), target=target, up=(0, 1e-30, 0)).basis()
        assert right.tolist() == [1, 0, 0] and np.allclose(up, [0, 0, above], atol=1e-6)


def test_a_scenes_camera_is_a_camera_and_an_init_of_its_own_keeps_it(tmp_path):
    """``self.camera = "main"`` and an ``__init__`` without ``super().__init__()`` (as a
    manim scene may have) were internal errors (a trial)."""

    class Own(hf.Scene):
        def __init__(self):
            self.speed = 2.0

    scene = Own()
    assert isinstance(scene.camera, hf.Camera) and scene.objects == []
    scene.add(hf.Cube())
    with pytest.raises(InputError) as excinfo:
        scene.camera = "main"
    assert one_line(excinfo) == ("Own.camera='main' must be an hf.Camera (or set the camera's "
                                 "own fields: self.camera.position = ...)")
    path = write_scene(tmp_path, """
    class Own(hf.Scene):
        duration = 0.1
        def __init__(self):
            self.speed = 2.0
        def update(self, t):
            self.camera.position = (0, 0, 4 + self.speed * t)
    """)
    frames, _ = render_frames(path, size=(32, 18))
    assert frames.shape[0] == 3
