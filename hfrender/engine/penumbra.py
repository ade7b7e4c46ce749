"""How wide the sun's soft shadows are on the picture (a scene's ``light_angle``): what
``--samples auto`` and the hint of a fixed count (:mod:`hfrender.engine.adaptive`) size the
sun's points by, as they size the lens's positions by its circles of confusion.

A shadowed pixel of a probe sub-frame (lit from the disk's middle) lies ``h`` metres
behind its nearest caster along the light (its depth from the light minus the farthest
map depth in the 3x3 texels around its point); its penumbra spans ``h x 2
tan(light_angle / 2)`` metres there, which the camera shows as that many metres at the
pixel's depth (foreshortening left out: an upper bound). Found on the GL side at every
pixel (:class:`~hfrender.renderer.penumbra_pass.PenumbraPass`; was the map read back,
~190 ms a probe), and not again while the map, the camera and the depth plane are the
very ones of the last probe (a still scene's every probe after its first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hfrender.renderer.penumbra_pass import PenumbraPass
from hfrender.renderer.shadows import sun_casts


def penumbra_px(renderer: Any, depth: np.ndarray) -> float:
    """The widest penumbra, in output pixels, of the sun's shadows on the probe sub-frame
    ``renderer`` last drew (``depth``: its plane read back, metres along the view axis,
    inf for sky); 0 where the scene's shadows are off or sharp (``light_angle`` 0), or its
    sun gives no light (no map drawn: :func:`~hfrender.renderer.shadows.sun_casts`; was
    the last lit map's width)."""
    scene, shadows = renderer.scene, renderer.shadows
    if not sun_casts(scene) or not scene.light_angle or shadows is None or \
            shadows.seen_by is None or not np.isfinite(depth).any():  # (sky alone: none)
        return 0.0
    if shadows.penumbra is None:  # (made once a renderer, released with its shadows)
        shadows.penumbra = PenumbraPass(renderer.ctx)
    found = shadows.penumbra
    spread = 2 * math.tan(math.radians(scene.light_angle) / 2)
    view, proj = renderer._camera_matrices((0.0, 0.0), (0.0, 0.0))
    key = (shadows.key, shadows.seen_by[0].tobytes(), view.tobytes(), proj.tobytes(), spread)
    if found.held is not None and found.held[0] == key and \
            np.array_equal(found.held[1], depth):  # (the map: the same key, the same map)
        return found.held[2]
    widest = float(found.plane(renderer, spread).max())
    found.held = (key, depth.copy(), widest)
    return widest
