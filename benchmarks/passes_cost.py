"""What ``render --passes`` costs: ``hfrender render`` of one scene into an EXR sequence,
plain, with ``--passes depth`` and with ``--passes depth,velocity``, each a fresh process
(what a user waits for), round robin ``--runs`` times; the medians (and ranges) of the wall
and CPU times. Given several checkouts (``--checkouts old,new``: folders holding hfrender,
e.g. a ``git worktree add`` of an older commit), each runs with its own code in the same
rounds, alternating, so that the machine's load falls on all alike.

    python benchmarks/passes_cost.py [--scene scenes/orbit.py] [--size 320x180]
        [--samples 16] [--frames 0:60] [--msaa auto] [--runs 5] [--checkouts DIR,DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSES = {"plain": [], "depth": ["--passes", "depth"],
          "depth,velocity": ["--passes", "depth,velocity"]}


def timed(checkout: Path, args: list[str], out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``hfrender render`` with ``checkout``'s code."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hfrender", "render", *args, "-o",
                    str(out / "%04d.exr"), "--quiet"], env=env, check=True, cwd=out.parent)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default=str(ROOT / "scenes" / "orbit.py"))
    ap.add_argument("--size", default="320x180")
    ap.add_argument("--samples", default="16")
    ap.add_argument("--frames", default="0:60")
    ap.add_argument("--msaa", default="auto")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--checkouts", default=str(ROOT))
    a = ap.parse_args(argv)
    checkouts = [Path(c).resolve() for c in a.checkouts.split(",")]
    common = [str(Path(a.scene).resolve()), "--size", a.size, "--samples", a.samples,
              "--frames", a.frames, "--msaa", a.msaa]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(a.runs):
            for name, more in PASSES.items():
                for checkout in checkouts:
                    out = Path(tmp) / f"{run}_{len(times)}"
                    times.setdefault((name, str(checkout)), []).append(
                        timed(checkout, common + more, out))
    print(f"{Path(a.scene).name} {a.size}, {a.samples} samples, --msaa {a.msaa}, frames "
          f"{a.frames}, {a.runs} runs: median wall (range), median CPU")
    for (name, checkout), got in times.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        print(f"  {name:15s} {checkout:30s} {statistics.median(walls):6.2f} s "
              f"({min(walls):.2f}-{max(walls):.2f})  CPU {statistics.median(cpus):6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
