"""Depth of field on the CUDA backend, host side: the exact gather and the fast layers.

:func:`defocus_frames` is what :func:`hfrender.backends.cuda.launches.fuse` calls for
``--dof depth``: every sub-frame's circle of confusion (``hf_circle_of_confusion``), then
either the exact gather (``hf_defocus``, one launch per chunk of frames) or the fast
method of :mod:`hfrender.dof_layers`, by runs of frames that share a plan
(:mod:`hfrender.backends.cuda.dof_plans`; one frame a run in the emulator, as the CPU): the
plan on the host (from a histogram of their classes), the FFTs by the array module (cuFFT
through CuPy; NumPy's in the emulator tests), and the per-pixel steps (:mod:`.dof_steps`)
by the kernels of ``shaders/cuda/dof.cu`` (``hf_dof_start``, ``hf_dof_spans``,
``hf_dof_fields``, ``hf_dof_accumulate``, ``hf_dof_composite``), step for step as
``hfrender/backends/cpu/dof_fast.py``. The host waits on the device three times a call (the
depths' range, each frame's largest circle of confusion, each frame's classes' histogram)
and once a plan (the layers' rows and columns), twice where far light of larger disks
reaches some pixels (once every layer has scattered, the rows and columns of those it may
fill): everything else is queued.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cuda import launches
from hfrender.backends.cuda.dof_plans import frame_classes, plan_runs
from hfrender.backends.cuda.dof_steps import Ops
from hfrender.backends.cuda.launches import BLOCK, I32, I64, Device, _grid, _host, _z_chunks
from hfrender.dof_composite import disk_inside, seen_top
from hfrender.dof_frame import defocus_layers
from hfrender.dof_layers import check_method
from hfrender.optics import Lens, disk_offsets, gather_offsets

# On a GPU the exact gather is quick where its taps are few: on the H200 (132
# multiprocessors, 2026-12-04) 5-10 ms at 640x360 and 18-47 ms at 1920x1080 for 4-64 px
# (about 230 billion taps a second past a floor), against 38 ms (640x360) and 46 ms
# (1080p) at 64 px for the layers, whose launches and host work do not shrink with the
# frame. So "fast" gathers exactly (the reference) where a frame's pixels times its disk's
# offsets stay under this many per multiprocessor (the H200: 7.9e9, 1080p up to a 70 px
# blur; at 64 px there the two are even, 47.7 against 46.2 ms: the edge is the crossover)
EXACT_TAPS_PER_SM = 6e7
PLAN_CACHE = 128, 2**30  # cuFFT plans kept per thread, and their memory at most: CuPy's 16
# made the fast layers make a plan at most FFTs (0.56 ms each, 38 of 95 ms a frame there;
# with 128, 1 GiB, no plan was made again at 1080p)


def lens_rows(lenses: Sequence[Lens], width: int, height: int) -> np.ndarray:
    rows = []
    for lens in lenses:
        rows.append([lens.aperture_mm, lens.focus_distance, lens.focal_length_mm / 1000.0,
                     lens.sensor_width_mm, float(width), lens.blur_cap_px(width, height)])
    return np.asarray(rows, np.float64)


def max_d2_of(depth_host_range: np.ndarray, lenses: Sequence[Lens], width: int,
              height: int) -> int:
    """floor of the largest squared CoC radius, from each frame's nearest and farthest depth
    (the CoC is monotonic on each side of the focus plane): as the CPU finds it per frame."""
    return max((int(np.floor(lens.largest_d2(lo, hi, width, height)))
                for (lo, hi), lens in zip(depth_host_range, lenses, strict=True)), default=0)


def defocus_frames(dev: Device, lin: Any, depth: Any, lenses: Sequence[Lens],
                   method: str = "fast") -> Any | None:
    """Each linear frame of ``lin`` (N, H, W, C float32) defocused with its depth and lens,
    or None where no frame is blurred by a whole pixel (the CPU copies the frames)."""
    xp = dev.xp
    shapes = sorted({ln.aperture_blades for ln in lenses})
    if len(shapes) > 1:  # each shape of bokeh on its own (one table of disks each)
        return _by_blades(dev, lin, depth, lenses, method, shapes)
    blades = shapes[0]
    n, h, w, c = (int(s) for s in lin.shape)
    flat = depth.reshape(n, -1)
    ranges = _host(xp, xp.stack([flat.min(axis=1), flat.max(axis=1)], axis=1))
    max_d2 = max_d2_of(ranges, lenses, w, h)
    if max_d2 < 1:
        return None
    d2s = disk_offsets(max_d2, blades)[1]
    area = xp.asarray(np.searchsorted(d2s, np.arange(max_d2 + 1), side="right")
                      .astype(np.int32))
    rows = xp.asarray(lens_rows(lenses, w, h))
    r2 = xp.empty((n, h, w), np.float32)
    inv_area = xp.empty((n, h, w), np.float32)
    for z0 in _z_chunks(n):
        z1 = min(n, z0 + launches.MAX_GRID_Z)
        dev.launch("hf_circle_of_confusion", _grid(h * w, z1 - z0), (BLOCK, 1, 1),
                   (depth[z0:z1], I64(h * w), rows[z0:z1], area, I32(max_d2), r2[z0:z1],
                    inv_area[z0:z1]))
    # the gather's taps a frame: its pixels x the disk's offsets (an odd number of blades
    # gathers a few more, over both sides' disks: close enough to choose by)
    if check_method(method) == "exact" or h * w * len(d2s) <= dev.exact_taps:
        inside = disk_inside(xp, xp.rint(1.0 / inv_area))
        return _gather(dev, lin, depth, r2, inv_area, rows, gather_offsets(max_d2, blades),
                       inside)
    _keep_plans(xp)
    out = xp.empty_like(lin)
    tops = _host(xp, xp.stack([r2.reshape(n, -1).max(axis=1),  # each frame's blur and light
                               lin[..., :min(3, c)].max(axis=(1, 2, 3))], axis=1))
    most = np.floor(tops[:, 0]).astype(np.int64)
    highlights.check_summable(float(tops[:, 1].max()), h * w)
    cuts = [highlights.edges(float(tops[i, 1]), lambda i=i: highlights.usual(
        xp, xp.moveaxis(lin[i], -1, 0))) for i in range(n)]
    keys, counts = frame_classes(xp, r2, depth, np.array([ln.focus_distance for ln in lenses]),
                                 max_d2, blades)
    for (z0, z1), plan in plan_runs(counts, most, blades, h * w, dev.dof_plan_pixels):
        if plan is None:  # frames in focus throughout
            out[z0:z1] = lin[z0:z1]
            continue
        frame_d2 = int(most[z0:z1].max())
        ops = Ops(dev, lin[z0:z1], frame_d2, blades)
        ops.cuts = highlights.run_cuts(xp, cuts[z0:z1])
        ops.largest = tops[z0:z1, 1]
        out[z0:z1] = defocus_layers(ops, xp, r2[z0:z1], depth[z0:z1], 0.0, frame_d2, blades,
                                    (plan, keys[z0:z1]))
    return out


def _keep_plans(xp: Any) -> None:
    """This thread's cuFFT plan cache (CuPy's) as large as :data:`PLAN_CACHE`: a frame's
    layers and windows take dozens of grid shapes."""
    config = getattr(getattr(xp, "fft", None), "config", None)
    if config is None:  # NumPy (the emulator)
        return
    cache = config.get_plan_cache()
    if 0 < cache.get_size() < PLAN_CACHE[0]:  # (0: turned off, -1: no limit, by the user)
        cache.set_size(PLAN_CACHE[0])
        if cache.get_memsize() == -1:  # CuPy's default: no limit; a user's is kept
            cache.set_memsize(PLAN_CACHE[1])


def _by_blades(dev: Device, lin: Any, depth: Any, lenses: Sequence[Lens], method: str,
               shapes: list[int]) -> Any:
    """:func:`defocus_frames` of the frames of each number of aperture blades in turn."""
    out = dev.xp.array(lin, copy=True)
    for blades in shapes:
        idx = [i for i, ln in enumerate(lenses) if ln.aperture_blades == blades]
        part = defocus_frames(dev, lin[idx], depth[idx], [lenses[i] for i in idx], method)
        if part is not None:
            out[idx] = part
    return out


def _gather(dev: Device, lin: Any, depth: Any, r2: Any, inv_area: Any, rows: Any,
            table: tuple[np.ndarray, np.ndarray, np.ndarray], inside: Any) -> Any:
    """The exact gather (``hf_defocus``) of every frame: ``table`` is
    :func:`hfrender.optics.gather_offsets`, ``rows`` the frames' :func:`lens_rows`,
    ``inside`` the share of each pixel's disk inside the picture."""
    xp = dev.xp
    n, h, w, c = (int(s) for s in lin.shape)
    offsets = xp.asarray(np.ascontiguousarray(table[0], np.int32))
    d2s = xp.asarray(np.ascontiguousarray(table[1], np.float32))
    d2n = d2s if table[2] is table[1] else xp.asarray(np.ascontiguousarray(table[2], np.float32))
    out = xp.empty_like(lin)
    # what the defocused pixels see in focus past their edges, at most, frame by frame
    tops = xp.stack([seen_top(xp, xp.moveaxis(lin[z], -1, 0)) for z in range(n)])
    # light whose sums could pass float32's range, scaled by a power of two (exactly, as
    # the sums are its multiples; was: a frame of 3e38 gave inf)
    most = max(float(lin.max()), -float(lin.min()))  # (no array of |lin| made)
    scale = np.float32(highlights.headroom(most, int(offsets.shape[0])))
    if scale < 1:
        lin, tops = lin * scale, tops * scale
    for z0 in _z_chunks(n):  # each frame's gather stays inside that frame: chunks are exact
        z1 = min(n, z0 + launches.MAX_GRID_Z)
        dev.launch("hf_defocus", _grid(h * w, z1 - z0), (BLOCK, 1, 1),
                   (lin[z0:z1], depth[z0:z1], r2[z0:z1], inv_area[z0:z1], I32(h), I32(w),
                    I32(c), offsets, d2s, d2n, rows[z0:z1], inside[z0:z1], tops[z0:z1],
                    I32(int(offsets.shape[0])), out[z0:z1]))
    return out if scale == 1 else out * (1 / scale)
