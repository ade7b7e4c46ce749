"""The shadow tests' scene, shared with the lamp and point-light shadow tests: a unit cube 1 m
above a floor seen by an orthographic camera (``cube_scene``; ``W`` x ``H`` pixels, ``PPM``
a metre across the floor, ``VIEW`` and ``UP``), ``draw``, the shadows worked by hand
(``floor_points``, ``box_margin``, ``footprint``, ``check_shadow``), ``code`` (a linear
value's sRGB code) and a lit sphere's pixels (``_lit_part``)."""

import math

import numpy as np

import hfrender as hf
from hfrender.color import linear_to_srgb, srgb_to_linear
from hfrender.renderer.renderer import SceneRenderer

W, H, PPM = 200, 120, 40.0  # pixels, and pixels a metre on the floor across the picture
FLOOR, AMBIENT = 0.5, 0.25  # the floor's display grey, the scene's ambient
VIEW = np.array([0.0, 1.0, 2.0]) / math.sqrt(5)  # towards the camera: the floor from above
UP = np.array([0.0, 2.0, -1.0]) / math.sqrt(5)  # the picture's up (its right: +x)


def cube_scene(light, shadows=True, look=(0.0, 0.0, 0.0), shader=None, cube=True, floor=12):
    """A unit cube 1 m above a floor ``floor`` m wide (its bottom at y = 1), an orthographic camera
    looking down at ``look`` from up the slope of VIEW (the floor under the cube seen
    whole: the cube hides the floor at z < -1.5 alone)."""

    class CubeOverFloor(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_direction = light

        def setup(self):
            self.shadows = shadows
            self.add(hf.Plane(scale=floor, rotation=(-math.pi / 2, 0, 0),
                              color=(FLOOR,) * 3, shader=shader))
            if cube:
                self.add(hf.Cube(position=(0, 1.5, 0), color=(0.2, 0.3, 0.9), shader=shader))
            self.camera.orthographic = True
            self.camera.ortho_height = H / PPM
            self.camera.position = tuple(np.asarray(look) + 10 * VIEW)
            self.camera.look_at(look)

    return CubeOverFloor()


def draw(glctx, scene, size=(W, H), times=(0.0,)):
    """The colour (H, W, 3) uint8 of ``scene`` drawn at each of ``times`` (the last's)."""
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, size, False)
    renderer.prepare()
    color = np.empty((size[1], size[0], 4), np.uint8)
    for t in times:
        scene.update(t)
        renderer.draw(t, 0)
    renderer.read_into(color)
    renderer.release()
    return color[..., :3]


def code(linear):
    return int(np.rint(linear_to_srgb(linear) * 255))


def floor_points(look=(0.0, 0.0, 0.0)):
    """(x, z) of the floor point each pixel's centre shows (H, W each)."""
    col, row = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    right, up = (col - W / 2) / PPM, (H / 2 - row) / PPM
    # a floor point p (y = 0) is seen where p . UP = up: -z * 2 / sqrt(5)... by VIEW's slope
    return look[0] + right, look[2] - up * math.sqrt(5)


def check_shadow(picture, inside, margin, ndotl):
    """Pixels ``margin`` (H, W: a pixel or more from the shadow's edge) inside the shadow
    are the floor's colour times ambient, those outside it lit; within 1 code."""
    c = float(srgb_to_linear(FLOOR))
    lit, dark = code(c * (AMBIENT + (1 - AMBIENT) * ndotl)), code(c * AMBIENT)
    red = picture[..., 0].astype(int)
    assert np.abs(red[inside & margin] - dark).max() <= 1
    assert np.abs(red[~inside & margin] - lit).max() <= 1
    assert (inside & margin).sum() > 400 and (~inside & margin).sum() > 5000
    return lit, dark


def box_margin(x, z, lo, hi):
    """Whether each floor point lies more than a pixel from the box [lo, hi] (x, z)'s
    edges, as seen (a metre across is PPM pixels, along z PPM / sqrt(5))."""
    px, pz = 1.0 / PPM, math.sqrt(5) / PPM
    near_x = (np.abs(x - lo[0]) < px) | (np.abs(x - hi[0]) < px)
    near_z = (np.abs(z - lo[1]) < pz) | (np.abs(z - hi[1]) < pz)
    in_x = (x > lo[0] - px) & (x < hi[0] + px)
    in_z = (z > lo[1] - pz) & (z < hi[1] + pz)
    return ~((near_x & in_z) | (near_z & in_x))


def footprint():
    """The floor pixels in the unit cube's footprint (x and z in [-0.5, 0.5]), and those
    more than a pixel from its edges below row 40 (the cube itself is drawn above row 34)."""
    x, z = floor_points()
    inside = (np.abs(x) < 0.5) & (np.abs(z) < 0.5)
    return inside, box_margin(x, z, (-0.5, -0.5), (0.5, 0.5)) & (np.arange(H)[:, None] >= 40)


def _lit_part(camera, radius, light):
    """The pixels whose centre's ray meets the sphere at the origin where n.l > 0.1 and
    n.v > 0.3 (clear of the silhouette, where the mesh's facets part from the sphere);
    ``light``: the unit way to the light, or a function of the points hit giving it."""
    to_world = np.linalg.inv(camera.projection(W / H) @ camera.view_matrix())
    col, row = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    ndc = np.stack([2 * col / W - 1, 2 * row / H - 1, np.ones_like(col),
                    np.ones_like(col)], -1)  # (y: the projection flips it)
    far = ndc @ to_world.T
    eye = np.asarray(camera.position, np.float64)
    ray = far[..., :3] / far[..., 3:] - eye
    ray /= np.linalg.norm(ray, axis=-1, keepdims=True)
    b = ray @ eye
    disc = b * b - (eye @ eye - radius * radius)
    hit = eye + ray * (-b - np.sqrt(np.maximum(disc, 0)))[..., None]
    n = hit / radius
    towards = light(hit) if callable(light) else light
    return (disc > 0) & ((n * towards).sum(-1) > 0.1) & (-(n * ray).sum(-1) > 0.3)
