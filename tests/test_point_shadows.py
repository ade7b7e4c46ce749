"""A point lamp's ``shadows=True`` (hfrender/renderer/lamp_shadows.py: six 90-degree faces
in one depth atlas; hf_lamp_shadow() in shaders/glsl/mesh_header.frag). Each shadow's
place is worked by hand from the lamp's point, each lit value from its falloff."""

import math

import numpy as np
import pytest
from shadow_helpers import AMBIENT, FLOOR, PPM, H, W, _lit_part, code, draw

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError
from hfrender.scene.lamps import lit_at

WAYS = {"+x": (1, 0, 0), "-x": (-1, 0, 0), "+y": (0, 1, 0), "-y": (0, -1, 0),
        "+z": (0, 0, 1), "-z": (0, 0, -1)}
TURNS = {"+x": (0, -math.pi / 2, 0), "-x": (0, math.pi / 2, 0), "+y": (math.pi / 2, 0, 0),
         "-y": (-math.pi / 2, 0, 0), "+z": (0, math.pi, 0), "-z": (0, 0, 0)}  # (to face -way)
POWER = 2.0  # the lamp's intensity
SHADE = 0.25 * 2.0 / 0.75  # the cube's nearest face (0.75 m out, 0.25 m half) on the wall 2 m out


