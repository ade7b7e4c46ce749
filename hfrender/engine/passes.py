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
from hfrender.dof_boxes import to_host
from hfrender.errors import output_said, spelling
from hfrender.io.sequence_names import is_sequence
from hfrender.scene import ShaderScene

CHANNELS = {"depth": ("Z",), "velocity": ("forward.u", "forward.v")}  # by pass


def check_passes(config: RenderConfig, scene: Any = None) -> None:
    """``--passes`` where the output holds them (an EXR sequence) and the scene draws them
    (not a fragment shader); one line, before any work."""
    if not config.passes:
        return
    spell = spelling()
    said = spell.said("passes", ",".join(config.passes))
    out = str(config.output)
    exr, sequence = Path(out).suffix.lower() == ".exr", is_sequence(out)
    if not (exr and sequence):
        what = ("a PNG sequence" if sequence else "one image") if Path(out).suffix.lower() \
            in (".png", ".exr") else "a video"
        raise ConfigError(f"{said}: {out} is {what}, which takes no passes: they are "
                          f"channels of an EXR sequence's frames "
                          f"({output_said('frames/%04d.exr')})")
    if isinstance(scene, ShaderScene):
        raise ConfigError(f"{said}: {Path(scene.source_path).name} is a fragment shader, "
                          "which draws no depth or velocity; render without "
                          f"{spell.without('passes', ','.join(config.passes))}")


class FramePasses:
    """Each output frame's passes, taken from its hyperframe as it is fused (:meth:`take`)
    and given to the writer as it writes the frame (:meth:`channels`)."""

    def __init__(self, passes: tuple[str, ...], fps: float, schedule: Any, end: int) -> None:
        """``schedule``: the render's (SampleSchedule); ``end``: its output frames' end."""
        self.depth, self.velocity = "depth" in passes, "velocity" in passes
        self.fps, self.schedule, self.end = fps, schedule, end
        self._frames: dict[int, dict[str, np.ndarray]] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, config: RenderConfig, plan: Any) -> FramePasses | None:
        """The passes of a render (None without ``--passes``)."""
        if not config.passes:
            return None
        return cls(config.passes, config.fps, plan.schedule, plan.first_frame + plan.count)

    def take(self, hyper: Any, windows: Any, first: int) -> None:
        """The passes of the frames ``first..`` that ``windows`` of ``hyper`` make (before
        it is fused: its slot is then given back)."""
        if not windows.count:
            return
        kept = self._nearest(np.asarray(hyper.timestamps, np.float64), windows, first)
        for k, i in enumerate(kept):
            with self._lock:
                self._frames[first + k] = self._planes(hyper, i)

    def kept(self, plan: Any) -> np.ndarray:
        """Per sub-frame of ``plan`` (a chunk of the stream, before it is drawn): whether
        :meth:`take` keeps its planes for a frame (the drawer reads the others' back only
        where a mode needs every sub-frame's)."""
        n = len(plan.times)
        more = min(-(-plan.overlap // plan.step), self.end - plan.first_frame - plan.count)
        if more > 0:  # (above 360 degrees the next chunk's first windows reach back into
            # this one's last sub-frames, drawn now: planned with it, as a plan is pure)
            plan = self.schedule.plan(plan.count + more, plan.first_frame)
        times = plan.times if plan.drawn is None else np.where(plan.drawn, plan.times, np.nan)
        mask = np.zeros(len(plan.times), bool)
        mask[self._nearest(np.asarray(times, np.float64), plan.weights, plan.first_frame)] = True
        return mask[:n]

    def _nearest(self, times: np.ndarray, windows: Any, first: int) -> list[int]:
        """Each window's sub-frame (an index into ``times``; NaN: not drawn) nearest the
        middle of its frame's shutter (frames ``first..``); of two as near, the earlier."""
        middles = self.schedule.shutter_spans(first + np.arange(windows.count)).mean(axis=1)
        kept = []
        for k in range(windows.count):
            index = int(windows.starts[k]) + np.flatnonzero(windows.rows[k] > 0)
            index = index[np.isfinite(times[index])]
            kept.append(int(index[np.argmin(np.round(np.abs(times[index] - middles[k]), 9))]))
        return kept

    def _planes(self, hyper: Any, i: int) -> dict[str, np.ndarray]:
        planes: dict[str, np.ndarray] = {}
        if self.depth:
            planes["Z"] = to_host(hyper.depth[i]).astype(np.float32)
        if self.velocity:  # pixels a second, x right and y down -> pixels a frame, v up
            v = to_host(hyper.velocity[i]).astype(np.float32) / np.float32(self.fps)
            planes["forward.u"], planes["forward.v"] = v[..., 0], np.float32(0) - v[..., 1]
        return planes

    def channels(self, k: int) -> dict[str, np.ndarray]:
        """Output frame ``k``'s channels, once (the writer's, as it writes the frame)."""
        with self._lock:
            return self._frames.pop(k)
