"""Shadertoy shaders as pasted: a byte-order mark, a ``#version`` line, the shader's own
declarations of iTime and the rest compile (a mainImage of another signature and inputs
hfrender does not give are named: tests/test_render.py); iDate runs with iTime on a fixed
day."""

import re
from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.renderer.programs import ShaderError

RED = "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n" \
      "    fragColor = vec4(1.0, 0.0, 0.0, 1.0);\n}\n"


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


def test_idate_is_a_fixed_day_whose_clock_runs_with_itime(tmp_path):
    """Red: the year 2000, January (0), the 1st; green: seconds since midnight / 10, which
    is iTime (frame k at 10 fps: k / 10 s, green k / 100 of full, the code 2.55 k)."""
    path = tmp_path / "clock.frag"
    path.write_text("void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n"
                    "    bool day = iDate.x == 2000.0 && iDate.y == 0.0 && iDate.z == 1.0;\n"
                    "    fragColor = vec4(day ? 1.0 : 0.0, iDate.w / 10.0, iMouse.x, 1.0);\n"
                    "}\n")
    frames, _ = render_frames(path, size=(4, 2), samples=1, duration=4, fps=10)
    assert (frames[..., 0] == 255).all() and (frames[..., 2] == 0).all()
    green = frames[:, 0, 0, 1].astype(float)
    np.testing.assert_allclose(green, 2.55 * np.arange(40), atol=1)


def _frag(tmp_path, text, name="s.frag", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _one(path, **settings):
    frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30, **settings)
    return frames[0]


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


def test_main_image_adds_to_black_as_on_shadertoy(tmp_path):
    """Code-golf shaders add to their colour (``O += ...``): it starts as Shadertoy's
    wrapper sets it, black (was: an ``out`` parameter, undefined: black here, white on a
    half the shader left alone)."""
    path = _frag(tmp_path, "void mainImage(out vec4 O, vec2 u) {\n"
                 "    for (int i = 0; i < 4; i++) O += vec4(0.1, 0.05, 0.02, 0.0);\n"
                 "    if (u.x < 4.0) O.b = 1.0;\n}\n")
    frame = _one(path)
    left, right = frame[:, :4], frame[:, 4:]  # 0.4, 0.2, 0.08 of full: codes 102, 51, 20
    assert (right == [102, 51, 20]).all() and (left == [102, 51, 255]).all()


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


def test_inputs_hfrender_does_not_set_are_named_and_msaa_is_said_unused(tmp_path, caplog):
    path = _frag(tmp_path, "uniform sampler2D iChannel0;\nuniform float iSampleRate, iTime;\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(texture(iChannel0, vec2(0.5)).r, iSampleRate, 1.0, 1.0);\n}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path, msaa=4)
    assert (frame == [0, 0, 255]).all()
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "--msaa 4: s.frag is a fragment shader, which colours each pixel once "
        "(multisampling smooths the edges of geometry); ignored",
        "s.frag reads iChannel0, iSampleRate, which hfrender does not set (a line `// "
        "hfrender: iChannel0 = noise.png` in the shader gives a channel a picture, `= "
        "bufA.frag` a buffer; no sound): they stay 0; it sets iResolution, iTime, iTimeDelta, "
        "iFrameRate, iFrame, iMouse, iDate"]
    other = _frag(tmp_path, "uniform float time;\nuniform vec2 resolution;\n"  # glslsandbox's
                  "void mainImage(out vec4 c, in vec2 p) {\n"
                  "    c = vec4(time, resolution.x, 1.0, 1.0);\n}\n")
    caplog.clear()
    with caplog.at_level("WARNING"):
        _one(other)
    assert [r.getMessage() for r in caplog.records] == [  # not "... no buffers or sound"
        "s.frag reads time, resolution, which hfrender does not set: they stay 0; it sets "
        "iResolution, iTime, iTimeDelta, iFrameRate, iFrame, iMouse, iDate"]


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


