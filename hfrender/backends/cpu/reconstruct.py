"""Motion-blur reconstruction on the CPU: the motion between sub-frames, from their velocity.

Plain temporal fusion is ``out[k] = sum_j W[k, j] * f_j``: each sub-frame stands for the part
of the shutter around its time (its *cell*: from half-way to the previous sub-frame to
half-way to the next one, and to the shutter's edges at both ends). Reconstruction keeps the
weights and replaces ``f_j`` by the mean of the picture over its cell: each half of the cell
(towards a neighbour ``n``, or at the shutter's ends towards the other neighbour) is sampled
at ``M`` intermediate times, ``M`` at least the largest displacement over it in pixels; at
each time ``tau`` both ``j`` and ``n`` are forward-warped along their velocity (pixel ``q``
lands on ``round(q + v(q) * (tau - t))``) with a depth test: the nearer surface wins. Pixels
that do not move in ``j`` or ``n`` take part where they are; a pixel nothing lands on (a
moving surface left it in both) keeps ``j``'s colour, ``j`` being the sub-frame nearer in
time. Colour is blended in linear light (premultiplied: alpha is one more channel).

Where nothing moves the cell is ``f_j`` itself, and a hyperframe without motion is fused by
the plain path: bit-identical to plain sampling.

Vectorised: per half-cell only the moving pixels are splatted, a chunk of intermediate times
at once (``np.minimum.at`` into a z-buffer of the chunk, then the winners' colours summed
with ``np.bincount``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hfrender.backends.cpu.color import Transfer
from hfrender.hyperframe.windows import WindowWeights

STEP_PX = 1.0  # intermediate times per pixel of displacement (the "M >= D")
STILL_PX = 1e-3  # a pixel that moves less than this over a half-cell is not moving
CHUNK_ELEMS = 1 << 22  # z-buffer entries per chunk of intermediate times

DefocusFn = Callable[[np.ndarray, int], np.ndarray]


@dataclass
class _Frame:
    """One sub-frame as reconstruction reads it (decoded to linear light)."""

    lin: np.ndarray  # (H, W, C) float32
    depth: np.ndarray  # (H, W) float32
    velocity: np.ndarray  # (H, W, 2) float32 pixels per second
    t: float
    speed: float  # the largest |velocity| in pixels per second


def half_steps(speed_own: float, speed_other: float, t_own: float, t_other: float,
               edge: float) -> int:
    """Intermediate times for the half-cell from ``t_own`` to ``edge``: the largest
    displacement of either sub-frame over it, in pixels, over :data:`STEP_PX`; 0 where
    neither moves by :data:`STILL_PX`."""
    own = speed_own * abs(edge - t_own)
    other = speed_other * max(abs(t_own - t_other), abs(edge - t_other))
    d = max(own, other)
    return 0 if d < STILL_PX else max(1, math.ceil(d / STEP_PX))


def _base(own: _Frame, other: _Frame | None, moving_own: np.ndarray,
          moving_other: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """What a pixel shows before any moving surface lands on it: the nearer of the still
    pixels of both sub-frames (``own`` on a tie); ``own``'s colour at infinite depth where
    neither is still (a hole any splat fills)."""
    depth = np.where(moving_own, np.float32(np.inf), own.depth)
    color = own.lin.copy()
    if other is not None:
        nearer = ~moving_other & (other.depth < depth)
        depth = np.where(nearer, other.depth, depth)
        color[nearer] = other.lin[nearer]
    return color, depth


def _splats(frame: _Frame, moving: np.ndarray) -> tuple[np.ndarray, ...]:
    ys, xs = np.nonzero(moving)
    v = frame.velocity[ys, xs]
    return (ys.astype(np.float64), xs.astype(np.float64), v[:, 1].astype(np.float64),
            v[:, 0].astype(np.float64), frame.depth[ys, xs], frame.lin[ys, xs])


def _half_mean(own: _Frame, other: _Frame | None, edge: float, steps: int) -> np.ndarray:
    """The mean picture over the half-cell from ``own.t`` to ``edge`` (``steps`` times)."""
    h, w, c = own.lin.shape
    hw = h * w
    dts = own.t + (np.arange(steps) + 0.5) / steps * (edge - own.t)
    span = abs(edge - own.t) + (0.0 if other is None else abs(other.t - own.t))
    moving_own = np.hypot(own.velocity[..., 0], own.velocity[..., 1]) * span >= STILL_PX
    moving_other = None
    if other is not None:
        moving_other = np.hypot(other.velocity[..., 0], other.velocity[..., 1]) * span >= STILL_PX
    base_c, base_d = _base(own, other, moving_own, moving_other)
    sources = [(own, _splats(own, moving_own))]
    if other is not None:
        sources.append((other, _splats(other, moving_other)))
    acc = np.zeros((c, hw), np.float64)
    chunk = max(1, CHUNK_ELEMS // hw)
    base_cf = base_c.reshape(hw, c)
    for m0 in range(0, steps, chunk):
        taus = dts[m0 : m0 + chunk]
        keys, depth, color = [], [], []
        for frame, (ys, xs, vy, vx, d, col) in sources:
            if len(ys) == 0:
                continue
            dt = taus - frame.t
            ty = np.rint(ys[None, :] + vy[None, :] * dt[:, None])
            tx = np.rint(xs[None, :] + vx[None, :] * dt[:, None])
            inside = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
            m_idx = np.broadcast_to(np.arange(len(taus))[:, None], ty.shape)
            key = (m_idx * hw + ty * w + tx)[inside].astype(np.int64)
            keys.append(key)
            depth.append(np.broadcast_to(d[None, :], ty.shape)[inside])
            color.append(np.broadcast_to(col[None, :, :], ty.shape + (c,))[inside])
        if not keys:
            continue
        key, dep, col = np.concatenate(keys), np.concatenate(depth), np.concatenate(color)
        zbuf = np.tile(base_d.ravel(), len(taus))
        np.minimum.at(zbuf, key, dep)
        win = np.flatnonzero(dep <= zbuf[key])
        owner = np.full(zbuf.shape, -1, np.int64)
        owner[key[win]] = win  # one winner per pixel and time (the last of equals)
        win = win[owner[key[win]] == win]
        pix = key[win] % hw
        delta = col[win].astype(np.float64) - base_cf[pix]
        for ch in range(c):
            acc[ch] += np.bincount(pix, weights=delta[:, ch], minlength=hw)
    mean = base_c.astype(np.float64) + (acc / steps).T.reshape(h, w, c)
    return mean.astype(np.float32)


def cell_picture(frames: list[_Frame], i: int, lo: float, hi: float) -> np.ndarray:
    """The mean picture over the cell ``[lo, hi]`` of sample ``i`` of a window's
    time-ordered sub-frames ``frames``."""
    own = frames[i]
    n = len(frames)
    halves = []
    for edge, side in ((lo, -1), (hi, +1)):
        j = i + side if 0 <= i + side < n else i - side
        other = frames[j] if 0 <= j < n and j != i else None
        steps = half_steps(own.speed, 0.0 if other is None else other.speed, own.t,
                           own.t if other is None else other.t, edge)
        halves.append((abs(edge - own.t), other, edge, steps))
    if all(steps == 0 for *_, steps in halves):
        return own.lin
    total = sum(length for length, *_ in halves)
    if total <= 0:
        return own.lin
    picture = np.zeros_like(own.lin)
    for length, other, edge, steps in halves:
        if length <= 0:
            continue
        part = own.lin if steps == 0 else _half_mean(own, other, edge, steps)
        picture += part * np.float32(length / total)
    return picture


def cells(times: np.ndarray, open_t: float, close_t: float) -> np.ndarray:
    """The edges of each sample's cell: ``len(times) + 1`` values from ``open_t`` to
    ``close_t``, half-way between neighbouring (time-ordered) samples."""
    mids = (times[1:] + times[:-1]) / 2
    return np.concatenate([[min(open_t, times[0])], mids, [max(close_t, times[-1])]])


def moves(frames_speed: np.ndarray, weights: WindowWeights, times: np.ndarray,
          spans: np.ndarray) -> bool:
    """Whether any pixel of the windows moves by :data:`STILL_PX` over its shutter."""
    for k in range(weights.count):
        js = weights.starts[k] + np.flatnonzero(weights.rows[k])
        length = max(spans[k, 1], times[js].max()) - min(spans[k, 0], times[js].min())
        if frames_speed[js].max() * length >= STILL_PX:
            return True
    return False


def reconstruct_windows(frames: np.ndarray, depth: np.ndarray, velocity: np.ndarray,
                        times: np.ndarray, weights: WindowWeights, spans: np.ndarray,
                        tf: Transfer, out: np.ndarray,
                        defocus: DefocusFn | None = None) -> np.ndarray:
    """``out[k] = encode(sum_j W[k, j] * cell_j)``, ``cell_j`` the reconstructed mean
    picture over sample ``j``'s part of output ``k``'s shutter ``spans[k] = (open, close)``.
    ``defocus(lin, j)`` (depth of field) is applied to each sub-frame before it is warped."""
    speed = np.sqrt((velocity.astype(np.float64) ** 2).sum(-1)).reshape(len(frames), -1).max(1)
    decoded: dict[int, _Frame] = {}

    def frame(j: int) -> _Frame:
        if j not in decoded:
            lin = tf.decode(frames[j], np.empty(frames.shape[1:], np.float32))
            if defocus is not None:
                lin = defocus(lin, j)
            decoded[j] = _Frame(lin, depth[j], velocity[j], float(times[j]), float(speed[j]))
        return decoded[j]

    tmp = np.empty(frames.shape[1:], np.float32)
    for k in range(weights.count):
        nz = np.flatnonzero(weights.rows[k])
        js = weights.starts[k] + nz
        order = np.argsort(times[js], kind="stable")
        js, wk = js[order], weights.rows[k][nz][order]
        edges = cells(times[js], float(spans[k, 0]), float(spans[k, 1]))
        ordered = [frame(int(j)) for j in js]
        acc = np.zeros(frames.shape[1:], np.float32)
        for i in np.argsort(order, kind="stable"):  # add in frame order, as plain fusion
            pic = cell_picture(ordered, int(i), float(edges[i]), float(edges[i + 1]))
            np.multiply(pic, np.float32(wk[i]), out=tmp)
            acc += tmp
        tf.encode(acc, out[k])
        if k + 1 < weights.count:  # what no later window reads is let go
            for j in [j for j in decoded if j < weights.starts[k + 1]]:
                del decoded[j]
    return out
