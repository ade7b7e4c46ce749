"""3,000 small spheres (radius 0.04 m) on seeded random orbits about the y axis, a pure
function of t: the per-object Python of a sub-frame (``benchmarks/RESULTS.md``, "Many
objects: 3,000 particles").

    hfrender render benchmarks/scenes/orbits.py --duration 0.5 --fps 10 --size 320x180
"""
import math
import random

import hfrender as hf

N = 3000


class Particles(hf.Scene):
    duration = 1.0
    background = (0.02, 0.02, 0.04)

    def setup(self):
        rng = random.Random(7)
        self.orbits = []
        for _ in range(N):
            r = rng.uniform(0.5, 4.0)
            w = rng.uniform(0.5, 4.0)
            phase = rng.uniform(0, 2 * math.pi)
            y = rng.uniform(-2, 2)
            colour = (rng.random(), rng.random(), rng.random())
            ball = self.add(hf.Sphere(radius=0.04, color=colour))
            self.orbits.append((ball, r, w, phase, y))
        self.camera.position = (0, 2, 9)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for ball, r, w, phase, y in self.orbits:
            a = phase + w * t
            ball.position = (r * math.cos(a), y, r * math.sin(a))
