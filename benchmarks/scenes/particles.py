"""1,000 small objects moving, what a manim user writes for particles or a grid of dots:
spheres of radius 0.05 m (2-3 px across at 320x180, 32 segments) or cubes of 0.1 m, 10-16 m
from the camera, each on a circle of its own (``benchmarks/RESULTS.md``, "Many objects").

    hfrender render benchmarks/scenes/particles.py -s Spheres --size 320x180 -o p.mp4
    hfrender render benchmarks/scenes/particles.py -s Cubes --size 320x180 -o p.mp4
"""

import math
import random

import hfrender as hf

COUNT = 1000


class Spheres(hf.Scene):
    duration = 1.0

    def make(self, rng):
        return hf.Sphere(radius=0.05, color=(rng.random(), rng.random(), rng.random()))

    def setup(self):
        rng = random.Random(7)
        self.dots = []
        for _ in range(COUNT):
            obj = self.add(self.make(rng))
            centre = (rng.uniform(-6, 6), rng.uniform(-3.4, 3.4), rng.uniform(-3, 3))
            self.dots.append((obj, centre, rng.uniform(0.1, 0.4), rng.uniform(1, 4),
                              rng.uniform(0, 2 * math.pi)))
        self.camera.position = (0, 0, 16)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for obj, (x, y, z), r, speed, phase in self.dots:
            a = phase + speed * t
            obj.position = (x + r * math.cos(a), y + r * math.sin(a), z)


class Cubes(Spheres):
    def make(self, rng):
        return hf.Cube(scale=0.1, color=(rng.random(), rng.random(), rng.random()),
                       rotation=(rng.random(), rng.random(), 0.0))
