"""Other tools' names (Blender's, manim's) for what hfrender has under a name of its own,
or has not, and the render settings a scene's class body may set by mistake: the tables
:mod:`hfrender.scene.checks` hints from when a script sets or reads such a name, a scene
its methods (``self.play``) and the package its names (``hf.FadeIn``, ``hf.Box``)."""

from __future__ import annotations

import ast
import linecache
import re
from types import TracebackType

from hfrender.errors import spelling

# other tools' names (Blender's, manim's) for what hfrender calls otherwise: suggested when
# the class has the name meant (a close spelling would point elsewhere: location, rotation)
OTHER_NAMES = {"lens": "focal_length_mm", "location": "position", "aperture_fstop": "f_stop",
               "clip_start": "near", "clip_end": "far", "hide_render": "visible",
               "fill_color": "color", "emission_strength": "emissive",
               "ortho_scale": "ortho_height", "blades": "aperture_blades",
               "aperture": "f_stop", "dof": "f_stop", "use_dof": "f_stop",
               "aperture_size": "f_stop", "sensor_size": "sensor_width_mm",
               "sensor_width": "sensor_width_mm", "sensor_height": "sensor_height_mm",
               "f_number": "f_stop", "fnumber": "f_stop", "focus": "focus_distance",
               "center": "position", "size": "scale", "side_length": "scale",
               "fill_opacity": "opacity", "alpha": "opacity",
               "base_radius": "radius", "major_radius": "radius", "minor_radius": "tube"}
# another tool's names of what hfrender has not (was: "did you mean aperture_radius_m?")
NOT_HERE = {"aperture_rotation": "the bokeh polygon's turn is fixed: a corner at 0 degrees "
                                 "behind the focus plane (hfrender docs rendering depth of "
                                 "field)",
            "aperture_ratio": "the aperture is round or a regular polygon: no anamorphic "
                              "ratio",
            "focus_object": "set focus_distance in update(t) to the object's distance along "
                            "the view axis (hfrender docs rendering the camera)",
            "parent": "the camera has no parent: place it in update(t) at an object's "
                      "local point, position = (obj.world_matrix() @ (x, y, z, 1))[:3], and "
                      "look_at(...) (hfrender docs rendering groups)"}
_FOLLOWS = ("follows focal_length_mm on sensor_width_mm (50 on 36: 39.6 degrees across); for "
            "A {} across, focal_length_mm = sensor_width_mm / (2 * tan(A / 2))")
_FOV = "the field of view " + _FOLLOWS.format("degrees")
NOT_HERE.update(dict.fromkeys(("fov", "field_of_view", "zoom"), _FOV))
# Blender's camera's field of view, in radians (a camera's alone: an object's angle is not)
BLENDER_FOV = dict.fromkeys(("angle", "angle_x", "angle_y"),
                            "Blender's field of view: here it " + _FOLLOWS.format("radians"))
NOT_HERE.update(transparency="here it is opacity: 1 - transparency", font_size="a Text's size "
                "is its height, the cap height in metres (0.3 by default), not points; the "
                "default camera sees 2.025 m high at the origin (16:9), manim's frame 8 units: "
                "height = 0.253 x a height in manim's units")  # (tests: from hf.Camera())
TURNS = ("rotation", "rotation_euler", "orientation", "rotate")  # a camera is aimed, not
# turned (manim's camera.rotate too)
# a render's settings, which a scene does not hold: the settings that set them, and a
# stand-in for the value (None: a switch; "": named alone) and what follows
_SHUTTER = ("shutter", "DEGREES", " (180 by default)")
RENDER_OPTIONS = {"shutter": _SHUTTER, "shutter_angle": _SHUTTER,
                  "motion_blur_shutter": _SHUTTER, "fps": ("fps", "", ""),
                  "frame_rate": ("fps", "", ""), "samples": ("samples", "", ""),
                  "resolution": ("size", "WIDTHxHEIGHT", "")}
# and in a scene's class body (an object's size or width is no render setting)
CLASS_SETTINGS = {**RENDER_OPTIONS, "size": ("size", "WIDTHxHEIGHT", ""),
                  "width": ("size", "WIDTHxHEIGHT", ""), "height": ("size", "WIDTHxHEIGHT", ""),
                  "transparent": ("transparent", None, ""), "output": ("output", "FILE", "")}


