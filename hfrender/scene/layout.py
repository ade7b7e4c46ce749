"""Layout: ``hf.arrange`` and ``hf.next_to``, manim's ``VGroup.arrange`` and ``next_to``.

Both set ``position`` alone, from the objects' boxes as they are when called: pure
functions of their inputs, so they may be called in ``setup()`` or in ``update(t)`` (after
the fields they read are set from ``t``).

A box is an object's extent along x, y and z in its parent's frame (the world without a
parent), from its ``position``, ``rotation`` and ``scale`` and its shape: a cube's 1 m a
side, a plane's 1 m square (no depth), a sphere's ``radius`` (an ellipsoid's exact box
where scaled unevenly), a cylinder's, cone's or torus's exact box however turned (an
upright cylinder's ``2 radius`` wide and ``height`` high), a Text's ink (the glyphs drawn,
not the padded plate they lie on; ``face_camera``'s turn is not counted), a Mesh's
``bounds``. A Group's box is the union of
the boxes of the objects in it (nested groups' too), taken through its own frame, and a
Group is moved by its own ``position``. The objects laid out together must have one
parent (their boxes are in its frame): objects under different parents are refused in one
line (give them one: an ``hf.Group``, or ``obj.parent = other.parent``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hfrender.errors import InputError, InputTypeError
from hfrender.scene import checks
from hfrender.scene.meshes import is_model
from hfrender.scene.nodes import Group, Placed, called, placement
from hfrender.scene.round_shapes import ROUND, support
from hfrender.scene.text import is_text

_AXES = ("(1, 0, 0) right, (-1, 0, 0) left, (0, 1, 0) up, (0, -1, 0) down, (0, 0, 1) out "
         "(towards the default camera), (0, 0, -1) in")
_CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
_PLANE = np.array([[x, y, 0.0] for x in (-0.5, 0.5) for y in (-0.5, 0.5)])


def arrange(objects: Any, direction: Any = (1, 0, 0), buff: Any = 0.25,
            center: Any = (0, 0, 0)) -> Any:
    """Place ``objects`` (a list, or an ``hf.Group``: its children, in the group's frame)
    side by side along ``direction`` (one axis: ``(1, 0, 0)`` puts the first leftmost),
    ``buff`` metres between one's box and the next's, the row's box centred on
    ``center`` and each box's centre on ``center``'s other two coordinates (manim's
    ``arrange`` with its default ``aligned_edge=ORIGIN``, then ``move_to(center)``).
    Returns ``objects``."""
    nodes = _nodes(objects)
    axis, sign = _axis("arrange", direction)
    gap = _buff("arrange", buff)
    middle = np.array(checks.vector3("arrange: center", center, "(x, y, z) in metres"))
    if not nodes:
        return objects
    _one_parent("arrange", [(f"objects[{i}]", n) for i, n in enumerate(nodes)])
    boxes = [box(n) for n in nodes]
    sizes = [float(b[1, axis] - b[0, axis]) for b in boxes]
    edge = middle[axis] - sign * (sum(sizes) + gap * (len(nodes) - 1)) / 2
    for node, b, size in zip(nodes, boxes, sizes, strict=True):
        target = middle.copy()
        target[axis] = edge + sign * size / 2
        _move(node, target - b.mean(axis=0))
        edge += sign * (size + gap)
    return objects


def next_to(obj: Any, other: Any, direction: Any = (1, 0, 0), buff: Any = 0.25) -> Any:
    """Place ``obj`` beside ``other``: its box ``buff`` metres from the other's on the
    side ``direction`` points to (one axis: ``(0, 1, 0)`` above), their centres lined up on
    the other two axes (manim's ``obj.next_to(other, direction)``). Returns ``obj``."""
    for what, node in (("obj", obj), ("other", other)):
        _node(f"next_to: {what}", node)
    if obj is other:
        raise InputError(f"next_to: obj and other are one object ({called(obj)}): place it "
                         "beside another")
    axis, sign = _axis("next_to", direction)
    gap = _buff("next_to", buff)
    _one_parent("next_to", [("obj", obj), ("other", other)])
    mine, theirs = box(obj), box(other)
    target = theirs.mean(axis=0)
    half = (mine[1, axis] - mine[0, axis]) / 2
    target[axis] = theirs[1, axis] + gap + half if sign > 0 else theirs[0, axis] - gap - half
    _move(obj, target - mine.mean(axis=0))
    return obj


def box(node: Placed) -> np.ndarray:
    """(2, 3): the min and max corners of ``node``'s box in its parent's frame (the
    module's text says what a box is); an empty Group is refused in one line."""
    found = _box(node, np.eye(4))
    if found is None:
        raise InputError(f"{called(node)} has no object in it, so no box to lay out: add its "
                         "objects first (group.add(a, b))")
    return found


def _box(node: Placed, frame: np.ndarray) -> np.ndarray | None:
    """``node``'s box in the frame ``frame`` takes its parent's frame to (None: a Group
    with no object in it)."""
    if isinstance(node, Group):
        inner = frame @ placement(node.position, node.rotation, node.scale)
        found = [b for b in (_box(c, inner) for c in node.children) if b is not None]
        if not found:
            return None
        return np.stack([np.min([b[0] for b in found], axis=0),
                         np.max([b[1] for b in found], axis=0)])
    m = frame @ node.model_matrix()  # type: ignore[attr-defined]
    if str(node.geometry).startswith("sphere"):  # type: ignore[attr-defined]  # radius 1
        half = np.linalg.norm(m[:3, :3], axis=1)  # (an ellipsoid's box, exactly)
        return np.stack([m[:3, 3] - half, m[:3, 3] + half])
    if str(node.geometry).split(":")[0] in ROUND:  # type: ignore[attr-defined]
        kind = node.geometry  # type: ignore[attr-defined]  # (exact, however turned)
        return np.stack([m[:3, 3] - support(kind, -m[:3, :3]),
                         m[:3, 3] + support(kind, m[:3, :3])])
    points = _corners(node) @ m[:3, :3].T + m[:3, 3]
    return np.stack([points.min(axis=0), points.max(axis=0)])


def _corners(obj: Any) -> np.ndarray:
    """The corners of ``obj``'s shape in its own units, before its model matrix."""
    geometry = obj.geometry
    if is_text(geometry):
        lo, hi = obj.raster().ink
        return np.array([[x, y, 0.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])])
    if is_model(geometry):
        lo, hi = obj.bounds
        return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                         for z in (lo[2], hi[2])])
    return _PLANE if geometry == "plane" else _CUBE


