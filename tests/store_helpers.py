"""A small sample store written as a render writes one, without GL (for the tests of what
reads stores: ``hfrender reexpose``, ``hf.SampleStore``)."""

import numpy as np

from hfrender.io.store import StoreWriter
from hfrender.sampler import SampleSchedule

SETTINGS = {"fps": 30.0, "shutter": 180.0, "position": "center", "curve": "box", "samples": 2,
            "jitter": False, "seed": 0, "antialias": False, "msaa": 1, "dof": "off",
            "depth": True, "hdr": False, "transparent": False, "first_frame": 0,
            "scene": "spin.py"}


def write_store(path, size=(16, 8), frames=3, position="center"):
    """``frames`` output frames of 2 sub-frames each over 180 degrees (the shutter at
    ``position``), of ``size`` (W, H), grey at 2 m; ``path``."""
    times = SampleSchedule(30.0, 180.0, position, "box", 2).plan(frames).times
    n, (w, h) = len(times), size
    writer = StoreWriter(path, {**SETTINGS, "position": position, "frames": frames}, size)
    writer.add({"color": np.full((n, h, w, 4), 200, np.uint8), "times": times,
                "depth": np.full((n, h, w), 2.0, np.float32)})
    writer.finish(frames)
    return path
