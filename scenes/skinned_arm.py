"""A skinned, morphing model from a file: ``assets/arm.glb`` (made by
``scenes/assets/make_assets.py``) is a tube on three bones whose animation ``Wave`` bends it
up and down at its shoulder, elbow and wrist while a morph target swells its end; hfrender
poses it by linear blend skinning after its morph target, and the motion blur follows each
vertex (the tip sweeps fastest). Needs trimesh: ``pip install 'hfrender[models]'``.

    hfrender render scenes/skinned_arm.py -o arm.mp4
    hfrender still scenes/skinned_arm.py -t 0.75 --size 240x160 --samples 32 --compare \\
        -o docs/images/model_skin.png
"""

import math

import hfrender as hf


class SkinnedArm(hf.Scene):
    duration = 4.0
    background = (0.08, 0.09, 0.12)
    light_direction = (0.3, 0.8, 0.6)
    ambient = 0.3

    def setup(self):
        self.add(hf.Plane(rotation=(-math.pi / 2, 0, 0), scale=12, color=(0.3, 0.32, 0.36)))
        self.add(hf.Cube(position=(-1.75, 0.6, 0), scale=(0.4, 1.2, 0.4), color="#5a6270"))
        self.arm = self.add(hf.Mesh.load("assets/arm.glb"))  # beside this script
        self.camera.position = (0.3, 1.8, 6.6)
        self.camera.look_at((0.2, 1.4, 0.0))

    def update(self, t):
        self.arm.time = t % self.arm.duration  # animation "Wave" (2 s), looped
