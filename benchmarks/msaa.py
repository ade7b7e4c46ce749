"""What multisampling each sub-frame costs: renders with ``--msaa 1`` against ``--msaa 4``.

The demo (``scenes/showcase.py``, 640x360, 8 samples, 2 s) and the propeller rendered in
this process into memory, round robin, median of ``--runs``; then one million triangles
drawn by ``models.py`` at both settings. Prints each time and the ratio.

    python benchmarks/msaa.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENES = HERE.parent / "scenes"


def render_seconds(scene: Path, msaa: int) -> float:
    from hfrender.config import RenderConfig
    from hfrender.engine.render import render
    from hfrender.io.writers import MemoryWriter

    config = RenderConfig(output="memory.mp4", size=(640, 360), duration=2.0, msaa=msaa,
                          quiet=True, backend="cpu")
    start = time.perf_counter()
    render(str(scene), config, writer=MemoryWriter())
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    for name in ("showcase.py", "propeller.py"):
        times: dict[int, list[float]] = {1: [], 4: []}
        render_seconds(SCENES / name, 1)  # warm up: shader compilation, imports
        for _ in range(args.runs):
            for msaa in times:
                times[msaa].append(render_seconds(SCENES / name, msaa))
        one, four = (statistics.median(times[m]) for m in (1, 4))
        print(f"render {name:14s} 640x360, 8 samples, 60 frames: msaa 1 {one:.2f} s, "
              f"msaa 4 {four:.2f} s: {four / one:.2f}x")
    sys.path.insert(0, str(HERE))
    import models

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plain.glb"
        models.bumpy_sphere("plain").export(path, include_normals=True)
        rate = {m: models.measure(path, args.runs, 10, False, False, m) for m in (1, 4)}
    print(f"1 M triangles, 640x360: msaa 1 {rate[1]:.1f} sub-frames/s, msaa 4 {rate[4]:.1f}: "
          f"{rate[1] / rate[4]:.2f}x the time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
