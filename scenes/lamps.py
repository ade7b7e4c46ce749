"""Lamps (hf.PointLight, hf.SpotLight): a warm firefly (a point lamp and a small glowing
bulb in one hf.Group) circling a cube, a ball and a cone, and a cool spot from above
following the ball (target=self.ball), the ball's shadow in its light (shadows=True; the
point lamp casts none here: scenes/point_shadows.py has one that does). The lamps
themselves are not drawn, as in Blender:
the bulb is an emissive sphere beside the firefly's lamp, and it streaks as it moves.
The directional light is off (light_strength = 0): the lamps and a faint ambient light
the shapes. The picture in docs/rendering.md, Lamps:
hfrender still scenes/lamps.py -t 1.2 --size 640x360 --samples 16 -o docs/images/lamps.png"""

import math

import hfrender as hf


class Lamps(hf.Scene):
    duration = 4.0
    background = (0.02, 0.02, 0.035)
    light_strength = 0  # the directional light off: lit by the lamps
    ambient = 0.05

    def setup(self):
        self.add(hf.Plane(scale=40, rotation=(-math.pi / 2, 0, 0), color=(0.5, 0.5, 0.5)))
        self.add(hf.Cube(position=(-1.3, 0.45, -0.3), scale=0.9, rotation=(0, 0.6, 0),
                         color="white"))
        self.ball = self.add(hf.Sphere(radius=0.5, color="white"))
        self.add(hf.Cone(position=(0.1, 0.5, -1.4), radius=0.4, height=1.0, color="white"))
        self.firefly = self.add(hf.Group(
            hf.PointLight(color=(1.0, 0.65, 0.3), intensity=0.9, radius=0.05),
            hf.Sphere(radius=0.035, color=(1.0, 0.75, 0.45), emissive=6, shader="unlit")))
        self.spot = self.add(hf.SpotLight(position=(0.5, 4.0, 1.0), target=self.ball,
                                          angle=30, blend=0.3, color=(0.6, 0.8, 1.0),
                                          shadows=True, intensity=14))
        self.camera.position = (0, 2.4, 5.5)
        self.camera.look_at((0, 0.5, 0))

    def update(self, t):
        a = 2 * math.pi * t / self.duration  # once round in the animation
        self.firefly.position = (2.0 * math.cos(a), 0.9 + 0.25 * math.sin(3 * a),
                                 0.3 + 1.6 * math.sin(a))
        self.ball.position = (1.2 + 0.35 * math.sin(2 * a), 0.5, 0.4)