def test_shadertoys_channels_used_undeclared_read_black_as_on_shadertoy(tmp_path, caplog):
    """shadertoy.com declares iChannel0..3 itself: a pasted shader that reads one failed
    ("`iChannel0' undeclared"); GLSL ES 3.00's packHalf2x16 was missing, and the old name
    iGlobalTime too. Red: the four channels (black) and iChannelResolution (0) added to
    0.5; green: a half float packed and back (0.25); blue: iGlobalTime is iTime (frame 1 of
    8 fps: 0.125, drawn at its own time with one sample)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    vec2 uv = p / iResolution.xy;\n"
                 "    vec4 t = texture(iChannel0, uv) + texture(iChannel1, uv) +\n"
                 "             texture(iChannel2, uv) + texture(iChannel3, uv);\n"
                 "    float h = unpackHalf2x16(packHalf2x16(vec2(0.25, 0.0))).x;\n"
                 "    c = vec4(0.5 + t.r + t.a + iChannelResolution[0].x, h, iGlobalTime, 1.0);\n"
                 "}\n")
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(path, size=(8, 4), samples=1, duration=2 / 8, fps=8)
    np.testing.assert_array_equal(frames[1], np.broadcast_to([128, 64, 32], (4, 8, 3)))
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag reads iChannel0, iChannel1, iChannel2, iChannel3, iChannelResolution, which "
        "hfrender does not set (a line `// hfrender: iChannel0 = noise.png` in the shader "
        "gives a channel a picture, `= bufA.frag` a buffer; no sound): they stay 0; it sets "
        "iResolution, iTime, iTimeDelta, iFrameRate, iFrame, iMouse, iDate"]


def test_a_latin_1_shader_file_is_read(tmp_path):
    """Was: an internal error (UnicodeDecodeError) for a © in a comment."""
    path = _frag(tmp_path, "// Copyright \xa9 2020 I\xf1igo\n" + RED, encoding="latin-1")
    assert (_one(path) == [255, 0, 0]).all()


def test_iframe_above_360_degrees_is_the_same_whatever_range_is_rendered(tmp_path):
    """At 720 degrees frames share sub-frames; each is given the frame whose open shutter's
    middle is nearest (was: the frame whose window it completed, which depended on the
    range: frame 4 was 5 in the whole render, 4 with --frames 3:5)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(float(iFrame) / 255.0, 0.0, 0.0, 1.0);\n}\n")
    settings = dict(size=(4, 2), samples=4, shutter=720.0, duration=0.2)
    whole, _ = render_frames(path, **settings)
    part, _ = render_frames(path, first_frame=3, count=2, **settings)
    np.testing.assert_array_equal(part, whole[3:5])
    assert [int(f[0, 0, 0]) for f in whole[1:]] == [1, 2, 3, 4, 5]
    from hfrender.sampler import SampleSchedule

    for position in ("start", "center", "end"):  # never -1 (was, for frame 0's first)
        schedule = SampleSchedule(fps=10, samples=4, shutter_deg=720, position=position)
        assert min(schedule.frame_at(t) for t in schedule.plan(3).times) == 0


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


def test_only_the_codes_unset_inputs_are_named():
    from hfrender.renderer.shadertoy import unset_inputs

    assert unset_inputs("#ifdef A\nuniform sampler2D iChannel0;\n#else\n"
                        "uniform sampler2D iChannel0;\n#endif\n"
                        "vec4 f() { return texture(iChannel0, vec2(0.0)); }") == ["iChannel0"]
    assert unset_inputs("// uniform sampler2D iChannel0;\n/* uniform float iSampleRate; */\n"
                        "uniform vec3 iResolution = vec3(1, 2, 3), iChannelResolution[4];\n"
                        "uniform float iTime; uniform sampler2D iChannel1;\n"
                        "float f() { return iChannelResolution[0].x + iChannelTime[0]; }\n"
                        "vec4 g() { return texture(iChannel1, vec2(iSampleRate)); }") == [
        "iChannelResolution", "iChannel1", "iChannelTime", "iSampleRate"]


