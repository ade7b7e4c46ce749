"""Depth of field from a depth pass: the fast method (layers, disks by FFT) vs the exact
gather, against the size of the blur, in one run.

1. ``hf.depth_of_field`` on a synthetic frame (a textured background, a floor receding
   from 0.4 m to 8 m, objects before, at and beyond the focus plane, thin lines, bright
   points), at 640x360 and 1920x1080, the largest circle of confusion 4, 8, 16, 32, 64 px:
   medians of ``--runs`` calls of each method (the fast calls of all the blurs taking turns,
   so that their ratios meet one machine load; the exact gather once where one call takes
   seconds, and at 1080p only up to ``--exact-1080`` px), PSNR of the fast result against
   the exact one (linear light, peak 1), the number of layers the fast method makes (what
   its cost grows with), the ratios the goals name (64 px / 4 px, 1080p / 360p). Writes
   exact | fast | difference x10 side by side to ``docs/images/dof_fast_vs_exact.png``.
2. ``hfrender render --dof depth`` against ``--dof lens``, 16 samples, on example scenes.
3. ``hfrender fx --depth`` on a 720p clip with a depth pass, against decoding the clip alone
   and against ``fx`` with no effect (the pipeline's own cost: decoding and encoding).

    python benchmarks/dof.py [--runs 5] [--exact-1080 16] [--skip-cli] [--backend cuda]

``--backend cuda`` (a GPU; ``benchmarks/gpu_check.sh`` runs it) times the CUDA backend
throughout: NumPy frames in and out of ``hf.depth_of_field`` (what an effects-library call
from the host costs, transfers included), and ``--backend cuda`` on the command lines.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np

import hfrender as hf
from hfrender.backends.cpu.dof import squared_radii
from hfrender.dof_layers import frame_plan

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "images" / "dof_fast_vs_exact.png"
BLURS = (4, 8, 16, 32, 64)
FOCUS = 1.0


def noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    """Value noise: a random RGB grid every ``cell`` pixels, bilinear in between."""
    g = rng.random((h // cell + 2, w // cell + 2, 3), dtype=np.float32)
    y, x = np.arange(h) / cell, np.arange(w) / cell
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None, None], (x - x0)[None, :, None]
    top = g[y0][:, x0] * (1 - fx) + g[y0][:, x0 + 1] * fx
    return top * (1 - fy) + (g[y0 + 1][:, x0] * (1 - fx) + g[y0 + 1][:, x0 + 1] * fx) * fy


def scene(h: int, w: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Linear RGB float32 (bright points up to 20) and depth in metres."""
    rng = np.random.default_rng(seed)
    s = h / 360
    img = sum(noise(rng, h, w, max(2, int(c * s))) for c in (4, 16, 64)) / 3
    img = (img + 0.15 * rng.random((h, w, 3), dtype=np.float32)).astype(np.float32)
    depth = np.full((h, w), 8.0, np.float32)
    f0 = int(h * 0.6)
    depth[f0:] = (1 / np.linspace(1 / 8.0, 1 / 0.4, h - f0, dtype=np.float32))[:, None]
    img[f0:] *= np.float32([0.8, 0.7, 0.5])
    yy, xx = np.mgrid[0:h, 0:w]
    shapes = [((yy - h * 0.45) ** 2 + (xx - w * 0.3) ** 2 < (h * 0.15) ** 2, 0.6, (1, .3, .2)),
              ((abs(yy - h * 0.4) < h * 0.12) & (abs(xx - w * 0.62) < w * 0.08), FOCUS,
               (.2, .5, .9)),
              ((abs(yy - h * 0.3) < h * 0.1) & (abs(xx - w * 0.85) < w * 0.06), 2.5,
               (.9, .9, .2)),
              (xx == int(w * 0.15), 0.45, (1, 1, 1)), (xx == int(w * 0.5), FOCUS, (1, .2, 1)),
              ((yy >= int(h * 0.2)) & (yy < int(h * 0.2) + max(2, int(2 * s))), 4.0,
               (.1, .9, .1))]
    for mask, d, colour in shapes:
        img[mask] = img[mask] * 0.3 + np.float32(colour) * 0.7
        depth[mask] = d
    n = h * w // 4000
    img[rng.integers(0, h, n), rng.integers(0, w, n)] = rng.uniform(5, 20, (n, 1))
    return img, depth


