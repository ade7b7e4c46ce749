"""The fast depth of field on the CPU: layers by circle of confusion, disks by FFT.

The plan and the FFT maths are :mod:`hfrender.dof_layers` (shared with the CUDA backend);
this module is the NumPy side of it: each layer's fields (``[colour, 1] * weight``), the
per-pixel sums, and the exact gather's composite (``hfrender/backends/cpu/dof.py``), in
bands of rows (:func:`.dof_light.by_rows`), bit for bit the whole-frame steps; its FFTs
are :mod:`.dof_transforms`.
"""

from __future__ import annotations

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cpu.ahead import Ahead
from hfrender.backends.cpu.blur import scratch
from hfrender.backends.cpu.dof_light import Light, by_rows, opaque, with_alpha
from hfrender.backends.cpu.dof_plan import LastFrame, banded_classes, depth_steps
from hfrender.backends.cpu.dof_splat import SplatOps
from hfrender.backends.cpu.dof_transforms import Transforms
from hfrender.dof_boxes import Spans
from hfrender.dof_composite import composite, inside_of_keys, seen_top
from hfrender.dof_fft import Window
from hfrender.dof_frame import defocus_layers
from hfrender.dof_layers import ROLE_BACK, ROLE_BEHIND, ROLE_FAR, ROLE_FRONT, Plan
from hfrender.optics import Lens


