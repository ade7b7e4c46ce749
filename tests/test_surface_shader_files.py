"""Surface shader files of the render loop: found beside the scene or in shaders/, a
compile error naming its file, its hfrender entry point, byte order marks and version
lines, uniforms it declares (split from test_render_more.py)."""

import re

import pytest
from test_render import write_scene
from test_render_more import card_width

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test


def test_surface_shaders_from_shaders_glsl_and_beside_the_scene(tmp_path):
    (tmp_path / "red.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n    return vec3(1.0, 0.0, 0.0);\n}\n")
    _, plain = card_width(tmp_path, 2.0, False)
    _, red = card_width(tmp_path, 2.0, False, extra=', shader="red"')
    _, toon = card_width(tmp_path, 2.0, False, extra=', shader="toon"')
    assert plain[50, 100].tolist() == [255, 255, 255]
    assert red[50, 100].tolist() == [255, 0, 0]
    assert toon[50, 100].tolist() != plain[50, 100].tolist()  # banded light, dark rim


def test_surface_shader_error_names_its_file(tmp_path):
    from hfrender.renderer.programs import ShaderError

    (tmp_path / "bad.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n    return nope;\n}\n")
    with pytest.raises(ShaderError, match=rf"{tmp_path / 'bad.glsl'}:2: .*nope"):
        card_width(tmp_path, 2.0, False, extra=', shader="bad"')
    with pytest.raises(ShaderError, match=r"shader='missing': no such surface shader \(hfrender's "
                                          r"are 'lambert', 'toon' and 'unlit', or a "
                                          r"NAME\.glsl beside the scene; looked for "):
        card_width(tmp_path, 2.0, False, extra=', shader="missing"')
    for typo, meant in (("tooon", "toon"), ("bda", "bad"), ("tun", "toon")):  # built in,
        # beside the scene; a short name's too (was: 'tun' no guess)
        with pytest.raises(ShaderError, match=rf"shader='{typo}': no such surface shader "
                                              rf"\(did you mean '{meant}'\? looked for "):
            card_width(tmp_path, 2.0, False, extra=f', shader="{typo}"')


@pytest.mark.parametrize("source, said", [
    ("vec3 shading(vec3 normal, vec3 world, vec3 color) {\n    return color;\n}\n",
     r": defines no shade\(\) \(did you mean shading\?\); a surface shader defines vec3 "
     r"shade\(vec3 normal, vec3 world, vec3 color\)$"),
    ("void mainImage(out vec4 o, in vec2 c) {\n    o = vec4(1.0);\n}\n",
     r": defines mainImage\(\): a Shadertoy-style shader, drawn as a scene of its own"),
    ("// mine\nvec3 shade(vec3 n, vec3 c) {\n    return c;\n}\n",
     r":2: no matching function for call to `shade\(vec3, vec3, vec3\)'.*; hfrender calls "
     r"vec3 shade\(vec3 normal, vec3 world, vec3 color\)"),
])
def test_a_surface_shader_without_the_shade_hfrender_calls_names_its_file(tmp_path, source,
                                                                         said):
    """Was: "hfrender's wrapper: no function with name 'shade'", naming no file."""
    from hfrender.renderer.programs import ShaderError

    (tmp_path / "mine.glsl").write_text(source)
    with pytest.raises(ShaderError) as caught:
        card_width(tmp_path, 2.0, False, extra=', shader="mine"')
    assert str(caught.value).startswith(str(tmp_path / "mine.glsl")), caught.value
    assert "wrapper" not in str(caught.value) and re.search(said, str(caught.value))


