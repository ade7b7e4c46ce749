"""Motion-blur reconstruction on the CPU: the motion between sub-frames, from their velocity.

Plain temporal fusion is ``out[k] = sum_j W[k, j] * f_j``: each sub-frame stands for the part
of the shutter around its time (its *cell*: from half-way to the previous sub-frame to
half-way to the next one, and to the shutter's edges at both ends). Reconstruction keeps the
weights and replaces ``f_j`` by the mean of the picture over its cell: each half of the cell
(towards a neighbour ``n``, or at the shutter's ends towards the other neighbour) is sampled
at ``M`` intermediate times, enough that no surface moves more than a pixel from one to the
next (the gap between two sub-frames: at least its largest displacement in pixels); at
each time ``tau`` ``j`` is forward-warped along its velocity (pixel ``q`` lands on
``round(q + v(q) * (tau - t))``) with a depth test: the nearer surface wins (equal ones
moving differently blend, :mod:`~hfrender.backends.cpu.recon_ties`); ``n`` lands where
``j`` has a hole, and anywhere with what lay outside ``j``'s frame at ``j``'s time (an
object entering). A pixel a surface lands on, and its neighbours at the landing's borders,
show the source's moving layer sampled where the pixel's centre was at the source's time,
on its pixels (moved by its antialiasing shift; it lands from there too)
(:mod:`~hfrender.backends.cpu.recon_layer`: edges at their sub-pixel place, one-pixel
cracks filled).
Still pixels take part where they are; a hole (a moving surface left it
in every sub-frame) shows the still pixels behind that surface around it (the background
no sub-frame saw there: a streak's ends at the shutter's edges, where sub-frames overlap;
as deep as a surface moves in the cell, :mod:`~hfrender.backends.cpu.recon_fill`), else
``j``'s colour. Colour is blended in linear light (premultiplied). A sub-frame's outliers (a
few pixels far faster than the rest) are not splatted: the times are the rest's, and each
is drawn over its cell's picture on its own (:mod:`~hfrender.backends.cpu.recon_fast`).

Where nothing moves the cell is ``f_j`` itself, and a hyperframe without motion is fused by
the plain path: bit-identical to plain sampling.

Vectorised: per half-cell only the moving pixels are splatted, a chunk of intermediate times
at once (``np.minimum.at`` into a z-buffer of the chunk, then what the winners and their
borders show summed with ``np.bincount``). Every per-time array covers the chunk's *domain*
only (the pixels landed on and their neighbours, about a tenth of a frame on the quality
harness's scene), and a sub-frame's moving pixels are gathered once, not once per half-cell.
The chunks' sums: :mod:`~hfrender.backends.cpu.recon_sums` (a lone sub-frame's, as
``hf.vector_blur`` makes, pooled over chunks).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hfrender.backends.cpu.blur import scratch
from hfrender.backends.cpu.color import Transfer
from hfrender.backends.cpu.recon_cells import STILL_PX, cells, frame_speeds, half_steps
from hfrender.backends.cpu.recon_fast import cover, outliers, over, streaks
from hfrender.backends.cpu.recon_fill import fill, reach
from hfrender.backends.cpu.recon_frame import Frame as _Frame
from hfrender.backends.cpu.recon_layer import FREE, borders, resampled, samples
from hfrender.backends.cpu.recon_sums import GroupedSums, PooledSums
from hfrender.backends.cpu.recon_sums import rows as _rows
from hfrender.backends.cpu.recon_ties import blend_rivals, rivals, velocities
from hfrender.hyperframe.windows import WindowWeights

CHUNK_ELEMS = 1 << 22  # z-buffer entries per chunk of intermediate times

DefocusFn = Callable[[np.ndarray, int], np.ndarray]


def _base(own: _Frame, by_time: list[_Frame], span: float = 0.0
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a pixel shows before any moving surface lands on it: ``own``'s still pixel;
    where ``own`` moves, the still pixel of the window's sub-frame nearest in time that has
    one there (``by_time``: what the moving surface uncovers); else a hole at infinite
    depth (any splat fills it) showing the still pixels behind it, as far as its surface
    moves in ``span`` seconds (:func:`~.recon_fill.fill`), else ``own``'s colour. ``own``
    comes first even where another is nearer: still edges differ between sub-frames by
    their sub-pixel jitter, and each sub-frame keeps its own. Returns (colour, depth,
    holes): the sky is at infinite depth too, but it is no hole. Only ``own``'s moving
    pixels are looked at."""
    h, w, c = own.lin.shape
    idx = np.flatnonzero(own.moving) if len(own.fast) else own.splats.idx  # (outliers too)
    depth = own.depth.copy()
    flat_d = depth.reshape(-1)
    flat_d[idx] = np.inf
    color = own.lin.copy()
    flat_c = color.reshape(-1, c)
    open_ = idx  # own's moving pixels no sub-frame has shown still yet
    for other in by_time:
        if not len(open_):
            break
        still = ~other.moving.reshape(-1)[open_]
        pix = open_[still]
        flat_d[pix] = other.depth.reshape(-1)[pix]
        _rows(flat_c)[pix] = _rows(np.take(other.lin.reshape(-1, c), pix, axis=0))
        open_ = open_[~still]
    hole = np.zeros(h * w, bool)
    hole[open_] = True
    limit = np.zeros(h * w, np.int32)  # each hole's reach (only theirs: the rest unread)
    limit[open_] = reach(np, own.velocity.reshape(-1, 2)[open_], span)
    fill(flat_c, flat_d, hole, own.depth.reshape(-1), open_, w, limit)
    return color, depth, hole.reshape(h, w)


