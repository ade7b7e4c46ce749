"""What checking a memory-mapped ``.npy`` depth pass whole costs before an fx run
(:mod:`hfrender.io.depth_scan`): a 1080p x 240-frame float32 pass (2 GB), scanned in
chunks: ``depth_for`` with the scan and without it, and the per-frame check the run makes
as it reads each frame anyway (:func:`hfrender.validate.depth_frame`), alternated in one
process (medians; the file in the page cache, as a pass just written is).

    python benchmarks/depth_scan.py [--frames 240] [--size 1920x1080] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hfrender import validate
from hfrender.io import depth_fit, depth_scan
from hfrender.io.depth_fit import depth_for
from hfrender.optics import Lens


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.npy"
        out = np.lib.format.open_memmap(path, "w+", np.float32, (a.frames, h, w))
        rng = np.random.default_rng(0)
        for i in range(a.frames):
            out[i] = rng.uniform(0.5, 50.0, (h, w)).astype(np.float32)
        out.flush()
        del out
        arr = np.load(path, mmap_mode="r")
        lens = Lens(10.0, 2.8)
        times: dict[str, list[float]] = {"depth_for": [], "without the scan": [],
                                         "per-frame": []}
        for _ in range(a.repeats):  # alternated: the page cache and the machine alike
            t = time.perf_counter()
            depth_for(str(path), 1.0, False, (w, h), a.frames, lambda d: lens)
            times["depth_for"].append(time.perf_counter() - t)
            depth_scan.scan, real = (lambda *_, **__: None), depth_scan.scan
            depth_fit.scan = depth_scan.scan
            t = time.perf_counter()
            depth_for(str(path), 1.0, False, (w, h), a.frames, lambda d: lens)
            times["without the scan"].append(time.perf_counter() - t)
            depth_scan.scan = depth_fit.scan = real
            t = time.perf_counter()  # what the run checks as it reads each frame anyway
            for i in range(a.frames):
                validate.depth_frame(np.asarray(arr[i], np.float32), i)
            times["per-frame"].append(time.perf_counter() - t)
        gb = arr.nbytes / 1e9
        for k, v in times.items():
            m = statistics.median(v)
            print(f"{k:>16}: {m:.3f} s median of {a.repeats} ({gb / m:.2f} GB/s, "
                  f"{m / a.frames * 1e3:.2f} ms a frame; {a.frames} frames {w}x{h}, {gb:.2f} GB)")


if __name__ == "__main__":
    main()
