"""What a warped moving surface shows at a pixel: its sub-frame's moving layer, sampled
where the pixel's centre was at the sub-frame's time (the reconstruction's splats decide
*which* surface a pixel shows at an intermediate time; this module, *what* it shows).

A splat lands on the nearest pixel, so on its own it carries every edge to a whole pixel,
and a thin turning surface (a pendulum's rod, a propeller's blade), whose neighbouring
pixels round differently, lands some pixels twice and others not at all: a checkerboard
over its streak. So a pixel a surface lands on, and each of its four neighbours that
nothing landed on, where that surface is in front of what the neighbour shows
(:func:`borders`: the half pixel the rounding took, and one-pixel cracks), shows the
source's *moving layer* (its colour premultiplied by its moving mask, and the mask)
sampled bilinearly at the pixel's centre moved back along the surface's velocity to the
source's time (and onto the source's pixels: by its antialiasing shift, the sub-pixel its
picture was drawn moved by), over what the pixel shows still: ``layer + (1 - alpha) * base``
(:func:`samples`; past the frame's edges, half a pixel beyond its outer centres, the layer
is empty: what lay there is not known; only a border beside a landing from the frame's
outer rows or columns samples there).
At a surface's edges that is a blend with what is behind, at the edge's sub-pixel place.
A landing from inside a surface (:func:`inner`) needs no mask: its colour alone is
resampled (:func:`resampled`), at half the cost. The CUDA kernels
``hf_rc_border`` and ``hf_rc_accumulate`` do the same in the same float32 operations (their
float64 sums over the times add the same float32 terms in time order, NumPy's
``bincount`` in entry order: sums that stay exact while the terms span less than about
2**29 in size, so the order shows only beside extreme highlights, in the last bit).
"""

from __future__ import annotations

from typing import Any

import numpy as np

FREE = np.iinfo(np.int32).max  # a z-buffer entry no surface landed on