def lens_for(depth: np.ndarray, coc_px: float) -> hf.Lens:
    """50 mm focused at 1 m, the f-stop that makes the largest circle of confusion coc_px."""
    widest = hf.Lens(FOCUS, 1.0).coc_px(depth, depth.shape[1]).max()
    return hf.Lens(FOCUS, float(widest / coc_px))


def timed(fn, runs: int) -> tuple[float, np.ndarray]:
    """Median seconds of ``runs`` calls (one when a call takes over 2 s), and the result."""
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        if times[-1] > 2.0:
            break
    return statistics.median(times), out


def psnr(test: np.ndarray, ref: np.ndarray) -> float:
    mse = float(np.mean((test.astype(np.float64) - ref) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(1.0 / mse)


def layer_count(img: np.ndarray, depth: np.ndarray, lens: hf.Lens) -> int:
    """How many layers the fast method makes of the frame: what its cost grows with."""
    r2, max_d2 = squared_radii(depth, lens, img.shape[1], img.shape[0])
    return len(frame_plan(np, r2, depth, lens.focus_distance, max_d2)[0].layers)


def sweep(h: int, w: int, runs: int, exact_up_to: int, backend: str = "cpu") -> dict[int, tuple]:
    """{blur: (fast s, exact s or None, PSNR or None)}; keeps the 64 px pair for the picture.
    The fast calls of all the blurs take turns, ``runs`` rounds (medians): on a machine
    whose speed drifts, the ratios between blurs are then measured under one load. Each
    timed call follows an untimed one at its blur (the warm cost, as a clip's frames have
    it)."""
    img, depth = scene(h, w)
    stops = {blur: lens_for(depth, blur).f_stop for blur in BLURS}
    calls = {blur: (lambda s=stops[blur]: hf.depth_of_field(
        img, depth, focus_distance=FOCUS, f_stop=s, backend=backend)) for blur in BLURS}
    for call in calls.values():  # warm: the disks' spectra, the threads
        call()  # (results not kept: arrays held during the timing make glibc's malloc hand
        #         every call fresh pages, 1.4x the time at 4 px on this machine)
    times = {blur: [] for blur in BLURS}
    for _ in range(runs):
        for blur, call in calls.items():
            call()  # its disks' spectra back in the cache (a clip's frames share them; the
            #         other blurs' evict them at 1080p)
            t = time.perf_counter()
            call()
            times[blur].append(time.perf_counter() - t)
    rows = {}
    for blur in BLURS:
        t_fast = statistics.median(times[blur])
        t_exact = quality = None
        if blur <= exact_up_to:
            fast = calls[blur]()
            t_exact, exact = timed(lambda s=stops[blur]: hf.depth_of_field(
                img, depth, focus_distance=FOCUS, f_stop=s, backend=backend, method="exact"),
                runs)
            quality = psnr(fast, exact)
            if blur == BLURS[-1] and h == 360 and backend == "cpu":
                write_picture(exact, fast)
        rows[blur] = (t_fast, t_exact, quality)
        layers = layer_count(img, depth, lens_for(depth, blur))
        print(f"  {w}x{h} CoC {blur:2d} px ({layers:2d} layers): fast {t_fast * 1e3:7.1f} ms"
              + (f", exact {t_exact * 1e3:9.1f} ms ({t_exact / t_fast:6.1f}x), "
                 f"PSNR {quality:5.1f} dB" if t_exact else ""), flush=True)
    return rows


def write_picture(exact: np.ndarray, fast: np.ndarray) -> None:
    """exact | fast | |fast - exact| x 10, sRGB 8-bit."""
    diff = np.abs(fast - exact).max(-1, keepdims=True).repeat(3, -1) * 10
    strip = np.concatenate([exact, fast, diff], axis=1)
    code = hf.from_linear(np.clip(strip, 0, 1).astype(np.float32), np.uint8)
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    iio.imwrite(PICTURE, code)
    print(f"  wrote {PICTURE.relative_to(ROOT)} (exact | fast | difference x10), 64 px")


def cli_seconds(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hfrender", *args], check=True, capture_output=True)
    return time.perf_counter() - t


def render_depth_vs_lens(out: Path, scenes: list[str], size: str, duration: float,
                         backend: str = "cpu") -> None:
    """--dof depth against --dof lens, 16 samples, the same frames (lens, depth, lens)."""
    for name in scenes:
        base = ["render", str(ROOT / "scenes" / f"{name}.py"), "--size", size, "--duration",
               str(duration), "--samples", "16", "--quiet", "-o", str(out / f"{name}.mp4"),
               "--backend", backend]
        lens = [cli_seconds(base + ["--dof", "lens"])]
        depth = [cli_seconds(base + ["--dof", "depth"])]
        lens.append(cli_seconds(base + ["--dof", "lens"]))
        t_lens, t_depth = statistics.median(lens), depth[0]
        print(f"  render {name} {size} {duration:g} s x 16 samples: --dof lens {t_lens:6.1f} s, "
              f"--dof depth {t_depth:6.1f} s: depth / lens = {t_depth / t_lens:.2f}")


def fx_vs_decode(out: Path, frames: int, backend: str = "cpu") -> None:
    """hfrender fx --depth on 720p clips against decoding them (imageio-ffmpeg), and
    against ``fx --motion-blur 1`` (the same decoding, colour conversion and encoding with
    no visible effect: about the least any ``fx`` run costs), in turns, both on 2 fusion
    threads (``--workers auto`` with ``--depth``). What ``--depth`` adds a frame is the
    slope between a clip of ``frames`` and one of three times as many (the difference
    between fx --depth and the pass, per frame): the start-up (a GPU's context, its
    kernels, the first calls) cancels out, which over 30 frames alone it did not (on the
    H200 it was most of the 41 ms a frame first measured). It keeps up with the decoder
    where it is no more than decoding a frame once ffmpeg has started."""
    h, w = 720, 1280
    img, depth = scene(h, w)
    code = hf.from_linear(np.clip(img, 0, 1), np.uint8)
    dpath = out / "depth.npy"
    np.save(dpath, np.broadcast_to(depth, (h, w)))  # one depth frame serves all
    f_stop = lens_for(depth, 64).f_stop
    added = {}
    for n in (frames, 3 * frames):
        clip = out / f"clip{n}.mp4"
        writer = imageio_ffmpeg.write_frames(str(clip), (w, h), fps=30, quality=8,
                                             macro_block_size=16)
        writer.send(None)
        for j in range(n):
            writer.send(np.ascontiguousarray(np.roll(code, 4 * j, axis=1)))
        writer.close()
        t_decode, a_frame = min(_decode_seconds(clip) for _ in range(2))
        t_pass, t_fx = _fx_seconds(out, clip, dpath, f_stop, backend)
        added[n] = t_fx - t_pass
        print(f"  fx --depth --backend {backend} 1280x720 x {n} frames (CoC up to 64 px): "
              f"{t_fx:6.2f} s ({n / t_fx:5.1f} fps); fx --motion-blur 1 (no effect) "
              f"{t_pass:5.2f} s; decoding alone {t_decode:5.2f} s ({n / t_decode:6.1f} fps) "
              "(the least of two runs each; start-up included)", flush=True)
    slope = (added[3 * frames] - added[frames]) / (2 * frames)
    verdict = (f"{slope / a_frame:.1f}x (goal <= 1: keeps up with the decoder)" if slope > 0
               else "within the runs' noise (keeps up with the decoder)")
    print(f"  fx --depth / decode: what --depth adds a frame (between {frames} and "
          f"{3 * frames} frames: start-up left out) {slope * 1e3:.1f} ms against "
          f"{a_frame * 1e3:.1f} ms decoding one after the first: {verdict}")


def _fx_seconds(out: Path, clip: Path, dpath: Path, f_stop: float,
                backend: str) -> tuple[float, float]:
    """(fx --motion-blur 1, fx --depth) on ``clip``: the least of two runs each, in turns."""
    common = [str(clip), "--backend", backend, "--workers", "2", "--quiet"]
    runs: dict[str, list[float]] = {"pass": [], "depth": []}
    for _ in range(2):
        runs["pass"].append(cli_seconds(["fx", *common, "-o", str(out / "pass.mp4"),
                                         "--motion-blur", "1"]))
        runs["depth"].append(cli_seconds(["fx", *common, "-o", str(out / "dof.mp4"),
                                          "--depth", str(dpath), "--focus-distance",
                                          str(FOCUS), "--f-stop", f"{f_stop:.4f}"]))
    return min(runs["pass"]), min(runs["depth"])


def _decode_seconds(clip: Path) -> tuple[float, float]:
    """(seconds to decode ``clip`` whole, seconds a frame after the first: ffmpeg's start
    and probing left out)."""
    t = time.perf_counter()
    first, count = 0.0, 0
    for _ in imageio_ffmpeg.read_frames(str(clip)):
        count += 1
        if count == 2:  # the first frame came with the start-up
            first = time.perf_counter() - t
    total = time.perf_counter() - t
    return total, (total - first) / max(count - 2, 1)


def library(runs: int, exact_1080: int, backend: str) -> None:
    """hf.depth_of_field's sweep at 640x360 and 1920x1080, and the goals' ratios."""
    print(f"hf.depth_of_field, {backend.upper()} backend (medians"
          + ("; NumPy in and out, transfers included" if backend == "cuda" else "") + "):")
    small = sweep(360, 640, runs, BLURS[-1], backend)
    large = sweep(1080, 1920, runs, exact_1080, backend)  # a median of 2: noise
    print(f"  fast 64 px / 4 px: 640x360 {small[64][0] / small[4][0]:.2f}x, "
          f"1920x1080 {large[64][0] / large[4][0]:.2f}x (goal <= 2)")
    print("  fast 1920x1080 / 640x360: " + ", ".join(
        f"{b} px {large[b][0] / small[b][0]:.2f}x" for b in BLURS) + " (goal <= 9)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--exact-1080", type=int, default=16,
                   help="largest blur (px) at which the exact gather runs at 1080p")
    p.add_argument("--skip-cli", action="store_true")
    p.add_argument("--skip-library", action="store_true",
                   help="only the command lines (render, fx)")
    p.add_argument("--scenes", default="focus_pull,showcase",
                   help="the scenes render --dof depth runs on ('': none)")
    p.add_argument("--render-size", default="320x180")
    p.add_argument("--render-duration", type=float, default=1.0)
    p.add_argument("--fx-frames", type=int, default=30)
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu",
                   help="the backend every part runs on (cuda: a GPU)")
    args = p.parse_args()
    if not args.skip_library:
        library(args.runs, args.exact_1080, args.backend)
    if args.skip_cli:
        return
    with tempfile.TemporaryDirectory() as tmp:
        render_depth_vs_lens(Path(tmp), [s for s in args.scenes.split(",") if s],
                             args.render_size, args.render_duration, args.backend)
        fx_vs_decode(Path(tmp), args.fx_frames, args.backend)


if __name__ == "__main__":
    main()
