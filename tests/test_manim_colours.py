"""manim's colour names for manim users porting a scene: ``color="BLUE_E"`` is manim's
#236B8E (was: refused, "did you mean 'blue'?", CSS's #0000FF), ``hf.BLUE_E`` says its hex,
and the names CSS has too (``"red"``, ``"RED"``) stay CSS's (hfrender/color.py)."""

import numpy as np
import pytest
from PIL import Image
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.color import display_color
from hfrender.errors import InputError


def codes(hex_code):
    return tuple(int(hex_code[i:i + 2], 16) for i in (1, 3, 5))


@pytest.mark.parametrize("value, hex_code", [
    ("BLUE_E", "#236B8E"), ("blue_e", "#236B8E"), ("DARK_BLUE", "#236B8E"),
    ("DARK_GREY", "#444444"), ("DARK_GRAY", "#444444"), ("GREY_BROWN", "#736357"),
    ("LIGHT_PINK", "#DC75CD"), ("PURE_RED", "#FF0000"), ("YELLOW_C", "#F7D96F"),
    ("LOGO_BLUE", "#525893"), (" GOLD_E ", "#C78D46"),
    # names CSS has too keep CSS's meaning, as before (manim's RED is #FC6255)
    ("RED", "#FF0000"), ("red", "#FF0000"), ("ORANGE", "#FFA500"), ("darkblue", "#00008B"),
])
def test_manims_names_with_an_underscore_are_manims_colours(value, hex_code):
    assert display_color(value) == tuple(c / 255 for c in codes(hex_code))
    assert hf.Sphere(color=value).color == tuple(c / 255 for c in codes(hex_code))


def test_the_palette_is_manims_whole():
    from hfrender.color import MANIM_COLORS

    assert len(MANIM_COLORS) == 89  # manim's 89 names, GREY spellings and LOGO_* among them
    assert {MANIM_COLORS[n] for n in ("GRAY_D", "GREY_D", "DARK_GRAY", "DARK_GREY")} == {
        "#444444"}
    assert (MANIM_COLORS["WHITE"], MANIM_COLORS["BLACK"], MANIM_COLORS["ORANGE"],
            MANIM_COLORS["LOGO_BLACK"]) == ("#FFFFFF", "#000000", "#FF862F", "#343434")


@pytest.mark.parametrize("value, message", [
    ("BLUE_F", "color='BLUE_F' is not a colour; did you mean 'BLUE_E'?"),
    ("dark_bleu", "color='dark_bleu' is not a colour; did you mean 'DARK_BLUE'?"),
    ("bleu", "color='bleu' is not a colour; did you mean 'blue'?"),
])
def test_a_misspelt_manim_name_is_told_manims(value, message):
    with pytest.raises(InputError) as excinfo:
        display_color(value)
    assert str(excinfo.value) == message


@pytest.mark.parametrize("name, hint", [
    ("BLUE_E", "manim's BLUE_E is color='#236B8E' (or color='BLUE_E')"),
    ("DARK_GREY", "manim's DARK_GREY is color='#444444' (or color='DARK_GREY')"),
    ("RED", "manim's RED is color='#FC6255' (color='red' is CSS's, '#FF0000')"),
    ("ORANGE", "manim's ORANGE is color='#FF862F' (color='orange' is CSS's, '#FFA500')"),
    ("WHITE", "manim's WHITE is color='#FFFFFF' (or color='white')"),
])
def test_hf_dot_a_manim_colour_says_its_hex(name, hint):
    with pytest.raises(AttributeError) as excinfo:
        getattr(hf, name)
    assert str(excinfo.value) == f"module 'hfrender' has no attribute {name!r}; {hint}"


SWATCHES = """

class Swatches(hf.Scene):
    duration = 0.04
    background = "black"
    ambient = 1.0
    def setup(self):
        for x, name in zip((-3, -1, 1, 3), ("BLUE_E", "dark_grey", "LOGO_RED", "RED")):
            self.add(hf.Plane(position=(x, 0, 0), scale=1.5, color=name, shader="unlit"))
        self.camera.position = (0, 0, 8)
        self.camera.orthographic, self.camera.ortho_height = True, 6.0
"""


def test_a_still_draws_manims_colours_exactly(tmp_path):
    scene = write_scene(tmp_path, SWATCHES, "swatches.py")
    out = tmp_path / "s.png"
    assert main(["still", str(scene), "-o", str(out), "--size", "64x36", "--samples", "1",
                 "--quiet"]) == 0
    picture = np.asarray(Image.open(out).convert("RGB"))
    got = [tuple(int(c) for c in picture[18, 32 + 6 * x]) for x in (-3, -1, 1, 3)]
    assert got == [codes("#236B8E"), codes("#444444"), codes("#E07A5F"), (255, 0, 0)]


@pytest.mark.parametrize("line, hint", [
    ("self.add(hf.Plane(color=BLUE_E))", "manim's BLUE_E is color='#236B8E' (or "
                                         "color='BLUE_E')"),
    ("self.add(hf.Plane(rotation=(90 * DEGREES, 0, 0)))", "angles are radians: "
                                                          "math.radians(90) for manim's 90 * "
                                                          "DEGREES"),
])
def test_a_bare_manim_name_in_a_scene_says_what_it_is_here(tmp_path, capsys, line, hint):
    scene = write_scene(tmp_path, f"""
    class Ported(hf.Scene):
        duration = 0.04
        def setup(self):
            {line}
    """)
    out = tmp_path / "p.png"
    assert main(["still", str(scene), "-o", str(out), "--size", "32x18", "--quiet"]) == 1
    name = "BLUE_E" if "BLUE_E" in line else "DEGREES"
    assert capsys.readouterr().err == (
        f"hfrender: error: scene error in setup(): NameError: name {name!r} is not defined "
        f"({scene}:8); {hint}\n")
    assert not out.exists()