def setting_said(name: str) -> str:
    """The render setting a scene's ``name`` means, as its caller names settings: ``--size
    WIDTHxHEIGHT``, ``--fps``, ``--transparent`` to the command; ``size=WIDTHxHEIGHT``,
    ``fps``, ``transparent=True`` to hf.render (was the flags to both)."""
    key, stand_in, after = CLASS_SETTINGS[name]
    said = spelling()
    return (said.on(key) if stand_in is None else said.form(key, stand_in) if stand_in
            else said.name(key)) + after
PIXELS = ("resolution", "size")  # a pair, or "WxH": other values are a scene's own


def looks_like_setting(name: str, value: object) -> bool:
    """Whether a scene class's ``name = value`` looks meant as the render setting of that
    name (``fps = 24``, ``resolution = (1920, 1080)``), not as the scene's own (a method,
    a grid's ``resolution = 64``)."""
    if callable(value) or hasattr(value, "__get__"):
        return False
    if name in PIXELS:  # "1920x1080", (1920, 1080): not a plane's (2.0, 1.0) metres
        if isinstance(value, str):
            return "x" in value
        pair = isinstance(value, (tuple, list)) and len(value) == 2
        return pair and (name == "resolution" or all(_pixels(v, 16) for v in value))
    if name in ("width", "height"):  # pixels (width = 320), not a wall's metres (2.5)
        return _pixels(value, 144)
    if name == "transparent":
        return isinstance(value, bool)
    if name == "output":  # a file's name, not a mix's level (0.8) or a mode ("mix")
        return isinstance(value, str) and ("%" in value or "." in value.rsplit("/", 1)[-1])
    return isinstance(value, (int, float, str)) and not isinstance(value, bool)


