"""What the --hdr tests share: ``SCENE`` (a lamp, an emissive plane, sliding across the
frame) at ``SIZE`` and ``_scene`` (it written to a file), and ``BOKEH`` (a small lamp 50x
white, the lens focused at {focus} m)."""


# a white plane lit by ambient light alone: every pixel it covers is exactly 1 + emissive
# (linear), the background 0; it slides across the picture within each frame's shutter
SCENE = '''
import hfrender as hf

class Lamp(hf.Scene):
    duration = 0.2
    background = (0, 0, 0)
    ambient = 1.0
    def setup(self):
        self.lamp = self.add(hf.Plane(scale=0.3, color=(1, 1, 1), emissive={emissive}))
        self.camera.position = (0, 0, 4)
    def update(self, t):
        self.lamp.position = (-0.6 + 4 * t, 0, 0)
        {later}
'''
SIZE = (96, 54)


def _scene(tmp_path, emissive, later="pass", name="lamp"):
    path = tmp_path / f"{name}.py"
    path.write_text(SCENE.format(emissive=emissive, later=later))
    return path


BOKEH = '''
import hfrender as hf

class Bokeh(hf.Scene):
    duration = 0.1
    background = (0, 0, 0)
    ambient = 1.0
    def setup(self):
        # a small lamp 4 m away; the lens focused at {focus} m
        self.add(hf.Plane(position=(0, 0, -3), scale=0.06, color=(1, 1, 1), emissive=49))
        self.camera.position = (0, 0, 1)
        self.camera.focal_length_mm = 85
        self.camera.f_stop = 1.4
        self.camera.focus_distance = {focus}
'''
