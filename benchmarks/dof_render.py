"""`hfrender render --dof depth` against `--dof lens`: time ratio and the window path's error.

Renders each example scene with a camera f-stop (``scenes/focus_pull.py``,
``scenes/showcase.py``) in this process (``hfrender.engine.render.render`` into a
``MemoryWriter``, as ``benchmarks/quality.py`` does) with ``--dof lens`` and with
``--dof depth`` three ways:

* ``depth``: the CPU backend's default, one defocus per window and lens group
  (``hfrender/backends/cpu/dof_window.py``; sub-frames whose circles of confusion differ
  by at most ``LENS_TOLERANCE_PX`` share a lens: ``hfrender/backends/cpu/dof_share.py``),
  fused in a child process beside the drawing (``--fusion-process auto``);
* ``depth-one-process``: the same fused in the drawing's process (``--fusion-process off``;
  the variants below too: they patch this process's fusion);
* ``equal-lenses``: the same with only equal lenses shared (the default before 2026-12-01:
  a focus pull is defocused per sub-frame);
* ``per-sub-frame``: the previous path, one fast defocus per sub-frame;
* ``mixed`` (an experiment): one defocus per window even where the lens changes between
  sub-frames (each sub-frame's classes from its own lens; no fallback).

Prints the median of ``--runs`` wall times (the variants run round robin), the ratios to
``lens``, and the PSNR (8-bit sRGB, whole clip and worst frame) of the window paths against
``per-sub-frame``.

    python benchmarks/dof_render.py [--size 320x180] [--samples 16] [--duration 1] [--runs 3]
                                    [--variants lens,depth,depth-one-process,equal-lenses,
                                               per-sub-frame,mixed]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import time
from pathlib import Path

import numpy as np

import hfrender.backends.cpu as cpu_backend
from hfrender.backends.cpu.blur import fuse_windows
from hfrender.backends.cpu.dof_window import fuse_windows_dof
from hfrender.config import RenderConfig, parse_size
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter

ROOT = Path(__file__).resolve().parent.parent
SCENES = (ROOT / "scenes" / "focus_pull.py", ROOT / "scenes" / "showcase.py")


def _per_sub_frame(frames, depth, weights, tf, out, lens):
    return fuse_windows(frames, weights, tf, out, cpu_backend._defocus_fn(depth, lens))


PATHS = {  # what CPUBackend.fuse runs for dof_method="fast"
    "depth": fuse_windows_dof,
    "equal-lenses": functools.partial(fuse_windows_dof, lens_tolerance=0.0),
    "per-sub-frame": _per_sub_frame,
    "mixed": functools.partial(fuse_windows_dof, group_lenses=False, max_moving=1.0),
}


@contextlib.contextmanager
def dof_path(name: str):
    saved = cpu_backend.fuse_windows_dof
    cpu_backend.fuse_windows_dof = PATHS[name]
    try:
        yield
    finally:
        cpu_backend.fuse_windows_dof = saved


def render_once(scene: Path, dof: str, args, fusion_process: str = "auto"
                ) -> tuple[np.ndarray, float]:
    config = RenderConfig(output="memory.mp4", size=parse_size(args.size),
                          samples=args.samples, duration=args.duration, dof=dof,
                          backend="cpu", quiet=True, fusion_process=fusion_process)
    sink = MemoryWriter()
    t0 = time.perf_counter()
    render(str(scene), config, writer=sink)
    return np.stack(sink.frames), time.perf_counter() - t0


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


VARIANTS = (("lens", "lens", "depth", "auto"), ("depth", "depth", "depth", "auto"),
            ("depth-one-process", "depth", "depth", "off"),
            ("equal-lenses", "depth", "equal-lenses", "off"),
            ("per-sub-frame", "depth", "per-sub-frame", "off"),
            ("mixed", "depth", "mixed", "off"))  # name, --dof, fusion path, --fusion-process
COMPARED = ("depth", "equal-lenses", "mixed")  # against per-sub-frame


def measure(scene: Path, args) -> dict[str, tuple[np.ndarray, float]]:
    """Each variant ``args.runs`` times, round robin (a busy machine's load hits all
    alike): its frames and median time."""
    times = {name: [] for name, *_ in VARIANTS if name in args.variants}
    frames: dict[str, np.ndarray] = {}
    for _ in range(args.runs):
        for name, dof, path, process in VARIANTS:
            if name not in args.variants:
                continue
            with dof_path(path):
                frames[name], seconds = render_once(scene, dof, args, process)
            times[name].append(seconds)
    return {name: (frames[name], statistics.median(times[name])) for name in times}


def report(scene: Path, results: dict[str, tuple[np.ndarray, float]]) -> None:
    lens_t = results["lens"][1]
    ref = results["per-sub-frame"][0] if "per-sub-frame" in results else None
    print(f"{scene.name}:")
    for name, (frames, seconds) in results.items():
        line = f"  {name:14s} {seconds:6.2f} s  {seconds / lens_t:5.2f}x lens"
        if name in COMPARED and ref is not None:
            worst = min(psnr(f, r) for f, r in zip(frames, ref, strict=True))
            line += (f"  PSNR vs per-sub-frame {psnr(frames, ref):6.2f} dB "
                     f"(worst frame {worst:6.2f} dB, max diff "
                     f"{int(np.abs(frames.astype(int) - ref).max())})")
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="320x180")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variants", type=lambda s: s.split(","),
                    default=[name for name, *_ in VARIANTS],
                    help="comma-separated; lens is every ratio's base")
    ap.add_argument("scenes", nargs="*", type=Path, default=list(SCENES))
    args = ap.parse_args()
    known = [name for name, *_ in VARIANTS]
    if "lens" not in args.variants or not set(args.variants) <= set(known):
        ap.error(f"--variants must name lens and any of {', '.join(known)}")
    for scene in args.scenes:
        report(scene, measure(scene, args))


if __name__ == "__main__":
    main()
