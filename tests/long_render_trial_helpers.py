"""The long-render trial's shared pieces: the test shader ``BAR``, the ``SMALL`` render's
options, and ``GLOWING`` (a scene whose sphere's shader file is ``GLOW``, stopped halfway
when ``HF_TEST_STOP`` is set)."""

import os
from pathlib import Path

BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.3", "--quiet"]


GLOWING = """
import os
import hfrender as hf

class Glowing(hf.Scene):
    duration = 0.3

    def setup(self):
        self.add(hf.Sphere(color=(0.9, 0.5, 0.2), shader="glow.glsl"))
        self.camera.position = (0, 0, 3)

    def update(self, t):
        if 0.15 < t < 0.25 and os.environ.get("HF_TEST_STOP"):  # (not the end, looked at
            # before the first frame is drawn)
            raise KeyboardInterrupt  # as a Ctrl-C halfway
"""
GLOW = "vec3 shade(vec3 normal, vec3 world, vec3 color) {{ return {}; }}\n"


def stop_halfway(patched):
    """GLOWING's Ctrl-C at t = 0.15..0.25 armed (HF_TEST_STOP) once the frames' pool is
    made: the motion hint looks at frame 6, t = 0.2, before (``patched``: a monkeypatch,
    whose undo disarms it)."""
    from hfrender.hyperframe.pool import HyperFramePool

    made = HyperFramePool.__init__

    def making(pool, *args, **kwargs):
        os.environ["HF_TEST_STOP"] = "1"
        made(pool, *args, **kwargs)

    patched.setattr(HyperFramePool, "__init__", making)
    patched.setenv("HF_TEST_STOP", "")  # (undone: unset again)
