"""Depth of field on the CUDA backend, host side: the exact gather and the fast layers.

:func:`defocus_frames` is what :func:`hfrender.backends.cuda.launches.fuse` calls for
``--dof depth``: every sub-frame's circle of confusion (``hf_circle_of_confusion``), then
either the exact gather (``hf_defocus``, one launch per chunk of frames) or the fast
method of :mod:`hfrender.dof_layers`, by runs of frames that share a plan
(:mod:`hfrender.backends.cuda.dof_plans`; one frame a run in the emulator, as the CPU): the
plan on the host (from a histogram of their classes), the FFTs by the array module (cuFFT
through CuPy; NumPy's in the emulator tests), and the per-pixel steps by the kernels of
``shaders/cuda/dof.cu`` (``hf_dof_start``, ``hf_dof_spans``, ``hf_dof_fields``,
``hf_dof_accumulate``, ``hf_dof_composite``), step for step as
``hfrender/backends/cpu/dof_fast.py``. The host waits on the device three times a call (the
depths' range, each frame's largest circle of confusion, each frame's classes' histogram)
and once a plan (the layers' rows and columns), twice where far light of larger disks
reaches some pixels (once every layer has scattered, the rows and columns of those it may
fill): everything else is queued.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cuda import launches
from hfrender.backends.cuda.dof_plans import frame_classes, plan_runs
from hfrender.backends.cuda.dof_splat import SplatOps, plane_tops
from hfrender.backends.cuda.launches import BLOCK, I32, I64, Device, _grid, _host, _z_chunks
from hfrender.dof_boxes import Spans
from hfrender.dof_composite import disk_inside, inside_of_keys, seen_top
from hfrender.dof_fft import Window, forward, inverse, trim
from hfrender.dof_frame import defocus_layers
from hfrender.dof_layers import (
    FAR,
    ROLE_BACK,
    ROLE_FAR,
    ROLE_NONE,
    Plan,
    check_method,
    disk_spectrum,
    disk_tables,
)
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
        ops = _Ops(dev, lin[z0:z1], frame_d2, blades)
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
    for z0 in _z_chunks(n):  # each frame's gather stays inside that frame: chunks are exact
        z1 = min(n, z0 + launches.MAX_GRID_Z)
        dev.launch("hf_defocus", _grid(h * w, z1 - z0), (BLOCK, 1, 1),
                   (lin[z0:z1], depth[z0:z1], r2[z0:z1], inv_area[z0:z1], I32(h), I32(w),
                    I32(c), offsets, d2s, d2n, rows[z0:z1], inside[z0:z1], tops[z0:z1],
                    I32(int(offsets.shape[0])), out[z0:z1]))
    return out


class _Ops(SplatOps):
    """The fast method's per-pixel steps for frames ``lin`` (F, H, W, C) that share one plan
    (:func:`plan_runs`) on the device: each array has the frames first, the kernels take
    the frame as their grid's z."""

    def __init__(self, dev: Device, lin: Any, max_d2: int, blades: int = 0) -> None:
        self.dev, self.xp, self.lin, self.max_d2 = dev, dev.xp, lin, max_d2
        self.blades = blades
        self.frames, self.h, self.w, self.c = (int(s) for s in lin.shape)
        self.frame_pixels = self.h * self.w
        self.pixels = self.frames * self.frame_pixels
        self.size = (self.frames, self.h, self.w)
        self.front = self.xp.zeros((self.c + 1,) + self.size, np.float32)
        self.back = self.xp.empty((self.c + 1,) + self.size, np.float32)
        self.behind = self.xp.zeros((self.c + 1,) + self.size, np.float32)
        self.none = self.xp.zeros(1, np.float32)  # the unused second disk's planes
        self.far: Any = None  # the far layers of larger disks (ROLE_FAR), if the plan has any
        self.open: Any = None  # and the share of each pixel's disk they fill (gather_open)
        self.hid: Any = None  # what pixels before the focus plane see behind (gather)
        self.spans_table: Spans | None = None  # the frame's, read once (:meth:`spans`)
        self.top: Any = None  # the in-focus light seen past edges, at most (seen_window)
        self.cuts: list[Any] | None = None  # where highlights are cut (dof_highlights)

    def _launch(self, name: str, args: tuple) -> None:
        self.dev.launch(name, _grid(self.pixels), (BLOCK, 1, 1), args)

    def start(self, plan: Plan, keys: Any) -> None:
        xp = self.xp
        self.plan = plan
        if plan.big.any():
            self.far = xp.zeros((self.c + 1,) + self.size, np.float32)
            self.open = xp.zeros(self.size, np.float32)
        self.layer = xp.empty(self.size, np.int32)
        self.t = xp.empty(self.size, np.float32)
        k = len(plan.layers)
        # each table copied once, a layer's row a view of it (contiguous): a copy a layer
        # each was some 60 small copies a frame, 0.1 ms each on the H200
        self.roles = list(xp.asarray(plan.roles.astype(np.int32)))
        self.sees = list(xp.asarray(plan.seen))  # last column: in focus (layer -1)
        largest = max((layer.hi for layer in plan.layers), default=1)  # no read of keys
        self.inside = inside_of_keys(xp, keys, largest)
        own = np.arange(k + 1)[None, :] == np.arange(k)[:, None]  # layer j's own column
        self.gathers = list(xp.asarray(np.where(own, ROLE_BACK, ROLE_NONE).astype(np.int32)))
        self.opens = list(xp.asarray(np.where(own, ROLE_FAR, ROLE_NONE).astype(np.int32)))
        self.bigs = list(xp.asarray(plan.far_of))  # row k: the layers far light to k's
        self._launch("hf_dof_start", (self.lin, xp.ascontiguousarray(keys, np.int32),
                                      I64(self.pixels), I32(self.c), I32(plan.max_area),
                                      xp.asarray(plan.layer_of_key), xp.asarray(plan.t_of_key),
                                      self.layer, self.t, self.back))
        self._choose_splats(keys)

    def spans(self, n: int) -> Spans:
        """Every layer's first and last column in every row (``hf_dof_spans``), read in one
        copy: the host places the windows without waiting on the device again until every
        layer has scattered (:meth:`open_spans`)."""
        self.spans_table = self._spans(n, self.layer)
        return self.spans_table

    def open_spans(self, n: int) -> Spans:
        """Where the layers' pixels may take far light (:meth:`gather_open`): it reaches
        them and their own light falls short (as the CPU's)."""
        xp, c = self.xp, self.c
        wanted = (self.far[c] > 0) & (self.inside - self.front[c] - self.back[c]
                                      > np.float32(1e-4))
        return self._spans(n, xp.where(wanted, self.layer, np.int32(n + 1)))

    def _spans(self, n: int, layer: Any) -> Spans:
        """:class:`Spans` of ``layer`` (F, H, W) int32 (n and past: none), read in one copy:
        the frames' together (a layer's first column in a row is its first in any frame)."""
        xp, rows = self.xp, self.frames * self.h
        table = xp.empty((2, n + 1, rows), np.int32)  # entry n: the pixels in focus
        table[0] = self.w
        table[1] = -1
        self.dev.launch("hf_dof_spans", _grid(rows), (BLOCK, 1, 1),
                        (layer, I32(rows), I32(self.w), I32(n), table[0], table[1]))
        if self.frames > 1:
            each = table.reshape(2, n + 1, self.frames, self.h)
            table = xp.stack([each[0].min(axis=1), each[1].max(axis=1)])
        host = _host(xp, table)
        return Spans.of_table(host[0], host[1])

    def spectrum(self, area: int, shape: tuple[int, int], side: int) -> Any:
        """The disk's spectrum on the device (turned over in front of the focus plane), kept
        for the next frames and calls as on the CPU (:func:`hfrender.dof_fft.trim`: the 32
        newest had been kept, fewer than a 640x360 frame's 35 at 64 px on the H200, so
        every call made all of them again: 13 of its 38 ms)."""
        kept = self.dev._tables.setdefault("dof-disks", OrderedDict())
        side = side if self.blades % 2 else FAR  # a round or even disk turned over is itself
        key = (area, shape, self.blades, side)  # (a disk's first offsets: any max_d2's)
        if key in kept:
            kept.move_to_end(key)
            return kept[key]
        kept[key] = disk_spectrum(self.xp, disk_tables(self.max_d2, self.blades)[0], area,
                                  shape, side)
        trim(kept)
        return kept[key]

    def later(self, fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
        """``fn(*args)`` now: the device runs the launches in order, the host only queues."""
        value = fn(*args)
        return lambda: value

    def split(self, fields: list[Any], rows: tuple[int, int]) -> list[Any]:
        """Each frame's highlights apart (:func:`.dof_highlights.split`), where the run has."""
        if self.cuts is None:
            return fields
        return [highlights.split(self.xp, f, self.cuts, self.c) for f in fields]

    def ready(self, light: Any, rows: tuple[int, int] | None = None) -> Any:
        """As it is: the accumulating kernel takes the FFT's rounding out. Highlights' parts
        are cleaned by their own and added to the colour here first, the colour's own
        bounds kept for the kernel."""
        if highlights.parts(light, self.c) < 1:
            return light
        top = plane_tops(self.xp, light[:, :self.c + 1])
        return self.xp.ascontiguousarray(highlights.fold(self.xp, light, self.c)), top

    def forward(self, fields: Any, rows: tuple[int, int]) -> Any:
        """The whole grid's rfft2: cuFFT's one 2-D plan (the CPU's skips the zero rows)."""
        return forward(self.xp, fields)

    def inverse(self, spectrum: Any, win: Window) -> Any:
        return inverse(self.xp, spectrum, win.shape, *win.size)

    def _window_launch(self, name: str, win: Window, rows: tuple[int, int],
                       args: tuple) -> None:
        """A kernel over ``rows`` of a window (their first and last come after ``args``'
        window origin) in each frame."""
        self.dev.launch(name, _grid((rows[1] - rows[0]) * win.size[1], self.frames),
                        (BLOCK, 1, 1), args)

    def fields(self, j: int, win: Window, disks: list[int]) -> list[Any]:
        planes = [self.xp.zeros((self.frames, self.c + 1) + win.shape, np.float32)
                  for _ in disks]
        hi = planes[1] if len(planes) == 2 else self.none
        self._window_launch("hf_dof_fields", win, win.inner, (  # the layer's: its box's rows
            self.lin, self.field_layer, self.t, I32(j), I64(self.frame_pixels), I32(self.w),
            I32(self.c), I32(win.y0),
            I32(win.x0), *(I32(n) for n in win.inner + win.size[1:] + win.shape),
            I32(len(disks)), I32(disks[0]), I32(disks[-1]), planes[0], hi))
        return planes

    def _accumulate(self, light: Any, win: Window, rows: tuple[int, int],
                    cols: tuple[int, int], roles: Any, share: int, into: tuple | None = None,
                    weight: bool = False) -> None:
        """``hf_dof_accumulate``: into the front, back, behind and far sums by role (or the
        four of ``into``); ``weight``: a weight alone (``light`` (1, ...))."""
        xp = self.xp
        light, top = light if isinstance(light, tuple) else (light, plane_tops(xp, light))
        sums = into or (self.front, self.back, self.behind,
                        self.none if self.far is None else self.far)
        self._window_launch("hf_dof_accumulate", win, rows, (
            light, I64(self.pixels), I64(self.frame_pixels), I32(self.w),
            I32(0 if weight else self.c),
            I32(win.y0), I32(win.x0), *(I32(n) for n in win.size + rows + cols), self.layer,
            roles, I32(len(self.plan.layers)), top, self.t, I32(share), *sums))

    def scatter(self, j: int, light: Any, win: Window) -> None:
        self._accumulate(light, win, win.rows, (0, win.size[1]), self.roles[j], 0)

    def gather(self, j: int, light: Any, win: Window, disk: int, disks: int) -> None:
        """What layer j's pixels in its box see behind them, into their hid sums (another
        box's windows may hold more of them; past it, the sums may wrap around the window's
        grid)."""
        if self.hid is None:
            self.hid = self.xp.zeros_like(self.front)
        cols = win.box[2] - win.x0, win.box[3] - win.x0
        self._accumulate(light, win, win.inner, cols, self.gathers[j],
                         0 if disks == 1 else 1 + disk, (self.none, self.hid) + (self.none,) * 2)

    def gather_open(self, j: int, light: Any, win: Window, disk: int, disks: int) -> None:
        """How much of layer j's pixels' disks the far light fills, as :meth:`gather`."""
        cols = win.box[2] - win.x0, win.box[3] - win.x0
        self._accumulate(light, win, win.inner, cols, self.opens[j],
                         0 if disks == 1 else 1 + disk, (self.none,) * 3 + (self.open,), True)

    def open_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """Around the window's pixels of the far layers of larger disks than k's."""
        return self.spans_table.box(np.flatnonzero(self.plan.big[:, k]), win.y0, win.y1,
                                    win.x0, win.x1)

    def open_window(self, win: Window, k: int) -> Any:
        """(F, 1, *shape): 1 at the pixels of the far layers of larger disks than k's."""
        (h, w) = win.size
        f = self.xp.zeros((self.frames, 1) + win.shape, np.float32)
        f[:, 0, :h, :w] = self.bigs[k][self.layer[:, win.y0:win.y1, win.x0:win.x1]]  # -1: last
        return f

    def seen_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """Around the window's pixels that layer k sees, on the host (:meth:`spans`)."""
        return self.spans_table.box(np.flatnonzero(self.plan.seen[k]), win.y0, win.y1,
                                    win.x0, win.x1)

    def seen_window(self, win: Window, k: int) -> Any:
        """The pixels layer k sees behind it, ``[colour, 1]`` (colour at most ``seen_top``),
        on a window's grid."""
        xp, (h, w) = self.xp, win.size
        if self.top is None:  # each frame's, once, on the device
            self.top = xp.stack([seen_top(xp, xp.moveaxis(frame, -1, 0))
                                 for frame in self.lin]).reshape(-1, 1, 1, 1)
        f = xp.zeros((self.frames, self.c + 1) + win.shape, np.float32)
        mine = self.sees[k][self.layer[:, win.y0:win.y1, win.x0:win.x1]][:, None]  # -1: last
        f[:, : self.c, :h, :w] = xp.moveaxis(self.lin[:, win.y0:win.y1, win.x0:win.x1], -1,
                                             1) * mine
        n = min(3, self.c)
        f[:, :n, :h, :w] = xp.minimum(f[:, :n, :h, :w], self.top * mine)
        f[:, self.c:, :h, :w] = mine
        return f

    def finish(self) -> Any:
        out = self.xp.empty(self.size + (self.c,), np.float32)
        far = self.none if self.far is None else self.far
        opened = self.none if self.open is None else self.open
        hid = self.none if self.hid is None else self.hid
        self._launch("hf_dof_composite", (self.front, self.back, self.behind, self.inside, far,
                                          opened, I32(self.far is not None), hid,
                                          I32(self.hid is not None), I64(self.pixels),
                                          I32(self.c), out))
        return out
