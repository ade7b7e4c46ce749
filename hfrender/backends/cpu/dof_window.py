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
* A *moving* pixel (its class changes: a moving object's edge, a moving camera, the
  sub-pixel jitter of the samples on a slanted floor) that stays in one layer is taken as
  still, with its mean share of the layer's two disks (exact for the weights). One that
  changes layer adds each sub-frame's light to the layers it belongs to, with the window
  weights (exact for the scatter), and keeps a front and back sum per distinct layer it
  takes (a *slot*, :mod:`.dof_slots`), composited per slot: an approximation where the
  classes change (the far light of larger disks fills a slot's shortfall without the cap
  by the share of its disk where that light lies, which the still pixels gather).
  ``benchmarks/dof_render.py`` measures it.

:func:`fuse_windows_dof` is the CPU backend's fuse path for ``dof_method="fast"``: it
groups each window's sub-frames by lens (:func:`.dof_share.lens_groups`: equal lenses, and
a focus pull's lenses under one shared lens while no circle of confusion moves by more
than :data:`.dof_share.LENS_TOLERANCE_PX`) and falls back to the per-sub-frame defocus
where more than :data:`MAX_MOVING` of the pixels change layer. The CUDA backend defocuses
every sub-frame (it has no window path, so no grouping to share).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cpu.color import Transfer
from hfrender.backends.cpu.dof_fast import _at, _Ops, defocus_fast
from hfrender.backends.cpu.dof_light import Light, opaque, with_alpha
from hfrender.backends.cpu.dof_plan import LastFrame
from hfrender.backends.cpu.dof_share import (
    LENS_TOLERANCE_PX,
    Classes,
    depth_range,
    lens_groups,
    lens_of,
    window_classes,
)
from hfrender.backends.cpu.dof_slots import STILL, Sources
from hfrender.dof_boxes import bands
from hfrender.dof_composite import inside_of_keys
from hfrender.dof_fft import Window
from hfrender.dof_frame import blur_layers
from hfrender.dof_layers import (
    ROLE_BACK,
    ROLE_BEHIND,
    ROLE_FAR,
    ROLE_FRONT,
    Plan,
    disk_tables,
    make_plan,
)
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

MAX_MOVING = 0.25  # share of pixels changing layer above which a window is defocused per
#                    sub-frame (the approximation would cover most of the frame)

FrameFn = Callable[[int], np.ndarray]  # sub-frame j of a window -> linear (H, W, C) float32


def _share(t: np.ndarray | float, disk: int, disks: int) -> np.ndarray | float:
    """A source's share of its light on disk ``disk`` of its layer's ``disks``."""
    if disks == 1:
        return np.ones_like(t) if isinstance(t, np.ndarray) else 1.0
    return 1.0 - t if disk == 0 else t


