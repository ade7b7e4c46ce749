"""A line meant for hfrender but written otherwise (``// HFRender: iChannel0 = a.png``,
``// hfrender iChannel0 = a.png``, ``// hfrender: iChannel0: a.png``) is an error at its
line with the line hfrender reads (was: left as a comment, the channel black, a warning
naming iChannel0 beside the very line the user thought they had written)."""

import pytest
from render_helpers import render_frames

from hfrender.errors import InputError
from hfrender.scene import ShaderScene

MAIN = "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p / iResolution.xy); }\n"


def _read(tmp_path, text):
    """(channel -> (file name, line), antialias) of a shader ``text`` at ``s.frag``."""
    scene = ShaderScene(text, str(tmp_path / "s.frag"))
    return ({i: (p.name, line) for i, (p, line) in scene.channel_files().items()},
            scene.antialias)


@pytest.mark.parametrize("written, meant", [
    ("// HFRender: iChannel0 = noise.png", "// hfrender: iChannel0 = noise.png"),
    ("// hfrender iChannel0 = noise.png", "// hfrender: iChannel0 = noise.png"),
    ("// hfrender: iChannel0: noise.png", "// hfrender: iChannel0 = noise.png"),
    ("  //  Hfrender : ichannel1 = tex/a b.png  ", "// hfrender: iChannel1 = tex/a b.png"),
    ("// hfrender: Antialias: false", "// hfrender: antialias = false"),
    ("// hfrender common = common.glsl", "// hfrender: common = common.glsl"),
    ("// hfrender: iChannel2: noise.png // the grain", "// hfrender: iChannel2 = noise.png"),
    # a colon and a file's name with a space (was left a comment, the channel black: a review)
    ("// hfrender: iChannel0: tex/a b.png", "// hfrender: iChannel0 = tex/a b.png"),
])
def test_a_line_meant_for_hfrender_is_told_with_the_line_it_reads(tmp_path, written, meant):
    with pytest.raises(InputError) as err:
        _read(tmp_path, f"// my tunnel\n{written}\r\n" + MAIN)
    assert str(err.value) == (
        f"{tmp_path / 's.frag'}:2: {written.strip()}: not read (hfrender reads lines written "
        f"exactly so: {meant})")


@pytest.mark.parametrize("comment", [
    "// hfrender render scenes/plasma.frag -o plasma.mp4   (iTime is each sub-frame's time)",
    "// hfrender common settings below",  # no = or : after the name: prose
    "// rendered by hfrender: iChannel0 = noise.png",  # hfrender not first
    "// hfrender common: c.glsl is where shared code would go",  # words after the value
    "// hfrender antialias: off here",
    "// hfrender antialias = off where pixels must stay crisp",  # no file's name either
    "// HFRender iChannel1: the noise, drawn once // see below",
    "/*\n// HFRender: iChannel0 = noise.png\n*/",  # inside a block comment
])
def test_prose_about_hfrender_is_left_a_comment(tmp_path, comment):
    assert _read(tmp_path, f"{comment}\n// hfrender: iChannel0 = a.png\n" + MAIN)[0] == {
        0: ("a.png", comment.count("\n") + 2)}


def test_a_shader_with_prose_about_hfrender_renders(tmp_path):
    """Was: 's.frag:1: // hfrender common: c.glsl is where shared code would go: not read
    (... // hfrender: common = c.glsl is where shared code would go)', exit 2."""
    path = tmp_path / "s.frag"
    path.write_text("// hfrender common: c.glsl is where shared code would go\n"
                    "// hfrender antialias: off here\n"
                    "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0, 0.5, 0.0, 1.0); }\n")
    frames, _ = render_frames(path, size=(4, 2), samples=1, duration=1 / 30)
    assert frames.tolist() == [[[[255, 128, 0]] * 4] * 2]
