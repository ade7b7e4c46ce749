"""hf.Text(face_camera=True): a label turned to the camera in every sub-frame (manim's
add_fixed_orientation_mobjects, Blender's Track To), its place and size still its
parents' frame's; the one world matrix every reader sees."""

import math

import numpy as np
import pytest

import hfrender as hf
from hfrender.engine.draw import SubframeDrawer
from hfrender.errors import InputError
from hfrender.renderer.renderer import SceneRenderer
from hfrender.renderer.translucent import in_order
from hfrender.scene.in_view import nothing_seen
from tests.mesh_helpers import draw, make_scene

W, H = 160, 96
TURN = math.radians(80)


def _ink_width(color):
    cols = np.flatnonzero((color.max(axis=2) >= 128).any(axis=0))
    return cols[-1] + 1 - cols[0]


def _under_turned_group(face_camera, camera_at=(0.0, 0.0, 5.0)):
    group = hf.Group(rotation=(0.0, TURN, 0.0), position=(0.2, 0.1, 0.0))
    label = hf.Text("Hello", height=0.3, face_camera=face_camera, parent=group)
    scene = make_scene(group, position=camera_at, orthographic=True, ortho_height=2.0)
    return scene, label


@pytest.mark.parametrize("face_camera", [True, False])
def test_a_label_under_a_group_turned_80_degrees_keeps_its_full_width(gl_context,
                                                                      face_camera):
    glctx = gl_context(size=(W, H))
    flat, _, _ = draw(glctx, make_scene(hf.Text("Hello", height=0.3), orthographic=True,
                                        ortho_height=2.0))
    turned, _, _ = draw(glctx, _under_turned_group(face_camera)[0])
    full = _ink_width(flat)
    assert full == 47  # 0.3 m of cap height on 48 px a metre: "Hello" 47 px wide
    if face_camera:  # (was: edge-on, cos 80 degrees of it: 9 px)
        assert abs(_ink_width(turned) - full) <= 1
    else:
        assert abs(_ink_width(turned) - full * math.cos(TURN)) <= 2


def test_its_matrix_is_the_cameras_turn_at_its_parents_place_and_scale():
    scene, label = _under_turned_group(True, camera_at=(3.0, 2.0, 4.0))
    label.parent.scale = 2.0
    label.position = (0.5, 0.0, 0.0)
    label.rotation = (0.0, 0.0, 0.3)  # in the camera's frame: a tilt in the picture
    scene.setup()
    right, up, forward = scene.camera.basis()
    k = 2.0 * 0.3 / label.raster().cap  # metres a raster pixel, the group's scale in
    m = label.world_matrix()
    np.testing.assert_allclose(m[:3, 0], k * (math.cos(0.3) * right + math.sin(0.3) * up),
                               atol=1e-12)
    np.testing.assert_allclose(m[:3, 1], k * (math.cos(0.3) * up - math.sin(0.3) * right),
                               atol=1e-12)
    np.testing.assert_allclose(m[:3, 2], -k * forward, atol=1e-12)
    np.testing.assert_allclose(m[:3, 3], (label.parent.world_matrix() @ [0.5, 0, 0, 1])[:3])
    # the readers read it: the translucent order's depth and the in-view check
    assert in_order(scene.objects, tuple(scene.camera.position), tuple(forward)) == [
        (0, label)]
    assert nothing_seen(scene, (W, H)) is None
    label.face_camera = False  # as it was: the group's turn times its own
    np.testing.assert_allclose(label.world_matrix(), label.parent.world_matrix() @
                               hf.Text.model_matrix(label))


def test_before_it_is_added_it_has_its_own_turn_and_bad_values_are_one_line():
    label = hf.Text("Hi", rotation=(0.0, 0.5, 0.0), face_camera=True)
    np.testing.assert_array_equal(label.world_matrix(), label.model_matrix())
    with pytest.raises(InputError) as info:
        hf.Text("Hi", face_camera="yes")
    assert str(info.value) == "Text.face_camera='yes' must be True or False"
    with pytest.raises(InputError) as info:
        label.face_camera = 2
    assert str(info.value) == "Text.face_camera=2 must be True or False"


class Orbit(hf.Scene):
    """The camera circling a still label at the origin, 3 rad/s, 5 m away."""

    background = (0.0, 0.0, 0.0)
    face_camera = True

    def setup(self):
        self.label = self.add(hf.Text("Hello", height=0.4, face_camera=self.face_camera))

    def update(self, t):
        self.camera.position = (5 * math.sin(3 * t), 0.5, 5 * math.cos(3 * t))
        self.camera.look_at((0, 0, 0))


@pytest.mark.parametrize("face_camera", [True, False])
def test_a_still_label_the_camera_circles_is_still_on_the_picture(gl_context, face_camera):
    """Turned with the camera it keeps its place and shape in the picture: no velocity
    anywhere on its glyphs (was: its ends sweeping towards and away from the eye)."""
    scene = Orbit()
    scene.face_camera = face_camera
    scene.setup()
    renderer = SceneRenderer(gl_context(size=(W, H)).ctx, scene, (W, H), True,
                             with_velocity=True)
    scene.update(0.3)
    drawer = SubframeDrawer(scene, renderer, None, None, None, "off", True)
    renderer.draw(0.3, 0, clip_rates=drawer._clip_rates(0.3, 0, (0.0, 0.0), (0.0, 0.0)))
    color = np.empty((H, W, 4), np.uint8)
    velocity = np.empty((H, W, 2), np.float32)
    renderer.read_into(color, np.empty((H, W), np.float32), velocity)
    renderer.release()
    ink = color[..., :3].max(axis=2) >= 200  # (coverage past 0.5: sRGB 188)
    assert ink.sum() > 100
    speed = np.linalg.norm(velocity[ink], axis=1)
    if face_camera:
        assert speed.max() < 1e-2  # px/s
    else:
        assert speed.max() > 20.0
