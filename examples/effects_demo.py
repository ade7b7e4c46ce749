"""The demo: a small ray-traced animation, made cinematic by hfrender's effects.

A NumPy ray caster (standing in for any renderer that can output color and a Z pass)
draws three spheres in front of a checkered wall, 8 times per output frame across a
180-degree shutter. hfrender packs the sub-frames into hyperframes and fuses each one in a
single pass: depth of field on every sub-frame from its depth, then the shutter-weighted
sum (motion blur), in linear light.

    python examples/effects_demo.py -o demo.gif --still demo.png
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import hfrender as hf

FPS, SAMPLES, SHUTTER_DEG = 24, 8, 180.0
FOCAL_MM, SENSOR_MM = 50.0, 36.0
WALL_Z = 6.0
LENS = hf.Lens(focus_distance=2.5, f_stop=1.2, focal_length_mm=FOCAL_MM,
               sensor_width_mm=SENSOR_MM)


def spheres_at(t: float) -> list[tuple[np.ndarray, float, np.ndarray]]:
    """(centre, radius, colour) of each sphere at time t: all state from t alone."""
    return [
        (np.array([-0.26, -0.12, 1.2]), 0.07, np.array([0.95, 0.35, 0.08])),  # near: defocused
        (np.array([0.55 * math.sin(5.0 * t), -0.05, 2.5]), 0.2,
         np.array([0.15, 0.55, 1.0])),  # in focus, fast: motion blur
        (np.array([0.75, 0.3, 4.6]), 0.45, np.array([0.3, 0.9, 0.35])),  # far: defocused
    ]


def render(t: float, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Linear-light RGB (H, W, 3) float32 and Z depth (H, W) metres of the scene at t."""
    px = (np.arange(width) + 0.5 - width / 2) / width * SENSOR_MM / FOCAL_MM
    py = -(np.arange(height) + 0.5 - height / 2) / width * SENSOR_MM / FOCAL_MM
    dx, dy = np.meshgrid(px, py)
    dirs = np.stack([dx, dy, np.ones_like(dx)], -1)  # z component 1: ray parameter = Z depth
    # the wall: a checkerboard at z = WALL_Z, lit by a soft gradient
    z = np.full(dx.shape, WALL_Z)
    u, v = dx * WALL_Z, dy * WALL_Z
    checker = ((np.floor(u * 2.5) + np.floor(v * 2.5)) % 2)[..., None]
    color = (0.05 + 0.55 * checker) * np.array([1.0, 0.92, 0.8]) * (0.6 + 0.2 * (v[..., None] + 1))
    light = np.array([-0.5, 0.7, -0.6]) / np.linalg.norm([-0.5, 0.7, -0.6])
    for centre, radius, albedo in spheres_at(t):
        b = dirs @ centre
        a = (dirs * dirs).sum(-1)
        disc = b * b - a * (centre @ centre - radius * radius)
        hit_t = np.where(disc > 0, (b - np.sqrt(np.maximum(disc, 0))) / a, np.inf)
        hit = hit_t < z
        z = np.where(hit, hit_t, z)
        with np.errstate(invalid="ignore"):  # rays that miss: inf * 0
            normal = (dirs * hit_t[..., None] - centre) / radius
            shade = 0.15 + 0.85 * np.clip(normal @ light, 0, 1)[..., None]
        color = np.where(hit[..., None], albedo * shade, color)
    return color.astype(np.float32), z.astype(np.float32)


def sample_times(frame: int) -> np.ndarray:
    """Stratified sub-frame times of one output frame, shutter centred on frame / FPS."""
    open_s = SHUTTER_DEG / 360.0 / FPS
    return frame / FPS + (np.arange(SAMPLES) + 0.5) / SAMPLES * open_s - open_s / 2


def run(frames: int, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """(with effects, without effects) as float32 linear (frames, H, W, 3) arrays."""
    pool = hf.HyperFramePool((height, width, 3), np.float32, capacity=4 * SAMPLES, depth=True)
    builder = hf.HyperFrameBuilder(pool)
    weights = hf.curve_weights("box", SAMPLES)
    fused, sharp = [], []

    def fuse(hyper: hf.HyperFrame) -> None:
        _, windows = hf.sliding_in_span(weights, SAMPLES, hyper.first_index, hyper.halo,
                                        hyper.frame_count)
        fused.append(hf.fuse(hyper, windows, lens=LENS))
        hyper.release()

    for k in range(frames):
        sharp.append(render(k / FPS, width, height)[0])
        for t in sample_times(k):
            slot = builder.reserve(t)  # views of the next frame's colour and depth planes
            slot.color[...], slot.depth[...] = render(t, width, height)
            done = builder.commit()
            if done is not None:
                fuse(done)
    last = builder.flush_remaining()
    if last is not None:
        fuse(last)
    return np.concatenate(fused), np.stack(sharp)


def to_srgb8(lin: np.ndarray) -> np.ndarray:
    return hf.from_linear(np.ascontiguousarray(lin, np.float32), np.uint8)


def side_by_side(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The two frames next to each other, each labelled."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(np.concatenate([before, after], axis=1))
    draw = ImageDraw.Draw(img)
    w = before.shape[1]
    for x, text in ((6, "pinhole lens, instant shutter"),
                    (w + 6, f"hfrender: f/{LENS.f_stop:g}, {SHUTTER_DEG:g} deg shutter")):
        draw.rectangle((x - 3, 4, x + 6 * len(text) + 3, 17), fill=(0, 0, 0))
        draw.text((x, 5), text, fill=(255, 255, 255))
    return np.asarray(img)


def main(argv: list[str] | None = None) -> int:
    import imageio.v3 as iio

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default="demo.gif", help="animated GIF to write")
    p.add_argument("--still", default=None, help="PNG: one frame without | with the effects")
    p.add_argument("--frames", type=int, default=24)
    p.add_argument("--size", default="320x180", help="WxH")
    args = p.parse_args(argv)
    width, height = (int(s) for s in args.size.split("x"))
    t0 = time.perf_counter()
    fused, sharp = run(args.frames, width, height)
    seconds = time.perf_counter() - t0
    iio.imwrite(args.output, to_srgb8(fused), duration=1000 / FPS, loop=0)
    if args.still:
        iio.imwrite(args.still, side_by_side(to_srgb8(sharp[0]), to_srgb8(fused[0])))
    print(f"wrote {args.output}: {len(fused)} frames {width}x{height}, {SAMPLES} samples, "
          f"{seconds:.1f} s ({len(fused) / seconds:.2f} fps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
