"""The CUDA backend's fast depth of field, its per-pixel steps: :class:`Ops`, what
:func:`hfrender.dof_frame.defocus_layers` drives for a run of frames that share a plan
(:func:`.dof.defocus_frames` makes them), on the device: the kernels of
``shaders/cuda/dof.cu`` (``hf_dof_start``, ``hf_dof_spans``, ``hf_dof_fields``,
``hf_dof_accumulate``, ``hf_dof_composite``), the FFTs by the array module, and the disks'
spectra, kept on the device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cuda.dof_splat import SplatOps, plane_tops
from hfrender.backends.cuda.launches import BLOCK, I32, I64, Device, _grid, _host
from hfrender.dof_boxes import Spans
from hfrender.dof_composite import inside_of_keys, seen_top
from hfrender.dof_fft import SPECTRA_BYTES, Window, forward, inverse
from hfrender.dof_layers import (
    FAR,
    ROLE_BACK,
    ROLE_FAR,
    ROLE_NONE,
    Plan,
    disk_spectrum,
    disk_tables,
)
from hfrender.kept import Kept


class Ops(SplatOps):
    """The fast method's per-pixel steps for frames ``lin`` (F, H, W, C) that share one plan
    (:func:`.dof_plans.plan_runs`) on the device: each array has the frames first, the kernels take
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
        for the next frames and calls as on the CPU (:class:`hfrender.kept.Kept`: the 32
        newest had been kept, fewer than a 640x360 frame's 35 at 64 px on the H200, so
        every call made all of them again: 13 of its 38 ms)."""
        kept = self.dev._tables.get("dof-disks")
        if kept is None:  # (built only when missing: was one per call, setdefault's argument)
            kept = self.dev._tables.setdefault("dof-disks", Kept(SPECTRA_BYTES))
        side = side if self.blades % 2 else FAR  # a round or even disk turned over is itself
        key = (area, shape, self.blades, side)  # (a disk's first offsets: any max_d2's)
        spectrum = kept.get(key)
        if spectrum is None:
            spectrum = kept.put(key, disk_spectrum(
                self.xp, disk_tables(self.max_d2, self.blades)[0], area, shape, side))
        return spectrum

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
