"""hfrender: physically based motion blur and depth of field, fused in hyperframes.

>>> import hfrender as hf
>>> blurred = hf.motion_blur(frames, window=8)                      # doctest: +SKIP
>>> focused = hf.depth_of_field(frame, depth, focus_distance=2.0, f_stop=2.8)  # doctest: +SKIP
>>> stats = hf.render("scenes/orbit.py", "orbit.mp4", size="640x360", samples=16)  # doctest: +SKIP
>>> picture = hf.still("scenes/orbit.py", t=1.5)  # (H, W, 3) uint8       # doctest: +SKIP

``import hfrender`` needs no GPU, no display and no Ray: optional parts load when used.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

# its os.fork hooks, from the start: a child forked after the caller's own llvmpipe context
# is refused, not left waiting (the hooks load nothing; os only)
from hfrender.renderer import forks as _forks  # noqa: F401

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from hfrender.api import render, still
    from hfrender.backends import get_backend
    from hfrender.effects import depth_of_field, from_linear, fuse, motion_blur, to_linear
    from hfrender.engine.reexpose import SampleStore
    from hfrender.errors import BackendUnavailable, HFRenderError, InputError, InputTypeError
    from hfrender.hyperframe.builder import HyperFrameBuilder, auto_granularity
    from hfrender.hyperframe.frame import HyperFrame, Status
    from hfrender.hyperframe.pool import HostStorage, HyperFramePool
    from hfrender.hyperframe.windows import WindowWeights, sliding_in_span
    from hfrender.io.store import StoreError
    from hfrender.motion_vectors import vector_blur
    from hfrender.optics import Lens
    from hfrender.scene import (
        Camera,
        Cone,
        Cube,
        Cylinder,
        Group,
        Object3D,
        Plane,
        PointLight,
        Scene,
        Sphere,
        SpotLight,
        Torus,
    )
    from hfrender.scene.easing import (
        Keyframes,
        ease_in,
        ease_in_out,
        ease_out,
        keyframes,
        lerp,
        linear,
        rush_from,
        rush_into,
        smooth,
        there_and_back,
    )
    from hfrender.scene.layout import arrange, next_to
    from hfrender.scene.meshes import Mesh
    from hfrender.scene.text import Text
    from hfrender.shutter_curve import curve_weights

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable", "Camera", "Cube", "HFRenderError", "InputError", "InputTypeError",
    "Object3D", "Plane", "Scene", "Sphere", "HostStorage", "HyperFrame", "HyperFrameBuilder",
    "HyperFramePool", "Lens", "Status", "WindowWeights", "auto_granularity", "curve_weights",
    "depth_of_field", "from_linear", "fuse", "get_backend", "motion_blur", "sliding_in_span",
    "to_linear", "SampleStore", "StoreError", "Mesh", "Keyframes", "ease_in", "ease_in_out",
    "ease_out", "keyframes", "lerp", "linear", "rush_from", "rush_into", "smooth",
    "there_and_back", "Group", "Text", "arrange", "next_to", "render", "still", "__version__",
    "Cylinder", "Cone", "Torus", "vector_blur", "PointLight", "SpotLight",
]

_HOME = {
    "get_backend": "backends", "HyperFrameBuilder": "hyperframe.builder",
    "auto_granularity": "hyperframe.builder",
    "depth_of_field": "effects", "from_linear": "effects", "fuse": "effects",
    "motion_blur": "effects", "to_linear": "effects", "BackendUnavailable": "errors",
    "HFRenderError": "errors", "InputError": "errors", "InputTypeError": "errors",
    "HostStorage": "hyperframe.pool", "HyperFrame": "hyperframe.frame",
    "HyperFramePool": "hyperframe.pool", "Status": "hyperframe.frame", "Lens": "optics",
    "curve_weights": "shutter_curve", "Camera": "scene", "Cube": "scene", "Object3D": "scene",
    "Plane": "scene", "Scene": "scene", "Sphere": "scene", "Mesh": "scene.meshes",
    "Cylinder": "scene", "Cone": "scene", "Torus": "scene", "PointLight": "scene",
    "SpotLight": "scene",
    "Group": "scene",
    "Text": "scene.text", "arrange": "scene.layout", "next_to": "scene.layout",
    "WindowWeights": "hyperframe.windows",
    "sliding_in_span": "hyperframe.windows", "SampleStore": "engine.reexpose",
    "StoreError": "io.store", "render": "api", "still": "api", "vector_blur": "motion_vectors",
    **dict.fromkeys(("Keyframes", "ease_in", "ease_in_out", "ease_out", "keyframes", "lerp",
                     "linear", "rush_from", "rush_into", "smooth", "there_and_back"),
                    "scene.easing"),
}


def __getattr__(name: str) -> object:
    """The public names load with their module on first use: ``import hfrender`` stays
    cheap (the command line sets up the process before NumPy loads)."""
    import importlib

    home = _HOME.get(name)
    if home is None:  # a submodule (hfrender.effects, ...), as after an eager import
        try:
            return importlib.import_module(f"hfrender.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"hfrender.{name}":
                raise
        raise _Missing(name)
    value = getattr(importlib.import_module(f"hfrender.{home}"), name)
    globals()[name] = value
    return value


class _Missing(AttributeError):
    """``module 'hfrender' has no attribute 'Box'; did you mean hf.Cube?``, the hint made
    when the message is read: ``hasattr(hf, "x")`` (a tool probing) costs no hint tables
    (they load the scene package and NumPy, 0.2 s)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, name=name)

    def __str__(self) -> str:
        return f"module 'hfrender' has no attribute {self.name!r}{_meant(self.name)}"

    def __reduce__(self) -> tuple:
        """Pickled as the AttributeError it shows as, its hint made (pickle finds a class
        by its name, and this one's is Python's: a worker's error sent back failed)."""
        return AttributeError, (str(self),), {"name": self.name}


