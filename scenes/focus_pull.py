"""A focus pull: five objects in a row, the focus racking from the nearest to the farthest.

    hfrender render scenes/focus_pull.py -o focus_pull.mp4
"""

import math

import hfrender as hf

DEPTHS = (1.6, 2.6, 3.8, 5.4, 7.5)  # metres from the camera


class FocusPull(hf.Scene):
    duration = 3.0
    background = (0.55, 0.62, 0.72)

    def setup(self):
        self.add(hf.Plane(position=(0, -0.35, -6), rotation=(-math.pi / 2, 0, 0), scale=40,
                          color=(0.32, 0.30, 0.28)))
        colors = [(0.95, 0.3, 0.2), (0.98, 0.7, 0.15), (0.3, 0.8, 0.35), (0.2, 0.6, 0.95),
                  (0.7, 0.4, 0.9)]
        for i, (d, c) in enumerate(zip(DEPTHS, colors, strict=True)):
            x = 0.12 * d * (i - 2) / 2  # a diagonal row, each object in view
            if i % 2:
                self.add(hf.Cube(position=(x, -0.15, 3 - d), scale=0.3, color=c,
                                 rotation=(0, 0.6, 0)))
            else:
                self.add(hf.Sphere(position=(x, -0.15, 3 - d), radius=0.18, color=c))
        self.camera.position = (0, 0.25, 3)
        self.camera.look_at((0, 0.0, -3))
        self.camera.focal_length_mm = 85  # a portrait lens: shallow depth of field
        self.camera.f_stop = 1.4
        self.camera.aperture_blades = 6

    def update(self, t):
        # ease in and out from the nearest object to the farthest
        s = 0.5 - 0.5 * math.cos(math.pi * min(max(t / self.duration, 0.0), 1.0))
        self.camera.focus_distance = DEPTHS[0] * (DEPTHS[-1] / DEPTHS[0]) ** s
