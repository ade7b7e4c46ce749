"""Parenting and groups (hfrender/scene/nodes.py): ``child.parent = obj`` and ``hf.Group``
place objects in another's frame, and everything that draws an object draws it there: the
picture, the depth plane, the velocity plane, a sphere's level, the scene checks."""

import math

import numpy as np
import pytest
from test_in_view import _said
from test_render import write_scene
from test_velocity import _draw

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import InputError
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene import past_white
from hfrender.scene.nodes import placement

W, H = 160, 96


class Placed(hf.Scene):
    """A bright cube at (2, 0, 0) under a hidden cube at (1, 0, 0) turned 90 degrees about y,
    seen straight on by an orthographic camera (``parented = False``: the same cube placed
    by hand where the matrix product says)."""

    background = (0, 0, 0)
    ambient = 1.0
    parented = True

    def setup(self):
        self.holder = self.add(hf.Cube(position=(1, 0, 0), rotation=(0, math.pi / 2, 0),
                                       visible=False))
        self.child = self.add(hf.Cube(position=(2, 0, 0), scale=0.6, color="white"))
        if self.parented:
            self.child.parent = self.holder
        else:  # Ry(90 degrees) takes (2, 0, 0) to (0, 0, -2); then (1, 0, 0) added
            self.child.position, self.child.rotation = (1, 0, -2), (0, math.pi / 2, 0)
        self.camera.position = (0, 0, 8)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic, self.camera.ortho_height = True, 6.0


def _picture(ctx, scene, t=0.0):
    """(colour (H, W, 4) uint8, depth (H, W), renderer) of ``scene`` set up and drawn at t."""
    scene.setup()
    scene.update(t)
    renderer = SceneRenderer(ctx, scene, (W, H), True)
    renderer.draw(t, 0)
    color, depth = np.empty((H, W, 4), np.uint8), np.empty((H, W), np.float32)
    renderer.read_into(color, depth)
    return color, depth, renderer


def _centroid(color):
    """(x, y) in pixels of the lit pixels' centre (y from the picture's top row)."""
    ys, xs = np.nonzero(color[..., 0] > 128)
    assert xs.size > 20
    return np.array([xs.mean() + 0.5, ys.mean() + 0.5])


def _pixel(camera, point):
    """Where a world point lands on the picture, x right and y down from the top row."""
    clip = camera.projection(W / H) @ camera.view_matrix() @ np.append(point, 1.0)
    ndc = clip[:3] / clip[3]
    return np.array([(ndc[0] + 1) / 2 * W, (ndc[1] + 1) / 2 * H])


def test_a_child_lands_where_its_parents_matrix_puts_it(gl_context):
    ctx = gl_context(size=(W, H)).ctx
    scene = Placed()
    color, depth, renderer = _picture(ctx, scene)
    world = (scene.holder.model_matrix() @ (2, 0, 0, 1))[:3]
    np.testing.assert_allclose(world, (1, 0, -2), atol=1e-12)
    np.testing.assert_allclose(scene.child.world_matrix()[:3, 3], world, atol=1e-12)
    at = _centroid(color)
    want = _pixel(scene.camera, world)  # (rows from the top: the projection turns y over)
    assert np.abs(at - want).max() < 0.25, (at, want)
    assert np.abs(at - _pixel(scene.camera, (2, 0, 0))).max() > 5  # not its own place
    # the depth plane (what --dof depth blurs by): its front face, 8 - (-2 + 0.3) m away
    assert depth[int(at[1]), int(at[0])] == pytest.approx(9.7, abs=1e-4)
    renderer.release()
    by_hand = type("ByHand", (Placed,), {"parented": False})()
    again, depth_again, renderer = _picture(ctx, by_hand)
    np.testing.assert_array_equal(again, color)
    np.testing.assert_allclose(depth_again, depth, atol=1e-5)
    renderer.release()