class _WindowOps(_Ops):
    """:class:`.dof_fast._Ops` over a window: ``lin`` is the window's weighted mean colour
    (the still pixels' light). A moving pixel that stays in one layer (its disk changes
    within it: jitter on a slanted floor) is taken as still, with its mean share of the
    layer's disks; the light of those that change layer is kept per slot, sent
    (:class:`.dof_slots.Sources`) and received (:class:`.dof_slots.Slots`)."""

    def __init__(self, mean: np.ndarray, cls: Classes, plan: Plan,
                 changes: tuple[np.ndarray, np.ndarray, np.ndarray], mlin: np.ndarray,
                 w: np.ndarray) -> None:
        """``changes``: :func:`layer_changes`; ``mlin`` the light (N, M', C) of the M'
        pixels that change layer."""
        super().__init__(mean, cls.max_d2, cls.blades)
        if mlin.size:  # the pixels that change layer bring their own light
            self.cuts = highlights.edges(max(float(mean.max()), float(mlin.max())),
                                         self.usual)
        self.plan = plan
        self.keep_far(plan)
        self.inside = inside_of_keys(np, cls.keys)
        self.layer = plan.layer_of_key[cls.keys + cls.max_area]
        self.t = plan.t_of_key[cls.keys + cls.max_area]
        moves, first, mean_t = changes
        stays = ~moves
        self.layer.reshape(-1)[cls.index] = np.where(stays, first, STILL)
        self.t.reshape(-1)[cls.index[stays]] = mean_t[stays]
        self.index = cls.index[moves]  # the pixels that change layer
        self.my, self.mx = np.divmod(self.index, mean.shape[1])
        keys = cls.moving_keys[:, moves] + cls.max_area
        self.sources = Sources(plan.layer_of_key[keys], plan.t_of_key[keys], w, mlin)
        self.slots = self.sources.take(plan, self.my, self.mx, mean.shape[:2])
        focus = self.layer == -1
        self.back[: self.c] = self.lin * focus
        self.back[self.c] = focus
        self._choose_splats(cls.keys, cls.index)  # still highlights: as a frame's

    def _moving_in(self, win: Window, j: int | None = None) -> tuple[np.ndarray, ...]:
        """The pixels that change layer in ``win`` (and are in layer j in some sub-frame):
        their columns and their (y, x) in the window."""
        y, x = self.my, self.mx
        cols = np.flatnonzero((y >= win.y0) & (y < win.y1) & (x >= win.x0) & (x < win.x1))
        if j is not None:
            cols = cols[(self.sources.layer[:, cols] == j).any(axis=0)]
        return cols, y[cols] - win.y0, x[cols] - win.x0

    def fields(self, j: int, win: Window, disks: list[int]) -> list[np.ndarray]:
        out = super().fields(j, win, disks)  # the still pixels (moving ones are STILL)
        cols, y, x = self._moving_in(win, j)
        for d, (f, area) in enumerate(zip(out, disks, strict=True)):
            if len(cols):
                f[:, y, x] = self.sources.light(cols, j, d, len(disks)) / np.float32(area)
        return out

    def _sees(self, k: int, layer: np.ndarray) -> np.ndarray:
        """Whether layer k sees pixels of the layers ``layer`` (-1: in focus; STILL: no)."""
        return _by_layer(self.plan.seen[k], layer)

    def _big(self, k: int, layer: np.ndarray) -> np.ndarray:
        """Whether the layers ``layer`` are far light of larger disks to layer k."""
        return _by_layer(self.plan.far_of[k], layer)

    def _box_of(self, win: Window, of: Callable[[np.ndarray], np.ndarray]
                ) -> tuple[int, int, int, int] | None:
        """Around the still pixels where ``of(layers) > 0``, and the moving ones where it
        is in some sub-frame."""
        mask = of(self.layer[_at(win)]) > 0
        cols, y, x = self._moving_in(win)
        mask[y, x] = (of(self.sources.layer[:, cols]) > 0).any(axis=0)
        return box_of(mask, win)

    def seen_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """Around the still pixels layer k sees, and the moving ones it sees in a sub-frame."""
        return self._box_of(win, lambda layer: self._sees(k, layer))

    def open_box(self, win: Window, k: int) -> tuple[int, int, int, int] | None:
        """Around the pixels of the far layers of larger disks than k's (in a sub-frame)."""
        return self._box_of(win, lambda layer: self._big(k, layer))

    def open_window(self, win: Window, k: int) -> np.ndarray:
        """The far pixels of larger disks than layer k's (a moving one: the window weight
        of the sub-frames it is one in), on a window's grid."""
        h, w = win.size
        f = np.zeros((1,) + win.shape, np.float32)
        f[0, :h, :w] = self._big(k, self.layer[_at(win)])
        cols, y, x = self._moving_in(win)
        if len(cols):
            f[0, y, x] = np.einsum("sm,sm->m", self._big(k, self.sources.layer[:, cols]),
                                   self.sources.sums[:, 0, self.c][:, cols])
        return f

    def seen_window(self, win: Window, k: int) -> np.ndarray:
        """The pixels layer k sees (a moving one: over the sub-frames it is seen in)."""
        f = super().seen_window(win, k)
        cols, y, x = self._moving_in(win)
        if len(cols):  # [colour * w, w] of the slots it sees: colour at most top * w
            slots = self._sees(k, self.sources.layer[:, cols])
            light = np.einsum("sm,scm->cm", slots, self.sources.sums[:, 0][..., cols])
            n = min(3, self.c)
            np.minimum(light[:n], self.top * light[self.c], out=light[:n])
            f[:, y, x] = light
        return f

    def scatter(self, j: int, light: Light, win: Window) -> None:
        light = light.masked()
        at = (slice(None),) + _at(win)
        role = self.plan.roles[j][self.layer[at[1:]]]  # STILL: zeroed below
        # back holds a pixel's own layer's light alone until ``finish`` (see ``_Ops``)
        front, own, behind, far = ((role == r).astype(np.float32)
                                   for r in (ROLE_FRONT, ROLE_BACK, ROLE_BEHIND, ROLE_FAR))
        cols, y, x = self._moving_in(win)
        if len(cols):
            front[y, x] = own[y, x] = behind[y, x] = far[y, x] = 0.0  # the slots' sums
            self.slots.add(self.plan.roles[j], light[:, y, x], cols)
        self.front[at] += light * front
        self.behind[at] += light * behind
        if self.far is not None:
            self.far[at] += light * far
        self.back[at] += np.multiply(light, own, out=light)

    def gather(self, j: int, light: Light, win: Window, disk: int, disks: int) -> None:
        # the box is read (past it a gather's sums may wrap around its grid): layer j has
        # no pixel in the window outside its box's rows (one box per band, bands more than
        # twice the reach apart; see _boxes), where alone ``masked`` takes the light's
        # rounding out (``_Ops.ready`` named those rows)
        y0, y1, x0, x1 = win.box
        light = light.masked()[:, y0 - win.y0:y1 - win.y0, x0 - win.x0:x1 - win.x0]
        box = Window(y0, y1, x0, x1, win.shape)
        at = _at(box)
        share = ((self.layer[at] == j) * _share(self.t[at], disk, disks)).astype(np.float32)
        cols, y, x = self._moving_in(box, j)
        if len(cols):
            shares = self.sources.light(cols, j, disk, disks)[self.c]
            slot = self.sources.slot(cols, j)
            self.slots.add_hid(slot, (light[:, y, x] * shares).T, cols)
        self.hid_sums()[(slice(None),) + at] += np.multiply(light, share, out=light)

    def finish(self) -> np.ndarray:
        self.back[self.c].reshape(-1)[self.index] = 1.0  # their composite is the slots'
        out = super().finish()
        out.reshape(-1, self.c)[self.index] = self.slots.composite(self.c)
        return out


