"""Built-in objects: Plane, Cube, Sphere, Cylinder, Cone, Torus. Geometry is made here (the
round ones' in :mod:`hfrender.scene.round_shapes`), drawn by the renderer."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from hfrender.color import display_color, srgb_color
from hfrender.errors import InputError, InputTypeError
from hfrender.scene import checks
from hfrender.scene.nodes import PLACE_CHECKS, SHOW_CHECKS, Placed, drawn_opacity, placement
from hfrender.scene.round_shapes import (
    OUTLINE_PX,
    ROUND,
    grid,
    level,
    outline_scale,
    round_mesh,
)


@dataclass(eq=False)
class Object3D(Placed):
    """Something drawn in a scene.

    ``position`` in metres; ``rotation`` in radians about x, then y, then z (world axes);
    ``scale`` a number or three; ``color`` a display (sRGB) colour, as in manim or CSS;
    ``emissive`` adds ``emissive x color`` of light of its own (1 = glows at its colour);
    ``shader`` names a fragment shader file (in ``shaders/glsl/`` or beside the scene)
    that replaces the built-in lighting; ``parent`` (an object of the scene or an
    :class:`~hfrender.scene.nodes.Group`; None) places it in that one's frame: it moves,
    turns and scales with it (:meth:`world_matrix`). ``opacity`` (0..1) blends it over what
    lies behind it (0: not drawn; translucent objects are drawn after the opaque ones, back
    to front by their centres' depth, :mod:`hfrender.renderer.translucent`); a Group it lies
    in multiplies it, and hides it where that one is not ``visible``
    (:func:`~hfrender.scene.nodes.drawn_opacity`, which every reader of the two reads).

    Values are checked when set (NaN and infinity are refused; a colour may be a name,
    hex or 3 numbers 0..1, stored as 3 floats), and so are names: ``ball.colour = ...``
    raises, suggesting ``color``. A subclass declares attributes of its own in its body.
    """

    position: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = (0.0, 0.0, 0.0)
    scale: float | tuple = 1.0
    color: tuple = (0.8, 0.8, 0.8)
    emissive: float = 0.0
    shader: str | None = None
    visible: bool = True
    opacity: float = 1.0
    parent: Placed | None = field(default=None, kw_only=True, repr=False)

    geometry = "cube"
    _drawn = True

    @classmethod
    def value_checks(cls) -> dict:
        return _CHECKS

    def __setattr__(self, name: str, value: object) -> None:
        if name == "position" and "rotation" not in self.__dict__:  # in __init__
            _positional(type(self), value)
        super().__setattr__(name, value)
        if name == "shader" and value is not None:  # where, for a name no file answers
            object.__setattr__(self, "_shader_at", checks.caller_line())  # (as it compiles)
            self.__dict__.setdefault("_shaders", {})[value] = None  # every one it was given:
            # update(t) may switch them (the scene's files, for a batch and --resume)

    def model_matrix(self) -> np.ndarray:
        """The 4x4 object-to-world matrix, a fresh array the caller may change (a subclass
        may scale ``super().model_matrix()`` in place); computed once while the object keeps
        its place (a renderer asks several times a sub-frame)."""
        return placement(self.position, self.rotation, self._matrix_scale()).copy()

    def world_matrix(self) -> np.ndarray:
        """The 4x4 object-to-world matrix drawn: its parent's frame (recursively: position,
        rotation and scale, not a sphere's radius) times its :meth:`model_matrix`; that
        alone without a parent. A fresh array."""
        frame = self._parents_frame()
        if frame is None:
            return self.model_matrix()
        if type(self).model_matrix is not Object3D.model_matrix:  # (a subclass's own)
            return frame @ self.model_matrix()
        own = placement(self.position, self.rotation, self._matrix_scale())
        kept = self.__dict__.get("_world")  # the product, while frame and own are the ones
        if kept is None or kept[0] is not frame or kept[1] is not own:  # (shared: kept)
            kept = (frame, own, frame @ own)
            object.__setattr__(self, "_world", kept)
        return kept[2].copy()

    def _matrix_scale(self) -> float | tuple:
        """The scale the matrix applies (a sphere's radius too)."""
        return self.scale

    def linear_color(self) -> tuple:
        return _linear(tuple(self.color[:3]))  # lighting happens in linear light


_AT_ORIGIN = (0.0, 0.0, 0.0)


def world_matrices(objects: list) -> np.ndarray:
    """``np.stack([obj.world_matrix() for obj in objects])``, bit for bit, (N, 4, 4): an
    object of no parent that keeps Object3D's matrices (a particle's) as its turn and
    scale's matrix (cached while they stay: :func:`placement`) with its position set in,
    all of them in one array (was: a 4x4 array made, then copied, an object: 3,000
    particles moving took 35 ms a sub-frame)."""
    out = np.empty((len(objects), 4, 4))
    plain, turns, places = [], [], []
    for i, obj in enumerate(objects):
        kind = type(obj)
        if (obj.parent is None and kind.world_matrix is Object3D.world_matrix
                and kind.model_matrix is Object3D.model_matrix):
            plain.append(i)
            turns.append(placement(_AT_ORIGIN, obj.rotation, obj._matrix_scale()))
            places.append(obj.position)
        else:
            out[i] = obj.world_matrix()
    if plain:
        out[plain] = turns
        out[plain, :3, 3] = places
    return out


@lru_cache(maxsize=4096)
def _linear(color: tuple) -> tuple:
    return srgb_color(color)


@dataclass(eq=False)
class Cube(Object3D):
    """A unit cube centred on its position (side 1 m before scaling)."""

    geometry = "cube"


@dataclass(eq=False)
class Plane(Object3D):
    """A unit square in the xy plane facing +z (rotate it to make a floor or a wall)."""

    geometry = "plane"


@dataclass(eq=False)
class Sphere(Object3D):
    """A sphere of ``radius`` metres."""

    radius: float = 0.5
    geometry = "sphere"

    def _matrix_scale(self) -> float | tuple:
        return _scaled(self.scale, (float(self.radius),) * 3)


def _scaled(scale: float | tuple, size: tuple) -> float | tuple:
    """``scale`` (a number or 3) times a shape's own ``size`` (3 numbers): the matrix's
    scale; a number where ``size`` is one number thrice and so is ``scale``."""
    if isinstance(scale, float | int) and size[0] == size[1] == size[2]:
        return scale * size[0]
    each = (scale,) * 3 if isinstance(scale, float | int) else scale
    return tuple(float(s) * v for s, v in zip(each, size, strict=True))


@dataclass(eq=False)
class Upright(Object3D):
    """A shape of ``radius`` and ``height`` metres about the y axis (y is up), centred on
    its position: from y = -height / 2 to +height / 2 before its rotation and scale."""

    radius: float = 0.5
    height: float = 1.0

    def _matrix_scale(self) -> float | tuple:
        r = float(self.radius)
        return _scaled(self.scale, (r, float(self.height), r))


@dataclass(eq=False)
class Cylinder(Upright):
    """A cylinder of ``radius`` and ``height`` metres, its axis along y (y is up), centred
    on its position: its flat caps at y = -height / 2 and +height / 2 (before its rotation
    and scale). manim's ``Cylinder(radius, height)`` and Blender's stand along z: turn one
    there by ``rotation=(math.pi / 2, 0, 0)``."""

    geometry = "cylinder"


@dataclass(eq=False)
class Cone(Upright):
    """A cone of base ``radius`` and ``height`` metres, its axis along y, centred on its
    position: its flat base at y = -height / 2, its apex at +height / 2 (manim's
    ``Cone(base_radius, height)``)."""

    geometry = "cone"


@dataclass(eq=False)
class Torus(Object3D):
    """A torus (a ring) about the y axis, lying in the x-z plane, centred on its position:
    ``radius`` metres from its centre to the tube's middle, ``tube`` the tube's radius
    (manim's ``Torus(major_radius, minor_radius)``, three.js' ``TorusGeometry(radius,
    tube)``); it reaches ``radius + tube`` out and ``tube`` up and down. Its mesh is made
    once for each ratio, tube / (radius + tube) to 4 significant digits: one that changes
    in update(t) makes one a ratio, while ``scale`` sizes it at no cost."""

    radius: float = 0.5
    tube: float = 0.15

    @property
    def geometry(self) -> str:  # type: ignore[override]
        outer = float(self.radius) + float(self.tube)
        return f"torus:{float(self.tube) / outer if outer > 0 else 0.0:.4g}"

    def _matrix_scale(self) -> float | tuple:
        return _scaled(self.scale, (float(self.radius) + float(self.tube),) * 3)


def drawn(obj: Object3D) -> bool:
    """Whether ``obj`` is drawn as the scene is now: visible, and not faded out (the groups
    it lies in too: :func:`drawn_opacity`)."""
    return drawn_opacity(obj) > 0.0


GEOMETRIES = ("cube", "plane", "sphere")  # a Cube's or Plane's to set (a loaded model's:
# Mesh; a cylinder's, cone's or torus's, sized by their own fields: their classes)


def _positional(cls: type, value: object) -> None:
    """Refuse ``hf.Sphere(2)`` or ``hf.Cube(0.5, "red")`` as what was meant, a size or a
    colour given without its keyword (was: "Sphere.position=2 must be 3 finite numbers",
    the first field's name, which the script never wrote: a newcomer's trial)."""
    name = cls.__name__
    if isinstance(value, str) and name != "Mesh":  # (hf.Mesh("a.glb"): Mesh says load)
        meant = f"color={value!r}"
    elif checks.real(value) and not isinstance(value, bool):
        meant = f"{'radius' if hasattr(cls, 'radius') else 'scale'}={value!r}"
    else:
        return
    raise InputTypeError(f"hf.{name}({value!r}, ...): the first argument is the position, "
                         f"(x, y, z); a {meant.split('=')[0]} is given by its keyword: "
                         f"hf.{name}({meant})")


def _shader(what: str, value: object) -> object:
    """A shader's name or file (``"toon"``, ``"glow.glsl"``), or None: the built-in one."""
    if value is None or (isinstance(value, (str, os.PathLike)) and str(value).strip()):
        return value
    raise InputError(f"{what}={checks.shown(value)} must be a shader's name or file (such as "
                     "'toon' or 'glow.glsl'), or None for the built-in lighting")


_CHECKS = {
    **SHOW_CHECKS,
    "shader": _shader,
    "geometry": lambda what, v: checks.choice(what, v, GEOMETRIES),
    **PLACE_CHECKS,
    "color": lambda what, v: display_color(v, what),
    "emissive": lambda what, v: checks.finite(what, v, low=0.0,  # light of its own: none is 0
                                              brightness=True),
    **dict.fromkeys(("radius", "height", "tube"), lambda what, v: checks.drawable(
        what, v, [checks.finite(what, v, low=0.0)]) or float(v)),  # a size: 0 draws nothing
}


SPHERE_SEGMENTS = (8, 16, 32, 64)  # a sphere's levels: longitude segments, latitude half
SPHERE_OUTLINE_PX = OUTLINE_PX  # how far a coarser level's outline may stray from the circle


def sphere_geometry(radius_px: float) -> str:
    """The sphere's geometry for a picture radius of ``radius_px`` pixels: the fewest
    segments whose outline keeps within SPHERE_OUTLINE_PX of the circle ("sphere:16"),
    the full one ("sphere", 64) from 5.2 px. An N-gon errs by r (1 - cos(pi/N)) ~ r pi^2 /
    (2 N^2), so N >= pi sqrt(r / (2 e)): 16 segments to 1.3 px, 32 to 5.2 px (the full one
    errs as much at 21 px). Looser rules move golden frames past their tolerances (the
    propeller's 5.8 px hub at 0.028 px; 0.05 px, 2.4x faster particles, moves 0.25% of its
    pixels by up to 28 code values; 0.25 px by up to 40): benchmarks/RESULTS.md."""
    return sphere_named(level(radius_px, SPHERE_SEGMENTS, SPHERE_OUTLINE_PX))


def sphere_named(n: int) -> str:
    """The sphere's geometry of ``n`` segments (the full one: ``"sphere"``)."""
    return "sphere" if n == SPHERE_SEGMENTS[-1] else f"sphere:{n}"


@lru_cache(maxsize=64)  # (a torus's mesh for each ratio of its tube to its radius)
def mesh(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (V, 6) float32 position + normal, indices (I,) int32) of a geometry
    (``"sphere:16"``: a sphere of 16 segments, :func:`sphere_geometry`)."""
    if kind == "plane":
        v = np.array([[-0.5, -0.5, 0, 0, 0, 1], [0.5, -0.5, 0, 0, 0, 1],
                      [0.5, 0.5, 0, 0, 0, 1], [-0.5, 0.5, 0, 0, 0, 1]], np.float32)
        return v, np.array([0, 1, 2, 0, 2, 3], np.int32)
    if kind == "cube":
        verts, idx = [], []
        for axis in range(3):
            for sign in (-1.0, 1.0):
                n = np.zeros(3)
                n[axis] = sign
                u = np.roll(n, 1) if sign > 0 else np.roll(n, 2)
                w = np.cross(n, u)
                base = len(verts)
                for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                    verts.append(np.concatenate([0.5 * (n + a * u + b * w), n]))
                idx += [base, base + 1, base + 2, base, base + 2, base + 3]
        return np.array(verts, np.float32), np.array(idx, np.int32)
    levels = {"sphere": SPHERE_SEGMENTS[-1], **{f"sphere:{n}": n for n in SPHERE_SEGMENTS}}
    if kind in levels:
        return _sphere(levels[kind])
    if kind.split(":")[0] in ROUND:
        return round_mesh(kind)
    raise ValueError(f"unknown geometry {kind!r}")


def _sphere(lon: int) -> tuple[np.ndarray, np.ndarray]:
    """A unit UV sphere of ``lon`` segments around and ``lon / 2`` from pole to pole."""
    lat = lon // 2
    th = np.linspace(0, math.pi, lat + 1)[:, None]
    ph = np.linspace(0, 2 * math.pi, lon + 1)[None, :]
    n = np.stack(np.broadcast_arrays(np.sin(th) * np.cos(ph), np.cos(th),
                                     np.sin(th) * np.sin(ph)), -1).reshape(-1, 3)
    k = 1.0 if lon == SPHERE_SEGMENTS[-1] else outline_scale(lon)  # (a 1.9 px particle
    # of 8 segments, inscribed, drew 10% smaller)
    v = np.concatenate([n * k, n], axis=1).astype(np.float32)  # normal: unit sphere's
    return v, grid(lat + 1, lon).astype(np.int32)

