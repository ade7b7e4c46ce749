"""The FFT grids of the fast depth of field (:mod:`hfrender.dof_layers`): a window of the
image on a padded 5-smooth grid, and the forward and inverse transforms every backend
calls (NumPy's, or cuFFT's through CuPy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def fft_shape(h: int, w: int, reach: int) -> tuple[int, int]:
    """A padded size (5-smooth) at least ``reach`` beyond the image: no wrap-around."""
    return _smooth(h + reach), _smooth(w + reach)


def _smooth(n: int) -> int:
    while True:
        k = n
        for p in (2, 3, 5):
            while k % p == 0:
                k //= p
        if k == 1:
            return n
        n += 1


def forward(xp: Any, fields: Any) -> Any:
    """rfft2 over the last two axes. NumPy's float32 FFTs run ~4x faster with a scale
    (norm="forward") than without one: the disk's spectrum carries the factor back."""
    return xp.fft.rfft2(fields, norm="forward")


def inverse(xp: Any, spectrum: Any, shape: tuple[int, int], h: int, w: int) -> Any:
    """The (h, w) corner of the inverse of ``spectrum`` on a ``shape`` grid (float32)."""
    return xp.ascontiguousarray(xp.fft.irfft2(spectrum, s=shape)[..., :h, :w], xp.float32)


@dataclass(frozen=True)
class Window:
    """Rows ``y0:y1`` and columns ``x0:x1`` of the image, on an FFT grid of ``shape`` whose
    corner is (y0, x0): what a layer's FFTs cover (its pixels and as far as its disks reach)."""

    y0: int
    y1: int
    x0: int
    x1: int
    shape: tuple[int, int]

    @property
    def size(self) -> tuple[int, int]:
        return self.y1 - self.y0, self.x1 - self.x0


def window(box: tuple[int, int, int, int], reach: int, h: int, w: int) -> Window:
    """``box`` (y0, y1, x0, x1) grown by ``reach`` within the image, on a grid ``reach``
    larger than it (no wrap-around into it)."""
    y0, y1, x0, x1 = box
    y0, y1, x0, x1 = max(0, y0 - reach), min(h, y1 + reach), max(0, x0 - reach), min(w, x1 + reach)
    return Window(y0, y1, x0, x1, fft_shape(y1 - y0, x1 - x0, reach))
