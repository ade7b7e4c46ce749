"""A glTF model's own animation played: ``assets/windmill.glb`` (made by
``scenes/assets/make_assets.py``) holds animation ``Turn``, the sails turning twice a second
on a child node and the whole mill turning slowly to and fro; ``update`` sets the model's
``time`` and hfrender plays its keys, the sails' motion blur following them (beside the mill,
its sign's emissive texture: ``scenes/windmill_sign.py``). Needs trimesh:
``pip install 'hfrender[models]'``.

    hfrender render scenes/windmill.py -o windmill.mp4
    hfrender still scenes/windmill.py -t 0.1 --size 240x200 --samples 32 --compare \\
        -o docs/images/model_animation.png
"""

import math

import hfrender as hf


class Windmill(hf.Scene):
    duration = 4.0
    background = (0.04, 0.05, 0.1)  # dusk
    light_direction = (-0.4, 0.8, 0.6)
    ambient = 0.3

    def setup(self):
        self.add(hf.Plane(rotation=(-math.pi / 2, 0, 0), scale=30, color=(0.2, 0.26, 0.18)))
        self.mill = self.add(hf.Mesh.load("assets/windmill.glb"))  # beside this script
        self.camera.position = (1.8, 1.7, 6.6)
        self.camera.look_at((0.1, 1.55, 0.6))

    def update(self, t):
        self.mill.time = t % self.mill.duration  # loops the file's 2 s animation

