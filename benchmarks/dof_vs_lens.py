"""`--dof depth` (fast and exact) against `--dof lens` on rendered frames: PSNR and light.

``--dof lens`` draws a frame through ``--samples`` lens positions: what a lens sees, past
every edge (the reference). ``--dof depth`` blurs the same sub-frames from their depth
pass. Each frame is rendered as a still (``hfrender still``, a process each, EXR in linear
light, ``--hdr on``) by the checkout's ``hfrender`` and by any other checkouts named
(``git worktree add /tmp/old <rev>``: the same frames before a change), and compared with
the lens render of this checkout: PSNR of the 8-bit sRGB pictures, and the light (the sum
of linear RGB) over the lens's.

    python benchmarks/dof_vs_lens.py [--size 320x180] [--samples 256] [--methods fast,exact]
                                     [--frames 0,3] [OTHER_CHECKOUT ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FRAMES = [  # (scene, time in seconds)
    ("scenes/focus_pull.py", 0.0), ("scenes/focus_pull.py", 1.5), ("scenes/focus_pull.py", 2.9),
    ("scenes/showcase.py", 0.5), ("scenes/showcase.py", 2.0), ("scenes/toy_turntable.py", 1.0),
    ("scenes/night_lamps.py", 0.0), ("benchmarks/scenes/bokeh.py", 0.0),
    ("benchmarks/scenes/card_over_sky.py", 0.0),
]


def still(root: Path, scene: str, t: float, out: Path, args: argparse.Namespace,
          dof: list[str]) -> np.ndarray:
    """One frame rendered by the checkout at ``root`` (linear RGB, float64)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    subprocess.run([sys.executable, "-m", "hfrender", "still", str(ROOT / scene), "-t", str(t),
                    "-o", str(out), "--size", args.size, "--samples", str(args.samples),
                    "--hdr", "on", "--quiet", *dof], check=True, env=env, cwd=root)
    import OpenEXR

    with OpenEXR.File(str(out)) as f:
        rgb = next(iter(f.channels().values())).pixels
    return np.asarray(rgb, np.float64)[..., :3]


def srgb8(lin: np.ndarray) -> np.ndarray:
    x = np.clip(lin, 0.0, 1.0)
    return np.round(255 * np.where(x <= 0.0031308, 12.92 * x, 1.055 * x ** (1 / 2.4) - 0.055))


def psnr(a: np.ndarray, ref: np.ndarray) -> float:
    mse = float(np.mean((srgb8(a) - srgb8(ref)) ** 2))
    return 10 * np.log10(255.0 ** 2 / mse) if mse > 0 else float("inf")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkouts", nargs="*", type=Path, help="other checkouts to compare")
    p.add_argument("--size", default="320x180")
    p.add_argument("--samples", type=int, default=256, help="sub-frames (lens positions)")
    p.add_argument("--frames", default="", help="indices into FRAMES, comma-separated")
    p.add_argument("--methods", default="fast", help="fast,exact: the exact gather runs per "
                   "sub-frame, minutes a frame")
    args = p.parse_args()
    roots = [ROOT, *(c.resolve() for c in args.checkouts)]
    chosen = [int(i) for i in args.frames.split(",") if i] or range(len(FRAMES))
    with tempfile.TemporaryDirectory() as tmp:
        for i in chosen:
            scene, t = FRAMES[i]
            lens = still(ROOT, scene, t, Path(tmp) / "lens.exr", args, ["--dof", "lens"])
            print(f"{scene} at {t} s ({args.size}, {args.samples} sub-frames):", flush=True)
            for root in roots:
                for method in args.methods.split(","):
                    got = still(root, scene, t, Path(tmp) / "depth.exr", args,
                                ["--dof", "depth", "--dof-method", method])
                    print(f"  {root.name} {method:5s}: {psnr(got, lens):6.2f} dB, light "
                          f"{got.sum() / lens.sum():.4f}x the lens's", flush=True)


if __name__ == "__main__":
    main()
