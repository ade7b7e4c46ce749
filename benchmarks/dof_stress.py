"""Where the fast depth of field parts ways with the exact gather: cases outside
``benchmarks/dof.py``'s frame, against independent models, in one run (a DoF audit's
findings, kept measurable).

1. Highlights on a slanted surface: 15 points of 100x white on a wall receding from 1 to
   10 m (85 mm f/1.4, focused at 2 m, 200x120). A source between its layer's two disks
   splits its light between them (a core and a ring out to the larger disk), but for the
   highlights, which go with their own disks (``hfrender/dof_splats.py``). Prints PSNR
   (fast vs exact, peak 1) and, for one point, the pixels its light reaches against the
   thin-lens disk and how flat its disk is (max / min: 1 for a lens's; on a slope neither
   method is, each pixel's sums renormalised over what it sees).
2. The same highlights on planes (the layers' own case): what the method gives where no
   source is split.

    python benchmarks/dof_stress.py
"""

from __future__ import annotations

import numpy as np

import hfrender as hf

H, W = 120, 200
LENS = dict(focus_distance=2.0, f_stop=1.4, focal_length_mm=85.0)


def psnr(test: np.ndarray, ref: np.ndarray) -> float:
    mse = float(np.mean((test.astype(np.float64) - ref) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(1.0 / mse)


def thin_lens_coc_px(depth: float) -> float:
    """The circle of confusion's diameter in pixels (36 mm sensor across W)."""
    f = LENS["focal_length_mm"] / 1000
    s1, aperture = LENS["focus_distance"], f / LENS["f_stop"]
    return aperture * abs(depth - s1) / depth * f / (s1 - f) * 1000 / 36 * W


def highlights(depth: np.ndarray, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((H, W, 3), 0.1, np.float32)
    ys, xs = rng.integers(20, H - 20, 15), rng.integers(20, W - 20, 15)
    img[ys, xs] = 100.0
    return img


def reach(depth: np.ndarray, method: str) -> tuple[int, float, float]:
    """Pixels one point's light reaches (over the background's own result), the thin-lens
    disk's area, and the lit pixels' max / min."""
    point = np.full((H, W, 3), 0.1, np.float32)
    point[60, 120] = 1000.0
    base = hf.depth_of_field(np.full((H, W, 3), 0.1, np.float32), depth, **LENS,
                             method=method)
    lit = hf.depth_of_field(point, depth, **LENS, method=method) - base
    r = thin_lens_coc_px(float(depth[60, 120])) / 2
    where = np.abs(lit[..., 0]) > 1e-3
    inside = lit[..., 0][where]
    return int(where.sum()), np.pi * r * r, float(inside.max() / inside.min())


def main() -> None:
    xx = np.mgrid[:H, :W][1]
    ramp = (1 + 9 * xx / W).astype(np.float32)
    planes = np.where(xx < W // 2, 1.2, 6.0).astype(np.float32)
    for name, depth in (("slanted wall 1-10 m", ramp), ("two planes 1.2 / 6 m", planes)):
        img = highlights(depth)
        fast = hf.depth_of_field(img, depth, **LENS)
        exact = hf.depth_of_field(img, depth, **LENS, method="exact")
        print(f"{name}: 15 highlights of 100x white, fast vs exact {psnr(fast, exact):6.1f} dB; "
              f"light {fast.sum() / exact.sum():.5f} of the exact's")
    for method in ("exact", "fast"):
        lit, area, flat = reach(ramp, method)
        print(f"one point at {ramp[60, 120]:.2f} m on the wall, {method}: its light reaches "
              f"{lit} px (the thin-lens disk: {area:.0f} px), max / min {flat:.3f}")


if __name__ == "__main__":
    main()
