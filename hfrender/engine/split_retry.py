"""Split and retry: a hyperframe whose fusion runs out of memory is fused in halves.

``MemoryError`` or CUDA's out-of-memory while fusing a hyperframe splits it at the window
end nearest its middle, and each half is fused (and split again where it must), down to a
single window; the windows are the same, so the output does not change. A single window
that does not fit raises :class:`FusionError`, which says what to lower.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError, out_of_memory, spelling
from hfrender.hyperframe.frame import HyperFrame, Status
from hfrender.hyperframe.windows import WindowWeights

log = logging.getLogger("hfrender.engine.core")  # its line named as before the move


class FusionError(HFRenderError):
    """Fusing a hyperframe failed for a reason the user can act on (the message says why)."""


class SplitRetry:
    """The fusion of one hyperframe with split-and-retry, for :class:`~hfrender.engine.core.Engine`
    (its fusion threads call :meth:`_fuse_or_split`); it uses the engine's ``fusion``,
    ``buffers``, ``reorder``, ``stats`` and the windows ``submit`` planned."""

    fusion: Any
    buffers: Any
    reorder: Any
    stats: Any
    _planned: dict[int, tuple]
    _lock: threading.Lock

    def _fuse_or_split(self, hyper: HyperFrame) -> None:
        """Fuse ``hyper`` and release it; on out-of-memory, split it and fuse the halves.
        Every part is released whatever happens (a slot must never leak)."""
        try:
            planned = self._planned.pop(id(hyper), None)  # split parts are planned afresh
            if planned is not None and planned[0] is hyper:
                k0, windows = planned[1], planned[2]
            else:
                k0, windows = self.fusion.windows(hyper)
            try:
                frames = self._fuse(hyper, windows, k0)
            except BaseException as exc:
                cut = self._split_point(hyper, windows) if out_of_memory(exc) else None
                if cut is None:
                    if out_of_memory(exc):  # (on a fusion thread: the caller's spelling
                        said = spelling()  # is in its context, hfrender.engine.core._Thread)
                        raise FusionError(
                            f"out of memory fusing one window of {hyper.frame_count} "
                            f"sub-frames ({type(exc).__name__}); lower "
                            f"{said.name('samples')} or {said.name('size')}") from exc
                    raise
                self._split(hyper, cut, exc)
                return
            hyper.status = Status.DONE
        except BaseException:
            hyper.status = Status.FAILED
            raise
        finally:
            hyper.release()
        if windows.count:
            self.reorder.put(k0, frames)

    def _split(self, hyper: HyperFrame, cut: int, exc: BaseException) -> None:
        log.warning("fusion of %d sub-frames ran out of memory (%s): splitting in two",
                    hyper.frame_count, type(exc).__name__)
        parts = list(hyper.split(cut))
        with self._lock:
            self.stats.retries += 1
        hyper.status = Status.DONE  # its parts carry on
        for i, part in enumerate(parts):
            part.retry_count = hyper.retry_count + 1
            try:
                self._fuse_or_split(part)
            except BaseException:
                for rest in parts[i + 1:]:
                    rest.release()
                raise

    @staticmethod
    def _split_point(hyper: HyperFrame, windows: WindowWeights) -> int | None:
        """Where to cut so that each half holds whole windows: at a window's last frame
        (the next window then starts ``overlap`` frames earlier, which the second half
        carries). The window end nearest the middle; None with a single window."""
        ends = windows.ends()
        inside = ends[(ends > hyper.halo) & (ends < hyper.frame_count)]
        if len(inside) == 0:
            return None
        return int(inside[np.argmin(np.abs(inside - hyper.frame_count / 2))])

    def _fuse(self, hyper: HyperFrame, windows: WindowWeights, first: int) -> np.ndarray:
        if windows.count == 0:
            return np.empty((0,))
        out = self.buffers.take(windows.count) if self.buffers is not None else None
        return self.fusion.fuse(hyper, windows, out, first)
