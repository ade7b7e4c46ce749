"""What a scene script sets is checked when it sets it: names, colours, finite numbers, and
the camera's sensor fit (Blender's), each bad value one line with the script's file:line."""

import re
import sys

import numpy as np
import pytest
from render_helpers import render_frames
from test_render import write_scene

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError, InputTypeError
from hfrender.scene.loader import SceneError, SceneUpdateError

NAN, INF = float("nan"), float("inf")


def one_line(excinfo):
    message = str(excinfo.value)
    assert "\n" not in message
    return message


# --- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make, name, message", [
    (hf.Camera, "fstop", "Camera has no attribute 'fstop'; did you mean 'f_stop'?"),
    (hf.Camera, "focal_length", "Camera has no attribute 'focal_length'; did you mean "
                                "'focal_length_mm'?"),
    (hf.Camera, "lookat", "Camera has no attribute 'lookat'; did you mean to call look_at(...)?"),
    (hf.Sphere, "colour", "Sphere has no attribute 'colour'; did you mean 'color'?"),
    (hf.Sphere, "radious", "Sphere has no attribute 'radious'; did you mean 'radius'?"),
    (hf.Cube, "possition", "Cube has no attribute 'possition'; did you mean 'position'?"),
    (hf.Plane, "radius", "Plane has no attribute 'radius'; it has color, emissive, geometry, "
                         "opacity, parent, position, rotation, scale, shader, visible"),
    # Blender's names: a close spelling pointed elsewhere (lens: "call camera.lens(...)",
    # location: "did you mean to call projection(...)?" or 'rotation', aperture_fstop:
    # 'aperture_blades', clip_end: nothing)
    # a DoF trial: aperture_rotation / aperture_ratio suggested the internal
    # aperture_radius_m(), aperture_size the blade count, sensor_size sensor_fit
    (hf.Camera, "aperture_rotation", "Camera has no attribute 'aperture_rotation'; "
                                     "aperture_rotation is another tool's: the bokeh polygon's "
                                     "turn is fixed: a corner at 0 degrees behind the focus "
                                     "plane (hfrender docs rendering depth of field)"),
    (hf.Camera, "aperture_size", "Camera has no attribute 'aperture_size'; aperture_size is "
                                 "another tool's name (Blender's, manim's): here it is "
                                 "'f_stop'"),
    (hf.Camera, "sensor_size", "Camera has no attribute 'sensor_size'; sensor_size is another "
                               "tool's name (Blender's, manim's): here it is 'sensor_width_mm'"),
    (hf.Camera, "lens", "Camera.lens cannot be set; lens is another tool's name (Blender's, "
                        "manim's): here it is 'focal_length_mm'"),  # (was: "is a method")
    (hf.Camera, "location", "Camera has no attribute 'location'; location is another tool's "
                            "name (Blender's, manim's): here it is 'position'"),
    (hf.Sphere, "location", "Sphere has no attribute 'location'; location is another tool's "
                            "name (Blender's, manim's): here it is 'position'"),
    (hf.Camera, "aperture_fstop", "Camera has no attribute 'aperture_fstop'; aperture_fstop is "
                                  "another tool's name (Blender's, manim's): here it is 'f_stop'"),
    (hf.Camera, "clip_end", "Camera has no attribute 'clip_end'; clip_end is another tool's "
                            "name (Blender's, manim's): here it is 'far'"),
    (hf.Camera, "shutter", "Camera has no attribute 'shutter'; shutter is a render setting, not "
                           "the scene's: give --shutter DEGREES (180 by default) (or set it in "
                           "hfrender.toml)"),
    (hf.Cube, "lens", "Cube has no attribute 'lens'; it has color, emissive, geometry, "
                      "opacity, parent, position, rotation, scale, shader, visible"),
    # (nothing meant)
    # a manim/three.js user's trial: these listed every attribute, the one meant unsaid
    (hf.Camera, "fov", "Camera has no attribute 'fov'; fov is another tool's: the field of "
                       "view follows focal_length_mm on sensor_width_mm (50 on 36: 39.6 "
                       "degrees across); for A degrees across, focal_length_mm = "
                       "sensor_width_mm / (2 * tan(A / 2))"),
    # Blender's camera.angle (its field of view, radians): was the list of every attribute
    (hf.Camera, "angle", "Camera has no attribute 'angle'; angle is Blender's field of view: "
                         "here it follows focal_length_mm on sensor_width_mm (50 on 36: 39.6 "
                         "degrees across); for A radians across, focal_length_mm = "
                         "sensor_width_mm / (2 * tan(A / 2))"),
    (hf.Sphere, "angle", "Sphere has no attribute 'angle'; did you mean 'scale'?"),  # (an
    # object's angle is no camera's field of view)
    (hf.Camera, "f_number", "Camera has no attribute 'f_number'; f_number is another tool's "
                            "name (Blender's, manim's): here it is 'f_stop'"),
    (hf.Camera, "focus", "Camera has no attribute 'focus'; focus is another tool's name "
                         "(Blender's, manim's): here it is 'focus_distance'"),
    (hf.Camera, "focus_object", "Camera has no attribute 'focus_object'; focus_object is "
                                "another tool's: set focus_distance in update(t) to the "
                                "object's distance along the view axis (hfrender docs "
                                "rendering the camera)"),
    (hf.Sphere, "fill_opacity", "Sphere has no attribute 'fill_opacity'; fill_opacity is "
                                "another tool's name (Blender's, manim's): here it is "
                                "'opacity'"),
    (hf.Sphere, "transparency", "Sphere has no attribute 'transparency'; transparency is "
                                "another tool's: here it is opacity: 1 - transparency"),
    # manim's Text(font_size=48): was "did you mean 'font'?", a file name
    (hf.Text, "font_size", "Text has no attribute 'font_size'; font_size is another tool's: a "
                           "Text's size is its height, the cap height in metres (0.3 by "
                           "default), not points; the default camera sees 2.025 m high at the "
                           "origin (16:9), manim's frame 8 units: height = 0.253 x a height in "
                           "manim's units"),
    (hf.Cube, "center", "Cube has no attribute 'center'; center is another tool's name "
                        "(Blender's, manim's): here it is 'position'"),
    (hf.Cube, "size", "Cube has no attribute 'size'; size is another tool's name (Blender's, "
                      "manim's): here it is 'scale'"),
    (hf.Camera, "parent", "Camera has no attribute 'parent'; parent is another tool's: the "
                          "camera has no parent: place it in update(t) at an object's local "
                          "point, position = (obj.world_matrix() @ (x, y, z, 1))[:3], and "
                          "look_at(...) (hfrender docs rendering groups)"),
])
def test_an_unknown_attribute_raises_with_a_suggestion(make, name, message):
    obj = make()
    with pytest.raises(InputError) as excinfo:
        setattr(obj, name, 1.0)
    assert one_line(excinfo) == message
    assert isinstance(excinfo.value, AttributeError) and name not in vars(obj)