@pytest.mark.parametrize("first", ["\ufeff", "#version 330 core\n", "\ufeff#version 460\r\n"])
def test_a_surface_shader_with_a_byte_order_mark_or_version_line_draws(tmp_path, first):
    """As a Windows editor saves it (a byte-order mark), or with the #version line GLSL
    habits add: drawn, its errors at the file's own lines (were: "shader compilation
    failed: ... fragment shader lacks `main'" and "#version must appear on the first line",
    at no line of the file)."""
    from hfrender.renderer.programs import ShaderError

    body = "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n    return color * {x};\n}\n"
    (tmp_path / "half.glsl").write_text(first + body.replace("{x}", "0.5"), newline="")
    _, frame = card_width(tmp_path, 2.0, False, extra=', shader="half"')
    assert frame[50, 100].tolist() == [188, 188, 188]  # white at half its light
    (tmp_path / "bad.glsl").write_text(first + body.replace("{x}", "nope"), newline="")
    line = 2 + first.count("\n")
    with pytest.raises(ShaderError, match=rf"^{re.escape(str(tmp_path / 'bad.glsl'))}:{line}: "
                                          r".*nope"):
        card_width(tmp_path, 2.0, False, extra=', shader="bad"')


def test_a_surface_shaders_own_uniform_hfrender_never_sets_is_warned_of(tmp_path, caplog):
    """Was: the object drawn black (``gain`` 0) without a word."""
    (tmp_path / "gain.glsl").write_text(
        "uniform float gain;\nuniform float kept = 1.0;\nuniform float unread;\n"
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n    return color * gain * kept;\n"
        "}\n")
    _, frame = card_width(tmp_path, 2.0, False, extra=', shader="gain"')
    assert frame[50, 100].tolist() == [0, 0, 0]
    said = [r.getMessage() for r in caplog.records if "gain.glsl" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith(
        "gain.glsl reads gain, which hfrender does not set: it stays 0; a surface shader "
        "may read u_time, "), said


def test_a_surface_shaders_uniform_of_the_vertex_shader_is_set_and_not_warned_of(tmp_path,
                                                                              caplog):
    """u_view, u_proj, u_model, u_normal_matrix and u_clip_rate are mesh.vert's, set for
    every object: a surface shader that declares one reads it (was: warned of as never
    set, "it stays 0")."""
    (tmp_path / "view.glsl").write_text(
        "uniform mat4 u_view;\nuniform mat4 u_model;\n"
        "vec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
        "    return color * u_view[3][3] * u_model[3][3];\n}\n")
    _, frame = card_width(tmp_path, 2.0, False, extra=', shader="view"')
    assert frame[50, 100].tolist() == [255, 255, 255]  # both set: [3][3] is 1
    said = [r.getMessage() for r in caplog.records if "view.glsl" in r.getMessage()]
    assert not said, said


@pytest.mark.parametrize("setup, update, said", [
    ('self.add(hf.Cube(shader="tooon"))', "pass",  # compiled before the first frame
     r"^hfrender: error: \S*scene\.py: shader='tooon': no such surface shader \(did you mean "
     r"'toon'\? looked for .*\) \(\S*scene\.py:8\)$"),
    ("self.c = self.add(hf.Cube())", 'self.c.shader = "nope" if t > 0.05 else None',
     r"^hfrender: error: scene error in drawing at t=0\.0\d+ s \(output frame 2\): "
     r"NoSurfaceShader: shader='nope': no such surface shader \(hfrender's are .*; looked "
     r"for .*\) "
     r"\(\S*scene\.py:10\); the 2 frames finished so far"),
])
def test_a_surface_shader_no_file_answers_is_told_at_the_scenes_line(tmp_path, capsys, setup,
                                                                     update, said):
    """Named in Mesh.load or an object's keywords, or set in update: a ShaderError with no
    line of the scene, exit 1 (as a shader that does not compile); now bad input (exit 2)
    at the line that named it."""
    from hfrender.cli import main

    path = write_scene(tmp_path, f"""
    class S(hf.Scene):
        duration = 0.2
        def setup(self):
            {setup}
        def update(self, t):
            {update}
    """)
    assert main(["render", str(path), "-o", str(tmp_path / "s.mp4"), "--size", "32x18",
                 "--samples", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.search(said, err.strip()), err
