"""A render's sub-frames planned a chunk of output frames at a time.

:class:`PlanStream` asks :meth:`~hfrender.sampler.SampleSchedule.plan` (a pure function of
the frame range) for each chunk, so memory does not grow with the length of a render, and
answers which windows a hyperframe computes (:meth:`PlanStream.in_span`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from hfrender.errors import InputError
from hfrender.hyperframe.windows import WindowWeights
from hfrender.sampler import Plan, SampleSchedule


@dataclass(frozen=True)
class PlanStream:
    """The sub-frames of output frames ``first_frame .. first_frame + count - 1``, planned
    a chunk at a time: memory does not grow with the length of a render.

    Sub-frame indices count from the stream's first sub-frame. Every chunk is planned by
    :meth:`SampleSchedule.plan`, which is a pure function of the frame range, so the chunks
    agree with one whole plan (a test checks it).
    """

    schedule: SampleSchedule
    first_frame: int
    count: int
    chunk: int = 64  # output frames planned at once
    # --samples auto: counts(first, n) -> sub-frames to draw for those output frames, asked
    # once per frame, from chunks() (the drawing thread) before any window needs them
    counts: Callable[[int, int], np.ndarray] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.count < 1:
            raise InputError(f"count={self.count!r}: plan at least one output frame")
        shape = self.schedule.plan(1, self.first_frame)
        object.__setattr__(self, "per_output", shape.per_output)
        object.__setattr__(self, "overlap", shape.overlap)
        object.__setattr__(self, "_known", {})  # --samples auto: output frame -> count

    @property
    def step(self) -> int:
        """New sub-frames per output frame (the window minus what it shares)."""
        return self.per_output - self.overlap  # type: ignore[attr-defined]

    @property
    def subframes(self) -> int:
        return (self.count - 1) * self.step + self.per_output  # type: ignore[attr-defined]

    def chunks(self) -> Iterator[tuple[int, int, Plan]]:
        """``(base, skip, plan)`` per chunk: the plan's sub-frame ``j`` is the stream's
        ``base + j``; its first ``skip`` sub-frames were the previous chunk's (windows
        overlap) and are not drawn again."""
        for c0 in range(0, self.count, self.chunk):
            n, first = min(self.chunk, self.count - c0), self.first_frame + c0
            if self.counts is not None:
                self._known.update(zip(range(first, first + n), self.counts(first, n),
                                       strict=True))
            plan = self._plan(n, first)
            yield c0 * self.step, (plan.overlap if c0 else 0), plan

    def _plan(self, count: int, first: int) -> Plan:
        if self.counts is None:
            return self.schedule.plan(count, first)
        return self.schedule.plan_counts([self._known[k] for k in range(first, first + count)],
                                         first)

    def drawn(self, first: int, count: int) -> int:
        """Sub-frames drawn for output frames ``first .. first + count - 1`` (planned)."""
        if self.counts is None:
            return count * self.step
        return int(sum(self._known[k] for k in range(first, first + count)))

    def in_span(self, first_index: int, halo: int, frame_count: int) -> tuple[int, WindowWeights]:
        """The windows a hyperframe computes, as ``(first output frame, windows)``: those
        whose last sub-frame is new in ``[first_index + halo, first_index + frame_count)``,
        ``starts`` relative to the hyperframe's first frame (as
        :meth:`WindowWeights.in_span`, planned for just those outputs)."""
        step, width = self.step, self.per_output  # type: ignore[attr-defined]
        lo, hi = first_index + halo, first_index + frame_count
        ka = max(0, -(-(lo + 1 - width) // step))  # output k's end is in (k*step, k*step+width]
        kb = min(self.count, (hi - 1) // step + 1)
        if ka >= kb:
            return self.first_frame + ka, WindowWeights(np.zeros(0, np.int64),
                                                        np.zeros((0, width)))
        w = self._plan(kb - ka, self.first_frame + ka).weights
        ends = w.ends() + ka * step
        sel = np.flatnonzero((ends > lo) & (ends <= hi))
        if len(sel) == 0:
            return self.first_frame + ka, WindowWeights(np.zeros(0, np.int64),
                                                        np.zeros((0, width)))
        k0 = ka + int(sel[0])
        part = WindowWeights(w.starts[sel] + ka * step - first_index, w.rows[sel])
        if part.starts[0] < 0:
            raise InputError(f"window of output {k0} starts at sub-frame "
                             f"{k0 * step} but the hyperframe starts at {first_index}: "
                             "carry more halo frames")
        return self.first_frame + k0, part