def test_render_settings_in_a_scene_class_are_said_to_be_options(tmp_path, caplog):
    """fps = 24, shutter = 90 in a scene's class body were ignored without a word (the
    render said 30 fps, 180 degrees); a scene's own state of any other name is its own."""
    path = write_scene(tmp_path, """
    class Settings(hf.Scene):
        duration = 0.1
        fps = 24
        shutter = 90
        speed = 3.0
        resolution = 64  # a grid's of its own: not a setting
        size = 3  # nor a size, or a wall's width, of its own
        width = 2.5
        transparent = True  # (a trial: these went unsaid)
        height = 720
        output = "x.mp4"

        def samples(self, n):  # a method of its own
            return n

        def setup(self):
            self.add(hf.Cube())
    """)
    with caplog.at_level("WARNING"):
        for _ in range(2):  # said once, however often the script is loaded
            render_frames(path, size=(16, 16), samples=1)
    said = "a render setting is not read from the scene; give"
    assert [r.getMessage() for r in caplog.records] == [
        f"Settings.fps: {said} --fps (or set it in hfrender.toml)",
        f"Settings.height: {said} --size WIDTHxHEIGHT (or set it in hfrender.toml)",
        f"Settings.output: {said} -o FILE (or set it in hfrender.toml)",
        f"Settings.shutter: {said} --shutter DEGREES (180 by default) (or set it in "
        "hfrender.toml)",
        f"Settings.transparent: {said} --transparent (or set it in hfrender.toml)"]


