"""manim's object methods and attributes (obj.move_to(...), obj.animate, obj.width): read,
called or set on hfrender's objects, each says in one line what is done here instead (was:
Python's bare "'Sphere' object has no attribute 'move_to'")."""

import re

import numpy as np
import pytest
from render_helpers import render_frames
from test_render import write_scene

import hfrender as hf
from hfrender.scene.checks import Checked, UnknownAttributeError
from hfrender.scene.loader import SceneUpdateError

SIZE = "its size is scale (a cube or plane is 1 m a side at 1, a model its file's size; 3 " \
       "numbers (x, y, z) stretch it)"
TOLD = [
    (hf.Sphere, "move_to", "set position = (x, y, z) from t in update(t)"),
    (hf.Cube, "next_to", "hf.next_to(obj, other, (0, 1, 0), buff=0.25) places obj's box "
                         "beside other's (above it, 0.25 m between), a function here, in "
                         "setup() or in update(t) (hfrender docs rendering layout)"),
    (hf.Cube, "shift", "set position from t in update(t) (x0 + 0.5 * t, y0, z0), not added "
                       "to each frame"),
    (hf.Plane, "rotate", "set rotation = (x, y, z), radians about x, then y, then z, from t "
                         "in update(t)"),
    (hf.Sphere, "set_color", "set color = ... (a name, '#ffcc00' or 3 numbers 0..1)"),
    (hf.Sphere, "set_fill", "set color = ... and opacity = 0..1"),
    (hf.Text, "set_opacity", "set opacity = 0..1, from t in update(t) to fade"),
    (hf.Sphere, "animate", "hfrender has no play(); set the field from t in update(t) "
                           "(hf.smooth for easing)"),
    (hf.Group, "animate", "hfrender has no play(); set the field from t in update(t) "
                          "(hf.smooth for easing)"),
    (hf.Cube, "get_center", "position (world: obj.world_matrix()[:3, 3])"),
    (hf.Cube, "become", "set this one's fields from the other's in update(t) (position, "
                        "rotation, scale, color), or fade one out and one in by opacity"),
    (hf.Sphere, "add_updater", "update(t) is the updater of every object: set its fields "
                               "there"),
    (hf.Camera, "add_updater", "update(t) is the updater of every object: set its fields "
                               "there"),
    (hf.Cube, "clear_updaters", "update(t) is the updater of every object: set its fields "
                                "there"),
    (hf.Cube, "width", SIZE),
    (hf.Plane, "height", SIZE),
    (hf.Group, "width", SIZE),
    (hf.Sphere, "width", "a sphere's size is radius, metres (times scale)"),
    (hf.Cylinder, "width", "its size is radius and height, metres (times scale)"),
    (hf.Torus, "height", "a torus's size is radius (to the tube's middle) and tube (the "
                         "tube's radius), metres (times scale)"),
    (hf.Cone, "direction", "a Cylinder, Cone or Torus stands along y here (y up): turn it by "
                           "rotation, radians about x, then y, then z (rotation=(math.pi / 2, "
                           "0, 0) lays its axis along z)"),
    (hf.Text, "width", "a Text's size is its height, the cap height in metres; its width "
                       "follows from the text"),
]


@pytest.mark.parametrize("make, name, hint", TOLD)
def test_reading_or_calling_a_manim_name_says_what_to_do(make, name, hint):
    obj = make()
    said = f"{type(obj).__name__} has no attribute {name!r}; {name} is manim's: {hint}"
    with pytest.raises(UnknownAttributeError) as excinfo:
        getattr(obj, name)(1.0)  # obj.move_to(1.0): the read raises, before the call
    assert str(excinfo.value) == said
    assert isinstance(excinfo.value, AttributeError)
    assert getattr(obj, name, "none") == "none" and not hasattr(obj, name)  # (duck typing)