@pytest.mark.parametrize("declared", [
    "uniform float gain = 0.5;\n",  # given a value: it keeps it
    "uniform float iChannelTime[4];\nuniform vec3 iChannelResolution[4];\n"  # shadertoy.com's
    "uniform float iSampleRate;\nuniform sampler2D iChannel0;\n",  # inputs, pasted, unread
    "uniform vec2 gain2 = vec2(0.5, 1.0), unread;\n",
])
def test_an_initialised_or_unread_uniform_is_not_said_to_stay_0(tmp_path, caplog, declared):
    """Was: "s.frag reads gain, which hfrender does not set: it stays 0" for a uniform
    that keeps 0.5, and "reads" for each of shadertoy.com's inputs pasted unread (a
    trial); the picture's red is 0.5 either way."""
    gain = re.search(r"gain2?", declared)
    use = "0.5" if gain is None else gain.group() + (".x" if "2" in gain.group() else "")
    path = _frag(tmp_path, declared + "void mainImage(out vec4 c, in vec2 p) {\n"
                 f"    c = vec4({use}, 0.0, 0.0, 1.0);\n}}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path)
    assert (frame == [128, 0, 0]).all() and caplog.records == []


def test_a_shaders_notes_are_said_once_and_where_the_user_sees_them(tmp_path, caplog):
    """still --compare drew the frame twice and said the note twice; render --ray said it
    only on the workers, whose logs the user does not see."""
    from hfrender.cli import main
    from hfrender.config import RenderConfig
    from hfrender.engine.cluster import ClusterRender

    path = _frag(tmp_path, "uniform sampler2D iChannel0;\n"
                 + RED.replace("1.0, 0.0", "1.0 + texture(iChannel0, vec2(0.0)).r, 0.0", 1))
    with caplog.at_level("WARNING"):
        assert main(["still", str(path), "--compare", "-o", str(tmp_path / "c.png"), "--size",
                     "8x4", "--quiet"]) == 0
    assert [r.getMessage()[:23] for r in caplog.records] == ["s.frag reads iChannel0,"]
    caplog.clear()
    with caplog.at_level("WARNING"):
        ClusterRender(path, RenderConfig(output=str(tmp_path / "r.mp4"), size=(8, 4),
                                         duration=0.2)).prepare()
    assert [r.getMessage()[:23] for r in caplog.records] == ["s.frag reads iChannel0,"]


def test_gl_fragcoord_is_fragcoord_and_dfdy_points_up_as_on_shadertoy(tmp_path):
    """shadertoy.com calls mainImage with gl_FragCoord.xy; dFdx and dFdy follow the
    picture's right and up (was: gl_FragCoord.y ran from the top, and dFdy(fragCoord.y) was
    -1: screen-space normals and bump maps flipped). Red: gl_FragCoord is fragCoord and
    dFdx(fragCoord.x) is 1; green: fragCoord.y / 4 (rows from the top: 3.5, 2.5, 1.5, 0.5);
    blue: 0.5 + 0.25 * dFdy(fragCoord.y)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    bool same = all(lessThan(abs(gl_FragCoord.xy - p), vec2(1e-3)));\n"
                 "    bool right = abs(dFdx(p.x) - 1.0) < 1e-3;\n"
                 "    c = vec4(same && right ? 1.0 : 0.0, p.y / 4.0,\n"
                 "             0.5 + 0.25 * dFdy(p.y), 1.0);\n}\n")
    frame = _one(path).astype(int)
    assert (frame[..., 0] == 255).all()
    np.testing.assert_array_equal(frame[:, 0, 1], np.rint([223.1, 159.4, 95.6, 31.9]))
    assert (frame[..., 2] == 191).all()  # dFdy(fragCoord.y) = +1 (0.75: code 191)


def test_itime_follows_the_shutter_before_0_and_a_start_shutter_keeps_it_at_0_on(tmp_path):
    """The centred shutter opens frame 0 before t = 0: iTime < 0 there (kept: drawing those
    sub-frames at 0 stuck a copy of every moving shader at its t = 0 place); the README's
    remedy for a shader that cannot take it, ``--shutter-position start``, keeps iTime at
    0 and on. Red: iTime below 0."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(iTime < 0.0 ? 1.0 : 0.0, 0.0, 0.0, 1.0);\n}\n")
    frames, _ = render_frames(path, size=(4, 2), samples=8, duration=2 / 30)
    assert (frames[0, ..., 0] > 100).all() and (frames[1, ..., 0] == 0).all()
    start, _ = render_frames(path, size=(4, 2), samples=8, duration=2 / 30,
                             shutter_position="start")
    assert (start[..., 0] == 0).all()


