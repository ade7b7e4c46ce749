"""Which frames share one plan of the CUDA backend's fast depth of field.

A plan (:func:`hfrender.dof_layers.make_plan`: the layers, then their windows) costs the
host the same whatever its frames: some 400 queued operations and three waits on the
device. On an H200 that host work, not the kernels, was a 640x360 frame's time (2026-12-04:
host time = device time). Frames that share a plan share that cost: each window's fields,
FFTs and sums run over all of them at once (the frame as the kernels' grid z, a leading
axis of the arrays). Their classes (:func:`hfrender.dof_layers.classes`) are counted
together, so a plan holds every class of its frames: where they have the same classes (a
pan, a still camera over moving objects) each frame's picture is its own plan's; where
they do not (a focus pull), the union's layers are coarser and the picture drifts from the
exact gather's (a 4-frame pull at 320x180, f/1.4: 42 against 49 dB; counting the classes
let three frames of a fast pull share a plan at 43 against 50 dB). So consecutive frames
share a plan only through one lens, and while their classes together stay within
:data:`SHARE_SLACK` more than the most any one of them has, or within the layers a plan
holds unmerged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hfrender.backends.cuda.launches import _host
from hfrender.dof_layers import MAX_LAYERS, Plan, class_keys, disk_tables, make_plan
from hfrender.optics import Lens

PLAN_BYTES_PER_PIXEL = 512  # device memory a plan holds per pixel of its frames, about:
#                             the frames, their sums, a window's grids and spectra
PLAN_PIXELS = 1 << 24  # frames' pixels that share one plan at most (1280x720: 18 frames)
SHARE_SLACK = 0.25  # the classes of frames that share a plan, at most this share more than
#                     the most classes of any one of them


def plan_pixels(device_memory: int) -> int:
    """How many pixels of frames share one plan on a device of ``device_memory`` bytes:
    :data:`PLAN_PIXELS`, or what an eighth of its memory holds."""
    return int(min(PLAN_PIXELS, device_memory // 8 // PLAN_BYTES_PER_PIXEL))


def frame_classes(xp: Any, r2: Any, depth: Any, focus: np.ndarray, max_d2: int,
                  blades: int) -> tuple[Any, np.ndarray]:
    """Every pixel's class key (N, H, W) on the device, and each frame's histogram of them
    (N, 2 * largest area + 1; index key + largest area) read in one copy."""
    _, area_of_d2, _ = disk_tables(max_d2, blades)
    area = xp.asarray(area_of_d2)[xp.minimum(xp.floor(r2).astype(xp.int32), max_d2)]
    max_area = int(area_of_d2[-1])
    n, size = int(r2.shape[0]), 2 * max_area + 1
    keys = class_keys(xp, area, depth, xp.asarray(focus, depth.dtype).reshape(-1, 1, 1))
    at = keys + xp.asarray(np.arange(n, dtype=np.int32) * size + max_area).reshape(-1, 1, 1)
    return keys, _host(xp, xp.bincount(at.ravel(), minlength=n * size)).reshape(n, size)


def plan_of(counts: np.ndarray, max_d2: int, blades: int) -> Plan:
    """The plan of frames whose histograms (by :func:`frame_classes`, at any largest blur
    of at least theirs) are ``counts`` (F, size), for their own largest ``max_d2``."""
    max_area = int(disk_tables(max_d2, blades)[1][-1])
    middle = counts.shape[1] // 2
    mine = counts.sum(axis=0)[middle - max_area: middle + max_area + 1]
    return make_plan(mine, max_area, max_d2, blades=blades)


def plan_runs(counts: np.ndarray, most: np.ndarray, lenses: Sequence[Lens],
              frame_pixels: int, plan_pixels: int) -> list[tuple[int, int]]:
    """The frames (z0, z1) that share one plan: consecutive frames with a blur (``most``:
    each one's largest floor(r^2), 1 or more) through one lens, as many as ``plan_pixels``
    hold (at least one), while their classes (``counts``: each frame's histogram) nearly
    coincide (module docstring); and the runs of frames in focus throughout between them."""
    most_frames = max(1, plan_pixels // max(1, frame_pixels))
    seen = counts > 0
    seen[:, counts.shape[1] // 2] = False  # (the pixels in focus are no class of a layer)
    runs: list[tuple[int, int]] = []
    z0 = 0
    union, widest = seen[0].copy(), int(seen[0].sum())
    for z in range(1, len(most) + 1):
        if z < len(most) and (most[z] >= 1) == (most[z0] >= 1):
            joined = union | seen[z]
            classes, widest_then = int(joined.sum()), max(widest, int(seen[z].sum()))
            if most[z0] < 1 or (z - z0 < most_frames and lenses[z] == lenses[z0] and (
                    classes <= MAX_LAYERS or classes <= (1 + SHARE_SLACK) * widest_then)):
                union, widest = joined, widest_then
                continue
        runs.append((z0, z))
        z0 = z
        if z < len(most):
            union, widest = seen[z].copy(), int(seen[z].sum())
    return runs
