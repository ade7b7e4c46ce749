"""A scene's ``shadows = True``: the directional light's shadow map (hfrender/renderer/
shadows.py), read by lambert and toon through ``hf_shadow()``. The shadows' places are
worked by hand from an orthographic camera; off, every picture is what it was."""

import math
from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf
from hfrender.color import linear_to_srgb, srgb_to_linear
from hfrender.errors import InputError
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


@pytest.mark.usefixtures("gl_context")
def test_light_straight_down_shadows_the_cubes_footprint(gl_context):
    """Light from straight above: the shadow is the cube's footprint, x and z in
    [-0.5, 0.5], to a pixel; the floor outside it lit fully (n.l = 1), inside by ambient."""
    picture = draw(gl_context(), cube_scene((0, 1, 0)))
    inside, margin = footprint()
    lit, dark = check_shadow(picture, inside, margin, 1.0)
    assert (lit, dark) == (128, 65)


@pytest.mark.usefixtures("gl_context")
def test_a_100_m_floor_keeps_the_shadow_edge_within_a_pixel(gl_context):
    """A 100 m floor under the cube: the map fitted to what the camera sees of it (some
    5 x 7 m), not the whole floor (was: 5 cm texels, the edge soft over 4 pixels), so the
    footprint's shadow is within a pixel of its hand projection as on the 12 m floor."""
    picture = draw(gl_context(), cube_scene((0, 1, 0), floor=100))
    inside, margin = footprint()
    lit, dark = check_shadow(picture, inside, margin, 1.0)
    assert (lit, dark) == (128, 65)


@pytest.mark.usefixtures("gl_context")
def test_a_slanted_light_moves_the_shadow_by_the_height(gl_context):
    """Light along (1, 1, 0): a point at height y falls on the floor y to the -x, so the
    cube (y 1..2) shades x in [-2.5, -0.5]; the floor outside lit at n.l = 1/sqrt 2."""
    look = (-1.0, 0.0, 0.0)
    picture = draw(gl_context(), cube_scene((1, 1, 0), look=look))
    x, z = floor_points(look)
    inside = (x > -2.5) & (x < -0.5) & (np.abs(z) < 0.5)
    below = np.arange(H)[:, None] >= 40
    check_shadow(picture, inside, box_margin(x, z, (-2.5, -0.5), (-0.5, 0.5)) & below,
                 1 / math.sqrt(2))


@pytest.mark.usefixtures("gl_context")
def test_a_lit_sphere_shows_no_acne(gl_context):
    """A sphere alone: every pixel of its lit half (n.l over 0.1, worked from the camera's
    ray to the true sphere; the facets' own terminator and the silhouette aside) is
    within 1 code of it drawn without shadows, at several sizes and light directions."""
    for radius, light in ((1.0, (0.4, 0.8, 0.6)), (0.3, (1, 0.2, 0)), (1.4, (-0.3, 0.5, 1))):
        def scene(shadows, radius=radius, light=light):
            class Ball(hf.Scene):
                background = (0.0, 0.0, 0.0)
                light_direction = light

                def setup(self):
                    self.shadows = shadows
                    self.add(hf.Sphere(radius=radius, color=(0.9, 0.8, 0.7)))
                    self.camera.position = (0, 0, 5)
                    self.camera.look_at((0, 0, 0))
            return Ball()

        ctx, ball = gl_context(), scene(True)
        on, off = draw(ctx, ball), draw(ctx, scene(False))
        lit = _lit_part(ball.camera, radius, np.asarray(light) / np.linalg.norm(light))
        assert lit.sum() > 200
        assert np.abs(on.astype(int) - off)[lit].max() <= 1


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


@pytest.mark.usefixtures("gl_context")
def test_shadows_off_draws_as_the_shaders_without_them(gl_context, tmp_path):
    """With shadows off, lambert and toon draw bit for bit what they drew before
    hf_shadow() (their earlier text, as a scene's own surface shaders), and a scene that
    never says shadows draws as one that says False."""
    import hfrender.scene as scene_module
    old = {"lambert": "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
           "    float diffuse = max(dot(normal, u_light_dir), 0.0);\n"
           "    return color * (u_ambient + (1.0 - u_ambient) * diffuse);\n}\n",
           "toon": "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
           "    float d = max(dot(normal, u_light_dir), 0.0);\n"
           "    float band = d > 0.66 ? 1.0 : d > 0.25 ? 0.6 : 0.3;\n"
           "    float rim = 1.0 - max(dot(normal, hf_to_eye(world)), 0.0);\n"
           "    return color * band * (rim > 0.8 ? 0.25 : 1.0);\n}\n"}
    ctx = gl_context()
    for name, text in old.items():
        (tmp_path / f"old_{name}.glsl").write_text(text)

        def scene(shader, name=name):
            made = cube_scene((0.4, 0.8, 0.6), shadows=False, shader=shader)
            made.source_path = str(tmp_path / "shot.py")
            return made
        now, before = draw(ctx, scene(name)), draw(ctx, scene(f"old_{name}"))
        assert now.tobytes() == before.tobytes()
    assert scene_module.Scene.shadows is False


