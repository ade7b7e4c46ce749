"""Shadertoy shaders as pasted: a byte-order mark, a ``#version`` line, the shader's own
declarations of iTime and the rest, macros and extensions compile, their errors at their
own lines (a mainImage of another signature: tests/test_render.py; inputs and channels:
test_shaders_inputs.py, test_shaders_channels.py)."""

import re

import pytest
from render_helpers import render_frames
from shader_helpers import RED, _frag, _one

from hfrender.renderer.programs import ShaderError


@pytest.mark.parametrize("before", [
    "\ufeff",  # a byte-order mark (Windows editors)
    "#version 300 es\nprecision highp float;\n",  # a ported GLSL ES shader
    "uniform float iTime;\nuniform vec3 iResolution;\nuniform vec4 iMouse; // the mouse\n",
    "precision mediump float;\nuniform highp float iTime;\nuniform float iTimeDelta, iFrameRate;\n",
])
def test_a_pasted_shader_compiles_as_it_is(tmp_path, before):
    path = tmp_path / "red.frag"
    path.write_bytes((before + RED).encode())
    frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert frames.shape == (1, 4, 8, 3) and (frames[..., 0] == 255).all()
    assert (frames[..., 1:] == 0).all()


def test_a_compile_error_after_a_version_line_keeps_its_line(tmp_path):
    path = tmp_path / "bad.frag"
    path.write_text("#version 300 es\n" + RED.replace("1.0, 0.0, 0.0", "nope, 0.0, 0.0"))
    with pytest.raises(ShaderError, match=rf"^{path}:3: .*nope"):
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)


@pytest.mark.parametrize("before, line", [
    ("// header\n\n\n\nuniform float iTime;\n", 8),  # blank lines before a declaration
    ("#version 300 es\nprecision highp float;\n\nuniform vec3 iResolution;\n\n"
     "uniform float iTime;\n", 9),
])
def test_blank_lines_before_a_declaration_keep_the_error_on_its_line(tmp_path, before, line):
    """Was: the declaration's pattern took the blank lines before it along, and the
    error was told lines too early."""
    lines = before.count("\n")
    body = "void mainImage(out vec4 c, in vec2 p)\n{\n    c = vec4(oops);\n}\n"
    assert lines + 3 == line
    path = _frag(tmp_path, before + body)
    with pytest.raises(ShaderError, match=rf"^{path}:{line}: `oops' undeclared"):
        _one(path)


def test_a_declaration_keeps_the_code_after_it_on_its_line(tmp_path):
    path = _frag(tmp_path, "uniform float iTime; float half_red = 0.5;\n"
                 "void mainImage(out vec4 c, in vec2 p) { c = vec4(half_red, 0.0, 0.0, 1.0); }\n")
    assert (_one(path)[..., 0] == 128).all()  # a shader's colour is the picture's code


def test_the_shaders_own_macros_do_not_reach_hfrenders_main(tmp_path):
    """``#define color ...`` broke the wrapper ("hfrender's wrapper: syntax error"), and
    ``#define iResolution ...`` moved every fragCoord.y (the wrapper's flip used it)."""
    path = _frag(tmp_path, "#define color vec3(1.0, 0.0, 0.0)\n"
                 "#define iResolution vec3(800.0, 450.0, 1.0)\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(color * step(2.0, p.y), 0.0);\n}\n")
    frame = _one(path)  # rows 0-1 of the picture are fragCoord.y 3.5 and 2.5
    assert (frame[:2, :, 0] == 255).all() and (frame[2:, :, 0] == 0).all()


