"""What the depth-file tests share: ``scene`` (a PNG sequence, its depth as a ``.npy`` and
the picture fx makes of them), ``outputs`` (a folder's frames) and the ``LENS`` of both."""

import numpy as np

from hfrender.cli import main

LENS = ["--focus-distance", "1.0", "--f-stop", "1.4", "--sensor-width-mm", "9", "--quiet"]


def scene(tmp_path, rng):
    import imageio.v3 as iio

    h, w, n = 36, 64, 3
    seq = tmp_path / "frames"
    seq.mkdir()
    for i in range(n):
        iio.imwrite(seq / f"{i:04d}.png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    depth = np.full((n, h, w), 4.0, np.float32)
    depth[:, 10:26, 20:44] = 1.0  # an in-focus card over a far wall
    depth[:, 30:, :] = rng.uniform(1.5, 3.0, (n, 6, w)).round(3)  # a floor (whole mm)
    np.save(tmp_path / "depth.npy", depth)
    assert main(["fx", str(seq), "-o", str(tmp_path / "want" / "%02d.png"), "--depth",
                 str(tmp_path / "depth.npy"), *LENS]) == 0
    return seq, depth


def outputs(folder):
    import imageio.v3 as iio

    return np.stack([iio.imread(f) for f in sorted(folder.iterdir())])
