"""A glTF file's cameras (for :meth:`Mesh.camera_at <hfrender.scene.meshes.Mesh.camera_at>`
and :meth:`Camera.follow <hfrender.scene.camera.Camera.follow>`): a camera animated in
Blender, exported with its cameras, played as hfrender's camera.

A glTF camera is a node with a ``camera`` (``cameras[i]``: ``perspective``, its vertical
field of view ``yfov`` in radians, ``aspectRatio``, ``znear`` and ``zfar`` (none:
infinite); or ``orthographic``, ``xmag`` and ``ymag`` its half-width and half-height,
``znear``, ``zfar``). It looks down its node's -Z axis, +Y up, at the node's world matrix:
animated as any node is (:mod:`~hfrender.scene.model_animation`), its place in the scene
that matrix through the Mesh's own (its position, rotation, scale and parents)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hfrender.errors import InputError
from hfrender.scene.model_animation import Animations, parents_of


@dataclass(frozen=True)
class CameraPose:
    """A glTF camera in the scene at a time: where it is, a point it looks at (1 unit
    ahead), its up, and its lens as the file has it (``near``, ``far``, ``ortho_height``
    in scene units: scaled with the Mesh; ``far`` None: the file gives none)."""

    name: str
    position: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    orthographic: bool
    yfov: float | None  # radians, perspective only
    aspect_ratio: float | None  # the picture's width / height the file was made for
    near: float | None
    far: float | None
    ortho_height: float | None  # 2 ymag, orthographic only

    def ortho_height_at(self, aspect: float | None) -> float:
        """The height an orthographic camera sees in a picture of ``aspect`` (width /
        height; None: the file's, xmag / ymag: ``ortho_height``), as Blender does: its
        ``ortho_scale`` (2 max(xmag, ymag): its exporter writes xmag and ymag from it at
        the render's size) across the picture's longer side."""
        longer = self.ortho_height * max(self.aspect_ratio, 1.0)  # (a portrait one: 2 ymag)
        return longer / max(aspect or self.aspect_ratio, 1.0)


@dataclass(frozen=True, eq=False)
class FileCamera:
    """A camera node of the file: its name (the node's; unnamed: ``'#3'``, its index), its
    node, its ``cameras`` entry and its world matrix at rest."""

    name: str
    node: int
    lens: dict
    rest: np.ndarray

    def pose(self, world: np.ndarray, file: str) -> CameraPose:
        """Where this camera is with the world matrix ``world`` (the Mesh's times its
        node's): its -Z ahead, +Y up; distances scaled as the matrix scales them."""
        ortho, yfov, aspect, near, far, ymag = self._lens(file)
        part, position = world[:3, :3], world[:3, 3]
        ahead, up = part @ (0.0, 0.0, -1.0), part @ (0.0, 1.0, 0.0)
        deep, tall = float(np.linalg.norm(ahead)), float(np.linalg.norm(up))
        if not (deep > 0 and tall > 0):
            raise InputError(f"{file}: its camera {self.name!r} has no size (a scale of 0): "
                             "it looks nowhere")
        return CameraPose(
            self.name, _point(position), _point(position + ahead / deep), _point(up / tall),
            ortho, yfov, aspect, None if near is None else near * deep,
            None if far is None else far * deep, None if ymag is None else 2 * ymag * tall)

    def _lens(self, file: str) -> tuple:
        """(orthographic, yfov, aspectRatio, znear, zfar, ymag) of the file's camera, each
        checked (None: not given, or not of its kind); a value the glTF spec refuses said
        in one line naming the file and the camera."""
        kind = self.lens.get("type")
        values = self.lens.get(kind) if kind in ("perspective", "orthographic") else None
        if not isinstance(values, dict):
            raise InputError(f"{file}: its camera {self.name!r} is of type {kind!r}: neither "
                             "'perspective' nor 'orthographic' with its values")

        def number(key: str, optional: bool = False) -> float | None:
            return _number(file, self.name, f"{kind}.{key}", values.get(key), optional)

        near, far = number("znear"), number("zfar", optional=kind == "perspective")
        if far is not None and not near < far:
            raise InputError(f"{file}: its camera {self.name!r} has znear={near:g} not less "
                             f"than zfar={far:g}")
        if kind == "orthographic":  # (xmag and ymag: half the width and height seen)
            xmag, ymag = number("xmag"), number("ymag")
            return True, None, xmag / ymag, near, far, ymag
        yfov = number("yfov")
        if not yfov < math.pi:
            raise InputError(f"{file}: its camera {self.name!r} has perspective.yfov="
                             f"{yfov:g}: a field of view must be less than pi (180 degrees)")
        return False, yfov, number("aspectRatio", optional=True), near, far, None


def _point(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def _number(file: str, name: str, key: str, value: object, optional: bool) -> float | None:
    """A camera's value: a finite number > 0 (None where ``optional`` and not given)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not (math.isfinite(value) and value > 0):
        raise InputError(f"{file}: its camera {name!r} has {key}={value!r}: it must be a "
                         "finite number > 0")
    return float(value)


def read_cameras(header: dict) -> tuple[FileCamera, ...]:
    """The camera nodes of a glTF file (its JSON ``header``), in the file's order."""
    nodes, lenses = header.get("nodes", ()), header.get("cameras", ())
    found = [(i, n) for i, n in enumerate(nodes) if isinstance(n, dict)
             and isinstance(n.get("camera"), int) and 0 <= n["camera"] < len(lenses)]
    if not found:
        return ()
    tree = Animations((), (), tuple(nodes), parents_of(nodes), frozenset())
    return tuple(FileCamera(str(n.get("name") or f"#{i}"), i, dict(lenses[n["camera"]]),
                            tree.world(i, None, 0.0)) for i, n in found)


def played(animations: Animations, node: int, which: int) -> int:
    """The animation that moves the camera ``node``: ``which`` (the Mesh's) where it moves
    it or a parent of it, else the file's first that does (Blender exports each action as
    an animation of its own: the objects' 'CubeAction', the camera's 'CameraAction')."""
    chain = set(animations.lineage(node))
    moving = [i for i, found in enumerate(animations.channels)
              if any(c.node in chain for c in found)]
    return which if which in moving or not moving else moving[0]


def find(cameras: tuple[FileCamera, ...], name: object, file: str) -> FileCamera:
    """The camera ``name`` of a file (None: its first), else one line naming the ones it
    has (or saying it has none)."""
    if name is not None and not isinstance(name, str):
        raise InputError(f"camera name={name!r} must be a camera's name (a str; mesh.cameras "
                         "lists them), or None for the file's first")
    if not cameras:
        raise InputError(f"{file} has no camera: export it with its cameras (Blender's glTF "
                         "export: Include > Cameras)")
    for camera in cameras:
        if name is None or camera.name == name:
            return camera
    raise InputError(f"camera {name!r}: {file} has no camera of that name; its cameras: "
                     + ", ".join(repr(c.name) for c in cameras))
