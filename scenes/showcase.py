"""The demo: a spinning wheel in focus, a ball racing past it, and depth all around.

    hfrender render scenes/showcase.py -o demo.mp4
"""

import math

import hfrender as hf


class Showcase(hf.Scene):
    duration = 3.0
    background = (0.62, 0.7, 0.8)
    light_direction = (0.5, 0.9, 0.7)

    def setup(self):
        floor = (0.42, 0.4, 0.37)
        self.add(hf.Plane(position=(0, -0.6, -4), rotation=(-math.pi / 2, 0, 0), scale=40,
                          color=floor))
        for i in range(-3, 4):  # posts receding into the distance: the defocused background
            self.add(hf.Cube(position=(1.6 * i, 0.2, -7.0), scale=(0.25, 1.6, 0.25),
                             color=(0.85, 0.82, 0.75)))
        self.near = self.add(hf.Sphere(position=(-0.45, 0.12, 2.55), radius=0.1,
                                       color=(0.95, 0.25, 0.3)))  # out of focus, near
        self.hub = self.add(hf.Cube(position=(0.75, 0.3, 0.6), scale=0.18,
                                    color=(0.2, 0.2, 0.22)))
        self.spokes = [self.add(hf.Cube(scale=(1.0, 0.06, 0.05), color=(0.95, 0.75, 0.2)))
                       for _ in range(3)]
        self.ball = self.add(hf.Sphere(radius=0.25, color=(0.2, 0.55, 1.0)))
        self.camera.position = (0, 0.3, 4.0)
        self.camera.look_at((0, 0.1, 0))
        self.camera.f_stop = 1.2
        self.camera.focus_distance = 3.4  # the wheel and the ball

    def update(self, t):
        spin = 2 * math.pi * 1.5 * t  # 1.5 turns a second
        for i, spoke in enumerate(self.spokes):
            spoke.position = self.hub.position
            spoke.rotation = (0, 0, spin + math.pi * i / 3)
        # the ball crosses the frame and back, fastest in the middle
        self.ball.position = (1.8 * math.sin(2.1 * t), -0.35, 0.6)
        self.ball.rotation = (0, 0, -2.1 * t / 0.25)
