"""What the re-exposure tests share: a spinning-box scene (``SCENE``, the ``scene`` fixture)
at ``SIZE``, and ``_keep``, its render into a sample store."""


import pytest
from render_helpers import render_frames

SCENE = '''
import math
import hfrender as hf

class Spin(hf.Scene):
    duration = 0.3
    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.5, 0.3)))
        self.bar = self.add(hf.Cube(scale=(1.4, 0.2, 0.2), color=(0.9, 0.3, 0.1)))
        self.ball = self.add(hf.Sphere(radius=0.3, color=(0.2, 0.4, 0.9)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 4.0
    def update(self, t):
        self.bar.rotation = (0, 0, 2 * math.pi * 3 * t)
        self.ball.position = (-1.5 + 9 * t, 0.6, 0.5)
'''


SIZE = (64, 36)


@pytest.fixture(name="scene")
def scene_fixture(tmp_path):
    path = tmp_path / "spin.py"
    path.write_text(SCENE)
    return path


def _keep(scene, store, **settings):
    settings = {"size": SIZE, "dof": "off", **settings}
    frames, stats = render_frames(scene, keep_samples=str(store), **settings)
    return frames, stats
