"""What a scene script sets is checked when it sets it: colours (as manim and CSS users
write them, a bad one in one line, the names and the defaults), NaN, infinite and
out-of-range numbers (set, in a script's line, lighting, a 0-d NumPy array)."""

import re

import numpy as np
import pytest
from render_helpers import render_frames
from scene_check_helpers import INF, NAN, one_line
from test_render import write_scene

import hfrender as hf
from hfrender.errors import InputError, InputTypeError
from hfrender.scene.loader import SceneUpdateError


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
