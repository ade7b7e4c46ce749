"""Banded window weights: which frames make each output frame (a value type).

Produced by the sampler, consumed by the fusion backends. Also the index arithmetic that
assigns sliding windows to hyperframes: a window belongs to the hyperframe in which its
last frame is new (not halo), so every output frame is computed exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hfrender import validate
from hfrender.errors import InputError, InputTypeError, shown


@dataclass(frozen=True)
class WindowWeights:
    """Banded weight matrix: output ``k`` = ``sum_i rows[k, i] * frame[starts[k] + i]``.

    ``starts`` are frame indices relative to the frames the backend is given (for a
    hyperframe: including its halo frames). Rows are zero-padded to a common width.
    """

    starts: np.ndarray  # (M,) int64, non-decreasing
    rows: np.ndarray  # (M, L) float64, each row sums to 1

    def __post_init__(self) -> None:
        starts, rows = np.asarray(self.starts), np.asarray(self.rows)
        if starts.ndim != 1 or rows.ndim != 2 or len(starts) != len(rows):
            raise InputError(f"WindowWeights: starts {starts.shape} and rows {rows.shape} must "
                             "be (M,) and (M, L)")
        if starts.size and starts.dtype.kind not in "iu":
            raise InputError(f"WindowWeights: starts are {starts.dtype}; they are frame "
                             "indices (integers)")
        if rows.dtype.kind not in "fiu" or not np.isfinite(rows).all():
            raise InputError("WindowWeights: rows must be finite numbers (weights of frames)")
        # lists (or other arrays) given: kept as the arrays the backends read
        object.__setattr__(self, "starts", starts.astype(np.int64, copy=False))
        object.__setattr__(self, "rows", rows.astype(np.float64, copy=False))
        if len(starts) > 1 and np.any(np.diff(starts) < 0):
            raise InputError("WindowWeights: starts must be non-decreasing (outputs in order)")
        if len(starts) and starts[0] < 0:
            raise InputError(f"WindowWeights: starts[0]={int(starts[0])}; frame indices count "
                             "from 0, the hyperframe's first frame (halo included)")

    @classmethod
    def sliding(cls, weights: np.ndarray, count: int, stride: int, first: int = 0) -> WindowWeights:
        """``count`` windows of the same ``weights``, ``stride`` frames apart."""
        row = window_row(weights)
        count = validate.integer(count, "count", 0)  # (was: -1 a NumPy broadcast error)
        starts = first + stride * np.arange(count, dtype=np.int64)
        rows = np.broadcast_to(row, (count, len(row)))
        return cls(starts, np.ascontiguousarray(rows))

    @classmethod
    def from_dense(cls, dense: np.ndarray) -> WindowWeights:
        """From a dense ``(M, N)`` matrix whose rows have contiguous non-zero bands."""
        dense = np.asarray(dense, np.float64)
        nz = dense != 0
        if not nz.any(axis=1).all():
            raise InputError("every output frame needs at least one non-zero weight")
        starts = nz.argmax(axis=1)
        ends = dense.shape[1] - nz[:, ::-1].argmax(axis=1)
        width = int((ends - starts).max())
        rows = np.zeros((dense.shape[0], width))
        for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
            rows[k, : e - s] = dense[k, s:e]
        return cls(starts.astype(np.int64), rows)

    @property
    def count(self) -> int:
        return len(self.starts)

    @property
    def width(self) -> int:
        return self.rows.shape[1]

    def ends(self) -> np.ndarray:
        """One past the last frame with a non-zero weight, per output (computed once)."""
        cached = self.__dict__.get("_ends")
        if cached is None:
            nz = self.rows != 0
            cached = self.starts + self.width - nz[:, ::-1].argmax(axis=1)
            object.__setattr__(self, "_ends", cached)  # frozen: a private cache only
        return cached

    def frames_needed(self) -> int:
        """Number of frames the windows reach (one past the last index used)."""
        return int(self.ends().max()) if self.count else 0

    def to_dense(self, n_frames: int) -> np.ndarray:
        dense = np.zeros((self.count, n_frames))
        for k in range(self.count):
            s = int(self.starts[k])
            row = self.rows[k][: max(0, n_frames - s)]
            dense[k, s : s + len(row)] = row
        return dense

    def shifted(self, offset: int) -> WindowWeights:
        """The same windows with frame indices moved by ``-offset``."""
        return WindowWeights(self.starts - offset, self.rows)

    def select(self, ks: slice | np.ndarray) -> WindowWeights:
        return WindowWeights(self.starts[ks], self.rows[ks])

    def in_span(self, first_index: int, halo: int, frame_count: int) -> tuple[int, WindowWeights]:
        """The windows a hyperframe computes, as ``(first_output, windows)``.

        Like :func:`sliding_in_span` for any banded weights with non-decreasing ends: the
        outputs whose last frame is new in frames ``[first_index + halo, first_index +
        frame_count)``, with ``starts`` made relative to the hyperframe's ``frames[0]``.
        """
        ends = self.ends()
        k0 = int(np.searchsorted(ends, first_index + halo, side="right"))
        k1 = int(np.searchsorted(ends, first_index + frame_count, side="right"))
        part = WindowWeights(self.starts[k0:k1] - first_index, self.rows[k0:k1])
        if part.count and part.starts[0] < 0:
            raise InputError(
                f"window of output {k0} starts at frame {int(self.starts[k0])} but the "
                f"hyperframe starts at frame {first_index}: carry more halo frames"
            )
        return k0, part


def sliding_in_span(weights: np.ndarray, stride: int, first_index: int, halo: int,
                    frame_count: int) -> tuple[int, WindowWeights]:
    """The sliding windows that a hyperframe computes, as ``(first_output, windows)``.

    A hyperframe holds global frames ``[first_index, first_index + frame_count)``, of which
    the first ``halo`` were carried over. It computes output ``k`` (window
    ``[k*stride, k*stride + len(weights))``) when the window's last frame is one of its new
    frames; ``windows.starts`` are relative to its ``frames[0]``. Raises ``InputError`` (a
    ``ValueError``) if a window it must compute starts before its first frame (too little
    halo).
    """
    window = len(window_row(weights))
    # (was: stride 0 a ZeroDivisionError, -1 no windows and no word)
    for name, value, low in (("stride", stride, 1), ("first_index", first_index, 0),
                             ("halo", halo, 0), ("frame_count", frame_count, 1)):
        validate.integer(value, name, low)
    if halo > frame_count:
        raise InputError(f"halo={halo} must be at most frame_count={frame_count} (the "
                         "carried frames are among the hyperframe's)")
    lo_last = first_index + halo  # smallest global index of a new frame
    hi_last = first_index + frame_count - 1
    k0 = max(0, -(-(lo_last - window + 1) // stride))  # ceil
    k1 = (hi_last - window + 1) // stride  # floor
    count = max(0, k1 - k0 + 1)
    if count and k0 * stride < first_index:
        raise InputError(
            f"window of output {k0} starts at frame {k0 * stride} but the hyperframe starts "
            f"at frame {first_index}: windows of {window} frames need {window - 1} halo "
            f"frames carried over, this hyperframe has {halo}"
        )
    return k0, WindowWeights.sliding(weights, count, stride, k0 * stride - first_index)


def window_row(weights: object) -> np.ndarray:
    """One window's weights, a 1-D float64 array of at least one, or one line naming what
    was given (was: ``"box"``, a curve's name, NumPy's "could not convert string to float",
    its length taken for the window's)."""
    if isinstance(weights, (str, bytes)):
        raise InputTypeError(f"weights={weights!r} must be an array of one weight per frame "
                             f"of the window: a curve's are hf.curve_weights({weights!r}, window)")
    row = validate.real_array(weights, "weights")  # (Fractions)
    if row is None:  # (["1", "2"], [None, 1], True: no weights, said as given)
        raise InputTypeError(f"weights={shown(weights)} must be an array of numbers, one weight "
                             "per frame of the window (hf.curve_weights(curve, window))")
    if row.ndim != 1 or not row.size:
        raise InputError(f"weights has shape {row.shape}; expected (window,): one weight per "
                         "frame of the window, at least one")
    return row
