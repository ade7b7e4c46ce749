"""Motion-blur reconstruction on the CUDA backend, host side (any array module).

Step for step as :mod:`hfrender.backends.cpu.reconstruct`, the reference: the same windows,
cells, half-cells and number of intermediate times (:func:`half_steps`, decided on the host
from each sub-frame's largest speed), the same base picture, and per half-cell and chunk of
intermediate times the kernels of ``shaders/cuda/reconstruct.cu``:

- ``hf_rc_splat`` (once per source: the cell's own sub-frame, then its neighbour): every
  moving pixel's key, its depth's bits above its candidate id (own sub-frame's pixels
  first, in raster order), ``atomicMin``-ed into the z-buffer of (time, target pixel): the
  nearest surface wins, then the first candidate, as ``np.minimum.at`` of the candidates'
  indices picks the first of equals on the CPU;
- ``hf_rc_resolve``: the winner of each (time, pixel), where it is not behind the base;
- ``hf_rc_ties`` (once per source, as ``hf_rc_splat``): the winner's equal rivals (its
  depth, its source, another velocity: ``recon_ties.rivals``), linked into a list per
  (time, pixel); not launched where no source has splats at one depth moving differently
  (``recon_ties.mixed``: no rivals; the CPU skips them too);
- ``hf_rc_border``: ``recon_layer.borders``, the pixels next to a landing that take it
  (the landing's entry, so that its rivals and the landings beside it at its depth are
  blended too: ``recon_ties``);
- ``hf_rc_accumulate``: per pixel channel, the sum of (shown - base) over the chunk's times
  (the winners, then the borders), in double, in time order (the CPU's ``bincount`` adds the
  same float32 terms in its entries' order: exact sums unless the terms span more than
  about 2**29 in size); shown is
  ``recon_layer.samples``, the source's moving layer sampled where the pixel was at the
  source's time, over the base, or for a winner from inside its surface
  ``recon_layer.resampled``, its colour alone; with rivals, the mean over their distinct
  velocities (``recon_ties.blend``).

A sub-frame's outliers (:func:`~hfrender.backends.cpu.recon_fast.outliers`: a few pixels far
faster than the rest; looked for in the sub-frames the windows use alone) are left out of
the kernels' splatting (their ``splat`` mask) and the step count is the rest's; each cell's
outliers are drawn over its picture by the CPU's own array code
(:mod:`~hfrender.backends.cpu.recon_fast`, on ``dev.xp``).

``hf_rc_base`` and ``hf_rc_fill`` (a ring at a time) are ``_base``; ``hf_rc_cell_add``
adds each half-cell's mean, weighted by its length, into the cell's picture; the weighted
sum over a window's cells and the encode are :func:`launches.fuse_windows` on those pictures
(``linear_in``), one launch per window. A hyperframe without motion (:func:`moves`) is plain
:func:`launches.fuse`, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hfrender.backends.cpu.recon_cells import STILL_PX, cells, half_steps, moves
from hfrender.backends.cpu.recon_fast import cover, outliers, over, streaks
from hfrender.backends.cpu.recon_fill import reach
from hfrender.backends.cpu.recon_layer import inner
from hfrender.backends.cpu.recon_ties import mixed as recon_mixed
from hfrender.backends.cpu.reconstruct import CHUNK_ELEMS
from hfrender.backends.cuda import launches
from hfrender.backends.cuda.launches import (
    BLOCK,
    F32,
    F64,
    I32,
    I64,
    MAX_GRID_Z,
    SUFFIX,
    Device,
    _grid,
    _host,
    _luts,
    _z_chunks,
    mode_of,
)
from hfrender.hyperframe.windows import WindowWeights
from hfrender.optics import Lens

FILL_CHECK = 8  # hole-fill rings between two looks at whether they still fill


@dataclass
class _Frames:
    """The hyperframe as reconstruction reads it, on the device (and its scalars on the host)."""

    lin: Any  # (N, H, W, C) float32: linear light (defocused with lenses)
    depth: Any  # (N, H, W) float32
    velocity: Any  # (N, H, W, 2) float32 pixels per second
    moving: Any  # (N, H, W) uint8: moves by STILL_PX or more over a shutter
    splat: Any  # (N, H, W) uint8: moving but no outlier (recon_fast): what the kernels splat
    inner: Any  # (N, H, W) uint8: splat, and so are the eight neighbours (recon_layer.inner)
    any_moving: np.ndarray  # (N,) bool, host: any splat
    mixed: np.ndarray  # (N,) bool, host: splats at one depth moving differently (rivals)
    times: np.ndarray  # (N,) float64, host
    speed: np.ndarray  # (N,) float64, host: the largest |velocity|
    shift: np.ndarray  # (N, 2) float64, host: (y, x) px each one's antialiasing moved it
    fast: list[Any]  # each one's outliers (flat indices; recon_fast.outliers)
    rest: np.ndarray  # (N,) float64, host: the largest |velocity| of the splatted pixels

    @property
    def shape(self) -> tuple[int, int, int]:
        return tuple(int(s) for s in self.lin.shape[1:])  # type: ignore[return-value]


def frame_speeds(xp: Any, velocity: Any) -> np.ndarray:
    """Each sub-frame's largest |velocity| (host float64), as the CPU backend computes it."""
    n = int(velocity.shape[0])
    speed = xp.sqrt((velocity.astype(xp.float64) ** 2).sum(-1)).reshape(n, -1).max(1)
    return _host(xp, speed).astype(np.float64)


