"""Motion-blur quality against sub-frames spent: plain sampling, reconstruction, adaptive.

Renders ``benchmarks/scenes/motion_quality.py`` (a fast pendulum, a propeller, a block
passing in front of a tiled background, a thin spinning bar; still from 0.7 s) at 320x180
with 256 plain sub-frames as the reference, then each method, all in this process, and
reports per method: PSNR (8-bit sRGB) and mean FLIP (NVIDIA's ``flip-evaluator``) over the
whole frame, over the region that motion blurs, and over a band around the moving
silhouettes; the worst frame's PSNR; sub-frames drawn; wall time and its ratio to plain 8.
Then the OpenGL accumulation buffer of ``render_pipeline.py`` at the plain N that reaches
reconstruction-8's quality ("time to quality"); ``--samples auto``, with reconstruction and
without, against the least fixed count (with reconstruction and plain) that reaches its
worst frame over the whole animation; then, over 90 frames of the scene kept moving, recon
8 against plain 8 in wall time and the accumulation buffer at that same plain count (its
time is its drawing loop alone; ours is the whole render). Writes crops side by side to
``docs/images/reconstruction.png``.

    python benchmarks/quality.py [--frames 12] [--first 3] [--size 320x180] [--runs 3]
    python benchmarks/quality.py --gaps 4,5,6,8,10 [--msaa 4]   # --samples auto's gap

Needs the ``bench`` extra (``pip install -e '.[bench]'``: flip-evaluator).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hfrender.config import RenderConfig, parse_size
from hfrender.engine.draw import SubframeDrawer
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter
from hfrender.renderer.contexts import create_context
from hfrender.renderer.renderer import SceneRenderer
from hfrender.sampler import SampleSchedule
from hfrender.scene.loader import load_scene

HERE = Path(__file__).resolve().parent
SCENE = HERE / "scenes" / "motion_quality.py"
PICTURE = HERE.parent / "docs" / "images" / "reconstruction.png"
REFERENCE_SAMPLES = 256
BAND_PX = 3
PLAIN = (8, 16, 32, 64)
RECON = (4, 8)


# every method's, reference included (main sets them)
SETTINGS = {"antialias": False, "msaa": RenderConfig.msaa, "backend": RenderConfig.backend}


def render_method(size, first, frames, samples, reconstruct, scene=None, **extra):
    """(frames (N, H, W, 3) uint8, seconds, sub-frames drawn)."""
    config = RenderConfig(output="memory.mp4", size=size, samples=samples,
                          reconstruct="on" if reconstruct else "off", quiet=True,
                          **{**SETTINGS, **extra})
    sink = MemoryWriter()
    t0 = time.perf_counter()
    stats = render(str(scene or SCENE), config, first_frame=first, count=frames, writer=sink)
    return np.stack(sink.frames), time.perf_counter() - t0, stats.subframes


def motion_mask(size, first, frames, probes=24):
    """(N, H, W) bool: pixels some moving surface covers during the frame's shutter (from
    the velocity plane at ``probes`` times across it), grown by one pixel."""
    w, h = size
    scene = load_scene(SCENE)
    scene.setup()
    glctx = create_context("egl", size=size)
    renderer = SceneRenderer(glctx.ctx, scene, size, True, with_velocity=True)
    drawer = SubframeDrawer(scene, renderer, None, None, None, "off", True)
    spans = SampleSchedule(30.0).shutter_spans(first + np.arange(frames))
    masks = np.zeros((frames, h, w), bool)
    color = np.empty((h, w, 4), np.uint8)
    depth = np.empty((h, w), np.float32)
    velocity = np.empty((h, w, 2), np.float32)
    for k, (t0, t1) in enumerate(spans):
        for t in np.linspace(t0, t1, probes):
            scene.update(float(t))
            renderer.draw(float(t), k, clip_rates=drawer._clip_rates(float(t), k, (0, 0), (0, 0)))
            renderer.read_into(color, depth, velocity)
            masks[k] |= np.abs(velocity).max(axis=-1) > 0
    renderer.release()
    glctx.release()
    return _grow(masks, 1)


def _grow(masks, px):
    out = masks.copy()
    for _ in range(px):
        grown = out.copy()
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        grown[:, :, 1:] |= out[:, :, :-1]
        grown[:, :, :-1] |= out[:, :, 1:]
        out = grown
    return out


def silhouette_band(masks):
    """Pixels within BAND_PX of the moving region's edge."""
    return _grow(masks, BAND_PX) & _grow(~masks, BAND_PX)


