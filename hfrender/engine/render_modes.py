"""What a render's modes come to for its scene, before any sub-frame is drawn: depth of
field (``--dof``), transparency (``--transparent``, a scene's ``background = None``), the
reconstruction of motion between sub-frames (``--reconstruct``), and ``--samples auto`` for a
fragment shader."""

from __future__ import annotations

import logging
from pathlib import Path

from hfrender.config import ConfigError, RenderConfig
from hfrender.errors import spelling
from hfrender.scene import Scene, ShaderScene
from hfrender.scene.ready import dof_from_start, looked_at

log = logging.getLogger(__name__)


def resolve_dof(mode: str, scene: Scene, frame: int = 0, fps: float = 30.0) -> str:
    """``auto`` -> lens when the camera has an f-stop at t = 0 (``dof_from_start``; the
    scene left at output frame ``frame``'s time); explicit modes must make sense."""
    said = spelling()  # (the flags, or hf.render's keywords: dof='lens' ... dof='off')
    if isinstance(scene, ShaderScene):
        if mode in ("lens", "depth"):
            raise ConfigError(f"{said.said('dof', mode)}: {Path(scene.source_path).name} is a "
                              f"shader scene without a camera or depth; use "
                              f"{said.said('dof', 'off')}")
        return "off"
    if mode == "auto":
        return "lens" if dof_from_start(scene, frame, fps) else "off"
    if mode != "off" and scene.camera.orthographic:
        raise ConfigError(f"{said.said('dof', mode)}: the scene's camera is orthographic, and "
                          f"an orthographic camera has no depth of field; use "
                          f"{said.said('dof', 'off')}")
    if mode != "off" and not (scene.camera.has_dof or dof_from_start(scene, frame, fps)
                              or _dof_later(scene, frame, fps)):
        raise ConfigError(f"{said.said('dof', mode)}: the scene's camera has no f-stop (at "
                          f"t = 0, nor at {LOOKS} times across the animation); set "
                          "self.camera.f_stop (e.g. 2.8) and focus_distance in setup()")
    return mode


LOOKS = 64  # times across an animation looked at for an f-stop set later


def _dof_later(scene: Scene, frame: int, fps: float) -> bool:
    """Whether the camera has an f-stop at any of :data:`LOOKS` times across the scene's
    duration: an explicit ``--dof`` then draws the frames that have one with it (the
    others sharp), as ``--dof auto``'s warning of an f-stop set later advises (was:
    refused)."""
    duration = getattr(scene, "duration", None)
    if not (isinstance(duration, (int, float)) and 0 < duration < float("inf")):
        return False
    times = [duration * i / LOOKS for i in range(1, LOOKS + 1)]
    return any(looked_at(scene, lambda s: s.camera.has_dof, times, frame, fps))


def resolve_transparent(config: RenderConfig, scene: Scene) -> RenderConfig:
    """``--transparent``, or a scene whose ``background`` is None: RGBA output with straight
    alpha; a fragment shader draws every pixel, so it has no background to leave out."""
    if isinstance(scene, ShaderScene):
        if config.transparent:
            raise ConfigError(f"{spelling().on('transparent')}: "
                              f"{Path(scene.source_path).name} is a fragment shader, which "
                              "draws every pixel: there is no background to leave out")
        return config
    if scene.background is None and not config.transparent:
        return config.with_(transparent=True)
    return config


def resolve_reconstruct(mode: str, scene: Scene, backend: str = "cpu") -> bool:
    """Whether the render draws velocity and reconstructs the motion between sub-frames:
    ``on`` where the scene has geometry; ``auto`` too when the fusion runs on CUDA (on the
    CPU the NumPy reconstruction costs several times the drawing: there it is asked for).
    A fragment shader has no velocity, so it keeps plain sub-frames (a warning with
    ``on``; the summary says so)."""
    if not asks_reconstruct(mode, backend):
        return False
    if isinstance(scene, ShaderScene):
        if mode == "on":
            log.warning("%s: %s is a fragment shader, with no geometry and so no velocity "
                        "to reconstruct the motion from; plain sub-frames",
                        spelling().said("reconstruct", "on"), Path(scene.source_path).name)
        return False
    return True


def asks_reconstruct(mode: str, backend: str) -> bool:
    """Whether ``--reconstruct MODE`` asks for it with this backend: on, or auto on CUDA."""
    return mode == "on" or (mode == "auto" and backend == "cuda")


def resolve_samples(config: RenderConfig, scene: Scene) -> RenderConfig:
    """``--samples auto`` measures each frame's motion from the scene's geometry; a fragment
    shader has none, so it draws the default count (within ``--samples-range``), said in a
    warning (was: refused, so an hfrender.toml with ``samples = "auto"`` failed every
    shader's render)."""
    if config.samples != "auto" or not isinstance(scene, ShaderScene):
        return config
    lo, hi = config.samples_range
    count = min(max(RenderConfig.samples, lo), hi)  # the default, within the range
    said = spelling()
    log.warning("%s: %s is a fragment shader, with no geometry to measure its motion by; %d "
                "sub-frames a frame (give %s for another count)", said.said("samples", "auto"),
                Path(scene.source_path).name, count, said.form("samples", "N"))
    return config.with_(samples=count)
