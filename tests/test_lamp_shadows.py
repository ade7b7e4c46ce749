"""A spot's ``shadows=True`` (hfrender/renderer/lamp_shadows.py, hf_lamp_shadow() in
shaders/glsl/mesh_header.frag): a perspective depth map from the lamp. The shadow's place
is worked by hand from the lamp's point; off, every picture is what it was."""

import math
from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames
from shadow_helpers import (
    AMBIENT,
    FLOOR,
    PPM,
    VIEW,
    H,
    _lit_part,
    box_margin,
    code,
    cube_scene,
    draw,
    floor_points,
)

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError
from hfrender.scene.lamps import lamps_of

LAMP = (0.0, 2.0, 0.0)  # 2 m above the floor, pointing down


def spot_scene(shadows=True, cube=0.5, resolution=None, update=None, more=None):
    """A spot 2 m above a 12 m floor pointing down (90 degrees, a hard edge: the lit disc
    2 m across its radius), a ``cube`` m cube between with its top 1 m up, the directional
    light off; the orthographic camera of shadow_helpers' cube_scene; ``more(scene)`` at the
    end of its setup."""

    class SpotOverFloor(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_strength = 0

        def setup(self):
            self.add(hf.Plane(scale=12, rotation=(-math.pi / 2, 0, 0), color=(FLOOR,) * 3))
            self.cube = self.add(hf.Cube(position=(0, 1 - cube / 2, 0), scale=cube,
                                         color=(0.2, 0.3, 0.9)))
            self.spot = self.add(hf.SpotLight(position=LAMP, angle=90, blend=0,
                                              intensity=2, shadows=shadows,
                                              shadow_resolution=resolution))
            self.camera.orthographic = True
            self.camera.ortho_height = H / PPM
            self.camera.position = tuple(10 * VIEW)
            self.camera.look_at((0, 0, 0))
            if more is not None:
                more(self)

        def update(self, t):
            if update is not None:
                update(self, t)

    return SpotOverFloor()


@pytest.mark.usefixtures("gl_context")
def test_a_spot_shadows_the_cubes_top_projected_from_the_lamp(gl_context):
    """The cube's top (x, z in [-0.25, 0.25], 1 m below the lamp) projected from the lamp
    onto the floor (2 m below it) is twice its size: x, z in [-0.5, 0.5]. Its lower edges
    (1.5 m below, x 4/3) fall inside it. Every floor pixel more than a pixel from that
    square's edges is, inside it, the floor's colour times ambient (within 1 code), and
    outside it bit for bit the floor drawn without shadows; the cube hides the floor at
    z < -0.75 (seen from up the slope) and the cone's edge is 2 m out."""
    ctx = gl_context()
    on, off = draw(ctx, spot_scene()), draw(ctx, spot_scene(shadows=False))
    x, z = floor_points()
    floor = (z > -0.7) & (np.hypot(x, z) < 1.9)
    inside = (np.abs(x) < 0.5) & (np.abs(z) < 0.5)
    margin = box_margin(x, z, (-0.5, -0.5), (0.5, 0.5)) & floor
    red = on[..., 0].astype(int)
    dark = code(float(srgb_to_linear(FLOOR)) * AMBIENT)
    assert (inside & margin).sum() > 400 and (~inside & margin).sum() > 5000
    assert np.abs(red[inside & margin] - dark).max() <= 1
    assert on[~inside & margin].tobytes() == off[~inside & margin].tobytes()
    assert (off[..., 0][inside & margin] > dark + 40).all()  # (lit there without them)


@pytest.mark.usefixtures("gl_context")
def test_a_sphere_under_a_spot_shows_no_acne(gl_context):
    """A sphere alone under a spot: every pixel of its lit half (n.l over 0.1 towards the
    lamp, worked from the camera's ray) is within 1 code of it drawn without shadows, at
    several sizes and places of the lamp."""
    for radius, lamp in ((1.0, (1.0, 3.0, 2.0)), (0.3, (2.0, 0.3, 0.5)),
                         (1.4, (-1.0, 2.0, 3.0))):
        def scene(shadows, radius=radius, lamp=lamp):
            class Ball(hf.Scene):
                background = (0.0, 0.0, 0.0)
                light_strength = 0

                def setup(self):
                    self.add(hf.Sphere(radius=radius, color=(0.9, 0.8, 0.7)))
                    self.add(hf.SpotLight(position=lamp, target=(0, 0, 0), angle=90,
                                          intensity=8, shadows=shadows))
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


OLD_LAMPS = """vec3 old_lamps(vec3 world, vec3 normal) {
    vec3 sum = vec3(0.0);
    for (int i = 0; i < u_lamp_count; ++i) {
        vec3 to = u_lamp_position[i].xyz - world;
        float d2 = dot(to, to);
        vec3 l = to * inversesqrt(max(d2, 1e-30));
        float light = max(dot(normal, l), 0.0) / max(d2, u_lamp_position[i].w);
        float edge = u_lamp_color[i].w, soft = u_lamp_aim[i].w;
        if (edge > -1.5) {
            float c = dot(-l, u_lamp_aim[i].xyz);
            light *= soft > 0.0 ? smoothstep(0.0, 1.0, (c - edge) / soft) : step(edge, c);
        }
        sum += u_lamp_color[i].rgb * light;
    }
    return sum;
}
vec3 shade(vec3 normal, vec3 world, vec3 color) {
    float diffuse = max(dot(normal, u_light_dir), 0.0) * hf_shadow(world, normal);
    return color * (u_ambient + (1.0 - u_ambient) * diffuse * u_light_color)
           + color * old_lamps(world, normal);
}
"""


@pytest.mark.usefixtures("gl_context")
def test_spots_without_shadows_draw_as_before_them(gl_context, tmp_path):
    """Spots and a point lamp with shadows=False (the default), the sun's shadows on and
    off: lambert draws bit for bit what its text with hf_lamps() before the spots' shadows
    drew (as a scene's own shader)."""
    (tmp_path / "old_lambert.glsl").write_text(OLD_LAMPS)
    ctx = gl_context()
    for sun in (False, True):
        pictures = []
        for shader in (None, "old_lambert.glsl"):
            def more(scene, shader=shader):
                for obj in scene.objects:
                    obj.shader = shader
                scene.add(hf.SpotLight(position=(1, 1, 1), target=(0, 0, 0), intensity=3))
                scene.add(hf.PointLight(position=(-1, 0.5, 0.5), intensity=1))

            scene = spot_scene(shadows=False, more=more)
            scene.shadows, scene.source_path = sun, str(tmp_path / "shot.py")
            pictures.append(draw(ctx, scene))
        assert pictures[0].tobytes() == pictures[1].tobytes()


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("move, maps", [(0.0, 1), (1.0, 3)])
def test_a_spots_map_is_kept_while_its_casters_and_the_lamp_stand_still(
        gl_context, monkeypatch, move, maps):
    """Drawn at 3 times, the spot's map is drawn once while nothing moves, at each time
    where the lamp moves (as the sun's, by the same ShadowPass)."""
    from hfrender.renderer import shadows

    drawn, real = [], shadows.ShadowPass._draw
    monkeypatch.setattr(shadows.ShadowPass, "_draw", lambda self, *a: (
        drawn.append(id(self)), real(self, *a))[1])

    def update(scene, t):
        scene.spot.position = (move * t, 2.0, 0.0)

    draw(gl_context(), spot_scene(update=update), times=(0.0, 0.5, 1.0))
    assert len(drawn) == maps


def tilted_over(floor):
    """``more`` for spot_scene: its floor ``floor`` m across, the spot tilted 30 degrees
    from straight down towards +x, the cube's middle 1 m from it along its axis (its
    nearest corner ~0.6 m from the lamp)."""
    way = (math.sin(math.radians(30)), -math.cos(math.radians(30)), 0.0)

    def more(scene):
        scene.objects[0].scale = floor
        scene.spot.direction = way
        scene.cube.position = tuple(np.add(LAMP, way))
        scene.camera.look_at((1, 0, 0))
    return more


@pytest.mark.usefixtures("gl_context")
def test_a_caster_near_a_spot_over_a_huge_floor_still_casts(gl_context):
    """A 5000 m floor puts the spot's far plane ~1260 m out and its near one (1/1000 of
    that) at 1.26 m, past the cube 0.6-1.4 m from the lamp: the map clipped it and it cast
    nothing (270 pixels darker than shadows off, for 2206 over a 12 m floor). Its map's
    depth is clamped: the same shadow as over the 12 m floor, all but a pixel or two."""
    ctx = gl_context()
    huge, off = (draw(ctx, spot_scene(shadows=s, more=tilted_over(5000))) for s in (1, 0))
    small = draw(ctx, spot_scene(more=tilted_over(12)))
    darker = (off.astype(int) - huge).sum(-1) > 10
    assert darker.sum() > 2000
    assert (np.abs(huge.astype(int) - small).max(-1) > 1).sum() <= 3


@pytest.mark.usefixtures("gl_context")
def test_a_translucent_cube_and_a_text_cast_no_spot_shadow(gl_context):
    """The sun's casters are the spots' (shadows.casts): the cube at opacity 0.5 and a
    text under the spot leave the picture bit for bit as with shadows off."""
    def more(scene):
        scene.cube.opacity = 0.5
        scene.add(hf.Text("hi", position=(0.6, 0.5, 0.0), height=0.4))

    ctx = gl_context()
    on, off = (draw(ctx, spot_scene(shadows=s, more=more)) for s in (True, False))
    assert on.tobytes() == off.tobytes()


@pytest.mark.usefixtures("gl_context")
def test_a_spots_shadow_resolution_sets_its_map(gl_context, monkeypatch):
    """The spot's map is its shadow_resolution texels a side (else automatic: 512 here),
    its shadow the same."""
    from hfrender.renderer.shadows import ShadowPass

    made, make = [], ShadowPass._make
    monkeypatch.setattr(ShadowPass, "_make", lambda self, size: (made.append(size),
                                                                 make(self, size))[1])
    ctx = gl_context()
    fine, automatic = draw(ctx, spot_scene(resolution=2048)), draw(ctx, spot_scene())
    assert made == [2048, 512]
    x, z = floor_points()
    margin = box_margin(x, z, (-0.5, -0.5), (0.5, 0.5)) & (z > -0.7)
    assert (fine[..., 0][margin] == automatic[..., 0][margin]).mean() > 0.999


def test_a_bad_shadow_resolution_is_refused_in_one_line_and_a_fifth_spot_added():
    with pytest.raises(InputError) as caught:
        hf.SpotLight(shadow_resolution=100)
    assert str(caught.value) == ("SpotLight.shadow_resolution=100 must be an integer "
                                 "[256, 8192] texels a side, or None (from the output's size)")
    scene = spot_scene()
    scene.setup()
    for _ in range(3):
        scene.add(hf.SpotLight(shadows=True))
    scene.add(hf.SpotLight())
    fifth = scene.add(hf.SpotLight(shadows=True))  # (the limit: those lit at a time)
    assert fifth.shadows and sum(lamp.shadows for lamp in lamps_of(scene)) == 5


@pytest.mark.usefixtures("gl_context")
def test_four_spots_cast_and_a_fifth_set_in_update_is_refused_in_one_line(gl_context,
                                                                         monkeypatch):
    """Four spots with shadows=True (a fifth hidden) draw four maps (each its own unit: no
    GL error, the fixture's check), every one shadowing the floor under the cube; a fifth
    set in update(t) is one line."""
    from hfrender.renderer.shadows import ShadowPass

    made, make = [], ShadowPass._make
    monkeypatch.setattr(ShadowPass, "_make", lambda self, size: (made.append(id(self)),
                                                                 make(self, size))[1])

    def update(scene, t):
        for i, lamp in enumerate(scene.more):
            lamp.shadows = lamp.visible = i < scene.count

    def more(scene):
        scene.more = [scene.add(hf.SpotLight(position=(x, 2, 0), intensity=2))
                      for x in (0.1, -0.1, 0.2, 0.0)]

    scene = spot_scene(update=update, more=more)
    scene.count = 3
    picture = draw(gl_context(), scene)
    assert len(set(made)) == 4
    dark = code(float(srgb_to_linear(FLOOR)) * AMBIENT)
    x, z = floor_points()
    assert np.abs(picture[..., 0][(np.abs(x) < 0.2) & (z > 0.3) & (z < 0.4)].astype(int)
                  - dark).max() <= 1
    scene = spot_scene(update=update, more=more)
    scene.count = 4
    with pytest.raises(InputError) as caught:
        draw(gl_context(), scene)
    assert str(caught.value) == ("at t=0 s the scene has 5 lit lamps with shadows=True; up to "
                                 "4 cast shadows at once (hf.PointLight and hf.SpotLight "
                                 "together, a depth map each): set shadows=False (or "
                                 "visible=False) on one")


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("modes", [dict(msaa=4, reconstruct="on", dof="depth"),
                                   dict(msaa=1, dof="lens", hdr="on")])
def test_the_lamps_scenes_shadow_in_every_mode(tmp_path, modes):
    """scenes/lamps.py (its spot casting) with a lens, through MSAA, --reconstruct, --dof
    depth and lens, --hdr: the ball's shadow darkens the floor against the spot without
    shadows, and nothing is lighter (no GL error: the fixture's check)."""
    text = (Path(__file__).resolve().parents[1] / "scenes" / "lamps.py").read_text().replace(
        "        self.camera.look_at((0, 0.5, 0))\n", "        self.camera.look_at((0, 0.5, 0))\n"
        "        self.camera.f_stop = 4.0\n        self.camera.focus_distance = 5.5\n")
    pictures = []
    for name, shown in (("on", text), ("off", text.replace("shadows=True, ", ""))):
        (tmp_path / f"{name}.py").write_text(shown)
        out, _ = render_frames(tmp_path / f"{name}.py", first_frame=36, count=1,
                               size=(160, 90), samples=4, backend="cpu", **modes)
        pictures.append(out[0].astype(int))
    darker = pictures[1] - pictures[0]
    assert darker.min() >= -1 and (darker.max(-1) > 20).sum() > 300


def test_a_spots_shadow_resolution_without_shadows_is_said_once(tmp_path, caplog):
    """A spot's shadow_resolution with shadows=False sizes nothing (only a lamp with
    shadows=True draws a map): was taken without a word; now a warning naming it, once
    (two stills in one process: one warning); a spot with shadows=True, none."""
    from hfrender.cli import main

    scene = tmp_path / "idle.py"
    scene.write_text("import hfrender as hf\n\n\nclass Idle(hf.Scene):\n"
                     "    def setup(self):\n        self.add(hf.Plane(scale=4))\n"
                     "        self.key = self.add(hf.SpotLight(shadow_resolution=1024))\n"
                     "        self.add(hf.SpotLight(shadows=True, shadow_resolution=512))\n")
    with caplog.at_level("WARNING"):
        for _ in range(2):
            assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size",
                         "32x18", "--samples", "1", "-t", "0.5", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records if "shadow_resolution" in r.getMessage()] \
        == ["Idle: self.key.shadow_resolution=1024 does nothing while its shadows=False (as "
            "at t=0.5 s): only a lamp with shadows=True draws a map; set shadows=True, or "
            "leave shadow_resolution None"]


@pytest.mark.usefixtures("gl_context")
def test_the_suns_map_sets_every_sampler_that_off_sets(gl_context, monkeypatch):
    """ShadowPass.draw's uniforms are OFF's and its own (so a sampler added to OFF is set on
    every sub-frame: commit 8fcc0e18, a unit left unset read unit 0): the spots' units too."""
    from hfrender.renderer import shadows

    said, real = [], shadows.ShadowPass.draw
    monkeypatch.setattr(shadows.ShadowPass, "draw", lambda self, *a: (
        said.append(real(self, *a)), said[-1])[1])
    draw(gl_context(), cube_scene((0, 1, 0)))
    assert len(said) == 1 and said[0]["u_shadows"] == 1
    assert {key: said[0].get(key) for key in shadows.OFF if key != "u_shadows"} == {
        "u_shadow_map": 7, "u_lamp_shadow": [0] * 8,
        **{f"u_spot_map{k}": 8 + k for k in range(4)}}
