"""The directional light's strength and colour: the scene's light_strength and light_color
(hfrender/scene/__init__.py, renderer/lamps.py: sun_uniforms; lambert.glsl, toon.glsl).
test_lamps' plane facing +z seen straight down, lit at n.l = 0.8 (light_direction (0, 0.6,
0.8)), read back in linear light (a float target) and worked by hand within one code of 16
bits."""

import numpy as np
import pytest
from test_lamps import CODE16, GREY, draw

import hfrender as hf
from hfrender.color import srgb_to_linear
from hfrender.errors import InputError
from hfrender.scene import past_white

AMBIENT, NL = 0.1, 0.8
C = float(srgb_to_linear(GREY))  # the plane's linear grey
ORANGE = (1.0, 0.5, 0.0)  # display: linear (1, 0.214, 0)


def sun_scene(shader=None, **light):
    """test_lamps' plane (ortho, straight down: toon's rim 0), lit by the directional light
    at n.l = 0.8 with the scene attributes ``light`` (``light_strength``, ``light_color``)
    set in ``setup()``."""

    class Sun(hf.Scene):
        background = (0.0, 0.0, 0.0)
        ambient = AMBIENT
        light_direction = (0, 0.6, 0.8)

        def setup(self):
            self.add(hf.Plane(scale=12, color=(GREY,) * 3, shader=shader))
            for name, value in light.items():
                setattr(self, name, value)
            self.camera.orthographic = True
            self.camera.ortho_height = 3.0
            self.camera.position = (0, 0, 10)
            self.camera.look_at((0, 0, 0))

    return Sun()


def lit(strength=1.0, color=(1.0, 1.0, 1.0)):
    """lambert's colour by hand: c x (ambient + (1 - ambient) x n.l x strength x colour)."""
    light = srgb_to_linear(np.asarray(color, np.float64)) * strength
    return C * (AMBIENT + (1 - AMBIENT) * NL * light)


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("light, want", [
    ({}, lit()),
    ({"light_strength": 0.5}, lit(0.5)),
    ({"light_strength": 0}, lit(0.0)),  # off: ambient alone
    ({"light_color": ORANGE}, lit(1.0, ORANGE)),
    ({"light_strength": 2, "light_color": "#ff8000"}, lit(2.0, (1.0, 128 / 255, 0.0))),
])
def test_lambert_takes_the_lights_strength_and_colour(gl_context, light, want):
    picture = draw(gl_context(), sun_scene(**light))
    assert np.abs(picture[60, 100] - want).max() <= CODE16
    assert np.abs(picture - picture[60, 100]).max() <= CODE16  # the whole plane alike
    if light.get("light_strength") == 0:
        assert np.abs(picture[60, 100] - C * AMBIENT).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("light, band, tint", [
    ({}, 1.0, (1.0, 1.0, 1.0)),  # n.l 0.8: the top band
    ({"light_strength": 0.5}, 0.6, (1.0, 1.0, 1.0)),  # 0.4: the middle band
    ({"light_strength": 0}, 0.3, (1.0, 1.0, 1.0)),  # off: the darkest
    # 0.8 x (1, 0.214, 0): the top band, tinted (light + 0.3) / (0.8 + 0.3)
    ({"light_color": ORANGE}, 1.0, (1.0, (0.8 * 0.21404114 + 0.3) / 1.1, 0.3 / 1.1)),
])
def test_toon_cuts_its_bands_from_the_lights_strength_and_colour(gl_context, light, band,
                                                                   tint):
    picture = draw(gl_context(), sun_scene(shader="toon", **light))
    assert np.abs(picture[60, 100] - C * band * np.asarray(tint)).max() <= CODE16


@pytest.mark.usefixtures("gl_context")
def test_the_light_is_set_from_t_and_read_by_a_scenes_own_shader(gl_context, tmp_path):
    """light_strength set in update(t) (0.5 at t = 0.5); a scene's own .glsl reads
    u_light_color, the linear colour x strength, and is warned of nothing."""
    scene = sun_scene(light_color="red")
    scene.update = lambda t: setattr(scene, "light_strength", t)
    assert np.abs(draw(gl_context(), scene, t=0.5)[60, 100] - lit(0.5, (1, 0, 0))).max() \
        <= CODE16
    (tmp_path / "sun.glsl").write_text("vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
                                       "    return color * u_light_color;\n}\n")
    scene = sun_scene(shader="sun.glsl", light_strength=2, light_color=ORANGE)
    scene.source_path = str(tmp_path / "shot.py")
    want = C * 2 * srgb_to_linear(np.asarray(ORANGE))
    assert np.abs(draw(gl_context(), scene)[60, 100] - want).max() <= CODE16


@pytest.mark.parametrize("name, value, message", [
    ("light_strength", -1, "Shot.light_strength=-1 must be a finite number >= 0 (the "
                           "directional light: 1 full, 0 off)"),
    ("light_strength", float("nan"), "Shot.light_strength=nan must be a finite number >= 0 "
                                     "(the directional light: 1 full, 0 off)"),
    ("light_strength", "2", "Shot.light_strength='2' must be a finite number >= 0 (the "
                            "directional light: 1 full, 0 off)"),
    ("light_color", "nope", "Shot.light_color='nope' is not a colour; use a name ('red'), "
                            "hex ('#ff8800', '#f80') or 3 numbers 0..1 (r, g, b)"),
    ("light_color", (1, 2, 0), "Shot.light_color=(1, 2, 0): the values must be numbers "
                               "0..1"),
])
def test_a_bad_light_is_one_line_and_changes_nothing(name, value, message):
    class Shot(hf.Scene):
        light_strength = 0.5
        light_color = "orange"

    scene = Shot()
    assert (scene.light_strength, scene.light_color) == (0.5, (1.0, 165 / 255, 0.0))
    with pytest.raises(InputError) as caught:
        setattr(scene, name, value)
    assert str(caught.value) == message
    assert (scene.light_strength, scene.light_color) == (0.5, (1.0, 165 / 255, 0.0))
    with pytest.raises(InputError) as caught:  # in the class body: when the class is made
        type("Shot", (hf.Scene,), {name: value})
    assert str(caught.value) == message


def test_light_names_misspelt_are_suggested():
    scene = hf.Scene()
    with pytest.raises(InputError) as caught:
        scene.light_colour = "red"
    assert str(caught.value) == "Scene has no attribute 'light_colour'; did you mean " \
                                "'light_color'?"
    with pytest.raises(InputError) as caught:
        scene.light_strenght = 2
    assert str(caught.value) == "Scene has no attribute 'light_strenght'; did you mean " \
                                "'light_strength'?"


def test_hdr_auto_counts_the_lights_strength():
    """A white plane at ambient 0.18 and light_strength 2 gets 0.18 + 0.82 x 2 = 1.82x its
    colour at most: past white, named; at 1 (1 exactly), or 2 with a dim colour, not."""
    def scene(**light):
        s = hf.Scene()
        s.floor = s.add(hf.Plane(scale=1, color="white"))
        for name, value in light.items():
            setattr(s, name, value)
        return s
    assert past_white(scene(light_strength=2)) == ("self.floor (a Plane) with light_strength "
                                                   "2 reaches 1.82x white")
    assert past_white(scene()) is None
    assert past_white(scene(light_strength=1.0, light_color="white")) is None
    assert past_white(scene(light_strength=2, light_color=(0.5, 0.5, 0.5))) is None