class _Ops(Transforms, SplatOps):
    """Per-frame state of the fast defocus: ``lin`` (H, W, C) and the front, own and behind
    sums ``[sum c * w, sum w]`` per pixel, planar (C + 1, H, W) (``back`` holds the light of
    a pixel's own layer until :meth:`finish` adds what is behind it); ``far``, the same of
    the far layers with larger disks (``ROLE_FAR``), which fills what a pixel's disk sees
    past its surface, at most ``open`` (H, W): the share of the pixel's disk where those
    layers' pixels lie (:meth:`gather_open`)."""

    def __init__(self, lin: np.ndarray, max_d2: int, blades: int = 0) -> None:
        self.lin = np.moveaxis(lin, -1, 0)  # planar view (C, H, W)
        self.max_d2, self.blades = max_d2, blades
        c, h, w = self.lin.shape
        self.c = c
        self.front = np.zeros((c + 1, h, w), np.float32)
        self.back = np.zeros((c + 1, h, w), np.float32)
        self.behind = np.zeros((c + 1, h, w), np.float32)
        self.far: np.ndarray | None = None
        self.hid: np.ndarray | None = None  # what pixels before the focus plane see behind
        self.open: np.ndarray | None = None  # the share of a pixel's disk the far light fills
        self.ahead: Ahead | None = None
        self.top: np.ndarray | None = None  # the in-focus light seen past edges, at most
        self.spans_table: Spans | None = None  # where the layers are (:meth:`spans`)
        largest = float(self.lin.max()) if self.lin.size else 0.0
        highlights.check_summable(largest, h * w)
        self.cuts = highlights.edges(largest, self.usual)
        self.largest = largest

    def __enter__(self) -> _Ops:
        return self

    def __exit__(self, kind: type | None, *_: object) -> None:
        if kind is not None and self.ahead is not None:  # a failure: the FFT jobs queued
            self.ahead.abandon()  # and not started do not run

    classes = staticmethod(banded_classes)  # (the plan's classes: dof_plan.py)

    def keep_far(self, plan: Plan) -> None:
        """The far sums, where the plan has far light of larger disks (``ROLE_FAR``), and
        the share of each pixel's disk where it lies (:meth:`gather_open`)."""
        self.far = np.zeros_like(self.front) if plan.big.any() else None
        self.open = None if self.far is None else np.zeros(self.front.shape[1:], np.float32)

    def start(self, plan: Plan, keys: np.ndarray) -> None:
        self.plan = plan
        self._look_for_highlights(plan)  # (on the transform thread, while these run)
        self.keep_far(plan)
        self.inside = inside_of_keys(np, keys)
        self.layer = np.empty(keys.shape, np.int32)  # -1: in focus
        self.t = np.empty(keys.shape, np.float32)
        c = self.c

        def rows(y0: int, y1: int) -> None:
            index = np.add(keys[y0:y1], plan.max_area,
                           out=scratch("dof.index", (y1 - y0, keys.shape[1]), np.int32))
            # keys are in the tables' range: "clip" only spares take's buffered copy
            np.take(plan.layer_of_key, index, out=self.layer[y0:y1], mode="clip")
            np.take(plan.t_of_key, index, out=self.t[y0:y1], mode="clip")
            focus = self.back[c, y0:y1]  # sources in focus: their own pixel, weight 1
            np.less(self.layer[y0:y1], 0, out=focus)
            np.multiply(self.lin[:, y0:y1], focus, out=self.back[:c, y0:y1])

        by_rows(rows, *keys.shape)
        self._choose_splats(keys)

    def spans(self, n: int) -> Spans:
        """Where each of the plan's ``n`` layers has pixels (and those in focus)."""
        self.spans_table = Spans.of_layers(self.layer, n)
        return self.spans_table

    def fields(self, j: int, win: Window, disks: list[int]) -> list[np.ndarray]:
        """Layer j's light on each of its disks, on the window's grid: (C + 1, *shape) —
        colour * weight and the weight (its share of the source / the disk's area) — in
        its box's rows (zero past the window's columns); the other rows are not read
        (:meth:`forward`), nor cleared: a memset of every grid."""
        w = win.size[1]
        r0, r1 = win.inner  # the layer's pixels are in its box's rows
        out = [np.empty((self.c + 1,) + win.shape, np.float32) for _ in disks]
        for f in out:
            f[:, r0:r1, w:] = 0

        def rows(y0: int, y1: int) -> None:
            at = _rows(win, y0, y1)
            mine, t = self.field_layer[at] == j, self.t[at]
            for d, (f, area) in enumerate(zip(out, disks, strict=True)):
                weight = f[self.c, y0:y1, :w]
                if len(disks) == 1:
                    np.multiply(mine, np.float32(1) / np.float32(area), out=weight)
                else:  # where(mask, share / area, 0) as a product: shares are >= 0
                    share = 1.0 - t if d == 0 else t
                    np.multiply(np.divide(share, np.float32(area), out=weight),
                                mine & (share > 0), out=weight)
                np.multiply(self.lin[(slice(None),) + at], weight, out=f[: self.c, y0:y1, :w])

        by_rows(lambda y0, y1: rows(r0 + y0, r0 + y1), r1 - r0, w)
        return out

    def scatter(self, j: int, light: Light, win: Window) -> None:
        """Add layer j's scatter to the front, own or behind sums of each pixel by its role."""
        roles = self.plan.roles[j]

        def rows(y0: int, y1: int) -> None:
            at = _rows(win, y0, y1)
            part = light.band(y0, y1)
            there = light.there(part)
            role = np.take(roles, self.layer[at], mode="wrap")  # layer -1 (focus): the last
            out = scratch("dof.part", part.shape, np.float32)
            weight = scratch("dof.mask", there.shape, np.float32)
            for sums, which in ((self.front, ROLE_FRONT), (self.back, ROLE_BACK),
                                (self.behind, ROLE_BEHIND), (self.far, ROLE_FAR)):
                if sums is None:  # back: the layer's own pixels; far: none in the plan
                    continue
                mask = there & (role == which)
                if mask.any():  # a band of the window may hold no pixel of a role
                    np.copyto(weight, mask)  # a float mask: the product takes half the time
                    sums[(slice(None),) + at] += np.multiply(part, weight, out=out)

        by_rows(rows, *win.size)

    def gather(self, j: int, light: Light, win: Window, disk: int, disks: int) -> None:
        """Add what layer j's pixels see behind them, gathered with disk ``disk`` of the
        layer's ``disks`` (each pixel takes its share of each), to their hid sums."""
        self._gathered(j, light, win, disk, disks, self.hid_sums())

    def hid_sums(self) -> np.ndarray:
        """The sums of what pixels before the focus plane see behind them, made at the
        first gather of them (a frame with none before the focus plane has none)."""
        if self.hid is None:
            self.hid = np.zeros_like(self.front)
        return self.hid

    def gather_open(self, j: int, light: Light, win: Window, disk: int, disks: int) -> None:
        """Add how much of layer j's pixels' disks the far layers of larger disks fill (a
        gather of :meth:`open_window`), as :meth:`gather`."""
        self._gathered(j, light, win, disk, disks, self.open[None])

    def _gathered(self, j: int, light: Light, win: Window, disk: int, disks: int,
                  sums: np.ndarray) -> None:
        """Add a gather's ``light`` to the ``sums`` of layer j's pixels in the window's box."""
        r0, r1 = win.inner  # the layer's pixels are in its box's rows
        x0, x1 = win.box[2:]
        cols = slice(x0 - win.x0, x1 - win.x0)

        def rows(y0: int, y1: int) -> None:
            at = slice(win.y0 + y0, win.y0 + y1), slice(x0, x1)
            part = light.band(y0, y1, cols)  # the box's columns alone
            share = light.there(part) & (self.layer[at] == j)
            if disks > 1:
                t = self.t[at]
                share = share * (1.0 - t if disk == 0 else t)
            else:  # a float mask: the product takes half the time
                share = share.astype(np.float32)
            sums[(slice(None),) + at] += np.multiply(part, share, out=part)

        by_rows(lambda y0, y1: rows(r0 + y0, r0 + y1), r1 - r0, x1 - x0)

    def open_spans(self, n: int) -> Spans:
        """Where the plan's ``n`` layers' pixels may take far light (:meth:`gather_open`),
        once every layer has scattered: it reaches them and their own light falls short."""
        c = self.c
        short = self.inside - self.front[c] - (self.back[c] + self.behind[c])  # as finish
        wanted = (self.far[c] > 0) & (short > np.float32(1e-4))
        return Spans.of_layers(np.where(wanted, self.layer, n + 1), n)  # n + 1: not there

    def open_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """A box (y0, y1, x0, x1), in the image, around the window's pixels of the far
        layers of larger disks than layer k's (``Plan.big``; ``None``: it has none)."""
        return self.spans_table.box(np.flatnonzero(self.plan.big[:, k]), *_box(win))

    def open_window(self, win: Window, k: int) -> np.ndarray:
        """(1, *shape): 1 at the pixels of the far layers of larger disks than layer k's,
        on a window's grid (what :meth:`gather_open` gathers)."""
        h, w = win.size
        f = np.zeros((1,) + win.shape, np.float32)
        np.take(self.plan.far_of[k], self.layer[_at(win)], out=f[0, :h, :w], mode="wrap")
        return f

    def seen_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """A box (y0, y1, x0, x1), in the image, around the window's pixels that layer k
        sees behind it (``Plan.seen``; ``None``: it has none)."""
        return self.spans_table.box(np.flatnonzero(self.plan.seen[k]), *_box(win))

    def seen_window(self, win: Window, k: int) -> np.ndarray:
        """The pixels layer k sees behind it, ``[colour, 1]`` (``Plan.seen``; colour at
        most :func:`.dof_composite.seen_top`, as the exact gather cuts it before weighing
        it), on a window's grid."""
        h, w = win.size
        if self.top is None:  # the frame's, once (:func:`.dof_composite.seen_top`)
            self.top = seen_top(np, self.lin)
        f = np.zeros((self.c + 1,) + win.shape, np.float32)
        mine = f[self.c, :h, :w]
        # its last column (layer -1): in focus
        np.take(self.plan.seen[k], self.layer[_at(win)], out=mine, mode="wrap")
        np.multiply(self.lin[(slice(None),) + _at(win)], mine, out=f[: self.c, :h, :w])
        colour = f[: min(3, self.c), :h, :w]
        np.minimum(colour, self.top * mine, out=colour)
        return f

    def finish(self) -> np.ndarray:
        """The exact gather's composite: back (renormalised) under front (coverage
        ``alpha = min(front weight, 1)``)."""
        c, (h, w) = self.c, self.front.shape[1:]
        out = np.empty((h, w, c), np.float32)

        def rows(y0: int, y1: int) -> None:
            f, b, k = (s[:, y0:y1] for s in (self.front, self.back, self.behind))
            b += k  # own light and what is behind
            part = composite(np, f[:c], f[c], b[:c], b[c], k[:c], k[c], self.inside[y0:y1],
                             out=scratch("dof.out", (c, y1 - y0, w), np.float32),
                             far=None if self.far is None else self.far[:, y0:y1],
                             open_=None if self.open is None else self.open[y0:y1],
                             hid=None if self.hid is None else self.hid[:, y0:y1])
            out[y0:y1] = np.moveaxis(part, 0, -1)

        by_rows(rows, h, w)
        return out


