"""A glTF material's emissive texture, out of focus: the sign beside ``assets/windmill.glb``'s
mill (made by ``scenes/assets/make_assets.py``) has a screen whose ``emissiveTexture`` is a
picture of bulbs round a cross, factor 1 and strength 4 (4x white). Seen through an 85 mm
f/1.4 lens focused on a fence post near the camera, its bulbs open into bokeh discs that
keep their light and colour: ``--hdr auto`` sees the material's strength and draws the sub-frames
in float. The mill's animation plays as in ``scenes/windmill.py``. Needs trimesh:
``pip install 'hfrender[models]'``.

    hfrender render scenes/windmill_sign.py -o sign.mp4
    hfrender still scenes/windmill_sign.py -t 0.1 --size 240x200 --samples 64 --compare \\
        -o docs/images/model_emission.png
"""

import math

import hfrender as hf


class WindmillSign(hf.Scene):
    duration = 4.0
    background = (0.04, 0.05, 0.1)  # dusk
    light_direction = (-0.4, 0.8, 0.6)
    ambient = 0.3

    def setup(self):
        self.add(hf.Plane(rotation=(-math.pi / 2, 0, 0), scale=30, color=(0.2, 0.26, 0.18)))
        self.mill = self.add(hf.Mesh.load("assets/windmill.glb"))  # beside this script
        self.post = self.add(hf.Cylinder(radius=0.035, height=1.6, position=(1.66, 0.8, 3.64),
                                         color=(0.45, 0.32, 0.22)))  # a fence post, in focus
        self.camera.position = (2.3, 1.05, 4.6)
        self.camera.look_at((1.0, 1.0, 1.7))
        self.camera.focal_length_mm = 85
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 1.15  # the post; the sign some 2 m past it

    def update(self, t):
        self.mill.time = t % self.mill.duration
