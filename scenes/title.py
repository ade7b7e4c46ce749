"""A title (hf.Text) sliding in over a floor, motion-blurred as it arrives; the picture in
docs/rendering.md, Text: hfrender still scenes/title.py -t 0.45 --samples 32 --compare
--size 480x270 -o docs/images/text.png"""

import math

import hfrender as hf


class Title(hf.Scene):
    duration = 2.0
    background = (0.05, 0.05, 0.08)

    def setup(self):
        self.floor = self.add(hf.Plane(scale=8, rotation=(-math.pi / 2, 0, 0),
                                       position=(0, -0.6, 0), color=(0.3, 0.3, 0.35)))
        self.title = self.add(hf.Text("hfrender", height=0.35, color="orange"))
        self.caption = self.add(hf.Text("motion blur\nand depth of field", height=0.14,
                                        align="left", position=(-1.3, -0.25, 0.6)))
        self.ball = self.add(hf.Sphere(radius=0.3, position=(1.6, -0.3, -1.5),
                                       color=(0.2, 0.5, 1.0)))
        self.camera.position = (0, 0.9, 5.0)
        self.camera.look_at((0, 0, 0))
        self.camera.f_stop = 2.0
        self.camera.focus_distance = 5.0

    def update(self, t):
        arrive = hf.ease_out(min(t / 0.6, 1.0))  # slides in from the left over 0.6 s
        self.title.position = (-6.0 * (1 - arrive), 0.35, 0)
        self.caption.opacity = hf.smooth(min(t / 0.4, 1.0))  # fades in over 0.4 s
