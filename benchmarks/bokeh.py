"""Bokeh shaped by aperture blades in depth mode, against the lens it imitates, in one run.

1. ``hf.depth_of_field`` on ``benchmarks/dof.py``'s frame (a floor, objects, thin lines,
   bright points) at 640x360 and a 32 px blur, round and with 5, 6 and 8 blades: the fast
   method's time against the round one's, and its PSNR against the exact gather of the same
   shape (linear light, peak 1).
2. ``benchmarks/scenes/bokeh.py`` (lamps far behind the focus plane and near the camera)
   drawn with ``--dof lens`` at 256 lens positions, the reference, and ``--dof depth`` at
   16 sub-frames, round, with 6 and with 5 blades: how well each lamp's bokeh overlaps the
   lens render's (IoU of the lit pixels) and against the same lens render with the polygon
   the other way round (an odd count is turned over in front of the focus plane), each
   lamp's light and peak against the lens render's, and the wall times. Writes lens (top)
   | depth (bottom) per shape to ``docs/images/bokeh_blades.png``.

    python benchmarks/bokeh.py [--runs 3] [--size 320x180]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import imageio.v3 as iio
import numpy as np

import hfrender as hf
from hfrender.backends.cpu.dof import defocus
from hfrender.config import RenderConfig, parse_size
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter

HERE = Path(__file__).resolve().parent
SCENE = HERE / "scenes" / "bokeh.py"
PICTURE = HERE.parent / "docs" / "images" / "bokeh_blades.png"
SHAPES = (0, 6, 5)


def library(runs: int) -> None:
    sys.path.insert(0, str(HERE))
    import dof

    img, depth = dof.scene(360, 640)
    base = dof.lens_for(depth, 32)
    print("hf.depth_of_field, 640x360, 32 px, CPU (medians):")
    round_s = None
    for blades in (0, 5, 6, 8):
        lens = hf.Lens(base.focus_distance, base.f_stop, aperture_blades=blades)
        kw = dict(focus_distance=lens.focus_distance, f_stop=lens.f_stop,
                  aperture_blades=blades, backend="cpu")
        hf.depth_of_field(img, depth, **kw)  # warm: the spectra, the threads
        secs, fast = dof.timed(lambda kw=kw: hf.depth_of_field(img, depth, **kw), runs)
        round_s = round_s or secs
        exact = defocus(img, depth, lens)
        print(f"  blades {blades}: fast {secs * 1e3:6.1f} ms ({secs / round_s:.2f}x round), "
              f"PSNR against the exact gather {dof.psnr(fast, exact):5.1f} dB")


def with_blades(blades: int, folder: Path) -> Path:
    path = folder / f"bokeh_{blades}.py"
    path.write_text(SCENE.read_text().replace("BLADES = 6", f"BLADES = {blades}"))
    return path


def draw(scene: Path, dof: str, samples: int, size) -> tuple[np.ndarray, float]:
    config = RenderConfig(output="memory.mp4", size=size, samples=samples, dof=dof,
                          msaa=1, quiet=True)
    sink = MemoryWriter()
    t = time.perf_counter()
    render(str(scene), config, first_frame=0, count=1, writer=sink)
    return sink.frames[0], time.perf_counter() - t


def lit(light: np.ndarray) -> np.ndarray:
    """The bokeh's pixels: above a quarter of the median of what is lit at all."""
    return light > 0.25 * np.median(light[light > 0.02 * light.max()])


def turned(mask: np.ndarray) -> np.ndarray:
    """``mask`` turned over about its centre of mass."""
    ys, xs = np.nonzero(mask)
    cy, cx = int(round(ys.mean())), int(round(xs.mean()))
    return np.roll(np.roll(mask[::-1, ::-1], 2 * cy - mask.shape[0] + 1, 0),
                   2 * cx - mask.shape[1] + 1, 1)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max(1, (a | b).sum()))


def compare(lens: np.ndarray, depth: np.ndarray) -> tuple[float, float, float, float]:
    """Mean IoU of the lamps' bokeh (each in the box around it in the lens render) between
    the two renders, and with the depth render's turned over; the lamps' light and peak in
    the depth render against the lens render's (the farthest from 1 of the lamps)."""
    a, b = (hf.to_linear(x).mean(-1) for x in (lens, depth))
    lamps = lit(a)
    ious, flipped, light, peak = [], [], [], []
    for box in _boxes(lamps):
        ma, mb = lit(a[box]), lit(b[box])
        ious.append(overlap(ma, mb))
        flipped.append(overlap(ma, turned(mb)))
        light.append(float(b[box].sum() / a[box].sum()))
        peak.append(float(b[box].max() / a[box].max()))
    return statistics.mean(ious), statistics.mean(flipped), _worst(light), _worst(peak)


def _worst(ratios: list[float]) -> float:
    return max(ratios, key=lambda x: abs(x - 1.0))


def _boxes(mask: np.ndarray) -> list[tuple[slice, slice]]:
    """Boxes around the separate blobs of ``mask`` (grown by 4 px), by flood fill."""
    seen = np.zeros_like(mask)
    boxes = []
    h, w = mask.shape
    for y, x in zip(*np.nonzero(mask), strict=True):
        if seen[y, x]:
            continue
        stack, pts = [(y, x)], []
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            pts.append((cy, cx))
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        if len(pts) >= 30:
            p = np.array(pts)
            boxes.append((slice(max(0, p[:, 0].min() - 4), p[:, 0].max() + 5),
                          slice(max(0, p[:, 1].min() - 4), p[:, 1].max() + 5)))
    return boxes


def renders(size, runs: int) -> None:
    print(f"benchmarks/scenes/bokeh.py at {size[0]}x{size[1]}: --dof lens 256 lens positions "
          "(the reference) against --dof depth 16 sub-frames (medians):")
    columns = []
    with tempfile.TemporaryDirectory() as tmp:
        for blades in SHAPES:
            scene = with_blades(blades, Path(tmp))
            lens, lens_s = draw(scene, "lens", 256, size)
            times = [draw(scene, "depth", 16, size) for _ in range(runs)]
            depth, depth_s = times[0][0], statistics.median(t for _, t in times)
            iou, flipped, light, peak = compare(lens, depth)
            print(f"  blades {blades}: IoU with the lens render {iou:.3f} (turned over "
                  f"{flipped:.3f}), light {light:.3f}x and peak {peak:.2f}x the lens "
                  f"render's at worst; depth {depth_s:.2f} s, lens at 256 {lens_s:.2f} s: "
                  f"{lens_s / depth_s:.1f}x")
            columns.append(np.concatenate([lens, depth], axis=0))
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    iio.imwrite(PICTURE, np.concatenate(columns, axis=1))
    print(f"  wrote {PICTURE.relative_to(HERE.parent)}: lens (top) | depth (bottom), blades "
          f"{', '.join(map(str, SHAPES))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", default="320x180")
    args = ap.parse_args()
    library(args.runs)
    renders(parse_size(args.size), args.runs)


if __name__ == "__main__":
    main()
