"""The lamps' limits and rough edges (hfrender/scene/lamps.py, renderer/lamps.py,
renderer/lamp_shadows.py): up to 8 lamps and 4 shadowed lamps lit at a time, however many
are added; a Group's opacity fading its lamps; no shadow map drawn for a light that gives
none; a scene's own surface shader that leaves out hf_lamps() or hf_shadow() warned of."""

import numpy as np
import pytest
from test_lamps import AMBIENT, CODE16, GREY, PPM, H, W, draw, plane_scene

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError

STREET = 12  # lamps along x, 0.5 m apart, 8 lit at a time


def street(lit_from, many=lambda t: 8):
    """A plane under :data:`STREET` point lamps 1 m above it at x = -2.75..2.75, lamp i lit
    (visible) where ``lit_from(t) <= i < lit_from(t) + many(t)``."""

    def update(scene, t):
        first = lit_from(t)
        for i, lamp in enumerate(scene.lamps):
            lamp.visible = first <= i < first + many(t)

    lamps = [hf.PointLight(position=(-2.75 + 0.5 * i, 0, 1), intensity=0.05, radius=0.0)
             for i in range(STREET)]
    return plane_scene(*lamps, update=update)


def street_light(first, count=8):
    """The linear red of the plane's pixels along y = 0 lit by lamps first..first+count-1
    (:func:`street`'s), worked by hand."""
    x = (np.arange(W) + 0.5 - W / 2) / PPM
    total = np.zeros(W)
    for i in range(first, first + count):
        d2 = (x - (-2.75 + 0.5 * i)) ** 2 + 1.0
        total += 0.05 / d2 * (1.0 / np.sqrt(d2))  # inverse square times the cosine
    grey = float(srgb_to_linear(GREY))
    return grey * (AMBIENT + total)


