"""What the disparity tests share: ``scene`` (true metres and the disparity an estimator
would give of them) and its size, ``N`` frames of ``H`` x ``W``."""

import numpy as np

H, W, N = 24, 64, 2


def scene():
    """True metres (N, H, W): a wall at 4 m, a card at 1.5 m (at 0.8 m in frame 1), a ramp
    from 1 to 8 m, a strip of sky; and the disparity 2 / z an estimator would give (sky 0)."""
    z = np.full((N, H, W), 4.0, np.float32)
    z[:, 4:20, 4:20] = 1.5
    z[1, 4:20, 4:20] = 0.8  # nearer than all of frame 0: more than --max-blur, on one scale
    z[:, :, 44:] = np.linspace(1.0, 8.0, H, dtype=np.float32)[:, None]
    z[:, :2, 20:44] = np.inf
    with np.errstate(divide="ignore"):
        return z, (np.float32(2.0) / z).astype(np.float32)