def test_a_comment_between_a_declarations_names_does_not_hide_them(tmp_path):
    """Was: "`iTime' redeclared": the declaration was looked for in the code between
    comments, and a comment inside it cut it in two."""
    path = _frag(tmp_path, "uniform float iTime, /* t */\n   iTimeDelta, gain; // x\n"
                 "/* uniform float iFrame; */\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(0.5, 0.0, 0.0, 1.0);\n"
                 "    c.g = gain;\n    c.b = nope;\n}\n")
    with pytest.raises(ShaderError, match=rf"^{path}:7: `nope' undeclared$"):
        _one(path)  # its line kept: the declaration's line break stays


@pytest.mark.parametrize("source", [
    "// ported from a shader that read iChannel0\n",  # in a comment
    "uniform sampler2D iChannel0;\n",  # declared (unread: no warning)
])
def test_an_input_hfrender_does_not_give_is_blamed_only_where_the_compiler_names_it(
        tmp_path, source):
    """Was: "...; iChannel0 is not an input hfrender gives" after any error of a shader
    whose text held the name."""
    path = _frag(tmp_path, source + "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(iTim);\n}\n")
    with pytest.raises(ShaderError) as err:
        _one(path)
    assert re.fullmatch(rf"{path}:3: `iTim' undeclared( \(and \d+ more errors?\))?",
                        str(err.value)), str(err.value)


@pytest.mark.parametrize("samples_range, count", [((4, 64), 8), ((12, 20), 12), ((2, 5), 5)])
def test_samples_auto_draws_a_shader_at_the_default_count(tmp_path, caplog, samples_range,
                                                          count):
    """Was: refused ("no velocity to measure its motion by"), so an hfrender.toml with
    ``samples = "auto"`` failed every shader. The bar's streak is the fixed count's, said
    in a warning; the count stays within --samples-range."""
    bar = Path(__file__).parent / "data" / "bar.frag"
    common = dict(size=(96, 8), duration=3 / 30, shutter=360)
    with caplog.at_level("WARNING"):
        auto, _ = render_frames(bar, samples="auto", samples_range=samples_range, **common)
    fixed, _ = render_frames(bar, samples=count, **common)
    np.testing.assert_array_equal(auto, fixed)
    assert not np.array_equal(fixed, render_frames(bar, samples=count + 1, **common)[0])
    assert (f"--samples auto: bar.frag is a fragment shader, with no geometry to measure its "
            f"motion by; {count} sub-frames a frame" in caplog.text)


def test_dfdy_fine_and_coarse_point_up_as_dfdy_does(tmp_path):
    """The review's: with GL_ARB_derivative_control, dFdyFine was -1 where dFdy was +1."""
    path = _frag(tmp_path, "#extension GL_ARB_derivative_control : enable\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(0.5 + 0.25 * dFdyFine(p.y), 0.5 + 0.25 * dFdyCoarse(p.y),\n"
                 "             0.5 + 0.25 * dFdy(p.y), 1.0);\n}\n")
    assert (_one(path) == 191).all()  # each +1: 0.75, code 191


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


@pytest.mark.parametrize("own", [
    "const float iSampleRate = 0.5;\n",  # a global of its own, named as shadertoy's input
    "#define iGlobalTime 0.5\n",  # its own macro of the old name
    "float iGlobalTime = 0.5;\n",
    "struct S { float iChannelTime; };\nconst S s = S(0.5);\n",  # a field of that name
])
def test_a_shaders_own_name_of_an_input_stays_its_own(tmp_path, own):
    """Declaring what a shader uses undeclared broke those that had one of their own
    (a review: "'iSampleRate' redeclared", "Redefinition of macro iGlobalTime")."""
    name = re.findall(r"iSampleRate|iGlobalTime|iChannelTime", own)[0]
    use = "s.iChannelTime" if "struct" in own else name
    frame = _one(_frag(tmp_path, own + "void mainImage(out vec4 c, in vec2 p) {\n"
                       f"    c = vec4({use}, 0.0, 0.0, 1.0);\n}}\n"))
    assert (frame[..., 0] == 128).all()  # 0.5, a display colour