def test_a_method_is_called_not_set():
    with pytest.raises(AttributeError, match=r"^Camera.look_at is a method: call it, "
                                             r"camera.look_at\(\.\.\.\), rather than set it$"):
        hf.Camera().look_at = (0, 0, 0)


def test_a_subclass_attributes_are_known_and_suggested():
    class Ball(hf.Sphere):
        bounce: float = 0.5  # a field of the dataclass base's subclass, or plain annotation
        spin = 0.0

        @property
        def height(self):
            return self.position[1]

        @height.setter
        def height(self, y):
            self.position = (self.position[0], y, self.position[2])

    ball = Ball(color="orange")
    ball.bounce, ball.spin, ball.height, ball.radius, ball._cache = 0.8, 2.0, 3.0, 1.0, {}
    assert ball.position == (0.0, 3.0, 0.0) and ball.color == (1.0, 165 / 255, 0.0)
    with pytest.raises(InputError, match=r"^Ball has no attribute 'bounse'; did you mean "
                                         r"'bounce'\?$"):
        ball.bounse = 1.0
    with pytest.raises(InputError, match=r"^Ball has no attribute 'mass'; declare it in the "
                                         r"class body \(`mass: float = 0.0`\)"):
        ball.mass = 1.0


def test_a_scene_keeps_its_own_state_but_not_misspelt_attributes():
    class Orbit(hf.Scene):
        duration = 3.0
        background = "navy"  # checked and normalised when the class is made
        speed = 1.0

    scene = Orbit()
    # state of its own: new names, and names that extend or shorten Scene's
    scene.ball, scene.phase, scene.speed, scene.cameras, scene.object = 1, 0.3, 2.0, [], None
    scene.background_color, scene.updated, scene.duration = "x", True, 2.0
    assert Orbit.background == (0.0, 0.0, 128 / 255)
    for name, known in [("backround", "background"), ("durration", "duration"),
                        ("Duration", "duration"), ("ambiant", "ambient"),
                        ("light_directon", "light_direction"), ("camrea", "camera")]:
        with pytest.raises(InputError) as excinfo:
            setattr(scene, name, 1)
        assert one_line(excinfo) == f"Orbit has no attribute {name!r}; did you mean {known!r}?"
    scene.background = "#101820"
    assert scene.background == (16 / 255, 24 / 255, 32 / 255)
    with pytest.raises(InputError) as excinfo:
        scene.background = (0, 0, 0, 0)
    assert one_line(excinfo) == ("Orbit.background=(0, 0, 0, 0) has alpha 0; colours here are "
                                 "opaque: give (r, g, b); no background at all is background "
                                 "= None (or --transparent)")
    assert scene.background == (16 / 255, 24 / 255, 32 / 255)  # kept


@pytest.mark.parametrize("body, message", [
    ("durration = 2.0", "Bad.durration: Scene has no attribute 'durration'; did you mean "
                        "'duration'?"),
    ("def updte(self, t):\n    pass", "Bad.updte: Scene has no attribute 'updte'; did you "
                                      "mean 'update'?"),
    ("background = 'grene'", "Bad.background='grene' is not a colour; did you mean 'green'?"),
    # an alpha is told how to leave the background out (was: "give (r, g, b), or alpha 1")
    ("background = '#FF880080'", "Bad.background='#FF880080' has alpha 0.502; colours here "
                                 "are opaque: give (r, g, b); no background at all is "
                                 "background = None (or --transparent)"),
])
def test_a_scene_class_body_is_checked_when_the_class_is_made(body, message):
    namespace = {"hf": hf}
    with pytest.raises(InputError) as excinfo:
        exec("class Bad(hf.Scene):\n    " + body.replace("\n", "\n    "), namespace)
    assert one_line(excinfo) == message


