"""Groups, layout and labels at a glance: two rows of planets laid out with hf.arrange,
each row a Group that turns 60 degrees, each planet's name put above it with hf.next_to.
The left row's names are plain Text (they turn with the row, nearly edge-on); the right
row's face the camera (face_camera=True). The giants are a group of their own at opacity
0.5, their names too: the floor's lines show through them. The picture in
docs/rendering.md, Layout:
hfrender still scenes/labelled_row.py -t 2.5 --size 640x360 -o docs/images/labelled_row.png"""

import math

import hfrender as hf

PLANETS = (("Sun", 0.3, "gold"), ("Earth", 0.12, "dodgerblue"), ("Mars", 0.09, "tomato"))
GIANTS = (("Jupiter", 0.22, "sandybrown"), ("Saturn", 0.19, "khaki"))


class LabelledRow(hf.Scene):
    duration = 3.0
    background = (0.05, 0.05, 0.08)

    def setup(self):
        self.floor = self.add(hf.Plane(scale=100, rotation=(-math.pi / 2, 0, 0),
                                       position=(0, -0.5, 0), color=(0.25, 0.25, 0.3)))
        self.lines = [self.add(hf.Cube(scale=(0.02, 0.002, 12), position=(0.5 * i, -0.5, 0),
                                       color=(0.5, 0.5, 0.55))) for i in range(-12, 13)]
        self.rows = [self.row(-1.4, face_camera=False), self.row(1.4, face_camera=True)]
        for x, words in ((-1.4, "face_camera=False"), (1.4, "face_camera=True")):
            self.add(hf.Text(words, height=0.16, position=(x, 1.3, 0), face_camera=True))
        self.camera.position = (0, 2.8, 7.6)
        self.camera.look_at((0, 0.35, 0))

    def row(self, x, face_camera):
        """A Group of spheres side by side (the giants a group in it, at opacity 0.5), and a
        name above each sphere, in the sphere's own group so that next_to can place it."""
        giants = hf.Group(*(hf.Sphere(radius=r, color=c) for _, r, c in GIANTS), opacity=0.5)
        row = hf.Group(*(hf.Sphere(radius=r, color=c, emissive=float(name == "Sun"))
                         for name, r, c in PLANETS), giants, position=(x, 0, 0))
        hf.arrange(giants, (1, 0, 0), buff=0.3)
        hf.arrange(row, (1, 0, 0), buff=0.35)  # left to right, the giants' box as one
        self.add(row)
        for (name, _, _), body in zip(PLANETS + GIANTS, [*row.children[:-1],
                                                          *giants.children], strict=True):
            label = hf.Text(name, height=0.12, parent=body.parent, face_camera=face_camera)
            hf.next_to(label, body, (0, 1, 0), buff=0.08)
        return row

    def update(self, t):
        turn = math.radians(-60) * hf.smooth(min(t / 2.0, 1.0))  # over 2 s, then rests
        for row in self.rows:
            row.rotation = (0, turn, 0)
