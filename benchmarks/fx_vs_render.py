"""Motion blur from footage (``hfrender fx``) against motion blur rendered (``hfrender render``).

A camera's footage holds one instant a frame; ``fx --motion-blur N --stride S`` blends N of
them into a frame, so a 30 fps, 180-degree blur is made from footage at ``R`` fps with
``N = R / 60`` and ``S = R / 30``. This script renders ``scenes/propeller.py`` as such
footage (one sub-frame a frame, at the frame's time) at several rates, blends it as fx does
(``hf.motion_blur``, fx's own fusion, in linear light), and compares each 30 fps frame with
the scene rendered at 30 fps with a 180-degree shutter opening at the frame's time (the
same window) from ``--ref-samples`` sub-frames. Prints PSNR (8-bit sRGB, all frames) and
the seconds each took; writes ``docs/images/fx_motion_blur.png`` (one footage frame | fx
from 4 of them | the render) with ``--picture``.

    python benchmarks/fx_vs_render.py [--rates 120,240,480,960] [--picture]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCENE = HERE.parent / "scenes" / "propeller.py"
PICTURE = HERE.parent / "docs" / "images" / "fx_motion_blur.png"
FPS, SIZE, DURATION = 30, (480, 270), 0.2


def rendered(fps: int, samples: int, **settings: object) -> tuple[np.ndarray, float]:
    """The scene's frames (N, H, W, 3) uint8 at ``fps`` and the seconds they took."""
    from hfrender.config import RenderConfig
    from hfrender.engine.render import render
    from hfrender.io.writers import MemoryWriter

    config = RenderConfig(output="memory.mp4", size=SIZE, fps=fps, samples=samples,
                          duration=DURATION, quiet=True, backend="cpu", **settings)
    writer, start = MemoryWriter(), time.perf_counter()
    render(str(SCENE), config, writer=writer)
    return np.stack(writer.frames), time.perf_counter() - start


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def main(argv: list[str] | None = None) -> int:
    import hfrender as hf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", default="120,240,480,960", help="footage frame rates")
    ap.add_argument("--ref-samples", type=int, default=64)
    ap.add_argument("--picture", action="store_true", help=f"write {PICTURE}")
    args = ap.parse_args(argv)
    ref, ref_s = rendered(FPS, args.ref_samples, shutter=180, shutter_position="start")
    print(f"reference: render at {FPS} fps, 180 degrees, {args.ref_samples} sub-frames: "
          f"{len(ref)} frames {SIZE[0]}x{SIZE[1]} in {ref_s:.1f} s")
    for samples in (8, 16):
        own, own_s = rendered(FPS, samples, shutter=180, shutter_position="start")
        print(f"  render, {samples:2d} sub-frames a frame: {psnr(own, ref):5.1f} dB, "
              f"{own_s:.1f} s")
    for rate in (int(r) for r in args.rates.split(",")):
        window, stride = rate // (2 * FPS), rate // FPS
        footage, foot_s = rendered(rate, 1)
        start = time.perf_counter()
        blurred = hf.motion_blur(footage, window, stride=stride, backend="cpu")
        blend_s = time.perf_counter() - start
        print(f"  fx from {rate:4d} fps footage (--motion-blur {window:2d} --stride "
              f"{stride:2d}): {psnr(blurred[:len(ref)], ref):5.1f} dB; footage {foot_s:.1f} s, "
              f"blend {blend_s:.2f} s")
        if args.picture and window == 4:
            gap = np.full((SIZE[1], 6, 3), 255, np.uint8)
            pick = 2  # a frame where the blades cross the picture
            import imageio.v3 as iio

            iio.imwrite(PICTURE, np.concatenate(
                [footage[pick * stride], gap, blurred[pick], gap, ref[pick]], axis=1))
            print(f"  wrote {PICTURE.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