def test_a_cube_map_channel_used_undeclared_is_told_how_to_declare_it(tmp_path):
    """Declared as a 2D texture, a cube map's channel fails to compile: the hint says how
    to declare it (was: the compiler's overload error alone)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, vec3(1.0));\n}\n")
    with pytest.raises(ShaderError, match=r"^.*s\.frag:2: no matching function for call to "
                       r"`texture\(sampler2D, vec3\)'.*; hfrender declares a channel the "
                       r"shader uses undeclared as a 2D texture \(black\): for a cube map or "
                       r"a 3D texture, declare it: uniform samplerCube iChannel0; "
                       r"\(or sampler3D\)$"):
        _one(path)
    cube = _frag(tmp_path, "uniform samplerCube iChannel0;\n" + path.read_text(), "c.frag")
    assert (_one(cube)[..., :3] == 0).all()  # declared so: black, as the hint says


@pytest.mark.parametrize("declared", ["uniform highp float iGlobalTime;\n",
                                      "uniform  float iGlobalTime;\n"])
def test_the_old_itime_declared_as_a_uniform_is_itime(tmp_path, declared):
    """A precision or a second space in its uniform declaration made the old name count as
    the shader's own: left undeclared once the uniform was taken out (a review)."""
    frame = _one(_frag(tmp_path, declared + "void mainImage(out vec4 c, in vec2 p) {\n"
                       "    c = vec4(iGlobalTime == iTime ? 1.0 : 0.0, 0.0, 0.0, 1.0);\n}\n"))
    assert (frame[..., 0] == 255).all()


def test_the_readmes_loop_limit_is_llvmpipes_for_all_of_a_pixels_loops(tmp_path):
    """The README said "a loop stops after 65,535 iterations"; on llvmpipe the limit is
    shared by all the loops of one pixel (a trial measured it): its figures, measured.
    The count is written as two 8-bit codes (high, low)."""
    readme = (Path(__file__).parent.parent / "docs" / "rendering.md").read_text()
    said = re.search(r"300 x 300 nested loops stop at about ([\d,]+) of their 90,000, two "
                     r"loops of 40,000 in a row at ([\d,]+); 200 x 200 runs whole",
                     " ".join(readme.split()))
    assert said, "docs/rendering.md's sentence on llvmpipe's loop limit"
    nested = "for (int i = 0; i < N + iFrame; i++) for (int j = 0; j < N + iFrame; j++) k++;"
    row = "for (int i = 0; i < 40000 + iFrame; i++) k++; for (int j = 0; j < 40000; j++) k++;"
    counts = {}
    for name, code in (("nested", nested.replace("N", "300")), ("in a row", row),
                       ("whole", nested.replace("N", "200"))):
        path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n    float k = 0.0;\n"
                     f"    {code}\n    c = vec4(floor(k / 256.0), mod(k, 256.0), 0.0, 255.0)"
                     " / 255.0;\n}\n")
        frames, stats = render_frames(path, size=(2, 2), samples=1, duration=1 / 30)
        if "llvmpipe" not in stats.gl_renderer:
            pytest.skip(f"the README's figures are llvmpipe's, not {stats.gl_renderer}'s")
        r, g = frames[0, 0, 0, :2].astype(int)
        counts[name] = 256 * r + g
    assert counts == {"nested": pytest.approx(int(said.group(1).replace(",", "")), abs=100),
                      "in a row": int(said.group(2).replace(",", "")), "whole": 40000}


