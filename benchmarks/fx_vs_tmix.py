"""hf.motion_blur vs ``ffmpeg -vf tmix`` on the same 1280x720 rgb24 frames, in one run.

Sliding windows (stride 1), code-value blending (``linear_light=False``: what tmix does),
N = 8 and 32. ffmpeg is the binary imageio-ffmpeg ships. Prints ms per output frame for
both, the ratio, and the largest difference between the two outputs (goal: <= 1 code
value, and hfrender >= 2x faster).

tmix's cost is isolated by subtracting a pass-through run that does the same I/O and the
same rgb24 <-> planar conversions (tmix works on planar formats); whole-process times are
printed too. hfrender is timed on frames already in memory, warm, median of repeats.
The last column is hfrender in linear light (decode, blend, encode), which tmix cannot do.

    python benchmarks/fx_vs_tmix.py [--frames 96] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import tempfile
import time

import imageio_ffmpeg
import numpy as np

import hfrender as hf

W, H = 1280, 720


def make_frames(n: int, seed: int = 0) -> np.ndarray:
    """Moving gradients with seeded noise: every pixel changes from frame to frame."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    frames = np.empty((n, H, W, 3), np.uint8)
    for j in range(n):
        base = np.stack([(x + 7 * j) % 256, (y + 3 * j) % 256, (x + y + 11 * j) % 256], -1)
        frames[j] = np.clip(base + rng.normal(0, 12, base.shape), 0, 255)
    return frames


def run_ffmpeg(src: str, dst: str, vf: str, repeats: int) -> float:
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-y",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", "30", "-i", src,
           "-vf", vf, "-f", "rawvideo", "-pix_fmt", "rgb24", dst]
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(cmd, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=96)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    frames = make_frames(args.frames)
    print(f"{args.frames} frames {W}x{H} rgb24; {os.cpu_count()} CPUs "
          f"{platform.machine()}; NumPy {np.__version__}; "
          f"ffmpeg {imageio_ffmpeg.get_ffmpeg_version()}")
    # the memory-bandwidth floor: a plain copy of every frame into a preallocated array
    dst_copy = np.empty_like(frames)
    np.copyto(dst_copy, frames)
    copies = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        np.copyto(dst_copy, frames)
        copies.append(time.perf_counter() - t)
    copy_ms = statistics.median(copies) / args.frames * 1e3
    print(f"plain NumPy copy: {copy_ms:.2f} ms per frame "
          f"({2 * frames[0].nbytes / copy_ms / 1e6:.1f} GB/s read + write)")
    print(f"{'N':>3} {'tmix ms/f':>10} {'tmix+io ms/f':>13} {'hfrender ms/f':>14} "
          f"{'ratio':>6} {'ratio(io)':>9} {'x copy':>7} {'max diff':>8} {'linear ms/f':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.raw"), os.path.join(tmp, "out.raw")
        frames.tofile(src)
        io = run_ffmpeg(src, dst, "format=gbrp,format=rgb24", args.repeats)
        for n in (8, 32):
            whole = run_ffmpeg(src, dst, f"format=gbrp,tmix=frames={n},format=rgb24", args.repeats)
            tmix = np.fromfile(dst, np.uint8).reshape(-1, H, W, 3)
            out = hf.motion_blur(frames, n, stride=1, linear_light=False)  # warm-up
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                out = hf.motion_blur(frames, n, stride=1, linear_light=False)
                times.append(time.perf_counter() - t)
            m = out.shape[0]
            ours = statistics.median(times) / m * 1e3
            filt = (whole - io) / args.frames * 1e3
            whole_ms = whole / args.frames * 1e3
            diff = int(np.abs(tmix[n - 1 :].astype(int) - out).max())
            lin_times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                hf.motion_blur(frames, n, stride=1, linear_light=True)
                lin_times.append(time.perf_counter() - t)
            lin_ms = statistics.median(lin_times) / m * 1e3
            print(f"{n:>3} {filt:>10.2f} {whole_ms:>13.2f} {ours:>14.2f} {filt / ours:>6.1f} "
                  f"{whole_ms / ours:>9.1f} {ours / copy_ms:>7.2f} {diff:>8} {lin_ms:>11.2f}")


if __name__ == "__main__":
    main()
