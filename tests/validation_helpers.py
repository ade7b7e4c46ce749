"""What the validation tests share: frames ``F``, their depth ``D`` and a ``LENS``."""

import numpy as np

F = np.zeros((5, 4, 4, 3), np.uint8) + 7
D = np.full((5, 4, 4), 2.0, np.float32)
LENS = dict(focus_distance=2.0, f_stop=2.8)
