"""A scene's ``shadows = True``: the directional light's shadow map (hfrender/renderer/
shadows.py), checked against shadows worked by hand from an orthographic camera (the scene in
shadow_helpers.py): the cube's footprint, a 100 m floor, a slanted light, no acne on a lit
sphere, the shaders without shadows, toon's band, each sub-frame's own shadow. The map's
size, its checks and when it is drawn are in test_shadow_maps.py."""

import math

import numpy as np
import pytest
from shadow_helpers import (
    AMBIENT,
    FLOOR,
    PPM,
    VIEW,
    H,
    W,
    _lit_part,
    box_margin,
    check_shadow,
    code,
    cube_scene,
    draw,
    floor_points,
    footprint,
)

import hfrender as hf
from hfrender.color import srgb_to_linear


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