def test_a_parents_scale_is_inherited_but_not_a_spheres_radius():
    """A moon under a planet of radius 0.25 keeps its own size and distance (a radius is the
    shape's, as in Blender); the planet's scale scales the moon, place and size."""
    planet = hf.Sphere(position=(0, 1, 0), radius=0.25)
    moon = hf.Sphere(position=(2, 0, 0), radius=0.3, parent=planet)
    np.testing.assert_allclose(moon.world_matrix(), np.array(
        [[0.3, 0, 0, 2], [0, 0.3, 0, 1], [0, 0, 0.3, 0], [0, 0, 0, 1]]), atol=1e-15)
    planet.scale = 2.0
    np.testing.assert_allclose(moon.world_matrix(), np.array(
        [[0.6, 0, 0, 4], [0, 0.6, 0, 1], [0, 0, 0.6, 0], [0, 0, 0, 1]]), atol=1e-15)
    group = hf.Group(planet, rotation=(0, 0, math.pi / 2))  # a grandparent: recursively
    np.testing.assert_allclose(moon.world_matrix(),
                               placement((0, 0, 0), (0, 0, math.pi / 2), 1.0)
                               @ placement((0, 1, 0), (0, 0, 0), 2.0) @ moon.model_matrix())
    assert group.children == [planet] and moon.model_matrix()[0, 0] == 0.3  # its own


class Moon(hf.Scene):
    """A moon of radius 0.3 at (1, 0, 0), under a hidden planet of radius 0.25 or alone."""

    background = (0, 0, 0)
    ambient = 1.0
    parented = True

    def setup(self):
        planet = self.add(hf.Sphere(radius=0.25, visible=False))
        self.moon = self.add(hf.Sphere(position=(1, 0, 0), radius=0.3, color="white",
                                       parent=planet if self.parented else None))
        self.camera.position = (0, 0, 8)
        self.camera.orthographic, self.camera.ortho_height = True, 6.0


def test_a_child_of_a_small_sphere_keeps_its_own_size_on_the_picture(gl_context):
    ctx = gl_context(size=(W, H)).ctx
    color, _, renderer = _picture(ctx, Moon())
    renderer.release()
    alone, _, renderer = _picture(ctx, type("Alone", (Moon,), {"parented": False})())
    renderer.release()
    lit = int((color[..., 0] > 128).sum())
    assert lit == int((alone[..., 0] > 128).sum())
    assert lit == pytest.approx(math.pi * (0.3 * H / 6) ** 2, rel=0.1)  # 0.3 m, not 0.075
    np.testing.assert_array_equal(color, alone)


def test_a_spheres_level_follows_its_parents_scale(gl_context):
    """The level of detail is chosen from the size drawn: a sphere of radius 0.05 in a
    group of scale 10 is drawn as finely as one of radius 0.5."""
    ctx = gl_context(size=(W, H)).ctx
    scene = hf.Scene()
    scene.camera.position = (0, 0, 30)
    big = scene.add(hf.Sphere(radius=0.5))
    small = scene.add(hf.Sphere(radius=0.05, parent=hf.Group(scale=10)))
    renderer = SceneRenderer(ctx, scene, (W, H), False)
    lens = renderer._pixels_a_metre()
    level = renderer.geometries([big], [big.world_matrix()], lens)[0]
    assert level == "sphere:32"
    assert renderer.geometries([small], [small.world_matrix()], lens)[0] == level
    assert renderer.geometries([small], [small.model_matrix()], lens)[0] != level
    renderer.release()


class Three(hf.Scene):
    """Three cubes moved by a group, or by hand by the group's offset."""

    background = (0, 0, 0)
    ambient = 1.0
    grouped = True
    places = ((-1.0, 0.0, 0.0), (0.0, 0.5, 0.0), (1.0, -0.5, 0.0))

    def setup(self):
        self.cubes = [hf.Cube(position=p, scale=0.4, color=c)
                      for p, c in zip(self.places, ("red", "lime", "blue"), strict=True)]
        if self.grouped:
            self.group = hf.Group(*self.cubes)
            assert self.add(self.group) is self.group  # adds the three
            assert self.group.children == self.cubes
        else:
            self.add(*self.cubes)
        self.camera.position = (0, 0, 8)

    def update(self, t):
        if self.grouped:
            self.group.position = (0.5 * t, 0.25 * t, 0.0)
        else:
            for cube, p in zip(self.cubes, self.places, strict=True):
                cube.position = (p[0] + 0.5 * t, p[1] + 0.25 * t, p[2])


