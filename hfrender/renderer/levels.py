"""The geometry drawn for each built-in object: a sphere's or a round shape's level of
detail from its size on the picture (:func:`levels`), for all of a sub-frame's objects in
one pass: their sizes, depths and picture radii in NumPy arrays (was: 12 us an object, its
matrix turned to lists: 3,000 particles, 36 ms a sub-frame)."""

from __future__ import annotations

import math

import numpy as np

from hfrender.scene.objects import SPHERE_OUTLINE_PX, SPHERE_SEGMENTS, sphere_named
from hfrender.scene.round_shapes import (
    OUTLINE_PX,
    ROUND,
    SEGMENTS,
    half_extents,
    levels_of,
    round_named,
    tube_reach,
)


def levels(kinds: list[str], models: np.ndarray, lens: tuple,
           orthographic: bool) -> list[str]:
    """The geometry drawn for objects of geometries ``kinds`` at world matrices ``models``
    (N, 4, 4): a sphere's level from its radius in pixels (:func:`sphere_geometry`), the
    largest a ray from the eye shows it: its radius over the depth of its nearest point,
    times d / depth where it lies off the axis (the picture stretches it radially); a
    cylinder's, cone's or torus's from its circle about its axis so
    (:func:`round_level`), its nearest point by its box; any other's, its kind (a cube's).
    Their segments picked in one pass too (:func:`levels_of`).
    ``lens``: (eye, forward, pixels 1 m spans 1 m in front of the eye). The arithmetic of
    one object at a time, operation for operation (the same levels)."""
    out = list(kinds)
    at = [i for i, kind in enumerate(kinds) if kind == "sphere" or kind.split(":")[0] in ROUND]
    if not at:
        return out
    shapes = [kinds[i] for i in at]
    m = models[at]
    sizes = np.array([[math.hypot(*column) for column in columns]  # (math's: np.hypot
                      for columns in m[:, :3, :3].transpose(0, 2, 1).tolist()])  # takes 2)
    sphere = np.array([kind == "sphere" for kind in shapes])
    reach_of = np.array([(1.0, 1.0, 1.0, 1.0) if s else (*half_extents(k), tube_reach(k))
                         for s, k in zip(sphere.tolist(), shapes, strict=True)])
    eye, forward, pixels = lens
    with np.errstate(all="ignore"):  # (overflow to inf, a depth of 0: as floats do)
        radius = np.where(sphere, sizes.max(axis=1), np.maximum(sizes[:, 0], sizes[:, 2]))
        reach = np.where(sphere, radius, ((0.0 + sizes[:, 0] * reach_of[:, 0])
                                          + sizes[:, 1] * reach_of[:, 1])
                         + sizes[:, 2] * reach_of[:, 2])
        if orthographic:
            picture = radius * pixels
            near = [True] * len(at)
        else:
            to = m[:, :3, 3] - np.asarray(eye, np.float64)
            depth = ((0.0 + to[:, 0] * forward[0]) + to[:, 1] * forward[1]
                     + to[:, 2] * forward[2]) - reach
            near = ((depth > 0.0) & np.isfinite(depth)).tolist()  # (else: around or behind
            far = np.array([math.hypot(*v) for v in to.tolist()])  # the eye: the full one)
            picture = radius * pixels * far / (depth * depth)
        sphere_n = levels_of(picture, SPHERE_SEGMENTS, SPHERE_OUTLINE_PX).tolist()
        round_n = levels_of(picture * reach_of[:, 3], SEGMENTS, OUTLINE_PX).tolist()  # (a
        # round shape's circle: a torus's widened, tube_reach)
    names: dict[tuple, str] = {}  # (kind, segments): its geometry
    for i, kind, fine, n, n_round in zip(at, shapes, near, sphere_n, round_n, strict=True):
        if fine:
            key = (kind, n if kind == "sphere" else n_round)
            if key not in names:
                names[key] = sphere_named(n) if kind == "sphere" else round_named(*key)
            out[i] = names[key]
    return out
