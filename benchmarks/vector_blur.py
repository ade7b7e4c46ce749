"""``hf.vector_blur``: motion blur in post from one sharp frame and its motion vectors.

Draws a frame (a checkered wall at 8 m; a yellow card 3 m away moving 24 px a frame right,
a red disk 2 m away moving 16 px a frame up and to the left, both in front of it and
crossing), blurs it at 180 degrees with its depth, and writes sharp | vectors (hue: the
direction, brightness: the speed) | blurred to ``docs/images/vector_blur.png``. Then times
``hf.vector_blur`` on the CPU on the same frame drawn at 1920x1080 (the moving pixels 7% of
it), the median of ``--runs``.

    python benchmarks/vector_blur.py [--runs 5]
"""

from __future__ import annotations

import argparse
import colorsys
import statistics
import time
from pathlib import Path

import imageio.v3 as iio
import numpy as np

import hfrender as hf

PICTURE = Path(__file__).resolve().parents[1] / "docs" / "images" / "vector_blur.png"


def frame(w: int, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frame (linear float32), its velocity (pixels a frame, y down) and depth, at
    ``w`` x ``h`` (the motion scaled with the width, as a render's would be)."""
    s = w / 640
    y, x = np.mgrid[0:h, 0:w]
    cells = ((x // int(40 * s)) + (y // int(40 * s))) % 2
    img = np.where(cells[..., None], np.float32([0.18, 0.2, 0.25]), np.float32([0.05, 0.06,
                                                                                0.08]))
    vel = np.zeros((h, w, 2), np.float32)
    depth = np.full((h, w), 8.0, np.float32)
    card = (abs(x - 240 * s) < 70 * s) & (abs(y - 150 * s) < 45 * s)
    disk = (x - 330 * s) ** 2 + (y - 200 * s) ** 2 < (60 * s) ** 2
    for mask, colour, v, z in ((card, (1.0, 0.8, 0.1), (24, 0), 3.0),
                               (disk, (0.9, 0.1, 0.05), (-11.3, -11.3), 2.0)):
        img[mask], vel[mask], depth[mask] = colour, np.float32(v) * np.float32(s), z
    return img.astype(np.float32), vel, depth


def vectors_picture(vel: np.ndarray) -> np.ndarray:
    """Velocity as colour: hue its direction, value its speed (the largest: 1)."""
    angle = (np.arctan2(-vel[..., 1], vel[..., 0]) / (2 * np.pi)) % 1.0
    speed = np.hypot(vel[..., 0], vel[..., 1])
    value = speed / max(float(speed.max()), 1e-9)
    rgb = np.vectorize(colorsys.hsv_to_rgb)(angle, np.where(speed > 0, 0.8, 0.0), value)
    return hf.to_linear((np.stack(rgb, -1) * 255).round().astype(np.uint8))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    img, vel, depth = frame(640, 360)
    out = hf.vector_blur(img, vel, depth, shutter=180, backend="cpu")
    row = np.concatenate([img, vectors_picture(vel), out], axis=1)
    iio.imwrite(PICTURE, hf.from_linear(row))
    print(f"wrote {PICTURE}; energy {out.sum() / img.sum() - 1:+.2e}")
    big = frame(1920, 1080)
    moving = float((np.hypot(big[1][..., 0], big[1][..., 1]) > 0).mean())
    times, cpu = [], []
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        hf.vector_blur(*big, shutter=180, backend="cpu")
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    fastest = float(np.hypot(big[1][..., 0], big[1][..., 1]).max())
    print(f"1920x1080, {moving:.0%} of it moving up to {fastest:.0f} px a frame: median "
          f"{statistics.median(times):.2f} s ({statistics.median(cpu):.2f} s of CPU) of "
          f"{args.runs} ({', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