# --- colours ---------------------------------------------------------------------------
@pytest.mark.parametrize("value, expected", [
    ("red", (1.0, 0.0, 0.0)), ("Orange", (1.0, 165 / 255, 0.0)),
    ("#ff8800", (1.0, 136 / 255, 0.0)), ("#f80", (1.0, 136 / 255, 0.0)),
    ("#ff8800ff", (1.0, 136 / 255, 0.0)), ("rgb(255, 136, 0)", (1.0, 136 / 255, 0.0)),
    ((1, 0.5, 0), (1.0, 0.5, 0.0)), ([0.2, 0.4, 0.6], (0.2, 0.4, 0.6)),
    (np.array([0.2, 0.4, 0.6], np.float32), tuple(np.float32([0.2, 0.4, 0.6]).tolist())),
    ((0.2, 0.4, 0.6, 1.0), (0.2, 0.4, 0.6)),  # an opaque alpha is accepted and dropped
    ("rgba(255, 136, 0, 1)", (1.0, 136 / 255, 0.0)),  # CSS's alpha runs 0..1 (a trial)
    ("rgba(255, 136, 0, 100%)", (1.0, 136 / 255, 0.0)),
    ("rgba(255, 136, 0, 255)", (1.0, 136 / 255, 0.0)),  # as PIL writes it
])
def test_colours_as_manim_and_css_users_write_them(value, expected):
    sphere = hf.Sphere(color=value)
    assert sphere.color == expected and all(type(c) is float for c in sphere.color)


COVERS = "(how much of the object covers what is behind)"


@pytest.mark.parametrize("value, error, message", [
    ("redd", InputError, "Cube.color='redd' is not a colour; did you mean 'red'?"),
    # an alpha is told to be the object's opacity (was: "give (r, g, b), or alpha 1" alone)
    ("#ff88", InputError, "Cube.color='#ff88' has alpha 0.533; colours here are opaque: "
                          f"give (r, g, b) and opacity=0.533 {COVERS}"),
    ("#ff880080", InputError, "Cube.color='#ff880080' has alpha 0.502; colours here are "
                              f"opaque: give (r, g, b) and opacity=0.502 {COVERS}"),
    ((1, 0, 0, 0.5), InputError, "Cube.color=(1, 0, 0, 0.5) has alpha 0.5; colours here are "
                                 f"opaque: give (r, g, b) and opacity=0.5 {COVERS}"),
    ((255, 136, 0), InputError, "Cube.color=(255, 136, 0): the values must be numbers 0..1; "
                                "0..255 values? write hex ('#ff8800') or divide by 255"),
    ((0.2, 0.8, 1.0012), InputError, "Cube.color=(0.2, 0.8, 1.0012): the values must be "
                                      "numbers 0..1; a value just past 0..1 (an "
                                      "interpolation's overshoot?): clamp it, min(max(v, 0), 1)"),
    ((1, 1, 1.5), InputError, "Cube.color=(1, 1, 1.5): the values must be numbers 0..1"),
    ((1, 0), InputError, "Cube.color=(1, 0) must be a name ('red'), hex ('#ff8800', '#f80') "
                         "or 3 numbers 0..1 (r, g, b)"),
    ((NAN, 0, 0), InputError, "Cube.color=(nan, 0, 0): the values must be numbers 0..1"),
    ((True, 0, 0), InputError, "Cube.color=(True, 0, 0): the values must be numbers 0..1"),
    (0.5, InputTypeError, "Cube.color=0.5 is not a colour; use a name ('red'), hex "
                          "('#ff8800', '#f80') or 3 numbers 0..1 (r, g, b)"),
    ("rgba(255, 0, 0, 0.5)", InputError, "Cube.color='rgba(255, 0, 0, 0.5)' has alpha 0.5; "
                                         "colours here are opaque: give (r, g, b) and "
                                         f"opacity=0.5 {COVERS}"),
    ("rgb(1000, 1000, 1000)", InputError, "Cube.color='rgb(1000, 1000, 1000)': an rgb() "
                                          "colour's values are 0..255 (or 0%..100%)"),  # a light
])
def test_a_bad_colour_is_one_line_naming_the_object_and_value(value, error, message):
    cube = hf.Cube()
    with pytest.raises(error) as excinfo:
        cube.color = value
    assert one_line(excinfo) == message and cube.color == (0.8, 0.8, 0.8)


