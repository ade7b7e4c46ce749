"""Depth of field from a depth estimator's disparity map (``depth_kind="disparity"``, ``fx
--depth-kind disparity``) against the same frame defocused with its true metres.

``benchmarks/dof.py``'s frame (640x360: a far wall at 8 m, a red disk at 0.6 m, a blue box
and a 1 px magenta line in focus at 1 m, a floor) is defocused by ``hf.depth_of_field``
from its true metres (the reference: a 24 px largest blur, focused at 1 m), then from
disparity maps ``1 / z`` as an estimator would give them: exact; with its edges softened
(a Gaussian of ``--soft`` px: estimators blur edges over a few pixels) and noise
(``--noise``, of the map's range; seeded); a quarter-size map (4x4 averages, noise)
scaled up as ``--depth-resize`` does; and the soft map through the exact method or
smoothed or widened before. Prints, against the reference, the PSNR (linear light, peak 1)
and at two foreground edges (the blue box in focus against the far wall, the red disk
before the focus) the halo: how many columns across differ by over 0.02 on average, the
largest difference and the mean signed one (brightness), and how much of the thin line's
contrast is left. Writes the frame | the soft noisy map in grey (near is white) | its
result side by side to ``docs/images/fx_disparity.png``.

    python benchmarks/dof_disparity.py [--soft 2] [--noise 0.01]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np

import hfrender as hf
from hfrender.io.depth_scale import resample, taps

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import dof  # noqa: E402 - beside this script

PICTURE = dof.ROOT / "docs" / "images" / "fx_disparity.png"
H, W, BLUR = 360, 640, 24


def gaussian(a: np.ndarray, sigma: float) -> np.ndarray:
    """``a`` (H, W) blurred by a Gaussian of ``sigma`` px (edges repeated)."""
    r = int(3 * sigma)
    k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma * sigma))
    k /= k.sum()
    p = np.pad(a, r, mode="edge").astype(np.float64)
    p = np.apply_along_axis(np.convolve, 1, p, k, "valid")
    return np.apply_along_axis(np.convolve, 0, p, k, "valid").astype(np.float32)


def window(a: np.ndarray, r: int, op) -> np.ndarray:  # noqa: ANN001 - np.max, np.median
    """``op`` over each pixel's (2r + 1)^2 neighbours."""
    p = np.pad(a, r, mode="edge")
    return op(np.stack([p[r + dy:r + dy + H, r + dx:r + dx + W] for dy in range(-r, r + 1)
                        for dx in range(-r, r + 1)]), axis=0).astype(np.float32)


def quarter(d: np.ndarray, noise: np.ndarray, how: str) -> np.ndarray:
    """An estimator's quarter-size map (4x4 averages, noise) scaled up as fx's
    ``--depth-resize`` does: its inverse (the stand-in metres) resampled as disparity."""
    small = d.reshape(H // 4, 4, W // 4, 4).mean((1, 3)) + noise[::4, ::4]
    rows, cols = taps(H // 4, H, how), taps(W // 4, W, how)
    inverse = resample(1 / small.astype(np.float32), rows, cols)
    return (1 / inverse).astype(np.float32)


def halo(out: np.ndarray, ref: np.ndarray, rows: slice, cols: slice) -> str:
    """Columns across an edge differing by over 0.02 on average, the largest and the mean
    signed difference."""
    e = out[rows, cols] - ref[rows, cols]
    across = np.abs(e).max(-1).mean(0)
    wide = across > 0.02
    signed = float(e.mean(-1).mean(0)[wide].mean()) if wide.any() else 0.0
    return f"{int(wide.sum()):2d} px, largest {across.max():.3f}, signed {signed:+.3f}"


def line_left(out: np.ndarray, ref: np.ndarray) -> float:
    """The share of the frame's 1 px line's contrast against its neighbours left."""
    x, rows = W // 2, slice(100, 200)

    def contrast(a: np.ndarray) -> float:
        return float(np.abs(a[rows, x] - (a[rows, x - 4] + a[rows, x + 4]) / 2).mean())

    return contrast(out) / contrast(ref)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--soft", type=float, default=2.0, help="edge softness, Gaussian px")
    p.add_argument("--noise", type=float, default=0.01, help="noise, of the map's range")
    args = p.parse_args()
    img, z = dof.scene(H, W)
    d = (1 / z).astype(np.float32)
    ref = hf.depth_of_field(img, z, focus_distance=dof.FOCUS,
                            f_stop=dof.lens_for(z, BLUR).f_stop, backend="cpu")
    rng = np.random.default_rng(7)
    noise = rng.normal(0, args.noise * float(d.max() - d.min()), d.shape).astype(np.float32)
    smooth = gaussian(d, args.soft)
    soft = smooth + noise
    maps = {"exact 1/z": (d, "fast"), "noise alone": (d + noise, "fast"),
            f"soft {args.soft:g} px": (smooth, "fast"),
            f"soft {args.soft:g} px + noise": (soft, "fast"),
            "  the same, exact method": (soft, "exact"),
            "  median 5x5 before": (window(soft, 2, np.median), "fast"),
            "  max 5x5 before (near grown)": (window(soft, 2, np.max), "fast"),
            "quarter size, --depth-resize nearest": (quarter(d, noise, "nearest"), "fast"),
            "quarter size, --depth-resize linear": (quarter(d, noise, "linear"), "fast")}
    box = (slice(int(H * 0.31), int(H * 0.49)), slice(int(W * 0.66), int(W * 0.74)))
    disk = (slice(int(H * 0.42), int(H * 0.48)), slice(int(W * 0.34), int(W * 0.45)))
    print(f"{W}x{H}, largest blur {BLUR} px, focused at {dof.FOCUS:g} m; against the true "
          "metres' (halo: columns over 0.02, largest, signed mean there):")
    results = {}
    for name, (m, method) in maps.items():
        out = results[name] = hf.depth_of_field(
            img, m, depth_kind="disparity", focus_disparity=1 / dof.FOCUS, max_blur=BLUR,
            method=method, backend="cpu")
        print(f"  {name:38s} PSNR {dof.psnr(out, ref):5.1f} dB | box in focus: "
              f"{halo(out, ref, *box)} | near disk: {halo(out, ref, *disk)} | line kept "
              f"{line_left(out, ref):4.0%}")
    grey = np.repeat(((soft - soft.min()) / (soft.max() - soft.min()))[..., None], 3, -1)
    out = results[f"soft {args.soft:g} px + noise"]
    part = (slice(50, 250), slice(100, 500))  # the disk, the line, the box (a smaller file)
    strip = np.concatenate([hf.from_linear(np.clip(img, 0, 1), np.uint8)[part],
                            np.round(grey * 255).astype(np.uint8)[part],
                            hf.from_linear(np.clip(out, 0, 1), np.uint8)[part]], axis=1)
    iio.imwrite(PICTURE, strip)
    print(f"wrote {PICTURE.relative_to(dof.ROOT)} (frame | soft noisy disparity | result, "
          "400x200 of each)")


if __name__ == "__main__":
    main()
