"""What the fx tests share: ``make_clip`` (a lossless RGB clip), ``png_sequence`` (random
frames as PNG files), ``decode`` and ``read_pngs`` (frames back, from a video or a folder of
PNGs) and the ``FFMPEG`` binary; other footage tests import them from here too."""

import subprocess

import imageio_ffmpeg
import numpy as np

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


def decode(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    w, h = meta["size"]
    return np.stack([np.frombuffer(f, np.uint8).reshape(h, w, 3) for f in reader]), meta


def make_clip(tmp_path, rng, n=40, size=(64, 36), audio=False, fps=30):
    """A lossless RGB clip (libx264rgb, qp 0): decoded frames equal the written ones."""
    w, h = size
    frames = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    raw = tmp_path / "in.raw"
    frames.tofile(raw)
    out = tmp_path / "in.mkv"
    cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
           "rgb24", "-s", f"{w}x{h}", "-r", str(fps), "-i", str(raw)]
    if audio:
        cmd += ["-f", "lavfi", "-i", f"sine=frequency=440:duration={n / fps}", "-c:a", "aac"]
    cmd += ["-c:v", "libx264rgb", "-qp", "0", str(out)]
    subprocess.run(cmd, check=True)
    return out, frames


def read_pngs(folder):
    import imageio.v3 as iio

    return np.stack([iio.imread(f) for f in sorted(folder.iterdir())])


def png_sequence(tmp_path, rng, n, h, w):
    """``n`` random RGB frames (h, w) written as ``tmp_path/frames/0000.png`` ..: the
    folder and the frames."""
    import imageio.v3 as iio

    seq = tmp_path / "frames"
    seq.mkdir()
    frames = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:04d}.png", f)
    return seq, frames