# --- numbers ----------------------------------------------------------------------------
@pytest.mark.parametrize("make, name, value, message", [
    (hf.Sphere, "position", (0, NAN, 0), "Sphere.position=(0, nan, 0) must be 3 finite "
                                          "numbers (x, y, z) in metres"),
    (hf.Cube, "rotation", (0, 0, INF), "Cube.rotation=(0, 0, inf) must be 3 finite numbers "
                                       "(x, y, z) in radians"),
    (hf.Cube, "scale", NAN, "Cube.scale=nan must be a finite number, or 3 (x, y, z)"),
    (hf.Plane, "scale", (1, NAN, 1), "Plane.scale=(1, nan, 1) must be 3 finite numbers "
                                     "(x, y, z), or one number"),
    (hf.Sphere, "radius", NAN, "Sphere.radius=nan must be a finite number >= 0"),
    # past 1e18: was drawn nowhere, or lit wrong, with NumPy's overflow warning
    (hf.Cube, "scale", 1e20, "Cube.scale=1e+20: 1e+20 is past 1e+18, more than the GPU's "
                             "float32 can draw; scale the scene down (and camera.far with it)"),
    (hf.Plane, "scale", (1, -3e19, 1), "Plane.scale=(1, -3e+19, 1): 3e+19 is past 1e+18, more "
                                       "than the GPU's float32 can draw; scale the scene down "
                                       "(and camera.far with it)"),
    (hf.Sphere, "radius", 1e30, "Sphere.radius=1e+30: 1e+30 is past 1e+18, more than the "
                                "GPU's float32 can draw; scale the scene down (and camera.far "
                                "with it)"),
    (hf.Sphere, "position", (0, 0, 2e18), "Sphere.position=(0, 0, 2e+18): 2e+18 is past "
                                          "1e+18, more than the GPU's float32 can draw; scale "
                                          "the scene down (and camera.far with it)"),
    # each of the three checked on a particle's fast path (a tuple of 3 plain numbers)
    (hf.Sphere, "position", (1, -2e18, 0.5), "Sphere.position=(1, -2e+18, 0.5): 2e+18 is past "
                                             "1e+18, more than the GPU's float32 can draw; "
                                             "scale the scene down (and camera.far with it)"),
    (hf.Cube, "position", (0.5, 1, True), "Cube.position=(0.5, 1, True) must be 3 finite "
                                          "numbers (x, y, z) in metres"),
    (hf.Cube, "rotation", (NAN, 1, 0.5), "Cube.rotation=(nan, 1, 0.5) must be 3 finite "
                                         "numbers (x, y, z) in radians"),
    (hf.Sphere, "emissive", INF, "Sphere.emissive=inf must be a finite number >= 0"),
    (hf.Cube, "emissive", -5, "Cube.emissive=-5 must be a finite number >= 0"),  # was black
    (hf.Camera, "position", np.array([0.0, NAN, 1.0]), "camera.position=[0.0, nan, 1.0] "
                                                       "must be 3 finite numbers (x, y, z) "
                                                       "in metres"),
    (hf.Camera, "target", (0, 0), "camera.target=(0, 0) must be 3 finite numbers (x, y, z) "
                                  "in metres"),
    (hf.Camera, "up", (0, INF, 0), "camera.up=(0, inf, 0) must be 3 finite numbers (x, y, z)"),
    # was replaced, unsaid, by another up (a picture turned a quarter)
    (hf.Camera, "up", (0, 0, 0), "camera.up=(0, 0, 0) must be a non-zero vector (x, y, z): the "
                                 "way the top of the picture points"),
    # an object where a point is meant (Blender's "track to"; was its repr, cut short)
    (hf.Camera, "target", hf.Sphere(), "camera.target=Sphere(...): a point, not an object: "
                                       "give its position (e.g. self.ball.position), set in "
                                       "update(t) to follow it as it moves"),
    (hf.Cube, "position", hf.Cube(), "Cube.position=Cube(...): a point, not an object: give "
                                     "its position (e.g. self.ball.position), set in "
                                     "update(t) to follow it as it moves"),
    (hf.Camera, "focus_distance", NAN, "camera.focus_distance=nan must be a distance > 0 in "
                                       "metres, or inf"),
    (hf.Camera, "focus_distance", -INF, "camera.focus_distance=-inf must be a distance > 0 in "
                                        "metres, or inf"),
    (hf.Camera, "focus_distance", "3", "camera.focus_distance='3' must be a distance > 0 in "
                                       "metres, or inf"),
    (hf.Camera, "f_stop", NAN, "camera.f_stop=nan must be None (a pinhole) or a finite number "
                               "> 0"),
    (hf.Camera, "focal_length_mm", INF, "camera.focal_length_mm=inf must be a finite number "
                                        "> 0"),
    (hf.Camera, "sensor_width_mm", 0, "camera.sensor_width_mm=0 must be a finite number > 0"),
    (hf.Camera, "near", -1.0, "camera.near=-1.0 must be a finite number > 0"),
    (hf.Camera, "aperture_blades", 2, "camera.aperture_blades=2 must be 0 (round) or between "
                                      "3 and 64"),
    (hf.Sphere, "visible", "False", "Sphere.visible='False' must be True or False"),  # drawn
    (hf.Sphere, "shader", 123, "Sphere.shader=123 must be a shader's name or file (such as "
                               "'toon' or 'glow.glsl'), or None for the built-in lighting"),
    (hf.Cube, "geometry", "cylinder", "Cube.geometry='cylinder' must be one of 'cube', "
                                      "'plane', 'sphere'"),  # (an internal error when drawn)
])
def test_nan_infinite_and_out_of_range_values_are_refused_when_set(make, name, value,
                                                                     message):
    obj = make()
    before = getattr(obj, name)
    with pytest.raises(InputError) as excinfo:
        setattr(obj, name, value)
    assert one_line(excinfo) == message and getattr(obj, name) == before