def test_a_group_moves_its_children_together(gl_context):
    ctx = gl_context(size=(W, H)).ctx
    scene = Three()
    color, _, renderer = _picture(ctx, scene, 1.0)
    renderer.release()
    assert scene.objects == scene.cubes  # the group itself is not drawn
    by_hand, _, renderer = _picture(ctx, type("ByHand", (Three,), {"grouped": False})(), 1.0)
    renderer.release()
    still, _, renderer = _picture(ctx, Three(), 0.0)
    renderer.release()
    np.testing.assert_array_equal(color, by_hand)
    for channel in range(3):  # each cube moved by (0.5, 0.25) m: 0.5 * 96 / 4.14 px a metre
        moved = _centroid_of(color, channel) - _centroid_of(still, channel)
        np.testing.assert_allclose(moved, moved.mean(0) if moved.ndim > 1 else moved)
        assert moved[0] > 4 and moved[1] < -2  # right, and up (rows run down)


def _centroid_of(color, channel):
    mask = color[..., channel] > 128
    mask &= (color[..., [c for c in range(3) if c != channel]] < 64).all(-1)
    ys, xs = np.nonzero(mask)
    return np.array([xs.mean(), ys.mean()])


class Carried(hf.Scene):
    """A cube carried by a moving, turning group (``by_hand``: the same motion set on the
    cube directly)."""

    by_hand = False

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.3, 0.3)))
        self.box = self.add(hf.Cube(scale=0.6, color=(0.9, 0.2, 0.1)))
        self.group = hf.Group()
        if not self.by_hand:
            self.group.add(self.box)
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        at, turn = (-1.0 + 3.0 * t, 0.4 * t, 0.0), 2.0 * t
        if self.by_hand:  # Rz(turn) @ T(0.5, 0, 0): the offset turned, then moved
            self.box.position = (at[0] + 0.5 * math.cos(turn), at[1] + 0.5 * math.sin(turn),
                                 0.0)
            self.box.rotation = (0.0, 0.0, turn)
        else:
            self.group.position, self.group.rotation = at, (0.0, 0.0, turn)
            self.box.position = (0.5, 0.0, 0.0)


def test_a_childs_velocity_is_its_parents_motion_too(gl_context):
    """The velocity plane (what reconstruction warps along) of a cube whose group moves and
    turns equals that of the same motion set on the cube itself."""
    ctx = gl_context(size=(160, 96)).ctx
    carried, renderer = _draw(ctx, Carried(), 0.4)
    renderer.release()
    by_hand, renderer = _draw(ctx, type("ByHand", (Carried,), {"by_hand": True})(), 0.4)
    renderer.release()
    moving = np.abs(carried).max(-1) > 1.0
    assert 0.02 < moving.mean() < 0.3  # the cube moves, the plane behind it does not
    np.testing.assert_allclose(carried, by_hand, rtol=1e-4, atol=1e-2)


def test_a_parent_that_is_not_an_object_or_makes_a_cycle_is_one_line():
    a, b, c = hf.Cube(), hf.Sphere(), hf.Group()
    with pytest.raises(InputError) as excinfo:
        a.parent = "b"
    assert str(excinfo.value) == ("Cube.parent='b' must be an object of the scene (hf.Sphere, "
                                  "hf.Mesh, ...), an hf.Group, or None")
    with pytest.raises(InputError) as excinfo:
        a.parent = hf.Group
    assert str(excinfo.value).endswith("an hf.Group, or None (call it: hf.Group())")
    b.parent, c.parent = a, b
    with pytest.raises(InputError) as excinfo:
        a.parent = c
    assert str(excinfo.value) == (
        "Cube.parent would be the Group at (0, 0, 0), which is placed under this Cube "
        "already: a cycle (a.parent = b, b.parent = a); an object is placed in its "
        "parent's frame, so one of the two is the parent, not both")
    with pytest.raises(InputError, match=r"^Sphere.parent would be itself: a cycle"):
        b.parent = b
    with pytest.raises(InputError, match=r"^Group.add\(\) takes objects .*; got list: unpack"):
        c.add([a])
    assert a.parent is None and b.parent is a and c.parent is b  # nothing changed


FOREIGN = ("self.moon = self.add(hf.Sphere(radius=0.1, parent=hf.Sphere(position=(1, 0, "
           "0))))")
NOT_ADDED = ("InputError: Sphere.parent: the Sphere at (1, 0, 0) is not added to this scene "
             "(never added, or another scene's), so it would not be drawn while its children "
             "are: self.add() it in setup(), or parent them to an hf.Group (never drawn, "
             "needs no add)")


