"""Which frames share one plan of the CUDA backend's fast depth of field.

A plan (:func:`hfrender.dof_layers.make_plan`: the layers, then their windows) costs the
host the same whatever its frames: some 400 queued operations and two waits on the device.
On an H200 that host work, not the kernels, was a 640x360 frame's time (2026-12-04: host
time = device time). Frames that share a plan share that cost: each window's fields, FFTs
and sums run over all of them at once (the frame as the kernels' grid z, a leading axis of
the arrays). Consecutive frames share a plan only where each one's own plan is that plan
(the same layers: a pan, a still camera over moving objects; not a focus pull), so every
frame's picture is the one it gets alone, to the FFTs' rounding. (Counting the frames'
classes together instead, as a first version did, gave a frame whose dense wall had a
layer of its own a coarser one: 47 against 53 dB from the exact gather; a focus pull's
frames 42 against 49 dB.)
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from hfrender.backends.cuda.launches import MAX_GRID_Z, _host
from hfrender.dof_layers import Plan, disk_tables, make_plan, pixel_classes

PLAN_BYTES_PER_PIXEL = 512  # device memory a plan holds per pixel of its frames, about:
#                             the frames, their sums, a window's grids and spectra
PLAN_PIXELS = 1 << 24  # frames' pixels that share one plan at most (1280x720: 18 frames)
COUNTS_AT_ONCE = 1 << 24  # histogram bins counted in one pass (128 MiB of int64 counts)


def plan_pixels(device_memory: int) -> int:
    """How many pixels of frames share one plan on a device of ``device_memory`` bytes:
    :data:`PLAN_PIXELS`, or what an eighth of its memory holds."""
    return int(min(PLAN_PIXELS, device_memory // 8 // PLAN_BYTES_PER_PIXEL))


def frame_classes(xp: Any, r2: Any, depth: Any, focus: np.ndarray, max_d2: int,
                  blades: int) -> tuple[Any, np.ndarray]:
    """Every pixel's class key (N, H, W) on the device, and each frame's histogram of them
    (N, 2 * largest area + 1; index key + largest area), read in one copy a pass of at
    most :data:`COUNTS_AT_ONCE` bins (one for any usual clip and blur)."""
    keys, max_area = pixel_classes(xp, r2, depth, xp.asarray(focus, depth.dtype).reshape(
        -1, 1, 1), max_d2, blades)
    n, size = int(r2.shape[0]), 2 * max_area + 1
    step = max(1, COUNTS_AT_ONCE // size)
    counts = np.empty((n, size), np.int64)
    for z0 in range(0, n, step):
        z1 = min(n, z0 + step)
        at = keys[z0:z1].astype(np.int64) + xp.asarray(
            np.arange(z1 - z0, dtype=np.int64) * size + max_area).reshape(-1, 1, 1)
        counts[z0:z1] = _host(xp, xp.bincount(at.ravel(), minlength=(z1 - z0) * size)
                              ).reshape(z1 - z0, size)
    return keys, counts


def plan_of(counts: np.ndarray, max_d2: int, blades: int) -> Plan:
    """The plan of a frame whose histogram (by :func:`frame_classes`, at any largest blur
    of at least its own) is ``counts``, for its own largest ``max_d2``."""
    max_area = int(disk_tables(max_d2, blades)[1][-1])
    middle = len(counts) // 2
    return make_plan(counts[middle - max_area: middle + max_area + 1], max_area, max_d2,
                     blades=blades)


def plan_runs(counts: np.ndarray, most: np.ndarray, blades: int, frame_pixels: int,
              plan_pixels: int) -> list[tuple[tuple[int, int], Plan | None]]:
    """The frames (z0, z1) that share one plan, and that plan (``None``: frames in focus
    throughout, ``most``, each one's largest floor(r^2), under 1): consecutive frames whose
    own plans (from ``counts``, each frame's histogram) have the same layers, as many as
    ``plan_pixels`` hold (at least one, at most a launch's grid z)."""
    most_frames = min(MAX_GRID_Z, max(1, plan_pixels // max(1, frame_pixels)))
    runs: list[tuple[tuple[int, int], Plan | None]] = []
    plan = None
    for z in range(len(most)):
        same = z and most[z] == most[z - 1] and np.array_equal(counts[z], counts[z - 1])
        if not same:  # (one depth frame for a shot: one plan made, 1.2 ms at 64 px)
            plan = plan_of(counts[z], int(most[z]), blades) if most[z] >= 1 else None
        if runs:
            (z0, _), first = runs[-1]
            if (z - z0 < most_frames and (plan is None) == (first is None)
                    and (plan is None or (plan.max_area == first.max_area
                                          and plan.layers == first.layers))):
                if plan is not None and plan.focus and not first.focus:  # (its gathers of
                    first = dataclasses.replace(first, focus=True)  # the pixels in focus)
                runs[-1] = ((z0, z + 1), first)
                continue
        runs.append(((z, z + 1), plan))
    return runs
