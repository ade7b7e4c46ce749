"""400 translucent objects fading in together, what a manim user writes for
``FadeIn(VGroup(*grid))``: a 20 x 20 grid of cubes, planes or spheres at one opacity that
rises with time, turning; and ``Overlapping``, crossing panels, a large sphere and cubes
whose pictures meet, drawn over one another; ``ByDistance`` (and ``ByDistanceSpheres``),
the grid spread in depth, each object its own opacity by its distance from the eye
(``benchmarks/RESULTS.md``, "Translucent runs", "Per-instance opacity").

    hfrender render benchmarks/scenes/fading.py -s Cubes --size 480x270 -o f.mp4
"""

import hfrender as hf

SIDE = 20


class Cubes(hf.Scene):
    duration = 0.2

    def make(self, k):
        return hf.Cube(scale=0.3, color=(k / 400, 0.5, 1 - k / 400))

    def setup(self):
        self.grid = []
        for k in range(SIDE * SIDE):
            obj = self.add(self.make(k))
            obj.position = (-6 + 12 * (k % SIDE) / (SIDE - 1),
                            -3.4 + 6.8 * (k // SIDE) / (SIDE - 1), 0.0)
            self.grid.append(obj)
        self.add(hf.Plane(position=(0, 0, -2), scale=20, color=(0.2, 0.2, 0.2)))
        self.camera.position = (1, 2, 16)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        for k, obj in enumerate(self.grid):
            obj.opacity = 0.2 + 2 * t
            obj.rotation = (0.3 + t + k * 0.01, 0.5 + 2 * t, 0.0)


class Planes(Cubes):
    def make(self, k):
        return hf.Plane(scale=0.5, color=(k / 400, 0.5, 1 - k / 400))


class Spheres(Cubes):
    def make(self, k):
        return hf.Sphere(radius=0.2, color=(k / 400, 0.5, 1 - k / 400))


class Overlapping(Cubes):
    """Cubes and spheres whose pictures meet, panels crossing them and a large sphere
    around some: runs broken where pictures meet, and kept where they do not."""

    def make(self, k):
        if k % 3 == 0:
            return hf.Sphere(radius=0.45, color=(k / 400, 0.5, 1 - k / 400))
        return hf.Cube(scale=0.5, color=(k / 400, 0.5, 1 - k / 400))

    def setup(self):
        super().setup()
        for x, turn in ((-2, 0.6), (0, -0.5), (2, 0.3)):
            self.add(hf.Plane(position=(x, 0, 1), scale=(4, 6, 1), rotation=(0, turn, 0),
                              color=(1, 0.3, 0.2), opacity=0.4))
        self.add(hf.Sphere(position=(1, 0.5, 1.5), radius=2.0, color=(0.3, 1, 0.3),
                           opacity=0.3))


class ByDistance(Cubes):
    """The grid spread in depth, drifting towards the eye, each object its own opacity by
    its distance from the eye (a fade by distance: 400 opacities, one a run before
    per-instance opacity)."""

    def setup(self):
        super().setup()
        for k, obj in enumerate(self.grid):
            x, y, _ = obj.position
            depth = (7 * k + 3 * (k // SIDE)) % SIDE  # rows and columns shuffled in depth
            obj.position = (x, y, 1.5 - 6.0 * depth / (SIDE - 1))
        self.start = [obj.position for obj in self.grid]

    def update(self, t):
        super().update(t)
        eye = self.camera.position
        for obj, (x, y, z) in zip(self.grid, self.start, strict=True):
            obj.position = (x, y, z + 2 * t)
            far = sum((a - b) ** 2 for a, b in zip(obj.position, eye, strict=True)) ** 0.5
            obj.opacity = min(max((22.0 - far) / 8.0, 0.05), 0.95)


class ByDistanceSpheres(ByDistance):
    def make(self, k):
        return hf.Sphere(radius=0.2, color=(k / 400, 0.5, 1 - k / 400))
