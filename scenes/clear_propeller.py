"""A propeller with no background: motion blur with alpha, to composite over anything.

``background = None`` (or ``--transparent`` on any scene) leaves the background out: alpha
0 there, and alpha blended like light by the motion blur, so the blades' streaks are partly
transparent. Write a format that keeps alpha:

    hfrender render scenes/clear_propeller.py -o clear.mov           # ProRes 4444
    hfrender render scenes/clear_propeller.py -o frames/%04d.png     # RGBA PNG
"""
import math

import hfrender as hf


class Clear(hf.Scene):
    duration = 1.0
    background = None
    def setup(self):
        self.blades = [self.add(hf.Cube(scale=(1.1, 0.16, 0.03), color=(0.95, 0.55, 0.12)))
                       for _ in range(3)]
        self.hub = self.add(hf.Sphere(radius=0.16, color=(0.85, 0.85, 0.88)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
    def update(self, t):
        for i, blade in enumerate(self.blades):
            a = 2 * math.pi * (3 * t + i / 3)
            blade.rotation = (0.25, 0, a)
            blade.position = (0.6 * math.cos(a), 0.6 * math.sin(a), 0)
