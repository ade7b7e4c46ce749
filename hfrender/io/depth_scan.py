"""A depth pass held as one array (an ``.npy``, memory-mapped, or an ``.npz``'s) checked
whole before a frame is written: a NaN or a value <= 0 in any frame refuses the run up
front (``hfrender fx``'s and a jobs file's checks), in the line the per-frame check says
(:func:`hfrender.validate.depth_frame`). Chunks of :data:`CHUNK_BYTES` bound the memory;
each costs one pass for its least (or largest) value where the metres grow (or shrink)
with the stored values: 0.14 s for 1080p x 240 frames of float32 (2 GB) in the page cache
on 2 cores, where the run's own per-frame check costs 0.20 s (benchmarks/depth_scan.py;
RESULTS.md, 2026-12-07).
An image sequence is checked frame by frame as it is read: reading it all first would
cost a decode of every file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

CHUNK_BYTES = 64 << 20  # the stored depth scanned at once (8 frames of 1080p float32)


def scan(frames: np.ndarray, metres: Callable[[np.ndarray], np.ndarray],
         refuse: Callable[[np.ndarray, int], Any], ends: tuple[str, ...] | None,
         start: int = 1) -> None:
    """Every frame of ``frames`` (N, H, W) from ``start`` on (frame 0: checked already),
    in chunks, as ``metres`` makes them the run's (scaled, sky, a disparity's inverse);
    the first frame holding a NaN or a value <= 0 handed to ``refuse(frame, index)``,
    which says it (and raises). ``ends``: the chunk's values (``"min"``, ``"max"``) whose
    metres bound all of its own (a NaN carries through them): a chunk whose are > 0 is
    clean, else (or with ``ends`` None) its metres are made and looked through."""
    per = max(1, CHUNK_BYTES // max(1, frames[0].nbytes)) if len(frames) else 1
    for a in range(start, len(frames), per):
        chunk = frames[a:a + per]
        if ends is not None:
            bound = np.array([getattr(chunk, end)() for end in ends], chunk.dtype)
            if (metres(bound[None, None]) > 0).all():
                continue
        m = metres(chunk)
        bad = ~(m > 0)  # NaN and <= 0, in one pass
        if bad.any():
            j = int(np.argmax(bad.reshape(len(m), -1).any(axis=1)))
            refuse(m[j], a + j)