def _by_layer(row: np.ndarray, layer: np.ndarray) -> np.ndarray:
    """``row``'s entry of each of the layers ``layer`` (-1, in focus: its last; STILL: 0)."""
    return np.take(row, layer, mode="wrap") * (layer != STILL)


def box_of(mask: np.ndarray, win: Window) -> tuple[int, int, int, int] | None:
    """The box (y0, y1, x0, x1), in the image, around ``mask``'s pixels (the window's
    size), or ``None`` where it has none."""
    rows = np.flatnonzero(mask.any(axis=1))
    if not len(rows):
        return None
    cols = np.flatnonzero(mask[rows[0]:rows[-1] + 1].any(axis=0))
    y, x = win.y0, win.x0
    return y + int(rows[0]), y + int(rows[-1]) + 1, x + int(cols[0]), x + int(cols[-1]) + 1


def _boxes(mask: np.ndarray, gap: int) -> list[tuple[int, int, int, int]]:
    """Boxes (y0, y1, x0, x1) around ``mask``'s pixels, one per band of rows, bands more
    than ``gap`` rows apart kept apart (as :func:`hfrender.dof_boxes.layer_boxes`)."""
    boxes = []
    for y0, y1 in bands(np.flatnonzero(mask.any(axis=1)), gap):
        cols = np.flatnonzero(mask[y0:y1].any(axis=0))
        boxes.append((y0, y1, int(cols[0]), int(cols[-1]) + 1))
    return boxes


def _members(ops: _WindowOps, n: int) -> np.ndarray:
    """(n, H, W) bool: the pixels that belong to each layer in some sub-frame."""
    h, w = ops.layer.shape
    member = np.zeros((n + 2, h * w), bool)  # rows: STILL, in focus, layers 0..n-1
    member[ops.layer.reshape(-1) + 2, np.arange(h * w)] = True
    for layer in ops.sources.layer:
        member[layer + 2, ops.index] = True
    return member[2:].reshape(n, h, w)


def _run(ops: _WindowOps, plan: Plan) -> np.ndarray:
    """The driver of :func:`hfrender.dof_frame.defocus_layers`, over the window's layers."""
    h, w = ops.layer.shape
    offsets = disk_tables(ops.max_d2, ops.blades)[0]
    member = _members(ops, len(plan.layers))
    with ops:
        return blur_layers(ops, plan, offsets, (h, w), np.add,
                           lambda j, reach: _boxes(member[j], 2 * reach + 1))


def defocus_window(frame: FrameFn, depths: Sequence[np.ndarray], lenses: Sequence[Lens],
                   weights: Sequence[float], *, max_moving: float = MAX_MOVING,
                   spans: Sequence[tuple[float, float]] | None = None) -> np.ndarray | None:
    """``sum_j weights[j] * defocus(frame(j), depths[j], lenses[j])`` by one layer
    decomposition for the window (``weights`` sum to 1): a new (H, W, C) float32 array, or
    ``None`` where more than ``max_moving`` of the pixels change layer (defocus per
    sub-frame instead; a pixel that changes class within its layer, as sub-pixel jitter
    makes a slanted floor's pixels do, counts as still). ``frame(j)`` may return the same
    buffer each time; ``spans``: each depth map's nearest and farthest depth, if known."""
    w = np.asarray(weights, np.float32)
    if any(ln.aperture_blades != lenses[0].aperture_blades for ln in lenses):
        return None  # one layer plan draws one shape of bokeh
    cls = window_classes(depths, lenses, spans)
    if cls is None:
        return _mean_and_moving(frame, w, np.zeros(0, np.intp))[0]
    plan = make_plan(cls.counts, cls.max_area, cls.max_d2, blades=cls.blades)
    changes = layer_changes(plan, cls, w)
    if changes[0].sum() > max_moving * cls.keys.size:
        return None
    mean, mlin, alphas = _mean_and_moving(frame, w, cls.index[changes[0]])
    alpha = opaque(alphas) if alphas else None  # a constant alpha is not blurred
    colour = slice(None) if alpha is None else slice(0, 3)
    ops = _WindowOps(mean[..., colour], cls, plan, changes, mlin[..., colour], w)
    return with_alpha(_run(ops, plan), alpha)


