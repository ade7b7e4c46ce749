"""The bokeh benchmark's scene: lamps far behind the focus plane and near the camera, a
card in focus between them; the camera's ``aperture_blades`` shape their bokeh.

    hfrender render benchmarks/scenes/bokeh.py -o bokeh.mp4 --dof depth --size 640x360
"""

import hfrender as hf

BLADES = 6  # benchmarks/bokeh.py writes copies with other counts


class Bokeh(hf.Scene):
    duration = 0.1
    background = (0.01, 0.01, 0.015)

    def setup(self):
        for i, (x, y) in enumerate(((-0.95, 0.25), (-0.55, -0.3), (-0.15, 0.35), (0.3, -0.1),
                                    (0.75, 0.3), (1.05, -0.35))):  # far behind the focus
            tint = ((1.0, 0.8, 0.5), (0.6, 0.8, 1.0), (1.0, 0.6, 0.7))[i % 3]
            self.add(hf.Sphere(radius=0.05, position=(x, y, -6.0), color=tint, emissive=1.0))
        for x, y in ((-0.25, -0.115), (0.26, 0.135)):  # near the camera
            self.add(hf.Sphere(radius=0.015, position=(x, y, 2.5), color=(1.0, 1.0, 0.9),
                               emissive=1.0))
        self.add(hf.Cube(scale=(0.12, 0.12, 0.02), position=(0.0, -0.2, 0.0),
                         color=(0.85, 0.35, 0.2)))  # in focus
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))
        self.camera.focal_length_mm = 135
        self.camera.f_stop = 0.7
        self.camera.focus_distance = 5.0
        self.camera.aperture_blades = BLADES