def test_good_values_are_stored_as_floats():
    cube = hf.Cube(position=np.array([1, 2, 3]), scale=np.float32(2), rotation=[0, 1, 0])
    assert cube.position == (1.0, 2.0, 3.0) and cube.rotation == (0.0, 1.0, 0.0)
    assert cube.scale == 2.0 and type(cube.scale) is float
    camera = hf.Camera(f_stop=None, focal_length_mm=85, sensor_fit="VERTICAL")
    camera.look_at([0, 1, 0])
    assert camera.target == (0.0, 1.0, 0.0) and camera.sensor_fit == "vertical"


# --- end to end: the script's file:line, t and the frame -------------------------------------
@pytest.mark.parametrize("setup, update, message", [
    ("self.camera.fstop = 1.4", "pass",
     r"^scene error in setup\(\): UnknownAttributeError: Camera has no attribute 'fstop'; "
     r"did you mean 'f_stop'\? \(\S*scene.py:10\)$"),
    ("pass", "self.ball.color = 'redd' if t > 0.05 else 'red'",
     r"^scene error in update\(t\) at t=0\.0\d+ s \(output frame 2\): InputError: "
     r"Sphere.color='redd' is not a colour; did you mean 'red'\? \(\S*scene.py:12\)$"),
    ("pass", "self.ball.position = (0, 0, math.nan if t > 0.05 else 0)",
     r"^scene error in update\(t\) at t=0\.0\d+ s \(output frame 2\): InputError: "
     r"Sphere.position=\(0, 0, nan\) must be 3 finite numbers \(x, y, z\) in metres "
     r"\(\S*scene.py:12\)$"),
    ("pass", "self.camera.focus_distance = -math.inf",
     r"^scene error in update\(t\) at t=0 s \(output frame 0\): InputError: "
     r"camera.focus_distance=-inf must be a distance > 0 in metres, or inf "
     r"\(\S*scene.py:12\)$"),
    # within the focal length: refused only when the lens is made, told at the line anyway
    ("self.camera.f_stop = 2.8", "self.camera.focus_distance = 0.2 - 2.5 * t",
     r"^scene error in the camera at t=0\.0\d+ s \(output frame 2\): InputError: "
     r"camera.focus_distance=0\.0\d{1,6} must be a distance in metres greater than the focal "
     r"length \(0\.05 m, a 50 mm lens\), or inf \(\S*scene.py:12\)$"),
])
def test_a_bad_value_in_a_script_names_its_line_t_and_frame(tmp_path, setup, update, message):
    path = write_scene(tmp_path, f"""
    class Tiny(hf.Scene):
        duration = 0.1
        background = "black"
        def setup(self):
            self.ball = self.add(hf.Sphere(color="white"))
            {setup}
        def update(self, t):
            {update}
    """)
    with pytest.raises(SceneUpdateError) as excinfo:
        render_frames(path, size=(16, 16), samples=2)
    assert re.search(message, one_line(excinfo))


