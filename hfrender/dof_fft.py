"""The FFT grids of the fast depth of field (:mod:`hfrender.dof_layers`): a window of the
image on a padded 5-smooth grid, and the forward and inverse transforms every backend
calls (NumPy's, or cuFFT's through CuPy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# the disks' spectra a backend keeps for the next frames and calls, at most (a frame's plan
# needs some thirty; a clip's frames, or calls at several blurs, share them: hfrender.kept)
SPECTRA_BYTES = 256 << 20


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
    inner: tuple[int, int] = (0, 0)  # the box's rows within the window (its light's rows)
    across: tuple[int, int] | None = None  # the box's columns within it (None: all)

    @property
    def size(self) -> tuple[int, int]:
        return self.y1 - self.y0, self.x1 - self.x0

    @property
    def box(self) -> tuple[int, int, int, int]:
        """The box (y0, y1, x0, x1) the window was grown from, in the image: the only
        pixels a gather reads (past them its sums may wrap around the grid)."""
        a, b = self.inner
        c, d = self.across or (0, self.x1 - self.x0)
        return self.y0 + a, self.y0 + b, self.x0 + c, self.x0 + d

    @property
    def rows(self) -> tuple[int, int]:
        """All the window's rows (what a gather reads: the far light around the box)."""
        return 0, self.y1 - self.y0


def window(box: tuple[int, int, int, int], reach: int, h: int, w: int) -> Window:
    """``box`` (y0, y1, x0, x1) grown by ``reach`` within the image, on a grid just large
    enough that nothing wraps around into it: what spreads from the box (or is gathered for
    it) reaches ``reach`` past it, and only past the image's edges does the grid need room
    for it (``reach`` beyond the window, less the margin the window kept on the other side:
    none for a box inside the image)."""
    y0, y1, x0, x1 = box
    wy0, wy1 = max(0, y0 - reach), min(h, y1 + reach)
    wx0, wx1 = max(0, x0 - reach), min(w, x1 + reach)
    rows = _guarded(wy1 - wy0, reach, y0 - wy0, wy1 - y1)
    cols = _guarded(wx1 - wx0, reach, x0 - wx0, wx1 - x1)
    return Window(wy0, wy1, wx0, wx1, (rows, cols), (y0 - wy0, y1 - wy0), (x0 - wx0, x1 - wx0))


def _guarded(size: int, reach: int, before: int, after: int) -> int:
    """The 5-smooth grid for a window of ``size`` whose box lies ``before`` and ``after``
    inside it: light spilling ``reach - before`` past its start wraps to the grid's end,
    and must land beyond the window; spilling ``reach - after`` past its end, it must stay
    on the grid. Both hold from ``size + reach - min(before, after)`` on."""
    return _smooth(size + reach - min(before, after))
