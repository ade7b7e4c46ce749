"""Lamps: hf.PointLight and hf.SpotLight (hfrender/scene/lamps.py, renderer/lamps.py,
hf_lamps() in shaders/glsl/mesh_header.frag). A plane facing +z seen straight down by an
orthographic camera, a pixel's centre on every whole 1/PPM m: the light worked by hand
(inverse square, cosine, the cone) and read back in linear light (a float target) within
one code of 16 bits."""

import math

import numpy as np
import pytest
from render_helpers import render_frames

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene import past_white
from hfrender.scene.lamps import lamps_of

W, H, PPM = 201, 121, 40.0  # odd: the middle pixel's centre is the plane's (0, 0)
GREY, AMBIENT = 0.5, 0.1  # the plane's display grey, the scene's ambient
CODE16 = 1 / 65535


def plane_scene(*lamps, shader=None, update=None):
    """A 12 m plane facing +z (the camera's way), the directional light along x (n.l = 0:
    ambient alone), and ``lamps`` added."""

    class Lit(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_direction = (1, 0, 0)

        def setup(self):
            self.add(hf.Plane(scale=12, color=(GREY,) * 3, shader=shader))
            self.lamps = [self.add(lamp) for lamp in lamps]
            self.camera.orthographic = True
            self.camera.ortho_height = H / PPM
            self.camera.position = (0, 0, 10)
            self.camera.look_at((0, 0, 0))

        def update(self, t):
            if update is not None:
                update(self, t)

    return Lit()


def draw(glctx, scene, t=0.0, hdr=True):
    """The colour (H, W, 3) of ``scene`` at ``t``: linear light (float) where ``hdr``."""
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, (W, H), False, hdr=hdr)
    renderer.prepare()
    color = np.empty((H, W, 4), renderer.target.color_dtype)
    scene.update(t)
    renderer.draw(t, 0)
    renderer.read_into(color)
    renderer.release()
    return color[..., :3]


def plane_points():
    """(x, y) on the plane of each pixel's centre (H, W each)."""
    col, row = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    return (col - W / 2) / PPM, (H / 2 - row) / PPM


@pytest.mark.usefixtures("gl_context")
def test_a_point_light_falls_off_by_the_inverse_square_and_the_cosine(gl_context):
    """Intensity 4, 2 m above the centre: under it colour x (ambient + 4 / 2^2 x 1); 2 m
    off-centre, d^2 = 8 and cos = 2 / sqrt(8): colour x (ambient + 4 x 0.7071 / 8); every
    pixel as the formula gives it."""
    picture = draw(gl_context(), plane_scene(hf.PointLight(position=(0, 0, 2), intensity=4)))
    c = float(srgb_to_linear(GREY))
    assert abs(picture[60, 100, 0] - c * (AMBIENT + 1.0)) <= CODE16
    assert abs(picture[60, 180, 0] - c * (AMBIENT + 4 * (2 / math.sqrt(8)) / 8)) <= CODE16
    x, y = plane_points()
    d2 = x * x + y * y + 4
    want = c * (AMBIENT + 4 * (2 / np.sqrt(d2)) / d2)
    assert np.abs(picture[..., 0] - want).max() <= CODE16
    assert np.abs(picture[..., 1] - picture[..., 0]).max() == 0  # white light: grey


@pytest.mark.usefixtures("gl_context")
def test_a_lamps_colour_radius_and_visible(gl_context):
    """Red light (display 1, 0, 0) leaves green alone; nearer than its radius the light is
    intensity / radius^2; a lamp not visible gives none."""
    ctx, c = gl_context(), float(srgb_to_linear(GREY))
    red = draw(ctx, plane_scene(hf.PointLight(position=(0, 0, 0.5), intensity=1,
                                              color="red", radius=1.0)))
    assert abs(red[60, 100, 0] - c * (AMBIENT + 1.0)) <= CODE16  # max(0.25, 1)
    assert abs(red[60, 100, 1] - c * AMBIENT) <= CODE16
    off = draw(ctx, plane_scene(hf.PointLight(position=(0, 0, 2), intensity=4,
                                              visible=False)))
    assert np.abs(off - c * AMBIENT).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("aim", [dict(direction=(0, 0, -1)), dict(target=(0, 0, 0))])
