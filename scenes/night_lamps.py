"""Lamps at night: lights far brighter than white, through motion blur and depth of field.

Two lanterns swing past a post in focus while a row of street lamps far behind is thrown
out of focus by an f/1.4 lens. Each light is 20-40x brighter than a white surface
(``emissive``), so ``--hdr auto`` draws the sub-frames in float linear light: the swinging
lanterns leave streaks as bright as the lamps themselves, and the street lamps open into
bright discs (bokeh). With ``--hdr off`` (8-bit sub-frames) every light is cut to white
before the blur: faint streaks, dim discs.

Lights this bright show every lens position as a copy of their own until the copies are
many: draw the discs in one pass with ``--dof depth``, or give the lens many samples.

    hfrender render scenes/night_lamps.py -o night_lamps.mp4 --dof depth
    hfrender still scenes/night_lamps.py -t 0 -o lamps.png --samples 256   # lens discs
    hfrender still scenes/night_lamps.py -t 0 -o off.png --samples 256 --hdr off   # compare
"""

import math

import hfrender as hf

STREET = [(1.0, 0.75, 0.4), (1.0, 0.9, 0.7), (0.6, 0.8, 1.0), (1.0, 0.75, 0.4),
          (1.0, 0.5, 0.3), (0.6, 0.8, 1.0), (1.0, 0.9, 0.7)]


class NightLamps(hf.Scene):
    duration = 2.0
    background = (0.02, 0.025, 0.05)
    ambient = 0.15

    def setup(self):
        self.add(hf.Plane(position=(0, -0.9, -6), rotation=(-math.pi / 2, 0, 0), scale=40,
                          color=(0.08, 0.08, 0.1)))
        self.add(hf.Cube(position=(0.35, -0.2, -2), scale=(0.05, 1.4, 0.05),
                         color=(0.5, 0.5, 0.55)))
        for i, colour in enumerate(STREET):  # far behind the focus: bokeh discs
            self.add(hf.Sphere(position=(-3.3 + 1.1 * i, 0.7 + 0.35 * (i % 2), -18),
                               radius=0.05, color=colour, emissive=40))
        self.lanterns = [self.add(hf.Sphere(radius=0.025, color=c, emissive=20))
                         for c in ((1.0, 0.6, 0.25), (0.5, 0.8, 1.0))]
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -2))
        self.camera.focal_length_mm = 85
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 2.0

    def update(self, t):
        for i, lantern in enumerate(self.lanterns):  # pendulums, half a swing apart
            a = 0.6 * math.sin(2 * math.pi * 2 * t + math.pi * i)
            lantern.position = (0.5 * math.sin(a) + (0.25 if i else -0.25),
                                0.45 - 0.5 * math.cos(a) - 0.15 * i, -2.0)
