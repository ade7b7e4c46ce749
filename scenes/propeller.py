"""A propeller at 3 turns a second: the classic motion-blur subject.

With a 180-degree shutter at 30 fps each frame sees 18 degrees of the turn smeared. Fast
rotation needs many samples to look continuous (--samples 32); try --shutter 45 (a crisp
action look) or --shutter 360.

    hfrender render scenes/propeller.py -o propeller.mp4
"""

import math

import hfrender as hf

TURNS_PER_SECOND = 3.0
BLADES = 3


class Propeller(hf.Scene):
    duration = 2.0
    background = (0.08, 0.09, 0.12)

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1.5), scale=12, color=(0.18, 0.2, 0.24)))
        self.hub = self.add(hf.Sphere(radius=0.16, color=(0.85, 0.85, 0.88)))
        self.blades = [self.add(hf.Cube(scale=(1.1, 0.16, 0.03), color=(0.95, 0.55, 0.12)))
                       for _ in range(BLADES)]
        self.tips = [self.add(hf.Sphere(radius=0.05, color=(1.0, 0.95, 0.8), emissive=1.5))
                     for _ in range(BLADES)]
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        angle = 2 * math.pi * TURNS_PER_SECOND * t
        for i, (blade, tip) in enumerate(zip(self.blades, self.tips, strict=True)):
            a = angle + 2 * math.pi * i / BLADES
            blade.rotation = (0.25, 0, a)  # a little pitch catches the light
            blade.position = (0.6 * math.cos(a), 0.6 * math.sin(a), 0)
            tip.position = (1.15 * math.cos(a), 1.15 * math.sin(a), 0.03)
