"""Shadows (shadows = True): a cube tumbling above a floor, a ball racing round it and a
cone, each casting the light's shadow; the ball's shadow blurs with the ball, since every
sub-frame draws its own shadow map. The picture in docs/rendering.md, Shadows:
hfrender still scenes/shadows.py -t 0.3 --size 640x360 --samples 16 -o docs/images/shadows.png"""

import math

import hfrender as hf


class Shadows(hf.Scene):
    duration = 4.0
    background = (0.05, 0.05, 0.08)
    light_direction = (0.7, 1.0, -0.25)  # towards the light: high, right, behind
    ambient = 0.2
    shadows = True

    def setup(self):
        self.add(hf.Plane(scale=30, rotation=(-math.pi / 2, 0, 0), color=(0.75, 0.75, 0.7)))
        self.cube = self.add(hf.Cube(scale=0.8, color="tomato"))
        self.ball = self.add(hf.Sphere(radius=0.3, color="gold"))
        self.add(hf.Cone(radius=0.35, height=0.9, position=(1.5, 0.45, -0.6),
                         color="dodgerblue"))
        self.camera.position = (0, 4.0, 7.0)
        self.camera.look_at((0, 0.5, 0))

    def update(self, t):
        self.cube.position = (-0.6, 1.1 + 0.35 * abs(math.sin(2 * t)), 0.0)
        self.cube.rotation = (0.7 * t, 1.1 * t, 0.0)
        angle = 3.0 * t
        self.ball.position = (1.9 * math.cos(angle), 0.3, 1.9 * math.sin(angle))