def wall_scene(name, shadows=True, resolution=None, more=None):
    """A point lamp at the origin, a 6 m wall 2 m from it along WAYS[name] facing it, a
    0.5 m cube half way between; the directional light off; an orthographic camera on
    the lamp's side looking down at the wall's middle at a slope of 2 in 1."""
    way = np.asarray(WAYS[name], np.float64)
    side = np.roll(np.abs(way), 1)

    class PointOverWall(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_strength = 0

        def setup(self):
            self.add(hf.Plane(scale=6, position=tuple(2 * way), rotation=TURNS[name],
                              color=(FLOOR,) * 3))
            self.cube = self.add(hf.Cube(position=tuple(way), scale=0.5,
                                         color=(0.2, 0.3, 0.9)))
            self.lamp = self.add(hf.PointLight(intensity=POWER, shadows=shadows,
                                               shadow_resolution=resolution))
            self.camera.orthographic = True
            self.camera.ortho_height = H / PPM
            self.camera.position = tuple(2 * way + 10 * (side - 2 * way) / math.sqrt(5))
            self.camera.look_at(tuple(2 * way))
            if more is not None:
                more(self)

    return PointOverWall(), way, side


def _rays(camera):
    """Each pixel centre's ray: its start (H, W, 3) on the near plane and way (unit)."""
    to_world = np.linalg.inv(camera.projection(W / H) @ camera.view_matrix())
    col, row = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    ends = []
    for depth in (-1.0, 1.0):
        ndc = np.stack([2 * col / W - 1, 2 * row / H - 1, np.full_like(col, depth),
                        np.ones_like(col)], -1)  # (y: the projection flips it)
        at = ndc @ to_world.T
        ends.append(at[..., :3] / at[..., 3:])
    way = ends[1] - ends[0]
    return ends[0], way / np.linalg.norm(way, axis=-1, keepdims=True)


def _misses_box(start, way, middle, half):
    """Whether each ray misses the box ``middle`` +- ``half`` (a slab test)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t0, t1 = (middle - half - start) / way, (middle + half - start) / way
    enter = np.nanmax(np.minimum(t0, t1), -1)
    leave = np.nanmin(np.maximum(t0, t1), -1)
    return enter > leave


def wall_points(scene, way, side):
    """(a, b, seen): each pixel's point of the wall, a along ``side`` and b across it, and
    whether that point is seen (the cube, 1 cm grown, not in front of it)."""
    start, ray = _rays(scene.camera)
    hit = start + ray * ((2.0 - start @ way) / (ray @ way))[..., None]
    seen = _misses_box(start, ray, way, 0.26)
    return (hit - 2 * way) @ side, (hit - 2 * way) @ np.cross(way, side), seen


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("name", list(WAYS))
def test_a_cube_beside_a_point_lamp_shadows_the_wall_behind_it_every_way(gl_context, name):
    """The cube's nearest face (0.75 m from the lamp, 0.25 m half) projected from the lamp
    onto the wall 2 m out is the square |a|, |b| < 2/3: every wall pixel seen, 0.1 m or
    more from its edges, is inside it the wall's colour times ambient, and outside it its
    colour times (ambient + intensity x cos / d^2: 2 x 2 / d^3) within 1 code, whichever of
    the six faces of the lamp's map it falls in."""
    scene, way, side = wall_scene(name)
    picture = draw(gl_context(), scene)[..., 0].astype(int)
    a, b, seen = wall_points(scene, way, side)
    edge = np.maximum(np.abs(a), np.abs(b))
    inside, outside = seen & (edge < SHADE - 0.1), seen & (edge > SHADE + 0.1) & (edge < 2.8)
    c = float(srgb_to_linear(FLOOR))
    far = np.sqrt(4.0 + a * a + b * b)
    lit = np.vectorize(code)(c * (AMBIENT + POWER * 2.0 / far ** 3))
    assert inside.sum() > 1000 and outside.sum() > 10000
    assert np.abs(picture[inside] - code(c * AMBIENT)).max() <= 1
    assert np.abs(picture[outside] - lit[outside]).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_a_sphere_beside_a_point_lamp_shows_no_acne(gl_context):
    """A sphere alone beside a point lamp: every pixel of its lit half (n.l over 0.1
    towards the lamp) is within 1 code of it drawn without shadows, the lamp at several
    distances and ways (its light across faces of the map)."""
    for radius, lamp in ((1.0, (1.0, 3.0, 2.0)), (0.3, (0.6, 0.3, 0.5)),
                         (1.4, (-1.0, 2.0, 3.0)), (0.5, (0.0, 0.0, 1.5))):
        def scene(shadows, radius=radius, lamp=lamp):
            class Ball(hf.Scene):
                background = (0.0, 0.0, 0.0)
                light_strength = 0

                def setup(self):
                    self.add(hf.Sphere(radius=radius, color=(0.9, 0.8, 0.7)))
                    self.add(hf.PointLight(position=lamp, intensity=8, shadows=shadows))
                    self.camera.position = (0, 0, 5)
                    self.camera.look_at((0, 0, 0))
            return Ball()

        ctx, ball = gl_context(), scene(True)
        on, off = draw(ctx, ball), draw(ctx, scene(False))

        def towards(hit, lamp=lamp):
            way = np.asarray(lamp) - hit
            return way / np.linalg.norm(way, axis=-1, keepdims=True)

        lit = _lit_part(ball.camera, radius, towards)
        assert lit.sum() > 200
        assert np.abs(on.astype(int) - off)[lit].max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_a_bulb_within_the_lamps_radius_casts_nothing(gl_context):
    """A bulb (an unlit sphere 0.035 m across its radius) around a point lamp of radius
    0.05: nothing within the radius casts its shadow, so the picture is bit for bit the
    one without shadows (the cube moved off, out of the way); the lamp's radius 0, the
    bulb shadows the whole wall."""
    def more(scene):
        scene.lamp.radius = 0.05
        scene.cube.position = (5.0, 5.0, 5.0)
        scene.add(hf.Sphere(radius=0.035, color="white", emissive=2, shader="unlit"))

    ctx = gl_context()
    on, off = (draw(ctx, wall_scene("-y", shadows=s, more=more)[0]) for s in (True, False))
    dark = code(float(srgb_to_linear(FLOOR)) * AMBIENT)
    assert (off[..., 0] > dark + 20).sum() > 10000
    assert on.tobytes() == off.tobytes()

    def point(scene):  # (radius 0: the bulb casts, the whole wall in its shadow)
        more(scene)
        scene.lamp.radius = 0.0
    wall = wall_points(*wall_scene("-y"))[2]
    shadowed = draw(ctx, wall_scene("-y", more=point)[0])[..., 0][wall]
    assert (shadowed == dark).sum() == wall.sum() - (shadowed == 255).sum() > 20000
    assert (shadowed == 255).sum() < 10  # (the bulb itself, white)


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("move, maps", [(0.0, 1), (1.0, 3)])
def test_a_point_lamps_map_is_kept_while_nothing_moves(gl_context, monkeypatch, move, maps):
    """Drawn at 3 times, the lamp's six faces are drawn once while nothing moves, at each
    time where the lamp moves (its map kept as a spot's)."""
    from hfrender.renderer import shadows

    drawn, real = [], shadows.ShadowPass._draw
    monkeypatch.setattr(shadows.ShadowPass, "_draw", lambda self, *a: (
        drawn.append(id(self)), real(self, *a))[1])

    scene = wall_scene("-y")[0]
    scene.update = lambda t: setattr(scene.lamp, "position", (0.1 * move * t, 0.0, 0.0))
    draw(gl_context(), scene, times=(0.0, 0.5, 1.0))
    assert len(drawn) == maps


@pytest.mark.usefixtures("gl_context")
def test_a_point_lamps_shadow_resolution_sizes_each_face(gl_context, monkeypatch):
    """shadow_resolution=1024: the map is 3 x 2 faces of 1024 texels a side (automatic
    here: 512); the picture the same, 3 cm or more from the shadow's edge, within 1 code."""
    from hfrender.renderer.shadows import ShadowPass

    made, make = [], ShadowPass._make
    monkeypatch.setattr(ShadowPass, "_make", lambda self, size: (
        make(self, size), made.append(self.map.size))[0])
    ctx = gl_context()
    fine = draw(ctx, wall_scene("-y", resolution=1024)[0])
    scene, way, side = wall_scene("-y")
    automatic = draw(ctx, scene)
    assert made == [(3072, 2048), (1536, 1024)]
    a, b, seen = wall_points(scene, way, side)
    clear = seen & (np.abs(np.maximum(np.abs(a), np.abs(b)) - SHADE) > 0.03)
    assert clear.sum() > 20000
    assert np.abs(fine.astype(int) - automatic)[clear].max() <= 1


def test_a_point_lamps_bad_shadow_resolution_and_a_fifth_lit_shadowed_lamp_are_one_line():
    for value, told in ((100, "100 must be an integer [256, 4096]"),
                        (8192, "8192 must be an integer [256, 4096]"),
                        (1.5, "1.5 must be an integer [256, 4096]"),
                        ("big", "'big' must be an integer [256, 4096]")):
        with pytest.raises(InputError) as caught:
            hf.PointLight(shadows=True, shadow_resolution=value)
        assert str(caught.value) == (f"PointLight.shadow_resolution={told} texels a side "
                                     "(each of its map's six faces), or None (from the "
                                     "output's size)")
    assert hf.PointLight(shadows=True, shadow_resolution=4096).shadow_resolution == 4096
    scene = wall_scene("+x")[0]
    scene.setup()
    for _ in range(2):
        scene.add(hf.SpotLight(shadows=True))
    scene.add(hf.PointLight(shadows=True))
    scene.add(hf.PointLight())  # (no shadows: not counted)
    scene.add(hf.PointLight(shadows=True))  # (added: the limit counts those lit at a time)
    with pytest.raises(InputError) as caught:
        lit_at(scene, 0.0)
    assert str(caught.value) == (
        "at t=0 s the scene has 5 lit lamps with shadows=True; up to 4 cast shadows at once "
        "(hf.PointLight and hf.SpotLight together, a depth map each): set shadows=False (or "
        "visible=False) on one")
