"""A model from a file on a turntable: ``hf.Mesh.load`` with a glTF made by the project.

``assets/toy.glb`` (made by ``scenes/assets/make_assets.py``) holds a checker-textured
crate, a ring with vertex colours tilted on top of it and a blue ball, each a node with its
own transform. The toy turns half a turn a second and bobs; a 50 mm f/2 lens focused on
it softens the floor's far edge. Needs trimesh: ``pip install 'hfrender[models]'``.

    hfrender render scenes/toy_turntable.py -o toy.mp4
"""

import math

import hfrender as hf

TURNS_PER_SECOND = 0.5


class ToyTurntable(hf.Scene):
    duration = 4.0
    background = (0.1, 0.11, 0.14)
    light_direction = (0.5, 0.9, 0.7)
    ambient = 0.25

    def setup(self):
        self.add(hf.Plane(rotation=(-math.pi / 2, 0, 0), scale=10, color=(0.32, 0.34, 0.38)))
        self.toy = self.add(hf.Mesh.load("assets/toy.glb"))  # beside this script
        self.twin = self.add(hf.Mesh.load("assets/toy.glb", scale=0.6, color="#9fd4ff"))
        self.camera.position = (0.9, 2.4, 6.2)
        self.camera.look_at((-0.55, 0.75, -0.6))
        self.camera.f_stop = 2.0
        self.camera.focus_distance = 6.3

    def update(self, t):
        angle = 2 * math.pi * TURNS_PER_SECOND * t
        self.toy.rotation = (0, angle, 0)
        self.toy.position = (0, 0.05 * (1 - math.cos(4 * angle)), 0)
        self.twin.rotation = (0, -2 * angle, 0)
        self.twin.position = (-1.9, 0, -1.8)
