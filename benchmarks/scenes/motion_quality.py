"""The quality harness's scene: every kind of motion that sub-frame sampling finds hard.

* a pendulum (a bright bob on a thin rod) swinging fast: translation along an arc, a thin
  feature;
* a two-bladed propeller at 4 turns a second: rotation;
* a dark block sliding fast in front of a detailed, tiled background: an occlusion edge
  over texture;
* a thin bar spinning about its end: a thin feature in rotation.

From ``STILL_FROM`` seconds on every object stops: the animation mixes still and fast
parts (what ``--samples auto`` is judged on).

    hfrender render benchmarks/scenes/motion_quality.py -o motion.mp4 --size 320x180
"""

import math

import hfrender as hf

STILL_FROM = 0.7  # seconds: from here on nothing moves


class MotionQuality(hf.Scene):
    duration = 1.0
    background = (0.05, 0.05, 0.07)

    def setup(self):
        for i in range(16):  # the tiled background: detail for occlusion edges to cross
            for j in range(9):
                shade = 0.25 + 0.5 * ((i * 7 + j * 3) % 5) / 4
                tint = (shade, 0.35 + 0.4 * ((i + j) % 2), 0.9 - 0.5 * shade)
                self.add(hf.Plane(position=(-3.75 + i * 0.5, -2.0 + j * 0.5, -1.2),
                                  scale=0.46, color=tint))
        self.rod = self.add(hf.Cube(scale=(0.025, 1.4, 0.025), color=(0.9, 0.9, 0.9)))
        self.bob = self.add(hf.Sphere(radius=0.17, color=(1.0, 0.75, 0.3), emissive=0.6))
        self.blades = [self.add(hf.Cube(scale=(0.9, 0.12, 0.03), color=(0.2, 0.8, 0.95)))
                       for _ in range(2)]
        self.hub = self.add(hf.Sphere(radius=0.08, position=(1.9, 0.6, 0.1),
                                      color=(0.9, 0.9, 0.9)))
        self.block = self.add(hf.Cube(scale=(0.5, 0.9, 0.3), color=(0.12, 0.1, 0.1)))
        self.bar = self.add(hf.Cube(scale=(0.9, 0.03, 0.03), color=(1.0, 1.0, 0.9),
                                    emissive=0.4))
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        t = min(t, STILL_FROM)
        swing = 1.1 * math.sin(2 * math.pi * 1.3 * t)  # radians; fast through the middle
        pivot = (-1.2, 1.6, 0.3)
        self.rod.position = (pivot[0] + 0.7 * math.sin(swing), pivot[1] - 0.7 * math.cos(swing),
                             0.3)
        self.rod.rotation = (0, 0, swing)
        self.bob.position = (pivot[0] + 1.45 * math.sin(swing),
                             pivot[1] - 1.45 * math.cos(swing), 0.3)
        spin = 2 * math.pi * 4.0 * t
        for i, blade in enumerate(self.blades):
            a = spin + math.pi * i
            blade.rotation = (0.2, 0, a)
            blade.position = (1.9 + 0.45 * math.cos(a), 0.6 + 0.45 * math.sin(a), 0.05)
        # across the frame in 0.09-0.6 s; again every 0.8 s (off screen at the jump) where
        # the motion is kept on past STILL_FROM (quality.py's long clip)
        self.block.position = (-2.6 + 7.5 * (t % 0.8), -0.9, 0.4)
        b = -2 * math.pi * 2.5 * t
        self.bar.rotation = (0, 0, b)
        self.bar.position = (1.4 + 0.45 * math.cos(b), -1.1 + 0.45 * math.sin(b), 0.5)
