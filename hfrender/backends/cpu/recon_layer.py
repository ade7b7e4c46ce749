"""What a warped moving surface shows at a pixel: its sub-frame's moving layer, sampled
where the pixel's centre was at the sub-frame's time (the reconstruction's splats decide
*which* surface a pixel shows at an intermediate time; this module, *what* it shows).

A splat lands on the nearest pixel, so on its own it carries every edge to a whole pixel:
a surface that moves 0.4 px over a half-cell does not move at all, and a thin rotating one
(a pendulum's rod, a propeller's blade) lands some pixels twice and others not at all, a
checkerboard over its streak. So a pixel a surface lands on, and each of its four
neighbours it does not land on where that surface is in front of what the neighbour shows
(:func:`borders`: the half pixel the rounding took, and the cracks), shows the source's
*moving layer* — its colour premultiplied by its moving mask, and the mask — sampled
bilinearly at the pixel's centre moved back along the surface's velocity to the source's
time, over what the pixel shows still: ``layer + (1 - alpha) * base`` (:func:`samples`;
past the frame's edges, half a pixel beyond its outer centres, the layer is empty: what
lay there is not known).
Inside a surface that is its colour, resampled at the sub-pixel place; at its edges a blend
with what is behind. The CUDA kernels ``hf_rc_border`` and ``hf_rc_accumulate`` do the same
in the same order of float32 operations.
"""

from __future__ import annotations

import numpy as np


def moving_layer(lin: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """(H * W, C + 1) float32: colour * mask, then the mask (1 where the pixel moves)."""
    mask = moving.astype(np.float32)[..., None]
    return np.concatenate([lin * mask, mask], axis=-1).reshape(-1, lin.shape[-1] + 1)


def borders(hit_keys: np.ndarray, hit_pix: np.ndarray, hit_depth: np.ndarray,
            base_d: np.ndarray, lut: np.ndarray, stride: int, size: tuple[int, int],
            taken: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pixels next to a landed one (left, right, up, down of it, in that order of
    preference) that nothing landed on at that time and that its surface is in front of:
    (their keys, the index of the landing they take, into the ``hit_*`` arrays). Keys are
    ``time * stride + place`` (``lut``: a pixel's place in the chunk's domain, which holds
    every landed pixel's neighbours); ``taken``: a work array of the z-buffer's size."""
    h, w = size
    taken.fill(0)
    taken[hit_keys] = 1
    x = hit_pix % w
    keys, takes = [], []
    # the landing left of a pixel first: it is the step +1 from it, and so on
    for step, inside in ((1, x < w - 1), (-1, x > 0), (w, hit_pix < (h - 1) * w),
                         (-w, hit_pix >= w)):
        at = np.flatnonzero(inside)
        nb = hit_pix[at] + step
        key = hit_keys[at] - (hit_keys[at] % stride) + lut[nb]
        free = (taken[key] == 0) & (hit_depth[at] < base_d[nb])
        key, at = key[free], at[free]  # distinct: one landing per pixel and time
        taken[key] = 1
        keys.append(key)
        takes.append(at)
    return np.concatenate(keys), np.concatenate(takes)


def samples(layer: np.ndarray, size: tuple[int, int], pix: np.ndarray, vy: np.ndarray,
            vx: np.ndarray, dt: np.ndarray, base: np.ndarray) -> np.ndarray:
    """What each target pixel ``pix`` shows of a source's moving ``layer``
    (:func:`moving_layer`) whose surface there moves at ``(vy, vx)`` pixels per second,
    ``dt`` seconds after the source's time, over ``base`` (its still colour, (n, C)):
    float32 (n, C)."""
    h, w = size
    c = layer.shape[1] - 1
    ty, tx = np.divmod(pix, w)
    sy, sx = ty - vy * dt, tx - vx * dt
    # past the frame's edges (half a pixel beyond the outer centres) nothing is known
    seen = ((sy >= -0.5) & (sy <= h - 0.5) & (sx >= -0.5) & (sx <= w - 0.5))[:, None]
    sy, sx = np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)
    y0, x0 = np.floor(sy).astype(np.intp), np.floor(sx).astype(np.intp)
    wy = (sy - y0).astype(np.float32)[:, None]
    wx = (sx - x0).astype(np.float32)[:, None]
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    one = np.float32(1)
    acc = np.zeros((len(pix), c + 1), np.float32)
    for at, weight in ((y0 * w + x0, (one - wy) * (one - wx)), (y0 * w + x1, (one - wy) * wx),
                       (y1 * w + x0, wy * (one - wx)), (y1 * w + x1, wy * wx)):
        acc += np.take(layer, at, axis=0) * (weight * seen)
    return acc[:, :c] + (one - acc[:, c:]) * base
