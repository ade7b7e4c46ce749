"""The render's side of the engine: which outputs a hyperframe computes, and fusing them
(here, on the GPU, or in a fusion process: :mod:`hfrender.engine.offload`)."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Any

import numpy as np

from hfrender.effects import fuse
from hfrender.engine import deep_output
from hfrender.engine.buffers import float_block
from hfrender.engine.offload import FusionProcessUnavailable
from hfrender.engine.render_stats import RenderStats
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.windows import WindowWeights
from hfrender.plan_stream import PlanStream

log = logging.getLogger(__name__)


def fuse_frames(hyper: HyperFrame, windows: WindowWeights, *, backend: str, shutter: Any,
                dof_method: str, channels: slice, dtype: np.dtype,
                out: np.ndarray | None = None) -> np.ndarray:
    """A hyperframe's finished frames (``dtype``, ``channels`` of RGBA), in host memory
    (from the GPU only they come back); a fusion process runs this same function. Float
    sub-frames (``--hdr``) are fused in float and encoded at the end (into ``out``, a
    recycled block of the output's codes, where given)."""
    wide = deep_output.fused_dtype(dtype, hyper.frames.dtype.kind == "f")
    if wide != hyper.frames.dtype:
        # a view of the same sub-frames, widened (lenses and all kept; not a slot's)
        hyper = replace(hyper, frames=deep_output.widen(hyper.frames, wide),
                        slot=None, pool=None)
    into = None
    if out is not None and out.dtype != wide:  # blended in this thread's float block
        into, out = out[..., channels], float_block(out.shape)
    frames = fuse(hyper, windows, lens=hyper.lenses, backend=backend, out=out,
                  shutter=shutter, dof_method=dof_method)[..., channels]
    if not isinstance(frames, np.ndarray):  # on the GPU: encoded there where it can be
        if frames.dtype.kind == "f" and dtype == np.uint8:
            return deep_output.encode8(frames).get()
        frames = frames.get()
    return deep_output.finish(frames, dtype, into)


class RenderFusion:
    """Windows from the plan, fused by the backend (the motion between sub-frames
    reconstructed where the hyperframe has velocity); ``processes``: host hyperframes are
    fused there instead of on the engine's thread (``fallback``: here instead, said once,
    when they cannot fuse for this render)."""

    def __init__(self, plan: PlanStream, backend: str, stats: RenderStats,
                 dof_method: str = "fast", transparent: bool = False,
                 dtype: Any = np.uint8, processes: Any = None, fallback: bool = True,
                 passes: Any = None, reconstruct: bool = True) -> None:
        self.plan, self.backend, self.stats = plan, backend, stats
        self.dof_method = dof_method
        self.channels = slice(0, 4 if transparent else 3)  # RGBA out: straight alpha
        # 16-bit PNG, EXR: sub-frames widened before fusion (hfrender.engine.deep_output)
        self.dtype = np.dtype(dtype)
        self.processes, self.fallback = processes, fallback
        self.passes = passes  # --passes: each frame's, taken before it is fused
        # (False: velocity drawn for --passes alone, not reconstructed from)
        self.reconstruct = reconstruct
        self._lock = threading.Lock()

    def windows(self, hyper: HyperFrame) -> tuple[int, WindowWeights]:
        return self.plan.in_span(hyper.first_index, hyper.halo, hyper.frame_count)

    def shutter_spans(self, first: int, count: int) -> np.ndarray:
        """Output frames ``first..first + count - 1``'s shutters, what the motion between
        the sub-frames is reconstructed over."""
        return self.plan.schedule.shutter_spans(first + np.arange(count))

    def abort(self) -> None:
        """The engine failed (a second Ctrl-C, an error): the hyperframes being fused in
        processes are thrown away now, not waited for."""
        processes = self.processes
        if processes is not None:
            processes.abort()

    def fuse(self, hyper: HyperFrame, windows: WindowWeights, out: Any,
             first: int = 0) -> np.ndarray:
        shutter = None
        if self.passes is not None:
            self.passes.take(hyper, windows, first)
        if hyper.velocity is not None and windows.count and self.reconstruct:
            shutter = self.shutter_spans(first, windows.count)
        how = dict(backend=self.backend, shutter=shutter, dof_method=self.dof_method,
                   channels=self.channels, dtype=self.dtype)
        if not isinstance(hyper.frames, np.ndarray):  # on the GPU
            frames = fuse_frames(hyper, windows, **how)
            moved = self.dtype if self.dtype == np.uint8 else deep_output.fused_dtype(
                self.dtype, hyper.frames.dtype.kind == "f")
            with self._lock:  # what crossed: 8-bit codes, else the fused frames
                self.stats.device_to_host_bytes += frames.size * moved.itemsize
            return frames
        processes = self.processes
        if processes is not None:
            try:
                return processes.call(fuse_frames, hyper, windows, **how)
            except FusionProcessUnavailable as exc:
                if not self.fallback:
                    raise
                with self._lock:
                    if self.processes is not None:
                        log.warning("%s: fusing in this process", exc)
                        self.processes, self.stats.fusion_processes = None, 0
        return fuse_frames(hyper, windows, out=out, **how)