@pytest.mark.parametrize("antialias", [True, False])
def test_a_shaders_sub_frames_sample_the_pixel_as_a_meshs_do(tmp_path, antialias):
    """A trial: a shader drew the pixel's centre in every sub-frame (16 sub-frames of a
    still circle: codes 0 and 255 alone). Each sub-frame's fragCoord moves by its place in
    the window's antialiasing pattern (x right, y up): a pixel is the share of its 16
    points inside the circle (linear light); ``antialias = false`` keeps the centres."""
    from render_helpers import linear

    from hfrender.sampler import pixel_offsets

    cx, cy, r = 13.3, 17.6, 7.2  # (off the pixel grid: the pattern's orientation shows)
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 f"    c = vec4(vec3(length(p - vec2({cx}, {cy})) < {r} ? 1.0 : 0.0), 1.0);\n"
                 "}\n")
    frames, _ = render_frames(path, size=(32, 32), samples=16, duration=1 / 30,
                              antialias=antialias)
    x = np.arange(32) + 0.5
    y = 32 - (np.arange(32) + 0.5)  # rows from the top; fragCoord's y runs up
    points = pixel_offsets(16) if antialias else np.zeros((1, 2))
    share = np.mean([np.hypot(x[None, :] + dx - cx, y[:, None] + dy - cy) < r
                     for dx, dy in points], axis=0)
    np.testing.assert_allclose(linear(frames[0, ..., 0]), share, atol=0.004)
    assert len(np.unique(frames[0])) == (2 if not antialias else len(np.unique(share)))


def test_a_channel_shows_the_picture_its_shader_names(tmp_path, caplog):
    """A trial: every channel read black, so a shader of shadertoy.com that samples a
    texture could not be rendered as it looks there. A line ``// hfrender: iChannel0 =
    FILE`` gives a channel a picture, sampled as shadertoy.com samples its textures: its
    bottom row at v = 0, repeated, its size in iChannelResolution; a grey or 16-bit picture
    as its codes. Red and blue: the picture at uv (its top row red, its bottom row blue);
    green: iChannel1's (a grey 16-bit picture of 40000) plus its width / 64."""
    import imageio.v3 as iio

    picture = np.zeros((4, 8, 3), np.uint8)
    picture[0], picture[-1] = (255, 0, 0), (0, 0, 255)
    (tmp_path / "tex").mkdir()
    iio.imwrite(tmp_path / "tex" / "a.png", picture)
    iio.imwrite(tmp_path / "grey.png", np.full((2, 16), 40000, np.uint16))
    path = _frag(tmp_path, "// hfrender: iChannel0 = tex/a.png\n"
                 "//hfrender:iChannel1=\"grey.png\"\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    vec2 uv = vec2(0.5, (floor(p.y) + 0.5) / 4.0);\n"
                 "    vec3 a = texture(iChannel0, uv).rgb;\n"
                 "    float g = texture(iChannel1, vec2(0.3, 0.7)).g;\n"
                 "    c = vec4(a.r, g * 0.5 + iChannelResolution[1].x / 64.0, a.b, 1.0);\n}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path)
    assert caplog.records == []  # nothing said to stay 0
    # rows from the top: the picture's rows 0 (red), 1, 2 and 3 (blue), texel centres
    assert frame[:, 4, 0].tolist() == [255, 0, 0, 0] and frame[:, 4, 2].tolist() == \
        [0, 0, 0, 255]
    grey = round(40000 * 255 / 65535) / 255  # a 16-bit picture's code, 8-bit (155)
    assert (frame[..., 1] == round((grey * 0.5 + 16 / 64) * 255)).all()


def test_a_channels_picture_missing_or_unread_is_said_at_its_line(tmp_path, caplog):
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n"
                 "// hfrender: iChannel2 = none.png\n")
    with pytest.raises(ShaderError, match=rf"^{path}:2: hfrender: iChannel2 = none\.png: "
                                          r"no such file \(a path from the shader's folder\)$"):
        _one(path)
    (tmp_path / "none.png").write_text("not a picture")
    with pytest.raises(ShaderError, match=rf"^{path}:2: hfrender: iChannel2 = none\.png: not "
                                          r"a picture hfrender reads \(PNG, JPEG, WebP, a GIF's "
                                          r"first frame, \.\.\.; not EXR or video; at most 178 "
                                          r"million pixels\)$"):
        _one(path)
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "none.png", np.zeros((2, 2, 3), np.uint8))
    from hfrender.renderer.shader_notes import shader_notes
    from hfrender.scene import ShaderScene

    caplog.clear()
    with caplog.at_level("WARNING"):
        shader_notes(type("C", (), {"msaa": 1})(), ShaderScene(path.read_text(), str(path)))
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag gives iChannel2 a picture, which its code never reads"]


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


