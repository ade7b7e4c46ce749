"""What float sub-frames cost: renders with ``--hdr off`` (8-bit sRGB sub-frames) against
``--hdr on`` (RGBA32F, linear light past white kept through the blur).

The demo (``scenes/showcase.py``) and the propeller (whose glowing tips pass white, so
``--hdr auto`` draws it in float), 640x360, 8 samples, 2 s, each rendered into memory in
a fresh process, round robin, medians of ``--runs``; also the fusion alone (in this
process). Prints each time and the ratio.

    python benchmarks/hdr.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCENES = HERE.parent / "scenes"
MODES = ("off", "on")


# one render in a fresh process, as a user's command runs (memory is new to it: a process
# that rendered before reuses pages, which hides what a first touch costs)
CHILD = """
import sys, time
from hfrender.config import RenderConfig
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter
config = RenderConfig(output="memory.mp4", size=(640, 360), duration=2.0, hdr=sys.argv[2],
                      quiet=True, backend="cpu")
start = time.perf_counter()
render(sys.argv[1], config, writer=MemoryWriter())
print(time.perf_counter() - start)
"""


def render_seconds(scene: Path, hdr: str) -> float:
    out = subprocess.run([sys.executable, "-c", CHILD, str(scene), hdr], check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def fusion_seconds(hdr: bool, runs: int) -> float:
    """One 64-sub-frame hyperframe of 640x360 fused into 8 frames (8 samples each), on
    this thread: the blend of uint8 sRGB codes against float32 linear light."""
    from hfrender.effects import fuse
    from hfrender.engine import deep_output
    from hfrender.hyperframe.builder import HyperFrameBuilder
    from hfrender.hyperframe.windows import WindowWeights

    rng = np.random.default_rng(1)
    dtype = np.float32 if hdr else np.uint8
    builder = HyperFrameBuilder.create((360, 640, 4), dtype, granularity=64)
    for i in range(64):
        target = builder.reserve(float(i))
        target.color[...] = (rng.uniform(0, 2, (360, 640, 4)) if hdr
                             else rng.integers(0, 256, (360, 640, 4)))
        hyper = builder.commit()
    weights = WindowWeights.sliding(np.full(8, 1 / 8), 8, 8)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        frames = fuse(hyper, weights, backend="cpu")
        deep_output.finish(frames[..., :3], np.dtype(np.uint8))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    for name in ("showcase.py", "propeller.py"):
        times: dict[str, list[float]] = {m: [] for m in MODES}
        for k in range(args.runs):
            for mode in MODES if k % 2 == 0 else MODES[::-1]:
                times[mode].append(render_seconds(SCENES / name, mode))
        off, on = (statistics.median(times[m]) for m in MODES)
        print(f"render {name:14s} 640x360, 8 samples, 60 frames: hdr off {off:.2f} s, "
              f"hdr on {on:.2f} s: {on / off:.2f}x   (runs off "
              f"{', '.join(f'{t:.2f}' for t in times['off'])}; on "
              f"{', '.join(f'{t:.2f}' for t in times['on'])})")
    fused = {m: fusion_seconds(m == "on", 2 * args.runs + 1) for m in MODES}
    print(f"fusion alone, 64 sub-frames 640x360 -> 8 frames: hdr off {fused['off'] * 1e3:.0f} "
          f"ms, hdr on {fused['on'] * 1e3:.0f} ms: {fused['on'] / fused['off']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
