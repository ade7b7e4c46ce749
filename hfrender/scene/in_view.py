"""What a scene shows at its first look, told where the picture would surprise: no object in
view (behind the camera, outside the picture, past ``camera.far``, under a pixel), or one
so far from the origin that 32-bit positions there are coarser than a pixel.

A trial: a model in millimetres past the far plane, a model of 1 mm seen from 4 m, a model
exported at its survey coordinates (1e5 m out: its shading noise), each rendered the
background, or noise, without a word. Each object is taken by the box around it, placed
(its world matrix, in float64); a hint never fails a render.
"""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np

from hfrender.scene import Scene
from hfrender.scene.nodes import called, called_all
from hfrender.scene.objects import Object3D, drawn, mesh
from hfrender.scene.round_shapes import ROUND, half_extents

log = logging.getLogger(__name__)

COARSE = 0.25  # a step of 32-bit world positions over this share of a pixel: noisy shading
NEAR_ORIGIN_M = 1000.0  # an object whose box lies within this of the origin is fine-grained
SHOWN = 3  # objects named in a warning


def nothing_seen(scene: Scene, size: tuple[int, int]) -> list[str] | None:
    """Why each drawn object (visible, its opacity above 0) is not in a picture of
    ``size`` (``the Sphere at (0, 0, 10) is behind the camera``), where none is; None
    where one is (or the camera is one the render refuses in its own words, or there is
    no object: said elsewhere)."""
    try:
        scene.camera.validate()
        cam = scene.camera  # its matrices once, not an object's
        unseen, to_clip = [], (cam.view_matrix(), cam.projection(size[0] / size[1]))
        for obj in scene.objects:
            if drawn(obj):  # (faded out: opacity 0, as hidden)
                why = _where(scene, obj, size, to_clip)
                if why is None:  # one in view: enough (a scene of thousands, at once)
                    return None
                unseen.append((obj, why))
    except Exception:  # noqa: BLE001 - a camera or object the render refuses in its words
        return None
    names = called_all(scene, [obj for obj, _ in unseen])
    return [f"{name} {why}" for name, (_, why) in zip(names, unseen, strict=True)] or None


def say_nothing_seen(name: str, whys: list[str], times: list[float]) -> None:
    """The warning of :func:`nothing_seen` at each of ``times`` (the first's whys)."""
    more = f" (and {len(whys) - SHOWN} more)" if len(whys) > SHOWN else ""
    at = (f"at t={times[0]:g} s" if len(times) == 1 else
          f"at any of {len(times)} times from t={times[0]:g} to {times[-1]:g} s")
    log.warning("%s: no object is in view %s: %s%s; the frames show the background alone",
                name, at, "; ".join(whys[:SHOWN]), more)


def say_coarse(scene: Scene, size: tuple[int, int]) -> None:
    """A warning for the first object whose 32-bit world positions, where it comes nearest
    the camera, step more than :data:`COARSE` of a pixel there."""
    try:
        for obj in scene.objects:
            if not drawn(obj) or _reach(obj) < NEAR_ORIGIN_M:  # (cheap: most objects)
                continue
            step, pixel, far = _coarseness(scene, obj, size)
            if step > COARSE * pixel:
                log.warning("%s: %s is %.3g m from the origin, where 32-bit positions step "
                            "%.2g mm, %.2g px at its distance from the camera: its shading "
                            "will be noisy; move the scene near the origin (a model's "
                            "position = -its bounds' centre)", type(scene).__name__,
                            called(obj, scene), far, step * 1e3, step / pixel)
                return
    except Exception:  # noqa: BLE001 - as nothing_seen
        return


def _bounds(obj: Object3D) -> np.ndarray:
    """(2, 3): the object's own box (a model's from its file, a built-in's geometry)."""
    bounds = getattr(obj, "bounds", None)
    return _built_in(obj.geometry) if bounds is None else np.asarray(bounds, np.float64)


@lru_cache(maxsize=256)  # (a torus's: one a ratio)
def _built_in(kind: str) -> np.ndarray:
    """A built-in geometry's box, once (a scene of thousands of spheres asks each); a round
    shape's from its size (was: its full mesh made, 7 ms a torus of another ratio)."""
    if kind.split(":")[0] in ROUND:
        half = np.array(half_extents(kind), np.float64)
        return np.stack([-half, half])
    v = mesh(kind)[0][:, :3]
    return np.stack([v.min(0), v.max(0)]).astype(np.float64)


def _reach(obj: Object3D) -> float:
    """How far from the origin the object may reach, at most: its place, plus its box
    scaled (a rotation moves no corner farther than that)."""
    m = obj.world_matrix()  # (a child's: its parents' frames in)
    scale = float(np.linalg.norm(m[:3, :3], axis=0).max())
    return float(np.abs(m[:3, 3]).max() + np.abs(_bounds(obj)).max() * scale * 2)


def corners(obj: Object3D) -> np.ndarray:
    """(8, 4): the corners of the box around the object, placed in the world."""
    lo, hi = _bounds(obj)
    box = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                    for z in (lo[2], hi[2])])
    return box @ obj.world_matrix().T


def _where(scene: Scene, obj: Object3D, size: tuple[int, int],
           to_clip: tuple[np.ndarray, np.ndarray]) -> str | None:
    """Why the object is not in view (``None``: it is); ``to_clip``: the camera's view and
    projection matrices."""
    cam = scene.camera
    view = corners(obj) @ to_clip[0].T
    depth = -view[:, 2]  # along the view axis
    if depth.max() <= 0:
        return "is behind the camera"
    if depth.min() > cam.far:
        return f"is past camera.far ({cam.far:g} m) at {depth.min():.4g} m"
    if depth.max() < cam.near:
        return f"is nearer than camera.near ({cam.near:g} m)"
    if depth.min() <= 0:  # around the camera: some of it in view, as far as is told here
        return None
    clip = view @ to_clip[1].T
    ndc = clip[:, :2] / clip[:, 3:]
    lo, hi = ndc.min(0), ndc.max(0)
    if (hi < -1).any() or (lo > 1).any():
        return "is outside the picture"
    across = float(((hi - lo) * np.asarray(size) / 2).max())
    if across < 1:
        return f"is {across:.2g} px across (under a pixel)"
    return None


def _coarseness(scene: Scene, obj: Object3D, size: tuple[int, int]) -> tuple[float, float,
                                                                                 float]:
    """(a step of 32-bit positions where the object comes nearest the camera, metres; a
    pixel's width there, metres; that point's distance from the origin). The nearest
    point of its box, not its farthest corner: a floor of 10 km around the origin is fine
    where it is seen close (a review: it was said to be noisy)."""
    box = corners(obj)[:, :3]
    cam = scene.camera
    eye = np.asarray(cam.position, np.float64)
    nearest = np.clip(eye, box.min(0), box.max(0))
    far = float(np.abs(nearest).max())
    step = float(np.spacing(np.float32(far)))
    p11 = abs(cam.projection(size[0] / size[1])[1, 1])  # 2 / picture height at depth 1
    depth = max(float(np.linalg.norm(nearest - eye)), cam.near)
    pixel = 2 / (p11 * size[1]) * (1.0 if cam.orthographic else depth)
    return step, pixel, far