def _move(node: Placed, delta: np.ndarray) -> None:
    """``node``'s box moved by ``delta`` in its parent's frame: its position (a Group's
    too: its objects' boxes move with it)."""
    node.position = tuple(float(p) for p in np.asarray(node.position) + delta)  # type: ignore


def _nodes(objects: Any) -> list[Placed]:
    """The objects to arrange: a list's (each checked), or a Group's children."""
    if isinstance(objects, Group):
        return objects.children
    if isinstance(objects, Placed):
        raise InputTypeError(f"arrange: objects={called(objects)} is one object: give a list of "
                             "them, hf.arrange([a, b, c]), or an hf.Group")
    if not isinstance(objects, Sequence) or isinstance(objects, str):
        raise InputTypeError(f"arrange: objects={checks.shown(objects)} must be a list of objects "
                             "(hf.Sphere, hf.Cube, hf.Text, hf.Mesh, hf.Group) or an "
                             "hf.Group")
    for i, node in enumerate(objects):
        _node(f"arrange: objects[{i}]", node)
        if any(node is o for o in objects[:i]):
            raise InputError(f"arrange: objects[{i}] is {called(node)} again: each object "
                             "once")
    return list(objects)


def _node(what: str, value: object) -> None:
    """Refuse, in one line, what is not an object of a scene or a Group."""
    if isinstance(value, Placed):
        return
    call = " (call it: hf.Cube())" if isinstance(value, type) else ""
    raise InputTypeError(f"{what}={checks.shown(value)} must be an object (hf.Sphere, hf.Cube, "
                         f"hf.Text, hf.Mesh, ...) or an hf.Group{call}")


def _axis(what: str, direction: Any) -> tuple[int, float]:
    """(axis, +1 or -1) of a direction along one axis (its length not used)."""
    v = checks.vector3(f"{what}: direction", direction, f"along one axis: {_AXES}")
    along = [i for i in range(3) if v[i] != 0.0]
    if len(along) != 1:
        raise InputError(f"{what}: direction={checks.shown(direction)} must point along one axis: "
                         f"{_AXES}")
    return along[0], 1.0 if v[along[0]] > 0 else -1.0


def _buff(what: str, buff: Any) -> float:
    """The gap between boxes: metres, 0 or more."""
    return checks.finite(f"{what}: buff", buff, low=0.0, meaning="metres between the boxes")


def _one_parent(what: str, named: list[tuple[str, Placed]]) -> None:
    """Refuse, in one line, nodes under different parents (their boxes are in their
    parent's frame: one frame for all)."""
    first_name, first = named[0]
    for name, node in named[1:]:
        if node.parent is not first.parent:
            raise InputError(
                f"{what}: {first_name} ({called(first)}) {_under(first)} and {name} "
                f"({called(node)}) "
                f"{_under(node)}: objects are laid out in their parent's frame, so give them "
                "one parent (an hf.Group, or obj.parent = other.parent)")


def _under(node: Placed) -> str:
    return "has no parent" if node.parent is None else f"is under {called(node.parent)}"
