"""Whether the reconstruction's outlier rule (``recon_fast.outliers``: at most 0.1% of a
sub-frame's moving pixels, each over 4 times faster than every other one and moving over
64 px in the shutter) fires in a normal ``hfrender render --reconstruct on`` of the example
scenes: each scene rendered on the CPU backend (fusion in this process), every sub-frame's
moving pixels and outliers counted as the reconstruction finds them.

    python benchmarks/recon_outliers.py [--size 640x360] [--duration 2] [scenes/x.py ...]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import hfrender.backends.cpu.reconstruct as cpu_rc
from hfrender.cli import main

ROOT = Path(__file__).resolve().parents[1]


def counted(scene: Path, size: str, duration: float | None, out: Path) -> dict:
    """Render ``scene``; per sub-frame looked at: (moving pixels, outliers, fastest px/s)."""
    seen: list[tuple[int, int, float]] = []
    real = cpu_rc.outliers

    def spy(xp, velocity, moving, shutter):  # noqa: ANN001, ANN202 - recon_fast.outliers'
        fast, rest = real(xp, velocity, moving, shutter)
        speed = float(np.hypot(velocity[..., 0], velocity[..., 1]).max())
        seen.append((int(moving.sum()), int(len(fast)), speed * shutter))
        return fast, rest

    cpu_rc.outliers = spy
    args = ["render", str(scene), "-o", str(out), "--size", size, "--reconstruct", "on",
            "--backend", "cpu", "--fusion-process", "off", "--workers", "1", "-q"]
    if duration is not None:
        args += ["--duration", str(duration)]
    t0 = time.perf_counter()
    try:
        code = main(args)
    finally:
        cpu_rc.outliers = real
    return {"code": code, "seconds": time.perf_counter() - t0, "seen": seen}


def report(name: str, got: dict) -> None:
    seen = got["seen"]
    moving = [s for s in seen if s[0]]
    hit = [s for s in seen if s[1]]
    most = max((s[1] for s in hit), default=0)
    fastest = max((s[2] for s in seen), default=0.0)
    print(f"{name}: exit {got['code']}, {got['seconds']:.0f} s; {len(seen)} sub-frames "
          f"reconstructed, {len(moving)} with motion, {len(hit)} with outliers "
          f"({sum(s[1] for s in hit)} pixels, at most {most} in one; moving pixels in "
          f"those: {', '.join(str(s[0]) for s in hit[:6]) or '-'}); fastest "
          f"{fastest:.0f} px over a shutter", flush=True)


def run() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenes", nargs="*", type=Path)
    p.add_argument("--size", default="640x360")
    p.add_argument("--duration", type=float, default=None,
                   help="seconds of each (default: the scene's own)")
    args = p.parse_args()
    scenes = args.scenes or sorted((ROOT / "scenes").glob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        for scene in scenes:
            out = Path(tmp) / scene.stem / "%04d.png"  # (a transparent scene's alpha kept)
            report(scene.stem, counted(scene, args.size, args.duration, out))


if __name__ == "__main__":
    run()
