"""``hf.vector_blur`` with one outlier vector: ``benchmarks/vector_blur.py``'s 1920x1080 frame
with and without one pixel moving 5000 px a frame (a bad optical-flow match), timed
alternately in one process (CPU seconds, medians of ``--runs``), and the pictures compared
away from the outlier's row (bit for bit).

    python benchmarks/vector_outliers.py [--runs 5] [--size 5000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import hfrender as hf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_blur import frame  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--size", type=float, default=5000.0)
    args = p.parse_args()
    img, vel, depth = frame(1920, 1080)
    wild = vel.copy()
    wild[700, 900] = (args.size, 0.0)
    cpu: dict[str, list[float]] = {"calm": [], "outlier": []}
    out = {}
    for _ in range(args.runs):
        for name, v in (("calm", vel), ("outlier", wild)):
            c0 = time.process_time()
            out[name] = hf.vector_blur(img, v, depth, shutter=180, backend="cpu")
            cpu[name].append(time.process_time() - c0)
    away = np.ones(img.shape[:2], bool)
    away[699:702] = False
    same = np.array_equal(out["calm"][away], out["outlier"][away])
    for name, t in cpu.items():
        each = ", ".join(f"{x:.2f}" for x in t)
        print(f"{name}: median {statistics.median(t):.2f} s CPU ({each})")
    print(f"ratio {statistics.median(cpu['outlier']) / statistics.median(cpu['calm']):.2f}; "
          f"away from row 700 bit for bit: {same}")


if __name__ == "__main__":
    main()