@pytest.mark.parametrize("own", [
    "#define c 0.5\n",  # the wrapper's colour was c
    "#define mix(a,b,t) ((a)+((b)-(a))*(t))\n",
    "#define step(a, b) 0.0\n#define clamp(x, a, b) x\n#define isnan(x) x\n"
    "#define pow(a, b) a\n#  define hf_color 0\n#define main hf\n",
    "float step(float a, float b) { return 0.0; }\n"  # a function hides GLSL's of its name
    "float clamp(float x, float a, float b) { return x; }\nvec3 mix(vec3 a) { return a; }\n",
])
@pytest.mark.parametrize("hdr", ["off", "on"])  # on: the wrapper decodes with pow and step
def test_no_macro_or_function_of_the_shaders_reaches_hfrenders_main(tmp_path, own, hdr):
    """Was (a trial): "hfrender's wrapper: syntax error, unexpected FLOATCONSTANT" for
    ``#define c 0.5``, and the wrapper's mix, step, clamp, isnan, pow were the shader's.
    Its errors keep their lines (a define before them)."""
    path = _frag(tmp_path, own + "void mainImage(out vec4 o, in vec2 p) {\n"
                 "    o = vec4(0.5, 0.0, 2.0, 1.0);\n}\n")
    red = 128 if hdr == "off" else 127  # (0.5 through linear light: 127.5 rounds down)
    assert (_one(path, hdr=hdr) == [red, 0, 255]).all()
    path.write_text(own + "void mainImage(out vec4 o, in vec2 p) {\n    o = vec4(oops);\n}\n")
    with pytest.raises(ShaderError, match=rf"^{path}:{own.count(chr(10)) + 2}: `oops' "):
        _one(path)


@pytest.mark.parametrize("out, main", [
    ("out vec4 outColor;", "void main() { mainImage(outColor, gl_FragCoord.xy); }"),
    ("layout(location = 0)\n  out vec4 o;", "void main(void)\n{\n    o = vec4(0.0);\n"
     "    { mainImage(gl_FragColor, gl_FragCoord.xy); }\n}"),  # braces in it, over lines
])
def test_a_standalone_exports_main_is_left_unused_and_said_so(tmp_path, caplog, out, main):
    """A shader with mainImage and a main() of its own (a standalone export) failed:
    "hfrender's wrapper: function `main' redefined" (a trial). hfrender's main() calls
    mainImage; the shader's is not used, said once at its line; lines keep their place."""
    head = f"#version 300 es\nprecision highp float;\nuniform float iTime;\n{out}\n"
    path = _frag(tmp_path, head + RED.replace("1.0, 0.0, 0.0", "1.0, 0.0, 0.5")
                 + f"{main}\nfloat x = nope;\n", name="standalone.frag")
    line = head.count("\n") + RED.count("\n") + 1
    with pytest.raises(ShaderError, match=rf"^{path}:{line + main.count(chr(10)) + 1}: "
                       "`nope' undeclared"):
        _one(path)
    path.write_text(path.read_text().replace("float x = nope;\n", ""))
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert (_one(path) == [255, 0, 128]).all()
    assert [r.getMessage() for r in caplog.records] == [
        f"standalone.frag:{line}: defines main() as well as mainImage; hfrender supplies "
        "main() (which calls mainImage), so this one is not used"]


def test_extension_lines_go_before_the_declarations_and_hw_performance_is_set(tmp_path):
    path = _frag(tmp_path, "#extension GL_OES_standard_derivatives : enable\n"
                 "precision highp float;\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(fwidth(p.x), 0.0, 0.0, 1.0);\n"
                 "#if HW_PERFORMANCE == 0\n    c.g = 1.0;\n#endif\n}\n")
    frame = _one(path)
    assert (frame[..., 0] == 255).all() and (frame[..., 1] == 0).all()


def test_an_overload_error_tells_its_first_candidate_and_counts_errors_only(tmp_path):
    path = _frag(tmp_path, "void mainImage(out vec3 c, in vec2 p) { c = vec3(1.0); }\n")
    with pytest.raises(ShaderError, match=rf"^{path}:1: no matching function for call "
                       r"to `mainImage\(vec4, vec2\)'; candidates are: void mainImage\(vec3, "
                       r"vec2\); hfrender calls void mainImage\(out vec4 fragColor"):
        _one(path)
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(1.0) + nope;\n}\n")
    with pytest.raises(ShaderError) as err:
        _one(path)
    said = re.fullmatch(rf"{path}:2: `nope' undeclared( \(and (\d) more errors?\))?",
                        str(err.value))
    assert said and int(said.group(2) or 0) < 5, str(err.value)


