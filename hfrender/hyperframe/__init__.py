"""The hyperframe stage: the pool and its slots, packing frames into them, window arithmetic.

:mod:`~hfrender.hyperframe.pool` (HyperFrame, HyperFramePool, slots and their storage),
:mod:`~hfrender.hyperframe.builder` (frames into slots, halo carried across) and
:mod:`~hfrender.hyperframe.windows` (which frames make each output frame).
"""

from hfrender.hyperframe.builder import HyperFrameBuilder, auto_granularity, free_memory_bytes
from hfrender.hyperframe.pool import (
    HostStorage,
    HyperFrame,
    HyperFramePool,
    Slot,
    SlotLayout,
    Status,
    slot_count,
)
from hfrender.hyperframe.windows import WindowWeights, sliding_in_span

__all__ = ["HostStorage", "HyperFrame", "HyperFrameBuilder", "HyperFramePool", "Slot",
           "SlotLayout", "Status", "WindowWeights", "auto_granularity", "free_memory_bytes",
           "sliding_in_span", "slot_count"]