def test_a_misspelt_class_attribute_names_the_scene_file(tmp_path):
    path = write_scene(tmp_path, """
    class Typo(hf.Scene):
        backround = (0, 0, 0)
    """)
    with pytest.raises(SceneError, match=r"Typo.backround: Scene has no attribute 'backround'; "
                                         r"did you mean 'background'\? \(\S*scene.py:6\)$"):
        render_frames(path, size=(16, 16), samples=1)  # line 6: the attribute's, not the class's


def test_colour_names_render(tmp_path):
    path = write_scene(tmp_path, """
    class Named(hf.Scene):
        duration = 0.04
        background = "#0000ff"
        ambient = 1.0
        def setup(self):
            self.add(hf.Plane(scale=0.5, color="red"))
            self.camera.position = (0, 0, 1)
    """)
    frames, _ = render_frames(path, size=(16, 16), samples=1, antialias=False)
    assert tuple(frames[0, 0, 0]) == (0, 0, 255) and tuple(frames[0, 8, 8]) == (255, 0, 0)


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


def test_camera_distances_stay_checked_at_every_sub_frame():
    camera = hf.Camera(f_stop=2.0)
    camera.focus_distance = 0.01  # finite and > 0, but within the 50 mm focal length
    with pytest.raises(InputError, match=r"focus_distance=0.01 must be a distance in metres"):
        camera.validate()


SHARE = r"\(the share of an object's colour lit where the light does not reach\)"


@pytest.mark.parametrize("name, value, message", [
    # one rule below 0 and past 1 (was: -0.1 and nan told "must be a finite number >= 0")
    ("ambient", float("nan"), rf"^S\.ambient=nan must be a number 0\.\.1 {SHARE}$"),
    ("ambient", -0.1, rf"^S\.ambient=-0\.1 must be a number 0\.\.1 {SHARE}$"),
    ("ambient", 5, rf"^S\.ambient=5 must be a number 0\.\.1 {SHARE}$"),
    ("ambient", "0.5", rf"^S\.ambient='0\.5' must be a number 0\.\.1 {SHARE}$"),
    ("light_direction", (0, 0, 0), r"^S\.light_direction=\(0, 0, 0\) has no direction \(a "),
    ("light_direction", (1, float("inf"), 0), r"^S\.light_direction=\(1, inf, 0\) must be 3 "
                                              r"finite numbers \(x, y, z\) towards the light$"),
])
def test_lighting_is_checked_where_the_script_sets_it(name, value, message):
    """A NaN ambient drew every object black without a word; set in setup() or in the class
    body, a bad value is one line naming it."""
    class S(hf.Scene):
        pass

    with pytest.raises(hf.InputError, match=message):
        setattr(S(), name, value)
    with pytest.raises(hf.InputError, match=message):
        type("S", (hf.Scene,), {name: value})
    scene = S()
    setattr(scene, name, np.array(0.5) if name == "ambient" else np.array([0, 2, 0]))
    assert getattr(scene, name) == (0.5 if name == "ambient" else (0.0, 2.0, 0.0))


def test_a_scenes_line_is_found_past_hfrenders_own_frames(tmp_path):
    """caller_line skips hfrender's files and generated ones (a dataclass's __init__), and
    only those: a scene in a folder whose name begins like hfrender's is the scene's, and
    hfrender's own files seen through a symlink are still its own."""
    import os
    import sys
    from pathlib import Path

    from hfrender.scene import checks, objects

    package = Path(objects.__file__).resolve().parents[1]
    assert checks._ours(objects.__file__) and checks._ours("<string>")
    assert not checks._ours(str(package.parent / "hfrender_scenes" / "scene.py"))
    link = tmp_path / "linked"
    os.symlink(package, link)
    assert checks._ours(str(link / "scene" / "objects.py"))
    cube, line = hf.Cube(shader="toon"), sys._getframe().f_lineno  # through its __init__
    assert cube._shader_at == f"{__file__}:{line}"