def test_verbose_lists_every_compile_error_at_its_line(tmp_path, capsys):
    """Was: only the first, "(and 2 more errors)", with -v too (a trial); without -v one
    line stays. A candidate list stays with its error, the hint with the first."""
    from hfrender.cli import main

    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(nope);\n"
                 "    float x = nope2;\n    float y = step(vec3(1.0));\n}\n")
    out = str(tmp_path / "s.png")
    said = [f"{path}:2: `nope' undeclared",
            f"{path}:2: cannot construct `vec4' from a non-numeric data type",
            f"{path}:3: `nope2' undeclared",
            rf"{path}:4: no matching function for call to `step\(vec3\)'; candidates are: "
            r"float step\(float, float\) \(and \d+ more\)"]
    assert main(["still", str(path), "-o", out, "--size", "8x4", "-v"]) == 2  # the user's
    errors = [line for line in capsys.readouterr().err.splitlines()
              if line.startswith("hfrender: error: ")]
    assert [line.removeprefix("hfrender: error: ") for line in errors[:3]] == said[:3]
    assert len(errors) == 4 and re.fullmatch(said[3], errors[3][17:]), errors
    assert main(["still", str(path), "-o", out, "--size", "8x4"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: {said[0]} (and 3 more errors)\n"
    cube = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, vec3(1.0)) + vec4(nope);\n}\n")
    with pytest.raises(ShaderError) as err:
        _one(cube)
    hint = ("; hfrender declares a channel the shader uses undeclared as a 2D texture "
            "(black): for a cube map or a 3D texture, declare it: uniform samplerCube "
            "iChannel0; (or sampler3D)")
    first, *more = err.value.errors
    assert first.endswith(hint) and more[0] == f"{cube}:2: `nope' undeclared"
    assert str(err.value) == first.removesuffix(hint) + f" (and {len(more)} more errors){hint}"


def test_a_latin_1_shader_file_is_read(tmp_path):
    """Was: an internal error (UnicodeDecodeError) for a © in a comment."""
    path = _frag(tmp_path, "// Copyright \xa9 2020 I\xf1igo\n" + RED, encoding="latin-1")
    assert (_one(path) == [255, 0, 0]).all()


@pytest.mark.parametrize("before", [
    "/*\nuniform vec3 iResolution;\nuniform float iTime;\n*/\n",  # a commented-out list
    "uniform vec3 iResolution; uniform float iTime;\n",  # two on one line
    "uniform vec3 iResolution = vec3(800.0, 450.0, 1.0);\n",  # an initializer's commas
    "#ifdef GL_ES\n#extension GL_EXT_shader_texture_lod : require\n#endif\n",  # in an #if
    "/*\n#extension GL_FOO_bar : require\n*/\n",  # in a comment
])
def test_declarations_and_extensions_in_comments_ifs_and_odd_places(tmp_path, before):
    """Each compiled before the first version of the fix and broke with it (a review's
    cases): a nested comment, the second declaration of a line, an initializer split at
    its commas, an #extension hoisted out of its #if or its comment."""
    assert (_one(_frag(tmp_path, before + RED)) == [255, 0, 0]).all()


def test_lines_stay_in_place_after_a_declaration_over_lines_and_a_hoisted_extension(tmp_path):
    path = _frag(tmp_path, "uniform float iTime,\n    iTimeDelta;\nfloat x = oops;\n" + RED)
    with pytest.raises(ShaderError, match=rf"^{path}:3: `oops' undeclared"):
        _one(path)
    path = _frag(tmp_path, "\n\n\n\n#extension GL_FOO_bar : require\n" + RED)
    with pytest.raises(ShaderError, match=rf"^{path}:5: .*GL_FOO_bar"):
        _one(path)


def test_a_comment_between_a_declarations_names_does_not_hide_them(tmp_path):
    """Was: "`iTime' redeclared": the declaration was looked for in the code between
    comments, and a comment inside it cut it in two."""
    path = _frag(tmp_path, "uniform float iTime, /* t */\n   iTimeDelta, gain; // x\n"
                 "/* uniform float iFrame; */\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(0.5, 0.0, 0.0, 1.0);\n"
                 "    c.g = gain;\n    c.b = nope;\n}\n")
    with pytest.raises(ShaderError, match=rf"^{path}:7: `nope' undeclared$"):
        _one(path)  # its line kept: the declaration's line break stays