def test_a_spot_lights_a_disc_of_its_cone(gl_context, aim):
    """A 60 degree spot 2 m above the plane, blend 0: the lit disc's radius is tan(30) x 2
    m, to a pixel; inside it the point light's value, outside ambient alone."""
    spot = hf.SpotLight(position=(0, 0, 2), angle=60, blend=0, intensity=4, **aim)
    picture = draw(gl_context(), plane_scene(spot))[..., 0]
    c = float(srgb_to_linear(GREY))
    x, y = plane_points()
    r, edge = np.hypot(x, y), math.tan(math.radians(30)) * 2
    d2 = r * r + 4
    inside, outside = r < edge - 1 / PPM, r > edge + 1 / PPM
    assert np.abs(picture[inside] - c * (AMBIENT + 8 / d2[inside] ** 1.5)).max() <= CODE16
    assert np.abs(picture[outside] - c * AMBIENT).max() <= CODE16
    lit = picture[60] > c * AMBIENT + CODE16  # the middle row: its lit run
    assert abs(lit.sum() / 2 - edge * PPM) <= 1


@pytest.mark.usefixtures("gl_context")
def test_a_spots_blend_softens_its_edge_as_blenders(gl_context):
    """Blend 1: smoothstep over cosines from cos(angle / 2) to 1; half way, in cosine, the
    light is half that of a point lamp."""
    spot = hf.SpotLight(position=(0, 0, 2), direction=(0, 0, -1), angle=90, blend=1,
                        intensity=4)
    picture = draw(gl_context(), plane_scene(spot))[..., 0]
    c, edge = float(srgb_to_linear(GREY)), math.cos(math.radians(45))
    x, y = plane_points()
    d2 = x * x + y * y + 4
    cos = 2 / np.sqrt(d2)
    s = np.clip((cos - edge) / (1 - edge), 0, 1)
    want = c * (AMBIENT + 4 * cos / d2 * s * s * (3 - 2 * s))
    assert np.abs(picture - want).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
def test_a_lamp_in_a_group_is_where_the_group_puts_it(gl_context):
    """Placed in the group's frame; off while the group is hidden."""
    group = hf.Group(position=(1, 0, 0))
    lamp = hf.PointLight(position=(0, 0, 2), intensity=4, parent=group)
    ctx = gl_context()
    picture = draw(ctx, plane_scene(lamp))[..., 0]
    assert np.unravel_index(picture.argmax(), picture.shape) == (60, 140)
    hidden = hf.Group(position=(1, 0, 0), visible=False)  # hides its objects, its lamps off
    picture = draw(ctx, plane_scene(hf.PointLight(position=(0, 0, 2), intensity=4,
                                                  parent=hidden)))[..., 0]
    assert np.abs(picture - float(srgb_to_linear(GREY)) * AMBIENT).max() <= CODE16


def test_a_hidden_object_leaves_the_lamp_it_carries_on():
    """An object's ``visible`` is its own, not its children's (nodes.drawn_opacity): a
    lamp parented to a hidden bulb still lights (was: off); a hidden Group above both
    switches it off."""
    from hfrender.renderer.lamps import lamp_uniforms
    from hfrender.scene.lamps import lit_now

    class Carried(hf.Scene):
        def setup(self):
            self.bulb = self.add(hf.Sphere(radius=0.05, visible=False))
            self.lamp = self.add(hf.PointLight(position=(0, 0, 1), parent=self.bulb))
            self.group = self.add(hf.Group(self.bulb))

    scene = Carried()
    scene.setup()
    assert lit_now(scene) == [scene.lamp] and lamp_uniforms(scene, 0.0)["u_lamp_count"] == 1
    scene.group.visible = False
    assert lit_now(scene) == [] and lamp_uniforms(scene, 0.0) == {"u_lamp_count": 0}


@pytest.mark.usefixtures("gl_context")
def test_toon_cuts_its_bands_from_the_lamps_light_too(gl_context):
    """The directional light along x gives toon nothing (its darkest band, 0.3); a lamp's
    light of 1 under it lifts the middle to the top band, tinted by the lamp's share of
    the light (the band's own 0.3 white)."""
    c = float(srgb_to_linear(GREY))
    picture = draw(gl_context(), plane_scene(
        hf.PointLight(position=(0, 0, 2), intensity=4, color=(1.0, 0.5, 0.0)), shader="toon"))
    hue = srgb_to_linear(np.array([1.0, 0.5, 0.0]))  # tinted by the lamp's share
    assert np.abs(picture[60, 100] - c * (hue + 0.3) / 1.3).max() <= CODE16
    x, y = plane_points()
    d2 = x[5, 5] ** 2 + y[5, 5] ** 2 + 4
    light = 4 * (2 / math.sqrt(d2)) / d2  # 0.2: the darkest band, tinted a little
    assert np.abs(picture[5, 5] - c * 0.3 * (hue * light + 0.3) / (light + 0.3)).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
def test_unlit_and_emissive_are_not_lit_by_lamps(gl_context):
    c = float(srgb_to_linear(GREY))
    picture = draw(gl_context(), plane_scene(hf.PointLight(position=(0, 0, 2), intensity=4),
                                             shader="unlit"))
    assert np.abs(picture - c).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
