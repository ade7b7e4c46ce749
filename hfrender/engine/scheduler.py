"""Ordering work and results: which hyperframe is fused next, and frames out in order.

:class:`Scheduler` hands hyperframes to fusion workers, first in first out or by a
priority score (highest first, ties by timestamp: stable). :class:`ReorderBuffer` takes
blocks of finished output frames in any order and releases them strictly in frame order,
so the writer never sees a gap or a duplicate.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender.hyperframe.frame import HyperFrame

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

    def get(self) -> HyperFrame:
        """The next hyperframe, waiting for one; raises :class:`Closed` once closed and
        empty."""
        with self._cond:
            while not self._heap:
                if self._closed:
                    raise Closed("the scheduler is closed")
                self._cond.wait()
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
    """Blocks of frames in by their first index, in any order; out strictly in order.

    A block ``(k, frames)`` holds output frames ``k .. k + len(frames) - 1``; :meth:`take`
    hands out the block that starts at the next index once it is here. Every wait is on
    the buffer's condition: a put, a take or :meth:`close` wakes it.
    """

    def __init__(self, start: int = 0) -> None:
        self.next = start
        self._held: dict[int, Any] = {}
        self._cond = threading.Condition()
        self.closed = False

    def put(self, index: int, frames: Any) -> None:
        """Hold the block of frames starting at ``index``."""
        with self._cond:
            if index < self.next or index in self._held:
                raise ValueError(f"frame {index} arrived twice")
            self._held[index] = frames
            if index == self.next:
                self._cond.notify_all()

    def take(self) -> tuple[int, Any] | None:
        """The next block in order, waiting for it; None once closed without it."""
        with self._cond:
            while self.next not in self._held:
                if self.closed:
                    return None
                self._cond.wait()
            index = self.next
            frames = self._held.pop(index)
            self.next = index + len(frames)
            self._cond.notify_all()  # a producer held back in wait_written may go on
            return index, frames

    def wait_written(self, index: int) -> None:
        """Wait until every frame before ``index`` was taken (written), or until closed."""
        with self._cond:
            while self.next < index and not self.closed:
                self._cond.wait()

    def close(self) -> None:
        """No more blocks: ``take`` returns what is in order, then None; nobody waits."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    @property
    def held(self) -> int:
        """Blocks waiting for the writer."""
        with self._cond:
            return len(self._held)
