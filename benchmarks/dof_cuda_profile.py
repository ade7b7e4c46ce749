"""Where ``hf.depth_of_field``'s time goes on the CUDA backend: the host's time against
the device's (``cupyx.profiler.benchmark``: a call's wall time on the host, and the time
its kernels keep the GPU busy), for the fast method as a call gets it (the exact gather
where a frame's taps are few), its layers forced, and the exact gather, then cProfile's
top functions over a few calls of the layers. The first GPU run (2026-12-04) found the fast method
8x slower than the exact gather at 640x360 (71 ms against 8.7 ms at 64 px): this says
whether the host (Python, the plan, launches, waits) or the kernels take it.

    python benchmarks/dof_cuda_profile.py [--size 640x360] [--blur 64] [--calls 10]
                                          [--frames 8]

``--frames``: a clip of that many frames (the scene panned 3 px a frame) through the layers
in one call, its frames sharing plans (``hfrender/backends/cuda/dof_plans.py``: the
device's default) against one plan a frame, each's time a frame and the ratio.

On a machine without CUDA, ``--backend cpu`` profiles the CPU path (no device times).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import hfrender as hf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dof import FOCUS, lens_for, scene  # noqa: E402


def device_split(call, calls: int, backend: str) -> str:
    """'host X ms, device Y ms' (medians) on CUDA, else the wall time."""
    if backend != "cuda":
        t = time.perf_counter()
        for _ in range(calls):
            call()
        return f"wall {(time.perf_counter() - t) / calls * 1e3:.1f} ms (mean of {calls})"
    import numpy as np
    from cupyx.profiler import benchmark

    res = benchmark(call, (), n_repeat=calls, n_warmup=2)
    return (f"host {np.median(res.cpu_times) * 1e3:.1f} ms, "
            f"device {np.median(res.gpu_times) * 1e3:.1f} ms (medians of {calls})")


@contextlib.contextmanager
def layers_only(backend: str, on: bool = True):
    """The CUDA backend's fast method as its layers, whatever the frame's taps
    (``Device.exact_taps`` 0: a small frame gathers exactly there otherwise)."""
    if backend != "cuda" or not on:
        yield
        return
    from hfrender.backends import load

    dev = load("cuda").device()
    kept, dev.exact_taps = dev.exact_taps, 0
    try:
        yield
    finally:
        dev.exact_taps = kept


def shared_plans(img, depth, stop: float, frames: int, calls: int) -> None:
    """A pan of ``frames`` frames through the layers, on the device already: a frame's
    time with the plans shared (the device's default) against one plan a frame."""
    import cupy
    import numpy as np

    from hfrender.backends import load

    dev = load("cuda").device()
    clip = cupy.asarray(np.stack([np.roll(img, 3 * z, axis=1) for z in range(frames)]))
    depths = cupy.asarray(np.stack([np.roll(depth, 3 * z, axis=1) for z in range(frames)]))
    shared = dev.dof_plan_pixels
    times = {}
    with layers_only("cuda"):
        for label, pixels in (("shared plans", shared), ("a plan a frame", 0)):
            dev.dof_plan_pixels = pixels
            try:
                split = device_split(lambda: hf.depth_of_field(
                    clip, depths, focus_distance=FOCUS, f_stop=stop, backend="cuda"),
                    calls, "cuda")
            finally:
                dev.dof_plan_pixels = shared
            host = float(split.split()[1])
            times[label] = host / frames
            print(f"{frames} frames, {label} ({pixels} pixels a plan): {split} a call, "
                  f"host {host / frames:.2f} ms a frame", flush=True)
    print(f"a plan a frame / shared plans: "
          f"{times['a plan a frame'] / times['shared plans']:.2f}x a frame's host time")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--blur", type=int, default=64, help="largest CoC in px (default 64)")
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--frames", type=int, default=0,
                    help="also a clip of this many frames: shared plans against one a frame")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    img, depth = scene(h, w)
    stop = lens_for(depth, args.blur).f_stop
    if args.frames and args.backend == "cuda":
        shared_plans(img, depth, stop, args.frames, args.calls)
    methods = ("fast", "layers", "exact") if args.backend == "cuda" else ("fast",)
    for method in methods:  # (no exact on 2 CPU cores: a minute a call at 64 px)
        given = "exact" if method == "exact" else "fast"

        def call(m=given):
            return hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=stop,
                                     backend=args.backend, method=m)
        with layers_only(args.backend, method == "layers"):
            call()
            split = device_split(call, args.calls, args.backend)
        print(f"{args.size} CoC {args.blur} px, {method}: {split}", flush=True)
    prof = cProfile.Profile()
    with layers_only(args.backend):
        prof.enable()
        for _ in range(args.calls):
            hf.depth_of_field(img, depth, focus_distance=FOCUS, f_stop=stop,
                              backend=args.backend)
        prof.disable()
    for key in ("tottime", "cumtime"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(18)
        text = out.getvalue()
        print(f"-- the fast method's layers, {args.calls} calls, by {key}:")
        print(text[text.find("ncalls"):].rstrip(), flush=True)


if __name__ == "__main__":
    main()
