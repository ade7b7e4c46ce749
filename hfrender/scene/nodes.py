"""Parenting: an object placed in another's frame (``child.parent = planet``), and
:class:`Group`, an invisible frame to parent objects to (manim's ``VGroup``, Blender's
empty), whose ``opacity`` and ``visible`` pass to what lies in it (:func:`drawn_opacity`).

A child's world matrix is its parent's frame (recursively) times its own model matrix.
The frame a parent gives is its ``position``, ``rotation`` and ``scale``, not a built-in
shape's own size: a moon under a planet of radius 0.25 keeps its own radius (as in
Blender, where a sphere's radius is mesh data, not the object's scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hfrender.errors import InputError
from hfrender.scene import checks


@lru_cache(maxsize=8192)
def _model_matrix(position: tuple, rotation: tuple, scale: float | tuple) -> np.ndarray:
    """Blender's XYZ Euler (``Rz @ Ry @ Rx``) times the scale, then the place, from floats
    (was: three 3x3 arrays, two products and an eye, 45 us against 6: 3,000 particles moving
    make 3,000 a sub-frame)."""
    rx, ry, rz = rotation
    cx, sx, cy, sy, cz, sz = (math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry),
                              math.cos(rz), math.sin(rz))
    if isinstance(scale, float | int):
        kx = ky = kz = scale
    else:
        kx, ky, kz = np.broadcast_to(np.asarray(scale, np.float64), (3,)).tolist()
    px, py, pz = position
    m = np.array([[cz * cy * kx, (cz * sy * sx - sz * cx) * ky, (cz * sy * cx + sz * sx) * kz, px],
                  [sz * cy * kx, (sz * sy * sx + cz * cx) * ky, (sz * sy * cx - cz * sx) * kz, py],
                  [-sy * kx, cy * sx * ky, cy * cx * kz, pz],
                  [0.0, 0.0, 0.0, 1.0]], np.float64)
    m.setflags(write=False)
    return m


def placement(position: Any, rotation: Any, scale: Any) -> np.ndarray:
    """The 4x4 matrix of a place, turn and scale: shared and read-only, computed once while
    they stay (an unhashable value: every time)."""
    try:
        return _model_matrix(tuple(position), tuple(rotation),
                             scale if isinstance(scale, float | int) else tuple(scale))
    except TypeError:
        return _model_matrix.__wrapped__(position, rotation, scale)


# tokens, new whenever an object's or a group's place, turn, scale or parent is set (_NOW)
# and its parent (_PARENTS): the frames and the parents' check remembered with one stand
# while it is the one (a child asks its parents' frame 4-5 times a sub-frame; 1,000
# children of one group walked and multiplied it, and looked for each parent, each time)
_NOW = [object()]
_PARENTS = [object()]
_PLACING = frozenset(("position", "rotation", "scale", "parent"))
_KEPT = ("_framed", "_checked", "_world")  # what a node remembers (not pickled)


class Whole(type):
    """The class of :class:`Placed` classes: a new object joins its parent Group (and the
    scene that group was added to) once its ``__init__`` has returned, made whole (was: as
    its ``parent`` was set, before the fields after it were checked: a script that caught
    ``hf.Sphere(parent=group, radius=-1)``'s error had that half-made Sphere drawn)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = cls.unjoined(*args, **kwargs)
        obj._whole()
        return obj

    def unjoined(cls, *args: Any, **kwargs: Any) -> Any:
        """Made, not yet joined: its maker calls ``_whole()`` when it is (``Mesh.load``,
        once its model is read)."""
        return super().__call__(*args, **kwargs)


class Placed(checks.Checked, metaclass=Whole):
    """What has a place and may have a ``parent`` (an object or a :class:`Group`)."""

    parent: Any = None
    _drawn = False  # an object of a scene (added to it), not a Group

    def __setattr__(self, name: str, value: object) -> None:
        if name == "parent":
            _no_cycle(self, value)
        super().__setattr__(name, value)
        if name in _PLACING:
            _NOW[0] = object()
            if name == "parent":
                _PARENTS[0] = _NOW[0]
                if isinstance(value, Group) and "_made" in self.__dict__:
                    value._joined(self)

    def _whole(self) -> None:
        """Made whole: it joins the Group that its parent is (:meth:`Group._joined`)."""
        object.__setattr__(self, "_made", True)
        if isinstance(self.parent, Group):
            self.parent._joined(self)

    def _frame(self) -> np.ndarray:
        """The frame this gives its children, in the world: its parents' frames times its
        own position, rotation and scale (no shape's own size). Read-only; remembered until
        a place or a parent is set again (:data:`_NOW`)."""
        now, kept = _NOW[0], self.__dict__.get("_framed")
        if kept is not None and kept[0] is now:
            return kept[1]
        own = placement(self.position, self.rotation, self.scale)  # type: ignore[attr-defined]
        if self.parent is not None:
            own = self.parent._frame() @ own
            own.setflags(write=False)
        object.__setattr__(self, "_framed", (now, own))
        return own

    def _parents_frame(self) -> np.ndarray | None:
        """The parent's frame (None: no parent); one of the parents that is an object not
        in this object's scene (never added, or another scene's) is refused in one line
        (looked at once while no parent is set)."""
        parent = self.parent
        if parent is None:
            return None
        scene, now = self.__dict__.get("_added_to"), _PARENTS[0]
        if scene is not None:
            kept = self.__dict__.get("_checked")
            if kept is None or kept[0] is not now or kept[1] is not scene:
                _parents_added(self, scene)
                object.__setattr__(self, "_checked", (now, scene))
        return parent._frame()

    def by_place(self) -> str:
        """How a message names it where its scene holds it under no name: by where it is
        in the world, rounding's noise as 0 (``the Sphere at (1, 0, 0)``; a row laid out
        about 0 has -1.11e-16); a model by its file (``Mesh``'s own)."""
        at = ", ".join(f"{round(float(v), 9) + 0.0:.4g}" for v in self._frame()[:3, 3])
        return f"the {type(self).__name__} at ({at})"

    def __getstate__(self) -> dict:
        """Its fields, not what it remembered (a pickle for Ray: 4x4 matrices an object)."""
        return {k: v for k, v in self.__dict__.items() if k not in _KEPT}


def _parents_added(node: Placed, scene: Any) -> None:
    """Refuse, in one line, a parent of ``node`` (or one of theirs) that is an object not
    in ``scene`` (never added, or another scene's)."""
    up = node.parent
    while up is not None:
        if up._drawn and getattr(up, "_added_to", None) is not scene and \
                not any(o is up for o in scene.objects):
            raise InputError(
                f"{type(node).__name__}.parent: {called(up, scene)} is not added to this scene "
                "(never added, or another scene's), so it would not be drawn while its "
                "children are: self.add() it in setup(), or parent them to an hf.Group "
                "(never drawn, needs no add)")
        up = up.parent


def called(node: Placed, scene: Any = None) -> str:
    """``node`` as a message names it: by the scene's name for it (``self.planet (a
    Sphere)``: :func:`checks.held`; ``scene``, else the one it was added to), else by
    :meth:`Placed.by_place` (``the Sphere at (1, 0, 0)``, ``the Mesh far.glb``)."""
    return called_all(scene if scene is not None else node.__dict__.get("_added_to"),
                      [node])[0]


def called_all(scene: Any, nodes: list) -> list[str]:
    """Each of ``nodes`` as :func:`called` names it, the scene's names read once (a
    scene of thousands of objects out of view)."""
    names = checks.named(scene, nodes) if scene is not None else [None] * len(nodes)
    return [node.by_place() if name is None else f"{name} (a {type(node).__name__})"
            for name, node in zip(names, nodes, strict=True)]


def lineage(node: Placed) -> str:
    """Where a parent and its own parents are, exactly (the scene checks compare a
    parent by it: a second setup()'s is another object in the same place)."""
    chain = []
    while node is not None:
        chain.append(f"the {type(node).__name__} at {node.position!r} turned "  # type: ignore
                     f"{node.rotation!r} scaled {node.scale!r}"  # type: ignore[attr-defined]
                     + _passed(node))
        node = node.parent
    return " in ".join(chain)


def _passed(node: Placed) -> str:
    """What a Group passes to its objects besides its frame, where it is not the default
    (its opacity, hidden): part of its :func:`lineage`."""
    if not isinstance(node, Group):
        return ""
    return ((f" at opacity {node.opacity!r}" if node.opacity != 1.0 else "")
            + ("" if node.visible else " hidden"))


def drawn_opacity(node: Placed) -> float:
    """The opacity ``node`` (an object) is drawn at: its own times that of every Group it
    lies in, through its parents (nested groups multiply), or 0 where it or one of those
    groups is not ``visible``. Only a Group passes these on: an object's own opacity and
    ``visible`` are its alone, not its children's (as Blender's parent; manim's
    ``VGroup.set_opacity`` sets each submobject's)."""
    if not node.visible:  # type: ignore[attr-defined]
        return 0.0
    return groups_opacity(node, float(node.opacity))  # type: ignore[attr-defined]


def groups_opacity(node: Placed, opacity: float = 1.0) -> float:
    """``opacity`` times the opacities of the Groups ``node`` lies in, through its parents,
    in that order (nested groups multiply), or 0 where one of them is not ``visible``:
    what they pass on to an object (:func:`drawn_opacity`) and to a lamp (its light's
    share)."""
    up = node.parent
    while up is not None:
        if isinstance(up, Group):
            if not up.visible:
                return 0.0
            opacity *= float(up.opacity)
        up = up.parent
    return opacity


def _no_cycle(node: Placed, value: object) -> None:
    """Refuse a parent that is not an object or a Group, or one that is ``node`` or lies
    under it (a cycle: a.parent = b, b.parent = a)."""
    what = f"{type(node).__name__}.parent"
    if value is None:
        return
    if not isinstance(value, Placed):
        hint = " (call it: hf.Group())" if isinstance(value, type) else ""
        raise InputError(f"{what}={checks.shown(value)} must be an object of the scene "
                         f"(hf.Sphere, hf.Mesh, ...), an hf.Group, or None{hint}")
    up = value
    while up is not None:
        if up is node:
            scene = getattr(node, "_added_to", None) or getattr(value, "_added_to", None)
            said = ("itself" if value is node else
                    f"{called(value, scene)}, which is placed under this {type(node).__name__} "
                    "already")
            raise InputError(f"{what} would be {said}: a cycle (a.parent = b, b.parent = "
                             "a); an object is placed in its parent's frame, so one of the "
                             "two is the parent, not both")
        up = up.parent


@dataclass(eq=False, init=False)
class Group(Placed):
    """An invisible frame to place objects in: ``hf.Group(a, b, position=..., rotation=...,
    scale=...)`` (or ``group.add(a, b)``) sets their ``parent`` to it, and they move, turn
    and scale with it. Never drawn: it needs no ``self.add``; ``self.add(group)`` adds
    the objects in it (as manim's ``self.add(VGroup(a, b))``), and those that join it later
    in ``setup()`` as they join (``group.add(c)``, ``c.parent = group``: manim's VGroup
    draws a submobject added after it). Its ``opacity`` (0..1) multiplies that of every
    object in it, nested groups' too, and ``visible = False`` hides them all (manim's
    ``group.set_opacity(0.5)``): :func:`drawn_opacity`."""

    position: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = (0.0, 0.0, 0.0)
    scale: float | tuple = 1.0
    opacity: float = 1.0
    visible: bool = True
    parent: Placed | None = None

    def __init__(self, *children: Placed, position: Any = (0.0, 0.0, 0.0),
                 rotation: Any = (0.0, 0.0, 0.0), scale: Any = 1.0, opacity: Any = 1.0,
                 visible: Any = True, parent: Placed | None = None) -> None:
        self.position, self.rotation, self.scale = position, rotation, scale
        self.opacity, self.visible, self.parent = opacity, visible, parent
        if children:
            self.add(*children)

    @classmethod
    def value_checks(cls) -> dict:
        return _GROUP_CHECKS

    def add(self, obj: Placed, *more: Placed) -> Any:
        """Parent ``obj`` (and ``more``) to this group; returns it (a tuple of several), as
        ``Scene.add`` does."""
        if more:
            return tuple(self.add(o) for o in (obj, *more))
        if not isinstance(obj, Placed):
            unpack = (": unpack it, group.add(*objects)" if isinstance(obj, (list, tuple))
                      else "")
            raise InputError(f"Group.add() takes objects (hf.Sphere, hf.Mesh, ...) or "
                             f"hf.Groups; got {type(obj).__name__}{unpack}")
        obj.parent = self  # (refused there: a cycle; else it joins: _joined)
        return obj

    def _joined(self, obj: Placed) -> None:
        """``obj``'s parent set to this group: one of its children, and added to the scene
        this group was added to (if it is not already)."""
        scene = self.__dict__.get("_added_to")
        if scene is not None and getattr(obj, "_added_to", None) is not scene:
            try:
                scene._join(obj, self)  # (an object refused: not one of its children)
            except Exception:
                if isinstance(obj, Group):  # partly joined: the objects before the refused
                    self._ones_given()[obj] = None  # one are drawn
                raise
        self._ones_given()[obj] = None

    def _ones_given(self) -> dict:
        """The objects whose parent was set to it, in that order (made at the first: a
        user's ``@dataclass`` Group's ``__init__`` is dataclass's, not Group's)."""
        return self.__dict__.setdefault("_given", {})

    @property
    def children(self) -> list[Placed]:
        """The objects whose parent it is (given to ``Group(...)`` or ``add``, or their
        ``parent`` set to it), in the order they first joined."""
        return [o for o in self._ones_given() if o.parent is self]

    def world_matrix(self) -> np.ndarray:
        """The 4x4 group-to-world matrix (its parents' included), a fresh array."""
        return self._frame().copy()


PLACE_CHECKS = {  # (an object's too)
    "position": lambda what, v: checks.vector3(what, v, "(x, y, z) in metres"),
    "rotation": lambda what, v: checks.vector3(what, v, "(x, y, z) in radians"),
    "scale": checks.scale,
}
SHOW_CHECKS = {  # (an object's too)
    "visible": checks.flag,
    "opacity": lambda what, v: checks.fraction(what, v, "0 not drawn, 1 opaque; fade in over "
                                               "1 s: obj.opacity = hf.linear(t) in update(t)"),
}
_GROUP_CHECKS = {**SHOW_CHECKS, **PLACE_CHECKS}
