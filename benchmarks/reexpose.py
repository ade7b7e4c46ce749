"""Re-exposure against rendering again, and the sample store's codec, in one run.

1. The codec: one chunk of a render's sub-frames (colour and depth) written as a zip of .npy
   files (what ``np.load`` reads) stored, deflate level 1 and 6, bzip2 and lzma: size,
   write and read time.
2. Per example scene: a render over a 360-degree shutter with 16 samples and
   ``--keep-samples``, then a 180-degree exposure of the store against a fresh render at 180
   degrees with 8 samples (the same frames): times (median of 3), the ratio, store size per
   output frame, read speed; for focus_pull, a refocus of its store with the fusion in
   child processes against threads.

    python benchmarks/reexpose.py [--size 640x360] [--frames 30]
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from hfrender.config import RenderConfig, parse_size
from hfrender.engine.reexpose import SampleStore
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter

SCENES = Path(__file__).resolve().parents[1] / "scenes"
CODECS = {"stored": (zipfile.ZIP_STORED, None), "deflate-1": (zipfile.ZIP_DEFLATED, 1),
          "deflate-6": (zipfile.ZIP_DEFLATED, 6), "bzip2": (zipfile.ZIP_BZIP2, 9),
          "lzma": (zipfile.ZIP_LZMA, None)}


def _zip(arrays, method, level):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method, compresslevel=level) as zf:
        for name, a in arrays.items():
            member = io.BytesIO()
            np.save(member, a)
            zf.writestr(name + ".npy", member.getvalue())
    return buf.getvalue()


def codecs(chunk):
    raw = sum(a.nbytes for a in chunk.values())
    print(f"codec of one chunk ({len(chunk['times'])} sub-frames, {raw / 1e6:.1f} MB raw):")
    for name, (method, level) in CODECS.items():
        t0 = time.perf_counter()
        data = _zip(chunk, method, level)
        write = time.perf_counter() - t0
        t0 = time.perf_counter()
        with np.load(io.BytesIO(data)) as z:
            _ = {k: z[k] for k in z.files}
        read = time.perf_counter() - t0
        print(f"  {name:10s} {len(data) / 1e6:7.2f} MB ({len(data) / raw:5.1%})  write "
              f"{write * 1e3:7.1f} ms  read {read * 1e3:6.1f} ms "
              f"({raw / 1e6 / read:6.0f} MB/s)")


def timed(fn, runs=3):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def scene_figures(scene, size, frames, tmp):
    store = Path(tmp) / f"{scene.stem}.samples"
    base = {"size": size, "quiet": True, "duration": frames / 30.0, "output": "memory.mp4",
            "reconstruct": "off"}
    kept = RenderConfig(samples=16, shutter=360.0, shutter_position="start",
                        keep_samples=str(store), **base)
    t_keep = timed(lambda: render(str(scene), kept, writer=MemoryWriter()), 1)
    fresh = RenderConfig(samples=8, shutter=180.0, shutter_position="start", **base)
    t_fresh = timed(lambda: render(str(scene), fresh, writer=MemoryWriter()))
    opened = SampleStore.open(store)
    t_expose = timed(lambda: opened.expose(shutter=180))
    t_read = timed(lambda: [None for _ in opened], 1)
    size_b = opened.nbytes()
    raw = opened.subframes * size[0] * size[1] * 8  # colour + depth
    print(f"{scene.name}: {frames} frames {size[0]}x{size[1]}; render 360/16 with the store "
          f"{t_keep:.2f} s; store {size_b / 1e6:.1f} MB ({size_b / frames / 1e6:.2f} MB a "
          f"frame, {size_b / raw:.0%} of raw), read {raw / 1e6 / t_read:.0f} MB/s")
    print(f"  fresh render 180/8: {t_fresh:.2f} s; re-expose 180 from the store: "
          f"{t_expose:.2f} s; rendering again / re-exposing = {t_fresh / t_expose:.2f}x")
    return opened


def refocus_processes(scene, size, frames, tmp, rounds=5):
    """A depth store (``--dof depth``, 16 samples) refocused with the fusion in child
    processes against threads (the rounds alternate the two ways; medians): frames
    identical, the time ratio."""
    store = Path(tmp) / f"{scene.stem}.depth.samples"
    render(str(scene), RenderConfig(size=size, quiet=True, duration=frames / 30.0,
                                    output="memory.mp4", samples=16, dof="depth",
                                    keep_samples=str(store)), writer=MemoryWriter())
    opened = SampleStore.open(store)
    times = {"on": [], "off": []}
    frames = {}
    for _ in range(rounds):
        for mode in times:
            t0 = time.perf_counter()
            frames[mode] = opened.expose(focus_distance=2.0, f_stop=1.4, fusion_process=mode)
            times[mode].append(time.perf_counter() - t0)
    on, off = (statistics.median(times[m]) for m in ("on", "off"))
    same = np.array_equal(frames["on"], frames["off"])
    print(f"  refocus (2 m, f/1.4) of the store: fusion in 2 child processes {on:.2f} s, in "
          f"2 threads {off:.2f} s: threads / processes = {off / on:.2f}x "
          f"(frames {'identical' if same else 'DIFFER'}; {rounds} rounds, medians)")


def misaligned(opened, scene, size, frames):
    """Exposures whose times a store does not hold exactly: PSNR against fresh renders."""
    base = {"size": size, "quiet": True, "duration": frames / 30.0, "output": "memory.mp4",
            "reconstruct": "off", "dof": "off"}
    for shutter, position, samples in ((270.0, "start", 12), (90.0, "start", 4),
                                       (120.0, "start", 8), (100.0, "start", 16)):
        got = opened.expose(shutter=shutter, position=position)
        sink = MemoryWriter()
        render(str(scene), RenderConfig(samples=samples, shutter=shutter,
                                        shutter_position=position, **base), writer=sink)
        want = np.stack(sink.frames)
        mse = float(np.mean((got.astype(float) - want.astype(float)) ** 2))
        psnr = float("inf") if mse == 0 else 10 * np.log10(255**2 / mse)
        print(f"  {scene.name}: re-exposed at {shutter:g} degrees, {position}, against a "
              f"fresh render with {samples} samples: {psnr:.1f} dB PSNR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--frames", type=int, default=30)
    args = ap.parse_args()
    size = parse_size(args.size)
    with tempfile.TemporaryDirectory() as tmp:
        first = None
        for name in ("showcase.py", "focus_pull.py", "propeller.py"):
            opened = scene_figures(SCENES / name, size, args.frames, tmp)
            first = first or opened.read(0)
            if name == "focus_pull.py":
                refocus_processes(SCENES / name, size, args.frames, tmp)
            if name == "propeller.py":
                print("exposures between the kept times (a 360-degree store from the start, "
                      "16 samples):")
                misaligned(opened, SCENES / name, size, args.frames)
        codecs({k: v for k, v in first.items() if k in ("color", "depth", "times")})


if __name__ == "__main__":
    main()