@pytest.mark.parametrize("setup, more, said", [
    ("self.a, self.b = self.add(hf.Cube(), hf.Sphere())\n"
     "            self.a.parent = self.b\n            self.b.parent = self.a", [],
     "scene error in setup(): InputError: Sphere.parent would be self.a (a Cube), "
     "which is placed under this Sphere already: a cycle"),
    (FOREIGN, [], f"scene error in drawing at t=0 s (output frame 0): {NOT_ADDED}"),
    # its velocity first (was: the bare message, without the time)
    (FOREIGN, ["--reconstruct", "on"], f"scene error in drawing at t=0 s (output frame 0): "
     f"{NOT_ADDED}"),
])
def test_a_cycle_and_a_parent_not_in_the_scene_are_one_line(tmp_path, capsys, setup, more,
                                                            said):
    scene = write_scene(tmp_path, f"""
    class Family(hf.Scene):
        duration = 0.2

        def setup(self):
            {setup}
    """)
    assert main(["still", str(scene), "-o", str(tmp_path / "f.png"), "--size", "32x18",
                 "--samples", "1", "--quiet", *more]) == 2
    err = capsys.readouterr().err
    assert f"hfrender: error: {said}" in err and err.count("hfrender: error") == 1
    assert err.endswith("\n") and len(err.strip().splitlines()[-1]) > len(said)
    assert not (tmp_path / "f.png").exists()


GROUPED = """
class Family(hf.Scene):
    duration = 1.0

    def setup(self):
        self.group = hf.Group(position=(0.5, 0, 0))
        self.sun = self.add(hf.Sphere(radius=0.3))
        self.moon = self.add(hf.Sphere(position=(1, 0, 0), radius=0.1, parent=self.group))
        self.camera.position = (0, 0, 6)
        {more}

    def update(self, t):
        self.moon.parent = self.group if t < 0.5 else self.sun  # legitimate state
        {update}
"""


def test_a_parent_set_in_update_is_state_from_t_and_a_second_setup_agrees(tmp_path, caplog):
    """The scene checks compare a parent by where it is: a second setup()'s group is
    another object in the same place (was said to draw another scene)."""
    assert _said(tmp_path, caplog, GROUPED.format(more="", update=""), "scene.py") == []


def test_a_parent_moved_by_hidden_state_is_said(tmp_path, caplog):
    said = _said(tmp_path, caplog, GROUPED.format(
        more="self.k = 0.0", update="self.k += 0.5\n        self.group.position = "
                                    "(self.k, 0, 0)"), "scene.py")
    assert len(said) == 1 and said[0].startswith(
        "scene.py: update(t) is not a pure function of t: moon.parent at t=0 s was the Group "
        "at (0.5, 0.0, 0.0) turned (0.0, 0.0, 0.0) scaled 1.0, and the Group at (1.5, 0.0, "
        "0.0) turned (0.0, 0.0, 0.0) scaled 1.0 when t=0.966667 s was drawn in between"), said


def test_the_in_view_check_sees_a_child_where_its_parent_puts_it(tmp_path, caplog):
    body = """
    class Look(hf.Scene):
        duration = 0.2

        def setup(self):
            self.add(hf.Sphere(position={at}, parent=hf.Group(position=(50, 0, 0))))
            self.camera.position = (0, 0, 4)
    """
    assert _said(tmp_path, caplog, body.format(at="(0, 0, 0)")) == [
        "Look: no object is in view at t=0 s: the Sphere at (50, 0, 0) is outside the "
        "picture; the frames show the background alone"]
    caplog.clear()
    assert _said(tmp_path, caplog, body.format(at="(-50, 0, 0)")) == []



def test_a_lamp_past_white_is_named_where_its_parents_put_it():
    """The --hdr reason (stats.hdr_why, the 8-bit warning) names a child lamp where it is
    drawn (was: its own position, in its parent's frame: (0, 1, 0) for a lamp at (2, 1, 0))."""
    class Lamp(hf.Scene):
        def setup(self):
            self.add(hf.Sphere(position=(0, 1, 0), emissive=3.0, color="white",
                               parent=hf.Group(position=(2, 0, 0))))

    scene = Lamp()
    scene.setup()
    assert past_white(scene) == "the Sphere at (2, 1, 0) with emissive 3 reaches 4x white"

def test_the_names_of_other_tools_point_to_group_and_parent():
    with pytest.raises(AttributeError, match=r"'VGroup'; did you mean hf.Group\?$"):
        hf.VGroup  # noqa: B018
    with pytest.raises(InputError, match=r"Camera has no attribute 'parent'; parent is "
                                         r"another tool's: the camera has no parent"):
        hf.Camera().parent = hf.Group()