def test_a_camera_is_aimed_and_its_depth_range_runs_near_to_far():
    """A trial's: the camera's rotation was hinted as projection(...), its near past its far
    drew the scene upside down in depth (near == far: a ZeroDivisionError)."""
    cam = hf.Camera()
    with pytest.raises(InputError) as excinfo:
        cam.rotation = (0, 0.5, 0)
    assert one_line(excinfo) == ("Camera has no attribute 'rotation'; it is aimed, not "
                                 "turned: look_at((x, y, z)), or set its target")
    with pytest.raises(InputError, match=r"here it is 'aperture_blades'$"):
        cam.blades = 6
    for near, far in ((20.0, 0.1), (1.0, 1.0)):
        cam.near, cam.far = near, far
        line = sys._getframe().f_lineno - 1
        with pytest.raises(InputError) as excinfo:
            cam.validate()
        assert one_line(excinfo) == (f"camera.near={near:g} must be less than camera.far="
                                     f"{far:g}: what is drawn lies between them")
        assert excinfo.value.where.endswith(f"test_scene_checks.py:{line}")  # far's, set last
    cam.near, cam.far = 0.1, 20.0
    cam.validate()


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


def test_reading_another_tools_name_is_told_too():
    """Blender's camera.dof.focus_distance read: a bare AttributeError (a DoF trial)."""
    from hfrender.scene.checks import UnknownAttributeError

    with pytest.raises(UnknownAttributeError, match=r"^Camera has no attribute 'dof'; depth of "
                                                    r"field is on where the camera has an "
                                                    r"f-stop"):
        hf.Camera().dof  # noqa: B018
    with pytest.raises(AttributeError, match=r"^'Sphere' object has no attribute 'wobble'$"):
        hf.Sphere().wobble  # noqa: B018
    assert getattr(hf.Sphere(), "location", "none") == "none"  # getattr's default still works
    with pytest.raises(UnknownAttributeError, match=r"^Camera has no attribute 'angle_x'; "
                                                    r"angle_x is Blender's field of view"):
        hf.Camera().angle_x  # noqa: B018  (Blender's, read: was Python's error alone)
    with pytest.raises(AttributeError, match=r"^'Sphere' object has no attribute 'angle'$"):
        hf.Sphere().angle  # noqa: B018


def test_a_propertys_own_missing_name_is_the_one_told():
    """Reading another tool's names gives a hint (camera.dof); any other missing name keeps
    Python's own error, a property's inner one included (a review: the property's name
    was told instead of the typo inside it)."""
    class Lamp(hf.Sphere):
        @property
        def glow(self):
            return self.brightnes * 2

    with pytest.raises(AttributeError, match="brightnes"):
        Lamp().glow  # noqa: B018


def test_a_scenes_own_size_or_output_is_no_render_setting(tmp_path, caplog):
    """A review's: a plane's size = (2.0, 1.0) metres, a mix's output = 0.8 or "mix", a
    height = 100 were told they are render settings."""
    path = write_scene(tmp_path, """
    class Own(hf.Scene):
        duration = 0.1
        size = (2.0, 1.0)
        output = 0.8
        height = 100

        def setup(self):
            self.mode = "mix"
    """)
    with caplog.at_level("WARNING"):
        render_frames(path, size=(16, 16), samples=1)
    assert [r.getMessage() for r in caplog.records if "render setting" in r.getMessage()] == []


def test_the_default_colours_are_those_the_docs_give():
    """docs/rendering.md names them (a manim user's trial found a white-looking default
    sphere was 0.8 grey, said nowhere): light grey for the shapes, white for a text."""
    assert hf.Sphere().color == hf.Cube().color == hf.Plane().color == (0.8, 0.8, 0.8)
    assert hf.Text("Hi").color == (1.0, 1.0, 1.0)


def test_a_numpy_0d_array_is_taken_as_its_number():
    """``radius=np.array(0.7)`` (a 0-d array, as np.clip or np.interp of arrays give) is
    0.7 (was refused as 'Sphere.emissive=2.0 must be a finite number >= 0': a number it
    showed as allowed); a 0-d array of a bad value is refused naming it."""
    ball = hf.Sphere(radius=np.array(0.7), emissive=np.array(2.0))
    assert (ball.radius, ball.emissive) == (0.7, 2.0)
    assert type(ball.emissive) is float
    with pytest.raises(InputError, match=r"^Sphere\.emissive=-1\.0 must be a finite number >= 0$"):
        hf.Sphere(emissive=np.array(-1.0))
