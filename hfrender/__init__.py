"""hfrender: physically based motion blur and depth of field, fused in hyperframes.

>>> import hfrender as hf
>>> blurred = hf.motion_blur(frames, window=8)                      # doctest: +SKIP
>>> focused = hf.depth_of_field(frame, depth, focus_distance=2.0, f_stop=2.8)  # doctest: +SKIP

``import hfrender`` needs no GPU, no display and no Ray: optional parts load when used.
"""

from __future__ import annotations

import logging

from hfrender.backends import get_backend
from hfrender.builder import HyperFrameBuilder, auto_granularity
from hfrender.effects import depth_of_field, from_linear, fuse, motion_blur, to_linear
from hfrender.errors import BackendUnavailable, HFRenderError
from hfrender.hyperframe import HostStorage, HyperFrame, HyperFramePool, Status
from hfrender.optics import Lens
from hfrender.sampler import curve_weights
from hfrender.scene import Camera, Cube, Object3D, Plane, Scene, Sphere
from hfrender.windows import WindowWeights, sliding_in_span

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable", "Camera", "Cube", "HFRenderError", "Object3D", "Plane", "Scene",
    "Sphere", "HostStorage", "HyperFrame", "HyperFrameBuilder",
    "HyperFramePool", "Lens", "Status", "WindowWeights", "auto_granularity", "curve_weights",
    "depth_of_field", "from_linear", "fuse", "get_backend", "motion_blur", "sliding_in_span",
    "to_linear", "__version__",
]

logging.getLogger(__name__).addHandler(logging.NullHandler())
