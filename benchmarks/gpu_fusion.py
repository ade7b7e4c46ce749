"""CUDA fusion throughput next to a device-to-device copy, in one run (needs a GPU).

Motion blur over 1080p RGBA8 frames on the device: windows of 16 with stride 16 (each
frame read once: the banded kernel) and stride 1 (the running-sum kernel), plus depth of
field. Bandwidth counts the bytes each kernel must move (frames read once, outputs
written); the copy moves the same number of bytes. Goal: >= 70% of the copy's bandwidth.

    python benchmarks/gpu_fusion.py [--frames 128]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np


def timed(cupy, fn, repeats=10):
    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


def main() -> None:
    import cupy

    import hfrender as hf
    from hfrender.backends import load

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=128)
    args = p.parse_args()
    cuda = load("cuda")
    print(cuda.describe())
    rng = np.random.default_rng(0)
    n, h, w = args.frames, 1080, 1920
    frames = cupy.asarray(rng.integers(0, 256, (n, h, w, 4), dtype=np.uint8))
    nbytes = frames.nbytes
    dst = cupy.empty_like(frames)
    t_copy = timed(cupy, lambda: cupy.copyto(dst, frames))
    copy_bw = 2 * nbytes / t_copy / 1e9
    print(f"device-to-device copy: {nbytes / 2**20:.0f} MiB in {t_copy * 1e3:.2f} ms = "
          f"{copy_bw:.0f} GB/s (read + write)")
    rows = []
    for label, window, stride, weights, linear in (
            ("box 16/16 linear", 16, 16, "box", True),
            ("box 16/16 code", 16, 16, "box", False),
            ("triangle 16/16 linear", 16, 16, "triangle", True),
            ("box 16/1 linear (running)", 16, 1, "box", True)):
        out_frames = (n - window) // stride + 1
        t = timed(cupy, lambda w_=window, s=stride, c=weights, lin=linear: hf.motion_blur(
            frames, w_, stride=s, weights=c, linear_light=lin))
        moved = nbytes + out_frames * frames[0].nbytes
        rows.append((label, t * 1e3, moved / t / 1e9, moved / t / 1e9 / copy_bw))
    depth = cupy.asarray(rng.choice([0.8, 2.0, 6.0], size=(16, h, w)).astype(np.float32))
    t = timed(cupy, lambda: hf.depth_of_field(frames[:16], depth, focus_distance=2.0,
                                              f_stop=2.8), repeats=3)
    rows.append(("depth of field x16 (50 mm f/2.8)", t * 1e3, None, None))  # (no bytes
    #                                                   count: it gathers, it does not stream)
    print(f"{'kernel':<34} {'ms':>9} {'GB/s':>8} {'of copy':>8}")
    for label, ms, bw, frac in rows:
        moved = f"{bw:8.0f} {frac:8.0%}" if bw is not None else f"{'-':>8} {'-':>8}"
        print(f"{label:<34} {ms:9.2f} {moved}")


if __name__ == "__main__":
    main()