def test_a_scenes_own_shader_reads_the_lamps(gl_context, tmp_path):
    (tmp_path / "lamps_only.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
        "    return color * hf_lamps(world, normal);\n}\n")
    scene = plane_scene(hf.PointLight(position=(0, 0, 2), intensity=4),
                        shader="lamps_only.glsl")
    scene.source_path = str(tmp_path / "shot.py")
    picture = draw(gl_context(), scene)
    assert abs(picture[60, 100, 0] - float(srgb_to_linear(GREY))) <= CODE16


@pytest.mark.usefixtures("gl_context")
def test_no_lamp_draws_lambert_and_toon_as_before_them(gl_context, tmp_path):
    """Without lamps the built-in lambert and toon draw bit for bit what their text before
    hf_lamps() drew (as a scene's own shaders), in 8-bit and in float."""
    old = {"lambert": "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
           "    float diffuse = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);\n"
           "    return color * (u_ambient + (1.0 - u_ambient) * diffuse);\n}\n",
           "toon": "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
           "    float d = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);\n"
           "    float band = d > 0.66 ? 1.0 : d > 0.25 ? 0.6 : 0.3;\n"
           "    float rim = 1.0 - max(dot(normal, hf_to_eye(world)), 0.0);\n"
           "    return color * band * (rim > 0.8 ? 0.25 : 1.0);\n}\n"}
    ctx = gl_context()

    class Shapes(hf.Scene):
        light_direction = (0.4, 0.8, 0.6)

        def setup(self):
            shader = self.shader
            self.add(hf.Plane(scale=8, rotation=(-1.2, 0, 0), color="tan", shader=shader))
            self.add(hf.Sphere(position=(-1, 0.5, 0), color="teal", shader=shader))
            self.add(hf.Cube(position=(1, 0.5, 0), rotation=(0.3, 0.7, 0), shader=shader,
                             color="tomato"))
            self.camera.position = (0, 2, 6)
            self.camera.look_at((0, 0.3, 0))

    for name, text in old.items():
        (tmp_path / f"old_{name}.glsl").write_text(text)
        for hdr in (False, True):
            pictures = []
            for shader in (name, f"old_{name}"):
                scene = Shapes()
                scene.shader, scene.source_path = shader, str(tmp_path / "shot.py")
                pictures.append(draw(ctx, scene, hdr=hdr))
            assert pictures[0].tobytes() == pictures[1].tobytes()


@pytest.mark.usefixtures("gl_context")
def test_a_lamp_moved_in_update_lights_another_place(tmp_path):
    """A lamp whose x and intensity follow t: frames 1 s apart are lit in other places,
    the brightest pixels moved by a metre's."""
    (tmp_path / "moving.py").write_text(
        "import hfrender as hf\n\n\n"
        "class Moving(hf.Scene):\n"
        "    background = (0, 0, 0)\n"
        "    light_direction = (1, 0, 0)\n\n"
        "    def setup(self):\n"
        "        self.add(hf.Plane(scale=12, color=(0.5, 0.5, 0.5)))\n"
        "        self.lamp = self.add(hf.PointLight(position=(0, 0, 1), intensity=0.5))\n"
        "        self.camera.orthographic = True\n"
        "        self.camera.ortho_height = 3.0\n"
        "        self.camera.position = (0, 0, 10)\n"
        "        self.camera.look_at((0, 0, 0))\n\n"
        "    def update(self, t):\n"
        "        self.lamp.position = (t - 1.0, 0, 1)\n"
        "        self.lamp.intensity = 0.5 + 0.1 * t\n")
    settings = dict(size=(160, 96), fps=1, samples=1, dof="off", quiet=True)
    frames, _ = render_frames(tmp_path / "moving.py", first_frame=0, count=3, **settings)
    red = frames[..., 0].astype(int)
    assert (np.abs(red[0] - red[1]) > 10).sum() > 500
    tops = [np.flatnonzero(frame[48] >= frame[48].max() - 1) for frame in red]
    peaks = [(top[0] + top[-1]) / 2 for top in tops]  # the middle of the brightest run
    assert peaks[1] - peaks[0] == pytest.approx(32, abs=1)  # 1 m: 96 px / 3 m
    assert peaks[2] - peaks[1] == pytest.approx(32, abs=1)


