"""Shaders as a Shadertoy author brings them from shadertoy.com, found in a trial: a Buffer
tab given as a channel."""

import numpy as np
import pytest

from hfrender.errors import InputError
from hfrender.scene import ShaderScene


@pytest.mark.parametrize("name", ["bufA.frag", "Buffer A.glsl", "feedback.fs"])
def test_a_buffer_tabs_shader_given_as_a_channel_is_a_buffer(tmp_path, name):
    """Was: "iChannel0 = .../bufA.frag: not a picture hfrender reads (PNG, JPEG, ...)", as
    if the file were broken, and only when the render started; then "hfrender draws the
    Image tab alone, no buffers". Now a buffer, of each shader suffix."""
    (tmp_path / name).write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }\n")
    text = (f"// Image tab\n// hfrender: iChannel0 = {name}\n"
            "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    scene = ShaderScene(text, str(tmp_path / "image.frag"))
    assert (scene.channel_files(), scene.buffer_files()) == ({}, {0: (tmp_path / name, 2)})
    assert [b.source_path for b in scene.buffers] == [str(tmp_path / name)]


def test_a_still_buffer_drawn_as_the_error_says_reads_back_its_colours(tmp_path):
    """A buffer drawn to a picture first (the workaround before buffers were drawn): the
    buffer's picture, read by texelFetch, is the buffer's colours, code for code."""
    from PIL import Image

    from hfrender.cli import main

    (tmp_path / "bufA.frag").write_text(
        "void mainImage(out vec4 c, in vec2 p) { c = vec4(p / iResolution.xy, 0.3, 1); }\n")
    (tmp_path / "image.frag").write_text(
        "// hfrender: iChannel0 = buffer.png\n// hfrender: antialias = false\n"
        "void mainImage(out vec4 c, in vec2 p) { c = texelFetch(iChannel0, ivec2(p), 0); }\n")
    for scene, out, samples in (("bufA.frag", "buffer.png", "1"), ("image.frag", "o.png", "8")):
        assert main(["still", str(tmp_path / scene), "-t", "0", "--samples", samples,
                     "--size", "8x4", "-o", str(tmp_path / out), "-q"]) == 0
    shown = np.asarray(Image.open(tmp_path / "o.png"))[..., :3]
    assert shown[-1, :, 0].tolist() == [16, 48, 80, 112, 143, 175, 207, 239]  # (x + .5) / 8
    assert shown[::-1, 0, 1].tolist() == [32, 96, 159, 223] and (shown[..., 2] == 76).all()


@pytest.mark.parametrize("text, line, candidate", [
    ("// a port from GLSL Sandbox\nvec4 mainImage(in vec2 fragCoord) {\n"
     "    return vec4(1.0);\n}\n", 2, "vec4 mainImage(vec2)"),
    ("// mainImage(fragColor) in mainImage(...) of a comment is no definition\n"
     "float f() { return 1.0; }\nvoid  mainImage ( out vec3 c, in vec2 p )\n"
     "{ c = vec3(f()); }\n", 3, "void mainImage(vec3, vec2)"),
])
def test_a_main_image_of_another_signature_is_told_at_its_line(tmp_path, text, line,
                                                                candidate):
    """Was: "hfrender's wrapper: no matching function for call to `mainImage(vec4, vec2)'",
    naming no line of the user's file."""
    from render_helpers import render_frames

    from hfrender.renderer.programs import ShaderError

    path = tmp_path / "s.frag"
    path.write_text(text)
    with pytest.raises(ShaderError) as err:
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert err.value.errors[0].startswith(
        f"{path}:{line}: no matching function for call to `mainImage(vec4, vec2)'; "
        f"candidates are: {candidate}")
    assert str(err.value).endswith(
        "; hfrender calls void mainImage(out vec4 fragColor, in vec2 fragCoord)")


@pytest.mark.parametrize("text, line, colour", [
    ("// no out\nvoid mainImage(vec4 c, vec2 p) { c = vec4(1.0); }\n", 2, "c"),
    ("void mainImage( in highp vec4 fragColor,\n in vec2 fragCoord )\n{\n"
     "    fragColor = vec4(1.0);\n}\n", 1, "fragColor"),
])
def test_a_main_image_whose_colour_is_not_out_is_warned_black(tmp_path, caplog, text, line,
                                                             colour):
    """Was: a black picture and no word (shadertoy.com draws it black too: its wrapper
    never sees what an ``in`` parameter is set to)."""
    from render_helpers import render_frames

    path = tmp_path / "s.frag"
    path.write_text(text)
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert (frames == 0).all()
    assert [r.getMessage() for r in caplog.records] == [
        f"s.frag:{line}: mainImage's colour {colour} is not out, so what it sets is never "
        f"seen (on shadertoy.com too): the picture is black; declare it out vec4 {colour}"]


@pytest.mark.parametrize("head", ["out vec4 c, vec2 p", "inout vec4 c, in vec2 p",
                                  "out mediump vec4 c, in vec2 p"])
def test_a_main_image_whose_colour_is_out_or_inout_draws_unwarned(tmp_path, caplog, head):
    from render_helpers import render_frames

    path = tmp_path / "s.frag"
    path.write_text(f"void mainImage({head}) {{ c = vec4(1.0, 0.5, 0.0, 1.0); }}\n")
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert frames[0, 0, 0].tolist() == [255, 128, 0] and not caplog.records


def test_an_hfrender_line_in_the_common_file_is_refused_at_its_line(tmp_path):
    """Was: ``// hfrender: iChannel0 = grad.png`` in the common file taken for a comment:
    the channel read black, unsaid."""
    (tmp_path / "common.glsl").write_text(
        "// shared\n// hfrender: iChannel0 = grad.png\n"
        "vec4 tex(vec2 uv) { return texture(iChannel0, uv); }\n"
        "/*\n// hfrender: iChannel1 = old.png\n*/\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = common.glsl\n"
                    "void mainImage(out vec4 c, in vec2 p) { c = tex(p); }\n")
    with pytest.raises(InputError) as err:
        ShaderScene(path.read_text(), str(path))
    assert str(err.value) == (
        f"{tmp_path / 'common.glsl'}:2: hfrender: iChannel0 = grad.png: hfrender reads its "
        f"lines in the shader ({path}), not in its common file; move it there")


def test_a_channel_read_in_the_common_file_counts_as_read(tmp_path, caplog):
    """Was: "s.frag gives iChannel0 a picture, which its code never reads" of a picture
    the common file's code reads (and shows), and no word of a channel it reads black."""
    from render_helpers import render_frames

    from hfrender.renderer.shader_notes import shader_notes

    (tmp_path / "common.glsl").write_text("vec4 tex(vec2 uv) { return texture(iChannel0, uv); }\n")
    (tmp_path / "grad.png").write_bytes((tmp_path / "common.glsl").read_bytes())  # any file
    path = tmp_path / "s.frag"
    calls = "void mainImage(out vec4 c, in vec2 p) { c = tex(p); }\n"
    path.write_text("// hfrender: common = common.glsl\n// hfrender: iChannel0 = grad.png\n"
                    + calls)
    config = type("C", (), {"msaa": 1})()
    with caplog.at_level("WARNING"):
        shader_notes(config, ShaderScene(path.read_text(), str(path)))
    assert not caplog.records
    path.write_text("// hfrender: common = common.glsl\n" + calls)
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert (frames == 0).all()
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag reads iChannel0, which hfrender does not set (a line `// hfrender: iChannel0 = "
        "noise.png` in the shader gives a channel a picture, `= bufA.frag` a buffer; no "
        "sound): it stays 0; it sets iResolution, iTime, iTimeDelta, iFrameRate, iFrame, "
        "iMouse, iDate"]