@pytest.mark.usefixtures("gl_context")
def test_toon_puts_a_shadow_in_its_darkest_band(gl_context):
    """Toon's light times hf_shadow(): under the cube the floor is the 0.3 band."""
    picture = draw(gl_context(), cube_scene((0, 1, 0), shader="toon"))
    c = float(srgb_to_linear(FLOOR))
    assert abs(int(picture[H // 2, W // 2, 0]) - code(c * 0.3)) <= 1  # the floor under it
    assert abs(int(picture[H - 5, 5, 0]) - code(c)) <= 1  # lit: the top band


@pytest.mark.usefixtures("gl_context")
def test_the_shadow_of_each_sub_frame_is_its_own(gl_context):
    """A cube sliding along x: drawn at t = 1 after t = 0 the shadow is t = 1's alone (the
    map drawn again for each draw, not kept from the first)."""
    class Sliding(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_direction = (0, 1, 0)
        shadows = True

        def setup(self):
            self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0), color=(FLOOR,) * 3))
            self.cube = self.add(hf.Cube(color=(0.2, 0.3, 0.9)))
            self.camera.orthographic = True
            self.camera.ortho_height = H / PPM
            self.camera.position = tuple(10 * VIEW)
            self.camera.look_at((0, 0, 0))

        def update(self, t):
            self.cube.position = (-1.0 + 2.0 * t, 1.5, 0.0)

    ctx = gl_context()
    moved = draw(ctx, Sliding(), times=(0.0, 1.0))[..., 0]
    x, z = floor_points()
    row = H // 2  # z = 0
    dark = moved[row] < 100
    assert dark[np.abs(x[row] - 1.0) < 0.45].all() and not dark[np.abs(x[row] + 1.0) < 0.45].any()


def test_shadows_is_checked_as_the_other_lighting_is():
    with pytest.raises(InputError) as caught:
        class Bad(hf.Scene):
            shadows = "yes"
    assert str(caught.value) == "Bad.shadows='yes' must be True or False"

    class Fine(hf.Scene):
        shadows = 1

    assert Fine.shadows is True
    scene = Fine()
    with pytest.raises(InputError) as caught:
        scene.shadows = 2
    assert str(caught.value) == "Fine.shadows=2 must be True or False"
    scene.shadows = False
    assert scene.shadows is False


def arm_scene(folder, shadows, arm=True):
    """scenes/skinned_arm.py (a skinned, morphing model on a floor) with ``shadows``, a
    translucent ball and a text beside, written into ``folder`` with its model."""
    import shutil

    scenes = Path(__file__).resolve().parents[1] / "scenes"
    if not (folder / "assets").exists():
        shutil.copytree(scenes / "assets", folder / "assets")
    text = (scenes / "skinned_arm.py").read_text().replace(
        "    ambient = 0.3\n", f"    ambient = 0.3\n    shadows = {shadows}\n").replace(
        "        self.camera.position", "        self.arm.visible = " + str(arm) + "\n"
        "        self.add(hf.Sphere(radius=0.3, position=(1.5, 0.5, 1), opacity=0.5))\n"
        "        self.add(hf.Text('hi', position=(-1, 0.2, 1), height=0.3))\n"
        "        self.camera.f_stop = 8.0\n        self.camera.focus_distance = 6.5\n"
        "        self.camera.position")
    path = folder / f"arm_{shadows}_{arm}.py"
    path.write_text(text)
    return path


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("modes", [dict(msaa=4, reconstruct="on", dof="depth"),
                                   dict(msaa=1, reconstruct="off", hdr="on")])
def test_a_skinned_model_casts_its_posed_shadow_in_every_mode(tmp_path, modes):
    """The arm's shadow (the pixels its showing changes with shadows on and not with
    them off) is there, and moves as the arm bends (its pose drawn into the map, not its
    rest pose), with MSAA, --reconstruct and --dof depth, a translucent ball and a text
    in the scene (no GL error: the fixture's check)."""
    settings = dict(size=(120, 80), samples=2, backend="cpu", fps=4, **modes)

    def frame(shadows, arm, first):
        out, _ = render_frames(arm_scene(tmp_path, shadows, arm), first_frame=first, count=1,
                               **settings)
        return out[0].astype(int)

    def shade_of_arm(first):
        with_light = np.abs(frame(True, True, first) - frame(True, False, first)).max(-1)
        without = np.abs(frame(False, True, first) - frame(False, False, first)).max(-1)
        return (with_light > 12) & (without <= 2)

    a, b = shade_of_arm(0), shade_of_arm(2)
    assert a.sum() > 30 and b.sum() > 30
    assert (a != b).sum() > 20


def fitted_size(scene, size):
    """The map's texels a side that :func:`fit` gives ``scene`` (set up) drawn at ``size``."""
    from hfrender.renderer.shadows import boxes, fit

    renderer = SceneRenderer.__new__(SceneRenderer)  # (no GL: its sizes alone)
    renderer.scene, renderer.size = scene, size
    light = np.asarray(scene.light_direction, np.float64)
    return fit(scene, size[0] / size[1], light / np.linalg.norm(light),
               renderer._pixels_a_metre(), boxes(scene))[3]


def test_the_map_is_as_fine_as_the_output_asks():
    """A texel at most half a pixel where the map's middle is seen, in steps of 256 from
    512 to 4096: the 100 m floor's seen part (10.74 m across the light, a pixel 3 m / 180
    at 320 x 180) 2 x 10.74 / (3 / 180) = 1289 -> 1536; at 1920 x 1080, 7733 -> 4096 (its
    most); a tiny preview 512 (its least); shadow_resolution, where set, is the size."""
    scene = cube_scene((0, 1, 0), floor=100)
    scene.setup()
    scene.camera.ortho_height = 3.0
    assert [fitted_size(scene, size) for size in ((320, 180), (1920, 1080), (64, 36))] \
        == [1536, 4096, 512]
    scene.shadow_resolution = 700
    assert fitted_size(scene, (1920, 1080)) == 700


@pytest.mark.usefixtures("gl_context")
def test_shadow_resolution_sets_the_map_drawn(gl_context, monkeypatch):
    """The map drawn is shadow_resolution texels a side (else the automatic 768 here),
    and its shadow the same cube's."""
    from hfrender.renderer.shadows import ShadowPass

    made, make = [], ShadowPass._make
    monkeypatch.setattr(ShadowPass, "_make", lambda self, size: (made.append(size),
                                                                 make(self, size))[1])
    scene = cube_scene((0, 1, 0))
    scene.shadow_resolution = 4096
    picture = draw(gl_context(), scene)
    automatic = draw(gl_context(), cube_scene((0, 1, 0)))
    assert made == [4096, 768]
    inside, margin = footprint()
    for shown in (picture, automatic):
        check_shadow(shown, inside, margin, 1.0)
    assert scene.shadow_resolution == 4096


def test_shadow_resolution_is_checked_in_one_line():
    with pytest.raises(InputError) as caught:
        class Bad(hf.Scene):
            shadow_resolution = 100
    assert str(caught.value) == ("Bad.shadow_resolution=100 must be an integer [256, 8192] "
                                 "texels a side, or None (from the output's size)")
    scene = cube_scene((0, 1, 0))
    with pytest.raises(InputError) as caught:
        scene.shadow_resolution = 2048.0
    assert str(caught.value) == ("CubeOverFloor.shadow_resolution=2048.0 must be an integer "
                                 "[256, 8192] texels a side, or None (from the output's size)")
    scene.shadow_resolution = None
    assert scene.shadow_resolution is None and hf.Scene.shadow_resolution is None


STILL = '''import math
import hfrender as hf


class Still(hf.Scene):
    shadows = True

    def setup(self):
        self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0)))
        self.cube = self.add(hf.Cube(position=(0, 1.5, 0)))
        self.camera.position = (0, 4, 7)
        self.camera.look_at((0, 0.5, 0))
        self.camera.f_stop = 2.0
        self.camera.focus_distance = 7.0

    def update(self, t):
        self.cube.position = (MOVE * t, 1.5, 0)
'''


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("move, maps", [(0.0, 1), (1.0, 8)])
def test_the_map_is_drawn_once_while_its_casters_stand_still(tmp_path, monkeypatch, move,
                                                             maps):
    """--dof lens, 4 samples, 2 frames (8 sub-frames, each its own time and lens point):
    a scene whose casters stand still draws its map once, not 8 times (was: 8); one whose
    cube moves, at every sub-frame; the picture as when every map is drawn. (Counted by
    renderer: the render's own, and those the render makes to look at the scene first; by
    the pass itself, held: by id(), a released one's id reused counted two as one, 1 in ~5
    runs.)"""
    from collections import Counter

    from hfrender.renderer import shadows

    drawn, real = [], shadows.ShadowPass._draw
    monkeypatch.setattr(shadows.ShadowPass, "_draw", lambda self, *a: (
        drawn.append(self), real(self, *a))[1])
    path = tmp_path / "still.py"
    path.write_text(STILL.replace("MOVE", repr(move)))
    settings = dict(size=(96, 64), samples=4, dof="lens", backend="cpu", fps=4)
    kept, _ = render_frames(path, count=2, **settings)
    assert max(Counter(drawn).values()) == maps
    drawn.clear()
    monkeypatch.setattr(shadows, "casting", lambda *a: object())  # (never equal: every one)
    every, _ = render_frames(path, count=2, **settings)
    assert max(Counter(drawn).values()) == 8
    assert kept.tobytes() == every.tobytes()