def test_a_binary_shader_file_and_glsl_named_py_are_told_apart(tmp_path, capsys):
    """A NUL in a .frag was the compiler's "unexpected end of file" (the text cut there);
    GLSL saved as .py a bare Python syntax error."""
    from hfrender.cli import main

    path = _frag(tmp_path, "// a\n\n/* \0 */\n" + RED)
    assert main(["still", str(path), "-o", str(tmp_path / "b.png")]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {path}: not a text file (a NUL byte on line 3); a shader is GLSL "
        "text defining void mainImage(out vec4, in vec2)\n")
    glsl = _frag(tmp_path, "// plasma\n" + RED, name="plasma.py")
    assert main(["still", str(glsl), "-o", str(tmp_path / "b.png")]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {glsl}:1: syntax error: invalid syntax; it reads as a "
        "Shadertoy-style shader (mainImage): name it plasma.frag\n")
    assert not (tmp_path / "b.png").exists()


@pytest.mark.parametrize("declared", ["uniform highp float iGlobalTime;\n",
                                      "uniform  float iGlobalTime;\n"])
def test_the_old_itime_declared_as_a_uniform_is_itime(tmp_path, declared):
    """A precision or a second space in its uniform declaration made the old name count as
    the shader's own: left undeclared once the uniform was taken out (a review)."""
    frame = _one(_frag(tmp_path, declared + "void mainImage(out vec4 c, in vec2 p) {\n"
                       "    c = vec4(iGlobalTime == iTime ? 1.0 : 0.0, 0.0, 0.0, 1.0);\n}\n"))
    assert (frame[..., 0] == 255).all()


def test_a_shaders_own_lines_as_a_text_editor_and_a_paste_leave_them(tmp_path):
    """A trial: a shader saved with Windows line endings lost its path to a trailing \\r
    (and the error its reason), one with a byte-order mark its first line; a comment after
    the path became part of it; a line inside /* */ counted; a second line for a channel,
    iChannel4 and an unknown name were taken or left unsaid."""
    from hfrender.errors import InputError
    from hfrender.scene import ShaderScene

    def read(text):
        scene = ShaderScene(text, str(tmp_path / "s.frag"))
        return ({i: (p.name, line) for i, (p, line) in scene.channel_files().items()},
                scene.antialias)

    assert read("\ufeff// hfrender: iChannel0 = a b.png\r\n"
                "// hfrender: iChannel1 = 'c.png'   // my noise\r\n"
                "/*\n// hfrender: iChannel2 = old.png\n*/\n"
                "//hfrender:antialias=false\n") == ({0: ("a b.png", 1), 1: ("c.png", 2)}, False)
    assert read("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n") == ({}, True)
    # a "/*" in a line comment opens no block; a comment after a tab, or with no space
    assert read("//**** my shader ****\n// textures/*.png\n"
                "// hfrender: iChannel0 = a.png\t// noise\n"
                "// hfrender: iChannel1 = b.png// x\n") == ({0: ("a.png", 3), 1: ("b.png", 4)},
                                                          True)
    reads = ("hfrender reads iChannel0..iChannel3 = a picture's or a buffer's shader's path, "
             "common = a file of shared code and antialias = true or false")
    for text, said in (
            ("// hfrender: iChannel0 = a.png\n// hfrender: iChannel0 = b.png\n",
             "s.frag:2: hfrender: iChannel0 = b.png: iChannel0 is given on line 1 already"),
            ("// hfrender: iChannel4 = a.png\n", "s.frag:1: hfrender: iChannel4 = a.png: "
             f"{reads}"),
            ("// hfrender: antialias = no\n", f"s.frag:1: hfrender: antialias = no: {reads}"),
            ("// hfrender: common =\n", f"s.frag:1: hfrender: common = : {reads}")):
        with pytest.raises(InputError) as err:
            read(text)
        assert str(err.value) == f"{tmp_path / said}"
