"""The built-in shapes at a glance, left to right: hf.Cube, hf.Sphere, hf.Cylinder, hf.Cone
and hf.Torus, laid out with hf.arrange on a floor, each turning slowly about y, seen a
little from above (the cylinder's and cone's flat caps, the torus's hole). The cylinder,
the cone and the torus stand along y, centred on their position. The picture in
docs/rendering.md, Scenes:
hfrender still scenes/shapes.py -t 1 --size 640x240 -o docs/images/shapes.png"""

import math

import hfrender as hf

SHAPES = ((hf.Cube, dict(scale=0.8), "tomato"),
          (hf.Sphere, dict(radius=0.45), "gold"),
          (hf.Cylinder, dict(radius=0.4, height=0.9), "mediumseagreen"),
          (hf.Cone, dict(radius=0.45, height=0.9), "dodgerblue"),
          (hf.Torus, dict(radius=0.38, tube=0.13, rotation=(math.radians(60), 0, 0)),
           "orchid"))


class Shapes(hf.Scene):
    duration = 4.0
    background = (0.05, 0.05, 0.08)

    def setup(self):
        self.add(hf.Plane(scale=40, rotation=(-math.pi / 2, 0, 0), position=(0, -0.5, 0),
                          color=(0.25, 0.25, 0.3)))
        self.row = hf.Group(*(shape(color=colour, **size) for shape, size, colour in SHAPES))
        hf.arrange(self.row, (1, 0, 0), buff=0.35)
        self.add(self.row)
        self.tilts = [obj.rotation for obj in self.row.children]
        self.camera.position = (0, 2.2, 9.0)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for obj, (x, _, z) in zip(self.row.children, self.tilts, strict=True):
            obj.rotation = (x, 0.4 * t, z)  # a slow turn about y