def psnr(a, b, mask=None):
    d = (a.astype(np.float64) - b.astype(np.float64)) ** 2
    if mask is not None:
        d = d[mask]
    mse = float(d.mean()) if d.size else 0.0
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def flip_maps(ref, test):
    import flip_evaluator

    maps = []
    for r, t in zip(ref, test, strict=True):
        fmap, _, _ = flip_evaluator.evaluate(r / 255.0, t / 255.0, "LDR", applyMagma=False)
        maps.append(np.asarray(fmap).reshape(r.shape[:2]))
    return np.stack(maps)


def needs_flip() -> None:
    """One line naming the extra when NVIDIA's FLIP is not installed (was a
    ModuleNotFoundError once the reference was rendered)."""
    try:
        import flip_evaluator  # noqa: F401
    except ImportError:
        raise SystemExit("quality.py scores with NVIDIA's FLIP: pip install "
                         "'hfrender[bench]'") from None


def score(ref, test, masks, band):
    fmap = flip_maps(ref, test)
    per_frame = [psnr(r, t) for r, t in zip(ref, test, strict=True)]
    return {"psnr": psnr(ref, test), "psnr_moving": psnr(ref, test, masks),
            "psnr_band": psnr(ref, test, band), "flip": float(fmap.mean()),
            "flip_moving": float(fmap[masks].mean()), "flip_band": float(fmap[band].mean()),
            "worst_psnr": min(per_frame)}


def timed(runs, fn):
    results = [fn() for _ in range(runs)]
    return results[0][0], statistics.median(r[1] for r in results), results[0][2]


def accumulation_seconds(size, frames, samples, scene=None):
    """The OpenGL accumulation buffer of render_pipeline.py at ``samples`` (median of 3)."""
    import render_pipeline

    with tempfile.TemporaryDirectory() as tmp:
        fps = [render_pipeline.run_accumulation(scene or SCENE, str(Path(tmp) / "acc.mp4"), size,
                                                samples, frames, SETTINGS["msaa"])
               for _ in range(3)]
    return frames / statistics.median(fps)


