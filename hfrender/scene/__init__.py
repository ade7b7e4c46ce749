"""Scenes: what is drawn, as a pure function of time.

A scene script subclasses :class:`Scene`: ``setup()`` builds it once per process,
``update(t)`` sets *all* state from ``t`` alone. That is what lets hfrender draw any
sub-frame time in any order, split a render into chunks, and resume exactly.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import math
import sys
from pathlib import Path
from typing import Any

from hfrender.color import display_color, shown, srgb_color
from hfrender.errors import InputError, InputTypeError
from hfrender.scene import checks, other_names
from hfrender.scene.camera import Camera
from hfrender.scene.lamps import (
    Lamp,
    PointLight,
    SpotLight,
    lamps_of,
    lit_now,
    most_light,
    put,
)
from hfrender.scene.nodes import Group, called
from hfrender.scene.objects import Cone, Cube, Cylinder, Object3D, Plane, Sphere, Torus, drawn
from hfrender.scene.shader_passes import ShaderPass, buffer_passes
from hfrender.validate import integer

log = logging.getLogger(__name__)
_SAID: set[tuple[str, str, str]] = set()  # render settings in a class body, said once
# the camera's own settings, by names no scene's state is likely to take: on the scene
# they are its own, and read by nothing (f_stop = 1.4 in a class body: no depth of field)
CAMERA_ONLY = ("f_stop", "focal_length_mm", "aperture_blades", "sensor_width_mm",
               "sensor_height_mm", "sensor_fit", "ortho_height")


def say_camera_settings(scene: Scene) -> None:
    """A warning, once a class, for each name of :data:`CAMERA_ONLY` that the scene holds
    (``f_stop = 1.4`` in its class body, ``self.focal_length_mm = 85``) at a value its
    camera does not have: the camera's setting, which the render reads from ``self.camera``
    alone (was: no word, and no depth of field, a newcomer's trial). Asked once ``setup()``
    and ``update(t)`` ran: a scene's own copy that it gives the camera (``focal_length_mm =
    85`` then ``self.camera.focal_length_mm = self.focal_length_mm``), or a property that
    sets it, is the camera's value and no mistake (a review: both were warned of)."""
    cls = type(scene)
    for name in CAMERA_ONLY:
        value = inspect.getattr_static(scene, name, _NONE)
        said = (cls.__module__, cls.__qualname__, name)
        if value is _NONE or said in _SAID or callable(value) or hasattr(value, "__get__"):
            continue
        with contextlib.suppress(Exception):  # (an array's ==: not one truth)
            if bool(value == getattr(scene.camera, name, _NONE)):
                continue
        _SAID.add(said)
        log.warning("%s.%s = %s: a camera setting is not read from the scene; set "
                    "self.camera.%s in setup() (or in update(t))", cls.__name__, name,
                    shown(value), name)


_NONE = object()
LIGHTING = ("ambient", "light_direction", "light_strength", "light_color", "light_angle",
            "shadows", "shadow_resolution")  # checked by _lighting, set or given


