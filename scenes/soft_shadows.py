"""Soft shadows (light_angle = 12: the sun's disk 12 degrees across): a column standing on
the floor, a ball resting on it and a slab held high. Each sub-frame is lit from its own
point of the sun's disk, so the shadows are sharp where a caster meets the floor and
blur with the height above it (the column's from its foot to its top's, the slab's all
round). The picture in docs/rendering.md, Shadows:
hfrender still scenes/soft_shadows.py --size 640x360 --samples 64 -o docs/images/soft_shadows.png"""

import math

import hfrender as hf


class SoftShadows(hf.Scene):
    duration = 2.0
    background = (0.05, 0.05, 0.08)
    light_direction = (0.45, 1.0, 0.3)  # towards the light: high, right, in front
    light_angle = 12
    ambient = 0.2
    shadows = True

    def setup(self):
        self.add(hf.Plane(scale=30, rotation=(-math.pi / 2, 0, 0), color=(0.75, 0.75, 0.7)))
        self.add(hf.Cylinder(radius=0.12, height=2.4, position=(1.2, 1.2, -0.4),
                             color="dodgerblue"))
        self.add(hf.Sphere(radius=0.35, position=(-1.6, 0.35, 0.4), color="gold"))
        self.add(hf.Cube(scale=(1.2, 0.1, 0.8), position=(-0.6, 1.8, -1.2), color="tomato"))
        self.camera.position = (0.5, 4.0, 8.0)
        self.camera.look_at((-0.2, 0.7, -0.6))
