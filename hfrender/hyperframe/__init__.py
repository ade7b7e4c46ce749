"""The hyperframe stage: the pool and its slots, packing frames into them, window arithmetic.

:mod:`~hfrender.hyperframe.frame` (HyperFrame: a view of frames in a slot),
:mod:`~hfrender.hyperframe.pool` (HyperFramePool, slots and their storage),
:mod:`~hfrender.hyperframe.builder` (frames into slots, halo carried across) and
:mod:`~hfrender.hyperframe.windows` (which frames make each output frame).
"""

from hfrender.hyperframe.builder import HyperFrameBuilder, auto_granularity, free_memory_bytes
from hfrender.hyperframe.frame import HyperFrame, Status
from hfrender.hyperframe.pool import HostStorage, HyperFramePool, Slot, SlotLayout, slot_count
from hfrender.hyperframe.windows import WindowWeights, sliding_in_span

__all__ = ["HostStorage", "HyperFrame", "HyperFrameBuilder", "HyperFramePool", "Slot",
           "SlotLayout", "Status", "WindowWeights", "auto_granularity", "free_memory_bytes",
           "sliding_in_span", "slot_count"]
