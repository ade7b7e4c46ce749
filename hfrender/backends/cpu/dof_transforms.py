"""The fast depth of field's transforms on the CPU, a part of :class:`.dof_fast._Ops`:
each window's FFTs, forward and inverse (bit for bit NumPy's rfft2 and irfft2, over the
rows that hold light), on the transform threads; the disks' spectra, kept; and an inverse's
light made ready for the sums (its rounding and its highlights' parts out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hfrender import dof_highlights as highlights
from hfrender.backends.cpu.ahead import Ahead
from hfrender.backends.cpu.blur import thread_pool
from hfrender.backends.cpu.dof_light import Light, clean, halves, tops
from hfrender.dof_fft import SPECTRA_BYTES, Window
from hfrender.dof_layers import FAR, disk_spectrum, disk_tables
from hfrender.kept import Kept
from hfrender.limits import usable_cores

# NumPy's FFT of planes whose rows lie apart (a box's rows of a grid) costs ~20-40 us more
# than of one block; a copy to one block costs less below this many values
SMALL_STRIDED = 1 << 18
FFT_THREADS = max(1, usable_cores() // 2)  # the windows' FFTs run on these
_spectra = Kept(SPECTRA_BYTES)  # the disks' spectra, the newest last


def _spectrum(area: int, shape: tuple[int, int], max_d2: int, blades: int,
              side: int) -> np.ndarray:
    """The disk's spectrum on a grid, kept (least recently used out first, within
    :data:`hfrender.dof_fft.SPECTRA_BYTES`; each one costs an FFT of its grid). Kept as
    CUDA keeps them: by the disk, the first ``area`` offsets of any ``max_d2``'s tables
    (whole rings), so calls a focus pull apart share them (were kept by ``max_d2`` too,
    which a pull changes: 103 made over 12 calls of a 64x36 frame, 54 now); a round or
    even disk turned over is itself."""
    side = side if blades % 2 else FAR
    key = (area, shape, blades, side)
    spectrum = _spectra.get(key)
    if spectrum is None:
        spectrum = _spectra.put(key, disk_spectrum(np, disk_tables(max_d2, blades)[0], area,
                                                   shape, side))
    return spectrum


class Transforms:
    """The FFT steps of :class:`.dof_fast._Ops`, which holds what they read: ``c`` (the
    colour's channels), ``max_d2`` and ``blades`` (the disks), ``cuts`` (the highlights'),
    ``ahead`` (the transform threads' jobs, made at the first)."""

    def later(self, fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
        """``fn(*args)`` (a window's FFTs) on a transform thread: what gives its result.
        A window's FFTs and the next window's fields are made side by side on two cores,
        however small the window. The threads are half the cores, shared (callers fusing
        frames side by side, ``fx --workers``, do the other half). A job not started when
        its result is wanted runs here, and so do the next ones while this thread would
        wait (:class:`.ahead.Ahead`)."""
        if self.ahead is None:
            self.ahead = Ahead(thread_pool("dof-fft", FFT_THREADS))
        return self.ahead.submit(fn, *args)

    def split(self, fields: list[np.ndarray], rows: tuple[int, int]) -> list[np.ndarray]:
        """A window's fields with its highlights' parts, where the frame has any
        (:func:`.dof_highlights.split_used`)."""
        return highlights.split_used(fields, self.cuts, self.c, rows) if self.cuts else fields

    def ready(self, inverse: tuple[np.ndarray, np.ndarray],
              rows: tuple[int, int] | None = None) -> Light:
        """An inverse FFT's light, with its bounds (:meth:`inverse`), to be read without its
        rounding (:func:`.dof_light.clean`), on the calling thread (many short calls on
        the transform thread cost more in handing the interpreter over than they spare):
        the sums take the rounding out of the rows they read (``rows``: a gather's box's;
        by the whole window's bounds) and leave out where its weight is rounding.
        Highlights' parts (:meth:`split`) are cleaned by their own and added to the colour
        first; its bounds are the colour's own."""
        light, top = inverse
        many = highlights.parts(light, self.c) >= 1  # (-1: a weight alone, an open gather's)
        return clean(highlights.fold(np, light, self.c) if many else light, rows, top)

    def spectrum(self, area: int, shape: tuple[int, int], side: int) -> np.ndarray:
        side = side if self.blades % 2 else FAR  # turned over, a round or even disk is itself
        return _spectrum(area, shape, self.max_d2, self.blades, side)

    def forward(self, fields: np.ndarray, rows: tuple[int, int]) -> np.ndarray:
        """rfft2 (norm "forward") of ``fields``, zero outside ``rows``: its two passes, bit
        for bit, the real one over those rows alone (a thin band's light is in a tenth of
        its grid's rows)."""
        out = np.empty(fields.shape[:-1] + (fields.shape[-1] // 2 + 1,), np.complex64)
        r0, r1 = rows
        out[..., :r0, :] = 0
        out[..., r1:, :] = 0

        def one(a: np.ndarray, spectrum: np.ndarray) -> None:
            light, part = a[..., r0:r1, :], spectrum[..., r0:r1, :]
            if light.size < SMALL_STRIDED:  # their planes' rows apart: see SMALL_STRIDED
                part[...] = np.fft.rfft(np.ascontiguousarray(light), axis=-1, norm="forward")
            else:
                np.fft.rfft(light, axis=-1, norm="forward", out=part)
            np.fft.fft(spectrum, axis=-2, norm="forward", out=spectrum)

        return halves(one, fields, out)

    def inverse(self, spectrum: np.ndarray, win: Window) -> tuple[np.ndarray, np.ndarray]:
        """The window's (C + 1, h, w) corner of the inverse of ``spectrum`` (a view; the
        spectrum is used up): irfft2's two passes, bit for bit, the complex one in place and
        the real one over the window's rows alone, without irfft2's two grid-sized
        temporaries and the copy of the corner (a third of the inverse at 1080p); and its
        colour's and weight's bounds (:func:`.dof_light.tops`), two long calls that leave
        the calling thread (3% of a 64 px call at 640x360)."""
        h, w = win.size

        def one(a: np.ndarray, out: np.ndarray) -> None:
            np.fft.ifft(a, axis=-2, out=a)
            np.fft.irfft(a[..., :h, :], n=win.shape[1], axis=-1, out=out)

        rows = np.empty((spectrum.shape[0], h, win.shape[1]), np.float32)
        light = halves(one, spectrum, rows)[..., :w]
        return light, tops(light[:self.c + 1])
