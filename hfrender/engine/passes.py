"""``hfrender render --passes depth,velocity``: a compositor's passes beside the colour of
each EXR frame, from the planes the renderer draws (``--dof depth`` and ``--reconstruct``
draw them anyway; a plain render draws them only when asked).

A blurred frame is many sub-frames and has no one depth: the passes are those of the
sub-frame drawn nearest the middle of the frame's shutter (its time, with the default
``--shutter-position center``), one sample a pixel, as a renderer's Z pass is. ``Z``:
metres along the view axis, inf where nothing is (sky), float32: what ``hfrender fx
--depth`` reads from the same files. ``forward.u``, ``forward.v``: the screen velocity
at that instant in pixels per frame, ``u`` to the right and ``v`` up, as Nuke's motion
vector channels (``forward``) and its VectorBlur take them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.config import ConfigError, RenderConfig
from hfrender.errors import spelling
from hfrender.io.sequence_names import is_sequence
from hfrender.scene import ShaderScene

CHANNELS = {"depth": ("Z",), "velocity": ("forward.u", "forward.v")}  # by pass


def _host(a: Any) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)


def check_passes(config: RenderConfig, scene: Any = None) -> None:
    """``--passes`` where the output holds them (an EXR sequence) and the scene draws them
    (not a fragment shader); one line, before any work."""
    if not config.passes:
        return
    said = spelling().said("passes", ",".join(config.passes))
    out = str(config.output)
    exr, sequence = Path(out).suffix.lower() == ".exr", is_sequence(out)
    if not (exr and sequence):
        what = ("a PNG sequence" if sequence else "one image") if Path(out).suffix.lower() \
            in (".png", ".exr") else "a video"
        raise ConfigError(f"{said}: {out} is {what}, which takes no passes: they are "
                          "channels of an EXR sequence's frames (-o frames/%04d.exr)")
    if isinstance(scene, ShaderScene):
        raise ConfigError(f"{said}: {Path(scene.source_path).name} is a fragment shader, "
                          "which draws no depth or velocity; render without --passes")


class FramePasses:
    """Each output frame's passes, taken from its hyperframe as it is fused (:meth:`take`)
    and given to the writer as it writes the frame (:meth:`channels`)."""

    def __init__(self, passes: tuple[str, ...], fps: float, spans: Any) -> None:
        """``spans(first, count)``: the shutters of output frames ``first..``, (count, 2)."""
        self.depth, self.velocity = "depth" in passes, "velocity" in passes
        self.fps, self.spans = fps, spans
        self._frames: dict[int, dict[str, np.ndarray]] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, config: RenderConfig, plan: Any) -> FramePasses | None:
        """The passes of a render (None without ``--passes``)."""
        if not config.passes:
            return None
        return cls(config.passes, config.fps,
                   lambda first, n: plan.schedule.shutter_spans(first + np.arange(n)))

    def take(self, hyper: Any, windows: Any, first: int) -> None:
        """The passes of the frames ``first..`` that ``windows`` of ``hyper`` make (before
        it is fused: its slot is then given back)."""
        if not windows.count:
            return
        middles = self.spans(first, windows.count).mean(axis=1)
        times = np.asarray(hyper.timestamps, np.float64)
        for k in range(windows.count):
            start, row = int(windows.starts[k]), windows.rows[k]
            index = start + np.flatnonzero(row > 0)
            index = index[np.isfinite(times[index])]
            # the nearest the middle; of two as near (an even count), the earlier
            i = int(index[np.argmin(np.round(np.abs(times[index] - middles[k]), 9))])
            with self._lock:
                self._frames[first + k] = self._planes(hyper, i)

    def _planes(self, hyper: Any, i: int) -> dict[str, np.ndarray]:
        planes: dict[str, np.ndarray] = {}
        if self.depth:
            planes["Z"] = _host(hyper.depth[i]).astype(np.float32)
        if self.velocity:  # pixels a second, x right and y down -> pixels a frame, v up
            v = _host(hyper.velocity[i]).astype(np.float32) / np.float32(self.fps)
            planes["forward.u"], planes["forward.v"] = v[..., 0], np.float32(0) - v[..., 1]
        return planes

    def channels(self, k: int) -> dict[str, np.ndarray]:
        """Output frame ``k``'s channels, once (the writer's, as it writes the frame)."""
        with self._lock:
            return self._frames.pop(k)
