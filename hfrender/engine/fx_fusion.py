"""fx's side of the engine: which windows a hyperframe of footage computes, and how they
are fused (motion blur, or depth of field from a depth pass), alpha kept or dropped."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from hfrender.color import straight_alpha
from hfrender.effects import fuse, motion_blur
from hfrender.engine.buffers import float_block
from hfrender.engine.deep_output import finish
from hfrender.engine.fx_settings import FxSettings
from hfrender.errors import InputError
from hfrender.hyperframe.frame import HyperFrame
from hfrender.hyperframe.windows import WindowWeights, sliding_in_span
from hfrender.motion_vectors import vector_blur
from hfrender.shutter_curve import weights_of

log = logging.getLogger(__name__)


def opaque(frames: Any) -> bool:
    """Every pixel of RGBA ``frames`` (NumPy or CuPy) is fully covered: its alpha the
    dtype's full value (an opaque GIF decodes as RGBA, too)."""
    full = np.iinfo(frames.dtype).max if frames.dtype.kind in "ui" else 1.0
    return bool(frames[..., 3].min() >= full)


def stream_pad(s: FxSettings) -> int:
    """Frames before the clip in fx's frame stream (frame 0 stands in for them): a sliding
    window's first outputs reach before the clip; strided windows start at frame 0."""
    return s.window - 1 if s.stride == 1 else 0


class FxFusion:
    """fx's side of the engine: sliding windows of the (padded) frame stream. Footage with
    alpha comes premultiplied (the producer's doing); ``alpha`` ``"keep"``: the output is
    made straight again, ``"drop"``: its colour is the premultiplied one (over black).
    ``codes``: float footage (EXR) written as these sRGB codes (uint16): blended in float,
    then encoded."""

    def __init__(self, s: FxSettings, alpha: str | None = None, codes: Any = None,
                 static_depth: bool = False, alpha_note: str | None = None) -> None:
        self.s, self.alpha, self.codes = s, alpha, codes
        # said once a frame is seen to have alpha less than full (was: for every footage
        # in a format with alpha, an opaque GIF too)
        self.alpha_note = alpha_note
        self.static_depth = static_depth  # every depth plane holds one frame for the shot
        self.weights = weights_of(s.weights, s.window)
        self.pad = stream_pad(s)  # the stream's frame k is the footage's k - pad

    def windows(self, hyper: HyperFrame) -> tuple[int, WindowWeights]:
        return sliding_in_span(self.weights, self.s.stride, hyper.first_index, hyper.halo,
                               hyper.frame_count)

    def _vector_blur(self, hyper: HyperFrame, lo: int, hi: int, out: Any) -> Any:
        """Frames ``lo:hi`` of ``hyper`` blurred along their vectors; a vector refused names
        its footage frame (was: its place in the hyperframe, frame 1 for frame 5)."""
        s = self.s
        try:
            return vector_blur(hyper.frames[lo:hi], hyper.velocity[lo:hi],
                               None if hyper.depth is None else hyper.depth[lo:hi],
                               shutter=s.shutter, max_length=s.max_length,
                               linear_light=s.linear_light, backend=s.backend, out=out)
        except InputError as exc:
            renumber = getattr(exc, "renumber", None)
            if renumber is None:
                raise
            raise renumber(hyper.first_index + lo - self.pad) from None

    def fuse(self, hyper: HyperFrame, windows: WindowWeights, out: Any,
             first: int = 0) -> np.ndarray:
        s, codes = self.s, out
        if self.codes is not None:  # float light first, into a block kept per thread
            out = float_block(out.shape)
        lo, hi = int(windows.starts[0]), int(windows.starts[-1]) + s.window
        span = hyper.frames[lo:hi]
        if self.alpha_note is not None and not opaque(span):
            note, self.alpha_note = self.alpha_note, None
            if note is not None:  # (not told by another fusion thread meanwhile)
                log.warning("%s", note)
        if s.vectors is not None:  # one frame a window, blurred along its vectors
            res = self._vector_blur(hyper, lo, hi, out)
        elif s.lens is None:
            res = motion_blur(span, s.window, stride=s.stride, weights=self.weights,
                              linear_light=s.linear_light, backend=s.backend, out=out)
        else:
            local = WindowWeights.sliding(self.weights, windows.count, s.stride)
            depth = hyper.depth[lo:hi]
            if self.static_depth:  # one plane, seen as all: a GPU takes it across once
                depth = np.broadcast_to(depth[0], depth.shape)
            res = fuse(HyperFrame(span, depth), local,
                       lens=s.lenses(depth, hyper.first_index + lo - self.pad),
                       linear_light=s.linear_light, backend=s.backend, out=out,
                       dof_method=s.dof_method)
        if self.codes is not None:  # float footage, as written (its light encoded, straight
            if self.alpha == "drop":  # alpha past its coverage as render's; or halves)
                return finish(res[..., :3], self.codes)
            return finish(res, self.codes, codes)  # (the float block is finish's to clobber)
        if self.alpha == "keep":
            res[...] = straight_alpha(res, s.linear_light)
        return res[..., :3] if self.alpha == "drop" else res