def test_a_channels_picture_reads_as_a_viewer_shows_it(tmp_path):
    """A trial: a 1-bit picture (a font atlas) drew almost black (codes 0 and 1), a CMYK
    JPEG's bytes were taken as colour, a palette's transparency was lost and a phone
    photo's EXIF orientation was not applied."""
    from PIL import Image

    from hfrender.renderer.channel_textures import _picture, _rgba8

    def refused(why):
        return AssertionError(why)

    ink = Image.new("1", (4, 2), 0)
    ink.putpixel((1, 0), 1)
    ink.save(tmp_path / "ink.png")
    got = _rgba8(_picture(tmp_path / "ink.png", refused))
    assert got[0, 1].tolist() == [255, 255, 255, 255] and got[0, 0].tolist() == [0, 0, 0, 255]
    Image.new("CMYK", (2, 2), (0, 26, 222, 0)).save(tmp_path / "cmyk.jpg", quality=100)
    cmyk = _rgba8(_picture(tmp_path / "cmyk.jpg", refused))
    assert np.abs(cmyk[0, 0, :3].astype(int) - [255, 229, 33]).max() <= 3
    palette = Image.new("P", (2, 1), 0)
    palette.putpalette([255, 0, 0, 0, 0, 255])
    palette.putpixel((1, 0), 1)
    palette.save(tmp_path / "p.png", transparency=0)
    assert _rgba8(_picture(tmp_path / "p.png", refused))[0, :, 3].tolist() == [0, 255]
    key = Image.new("RGB", (2, 1), (255, 0, 0))  # a colour key (tRNS) in an RGB picture
    key.putpixel((1, 0), (0, 0, 255))
    key.save(tmp_path / "key.png", transparency=(255, 0, 0))
    assert _rgba8(_picture(tmp_path / "key.png", refused))[0, :, 3].tolist() == [0, 255]
    tall = Image.new("RGB", (3, 1), (9, 9, 9))  # stored 3 wide, shown turned: 1 wide
    exif = Image.Exif()
    exif[0x0112] = 8  # rotated 90 degrees
    tall.save(tmp_path / "phone.jpg", exif=exif)
    assert _picture(tmp_path / "phone.jpg", refused).shape[:2] == (3, 1)


def test_a_picture_for_a_cube_channel_or_past_the_texture_limit_is_refused(tmp_path):
    """A trial: both drew black, exit 0."""
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "a.png", np.zeros((2, 2, 3), np.uint8))
    cube = _frag(tmp_path, "// hfrender: iChannel0 = a.png\nuniform samplerCube iChannel0;\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, vec3(p, 1.0));\n}\n")
    with pytest.raises(ShaderError, match=rf"^{cube}:1: hfrender: iChannel0 = a\.png: the shader "
                                          r"declares this channel a cube map or a 3D texture; "
                                          r"a picture fills a 2D channel \(sampler2D\) only$"):
        _one(cube)
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    most = int(ctx.info["GL_MAX_TEXTURE_SIZE"])  # (16384 on llvmpipe; a GPU's may be more)
    ctx.release()
    iio.imwrite(tmp_path / "wide.png", np.zeros((1, most + 1, 3), np.uint8))
    wide = _frag(tmp_path, "// hfrender: iChannel0 = wide.png\n"
                 "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    with pytest.raises(ShaderError, match=rf":1: hfrender: iChannel0 = wide\.png: {most + 1}x1, "
                                          rf"more than this GL's largest texture \({most} a "
                                          r"side\); scale it down$"):
        _one(wide)


