"""A render on Ray with 1 and with 2 local workers against the same render run locally.

The scaling of the chunked render and Ray's overhead (start, task scheduling, segments
through the object store), in one run: local, Ray 1 CPU, Ray 2 CPUs, in turn.

    python benchmarks/ray_render.py [--frames 120] [--size 640x360] [--samples 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from hfrender.config import RenderConfig, parse_size
from hfrender.engine.cluster import ClusterRender
from hfrender.engine.render import render

SCENE = Path(__file__).resolve().parents[1] / "scenes" / "showcase.py"


def on_ray(config: RenderConfig, cpus: int) -> tuple[float, float]:
    """(seconds with Ray's start, seconds of the render itself) on a Ray of ``cpus``."""
    import ray

    t0 = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    t1 = time.perf_counter()
    try:
        ClusterRender(SCENE, config).prepare().run()
    finally:
        ray.shutdown()
    t2 = time.perf_counter()
    return t2 - t0, t2 - t1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=120)
    p.add_argument("--size", default="640x360")
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    runs: dict[str, list[float]] = {"local": [], "ray 1 CPU": [], "ray 2 CPUs": []}
    starts: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = RenderConfig(output=str(Path(tmp) / "o.mp4"), size=parse_size(args.size),
                              samples=args.samples, duration=args.frames / 30.0, quiet=True)
        for _ in range(args.repeats):
            t = time.perf_counter()
            render(SCENE, config)
            runs["local"].append(time.perf_counter() - t)
            for cpus, name in ((1, "ray 1 CPU"), (2, "ray 2 CPUs")):
                whole, itself = on_ray(config, cpus)
                runs[name].append(itself)
                starts.append(whole - itself)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"{SCENE.name}, {args.frames} frames {args.size} x {args.samples} samples, mp4; "
          f"median of {args.repeats} (seconds, Ray's own start excluded: "
          f"{statistics.median(starts):.1f} s)")
    for name, v in runs.items():
        print(f"  {name:<11} {med[name]:6.2f} s  ({args.frames / med[name]:5.1f} fps)  runs: "
              + ", ".join(f"{x:.2f}" for x in v))
    print(f"  ray 2 CPUs / ray 1 CPU = {med['ray 1 CPU'] / med['ray 2 CPUs']:.2f}x faster; "
          f"local / ray 2 CPUs = {med['ray 2 CPUs'] / med['local']:.2f}x the time")


if __name__ == "__main__":
    main()