def _pixels(value: object, least: int) -> bool:
    """Whether ``value`` reads as a count of pixels: a whole number, at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


# manim's methods and attributes of an object (a Mobject's), which hfrender's objects have
# not: what to do instead (said on reading, calling or setting one), where the class has
# the field named first (a camera has no colour: Python's own error there)
_FROM_T = "from t in update(t)"
MANIM = {
    "move_to": ("position", f"set position = (x, y, z) {_FROM_T}"),
    "next_to": ("position", "hf.next_to(obj, other, (0, 1, 0), buff=0.25) places obj's box "
                            "beside other's (above it, 0.25 m between), a function here, in "
                            "setup() or in update(t) (hfrender docs rendering layout)"),
    "shift": ("position", f"set position {_FROM_T} (x0 + 0.5 * t, y0, z0), not added to each "
                          "frame"),
    "rotate": ("rotation", f"set rotation = (x, y, z), radians about x, then y, then z, "
                           f"{_FROM_T}"),
    "set_color": ("color", "set color = ... (a name, '#ffcc00' or 3 numbers 0..1)"),
    "set_fill": ("color", "set color = ... and opacity = 0..1"),
    "set_opacity": ("opacity", f"set opacity = 0..1, {_FROM_T} to fade"),
    "animate": ("position", "hfrender has no play(); set the field from t in update(t) "
                            "(hf.smooth for easing)"),
    "get_center": ("world_matrix", "position (world: obj.world_matrix()[:3, 3])"),
    "become": ("color", "set this one's fields from the other's in update(t) (position, "
                           "rotation, scale, color), or fade one out and one in by opacity"),
    "add_updater": ("position", "update(t) is the updater of every object: set its fields "
                                "there"),
    "width": ("scale", None), "height": ("scale", None),  # (size_hint: per class)
    "direction": ("rotation", "a Cylinder, Cone or Torus stands along y here (y up): turn "
                              "it by rotation, radians about x, then y, then z "
                              "(rotation=(math.pi / 2, 0, 0) lays its axis along z)"),
}
MANIM.update(dict.fromkeys(("remove_updater", "clear_updaters"), MANIM["add_updater"]))
# manim's VGroup's fields and methods, which a Group (a frame, never drawn) has not: its
# objects' own fields, set one by one (was: "'Group' object has no attribute 'set_color'"
# alone, a trial); its opacity and visible are its own (set_opacity: MANIM's hint)
_EACH = ("a Group is a frame, never drawn: it has no {0} of its own (its opacity and "
         "visible pass to its objects, not this); set each object's, for obj in "
         "group.children: obj.{0} = ... (in update(t) to change it)")
GROUP = {**{n: _EACH.format(f) for n, f in (
    ("color", "color"), ("set_color", "color"), ("set_fill", "color"),
    ("fill_color", "color"), ("emissive", "emissive"), ("shader", "shader"))},
    "fade": "manim's fade(darkness) is group.opacity = 1 - darkness here (it multiplies its "
            "objects' own), set from t in update(t)",
    "submobjects": "manim's submobjects are group.children here, a list",
    "arrange": "manim's group.arrange(RIGHT, buff=0.25) is hf.arrange(group, (1, 0, 0), "
               "buff=0.25) here, a function: its objects' boxes side by side, centred on "
               "center=(0, 0, 0) in the group's frame (hfrender docs rendering layout)",
    "remove": "manim's remove is obj.parent = None here, out of the group (it stays in the "
              "scene: obj.visible = False hides it)"}
# read (missing): hinted
HINTED = frozenset((*OTHER_NAMES, *NOT_HERE, *TURNS, *MANIM, *GROUP, *BLENDER_FOV))


# the message of manim's animations, said of its names (hf.FadeIn) and a scene's play()
_NO_PLAY = "there are no animations to play: "
_T_ALONE = "update(t) sets every object from t alone"
_PURE = f"{_T_ALONE}, over the scene's duration (hfrender docs rendering scenes)"
# manim's methods of a scene, which hfrender's Scene has not: what is done instead
SCENE_METHODS = {
    "remove": "objects stay once added: hide one from a time in update(t), obj.visible = t "
              "< t1",
    "play": f"{_NO_PLAY}{_PURE}",
    "wait": f"there is nothing to wait for: {_PURE}",
}


# names other tools give what hfrender calls otherwise (manim, Blender, three.js): hf.Box
HF_NAMES = {"Box": "Cube", "Cuboid": "Cube", "Ball": "Sphere", "UVSphere": "Sphere",
            "Quad": "Plane", "Square": "Plane", "Rectangle": "Plane", "Model": "Mesh",
            "load_mesh": "Mesh.load", "interpolate": "lerp", "mix": "lerp",
            "Keyframe": "Keyframes", "keyframe": "keyframes", "ease_in_quad": "ease_in",
            "ease_out_quad": "ease_out", "VGroup": "Group", "Group3D": "Group",
            "Empty": "Group"}


# manim's (and three.js') names of what hfrender does otherwise, or not at all: hf.FadeIn
_RADIANS = "angles are radians: math.radians(90) for manim's 90 * DEGREES"
_AXES = ("positions are (x, y, z) in metres, y up: UP is (0, 1, 0), RIGHT (1, 0, 0), OUT "
         "(0, 0, 1) towards the default camera")
_EASING = ("the rate functions are hf.linear, hf.smooth, hf.ease_in, hf.ease_out, "
           "hf.ease_in_out, hf.there_and_back, hf.rush_into and hf.rush_from (any function of "
           "s in 0..1 is one too): hfrender docs rendering easing")
_SHAPES = ("the built-in shapes are hf.Plane, hf.Cube, hf.Sphere, hf.Cylinder, hf.Cone and "
           "hf.Torus (and hf.Text); others are models (hf.Mesh.load), and a flat one a thin "
           "hf.Cube or hf.Cylinder (a disc)")
_LIGHTS = ("the directional light (Blender's Sun) is the scene's light_direction, "
           "light_strength, light_color and ambient (its shadows = True casts shadows, "
           "light_angle = 10 softens them as an area light's); lamps are hf.PointLight and "
           "hf.SpotLight, added with self.add (up to 8)")
_ANIMATIONS = (f"{_NO_PLAY}{_T_ALONE} (a fade in over 1 s: obj.opacity = hf.smooth(t)): "
               "hfrender docs rendering scenes")
_TRACKERS = ("a value that changes is a function of t: compute it in update(t) (hf.lerp, "
             "hf.Keyframes) and set the objects from it; update(t) runs for every sub-frame")
HF_HINTS = {**dict.fromkeys(("DEGREES", "DEG"), _RADIANS), "PI": "use math.pi",
            **dict.fromkeys(("FadeIn", "FadeOut", "Create", "Uncreate", "Write", "Unwrite",
                             "DrawBorderThenFill", "GrowFromCenter", "Transform",
                             "ReplacementTransform", "Rotate", "Rotating", "MoveAlongPath",
                             "Animation", "AnimationGroup", "Succession", "LaggedStart",
                             "Indicate"), _ANIMATIONS),
            **dict.fromkeys(("ValueTracker", "always_redraw"), _TRACKERS),
            "TAU": "use math.tau",
            **dict.fromkeys(("UP", "DOWN", "LEFT", "RIGHT", "OUT", "IN", "ORIGIN"), _AXES),
            **dict.fromkeys(("rate_functions", "ease_in_out_sine", "ease_in_sine",
                             "ease_out_sine", "ease_in_out_quad", "ease_in_cubic",
                             "ease_out_cubic", "ease_in_out_cubic", "double_smooth",
                             "there_and_back_with_pause", "running_start", "lingering",
                             "slow_into", "wiggle"), _EASING),
            "smoothstep": "hf.ease_in_out is the smoothstep, 3 s**2 - 2 s**3",
            **dict.fromkeys(("Tex", "MathTex", "LaTeX", "Latex"), "there is no TeX: text is "
                            "hf.Text('E = mc²', font='DejaVuSans.ttf') (Unicode in a font "
                            "that has it: an installed font by its file's name, or a .ttf "
                            "beside the scene; not TeX's layout; a formula made elsewhere "
                            "can be a model, hf.Mesh.load)"),
            **dict.fromkeys(("Circle", "Line", "Dot", "Arrow", "Prism", "Polygon"), _SHAPES),
            **dict.fromkeys(("Light", "DirectionalLight", "AmbientLight", "SunLight",
                             "AreaLight"), _LIGHTS),
            "Material": "an object's look is its color, emissive and shader"}


def size_hint(names: frozenset[str]) -> str:
    """What sets the size of an object of a class with ``names`` (manim's width/height)."""
    if "tube" in names:
        return ("a torus's size is radius (to the tube's middle) and tube (the tube's "
                "radius), metres (times scale)")
    if "height" in names and "radius" in names:
        return "its size is radius and height, metres (times scale)"
    if "radius" in names:
        return "a sphere's size is radius, metres (times scale)"
    if "text" in names:
        return ("a Text's size is its height, the cap height in metres; its width follows "
                "from the text")
    return ("its size is scale (a cube or plane is 1 m a side at 1, a model its file's size; "
            "3 numbers (x, y, z) stretch it)")


_AS_LIST = re.compile(r"'Group' object is not (iterable|subscriptable)|object of type 'Group' "
                      r"has no len\(\)|.*argument after \* must be an iterable, not Group")


def group_as_list(exc: BaseException) -> str:
    """"; a Group's objects are group.children, ..." where ``exc`` is a script's use of a
    Group as a list, as manim's VGroup is one (was: "TypeError: 'Group' object is not
    iterable" alone); else ``""``."""
    if not (isinstance(exc, TypeError) and _AS_LIST.fullmatch(str(exc))):
        return ""
    return ("; a Group's objects are group.children, a list (manim's VGroup is a list "
            "itself): for obj in group.children")


_NOT_CALLABLE = re.compile(r"'(float|int|tuple|str|bool|NoneType)' object is not callable")


def called_field(exc: BaseException) -> str:
    """"; scale is a field here, ..." where ``exc`` is a script's call of a field of
    hfrender's objects, as manim's methods are called (``obj.scale(2)``: was "TypeError:
    'float' object is not callable" alone); else ``""``."""
    if not (isinstance(exc, TypeError) and _NOT_CALLABLE.fullmatch(str(exc))):
        return ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:  # the call that failed: the deepest
        tb = tb.tb_next
    name = _callee(tb) if tb is not None else None
    if name not in _fields():
        return ""
    doubles = (" (manim's scale(2) doubles; here scale = 2 is twice the shape's own size)"
               if name == "scale" else "")
    return (f"; {name} is a field here, not a method: set it, obj.{name} = ..., from t in "
            f"update(t){doubles}")


def _callee(tb: TracebackType) -> str | None:
    """The attribute called by ``tb``'s instruction (``scale`` of ``self.ball.scale(2)``),
    read from its source: the call's columns (Python 3.11), or a line of one such call."""
    code = tb.tb_frame.f_code
    line = linecache.getline(code.co_filename, tb.tb_lineno)
    positions = getattr(code, "co_positions", None)
    at = list(positions())[tb.tb_lasti // 2] if positions is not None else None
    if at is not None and at[0] == at[1] == tb.tb_lineno and None not in at[2:]:
        text = line.encode()[at[2]:at[3]].decode(errors="replace")  # (columns: bytes)
        try:
            call = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            call = None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            return call.func.attr
    called = set(re.findall(r"\.(\w+)\s*\(", line)) & _fields()
    return called.pop() if len(called) == 1 else None


def _fields() -> frozenset[str]:
    """What a script sets on hfrender's objects and camera."""
    from hfrender.scene import camera, checks, meshes, nodes, objects, text

    return frozenset().union(*(checks.settable_names(c) for c in (
        objects.Cube, objects.Sphere, objects.Cylinder, objects.Torus, text.Text, meshes.Mesh,
        camera.Camera, nodes.Group)))
