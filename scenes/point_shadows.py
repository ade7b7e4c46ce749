"""Point-lamp shadows (hf.PointLight(shadows=True)): a bare bulb hanging low in a corner
of two walls, among a cube, a ball, a cone and a column, each casting its shadow away
from the bulb in every direction (onto the floor and both walls), the bulb itself (an
emissive sphere within the lamp's radius) casting none. The directional light is off.
The picture in docs/rendering.md, Lamps:
hfrender still scenes/point_shadows.py --size 640x360 --samples 16 \
    -o docs/images/point_shadows.png"""

import math

import hfrender as hf


class PointShadows(hf.Scene):
    duration = 4.0
    background = (0.02, 0.02, 0.03)
    light_strength = 0  # the directional light off: lit by the bulb
    ambient = 0.04

    def setup(self):
        grey = (0.6, 0.6, 0.6)
        self.add(hf.Plane(scale=8, rotation=(-math.pi / 2, 0, 0), color=grey))
        self.add(hf.Plane(scale=8, position=(0, 4, -2.5), color=(0.55, 0.6, 0.7)))
        self.add(hf.Plane(scale=8, position=(-3, 4, 0), rotation=(0, math.pi / 2, 0),
                          color=(0.7, 0.6, 0.55)))
        self.add(hf.Cube(position=(-1.2, 0.35, 0.2), scale=0.7, rotation=(0, 0.5, 0),
                         color="white"))
        self.add(hf.Sphere(position=(1.1, 0.45, 0.6), radius=0.45, color="white"))
        self.add(hf.Cone(position=(0.4, 0.4, -1.4), radius=0.35, height=0.8, color="white"))
        self.add(hf.Cylinder(position=(-1.9, 0.9, -1.5), radius=0.15, height=1.8,
                             color="white"))
        self.bulb = self.add(hf.Group(
            hf.PointLight(color=(1.0, 0.8, 0.55), intensity=2.5, radius=0.06, shadows=True),
            hf.Sphere(radius=0.05, color=(1.0, 0.85, 0.6), emissive=6, shader="unlit"),
))
        self.bulb.position = (-0.2, 1.4, -0.3)
        self.camera.position = (2.0, 3.0, 6.8)
        self.camera.look_at((-0.4, 0.7, -0.6))

    def update(self, t):
        a = 2 * math.pi * t / self.duration  # the bulb swings on its cord
        self.bulb.position = (-0.2 + 0.5 * math.sin(a), 1.4, -0.3)
