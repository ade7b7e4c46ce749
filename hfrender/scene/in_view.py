"""What a scene shows at its first look, told where the picture would surprise: no object in
view (behind the camera, outside the picture, past ``camera.far``, under a pixel), or one
so far from the origin that 32-bit positions there are coarser than a pixel.

A trial: a model in millimetres past the far plane, a model of 1 mm seen from 4 m, a model
exported at its survey coordinates (1e5 m out: its shading noise), each rendered the
background, or noise, without a word. Each object is taken by the box around it, placed
(its model matrix, in float64); a hint never fails a render.
"""

from __future__ import annotations

import logging

import numpy as np

from hfrender.scene import Scene
from hfrender.scene.meshes import is_model, model_data
from hfrender.scene.objects import Object3D, mesh

log = logging.getLogger(__name__)

COARSE = 0.25  # a step of 32-bit world positions over this share of a pixel: noisy shading
SHOWN = 3  # objects named in a warning


def say_what_is_seen(scene: Scene, size: tuple[int, int], t: float) -> None:
    """Warnings at time ``t`` for a picture of ``size``: nothing in view (each object's
    why), and objects whose 32-bit positions step coarser than :data:`COARSE` of a pixel."""
    try:
        seen = [(obj, _where(scene, obj, size)) for obj in scene.objects if obj.visible]
    except Exception:  # noqa: BLE001 - a camera or object the render refuses in its own words
        return
    if not seen:
        return
    name = type(scene).__name__
    if not any(why is None for _, why in seen):
        said = "; ".join(f"{_named(obj)} {why}" for obj, why in seen[:SHOWN])
        more = f" (and {len(seen) - SHOWN} more)" if len(seen) > SHOWN else ""
        log.warning("%s: no object is in view at t=%g s: %s%s; the frames show the "
                    "background alone", name, t, said, more)
        return
    for obj, _ in seen:
        step, pixel, far = _coarseness(scene, obj, size)
        if step > COARSE * pixel:
            log.warning("%s: %s is %.3g m from the origin, where 32-bit positions step %.2g "
                        "mm, %.2g px at its distance from the camera: its shading will be "
                        "noisy; move the scene near the origin (a model's position = "
                        "-its bounds' centre)", name, _named(obj), far, step * 1e3,
                        step / pixel)
            return


def _named(obj: Object3D) -> str:
    """``the Sphere at (0, 1, 0)``; a model by its file: ``the Mesh far.glb``."""
    if is_model(obj.geometry):
        return f"the {type(obj).__name__} {model_data(obj.geometry).path.name}"
    at = ", ".join(f"{float(v):.4g}" for v in obj.position)
    return f"the {type(obj).__name__} at ({at})"


def _corners(obj: Object3D) -> np.ndarray:
    """(8, 4): the corners of the box around the object, placed in the world."""
    bounds = getattr(obj, "bounds", None)
    if bounds is None:
        v = mesh(obj.geometry)[0][:, :3]
        bounds = np.stack([v.min(0), v.max(0)])
    lo, hi = np.asarray(bounds, np.float64)
    box = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                    for z in (lo[2], hi[2])])
    return box @ obj.model_matrix().T


def _where(scene: Scene, obj: Object3D, size: tuple[int, int]) -> str | None:
    """Why the object is not in view (``None``: it is)."""
    cam = scene.camera
    view = _corners(obj) @ cam.view_matrix().T
    depth = -view[:, 2]  # along the view axis
    if depth.max() <= 0:
        return "is behind the camera"
    if depth.min() > cam.far:
        return f"is past camera.far ({cam.far:g} m) at {depth.min():.4g} m"
    if depth.max() < cam.near:
        return f"is nearer than camera.near ({cam.near:g} m)"
    if depth.min() <= 0:  # around the camera: some of it in view, as far as is told here
        return None
    clip = view @ cam.projection(size[0] / size[1]).T
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
    """(a step of 32-bit positions at the object, metres; a pixel's width there, metres;
    the object's farthest corner's distance from the origin)."""
    corners = _corners(obj)[:, :3]
    far = float(np.abs(corners).max())
    step = float(np.spacing(np.float32(far)))
    cam = scene.camera
    p11 = abs(cam.projection(size[0] / size[1])[1, 1])  # 2 / picture height at depth 1
    depth = max(float(np.linalg.norm(corners.mean(0) - np.asarray(cam.position))), cam.near)
    pixel = 2 / (p11 * size[1]) * (1.0 if cam.orthographic else depth)
    return step, pixel, far