def reconstruct(dev: Device, frames: Any, depth: Any, velocity: Any, times: np.ndarray,
                weights: WindowWeights, spans: np.ndarray, lenses: Sequence[Lens] | None,
                linear_light: bool, out: Any, dof_method: str = "fast",
                shifts: np.ndarray | None = None) -> Any:
    """``CPUBackend.reconstruct`` on the device: ``frames`` (N, H, W, C), ``depth``
    (N, H, W) and ``velocity`` (N, H, W, 2) float32, all C-contiguous arrays of ``dev.xp``;
    ``times`` (N,), ``spans`` (M, 2) and ``shifts`` (N, 2: x, y px, or None) on the host;
    ``out`` (M, H, W, C) written."""
    xp = dev.xp
    times = np.asarray(times, np.float64)
    spans = np.asarray(spans, np.float64)
    speed = frame_speeds(xp, velocity)
    if not moves(speed, weights, times, spans):
        return launches.fuse(dev, frames, depth if lenses is not None else None, weights,
                             lenses, linear_light, out, dof_method=dof_method)
    mode = mode_of(frames.dtype, linear_light)
    lin = _decode(dev, frames, mode)
    if lenses is not None:
        from hfrender.backends.cuda.dof import defocus_frames

        dof = defocus_frames(dev, lin, depth, lenses, dof_method)
        lin = lin if dof is None else dof
    shutter = float(np.max(spans[:, 1] - spans[:, 0])) if len(spans) else 0.0
    moving = xp.hypot(velocity[..., 0], velocity[..., 1]) * shutter >= STILL_PX
    splat, fast, rest, mixed = _split(xp, velocity, depth, moving, speed, shutter, weights)
    any_moving = _host(xp, splat.reshape(len(times), -1).any(axis=1))
    shift = np.zeros((len(times), 2)) if shifts is None else \
        np.asarray(shifts, np.float64).reshape(-1, 2)[:, ::-1]
    st = _Frames(lin, depth, velocity, xp.ascontiguousarray(moving.astype(np.uint8)),
                 xp.ascontiguousarray(splat.astype(np.uint8)),
                 xp.ascontiguousarray(inner(splat).astype(np.uint8)),
                 np.asarray(any_moving, bool), mixed, times, speed, shift, fast, rest)
    for k in range(weights.count):
        _window(dev, st, frames, weights, k, spans[k], mode, out[k : k + 1])
    return out


