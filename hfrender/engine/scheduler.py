"""Ordering work and results: which hyperframe is fused next, and frames out in order.

:class:`Scheduler` hands hyperframes to fusion workers, first in first out or by a
priority score (highest first, ties by timestamp: stable). :class:`ReorderBuffer` takes
finished output frames in any order and releases them strictly in frame order, so the
writer never sees a gap or a duplicate.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender.hyperframe.pool import HyperFrame

Score = Callable[[HyperFrame], float]


def mean_motion(hyper: HyperFrame) -> float:
    """How much the picture changes across the hyperframe: mean |last - first| sub-frame."""
    frames = hyper.frames
    if frames.shape[0] < 2:
        return 0.0
    a, b = frames[0], frames[-1]
    return float(abs(b.astype(np.float32) - a.astype(np.float32)).mean())


SCORES: dict[str, Score] = {"motion": mean_motion}


class Closed(Exception):
    """The scheduler was closed and has nothing left."""


class Scheduler:
    """A thread-safe queue of hyperframes: FIFO, or by ``score`` (highest first).

    Ties go to the earlier timestamp, then to the earlier submission: stable.
    """

    def __init__(self, score: Score | None = None) -> None:
        self.score = score
        self._heap: list[tuple] = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._closed = False

    def put(self, hyper: HyperFrame) -> None:
        if self.score is not None:
            hyper.priority = float(self.score(hyper))
        first_t = float(hyper.timestamps[0]) if len(hyper.timestamps) else 0.0
        key = (-hyper.priority if self.score is not None else 0.0, first_t,
               next(self._counter))
        with self._cond:
            if self._closed:
                raise Closed("the scheduler is closed")
            heapq.heappush(self._heap, (key, hyper))
            self._cond.notify()

    def get(self, timeout: float | None = None) -> HyperFrame:
        """The next hyperframe; raises :class:`Closed` once closed and empty."""
        with self._cond:
            while not self._heap:
                if self._closed:
                    raise Closed("the scheduler is closed")
                if not self._cond.wait(timeout):
                    raise TimeoutError("no hyperframe within the timeout")
            return heapq.heappop(self._heap)[1]

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def drain(self) -> list[HyperFrame]:
        """Remove and return what is still queued (after a failure: to release slots)."""
        with self._cond:
            items = [h for _, h in self._heap]
            self._heap.clear()
            return items

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)


class ReorderBuffer:
    """Frames in by index, in any order; out strictly in index order from ``start``."""

    def __init__(self, start: int = 0, capacity: int | None = None) -> None:
        self.next = start
        self.capacity = capacity  # frames held at most (a frame that is next always enters)
        self._held: dict[int, Any] = {}
        self._cond = threading.Condition()
        self.closed = False

    def put(self, index: int, frame: Any) -> None:
        """Hold a frame; waits while the buffer is full (a slow writer) unless it is next."""
        with self._cond:
            while (self.capacity is not None and len(self._held) >= self.capacity
                   and index != self.next and not self.closed):
                self._cond.wait(0.1)
            if index < self.next or index in self._held:
                raise ValueError(f"frame {index} arrived twice")
            self._held[index] = frame
            if index == self.next:
                self._cond.notify_all()

    def close(self) -> None:
        """Stop making producers wait (after an error)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def pop_ready(self) -> list[tuple[int, Any]]:
        """Every frame that is next in order now (possibly none)."""
        out = []
        with self._cond:
            while self.next in self._held:
                out.append((self.next, self._held.pop(self.next)))
                self.next += 1
            if out:
                self._cond.notify_all()  # room for waiting producers
        return out

    def pop_ready_peek(self) -> bool:
        """Whether the next frame in order is here."""
        with self._cond:
            return self.next in self._held

    def wait(self, timeout: float) -> None:
        with self._cond:
            if self.next not in self._held:
                self._cond.wait(timeout)

    @property
    def held(self) -> int:
        with self._cond:
            return len(self._held)
