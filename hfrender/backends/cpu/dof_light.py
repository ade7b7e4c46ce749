"""The fast depth of field's per-pixel passes on the CPU (``dof_fast.py``): bands of rows,
on two threads for large frames, an inverse FFT's light with its rounding taken out, and a
constant alpha set apart.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import wait
from dataclasses import dataclass

import numpy as np

from hfrender.backends.cpu.blur import _band_pool, scratch
from hfrender.dof_layers import NOISE, NOISE_W

SPLIT_PIXELS = 1 << 18  # FFT grids at least this large run on two threads
# The per-pixel passes (classes, fields, scatter, composite) walk a frame in bands of rows
# of about BAND_PIXELS, all of a band's steps at once, its temporaries kept (``scratch``):
# a 1080p frame's planes do not fit in the cache (360p's do), and whole-frame steps, each
# reading and writing every plane through fresh temporaries, cost 1080p 12x 360p's time
# for 9x the pixels. Frames of BAND_SPLIT_PIXELS and more run their bands on two threads.
BAND_PIXELS = 1 << 15
BAND_SPLIT_PIXELS = 1 << 18


def on_two(first: Callable[[], object], second: Callable[[], object]) -> None:
    """``first()`` on a band thread while ``second()`` runs here: both have ended when this
    returns or raises (neither writes into a frame afterwards)."""
    job = _band_pool().submit(first)
    try:
        second()
    finally:
        wait([job])
    job.result()


def halves(fn, a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[i] = fn(a[i])`` over the channels (axis 0), in two halves on two threads (one,
    for a grid too small to be worth a thread, or one plane)."""
    if a[0].size < SPLIT_PIXELS or a.shape[0] < 2:
        fn(a, out)
        return out
    half = (a.shape[0] + 1) // 2
    on_two(lambda: fn(a[:half], out[:half]), lambda: fn(a[half:], out[half:]))
    return out


def by_rows(fn: Callable[[int, int], None], rows: int, cols: int) -> None:
    """``fn(y0, y1)`` over bands of ``rows`` (of ``cols`` pixels each) of about
    :data:`BAND_PIXELS`; a large frame's bands in two halves on two threads."""
    step = max(1, BAND_PIXELS // max(cols, 1))
    bands = [(y, min(y + step, rows)) for y in range(0, rows, step)]

    def run(part: list[tuple[int, int]]) -> None:
        for y0, y1 in part:
            fn(y0, y1)

    if rows * cols < BAND_SPLIT_PIXELS or len(bands) < 2:
        run(bands)
    else:
        on_two(lambda: run(bands[: len(bands) // 2]), lambda: run(bands[len(bands) // 2:]))


def large_by_rows(fn: Callable[[int, int], None], rows: int, cols: int) -> None:
    """:func:`by_rows` for a frame of :data:`BAND_SPLIT_PIXELS` or more (in the cache, on
    two threads); a smaller one whole, in one call (its steps fit in the cache already,
    and bands would cost their calls)."""
    if rows * cols < BAND_SPLIT_PIXELS:
        fn(0, rows)
    else:
        by_rows(fn, rows, cols)


def tops(light: np.ndarray) -> np.ndarray:
    """Each channel's largest ``|value|`` (C + 1, 1, 1), without a frame of ``abs``."""
    return np.maximum(light.max(axis=(1, 2), keepdims=True),
                      -light.min(axis=(1, 2), keepdims=True))


@dataclass(frozen=True)
class Light:
    """An inverse FFT's ``[colour * w, w]`` planes and their rounding (the FFT's float32
    rounding is about 1e-7 of a channel's largest value): colour below ``noise``
    (:data:`NOISE` of its channel's largest) is zero, as the gather has it, taken out band
    by band as the sums read them (:meth:`band`: in the cache, not a pass of its own);
    weights below ``floor`` (:data:`NOISE_W` of the largest) are rounding too: there the
    layer does not reach, and the sums leave those pixels out (:meth:`there`)."""

    planes: np.ndarray
    noise: np.ndarray  # (C, 1, 1)
    floor: float
    rows: tuple[int, int]  # the rows that will be read

    def band(self, y0: int, y1: int, cols: slice = slice(None)) -> np.ndarray:
        """Rows ``y0:y1`` of the planes (their columns ``cols``), their colour's rounding
        taken out (in place: each row is read once)."""
        colour = self.planes[:-1, y0:y1, cols]
        size = np.abs(colour, out=scratch("dof.size", colour.shape, np.float32))
        np.multiply(colour, size >= self.noise, out=colour)
        return self.planes[:, y0:y1, cols]

    def there(self, rows: np.ndarray) -> np.ndarray:
        """Where ``rows`` (of :attr:`planes`) hold light."""
        return rows[-1] >= self.floor

    def masked(self) -> np.ndarray:
        """The planes, their rounding taken out in :attr:`rows` and zero where there is no
        light (in place)."""
        r0, r1 = self.rows
        by_rows(lambda y0, y1: self.band(r0 + y0, r0 + y1), r1 - r0, self.planes.shape[2])
        return np.multiply(self.planes, self.there(self.planes), out=self.planes)


def clean(light: np.ndarray, rows: tuple[int, int] | None = None,
          top: np.ndarray | None = None) -> Light:
    """``light`` to be read in ``rows`` (all, if ``None``), with its rounding's bounds: by
    the largest values of all its rows, even those not read (the FFT spreads its rounding
    over the whole grid: a gather's box rows may hold nothing else, and bounded by their
    own values it would pass for light; ``tests/test_dof_rounding.py``); or by ``top``
    (:func:`tops`), taken before highlights were added to it."""
    top = tops(light) if top is None else top
    return Light(light, NOISE * top[:-1], float(NOISE_W * top[-1, 0, 0]),
                 (0, light.shape[1]) if rows is None else rows)


def opaque(alphas: list[np.ndarray]) -> float | None:
    """The value of the alpha planes ``alphas`` where they are all one constant (an opaque
    render), else ``None``."""
    lo, hi = min(float(a.min()) for a in alphas), max(float(a.max()) for a in alphas)
    return lo if lo == hi else None


def with_alpha(colour: np.ndarray, alpha: float | None) -> np.ndarray:
    """``colour`` (H, W, C) with a constant alpha plane appended (none: as it is)."""
    if alpha is None:
        return colour
    return np.concatenate([colour, np.full(colour.shape[:-1] + (1,), alpha, np.float32)], -1)
