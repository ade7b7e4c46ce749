"""``hfrender fx`` vs ``ffmpeg -vf tmix`` end to end, on the same 720p clip, in one run.

Whole processes: ``hfrender fx in.mp4 -o out.mp4 --motion-blur 8 --gamma-space`` against
``ffmpeg -i in.mp4 -vf tmix=frames=8 -c:v libx264 -crf 18 -preset medium -pix_fmt yuv420p
out.mp4`` (the encoder and settings hfrender uses). Both blend the code values of the
4:2:0 planes as stored. Prints the median seconds, the ratio (also the median of the
per-pair ratios, with a 95% bootstrap interval: on a noisy machine, whether 1 is in it tells
"the same speed" from "slower"), the largest difference between the decoded videos, and
between RGB blends written as PNG (``format=gbrp,tmix``, the clip read with BT.709's
matrix as fx reads untagged HD, against hfrender's RGB path): code-value mode must match
tmix within 1.

    python benchmarks/fx_vs_ffmpeg.py [--frames 240] [--repeats 5]

The two commands take turns (hfrender, ffmpeg, hfrender, ...).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import imageio_ffmpeg
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fx_vs_tmix import make_frames  # noqa: E402

FF = imageio_ffmpeg.get_ffmpeg_exe()
W, H = 1280, 720


def timed(cmds: list[list[str]], repeats: int) -> list[list[float]]:
    """Seconds of each command, run in turn (A B A B ...) so that drift on a noisy machine
    falls on both alike."""
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeats):
        for cmd, ts in zip(cmds, times, strict=True):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            ts.append(time.perf_counter() - t)
    return times


def decode(path: Path) -> np.ndarray:
    reader = imageio_ffmpeg.read_frames(str(path))
    next(reader)
    return np.stack([np.frombuffer(f, np.uint8).reshape(H, W, 3) for f in reader])


def pngs(folder: Path) -> np.ndarray:
    import imageio.v3 as iio

    return np.stack([iio.imread(f) for f in sorted(folder.iterdir())])


def rgb_blend_command(clip: Path, pattern: Path, frames: int = 8) -> list[str]:
    """ffmpeg's RGB blend of ``clip``, read as ``hfrender fx`` reads it: the untagged HD
    clip as BT.709, as players do (ffmpeg's own default is BT.601's matrix, 33-40 codes
    apart on these colours), with fx's exact YUV -> RGB (``EXACT_SWS``: swscale's defaults
    upsample the chroma otherwise, 12 codes apart on these noisy frames, 86 at the first,
    since fx took them on 2026-12-05)."""
    from hfrender.io.ffmpeg import EXACT_SWS

    return [FF, "-hide_banner", "-loglevel", "error", "-y", "-i", str(clip), *EXACT_SWS,
            "-vf", "scale=in_color_matrix=bt709:in_range=tv:out_range=pc,format=gbrp,"
            f"tmix=frames={frames},format=rgb24", str(pattern)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=240)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        raw = d / "in.raw"
        make_frames(args.frames).tofile(raw)
        clip = d / "in.mp4"
        subprocess.run([FF, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                        "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", "30", "-i", str(raw),
                        "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p", str(clip)],
                       check=True)
        hf_cmd = [sys.executable, "-m", "hfrender", "fx", str(clip), "-o", str(d / "hf.mp4"),
                  "--motion-blur", "8", "--gamma-space", "--quiet"]
        ff_cmd = [FF, "-hide_banner", "-loglevel", "error", "-y", "-i", str(clip), "-vf",
                  "tmix=frames=8", "-c:v", "libx264", "-crf", "18", "-preset",
                  "medium", "-pix_fmt", "yuv420p", str(d / "ff.mp4")]
        runs_hf, runs_ff = timed([hf_cmd, ff_cmd], args.repeats)
        t_hf, t_ff = statistics.median(runs_hf), statistics.median(runs_ff)
        pairs = np.array([f / h for f, h in zip(runs_ff, runs_hf, strict=True)])
        pair = float(np.median(pairs))
        # how sure: a 95% bootstrap interval of that median (seeded: the same runs, the
        # same interval)
        boot = np.random.default_rng(0).choice(pairs, (10_000, len(pairs)))
        low, high = np.percentile(np.median(boot, axis=1), [2.5, 97.5])
        video_diff = int(np.abs(decode(d / "hf.mp4").astype(int) - decode(d / "ff.mp4")).max())
        (d / "hfp").mkdir()
        (d / "ffp").mkdir()
        subprocess.run([sys.executable, "-m", "hfrender", "fx", str(clip), "-o",
                        str(d / "hfp" / "%05d.png"), "--motion-blur", "8", "--gamma-space",
                        "--quiet"], check=True)
        subprocess.run(rgb_blend_command(clip, d / "ffp" / "%05d.png"), check=True)
        blend_diff = int(np.abs(pngs(d / "hfp").astype(int) - pngs(d / "ffp")).max())
    print(f"{args.frames} frames {W}x{H} (H.264 in, libx264 crf 18 medium out), median of "
          f"{args.repeats}")
    print(f"  hfrender fx : {t_hf:6.2f} s  ({args.frames / t_hf:5.1f} fps)")
    print(f"  ffmpeg tmix : {t_ff:6.2f} s  ({args.frames / t_ff:5.1f} fps)")
    print(f"  ffmpeg / hfrender = {t_ff / t_hf:.3f}x (goal >= 1: hfrender no slower); "
          f"median of the run pairs {pair:.3f}x (95% interval {low:.3f}-{high:.3f})")
    print(f"  runs hfrender {', '.join(f'{t:.2f}' for t in runs_hf)}; "
          f"ffmpeg {', '.join(f'{t:.2f}' for t in runs_ff)}")
    print(f"  largest difference: decoded videos {video_diff}, blends (PNG) {blend_diff}")


if __name__ == "__main__":
    main()
