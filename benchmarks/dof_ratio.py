"""The fast depth of field's 64 px / 4 px ratio on a noisy machine: processes of one or
more checkouts of hfrender, taking turns, each timing 4 px and 64 px calls in turn on
``benchmarks/dof.py``'s 640x360 frame (medians of ``--rounds``). On a machine whose speed
drifts by a third within minutes, a before/after comparison means anything only when the
two codes alternate like this: each pair's processes run back to back (in turn first), and
each other checkout's times are also given as a ratio to this one's, pair by pair.

    python benchmarks/dof_ratio.py [--pairs 5] [--rounds 10] [--serial] [OTHER_CHECKOUT ...]

With no checkout named, this one alone. Each checkout's processes import its own
``hfrender`` (a git worktree of an older commit, say: ``git worktree add /tmp/old <rev>``).
``--serial`` runs the FFTs on the calling thread: the work itself, without the two threads'
overlap (1.3-1.5x at best on this 2-core virtual machine, and the noisiest part).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLURS = (4, 64)

# one process: the checkout's hfrender and its benchmarks/dof.py scene, the blurs in turn
CHILD = """
import sys, time, statistics
root, rounds, serial = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "serial"
sys.path[:0] = [root, root + "/benchmarks"]
import dof, hfrender as hf
assert hf.__file__.startswith(root), hf.__file__
if serial:  # each window's FFTs run where they are asked for
    from hfrender.backends.cpu import dof_fast
    dof_fast._Ops.later = lambda self, fn, *args: (lambda value=fn(*args): lambda: value)()
img, depth = dof.scene(360, 640)
calls = {b: (lambda s=dof.lens_for(depth, b).f_stop: hf.depth_of_field(
    img, depth, focus_distance=dof.FOCUS, f_stop=s, backend="cpu")) for b in (4, 64)}
for call in calls.values():
    call()
times = {b: [] for b in calls}
for _ in range(rounds):
    for b, call in calls.items():
        t = time.perf_counter(); call(); times[b].append(time.perf_counter() - t)
print(" ".join(str(statistics.median(times[b])) for b in calls))
"""


def one(root: Path, rounds: int, serial: bool) -> tuple[float, float]:
    """(4 px s, 64 px s): medians of one process of the checkout at ``root``."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(rounds),
                          "serial" if serial else "threads"], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkouts", nargs="*", type=Path, help="other checkouts to alternate with")
    p.add_argument("--pairs", type=int, default=5, help="processes of each checkout")
    p.add_argument("--rounds", type=int, default=10, help="calls at each blur a process")
    p.add_argument("--serial", action="store_true", help="the FFTs on the calling thread")
    args = p.parse_args()
    roots = [ROOT, *(c.resolve() for c in args.checkouts)]
    for root in roots:
        if not (root / "hfrender" / "__init__.py").is_file():
            sys.exit(f"checkout {root} has no hfrender/__init__.py: name a checkout of hfrender")
    runs: dict[Path, list[tuple[float, float]]] = {r: [] for r in roots}
    for k in range(args.pairs):
        for root in roots if k % 2 == 0 else roots[::-1]:
            t4, t64 = one(root, args.rounds, args.serial)
            runs[root].append((t4, t64))
            print(f"  {k + 1}/{args.pairs} {root}: 4 px {t4 * 1e3:6.1f} ms, 64 px "
                  f"{t64 * 1e3:6.1f} ms, {t64 / t4:.2f}x", flush=True)
    mode = "FFTs on the calling thread" if args.serial else "FFTs on their own thread"
    for root, rows in runs.items():
        ratios = sorted(b / a for a, b in rows)
        print(f"{root} ({mode}): 4 px {statistics.median(a for a, _ in rows) * 1e3:.1f} ms, "
              f"64 px {statistics.median(b for _, b in rows) * 1e3:.1f} ms; 64 px / 4 px "
              f"median {statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}; "
              "goal <= 2)")
        if root != ROOT:
            for i, blur in enumerate(("4 px", "64 px")):
                pair = sorted(b[i] / a[i] for a, b in zip(runs[ROOT], rows, strict=True))
                print(f"  its time / this checkout's, pair by pair, {blur}: median "
                      f"{statistics.median(pair):.3f} ({pair[0]:.3f}-{pair[-1]:.3f})")

if __name__ == "__main__":
    main()