def crops(ref, rows, masks):
    """One frame's busiest crop, reference then each method, side by side."""
    import imageio.v3 as iio

    k = int(np.argmax(masks.reshape(len(masks), -1).sum(1)))
    h, w = ref.shape[1:3]
    tiles = [ref[k]] + [frames[k] for _, frames in rows]
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    top = np.concatenate(tiles[: (len(tiles) + 1) // 2], axis=1)
    bottom = np.concatenate(tiles[(len(tiles) + 1) // 2:] +
                            [np.zeros_like(ref[k])] * (len(tiles) % 2), axis=1)
    iio.imwrite(PICTURE, np.concatenate([top, bottom], axis=0))
    return k, w, h


FIXED = (*range(4, 33), 48, 64)  # every count up to 32: the least


def adaptive(size, runs):
    """Over the whole animation (fast, then still from 0.7 s): reconstruction from 8
    against plain 8 in wall time, then --samples auto, with reconstruction and without,
    against the least fixed count that reaches its worst frame: with reconstruction,
    and plain (no reconstruction, what fixed temporal sampling draws)."""
    n = 30
    ref, _, _ = render_method(size, 0, n, REFERENCE_SAMPLES, False)

    def worst(frames):
        return min(psnr(r, t) for r, t in zip(ref, frames, strict=True))

    pairs = [(render_method(size, 0, n, 8, False)[1], render_method(size, 0, n, 8, True)[1])
             for _ in range(runs)]  # interleaved: this machine's drift hits both alike
    plain8, recon8 = (statistics.median(p[i] for p in pairs) for i in (0, 1))
    print(f"whole animation ({n} frames, the last ones still): recon 8 {recon8:.2f} s, "
          f"plain 8 {plain8:.2f} s: {recon8 / plain8:.2f}x plain 8")
    fixed = {}  # (count, reconstruct) -> (worst frame, drawn), rendered once each

    def least_fixed(low, recon):
        for count in FIXED:
            if (count, recon) not in fixed:
                frames, _, drawn = render_method(size, 0, n, count, recon)
                fixed[count, recon] = (worst(frames), drawn)
                print(f"    fixed {count:2d} {'+ recon' if recon else 'plain'}: worst frame "
                      f"{fixed[count, recon][0]:.2f} dB, {drawn} drawn")
            if fixed[count, recon][0] >= low:
                return count, fixed[count, recon][1]
        return None, None

    for recon, comparisons in ((True, (True, False)), (False, (False,))):
        auto, secs, drawn = timed(runs, lambda r=recon: render_method(size, 0, n, "auto", r))
        low = worst(auto)
        print(f"samples auto, reconstruction {'on' if recon else 'off'}: worst frame "
              f"{low:.2f} dB, {drawn} sub-frames drawn ({drawn / n:.1f} per frame), "
              f"{secs:.2f} s")
        for against in comparisons:
            count, fdrawn = least_fixed(low, against)
            label = "fixed + recon" if against else "fixed plain"
            print(f"  {label}: " + (f"{count} a frame reaches it ({fdrawn} drawn): auto "
                                    f"draws {drawn / fdrawn:.0%} of that" if count else
                                    f"no count up to {FIXED[-1]} reaches it"))


LONG_FRAMES = 90  # a clip long enough that the fusion processes' start-up is amortised


def steady_wall(size, runs, reach=None, frames=LONG_FRAMES):
    """Recon 8 against plain 8 in wall time over ``frames`` frames of the scene kept moving
    (a copy with ``STILL_FROM`` past the clip's end): a render long enough that the fusion
    children's start-up (about 0.12 s of CPU each), a large part of the 12-frame look's
    time, is spread thin. With ``reach`` (the plain count that matched recon 8 on the
    12-frame look, not measured again here), the accumulation buffer at it too."""
    text = SCENE.read_text()
    old = "STILL_FROM = 0.7"
    if old not in text or "duration = 1.0" not in text:
        raise SystemExit(f"{SCENE}: expected {old!r} and 'duration = 1.0' to make the long clip")
    seconds = frames / 30.0
    text = text.replace(old, f"STILL_FROM = {seconds + 1.0}").replace(
        "duration = 1.0", f"duration = {seconds}")
    with tempfile.TemporaryDirectory() as tmp:
        moving = Path(tmp) / "motion_quality_moving.py"
        moving.write_text(text)
        pairs = [(render_method(size, 0, frames, 8, False, scene=moving)[1],
                  render_method(size, 0, frames, 8, True, scene=moving)[1])
                 for _ in range(runs)]
        acc = None if reach is None else accumulation_seconds(size, frames, reach, moving)
    ratios = [r / p for p, r in pairs]
    print(f"{frames} moving frames: recon 8 against plain 8 "
          f"{', '.join(f'{x:.2f}x' for x in ratios)} (interleaved; median "
          f"{statistics.median(ratios):.2f}x)")
    if acc is not None:
        recon8 = statistics.median(r for _, r in pairs)
        print(f"  time to quality there: the accumulation buffer at {reach} {acc:.2f} s, "
              f"recon 8 {recon8:.2f} s: {acc / recon8:.2f}x")


def gap_sweep(size, gaps):
    """--samples auto with reconstruction over the whole animation at each gap (px of
    motion between sub-frames, ``adaptive.GAP_RECON_PX``): the worst frame and the
    sub-frames drawn, to choose the largest gap that keeps every frame above 45 dB."""
    from hfrender.engine import adaptive

    n = 30
    ref, _, _ = render_method(size, 0, n, REFERENCE_SAMPLES, False)
    kept = adaptive.GAP_RECON_PX
    try:
        for gap in gaps:
            adaptive.GAP_RECON_PX = gap
            frames, _, drawn = render_method(size, 0, n, "auto", True, fusion_process="off")
            low = min(psnr(r, t) for r, t in zip(ref, frames, strict=True))
            print(f"gap {gap:4.1f} px: worst frame {low:.2f} dB, {drawn} sub-frames drawn")
    finally:
        adaptive.GAP_RECON_PX = kept


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--first", type=int, default=3, help="first output frame (30 fps)")
    ap.add_argument("--size", default="320x180")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per method (median)")
    ap.add_argument("--antialias", action="store_true",
                    help="sub-pixel jitter on (static edges then differ from the reference by "
                         "their 8 jitter positions, whatever the motion method)")
    ap.add_argument("--msaa", default=RenderConfig.msaa,
                    help="coverage samples per pixel in every method's sub-frames (1: off; "
                         "auto: the render's default, 1 on llvmpipe)")
    ap.add_argument("--backend", choices=("auto", "cpu", "cuda"), default=RenderConfig.backend,
                    help="fusion backend of every method (auto: CUDA where usable; "
                         "--reconstruct then runs the CUDA kernel)")
    ap.add_argument("--skip-adaptive", action="store_true",
                    help="leave out --samples auto's part (its figures are quality, the same "
                         "on every backend)")
    ap.add_argument("--only", default=None,
                    help="only these methods, e.g. 'plain 8,recon 8' (and no time to quality, "
                         "auto or picture)")
    ap.add_argument("--gaps", default=None,
                    help="only sweep --samples auto's gap with reconstruction, e.g. 4,6,8 "
                         "(px of motion between sub-frames), over the whole animation "
                         "(--frames, --first and --runs do not apply)")
    return ap


def _methods(ap: argparse.ArgumentParser, only: str | None) -> list[tuple[str, int, bool]]:
    methods = [(f"plain {s}", s, False) for s in PLAIN] + [(f"recon {s}", s, True) for s in RECON]
    if not only:
        return methods
    wanted = [w.strip() for w in only.split(",")]
    unknown = sorted(set(wanted) - {m[0] for m in methods})
    if unknown:
        ap.error(f"--only {only!r}: no method {', '.join(unknown)}; choose from "
                 f"{', '.join(m[0] for m in methods)}")
    return [m for m in methods if m[0] in wanted]


def _print_table(table: dict) -> None:
    base = (table.get("plain 8") or next(iter(table.values())))["seconds"]
    print(f"{'method':10} {'PSNR':>6} {'moving':>6} {'band':>6} {'worst':>6} {'FLIP':>7} "
          f"{'moving':>7} {'band':>7} {'drawn':>6} {'s':>6} {'x plain8':>8}")
    for name, r in table.items():
        print(f"{name:10} {r['psnr']:6.2f} {r['psnr_moving']:6.2f} {r['psnr_band']:6.2f} "
              f"{r['worst_psnr']:6.2f} {r['flip']:7.4f} {r['flip_moving']:7.4f} "
              f"{r['flip_band']:7.4f} {r['drawn']:6d} {r['seconds']:6.2f} "
              f"{r['seconds'] / base:8.2f}")


def _time_to_quality(ref, table: dict, size, first: int, n: int) -> int:
    """The accumulation buffer at the least plain count that reaches recon 8's PSNR."""
    target = table["recon 8"]["psnr"]
    # the least plain count that reaches it: every count up to 32, then 48, 64, 128, 256
    counts = (*range(8, 33), 48, 64, 128, 256)
    reach = next((s for s in counts if
                  (table.get(f"plain {s}") or {"psnr": psnr(ref, render_method(
                      size, first, n, s, False)[0])})["psnr"] >= target), REFERENCE_SAMPLES)
    acc = accumulation_seconds(size, n, reach)
    recon8 = table["recon 8"]["seconds"]
    print(f"time to quality: plain sampling reaches recon 8's {target:.2f} dB at {reach} "
          f"sub-frames; the accumulation buffer takes {acc:.2f} s there, recon 8 "
          f"{recon8:.2f} s: {acc / recon8:.2f}x")
    return reach


def main() -> None:
    ap = _parser()
    args = ap.parse_args()
    size, first, n = parse_size(args.size), args.first, args.frames
    SETTINGS["antialias"] = args.antialias
    SETTINGS["msaa"] = args.msaa if args.msaa == "auto" else int(args.msaa)
    SETTINGS["backend"] = args.backend
    if args.gaps:
        try:
            gaps = [float(g) for g in args.gaps.split(",") if g.strip()]
        except ValueError:
            ap.error(f"--gaps {args.gaps!r}: give pixels separated by commas, e.g. 4,6,8")
        gap_sweep(size, gaps)
        return
    methods = _methods(ap, args.only)
    needs_flip()  # before the reference's minutes of rendering, not after them
    ref, ref_s, _ = render_method(size, first, n, REFERENCE_SAMPLES, False)
    masks = motion_mask(size, first, n)
    band = silhouette_band(masks)
    print(f"reference: {REFERENCE_SAMPLES} plain sub-frames, {ref_s:.1f} s, antialias "
          f"{'on' if args.antialias else 'off'}, msaa {args.msaa}, backend {args.backend}; "
          f"moving region {masks.mean():.1%} of pixels, band {band.mean():.1%}")
    rows, table = [], {}
    for name, samples, rec in methods:
        frames, secs, drawn = timed(args.runs, lambda s=samples, r=rec: render_method(
            size, first, n, s, r))
        table[name] = dict(score(ref, frames, masks, band), seconds=secs, drawn=drawn)
        rows.append((name, frames))
    _print_table(table)
    if args.only:  # a quick look at some methods: no time to quality, auto or picture
        return
    reach = _time_to_quality(ref, table, size, first, n)
    if not args.skip_adaptive:
        adaptive(size, args.runs)
    steady_wall(size, args.runs, reach)
    k, w, h = crops(ref, rows, masks)
    print(f"wrote {PICTURE} (frame {first + k}: reference, then "
          f"{', '.join(name for name, _ in rows)})")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(HERE))
    main()