def _half_mean(own: _Frame, other: _Frame | None, edge: float, steps: int,
               base: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """The mean picture over the half-cell from ``own.t`` to ``edge`` (``steps`` times)."""
    h, w, c = own.lin.shape
    hw = h * w
    dts = own.t + (np.arange(steps) + 0.5) / steps * (edge - own.t)
    base_c, base_d, holes = base
    sources = [f for f in (own, other) if f is not None]
    chunk = max(1, CHUNK_ELEMS // hw)
    base_cf = base_c.reshape(hw, c)
    # (a lone sub-frame's hits pooled a million at a time at 1080p: as fast as four, and its
    # peak memory 14 MB over the grouped sums', not 58)
    sums = (GroupedSums if other is not None else PooledSums)(base_cf, CHUNK_ELEMS // 4)
    for m0 in range(0, steps, chunk):
        hits = _splat(sources, dts[m0 : m0 + chunk], (base_cf, base_d), holes, (h, w, c))
        if hits is not None:
            sums.add(*hits)
    return sums.mean(steps).reshape(h, w, c)


def _targets(sources: list[_Frame], taus: np.ndarray, holes: np.ndarray,
             size: tuple[int, int]) -> tuple[np.ndarray, ...] | None:
    """Where each moving pixel of ``sources`` lands at each of ``taus``: (pixel, time
    index, splat index into the sources' moving pixels one after the other), in the order
    of source, time, pixel. ``sources[0]`` is the cell's own sub-frame; the neighbour after
    it lands only where the base is a hole (its sub-pixel jitter is not own's), or anywhere
    for a pixel that lay outside the frame at own's time (own could not show it). A moving
    pixel lands where its place on the output's pixels (its sub-frame's antialiasing shift
    taken off) moves to, rounded."""
    h, w = size
    pixs, times, srcs = [], [], []
    offset = 0
    for n, frame in enumerate(sources):
        sp = frame.splats
        ys, xs, vy, vx = sp.ys, sp.xs, sp.vy, sp.vx
        keep = unseen = None  # keep: the splats taken (None: all)
        if n:
            back = sources[0].t - frame.t
            sy, sx = sources[0].shift  # (on own's pixels: past the outer centres, unseen)
            oy, ox = ys + vy * back + sy, xs + vx * back + sx
            unseen = (oy < 0) | (oy > h - 1) | (ox < 0) | (ox > w - 1)
            if not holes.any():  # no hole to land in: only the unseen land
                keep = np.flatnonzero(unseen)
                ys, xs, vy, vx = ys[keep], xs[keep], vy[keep], vx[keep]
        if len(ys):
            dt = taus - frame.t
            ty = np.rint(ys[None, :] + vy[None, :] * dt[:, None])
            tx = np.rint(xs[None, :] + vx[None, :] * dt[:, None])
            inside = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
            if n and keep is None:
                near = np.clip(ty, 0, h - 1) * w + np.clip(tx, 0, w - 1)
                inside &= holes.reshape(-1)[near.astype(np.intp)] | unseen[None, :]
            ty *= w
            ty += tx
            flat = ty.astype(np.int64).reshape(-1)
            if inside.all():  # the usual case: every splat lands in the frame
                m = np.repeat(np.arange(len(dt)), len(ys))
                j = np.tile(np.arange(len(ys)), len(dt))
            else:
                sel = np.flatnonzero(inside)
                m, j = np.divmod(sel, len(ys))
                flat = flat[sel]
            pixs.append(flat)
            times.append(m)
            srcs.append((j if keep is None else keep[j]) + offset)
        offset += len(sp.ys)
    if not pixs:
        return None
    return np.concatenate(pixs), np.concatenate(times), np.concatenate(srcs)


def _domain(pix: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The pixels a chunk works on, every one landed on and its four neighbours (where
    its borders are): (their flat indices, a lookup from pixel to place, ``len`` for
    others)."""
    h, w = size
    hit = np.zeros(h * w, bool)
    hit[pix] = True
    near = hit.copy()
    near[1:] |= hit[:-1]
    near[:-1] |= hit[1:]
    near[w:] |= hit[:-w]
    near[:-w] |= hit[w:]
    dom = np.flatnonzero(near)
    lut = np.full(h * w + 2 * w, len(dom), np.int64)  # and two rows past the frame: outside
    lut[dom] = np.arange(len(dom))
    return dom, lut


def _splat(sources: list[_Frame], taus: np.ndarray, base: tuple[np.ndarray, np.ndarray],
           holes: np.ndarray, shape: tuple[int, int, int]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The moving surfaces at each of ``taus``, depth-tested against the still ones
    (``base``: colour (H * W, C) and depth): (the chunk's domain, place in it and colour of
    every pixel and time a moving surface shows: where one lands, then its borders;
    :mod:`~hfrender.backends.cpu.recon_layer`; equal rivals there blended,
    :mod:`~hfrender.backends.cpu.recon_ties`). Z-buffers are kept over the domain only
    (one column more that nothing lands on)."""
    h, w, c = shape
    base_c, base_d = base
    found = _targets(sources, taus, holes, (h, w))
    if found is None:
        return None
    pix, m, src = found
    dom, lut = _domain(pix, (h, w))
    stride = len(dom) + 1
    key = m * stride + lut[pix]
    dep = np.concatenate([f.splats.depth for f in sources])[src]
    zbuf = scratch("rc_zbuf", (len(taus), stride), np.float32)
    zbuf[:, :-1] = base_d.reshape(-1)[dom]
    zbuf[:, -1] = np.inf
    zbuf = zbuf.reshape(-1)
    np.minimum.at(zbuf, key, dep)
    win = np.flatnonzero(dep <= zbuf[key]).astype(np.int32)
    first = scratch("rc_index", zbuf.shape, np.int32)  # then the borders' marks
    first.fill(FREE)
    np.minimum.at(first, key[win], win)
    mixed = any(f.mixed for f in sources)
    if mixed:
        vy, vx = velocities([f.splats for f in sources])
        own = len(sources[0].splats.idx)
    # one winner per pixel and time, the first of equals (its equal rivals blended in)
    win, ties, place = rivals(first, key, win, src, own, (vy, vx)) if mixed else \
        (win[first[key[win]] == win], None, None)
    near, took = borders(key[win], pix[win], dep[win], base_d.reshape(-1), lut, stride,
                         (h, w), first)
    shown = np.concatenate([win, win[took]])  # the landings, then the borders they make
    at = np.concatenate([pix[win], dom[near % stride]])
    col = _shown(sources, src[shown], taus[m[shown]], at, base_c, (h, w), len(win))
    if mixed:
        blend_rivals((m, src, dep), (vy, vx, own), (win, ties, place, took, near),
                     (lut, dom, stride, first, at, (h, w)), col,
                     lambda s, t, p, n: _shown(sources, s, taus[t], p, base_c, (h, w), n))
    return dom, np.concatenate([key[win], near]) % stride, col


def _shown(sources: list[_Frame], src: np.ndarray, taus: np.ndarray, pix: np.ndarray,
           base_c: np.ndarray, size: tuple[int, int], landed: int) -> np.ndarray:
    """What pixels ``pix`` show at ``taus`` of the sources' moving splats ``src`` (indices
    into their moving pixels one after the other; the first ``landed`` are landings, the
    rest borders): the source's moving layer sampled where the pixel was at its time, on
    the source's pixels (moved by its antialiasing shift;
    :func:`~hfrender.backends.cpu.recon_layer.samples`; from inside its surface, its colour
    alone: :func:`~hfrender.backends.cpu.recon_layer.resampled`)."""
    splats = [f.splats for f in sources]
    inside = np.concatenate([sp.inner for sp in splats])[src]
    inside[landed:] = False
    out = np.empty((len(src), base_c.shape[1]), np.float32)
    start = 0
    for f, sp in zip(sources, splats, strict=True):
        stop = start + len(sp.idx)
        mine = src < stop if start == 0 else src >= start  # two sources at most: own, other
        lin = f.lin.reshape(-1, f.lin.shape[-1])
        for at, deep in ((np.flatnonzero(mine & inside), True),
                         (np.flatnonzero(mine & ~inside), False)):
            j = src[at] - start
            args = (size, pix[at], sp.vy[j], sp.vx[j], taus[at] - f.t)
            got = resampled(lin, *args, f.shift) if deep else samples(
                f.layer, *args, np.take(base_c, pix[at], axis=0), f.shift)
            _rows(out)[at] = _rows(np.ascontiguousarray(got))
        start = stop
    return out


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
        steps = max(steps, 1) if len(own.fast) else steps  # (their places: holes)
        halves.append((abs(edge - own.t), other, edge, steps))
    if all(steps == 0 for *_, steps in halves):
        return own.lin
    total = sum(length for length, *_ in halves)
    if total <= 0:
        return own.lin
    by_time = sorted((f for f in frames if f is not own), key=lambda f: abs(f.t - own.t))
    base = _base(own, by_time, max(length for length, *_ in halves))
    picture = np.zeros_like(own.lin)
    for length, other, edge, steps in halves:
        if length <= 0:
            continue
        part = own.lin if steps == 0 else _half_mean(own, other, edge, steps, base)
        picture += part * np.float32(length / total)
    if len(own.fast):  # the outliers over it, each on its own (recon_fast)
        splat = own.moving.copy()
        splat.reshape(-1)[own.fast] = False
        over(np, picture, streaks(np, own.fast, (own.lin, own.depth, own.velocity),
                                  cover(np, base[1], own.depth, splat), (lo, hi, own.t),
                                  own.shift))
    return picture


def reconstruct_windows(frames: np.ndarray, depth: np.ndarray, velocity: np.ndarray,
                        times: np.ndarray, weights: WindowWeights, spans: np.ndarray,
                        tf: Transfer, out: np.ndarray,
                        defocus: DefocusFn | None = None,
                        speed: np.ndarray | None = None,
                        shifts: np.ndarray | None = None) -> np.ndarray:
    """``out[k] = encode(sum_j W[k, j] * cell_j)``, ``cell_j`` the reconstructed mean
    picture over sample ``j``'s part of output ``k``'s shutter ``spans[k] = (open, close)``.
    ``defocus(lin, j)`` (depth of field) is applied to each sub-frame before it is warped;
    ``speed``: :func:`frame_speeds`, where the caller has it already; ``shifts`` (N, 2):
    the pixels (x, y down) each sub-frame's antialiasing offset moved its picture by (None:
    none)."""
    speed = frame_speeds(velocity, weights) if speed is None else speed
    decoded: dict[int, _Frame] = {}

    shutter = float(np.max(spans[:, 1] - spans[:, 0])) if len(spans) else 0.0

    def frame(j: int) -> _Frame:
        if j not in decoded:
            lin = tf.decode(frames[j], np.empty(frames.shape[1:], np.float32))
            if defocus is not None:
                lin = defocus(lin, j)
            v = velocity[j]
            moving = np.hypot(v[..., 0], v[..., 1]) * shutter >= STILL_PX
            shift = (0.0, 0.0) if shifts is None else (float(shifts[j][1]), float(shifts[j][0]))
            fast, rest = outliers(np, v, moving, shutter)  # (steps: the rest's speed)
            decoded[j] = _Frame(lin, depth[j], v, float(times[j]),
                                rest if len(fast) else float(speed[j]), moving, shift, fast)
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
        n = len(js)  # the cells p - 1, p and p + 1 sample sub-frame p's layer
        uses = [min(p + 1, n - 1) - max(p - 1, 0) + 1 for p in range(n)]
        for i in np.argsort(order, kind="stable"):  # add in frame order, as plain fusion
            pic = cell_picture(ordered, int(i), float(edges[i]), float(edges[i + 1]))
            np.multiply(pic, np.float32(wk[i]), out=tmp)
            acc += tmp
            for p in range(max(0, i - 1), min(n, i + 2)):
                uses[p] -= 1
                if not uses[p]:
                    ordered[p].let_go()
        tf.encode(acc, out[k])
        if k + 1 < weights.count:  # what no later window reads is let go
            for j in [j for j in decoded if j < weights.starts[k + 1]]:
                del decoded[j]
    return out