def _split(xp: Any, velocity: Any, depth: Any, moving: Any, speed: np.ndarray,
           shutter: float, weights: WindowWeights
           ) -> tuple[Any, list[Any], np.ndarray, np.ndarray]:
    """Of the sub-frames the windows use (others: none), as the CPU reads them: the
    outliers (:func:`~hfrender.backends.cpu.recon_fast.outliers`), out of the ``splat``
    mask; the largest speed of the rest; whether splats at one depth move differently
    (:func:`~hfrender.backends.cpu.recon_ties.mixed`: else no ``hf_rc_ties`` launch).
    Returns (splat, outliers per sub-frame, rest speeds, mixed)."""
    n = len(speed)
    splat, fast, rest = moving.copy(), [xp.zeros(0, np.int64)] * n, speed.copy()
    mixed = np.zeros(n, bool)
    used = {int(weights.starts[k]) + int(i) for k in range(weights.count)
            for i in np.flatnonzero(weights.rows[k])}
    for j in sorted(used):
        fast[j], rest_j = outliers(xp, velocity[j], moving[j], shutter)
        if fast[j].size:
            splat[j].reshape(-1)[fast[j]] = False
            rest[j] = rest_j
        at = xp.flatnonzero(splat[j].reshape(-1))
        v = velocity[j].reshape(-1, 2)[at]
        mixed[j] = recon_mixed(xp, depth[j].reshape(-1)[at], v[:, 1], v[:, 0])
    return splat, fast, rest, mixed


def _decode(dev: Device, frames: Any, mode: int) -> Any:
    """Every sub-frame in linear light (float32 frames: copied), as ``launches.fuse``."""
    n, h, w, c = (int(s) for s in frames.shape)
    dt = np.dtype(frames.dtype)
    elems = h * w * c
    lut, _ = _luts(dev, dt, mode)
    lin = dev.xp.empty((n, h, w, c), np.float32)
    for z0 in _z_chunks(n):
        z1 = min(n, z0 + MAX_GRID_Z)
        dev.launch(f"hf_decode_frames_{SUFFIX[dt]}", _grid(elems, z1 - z0), (BLOCK, 1, 1),
                   (frames[z0:z1], I64(elems), I32(c), I32(mode), lut, lin[z0:z1]))
    return lin


def _window(dev: Device, st: _Frames, frames: Any, weights: WindowWeights, k: int,
            span: np.ndarray, mode: int, out: Any) -> None:
    """Output ``k``: each of its sub-frames' cell picture, in frame order, then their
    weighted sum and encode (``hf_fuse_windows``, as plain fusion adds them)."""
    nz = np.flatnonzero(weights.rows[k])
    js = weights.starts[k] + nz
    order = np.argsort(st.times[js], kind="stable")
    ordered = [int(j) for j in js[order]]
    edges = cells(st.times[ordered], float(span[0]), float(span[1]))
    h, w, c = st.shape
    pictures = dev.xp.empty((len(js), h, w, c), np.float32)
    for q, i in enumerate(np.argsort(order, kind="stable")):  # frame order
        _cell(dev, st, ordered, int(i), float(edges[i]), float(edges[i + 1]), pictures[q])
    one = WindowWeights(np.zeros(1, np.int64), np.ascontiguousarray(weights.rows[k][nz][None]))
    launches.fuse_windows(dev, frames, pictures, one, mode, out)


