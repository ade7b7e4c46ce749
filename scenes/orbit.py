# scenes/orbit.py
import math
import hfrender as hf

class Orbit(hf.Scene):
    duration = 4.0                      # seconds; --duration overrides
    def setup(self):                    # in each process: the same scene each time
        self.ball = self.add(hf.Sphere(radius=0.5, color=(1.0, 0.4, 0.1)))
        self.camera.position = (0, 1, 6); self.camera.look_at((0, 0, 0))
        self.camera.f_stop = 2.0; self.camera.focus_distance = 6.0
    def update(self, t):                # a pure function of t: all state from t alone
        self.ball.position = (2 * math.cos(3 * t), 0, 2 * math.sin(3 * t))
