"""The fast depth of field's steps that depend on a frame's depth and lens alone: every
pixel's circle of confusion, its class, and the plan of the frame's layers
(:func:`hfrender.dof_layers.frame_plan`). Within one call over many frames (a hyperframe's
fusion), a frame through the same lens with the same depth as the frame before takes that
frame's (:class:`LastFrame`): a locked-off shot's one depth frame (``fx --depth``, or a
clip given one (H, W) depth) makes them once a call, not once a frame (at 1280x720 and a
64 px blur some 20 ms of a frame's 190 ms). Not across calls: the plan's tunables
(``MAX_LAYERS``, the peaks' and the search's) may change between them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hfrender.backends.cpu.dof import squared_radii
from hfrender.backends.cpu.dof_light import large_by_rows
from hfrender.dof_layers import Plan, class_keys, disk_tables, frame_plan
from hfrender.optics import Lens


class LastFrame:
    """A call's last frame's depth steps: (lens, its depth, r2, max_d2, plan and keys or
    None), shared by the call's threads (a tuple set whole, its arrays read only). The depth
    is the call's own (no copy: a call's input holds still while it runs)."""

    kept: tuple | None = None


def banded_classes(r2: np.ndarray, depth: np.ndarray, focus_distance: float, max_d2: int,
                   blades: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hfrender.dof_layers.classes`, bit for bit; a large frame band by band (in
    the cache, on two threads: 1080p's whole-frame steps took 26 ms, a call 8% less)."""
    area_of_d2 = disk_tables(max_d2, blades)[1]
    max_area = int(area_of_d2[-1])
    keys = np.empty(r2.shape, np.int32)
    counts: list[np.ndarray] = []  # each band's (appended from either thread)

    def rows(y0: int, y1: int) -> None:
        # floor(r2) <= max_d2 by its definition: "clip" only spares take's buffered copy
        area = np.take(area_of_d2, r2[y0:y1].astype(np.int32), mode="clip")
        band = keys[y0:y1]
        np.copyto(band, class_keys(np, area, depth[y0:y1], focus_distance))
        counts.append(np.bincount(band.ravel() + max_area, minlength=2 * max_area + 1))

    large_by_rows(rows, *r2.shape)
    return keys, np.sum(counts, axis=0)


def depth_steps(depth: np.ndarray, lens: Lens, w: int, h: int, last: LastFrame | None = None
                ) -> tuple[np.ndarray, int, tuple[Plan, np.ndarray] | None]:
    """(every pixel's squared CoC radius, its floor's largest value, and where that is 1 or
    more the frame's plan and class keys) of ``depth`` through ``lens``: ``last``'s where
    its depth and lens were these (read only: nothing writes them)."""
    kept: Any = None if last is None else last.kept
    if kept is not None and kept[0] == lens and _same(kept[1], depth):
        return kept[2], kept[3], kept[4]
    r2, max_d2 = squared_radii(depth, lens, w, h)
    planned = None
    if max_d2 >= 1:
        planned = frame_plan(np, r2, np.asarray(depth, np.float32), lens.focus_distance,
                             max_d2, lens.aperture_blades, banded_classes)
    if last is not None:
        last.kept = (lens, depth, r2, max_d2, planned)
    return r2, max_d2, planned


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``b`` holds ``a``'s values (a few of them compared first: a moving depth
    pass costs a glance, not a pass)."""
    b = np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    step = max(1, a.size // 997)
    return bool(np.array_equal(a.ravel()[::step], b.ravel()[::step])) and np.array_equal(a, b)