# shown as Python shows its own (a traceback's "AttributeError: ...", a scene's error report)
_Missing.__name__ = _Missing.__qualname__ = "AttributeError"
_Missing.__module__ = "builtins"


def _meant(name: str) -> str:
    """"; did you mean Cube?" for ``hf.Box`` or ``hf.Sphre``; a hint for manim's names
    (``hf.RED``, ``hf.DEGREES``, ``hf.VGroup``: was "no attribute 'RED'", a trial); else
    nothing."""
    from hfrender.color import manim_color_hint
    from hfrender.errors import nearest
    from hfrender.scene.other_names import HF_HINTS, HF_NAMES

    if name in HF_HINTS:
        return f"; {HF_HINTS[name]}"
    manim = manim_color_hint(name)  # hf.BLUE_E: manim's #236B8E (was: CSS 'blue', #0000FF)
    if manim:
        return f"; {manim}"
    colour = name.rsplit("_", 1)[0] if name[-2:-1] == "_" else name  # manim's RED_A
    if colour.isupper():
        from PIL import ImageColor

        colour = colour.replace("_", "").lower()  # DARK_BLUE: 'darkblue'
        if colour in ImageColor.colormap:
            return (f"; colours are given by name: color={colour!r} (or hex '#ff8800', or "
                    "3 numbers 0..1)")
    near = HF_NAMES.get(name) or next(iter(nearest(name, __all__)), None)
    return f"; did you mean hf.{near}?" if near else ""


def __dir__() -> list[str]:
    """The public names and the public submodules, not the helpers of this file."""
    import pkgutil

    return sorted(set(__all__) | {m.name for m in pkgutil.iter_modules(__path__)
                                  if not m.name.startswith("_")})


logging.getLogger(__name__).addHandler(logging.NullHandler())
# the helpers of this file are no public names: ``hf.logging`` is an AttributeError
del annotations, logging, TYPE_CHECKING