class Scene:
    """Base class of scene scripts.

    Class attributes a script may set: ``duration`` (seconds), ``background`` (display
    colour: a name, hex or 3 numbers 0..1, stored as 3 floats; ``None``: transparent, for
    compositing: see ``--transparent``), ``light_direction``
    (towards the light), ``light_strength`` (>= 0: 1 full, 0 off) and ``light_color`` (a
    display colour, white unless set) of the directional light, ``ambient`` (0..1),
    ``shadows`` (the light's shadows cast by the opaque objects: ``False`` unless set),
    ``light_angle`` (the sun's angular diameter in degrees, Blender's Sun Angle: 0, sharp
    shadows, unless set; each sub-frame lit from a point of its disk: soft shadows).

    A scene stores state of its own under any name (``self.ball``, ``self.phase``), but a
    name that misspells a Scene attribute (``self.backround``, ``durration = 2`` in the
    class body, ``def updte(self, t)``) raises, suggesting the right one: it would be
    ignored otherwise.
    """

    duration: float = 4.0
    background: tuple | None = (0.06, 0.06, 0.08)
    light_direction: tuple = (0.4, 0.8, 0.6)
    light_strength: float = 1.0
    light_color: tuple = (1.0, 1.0, 1.0)
    ambient: float = 0.18
    light_angle: float = 0.0
    shadows: bool = False
    shadow_resolution: int | None = None
    source_path: str | None = None  # the file it came from (error messages)

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Check the class body: misspelt Scene attributes, the background colour. A
        refusal carries the line of the attribute in the class body (``where``: the
        traceback's own frame is the ``class`` line)."""
        super().__init_subclass__(**kwargs)
        for name in vars(cls):
            known = checks.scene_misspelling(Scene, name)
            if known is not None:
                raise checks.at_line(checks.UnknownAttributeError(
                    f"{cls.__name__}.{name}: Scene has no attribute {name!r}; did you mean "
                    f"{known!r}?"), cls, name)
        for name in sorted(set(vars(cls)) & set(other_names.CLASS_SETTINGS)):  # a scene's own,
            said = (cls.__module__, cls.__qualname__, name)  # but likely meant as a setting
            if said not in _SAID and other_names.looks_like_setting(name, vars(cls)[name]):
                _SAID.add(said)
                log.warning("%s.%s: a render setting is not read from the scene; give %s "
                            "(or set it in hfrender.toml)", cls.__name__, name,
                            other_names.setting_said(name))
        for name in ("background", *LIGHTING):
            value = vars(cls).get(name)
            if name not in vars(cls) or hasattr(value, "__get__") or \
                    (name == "background" and value is None):
                continue
            try:
                setattr(cls, name, display_color(value, f"{cls.__name__}.background")
                        if name == "background" else _lighting(cls.__name__, name, value))
            except InputError as exc:
                raise checks.at_line(exc, cls, name) from None

    def __new__(cls, *args: object, **kwargs: object) -> Scene:
        """The camera and the object list, before any ``__init__``: a subclass's own that
        does not call ``super().__init__()`` (as a manim scene may) still has them."""
        self = super().__new__(cls)
        object.__setattr__(self, "camera", Camera())
        object.__setattr__(self, "objects", [])
        return self

    def __init__(self) -> None:
        self.objects: list[Object3D] = self.objects  # (made by __new__)

    def __setattr__(self, name: str, value: object) -> None:
        known = checks.scene_misspelling(type(self), name)
        if known is not None:
            raise checks.UnknownAttributeError(
                f"{type(self).__name__} has no attribute {name!r}; did you mean {known!r}?")
        if name == "camera" and not isinstance(value, Camera):
            raise InputError(f"{type(self).__name__}.camera={checks.shown(value)} must be an "
                             "hf.Camera (or set the camera's own fields: self.camera.position "
                             "= ...)")
        if name == "background" and value is not None:
            value = display_color(value, f"{type(self).__name__}.background")
        if name in LIGHTING:
            value = _lighting(type(self).__name__, name, value)
        if name == "duration":  # where, for set_up's line (a render counts frames before it)
            if _inside_update(self) and value != getattr(self, "duration", value) \
                    and not getattr(self, "_duration_given", False):  # (--duration's stands)
                raise InputError(f"{type(self).__name__}.duration={shown(value)} set in "
                                 "update(t): the frames were counted from the duration before "
                                 f"drawing ({self.duration:g} s), so it would do nothing; set "
                                 "duration in the class body (duration = ...), or give "
                                 "--duration")  # (was: ignored without a word)
            object.__setattr__(self, "_duration_at", checks.caller_line())
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> object:
        """Only for a name not found: manim's scene methods say what is done instead (was:
        Python's "'S' object has no attribute 'remove'", a trial)."""
        hint = other_names.SCENE_METHODS.get(name)
        if hint is None:
            return object.__getattribute__(self, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}; {hint}")

    def setup(self) -> None:
        """Build the scene (add objects, place the camera). Runs once per process."""

    def update(self, t: float) -> None:
        """Set every time-dependent property from ``t`` (seconds) alone."""

    def add(self, obj: Object3D, *more: Object3D) -> Any:
        """Add an object; returns it, so ``self.ball = self.add(hf.Sphere())`` reads well;
        several (``self.add(a, b)``, as manim takes them: was a bare TypeError) each in turn,
        returned as a tuple. Objects are added in ``setup()``: one added in ``update(t)``
        would pile up, every sub-frame drawing all those added before it. An ``hf.Group``
        is not drawn and needs no adding: adding one adds the objects in it, and those
        that join it later (:meth:`_join`)."""
        if more:
            return tuple(self.add(o) for o in (obj, *more))
        if isinstance(obj, type) and issubclass(obj, (Object3D, Group, Lamp)):  # not hf.Sphere()
            raise InputTypeError(f"add() takes an object: call the class, "
                                 f"hf.{obj.__name__}(), rather than pass it")
        if _inside_update(self):
            raise InputError(f"{type(self).__name__}.add() in update(t): objects are added "
                             "once, in setup() (added at every update they pile up); add it "
                             "there and set its visible (or position) from t in update(t)")
        if isinstance(obj, (list, tuple)) and obj and all(isinstance(o, Object3D) for o in obj):
            raise InputTypeError(f"add() takes objects, not a {type(obj).__name__} of them: "
                                 "unpack it, self.add(*objects)")  # (was: "got list")
        if isinstance(obj, Group):  # manim's self.add(VGroup(a, b)): a and b
            self._take(obj, self.add)  # (and those joining it later: _join)
            return obj
        if not isinstance(obj, Object3D | Lamp):
            from hfrender.scene.meshes import FORMATS

            model = f" (a model: hf.Mesh.load({str(obj)!r}))" if isinstance(obj, (str, Path)) \
                and Path(obj).suffix.lower() in FORMATS else ""
            raise InputTypeError(f"add() takes a Plane, Cube, Sphere or other Object3D, or a "
                                 f"PointLight or SpotLight; got {type(obj).__name__}{model}")
        if isinstance(obj, Object3D):  # a Mesh made without load() refused, at add()'s line
            obj.geometry  # noqa: B018
        if getattr(obj, "_added_to", None) is self and self._holds(obj):
            if obj.__dict__.pop("_joined", False):  # added with its group: this add says so
                return obj  # (self.add(hf.Cube(parent=group)), group added)
            made = "Mesh.load" if type(obj).__name__ == "Mesh" else type(obj).__name__
            raise InputError(f"add(): this {type(obj).__name__} was added already; add a "
                             f"second one (hf.{made}(...)) to draw two")
        return self._put(obj)

    def _holds(self, obj: Object3D | Lamp) -> bool:
        return any(o is obj for o in (lamps_of(self) if isinstance(obj, Lamp) else self.objects))

    def _put(self, obj: Object3D | Lamp) -> Object3D | Lamp:
        if isinstance(obj, Lamp):
            put(self, obj)  # (as many as wanted: MAX_LAMPS counts those lit at a time)
        else:
            self.objects.append(obj)
        object.__setattr__(obj, "_added_to", self)  # (was: drawn twice, in one place)
        return obj

    def _join(self, obj: Object3D | Group, group: Group) -> None:
        """``obj`` joined ``group``, added to this scene (``group.add(obj)``, ``obj.parent =
        group``): added as ``self.add(group)`` would have added it (was: not drawn, a
        manim user's trial). In ``update(t)`` an object is refused in one line: the scene
        drawn would depend on the times drawn before."""
        if isinstance(obj, Object3D | Lamp) and _inside_update(self):
            held = next((w for w, v in checks.held(self) if v is group), "the group")
            raise InputError(f"{type(obj).__name__}.parent = {held} in update(t): a "
                             f"{type(obj).__name__} not added joins the scene with the group "
                             "it joins, and objects join once, in setup() (added at every "
                             "update they pile up); give it to the group there, and set its "
                             "visible from t in update(t)")
        if isinstance(obj, Group):  # (not add's refusal in update(t): no object drawn)
            self._take(obj, lambda child: self._join(child, obj))
        else:  # (hf.Mesh.load(path, parent=group) joins once its model is read: nodes.Whole)
            if isinstance(obj, Object3D):  # a Mesh made without load() refused, as add()
                obj.geometry  # noqa: B018
            self._put(obj)
            object.__setattr__(obj, "_joined", True)

    def _take(self, group: Group, add: Any) -> None:
        """``group`` marked as added to this scene, and ``add`` called with each of its
        children not added yet (the list searched only for one marked as added)."""
        object.__setattr__(group, "_added_to", self)
        for child in group.children:
            if getattr(child, "_added_to", None) is not self or not self._holds(child):
                add(child)


class ShaderScene(Scene, ShaderPass):
    """A Shadertoy-style fragment shader: ``mainImage(out vec4, in vec2)``, no camera; its
    own lines for hfrender (:mod:`~hfrender.scene.shader_lines`) read as it is loaded, and
    the buffers it reads (``buffers``, in the order drawn:
    :func:`~hfrender.scene.shader_passes.buffer_passes`)."""

    def __init__(self, source: str, path: str) -> None:
        super().__init__()
        ShaderPass.__init__(self, source, path)
        self.buffers = buffer_passes(self)


def past_white(scene: Scene) -> str | None:
    """The first visible object whose light can pass white (its linear colour times ``sun +
    emissive + lamps``: lit by the directional light, at most ``ambient + (1 - ambient) x
    light_strength x`` its colour's brightest channel, 1 unless set; plus its own light,
    plus the most its lamps can give it, :func:`~hfrender.scene.lamps.most_light`; a
    model's part, its colour so lit plus its material's emission), described with where it
    is; ``None`` when no object's can. (A surface shader of the scene's own may return more
    than its colour: not seen here.)"""
    if isinstance(scene, ShaderScene):
        return None
    lamps = lit_now(scene)
    strong = scene.light_strength * max(srgb_color(scene.light_color))
    sun = 1.0 + (1.0 - scene.ambient) * (strong - 1.0)  # (1 exactly where strong is)
    for obj in scene.objects:
        if not drawn(obj):
            continue
        model = obj.__dict__.get("_model")  # a loaded model's (hf.Mesh.load)
        parts = model.emitters if model is not None else []
        lamp = most_light(obj, lamps) if lamps else 0.0
        if obj.emissive <= 0 and not parts and lamp <= 0 and sun <= 1.0:
            continue
        lit = max(obj.linear_color()) * (sun + obj.emissive + lamp)
        top = max([lit] * (obj.emissive > 0 or lamp > 0 or sun > 1.0)
                  + [c * lit + e for c, e in parts])
        if top > 1.0:
            said = [f"light_strength {scene.light_strength:g}"] if sun > 1.0 else []
            said += [f"emissive {obj.emissive:g}"] if obj.emissive > 0 else []
            said += [f"its materials' emission (up to {max(e for _, e in parts):.3g}x "
                     "white)"] if parts else []
            said += [f"its lamps' light (up to {lamp:.3g}x)"] if lamp > 0 else []
            return (f"{called(obj, scene)} with {' and '.join(said)} reaches "
                    f"{top:.3g}x white")  # (a child's place: where its parents put it)
    return None


__all__ = ["Camera", "Cone", "Cube", "Cylinder", "Group", "Object3D", "Plane", "PointLight",
           "Scene", "ShaderScene", "SpotLight", "Sphere", "Torus", "past_white"]


def _inside_update(scene: Scene) -> bool:
    """Whether this call comes from the scene's own ``update`` (through helpers too)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "update" and frame.f_locals.get("self") is scene:
            return True
        frame = frame.f_back
    return False


def shadow_resolution(what: str, value: object, most: int = 8192,
                      sides: str = "") -> int | None:
    """A shadow map's size (a scene's or a lamp's): None or a whole number 256..``most``
    (a point lamp's 4096: its map holds 3 x 2 faces); ``sides``: what they are, said."""
    try:
        return None if value is None else integer(value, what, 256, most)
    except InputError as exc:
        raise type(exc)(f"{exc} texels a side{sides}, or None (from the output's size)") \
            from None


def _lighting(owner: str, name: str, value: object) -> object:
    """``ambient`` a finite number 0..1; ``light_direction`` 3 finite numbers, not all 0
    (a NaN drew every object black, without a word); ``light_strength`` a finite number >=
    0; ``light_color`` a display colour (3 floats 0..1); ``light_angle`` degrees 0..<90;
    ``shadows`` True or False;
    ``shadow_resolution`` None or a whole number 256..8192."""
    what = f"{owner}.{name}"
    if name == "shadows":
        return checks.flag(what, value)
    if name == "shadow_resolution":
        return shadow_resolution(what, value)
    if name == "light_strength":
        return checks.finite(what, value, low=0.0, meaning="the directional light: 1 full, "
                             "0 off", brightness=True)
    if name == "light_color":
        return display_color(value, what)
    if name == "light_angle":
        return checks.finite(what, value, low=0.0, below=90.0, meaning="degrees: the sun's "
                             "angular diameter, 0 sharp shadows, 0.526 the real sun's")
    if name == "ambient":  # one rule each way (was: -0.1 told ">= 0", 2 told "0..1")
        return checks.fraction(what, value, "the share of an object's colour lit where the "
                               "light does not reach")
    direction = checks.vector3(what, value, "(x, y, z) towards the light")
    if not math.hypot(*direction) > 0.0:
        raise InputError(f"{what}={shown(value)} has no direction (a length of 0); give "
                         "(x, y, z) towards the light")
    return direction