def _box(win: Window) -> tuple[int, int, int, int]:
    return win.y0, win.y1, win.x0, win.x1


def _at(win: Window) -> tuple[slice, slice]:
    return slice(win.y0, win.y1), slice(win.x0, win.x1)


def _rows(win: Window, y0: int, y1: int) -> tuple[slice, slice]:
    """Rows ``y0:y1`` of the window, in the image."""
    return slice(win.y0 + y0, win.y0 + y1), slice(win.x0, win.x1)


def defocus_fast(lin: np.ndarray, depth: np.ndarray, lens: Lens,
                 last: LastFrame | None = None) -> np.ndarray:
    """Defocus one linear-light frame ``lin`` (H, W, C float32) with ``depth`` (H, W) metres,
    by layers (cost independent of the blur size). Returns a new (H, W, C) float32 array.
    An RGBA frame's alpha that is one constant is not blurred: the defocus of a constant
    is that constant (a fifth of the FFTs). ``last``: a call's memory of its frame before
    (:mod:`.dof_plan`: the same depth and lens, the same plan)."""
    h, w, c = lin.shape
    r2, max_d2, planned = depth_steps(depth, lens, w, h, last)
    if max_d2 < 1:
        return lin.copy()
    alpha = opaque([lin[..., 3]]) if c == 4 else None
    depth = np.asarray(depth, np.float32)
    ops = _Ops(lin if alpha is None else lin[..., :3], max_d2, lens.aperture_blades)
    with ops:
        light = defocus_layers(ops, np, r2, depth, lens.focus_distance, max_d2,
                               lens.aperture_blades, planned)
    return with_alpha(light, alpha)
