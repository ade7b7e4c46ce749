"""What a render's time grows with: seconds against ``--samples`` and against picture size.

Runs ``hfrender render`` as a user does (a fresh process each time, to mp4) on two example
scenes: at one size with each count of sub-frames, and at 8 samples with each size. The
runs go round robin, ``--runs`` times; the figure is the median wall time of the whole
command (start-up, set-up and encoding included: what a user waits for). Prints a table and
draws ``docs/images/render_costs.png`` (matplotlib: ``pip install 'hfrender[plot]'``).

    python benchmarks/render_costs.py [--scenes showcase.py,propeller.py] [--runs 3]
        [--samples 2,4,8,16,32] [--size 320x180] [--sizes 320x180,640x360,1280x720]
        [--duration 0.5] [-o docs/images/render_costs.png]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "render_costs.png"
NEEDS = "render_costs.py draws with matplotlib: pip install 'hfrender[plot]'"


def pyplot():
    """matplotlib's pyplot drawing to files, or None (the caller says what to install)."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def seconds(scene: str, size: str, samples: int, duration: float, out: Path) -> float:
    """Wall seconds of one ``hfrender render`` command."""
    cmd = [sys.executable, "-m", "hfrender", "render", str(ROOT / "scenes" / scene),
           "--size", size, "--samples", str(samples), "--duration", str(duration),
           "-o", str(out), "-q"]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[2:])} failed: {done.stderr.strip()}")
    return took


def cases(args: argparse.Namespace) -> list[tuple[str, str, int]]:
    """(scene, size, samples) to run: the samples sweep, then the sizes at 8 samples."""
    out = [(s, args.size, n) for s in args.scenes for n in args.samples]
    out += [(s, size, 8) for s in args.scenes for size in args.sizes
            if (s, size, 8) not in out]
    return out


def measure(args: argparse.Namespace) -> dict[tuple[str, str, int], float]:
    """Median seconds of each case, the cases run round robin ``args.runs`` times."""
    todo = cases(args)
    times: dict[tuple[str, str, int], list[float]] = {c: [] for c in todo}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mp4"
        seconds(args.scenes[0], args.size, 2, args.duration, out)  # warm the caches
        for _ in range(args.runs):
            for case in todo:
                times[case].append(seconds(*case, args.duration, out))
    for (scene, size, n), ts in times.items():
        print(f"{scene:14s} {size:>9s} samples {n:3d}: {statistics.median(ts):6.2f} s "
              f"(runs {', '.join(f'{t:.2f}' for t in ts)})")
    return {c: statistics.median(ts) for c, ts in times.items()}


def draw(plt, got: dict[tuple[str, str, int], float], args: argparse.Namespace) -> None:
    fig, (by_n, by_px) = plt.subplots(1, 2, figsize=(9, 3.6))
    frames = round(args.duration * 30)
    for scene in args.scenes:
        name = scene.rsplit(".", 1)[0]
        by_n.plot(args.samples, [got[(scene, args.size, n)] for n in args.samples],
                  marker="o", label=name)
        px = [int(w) * int(h) / 1e6 for w, h in (s.split("x") for s in args.sizes)]
        by_px.plot(px, [got[(scene, s, 8)] for s in args.sizes], marker="o", label=name)
    by_n.set(xlabel="--samples (sub-frames a frame)", ylabel="seconds (whole command)",
             title=f"{args.size}, {frames} frames")
    by_px.set(xlabel="megapixels (--size)", title=f"8 samples, {frames} frames")
    for ax in (by_n, by_px):
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    for size, x in zip(args.sizes, px, strict=True):
        by_px.annotate(size, (x, 0), textcoords="offset points", xytext=(0, 4),
                       ha="center", fontsize=7)
    fig.suptitle("hfrender render: 2-vCPU VM, llvmpipe, no GPU (median of "
                 f"{args.runs})", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", default="showcase.py,propeller.py",
                    type=lambda s: s.split(","))
    ap.add_argument("--samples", default="2,4,8,16,32",
                    type=lambda s: [int(n) for n in s.split(",")])
    ap.add_argument("--size", default="320x180")
    ap.add_argument("--sizes", default="320x180,640x360,1280x720",
                    type=lambda s: s.split(","))
    ap.add_argument("--duration", type=float, default=0.5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-o", "--output", default=str(OUT))
    args = ap.parse_args(argv)
    plt = pyplot()
    if plt is None:
        print(NEEDS, file=sys.stderr)
        return 2
    draw(plt, measure(args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
