"""The EXR fx tests' shared pieces: ``shot`` (float frames of a lamp past white, and a depth
pass, written as an EXR sequence), ``outputs`` (the frames fx wrote, read back), the lens
(``LENS``, ``DOF``: its fx options) and the frames' ``H`` x ``W``."""

import numpy as np
import pytest

pytest.importorskip("OpenEXR")
from hfrender.io.exr_files import encode_exr, read_exr  # noqa: E402
from hfrender.io.images import read_png  # noqa: E402

H, W = 40, 64


def shot(tmp_path, rng, n=6, alpha=False):
    """``n`` frames of float light (a lamp 400x white moving; with ``alpha``, a column half
    covered, premultiplied), as ``tmp_path/in/%04d.exr``, and a depth pass (a card at 1 m
    before a wall at 20 m)."""
    frames = (rng.random((n, H, W, 4 if alpha else 3), dtype=np.float32) * np.float32(0.3))
    for i in range(n):
        frames[i, 12, 30 + 2 * i, :3] = 400.0
    depth = np.full((H, W), 20.0, np.float32)
    depth[10:30, 5:20] = 1.0
    if alpha:
        frames[..., 3] = 1.0
        frames[:, :, 56:] *= np.float32(0.5)
    (tmp_path / "in").mkdir()
    for i, f in enumerate(frames):
        encode_exr(tmp_path / "in" / f"{i:04d}.exr", f)
    np.save(tmp_path / "depth.npy", depth)
    return frames, depth


def outputs(folder, n, suffix):
    files = [folder / f"{i:04d}{suffix}" for i in range(n)]
    return np.stack([read_exr(f) if suffix == ".exr" else read_png(f) for f in files])


LENS = dict(focus_distance=1.0, f_stop=1.4, sensor_width_mm=10.0)


DOF = ["--depth", "depth.npy", "--focus-distance", "1", "--f-stop", "1.4",
       "--sensor-width-mm", "10", "--quiet"]