@pytest.mark.parametrize("make, name, hint", TOLD[::3])
def test_setting_a_manim_name_says_it_too_and_stores_nothing(make, name, hint):
    obj = make()
    with pytest.raises(UnknownAttributeError) as excinfo:
        setattr(obj, name, 2.0)
    assert str(excinfo.value) == (f"{type(obj).__name__} has no attribute {name!r}; {name} is "
                                  f"manim's: {hint}")
    assert name not in vars(obj)


def test_a_camera_is_aimed_not_rotated_and_keeps_pythons_error_for_what_it_has_not():
    with pytest.raises(UnknownAttributeError) as excinfo:
        hf.Camera().rotate(0.5)
    assert str(excinfo.value) == ("Camera has no attribute 'rotate'; it is aimed, not turned: "
                                  "look_at((x, y, z)), or set its target")
    with pytest.raises(AttributeError) as excinfo:  # a camera has no colour: not "color = ..."
        hf.Camera().set_color("red")
    assert str(excinfo.value) == "'Camera' object has no attribute 'set_color'"
    assert hf.Text("Hi").height == 0.3  # a Text's own height is its field, not manim's


def test_reads_of_fields_do_not_go_through_the_hints():
    """The hints are in __getattr__, asked only for a name not found: a field's read stays
    Python's own (1e6 reads of sphere.position: 0.036 s before, 0.030-0.033 s after)."""
    assert Checked.__getattribute__ is object.__getattribute__
    assert "__getattr__" in vars(Checked)


def test_a_scene_calling_move_to_is_told_at_its_line(tmp_path):
    path = write_scene(tmp_path, """
    class Moving(hf.Scene):
        duration = 0.1
        def setup(self):
            self.ball = self.add(hf.Sphere())
        def update(self, t):
            self.ball.move_to((t, 0, 0))
    """)
    with pytest.raises(SceneUpdateError) as excinfo:
        render_frames(path, size=(16, 16), samples=1)
    assert re.search(r"^scene error in update\(t\) at t=0 s \(output frame 0\): "
                     r"UnknownAttributeError: Sphere has no attribute 'move_to'; move_to is "
                     r"manim's: set position = \(x, y, z\) from t in update\(t\) "
                     r"\(\S*scene.py:10\)$", str(excinfo.value))


@pytest.mark.parametrize("update, said", [
    ("self.ball.scale(2)", "'float' object is not callable (SCENE:11); scale is a field here, "
     "not a method: set it, obj.scale = ..., from t in update(t) (manim's scale(2) doubles; "
     "here scale = 2 is twice the shape's own size)"),
    ("self.ball.color('red')", "'tuple' object is not callable (SCENE:11); color is a field "
     "here, not a method: set it, obj.color = ..., from t in update(t)"),
    ("self.camera.position((0, 0, 5))", "'tuple' object is not callable (SCENE:11); position "
     "is a field here, not a method: set it, obj.position = ..., from t in update(t)"),
    ("self.rate(2)", "'float' object is not callable (SCENE:11)"),  # the scene's own: no hint
])
def test_a_field_called_as_manims_method_is_said_to_be_set(tmp_path, update, said):
    """manim's obj.scale(2) was "TypeError: 'float' object is not callable" alone."""
    path = write_scene(tmp_path, f"""
    class Calling(hf.Scene):
        duration = 0.1
        rate = 1.5
        def setup(self):
            self.ball = self.add(hf.Sphere())
        def update(self, t):
            {update}
    """)
    with pytest.raises(SceneUpdateError) as excinfo:
        render_frames(path, size=(16, 16), samples=1)
    assert str(excinfo.value) == ("scene error in update(t) at t=0 s (output frame 0): "
                                  "TypeError: " + said.replace("SCENE", str(path)))


EACH = ("a Group is a frame, never drawn: it has no {0} of its own (its opacity and visible "
        "pass to its objects, not this); set each object's, for obj in group.children: "
        "obj.{0} = ... (in update(t) to change it)")


