"""How wide the sun's soft shadows are on the picture (a scene's ``light_angle``): what
``--samples auto`` and the hint of a fixed count (:mod:`hfrender.engine.adaptive`) size the
sun's points by, as they size the lens's positions by its circles of confusion.

A shadowed pixel of a probe sub-frame (lit from the disk's middle) lies ``h`` metres
behind its nearest caster along the light (its depth from the light minus the map's);
its penumbra spans ``h x 2 tan(light_angle / 2)`` metres there, which the camera shows
as that many metres at the pixel's depth (foreshortening left out: an upper bound).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def penumbra_px(renderer: Any, depth: np.ndarray) -> float:
    """The widest penumbra, in output pixels, of the sun's shadows on the probe sub-frame
    ``renderer`` last drew (``depth``: its plane read back, metres along the view axis,
    inf for sky); 0 where the scene's shadows are off or sharp (``light_angle`` 0)."""
    scene, shadows = renderer.scene, renderer.shadows
    if not scene.shadows or not scene.light_angle or shadows is None or \
            shadows.seen_by is None:
        return 0.0
    h, w = depth.shape
    rows, cols = np.nonzero(np.isfinite(depth))
    if not rows.size:
        return 0.0
    cam, z = scene.camera, depth[rows, cols].astype(np.float64)
    view, proj = renderer._camera_matrices((0.0, 0.0), (0.0, 0.0))
    ndc = np.stack([(cols + 0.5) * 2 / w - 1, (rows + 0.5) * 2 / h - 1])
    if cam.orthographic:
        x, y = (ndc - proj[:2, 3:4]) / np.diag(proj)[:2, None]
    else:
        x, y = (ndc - proj[:2, 2:3]) * z / np.diag(proj)[:2, None]
    world = np.linalg.inv(view) @ np.stack([x, y, -z, np.ones_like(z)])
    to_map, metres, texel = shadows.seen_by
    s, t, r = (to_map @ world)[:3]
    size = shadows.size
    inside = (s >= 0) & (s < 1) & (t >= 0) & (t < 1)
    if not inside.any():
        return 0.0
    held = np.pad(np.frombuffer(shadows.map.read(), np.float32).reshape(size, size), 1,
                  mode="edge")
    i, j = (t[inside] * size).astype(int) + 1, (s[inside] * size).astype(int) + 1
    blocker = np.max([held[i + di, j + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)], 0)
    behind = (r[inside] - blocker) * metres  # metres behind every caster around, along
    shade = behind > texel  # the light (a receiver's own slope is no caster: it is 0 or
    if not shade.any():  # less in one of the texels around)
        return 0.0
    wide = behind[shade] * 2 * math.tan(math.radians(scene.light_angle) / 2)
    pixels = renderer._pixels_a_metre()[2]
    return float((wide * pixels / (1.0 if cam.orthographic else z[inside][shade])).max())