def _cell(dev: Device, st: _Frames, ordered: list[int], i: int, lo: float, hi: float,
          picture: Any) -> None:
    """``cell_picture``: the mean picture over ``[lo, hi]`` of the window's (time-ordered)
    sub-frame ``i``, written into ``picture``."""
    own = ordered[i]
    t_own = float(st.times[own])
    n = len(ordered)
    halves = []
    for edge, side in ((lo, -1), (hi, +1)):
        j = i + side if 0 <= i + side < n else i - side
        other = ordered[j] if 0 <= j < n and j != i else None
        steps = half_steps(float(st.rest[own]), 0.0 if other is None else float(st.rest[other]),
                           t_own, t_own if other is None else float(st.times[other]), edge)
        steps = max(steps, 1) if st.fast[own].size else steps  # (their places: holes)
        halves.append((abs(edge - t_own), other, edge, steps))
    total = sum(length for length, *_ in halves)
    if all(steps == 0 for *_, steps in halves) or total <= 0:
        picture[...] = st.lin[own]
        return
    by_time = sorted((f for f in ordered if f != own),
                     key=lambda f: abs(float(st.times[f]) - t_own))
    h, w, c = st.shape
    xp = dev.xp
    base_c = xp.empty((h, w, c), np.float32)
    base_d = xp.empty((h, w), np.float32)
    holes = xp.empty((h, w), np.uint8)
    level = xp.empty((h, w), np.int32)
    chain = xp.asarray(np.array([own, *by_time], np.int64))
    dev.launch("hf_rc_base", _grid(h * w), (BLOCK, 1, 1),
               (st.lin, st.depth, st.moving, chain, I32(len(chain)), I64(h * w), I32(c),
                base_c, base_d, holes, level))
    span = max(length for length, *_ in halves)
    _fill(dev, st.depth[own], base_d, level, base_c, reach(xp, st.velocity[own], span),
          math.ceil(1.5 * float(st.speed[own]) * span) + 2)
    picture[...] = 0.0
    no_acc = dev.table("none-f64", lambda: np.zeros(1, np.float64))
    for length, other, edge, steps in halves:
        if length <= 0:
            continue
        acc = no_acc if steps == 0 else _half_sum(dev, st, own, other, edge, steps,
                                                  (base_c, base_d), holes)
        dev.launch("hf_rc_cell_add", _grid(h * w * c), (BLOCK, 1, 1),
                   (st.lin[own], acc, base_c, I32(steps > 0), I32(max(steps, 1)),
                    F32(length / total), I64(h * w * c), picture))
    if st.fast[own].size:  # the outliers over it, each on its own (recon_fast)
        over(xp, picture, streaks(xp, st.fast[own], (st.lin[own], st.depth[own],
                                                     st.velocity[own]),
                                  cover(xp, base_d, st.depth[own], st.splat[own]),
                                  (lo, hi, t_own), tuple(st.shift[own])))


def _fill(dev: Device, own_depth: Any, base_d: Any, level: Any, base_c: Any,
          rings: Any, most: int) -> None:
    """:func:`~hfrender.backends.cpu.recon_fill.fill`: ``hf_rc_fill`` a ring at a time
    (``rings``: each pixel's reach; ``most``: the deepest, from the sub-frame's speed),
    asking the device whether rings still fill only every :data:`FILL_CHECK` of them (was:
    after each, a wait on the device per ring, a review)."""
    h, w, c = base_c.shape
    changed = dev.xp.zeros(1, np.int32)
    for ring in range(1, most + 1):
        dev.launch("hf_rc_fill", _grid(h * w), (BLOCK, 1, 1),
                   (own_depth, base_d, rings, I32(ring), I32(h), I32(w), I32(c), level,
                    changed, base_c))
        if ring % FILL_CHECK == 0:
            if not int(changed[0]):
                return
            changed[...] = 0