@pytest.mark.usefixtures("gl_context")
def test_twelve_lamps_added_eight_lit_at_a_time_draw(gl_context):
    """A street of 12 lamps keyed on and off, never more than 8 lit at once: added (was:
    the 9th refused at add()), and each time lit by the 8 lamps lit then."""
    ctx = gl_context()
    for t, first in ((0.0, 0), (1.0, 4)):
        row = draw(ctx, street(lambda t: int(t * 4)), t=t)[H // 2, :, 0]
        assert np.abs(row - street_light(first)).max() <= 4 * CODE16
    assert abs(street_light(0)[W - 1] - street_light(4)[W - 1]) > 0.01  # (they differ)


@pytest.mark.usefixtures("gl_context")
def test_a_subframe_with_a_ninth_lamp_lit_is_one_line_naming_its_time(gl_context):
    """8 lamps lit, then a 9th from t = 0.3: drawn at 0.25, refused at 0.5."""
    ctx = gl_context()
    def ninth(t):
        return 8 if t < 0.3 else 9

    row = draw(ctx, street(lambda t: 0, ninth), t=0.25)[H // 2, :, 0]
    assert np.abs(row - street_light(0)).max() <= 4 * CODE16
    with pytest.raises(InputError) as caught:
        draw(ctx, street(lambda t: 0, ninth), t=0.5)
    assert str(caught.value) == (
        "at t=0.5 s the scene has 9 lamps lit; up to 8 light at once (hf.PointLight and "
        "hf.SpotLight together): switch one off (visible=False or intensity=0) while the "
        "others are lit")


def spots_scene(count):
    """``count`` spots with shadows=True over a plane, every one added; spot i lit where
    its ``visible`` says."""
    spots = [hf.SpotLight(position=(0.2 * i - 0.5, 0, 2), direction=(0, 0, -1), angle=60,
                          intensity=0.5, shadows=True) for i in range(count)]
    return plane_scene(*spots)


def test_six_shadowed_spots_added_four_lit_at_a_time():
    """Six spots with shadows=True are added (was: the 5th refused at add()); four of them
    lit draw four maps' rows; a fifth lit is one line naming the time and the count."""
    from hfrender.renderer.lamp_shadows import shadowed
    from hfrender.renderer.lamps import lamp_uniforms

    scene = spots_scene(6)
    scene.setup()
    for i, lamp in enumerate(scene.lamps):
        lamp.visible = i % 3 != 0  # (1, 2, 4, 5 lit)
    assert lamp_uniforms(scene, 0.0)["u_lamp_count"] == 4
    assert [k for k, _ in shadowed(scene)] == [0, 1, 2, 3]
    scene.lamps[3].visible = True
    with pytest.raises(InputError) as caught:
        lamp_uniforms(scene, 1.25)
    assert str(caught.value) == (
        "at t=1.25 s the scene has 5 lit lamps with shadows=True; up to 4 cast shadows at "
        "once (hf.PointLight and hf.SpotLight together, a depth map each): set shadows=False "
        "(or visible=False) on one")

@pytest.mark.usefixtures("gl_context")
def test_a_groups_opacity_fades_its_lamps_as_it_fades_its_objects(gl_context):
    """A lamp in a Group is faded with it, as the group's objects are (nodes.drawn_opacity):
    at opacity 0 it gives no light (was: full light from a group faded out), at 0.5 half,
    nested groups multiplying; an object's own opacity is its own (a lamp under a 0.5
    bulb: full light)."""
    from hfrender.scene.lamps import lit_now

    ctx, c = gl_context(), float(srgb_to_linear(GREY))
    for fades, share in (((0.0,), 0.0), ((0.5,), 0.5), ((0.5, 0.5), 0.25), ((1.0,), 1.0)):
        lamp = hf.PointLight(position=(0, 0, 2), intensity=4)  # (1x the grey under it)
        outer = inner = hf.Group(lamp, opacity=fades[0])
        for fade in fades[1:]:
            outer = hf.Group(outer, opacity=fade)
        scene = plane_scene(lamp)
        picture = draw(ctx, scene)[..., 0]
        assert abs(picture[60, 100] - c * (AMBIENT + share)) <= CODE16, fades
        assert (lit_now(scene) == [lamp]) == (share > 0) and inner.opacity == fades[0]
    bulb = hf.Sphere(position=(0, 0, -1), radius=0.05, opacity=0.5)  # (under the plane)
    lamp = hf.PointLight(position=(0, 0, 3), intensity=4, parent=bulb)
    scene = plane_scene(bulb, lamp)
    picture = draw(ctx, scene)[..., 0]
    assert abs(picture[60, 100] - c * (AMBIENT + 1.0)) <= CODE16


def sun_and_spot(dark, sun_shadows=True, spot_shadows=True):
    """A 0.4 m cube over :func:`plane_scene`'s plane, the sun (``shadows``) and a spot
    (``shadows=True``) both casting its shadow on it; ``dark``: the scene's light_* or the
    spot's settings."""
    spot = hf.SpotLight(position=(0.3, 0, 2), direction=(0, 0, -1), angle=60,
                        shadows=spot_shadows,
                        **{k: v for k, v in dark.items() if not k.startswith("light_")})
    scene = plane_scene(hf.Cube(position=(0, 0, 0.5), scale=0.4), spot)
    scene.shadows, scene.light_direction = sun_shadows, (0.3, 0.2, 1)
    for name, value in dark.items():
        if name.startswith("light_"):
            setattr(scene, name, value)
    return scene


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("dark, maps", [
    (dict(), 2), (dict(light_strength=0.0), 1), (dict(light_color=(0, 0, 0)), 1),
    (dict(intensity=0.0), 1), (dict(visible=False), 1), (dict(color=(0, 0, 0)), 1)])
def test_no_shadow_map_is_drawn_for_a_light_that_gives_none(gl_context, monkeypatch, dark,
                                                            maps):
    """The sun (shadows=True) and a spot (shadows=True) each draw a map; one whose light is
    0 (light_strength 0, a black light_color; a spot's intensity 0, switched off, black)
    draws none (was: the sun's drawn whatever its light), and the picture is the one drawn
    with that light's shadows off, bit for bit."""
    from hfrender.renderer.shadows import ShadowPass

    drawn, draw_map = [], ShadowPass._draw
    monkeypatch.setattr(ShadowPass, "_draw", lambda self, *a: (drawn.append(id(self)),
                                                               draw_map(self, *a))[1])
    picture = draw(gl_context(), sun_and_spot(dark))
    assert len(set(drawn)) == maps
    if dark:
        sun = any(name.startswith("light_") for name in dark)
        off = draw(gl_context(), sun_and_spot(dark, sun_shadows=not sun, spot_shadows=sun))
        assert picture.tobytes() == off.tobytes()


SUN_ONLY = ("vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
            "    return color * (u_ambient + max(dot(normal, u_light_dir), 0.0));\n}\n")
LAMPS_ONLY = ("vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
              "    return color * hf_lamps(world, normal);  // (no hf_shadow: no sun)\n}\n")


@pytest.mark.usefixtures("gl_context")
def test_a_scenes_own_shader_without_hf_lamps_or_hf_shadow_is_warned_of_once(
        gl_context, tmp_path, caplog):
    """A scene's own surface lit by the sun (it reads u_light_dir) that never calls
    hf_lamps() while lamps are lit, or hf_shadow() while the sun casts, drew without them
    and said nothing; now a warning each, naming the file, once (two draws: two lines).
    One that calls hf_lamps() and reads no sun, the built-in lambert, and the same text
    (a file of its own: the first's lines are said already) in a scene with no lamp and
    no shadows: none."""
    for name, text in (("sun_only.glsl", SUN_ONLY), ("lamps_only.glsl", LAMPS_ONLY),
                       ("sun_unlit.glsl", SUN_ONLY)):
        (tmp_path / name).write_text(text)
    ctx = gl_context()

    def shot(shader, lamp=True, shadows=True):
        scene = plane_scene(*[hf.PointLight(position=(0, 0, 2))] * lamp, shader=shader)
        scene.source_path, scene.shadows = str(tmp_path / "shot.py"), shadows
        scene.light_direction = (0.3, 0.2, 1)
        return scene

    with caplog.at_level("WARNING"):
        for _ in range(2):
            draw(ctx, shot("sun_only.glsl"), t=0.5)
        said = [r.getMessage() for r in caplog.records]
        caplog.clear()
        draw(ctx, shot("lamps_only.glsl"))
        draw(ctx, shot(None))
        draw(ctx, shot("sun_unlit.glsl", lamp=False, shadows=False))
    assert said == [
        "sun_only.glsl never calls hf_lamps(world, normal): the scene's lamps (1 lit at "
        "t=0.5 s) light nothing drawn with it; add color * hf_lamps(world, normal) to what "
        "its shade() returns",
        "sun_only.glsl never calls hf_shadow(world, normal): the scene's shadows=True "
        "shades nothing drawn with it; multiply its directional light by "
        "hf_shadow(world, normal)"]
    assert [r.getMessage() for r in caplog.records] == []