def test_a_shaders_antialias_line_keeps_its_pixel_centres(tmp_path):
    """A trial: pixel-exact code (texelFetch of a picture shown 1:1, grain hashed from
    fragCoord) was softened by the sub-frames' antialiasing, and only a hfrender.toml could
    turn it off; its own line does, for that shader alone."""
    code = ("void mainImage(out vec4 c, in vec2 p) {\n"
            "    c = vec4(vec3(fract(p.x) == 0.5 && fract(p.y) == 0.5 ? 1.0 : 0.0), 1.0);\n}\n")
    soft, _ = render_frames(_frag(tmp_path, code, "soft.frag"), size=(8, 4), samples=8,
                            duration=1 / 30)
    exact, _ = render_frames(_frag(tmp_path, "// hfrender: antialias = false\n" + code,
                                   "exact.frag"), size=(8, 4), samples=8, duration=1 / 30)
    assert (exact == 255).all() and (soft < 255).all()


def test_a_channels_picture_is_an_asset_a_resume_and_a_batch_see_change(tmp_path):
    """A trial: a changed picture went unnoticed: a batch said the job up to date, and
    --resume went on, one video of two textures. It is one of the scene's files, as its
    models and surface shaders are (their checksums kept with the run, their stamps with a
    batch's record)."""
    import json

    import imageio.v3 as iio

    from hfrender.cli import main
    from hfrender.scene import ShaderScene
    from hfrender.scene.sources import scene_assets

    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 40, np.uint8))
    path = _frag(tmp_path, "// hfrender: iChannel0 = n.png\n"
                 "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    first = scene_assets(ShaderScene(path.read_text(), str(path)))
    assert list(first) == ["n.png"]
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')

    def status():
        assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary",
                     str(tmp_path / "r.json")]) == 0
        return json.loads((tmp_path / "r.json").read_text())[0]["status"]

    assert status() == "done" and status() == "up-to-date"
    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 200, np.uint8))
    assert scene_assets(ShaderScene(path.read_text(), str(path))) != first
    assert status() == "done"  # made again with the new picture



def test_a_batch_checks_a_shaders_pictures_before_any_job_runs(tmp_path, capsys):
    """A trial: a missing picture failed its job only when its turn came."""
    from hfrender.cli import main

    _frag(tmp_path, "// hfrender: iChannel0 = gone.png\n"
          "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(
        f"{tmp_path / 's.frag'}:1: hfrender: iChannel0 = gone.png: no such file (a path from "
        "the shader's folder)\n")
    assert not (tmp_path / "o.mp4").exists()


def test_a_picture_edited_while_its_job_renders_makes_the_job_again(tmp_path, monkeypatch):
    """A review: the stamps were taken after the render, so a picture changed while it ran
    left a stale output up to date; they are taken as the scene is read."""
    import json

    import imageio.v3 as iio

    from hfrender.cli import main
    from hfrender.engine.render import RenderJob

    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 40, np.uint8))
    _frag(tmp_path, "// hfrender: iChannel0 = n.png\n"
          "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')
    real = RenderJob.run

    def edited(self):  # the picture changes while the job renders (its texture loaded)
        iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 200, np.uint8))
        return real(self)

    def status():
        assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary",
                     str(tmp_path / "r.json")]) == 0
        return json.loads((tmp_path / "r.json").read_text())[0]["status"]

    monkeypatch.setattr(RenderJob, "run", edited)
    assert status() == "done"
    monkeypatch.setattr(RenderJob, "run", real)
    assert status() == "done"  # made again: its output held the old picture


def test_a_python_scenes_own_antialias_attribute_changes_nothing(tmp_path):
    """A review: any scene's ``antialias`` attribute turned the jitter off (5 codes for 46);
    only a shader's own line does."""
    body = ("import hfrender as hf\nclass S(hf.Scene):\n    duration = 0.1\n{}"
            "    def setup(self):\n        self.add(hf.Sphere(radius=0.6))\n")
    plain = tmp_path / "plain.py"
    plain.write_text(body.format(""))
    own = tmp_path / "own.py"
    own.write_text(body.format("    antialias = False\n"))
    settings = dict(size=(32, 18), samples=8, duration=1 / 30, msaa=1)
    a, _ = render_frames(plain, **settings)
    b, _ = render_frames(own, **settings)
    np.testing.assert_array_equal(a, b)
    assert len(np.unique(a)) > 4  # antialiased: more than a few codes
