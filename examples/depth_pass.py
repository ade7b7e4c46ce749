"""Depth of field from another renderer's output: a colour image and its Z pass.

Blender, Unreal or a game engine can write a depth pass next to the beauty pass (EXR,
16-bit PNG, NumPy). Here a small scene is made up in NumPy: a wall at 8 m, a post at 2 m
(in focus) and a leaf at 0.6 m, shot with a 50 mm f/2 lens focused on the post.

    python examples/depth_pass.py [-o dof.png]
"""

from __future__ import annotations

import argparse

import numpy as np

import hfrender as hf


def scene(width: int = 192, height: int = 108) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) uint8 sRGB beauty pass and (H, W) float32 depth in metres."""
    y, x = np.mgrid[0:height, 0:width]
    stripes = ((x // 8 + y // 8) % 2).astype(np.uint8)
    color = np.stack([60 + 120 * stripes, 80 + 100 * stripes, 140 + 60 * stripes], -1)
    depth = np.full((height, width), 8.0, np.float32)
    post = (x > 90) & (x < 104)
    color[post] = (230, 200, 40)
    depth[post] = 2.0
    leaf = (x - 40) ** 2 + (y - 70) ** 2 < 18 ** 2
    color[leaf] = (40, 200, 60)
    depth[leaf] = 0.6
    return color.astype(np.uint8), depth


def main(argv: list[str] | None = None) -> np.ndarray:
    p = argparse.ArgumentParser(description="depth of field from a depth pass")
    p.add_argument("-o", "--output", help="PNG to write (beauty | with depth of field)")
    args = p.parse_args(argv)
    color, depth = scene()
    out = hf.depth_of_field(color, depth, focus_distance=2.0, f_stop=2.0,
                            sensor_width_mm=12.0)  # a small sensor for a small image
    lens = hf.Lens(2.0, 2.0, sensor_width_mm=12.0)
    coc = lens.coc_px(np.array([0.6, 2.0, 8.0]), color.shape[1])
    print("circle of confusion (px) at 0.6 m, 2 m, 8 m: " + ", ".join(f"{c:.1f}" for c in coc))
    if args.output:
        import imageio.v3 as iio

        iio.imwrite(args.output, np.concatenate([color, out], axis=1))
        print(f"wrote {args.output}")
    return out


if __name__ == "__main__":
    main()