def test_lamps_are_checked_in_one_line():
    cases = [
        (lambda: hf.PointLight(intensity=-1), "PointLight.intensity=-1 must be a finite "
         "number >= 0 (the light on a surface facing the lamp 1 m away)"),
        (lambda: hf.SpotLight(angle=180), "SpotLight.angle=180 must be a number of degrees "
         "between 0 and 180, both left out (the cone's full angle: Blender's Spot Size)"),
        (lambda: hf.SpotLight(angle=0), "SpotLight.angle=0 must be a number of degrees "
         "between 0 and 180, both left out (the cone's full angle: Blender's Spot Size)"),
        (lambda: hf.SpotLight(blend=1.5), "SpotLight.blend=1.5 must be a number 0..1 (0 a "
         "sharp edge, 1 soft from the axis out)"),
        (lambda: hf.PointLight(color="nope"), "PointLight.color='nope' is not a colour; use "
         "a name ('red'), hex ('#ff8800', '#f80') or 3 numbers 0..1 (r, g, b)"),
        (lambda: hf.SpotLight(direction=(0, 0, 0)), "SpotLight.direction=(0, 0, 0) has no "
         "direction (a length of 0); give (x, y, z) the spot shines along, or a target"),
        (lambda: hf.PointLight(radius=float("nan")), "PointLight.radius=nan must be a finite "
         "number >= 0 (metres: the light is never nearer than this)"),
    ]
    for make, message in cases:
        with pytest.raises(InputError) as caught:
            make()
        assert str(caught.value) == message
    assert hf.PointLight(color="#ff0000").color == (1.0, 0.0, 0.0)


def test_a_ninth_lamp_is_added_and_one_added_in_update_is_refused():
    """A 9th lamp is added (the limit counts those lit at a time: test_lamp_limits); one
    added in update(t), or added twice, is one line."""

    class Many(hf.Scene):
        def setup(self):
            for i in range(8):
                self.add(hf.PointLight(position=(i, 0, 0)))

        def update(self, t):
            self.add(hf.SpotLight())

    scene = Many()
    scene.setup()
    ninth = scene.add(hf.SpotLight())
    assert len(lamps_of(scene)) == 9 and lamps_of(scene)[8] is ninth
    with pytest.raises(InputError, match=r"^Many.add\(\) in update\(t\): objects are added "):
        scene.update(0.0)
    lamp = hf.PointLight()
    other = hf.Scene()
    other.add(lamp)
    with pytest.raises(InputError) as caught:
        other.add(lamp)
    assert str(caught.value) == ("add(): this PointLight was added already; add a second one "
                                 "(hf.PointLight(...)) to draw two")
    assert other.objects == []


def test_hdr_auto_sees_lamps_past_white():
    """A white plane 0.5 m under a lamp of intensity 1 gets 4x its light: past white, named;
    the same lamp 3 m off does not pass (1 + 1/9 of the grey's)."""
    def scene(z, color=(1.0, 1.0, 1.0)):
        s = hf.Scene()
        s.floor = s.add(hf.Plane(scale=1, color=color))
        s.add(hf.PointLight(position=(0, 0, z), intensity=1))
        return s
    assert past_white(scene(0.5)) == ("self.floor (a Plane) with its lamps' light (up to 4x) "
                                      "reaches 5x white")
    assert past_white(scene(3.0, color=(0.5, 0.5, 0.5))) is None


def test_a_lamp_never_added_is_named_as_an_object_is():
    from hfrender.scene.ready import drawn_state
    from hfrender.scene.unadded import unadded

    class Forgot(hf.Scene):
        def setup(self):
            self.ball = self.add(hf.Sphere())
            self.key = hf.PointLight(position=(0, 2, 0))
            self.spot = self.add(hf.SpotLight(target=self.ball))

    scene = Forgot()
    scene.setup()
    assert unadded(scene) == [("self.key", "PointLight")]
    state = dict(drawn_state(scene))
    assert state["spot.angle"] == 45.0 and "spot.target" in state and "key.position" not in state


@pytest.mark.parametrize("made, said", [
    ("self.key = hf.PointLight()", "self.key (a PointLight) never added, so lighting nothing: "
     "self.add(self.key) in setup() switches it on"),
    ("self.key = hf.PointLight()\n        self.box = hf.Cube()",
     "self.key (a PointLight), self.box (a Cube) never added, so not drawn: "
     "self.add(self.key) in setup() draws it")])
def test_a_lamp_never_added_is_said_to_light_nothing(tmp_path, caplog, made, said):
    """A lamp is never drawn (it is seen by what it lights): its warning said 'so not
    drawn: self.add(self.key) in setup() draws it' as an object's does (a docs trial)."""
    from hfrender.cli import main

    scene = tmp_path / "forgot.py"
    scene.write_text("import hfrender as hf\n\n\nclass Forgot(hf.Scene):\n"
                     "    def setup(self):\n        self.add(hf.Sphere())\n"
                     f"        {made}\n")
    with caplog.at_level("WARNING"):
        assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18",
                     "--samples", "1", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records if "never added" in r.getMessage()] \
        == [f"Forgot: {said}"]
