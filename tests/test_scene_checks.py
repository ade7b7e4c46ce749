"""What a scene script sets is checked when it sets it: names (an unknown attribute with a
suggestion, render settings in a scene's class, another tool's names, a scene's own size or
output) and the scene's line an error names. Values and colours are in
test_scene_value_checks.py, the camera's framing and aim in test_scene_camera_checks.py."""

import sys

import pytest
from render_helpers import render_frames
from scene_check_helpers import one_line
from test_render import write_scene

import hfrender as hf
from hfrender.errors import InputError
from hfrender.scene.loader import SceneError


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


def test_a_misspelt_class_attribute_names_the_scene_file(tmp_path):
    path = write_scene(tmp_path, """
    class Typo(hf.Scene):
        backround = (0, 0, 0)
    """)
    with pytest.raises(SceneError, match=r"Typo.backround: Scene has no attribute 'backround'; "
                                         r"did you mean 'background'\? \(\S*scene.py:6\)$"):
        render_frames(path, size=(16, 16), samples=1)  # line 6: the attribute's, not the class's


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
