"""Depth of field once per output frame: the fast layers over a whole temporal window.

Per sub-frame, the fast defocus (:mod:`hfrender.dof_layers`, :mod:`.dof_fast`) splits the
sources into layers by disk, convolves each layer's fields ``[colour * w, w]`` with its
disks and composites the per-pixel front and back sums. Convolution is linear: with one
layer decomposition for the whole window, ``sum_j w_j (K * field_j) = K * sum_j w_j
field_j``, so each layer is blurred once per output frame instead of once per sub-frame.

* The plan is made once, from the class histogram of all the window's sub-frames.
* A pixel whose class (side and disk area) is the same in every sub-frame is *still*: its
  fields are the window's mean colour times its (fixed) weight, and its role towards each
  layer is fixed. A window of still pixels gives the per-sub-frame result up to float
  rounding (the composite's weights are the same in every sub-frame, so averaging commutes
  with it).
* A *moving* pixel (its class changes: a moving object's edge, a moving camera) adds
  each sub-frame's light to the layers it belongs to, with the window weights (exact for the
  scatter); its role towards a layer, its in-focus share and the share it gathers are the
  window weighted means over its sub-frames, and the composite (a normalisation per pixel)
  runs once on the window's sums: an approximation where the classes change.
  ``benchmarks/dof_render.py`` measures it.

:func:`fuse_windows_dof` is the CPU backend's fuse path for ``dof_method="fast"``: it
groups each window's sub-frames by lens (a focus pull has a lens per sub-frame: groups of
one, the per-sub-frame defocus) and falls back to the per-sub-frame defocus where more than
:data:`MAX_MOVING` of the pixels change class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hfrender.backends.cpu.color import Transfer
from hfrender.backends.cpu.dof_fast import _at, _clean, _Ops, defocus_fast
from hfrender.dof_layers import (
    ROLE_BACK,
    ROLE_FRONT,
    Plan,
    Window,
    blur_layers,
    class_keys,
    disk_tables,
    make_plan,
)
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

MAX_MOVING = 0.25  # share of pixels changing class above which a window is defocused per
#                    sub-frame (the approximation would cover most of the frame)
STILL = -2  # the static layer map's mark for a moving pixel (never a layer, never in focus)

FrameFn = Callable[[int], np.ndarray]  # sub-frame j of a window -> linear (H, W, C) float32


@dataclass
class Classes:
    """The window's classes: the still pixels' keys, and each sub-frame's keys of the moving
    pixels (flat indices ``index``)."""

    keys: np.ndarray  # (H, W) int32, the keys of sub-frame 0
    index: np.ndarray  # (M,) flat indices of the moving pixels
    moving_keys: np.ndarray  # (N, M) int32
    counts: np.ndarray  # histogram of all sub-frames' keys (index key + max_area)
    max_d2: int
    max_area: int

    @property
    def moving_share(self) -> float:
        return len(self.index) / self.keys.size


def _r2(depth: np.ndarray, lens: Lens, w: int, h: int) -> np.ndarray:
    r = lens.coc_radius_px(depth, w, h)
    return r * r


def _keys(depth: np.ndarray, lens: Lens, w: int, h: int, area_of_d2: np.ndarray,
          max_d2: int) -> np.ndarray:
    r2 = _r2(depth, lens, w, h)
    area = area_of_d2[np.minimum(np.floor(r2).astype(np.int32), max_d2)]
    return class_keys(np, area, np.asarray(depth, np.float32), lens.focus_distance)


def window_classes(depths: Sequence[np.ndarray], lenses: Sequence[Lens]) -> Classes | None:
    """The classes of a window's sub-frames (each with its depth and lens); ``None`` when
    nothing is blurred (every disk one pixel)."""
    h, w = depths[0].shape
    max_d2 = int(np.floor(max(float(_r2(d, ln, w, h).max()) for d, ln in
                              zip(depths, lenses, strict=True))))
    if max_d2 < 1:
        return None
    _, area_of_d2, _ = disk_tables(max_d2)
    max_area = int(area_of_d2[-1])
    counts = np.zeros(2 * max_area + 1, np.int64)
    first = None
    moving = np.zeros((h, w), bool)
    for d, ln in zip(depths, lenses, strict=True):
        keys = _keys(d, ln, w, h, area_of_d2, max_d2)
        counts += np.bincount(keys.ravel() + max_area, minlength=len(counts))
        if first is None:
            first = keys
        else:
            moving |= keys != first
    index = np.flatnonzero(moving)
    moving_keys = np.stack([_keys(np.asarray(d).reshape(-1)[index], ln, w, h, area_of_d2,
                                  max_d2) for d, ln in zip(depths, lenses, strict=True)])
    return Classes(first, index, moving_keys.reshape(len(depths), -1), counts, max_d2,
                   max_area)


def _share(t: np.ndarray | float, disk: int, disks: int) -> np.ndarray | float:
    """A source's share of its light on disk ``disk`` of its layer's ``disks``."""
    if disks == 1:
        return np.ones_like(t) if isinstance(t, np.ndarray) else 1.0
    return 1.0 - t if disk == 0 else t


class _Slots:
    """The moving pixels' receiving side: each pixel's distinct layers over the window
    (its *slots*: ``layer`` (S, M), with ``weight`` the window weight of the sub-frames in
    each), and per slot its own front and back sums (S, C + 1, M), composited per slot: a
    pixel that is a sharp spoke in some sub-frames and blurred sky in others is
    renormalised as each, as the per-sub-frame defocus does."""

    def __init__(self, mlayer: np.ndarray, w: np.ndarray, mlin: np.ndarray) -> None:
        n, m = mlayer.shape
        order = np.argsort(mlayer, axis=0, kind="stable")
        ranked = np.take_along_axis(mlayer, order, axis=0)
        new = np.ones((n, m), bool)
        new[1:] = ranked[1:] != ranked[:-1]
        rank = np.cumsum(new, axis=0) - 1
        slots = int(rank.max()) + 1 if m else 1
        self.layer = np.full((slots, m), STILL, np.int32)
        self.layer[rank, np.arange(m)] = ranked
        self.of = np.empty((n, m), np.intp)  # the slot of each sub-frame's layer
        np.put_along_axis(self.of, order, rank, axis=0)
        c = mlin.shape[-1]
        self.weight = np.zeros((slots, m), np.float32)
        self.front = np.zeros((slots, c + 1, m), np.float32)
        self.back = np.zeros((slots, c + 1, m), np.float32)
        cols = np.arange(m)
        for j in range(n):  # each slot's own light where it is in focus
            self.weight[self.of[j], cols] += w[j]
            focus = w[j] * (mlayer[j] == -1)
            self.back[self.of[j], :c, cols] += mlin[j] * focus[:, None]
            self.back[self.of[j], c, cols] += focus

    def add(self, roles: np.ndarray, light: np.ndarray, cols: np.ndarray) -> None:
        """Add a layer's scatter ``light`` (C + 1, len(cols)) to each slot by its role
        (``roles``: the layer's row of the plan's roles) and weight."""
        for s in range(self.layer.shape[0]):
            role = roles[self.layer[s, cols]]  # STILL slots weigh 0
            part = light * self.weight[s, cols]
            self.front[s][:, cols] += part * (role == ROLE_FRONT)
            self.back[s][:, cols] += part * (role == ROLE_BACK)

    def composite(self, c: int) -> np.ndarray:
        """(M, C): the sum over slots of weight x the gather's composite of the slot's sums
        (taken per sub-frame: divided by its weight)."""
        out = np.zeros((c, self.layer.shape[1]), np.float32)
        for s in range(self.layer.shape[0]):
            wgt = self.weight[s]
            keep = (wgt > 0) & (self.back[s, c] > 0)
            f = self.front[s][:, keep] / wgt[keep]
            b = self.back[s][:, keep]
            alpha = np.minimum(f[c], 1.0)
            o = b[:c] / b[c] * (1.0 - alpha) + f[:c] / np.maximum(f[c], 1.0)
            out[:, keep] += o * wgt[keep]
        return out.T


class _WindowOps(_Ops):
    """:class:`.dof_fast._Ops` over a window: ``lin`` is the window's weighted mean colour
    (the still pixels' light); the moving pixels carry each sub-frame's layer, share and
    colour (``mlayer``, ``mt`` (N, M), ``mlin`` (N, M, C)) and the window weights ``w``;
    their sums are kept per slot (:class:`_Slots`)."""

    def __init__(self, mean: np.ndarray, max_d2: int, cls: Classes, plan: Plan,
                 mlin: np.ndarray, w: np.ndarray) -> None:
        super().__init__(mean, max_d2)
        self.plan, self.w, self.mlin = plan, w, mlin
        h, width = mean.shape[:2]
        self.layer = plan.layer_of_key[cls.keys + cls.max_area]
        self.t = plan.t_of_key[cls.keys + cls.max_area]
        self.layer.reshape(-1)[cls.index] = STILL
        self.mlayer = plan.layer_of_key[cls.moving_keys + cls.max_area]
        self.mt = plan.t_of_key[cls.moving_keys + cls.max_area]
        self.my, self.mx = np.divmod(cls.index, width)
        self.index = cls.index
        focus = self.layer == -1
        self.back[: self.c] = self.lin * focus
        self.back[self.c] = focus
        self.slots = _Slots(self.mlayer, w, mlin)

    def _moving_in(self, win: Window, j: int | None = None) -> tuple[np.ndarray, ...]:
        """The moving pixels in ``win`` (that belong to layer j in some sub-frame): their
        columns in the moving arrays and their (y, x) in the window."""
        y, x = self.my, self.mx
        cols = np.flatnonzero((y >= win.y0) & (y < win.y1) & (x >= win.x0) & (x < win.x1))
        if j is not None:
            cols = cols[(self.mlayer[:, cols] == j).any(axis=0)]
        return cols, y[cols] - win.y0, x[cols] - win.x0

    def fields(self, j: int, win: Window, disks: list[int]) -> list[np.ndarray]:
        out = super().fields(j, win, disks)  # the still pixels (moving ones are STILL)
        cols, y, x = self._moving_in(win, j)
        if not len(cols):
            return out
        mine, t = self.mlayer[:, cols] == j, self.mt[:, cols]
        for d, (f, area) in enumerate(zip(out, disks, strict=True)):
            co = self.w[:, None] * mine * _share(t, d, len(disks)) / np.float32(area)
            f[self.c, y, x] = co.sum(axis=0)
            f[: self.c, y, x] = np.einsum("nm,nmc->cm", co, self.mlin[:, cols])
        return out

    def scatter(self, j: int, light: np.ndarray, win: Window) -> None:
        at = (slice(None),) + _at(win)
        role = self.plan.roles[j][self.layer[at[1:]]]  # STILL: zeroed below
        front = (role == ROLE_FRONT).astype(np.float32)
        back = (role == ROLE_BACK).astype(np.float32)
        light = _clean(light)
        cols, y, x = self._moving_in(win)
        if len(cols):
            front[y, x] = back[y, x] = 0.0  # their sums are the slots'
            self.slots.add(self.plan.roles[j], light[:, y, x], cols)
        self.front[at] += light * front
        self.back[at] += np.multiply(light, back, out=light)

    def gather(self, j: int, light: np.ndarray, win: Window, disk: int, disks: int) -> None:
        at = _at(win)
        share = ((self.layer[at] == j) * _share(self.t[at], disk, disks)).astype(np.float32)
        light = _clean(light)
        cols, y, x = self._moving_in(win, j)
        if len(cols):
            mine = self.mlayer[:, cols] == j
            shares = (self.w[:, None] * mine * _share(self.mt[:, cols], disk, disks)).sum(0)
            slot = np.argmax(self.slots.layer[:, cols] == j, axis=0)  # the slot of layer j
            self.slots.back[slot, :, cols] += (light[:, y, x] * shares).T
        self.back[(slice(None),) + at] += np.multiply(light, share, out=light)

    def finish(self) -> np.ndarray:
        self.back[self.c].reshape(-1)[self.index] = 1.0  # their composite is the slots'
        out = super().finish()
        out.reshape(-1, self.c)[self.index] = self.slots.composite(self.c)
        return out


def _boxes(mask: np.ndarray, gap: int) -> list[tuple[int, int, int, int]]:
    """Boxes (y0, y1, x0, x1) around ``mask``'s pixels, one per band of rows, bands more
    than ``gap`` rows apart kept apart (as :func:`hfrender.dof_layers.layer_boxes`)."""
    rows = np.flatnonzero(mask.any(axis=1))
    if not len(rows):
        return []
    boxes = []
    for band in np.split(rows, np.flatnonzero(np.diff(rows) > gap) + 1):
        y0, y1 = int(band[0]), int(band[-1]) + 1
        cols = np.flatnonzero(mask[y0:y1].any(axis=0))
        boxes.append((y0, y1, int(cols[0]), int(cols[-1]) + 1))
    return boxes


def _members(ops: _WindowOps, n: int) -> np.ndarray:
    """(n, H, W) bool: the pixels that belong to each layer in some sub-frame."""
    h, w = ops.layer.shape
    member = np.zeros((n + 2, h * w), bool)  # rows: STILL, in focus, layers 0..n-1
    member[ops.layer.reshape(-1) + 2, np.arange(h * w)] = True
    for layer in ops.mlayer:
        member[layer + 2, ops.index] = True
    return member[2:].reshape(n, h, w)


def _run(ops: _WindowOps, plan: Plan, max_d2: int) -> np.ndarray:
    """The driver of :func:`hfrender.dof_layers.defocus_layers`, over the window's layers."""
    h, w = ops.layer.shape
    offsets = disk_tables(max_d2)[0]
    member = _members(ops, len(plan.layers))
    return blur_layers(ops, plan, offsets, (h, w), np.add,
                       lambda j, size: _boxes(member[j], size))


def defocus_window(frame: FrameFn, depths: Sequence[np.ndarray], lenses: Sequence[Lens],
                   weights: Sequence[float], *,
                   max_moving: float = MAX_MOVING) -> np.ndarray | None:
    """``sum_j weights[j] * defocus(frame(j), depths[j], lenses[j])`` by one layer
    decomposition for the window (``weights`` sum to 1): a new (H, W, C) float32 array, or
    ``None`` where more than ``max_moving`` of the pixels change class (defocus per
    sub-frame instead). ``frame(j)`` may return the same buffer each time."""
    w = np.asarray(weights, np.float32)
    cls = window_classes(depths, lenses)
    if cls is not None and cls.moving_share > max_moving:
        return None
    mean = mlin = None
    for j, wj in enumerate(w):
        lin = frame(j)
        if mean is None:
            mean = np.zeros(lin.shape, np.float32)
            index = cls.index if cls is not None else np.zeros(0, np.intp)
            mlin = np.empty((len(w), len(index), lin.shape[-1]), np.float32)
        mean += lin * wj
        mlin[j] = lin.reshape(-1, lin.shape[-1])[index]
    if cls is None:
        return mean
    plan = make_plan(cls.counts, cls.max_area, cls.max_d2)
    return _run(_WindowOps(mean, cls.max_d2, cls, plan, mlin, w), plan, cls.max_d2)


def fuse_windows_dof(frames: np.ndarray, depth: np.ndarray, weights: WindowWeights,
                     tf: Transfer, out: np.ndarray, lens: Lens | list[Lens], *,
                     max_moving: float = MAX_MOVING, group_lenses: bool = True) -> np.ndarray:
    """``out[k] = encode(sum_i rows[k, i] * defocus(decode(frames[starts[k] + i])))`` with
    one defocus per window and lens (see :func:`defocus_window`). ``group_lenses=False``
    (an experiment) takes a window of different lenses as one: each sub-frame's classes
    from its own lens, so a focus pull's pixels move between classes."""
    shape = frames.shape[1:]
    lin = np.empty(shape, np.float32)
    acc = np.empty(shape, np.float32)
    tmp = np.empty(shape, np.float32)
    for k in range(weights.count):
        acc.fill(0.0)
        s = int(weights.starts[k])
        users = [(s + i, float(wk)) for i, wk in enumerate(weights.rows[k]) if wk != 0]
        for group in _by_lens(users, lens) if group_lenses else [users]:
            total = sum(wk for _, wk in group)
            res = None
            if len(group) > 1:
                res = defocus_window(lambda i, g=group: tf.decode(frames[g[i][0]], lin),
                                     [depth[j] for j, _ in group],
                                     [_lens(lens, j) for j, _ in group],
                                     [wk / total for _, wk in group], max_moving=max_moving)
            if res is not None:
                np.multiply(res, np.float32(total), out=tmp)
                acc += tmp
                continue
            for j, wk in group:  # one sub-frame, or too much moving: defocus each
                src = defocus_fast(tf.decode(frames[j], lin), depth[j], _lens(lens, j))
                np.multiply(src, np.float32(wk), out=tmp)
                acc += tmp
        tf.encode(acc, out[k])
    return out


def _lens(lens: Lens | list[Lens], j: int) -> Lens:
    return lens if isinstance(lens, Lens) else lens[j]


def _by_lens(users: list[tuple[int, float]],
             lens: Lens | list[Lens]) -> list[list[tuple[int, float]]]:
    """The window's (sub-frame, weight) pairs grouped by equal lenses, in order of first use."""
    groups: dict[Lens, list[tuple[int, float]]] = {}
    for j, wk in users:
        groups.setdefault(_lens(lens, j), []).append((j, wk))
    return list(groups.values())