def layer_changes(plan: Plan, cls: Classes, w: np.ndarray,
                  chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of the pixels that change class (``cls.index``): which change layer (M,) bool, their
    layer in the first sub-frame, and their mean share ``t`` over the window (``w``), a few
    columns of the (N, M) keys at a time (N x M tables of them would cost as much again)."""
    n, m = cls.moving_keys.shape
    moves, first, mean_t = np.empty(m, bool), np.empty(m, np.int32), np.empty(m, np.float32)
    step = max(1, chunk // max(n, 1))
    for c0 in range(0, m, step):
        keys = cls.moving_keys[:, c0:c0 + step] + cls.max_area
        layer = plan.layer_of_key[keys]
        moves[c0:c0 + step] = ~(layer == layer[:1]).all(axis=0)
        first[c0:c0 + step] = layer[0]
        mean_t[c0:c0 + step] = w @ plan.t_of_key[keys]  # shares are linear in t
    return moves, first, mean_t


def _mean_and_moving(frame: FrameFn, w: np.ndarray,
                     index: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The window's weighted mean (H, W, C), the moving pixels' light (N, M, C) and, for
    RGBA, each sub-frame's alpha plane's (lowest, highest) value."""
    mean = mlin = part = None
    alphas = []
    for j, wj in enumerate(w):
        lin = frame(j)
        if mean is None:
            mean, part = np.zeros(lin.shape, np.float32), np.empty(lin.shape, np.float32)
            mlin = np.empty((len(w), len(index), lin.shape[-1]), np.float32)
        mean += np.multiply(lin, wj, out=part)
        mlin[j] = lin.reshape(-1, lin.shape[-1])[index]
        if lin.shape[-1] == 4:
            alphas.append(np.array([lin[..., 3].min(), lin[..., 3].max()]))
    return mean, mlin, alphas


def fuse_windows_dof(frames: np.ndarray, depth: np.ndarray, weights: WindowWeights,
                     tf: Transfer, out: np.ndarray, lens: Lens | list[Lens], *,
                     max_moving: float = MAX_MOVING, group_lenses: bool = True,
                     lens_tolerance: float = LENS_TOLERANCE_PX) -> np.ndarray:
    """``out[k] = encode(sum_i rows[k, i] * defocus(decode(frames[starts[k] + i])))`` with
    one defocus per window and lens group (:func:`.dof_share.lens_groups`: equal lenses,
    and lenses whose circles of confusion differ by at most ``lens_tolerance`` px under a
    shared one; see :func:`defocus_window`). ``group_lenses=False`` (an experiment) takes
    a window of different lenses as one: each sub-frame's classes from its own lens, so a
    focus pull's pixels move between classes."""
    shape, last = frames.shape[1:], LastFrame()  # (this call's frames: dof_plan.py)
    lin = np.empty(shape, np.float32)
    acc = np.empty(shape, np.float32)
    tmp = np.empty(shape, np.float32)
    for k in range(weights.count):
        acc.fill(0.0)
        s = int(weights.starts[k])
        users = [(s + i, float(wk)) for i, wk in enumerate(weights.rows[k]) if wk != 0]
        spans = {j: depth_range(depth[j]) for j, _ in users}
        groups = (lens_groups(users, lens, spans, lens_tolerance, (depth.shape[2], depth.shape[1]))
                  if group_lenses else [(None, users)])
        for shared, group in groups:
            total = sum(wk for _, wk in group)
            res = None
            if len(group) > 1:
                res = defocus_window(lambda i, g=group: tf.decode(frames[g[i][0]], lin),
                                     [depth[j] for j, _ in group],
                                     [shared or lens_of(lens, j) for j, _ in group],
                                     [wk / total for _, wk in group], max_moving=max_moving,
                                     spans=[spans[j] for j, _ in group])
            if res is not None:
                np.multiply(res, np.float32(total), out=tmp)
                acc += tmp
                continue
            for j, wk in group:  # one sub-frame, or too much moving: defocus each
                src = defocus_fast(tf.decode(frames[j], lin), depth[j], lens_of(lens, j), last)
                np.multiply(src, np.float32(wk), out=tmp)
                acc += tmp
        tf.encode(acc, out[k])
    return out