def inner(moving: Any) -> Any:
    """(..., H, W) bool of ``moving``'s array module: moving pixels whose eight neighbours
    move too (none at the frame's edges): every sample within half a pixel of one is a
    moving pixel (:func:`resampled`; two moving surfaces side by side pass too). The CUDA
    backend takes its sub-frames' from here."""
    out = moving.astype(bool) & False
    h, w = moving.shape[-2:]
    if h < 3 or w < 3:
        return out
    core = out[..., 1:-1, 1:-1]
    core |= moving[..., 1:-1, 1:-1].astype(bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            core &= moving[..., dy:dy + h - 2, dx:dx + w - 2].astype(bool)
    return out


def borders(hit_keys: np.ndarray, hit_pix: np.ndarray, hit_depth: np.ndarray,
            base_d: np.ndarray, lut: np.ndarray, stride: int, size: tuple[int, int],
            taken: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pixels next to a landed one that nothing landed on at that time and that its
    surface is strictly in front of (a pixel takes the landing on its left first, then on
    its right, above, below): (their keys, the index of the landing they take, into the
    ``hit_*`` arrays). Keys are
    ``time * stride + place`` (``lut``: a pixel's place in the chunk's domain, which holds
    every landed pixel's neighbours); ``taken``: an int32 array of the z-buffer's size,
    :data:`FREE` but at the landings' keys (the z-buffer's winner marks); borders are
    marked there too."""
    h, w = size
    x = hit_pix % w
    row = hit_keys - lut[hit_pix]  # time * stride
    keys, takes = [], []
    # the landing left of a pixel first: it is the step +1 from it, and so on
    for step, inside in ((1, x < w - 1), (-1, x > 0), (w, hit_pix < (h - 1) * w),
                         (-w, hit_pix >= w)):
        # (lut has room past both ends of the frame: what is not inside is left out below)
        key = row + lut[hit_pix + step]
        at = np.flatnonzero(inside & (taken[key] == FREE))
        at = at[hit_depth[at] < base_d[hit_pix[at] + step]]
        key = key[at]  # distinct: one landing per pixel and time
        taken[key] = -1
        keys.append(key)
        takes.append(at)
    return np.concatenate(keys), np.concatenate(takes)


def layer(idx: np.ndarray, colour: np.ndarray, pixels: int) -> np.ndarray:
    """A source's moving layer (``pixels``, C + 1) float32: its colour premultiplied by its
    moving mask, and that mask (what :func:`samples` resamples, made once per sub-frame),
    from its moving pixels ``idx`` and their ``colour`` (n, C); zero elsewhere."""
    out = np.zeros((pixels, colour.shape[1] + 1), np.float32)
    rows = np.empty((len(idx), colour.shape[1] + 1), np.float32)
    rows[:, :-1] = colour
    rows[:, -1] = 1
    out[idx] = rows
    return out


def _taps(size: tuple[int, int], pix: np.ndarray, vy: np.ndarray, vx: np.ndarray,
          dt: np.ndarray, shift: tuple[float, float] = (0.0, 0.0), inside: bool = False
          ) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray | None]:
    """The four pixels around where each target pixel ``pix`` was ``dt`` seconds before
    (moving at ``(vy, vx)`` pixels per second), on the source's pixels (its picture moved
    by ``shift``, (y, x): its antialiasing offset's), with their bilinear weights (float32,
    (n, 1)), in the order the sums take them, and whether that place was in the frame
    (half a pixel beyond its outer centres at most: past that nothing is known).
    ``inside``: landings from inside their surface (:func:`inner`), whose places lie within
    half a pixel of a pixel off the frame's edges: every tap is in the frame (no clipping,
    no neighbour past the last column or row, and None for where it was)."""
    h, w = size
    ty, tx = np.divmod(pix, w)
    sy, sx = ty - vy * dt, tx - vx * dt
    if shift[0] or shift[1]:
        sy += shift[0]
        sx += shift[1]
    seen = None
    if not inside:
        seen = (sy >= -0.5) & (sy <= h - 0.5) & (sx >= -0.5) & (sx <= w - 0.5)
        sy = np.minimum(np.maximum(sy, 0, out=sy), h - 1, out=sy)
        sx = np.minimum(np.maximum(sx, 0, out=sx), w - 1, out=sx)
    fy, fx = np.floor(sy), np.floor(sx)
    wy = (sy - fy).astype(np.float32)[:, None]
    wx = (sx - fx).astype(np.float32)[:, None]
    y0 = fy.astype(np.intp)
    right = 1 if inside else fx < w - 1  # the next column, or the last again
    down = w if inside else (y0 < h - 1) * w  # the next row, or the last again
    top = y0 * w + fx.astype(np.intp)
    bottom = top + down
    one = np.float32(1)
    uy, ux = one - wy, one - wx
    return [(top, uy * ux), (top + right, uy * wx), (bottom, wy * ux),
            (bottom + right, wy * wx)], seen


def samples(moving_layer: np.ndarray, size: tuple[int, int], pix: np.ndarray, vy: np.ndarray,
            vx: np.ndarray, dt: np.ndarray, base: np.ndarray,
            shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """What each target pixel ``pix`` shows of a source's moving layer (:func:`layer`)
    whose surface there moves at ``(vy, vx)`` pixels per second, ``dt`` seconds after the
    source's time (its picture moved by ``shift``, (y, x) pixels), over ``base`` (its still
    colour, (n, C)): float32 (n, C)."""
    taps, seen = _taps(size, pix, vy, vx, dt, shift)
    seen = seen[:, None]
    acc = np.zeros((len(pix), moving_layer.shape[1]), np.float32)
    for at, weight in taps:
        acc += np.take(moving_layer, at, axis=0) * (weight * seen)
    colour, alpha = acc[:, :-1], acc[:, -1:]
    colour += (np.float32(1) - alpha) * base
    return colour


def resampled(lin: np.ndarray, size: tuple[int, int], pix: np.ndarray, vy: np.ndarray,
              vx: np.ndarray, dt: np.ndarray,
              shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """:func:`samples` for landings from inside their surface (:func:`inner`): every tap is
    the surface, in the frame, so the colour alone, resampled bilinearly."""
    taps, _ = _taps(size, pix, vy, vx, dt, shift, inside=True)
    colour = np.zeros((len(pix), lin.shape[1]), np.float32)
    for at, weight in taps:
        colour += np.take(lin, at, axis=0) * weight
    return colour