def _half_sum(dev: Device, st: _Frames, own: int, other: int | None, edge: float, steps: int,
              base: tuple[Any, Any], holes: Any) -> Any:
    """``_half_mean``'s sum: per pixel channel, (shown - base) summed over the ``steps``
    intermediate times from ``own``'s time to ``edge`` (double, the device's)."""
    xp = dev.xp
    h, w, c = st.shape
    hw = h * w
    t_own = float(st.times[own])
    dts = t_own + (np.arange(steps) + 0.5) / steps * (edge - t_own)
    sources = [f for f in (own, other) if f is not None]
    acc = xp.zeros(hw * c, np.float64)
    if not any(st.any_moving[f] for f in sources):
        return acc  # nothing lands: the CPU skips every chunk (it adds zero)
    chunk = max(1, CHUNK_ELEMS // hw)
    for m0 in range(0, steps, chunk):
        taus = dts[m0 : m0 + chunk]
        # per source, tau less its time (the CPU's dt); the own's again for a missing other
        ahead = [xp.asarray(np.ascontiguousarray(taus - float(st.times[f]))) for f in sources]
        keys = xp.full(len(taus) * hw, -1, np.int64)  # no candidate: all bits set
        _splat(dev, st, sources, ahead, holes, len(taus), ("hf_rc_splat", keys))
        win = xp.empty(len(taus) * hw, np.int32)
        dev.launch("hf_rc_resolve", _grid(len(taus) * hw), (BLOCK, 1, 1),
                   (keys, base[1], I32(len(taus)), I64(hw), win))
        head = xp.full(len(taus) * hw, -1, np.int32)  # each winner's rivals: none yet
        links = xp.empty(len(sources) * len(taus) * hw, np.int32)
        if any(st.mixed[f] for f in sources):  # else no rivals (the CPU skips them too)
            _splat(dev, st, sources, ahead, holes, len(taus),
                   ("hf_rc_ties", keys, win, head, links))
        _add(dev, st, (keys, win, head, links), [sources[0], sources[-1]],
             [ahead[0], ahead[-1]], base, len(taus), acc)
    return acc


def _splat(dev: Device, st: _Frames, sources: list[int], ahead: list[Any], holes: Any,
           times: int, kernel: tuple[Any, ...]) -> None:
    """Every moving pixel of the sources landed at the chunk's ``times``, one launch per
    source (``ahead``: each source's intermediate times less its own): ``kernel`` is
    ``("hf_rc_splat", keys)`` (the z-buffer of keys) or ``("hf_rc_ties", keys, win,
    head, next)`` (the winners' rivals)."""
    h, w, _ = st.shape
    name, *out = kernel
    for s, (f, dt) in enumerate(zip(sources, ahead, strict=True)):
        if not st.any_moving[f]:
            continue
        back = float(st.times[sources[0]]) - float(st.times[f])
        dev.launch(name, _grid(times * h * w), (BLOCK, 1, 1),
                   (st.velocity[f], st.depth[f], st.splat[f], holes, dt, I32(times),
                    I32(h), I32(w), I32(s), F64(back), *_shift(st, f),
                    *_shift(st, sources[0]), *out))


def _add(dev: Device, st: _Frames, found: tuple[Any, Any, Any, Any], pair: list[int],
         ahead: list[Any], base: tuple[Any, Any], times: int, acc: Any) -> None:
    """The winners' borders, and what the winners and borders show less the base added
    into ``acc`` (``found``: the keys, winners and their rivals' lists; ``pair``: the own
    sub-frame and the neighbour, or the own twice; ``ahead``: theirs)."""
    xp = dev.xp
    h, w, c = st.shape
    hw = h * w
    base_c, base_d = base
    keys, win, head, links = found
    border = xp.empty(times * hw, np.int32)
    dev.launch("hf_rc_border", _grid(times * hw), (BLOCK, 1, 1),
               (keys, win, base_d, I32(times), I32(h), I32(w), border))
    (own, other), (own_dt, other_dt) = pair, ahead
    dev.launch("hf_rc_accumulate", _grid(hw * c), (BLOCK, 1, 1),
               (win, border, keys, head, links, st.lin[own], st.splat[own], st.inner[own],
                st.velocity[own],
                own_dt, st.lin[other], st.splat[other], st.inner[other], st.velocity[other],
                other_dt, base_c,
                I32(times), I32(h), I32(w), I32(c), *_shift(st, own), *_shift(st, other), acc))


def _shift(st: _Frames, f: int) -> tuple[Any, Any]:
    """Sub-frame ``f``'s antialiasing shift, (y, x) pixels, as kernel arguments."""
    return F64(float(st.shift[f, 0])), F64(float(st.shift[f, 1]))