@pytest.mark.parametrize("name, hint", [
    ("set_opacity", "set_opacity is manim's: set opacity = 0..1, from t in update(t) to fade"),
    ("fade", "manim's fade(darkness) is group.opacity = 1 - darkness here (it multiplies its "
             "objects' own), set from t in update(t)"),
    ("set_color", EACH.format("color")), ("emissive", EACH.format("emissive")),
    ("submobjects", "manim's submobjects are group.children here, a list"),
    ("arrange", "manim's group.arrange(RIGHT, buff=0.25) is hf.arrange(group, (1, 0, 0), "
                "buff=0.25) here, a function: its objects' boxes side by side, centred on "
                "center=(0, 0, 0) in the group's frame (hfrender docs rendering layout)"),
    ("remove", "manim's remove is obj.parent = None here, out of the group (it stays in the "
               "scene: obj.visible = False hides it)"),
])
def test_a_groups_manim_vgroup_names_say_what_to_do(name, hint):
    """A trial: group.set_opacity(0.5) was "'Group' object has no attribute 'set_opacity'"
    alone; read or set, each now says what is done here (a Group's opacity and visible
    are its own fields: tests/test_group_opacity.py)."""
    said = f"Group has no attribute {name!r}; {hint}"
    for use in (lambda g: getattr(g, name), lambda g: setattr(g, name, 0.5)):
        with pytest.raises(UnknownAttributeError) as excinfo:
            use(hf.Group(hf.Sphere()))
        assert str(excinfo.value) == said
    with pytest.raises(AttributeError) as excinfo:  # an object's own: Python's error
        hf.Sphere().submobjects  # noqa: B018
    assert str(excinfo.value) == "'Sphere' object has no attribute 'submobjects'"


@pytest.mark.parametrize("use, error", [
    ("for d in self.dots: d.opacity = 0.5", "'Group' object is not iterable"),
    ("self.dots[0].opacity = 0.5", "'Group' object is not subscriptable"),
    ("self.n = len(self.dots)", "object of type 'Group' has no len()"),
])
def test_a_group_used_as_manims_vgroup_list_is_told_its_children(tmp_path, use, error):
    """A VGroup is a list in manim; a Group's objects are its children (was: Python's
    "TypeError: 'Group' object is not iterable" alone)."""
    path = write_scene(tmp_path, f"""
    class Dots(hf.Scene):
        duration = 0.1
        n: int = 0
        def setup(self):
            self.dots = hf.Group(hf.Sphere(), hf.Sphere(position=(1, 0, 0)))
            self.add(self.dots)
        def update(self, t):
            {use}
    """)
    with pytest.raises(SceneUpdateError) as excinfo:
        render_frames(path, size=(16, 16), samples=1)
    assert str(excinfo.value) == (
        f"scene error in update(t) at t=0 s (output frame 0): TypeError: {error} ({path}:12); "
        "a Group's objects are group.children, a list (manim's VGroup is a list itself): for "
        "obj in group.children")


def test_the_font_size_hints_scale_is_the_default_cameras():
    """manim's font_size was said to be a cap height in metres, with no scale to turn a
    manim size into one: the hint's figures are the default camera's view at the origin
    (a 16:9 picture, the default 640x360) against manim's frame, 8 units high."""
    cam, aspect = hf.Camera(), 16 / 9
    distance = float(np.linalg.norm(np.subtract(cam.target, cam.position)))
    seen = distance * cam.picture_width_mm(aspect) / aspect / cam.focal_length_mm
    assert seen == pytest.approx(2.025)
    with pytest.raises(UnknownAttributeError) as info:
        hf.Text("Hi").font_size = 48
    assert (f"the default camera sees {seen:.4g} m high at the origin (16:9), manim's frame "
            f"8 units: height = {seen / 8:.3g} x a height in manim's units") in str(info.value)
