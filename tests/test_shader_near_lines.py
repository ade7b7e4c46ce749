"""A line meant for hfrender but written otherwise (``// HFRender: iChannel0 = a.png``,
``// hfrender iChannel0 = a.png``, ``// hfrender: iChannel0: a.png``) is an error at its
line with the line hfrender reads (was: left as a comment, the channel black, a warning
naming iChannel0 beside the very line the user thought they had written)."""

import pytest

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
    "/*\n// HFRender: iChannel0 = noise.png\n*/",  # inside a block comment
])
def test_prose_about_hfrender_is_left_a_comment(tmp_path, comment):
    assert _read(tmp_path, f"{comment}\n// hfrender: iChannel0 = a.png\n" + MAIN)[0] == {
        0: ("a.png", comment.count("\n") + 2)}
