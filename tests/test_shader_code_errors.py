"""A shader file's code faults told at their own file and line, before the compiler blames
something else: a ``/*`` never closed (was: "is empty", the rest of the file taken for a
comment), an ``#include`` in a common or surface file (was: "cannot include", no line), a
``{`` never closed (was: line 1, the error in hfrender's code after the shader's)."""

import re

import pytest
from render_helpers import render_frames
from test_render import write_scene

from hfrender.cli import main
from hfrender.errors import InputError

IMAGE = "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0, 0.5, 0.25, 1.0); }\n"
SURFACE = """
class Card(hf.Scene):
    duration = 0.1

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -2), scale=3.0, shader="mine"))
"""


def _still(path, capsys):
    """(exit status, stderr) of ``hfrender still`` at 4x2, 1 sample."""
    status = main(["still", str(path), "--size", "4x2", "--samples", "1",
                   "-o", str(path.parent / "o.png"), "-q"])
    return status, capsys.readouterr().err


def _surface(tmp_path, source):
    """A frame of a card drawn with ``source`` as its surface shader, mine.glsl."""
    (tmp_path / "mine.glsl").write_text(source)
    return render_frames(write_scene(tmp_path, SURFACE), count=1, size=(8, 4), samples=1)


def _never_closed(path, line):
    return (f"{path}:{line}: this '/*' is never closed: all after it is a comment, to the "
            "file's end; close it with '*/'")


def test_an_unclosed_comment_in_the_image_is_told_at_its_line(tmp_path, capsys):
    """The user's: was "unt.frag: is empty; a Shadertoy-style shader defines ..."."""
    path = tmp_path / "unt.frag"
    path.write_text("/* unterminated\nvoid mainImage(out vec4 c, in vec2 p){c=vec4(1);}\n")
    assert _still(path, capsys) == (2, f"hfrender: error: {_never_closed(path, 1)}\n")
    assert not (tmp_path / "o.png").exists()


@pytest.mark.parametrize("where", ["buffer", "common"])
def test_an_unclosed_comment_in_a_buffer_or_common_file_is_told_at_its_line(tmp_path, capsys,
                                                                            where):
    """Was: "defines no mainImage" (a buffer), a compile error of the shader's (common)."""
    other = tmp_path / ("buf.frag" if where == "buffer" else "c.glsl")
    other.write_text("// mine\nfloat f() { return 1.0; } /* half of it\n*\n"
                     + IMAGE * (where == "buffer"))
    line = ("// hfrender: iChannel0 = buf.frag\n" if where == "buffer"
            else "// hfrender: common = c.glsl\n")
    (tmp_path / "s.frag").write_text(line + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(tmp_path / "s.frag", capsys) == (
        2, f"hfrender: error: {_never_closed(other, 2)}\n")


def test_an_unclosed_comment_in_a_surface_shader_is_told_at_its_line(tmp_path):
    """Was: "mine.glsl: is empty; a surface shader defines ..."."""
    with pytest.raises(InputError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c) { return c; }\n\n/*/ old\n")
    assert str(err.value) == _never_closed(tmp_path / "mine.glsl", 3)


def test_a_closed_comment_and_one_opened_in_a_line_comment_are_no_fault(tmp_path, capsys):
    path = tmp_path / "s.frag"
    path.write_text("//**** my shader ****\n// see a/*.png\n/* a\n   b */\n" + IMAGE)
    assert _still(path, capsys) == (0, "")


def test_an_include_in_a_common_file_is_told_at_its_own_line(tmp_path, capsys):
    """The user's cm2.frag: was "cm2.frag: shader compilation failed: 'cannot include
    "other.glsl"'", no file or line (the Image's own #include is told since 656ff56)."""
    (tmp_path / "c.glsl").write_text('// shared\n#include "other.glsl"\nfloat f() { return '
                                     "1.0; }\n")
    path = tmp_path / "cm2.frag"
    path.write_text("// hfrender: common = c.glsl\n" + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(path, capsys) == (2, (
        f'hfrender: error: {tmp_path / "c.glsl"}:2: #include "other.glsl": GLSL has no '
        "#include (shadertoy.com neither); a shader has one common file: put the code of "
        "other.glsl in c.glsl\n"))


@pytest.mark.parametrize("named", ['"lib/noise.glsl"', "<lib/noise.glsl>"])
def test_an_include_in_a_surface_shader_is_told_at_its_own_line(tmp_path, named):
    """Was: "mine.glsl: shader compilation failed: 'cannot include "lib/noise.glsl"'" (and
    "... 0:3(3): preprocessor error: include <lib/noise.glsl> not found")."""
    from hfrender.renderer.programs import ShaderError

    with pytest.raises(ShaderError) as err:
        _surface(tmp_path, f'/* #include "old.glsl" */\n\n  #include {named}\n'
                           "vec3 shade(vec3 n, vec3 w, vec3 c) { return c; }\n")
    assert str(err.value) == (f"{tmp_path / 'mine.glsl'}:3: #include {named}: GLSL has no "
                              "#include; put the code of lib/noise.glsl in mine.glsl")
    assert isinstance(err.value, InputError)  # the user's file: bad input (exit 2)


def _open(path, line, nor=""):
    return f"{path}:{line}: this '{{' is never closed{nor}; close it with '}}'"


@pytest.mark.parametrize("source, line, nor", [
    ("void mainImage(out vec4 c, in vec2 p){\n  c=vec4(1);\n", 1, ""),  # the user's
    ("// two\nvoid mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1);\n  if (p.x > 1.0) {\n"
     "    c = vec4(0); /* } */\n", 4, " (nor the one on line 2)"),
])
def test_a_brace_never_closed_in_the_image_is_told_at_its_line(tmp_path, capsys, source,
                                                               line, nor):
    """Was: "brace.frag:1: syntax error, unexpected '{', expecting ';'", the error in
    hfrender's code after the shader's sent to mainImage's line."""
    path = tmp_path / "brace.frag"
    path.write_text(source)
    assert _still(path, capsys) == (2, f"hfrender: error: {_open(path, line, nor)}\n")


def test_a_brace_never_closed_in_a_common_file_is_told_at_its_line(tmp_path, capsys):
    (tmp_path / "c.glsl").write_text("// shared\nfloat f() {\n  return 1.0;\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = c.glsl\n" + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(path, capsys) == (2, f"hfrender: error: {_open(tmp_path / 'c.glsl', 2)}\n")


def test_a_brace_never_closed_in_a_surface_shader_is_told_at_its_line(tmp_path):
    from hfrender.renderer.programs import ShaderError

    with pytest.raises(ShaderError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c)\n{\n  return c;\n\n")
    assert str(err.value) == _open(tmp_path / "mine.glsl", 2)
    assert isinstance(err.value, InputError)


def test_braces_opened_in_the_arms_of_an_if_and_closed_once_draw(tmp_path, capsys):
    """Counted over the file the braces are unbalanced, but the compiler sees one arm: no
    fault of the file's (it is told only where the compiler fails after the file)."""
    path = tmp_path / "s.frag"
    path.write_text("#ifdef HF_BUFFER\nvoid mainImage(out vec4 c, in vec2 p) {\n#else\n"
                    "void mainImage(out vec4 c, in vec2 p) {\n#endif\n"
                    "  c = vec4(1.0, 0.5, 0.25, 1.0);\n}\n")
    assert _still(path, capsys) == (0, "")


@pytest.mark.parametrize("name, source, said", [
    ("a.frag", "void mainImage(out vec4 c, in vec2 p) {\n  c = vec4(nope);\n}\n",
     ":2: `nope' undeclared (and 1 more error)"),  # the compiler's, at the file's line
    ("d.frag", "void mainImage(out vec4 c, in vec3 p) {\n  c = vec4(1.0);\n}\n",
     ":1: no matching function for call to `mainImage(vec4, vec2)'; candidates are: void "
     "mainImage(vec4, vec3); hfrender calls void mainImage(out vec4 fragColor, in vec2 "
     "fragCoord)"),  # hfrender's call of it, told at its line
    ("e.frag", "void main() {\n  gl_FragColor = vec4(1.0);\n}\n",
     ": defines main(); a Shadertoy-style shader defines void mainImage(out vec4 fragColor, "
     "in vec2 fragCoord)"),  # found before the compiler
    ("f.frag", '#include "x.glsl"\n' + IMAGE,
     ':1: #include "x.glsl": GLSL has no #include (shadertoy.com neither); code the passes '
     "share goes in a file named by a line // hfrender: common = x.glsl"),
])
def test_a_fault_told_in_the_users_shader_exits_2(tmp_path, capsys, name, source, said):
    """Bad input, as a '/*' never closed was (exit 2): was exit 1, a failure, for the
    compiler's errors and those found before it."""
    path = tmp_path / name
    path.write_text(source)
    assert _still(path, capsys) == (2, f"hfrender: error: {path}{said}\n")
    assert not (tmp_path / "o.png").exists()


def test_a_compile_error_in_a_common_file_exits_2(tmp_path, capsys):
    (tmp_path / "c.glsl").write_text("// shared\nfloat f() { return nope; }\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = c.glsl\n" + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(path, capsys) == (
        2, f"hfrender: error: {tmp_path / 'c.glsl'}:2: `nope' undeclared (and 1 more error)\n")


def test_a_compile_error_in_a_surface_shader_is_bad_input(tmp_path):
    from hfrender.renderer.programs import ShaderError

    with pytest.raises(ShaderError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c) {\n  return nope;\n}\n")
    assert str(err.value).startswith(f"{tmp_path / 'mine.glsl'}:2: `nope' undeclared")
    assert isinstance(err.value, InputError)


def test_a_compile_error_in_hfrenders_own_code_stays_a_failure(tmp_path, capsys, monkeypatch):
    """Not the user's file (hfrender's header broken: a bug, or the driver's): exit 1."""
    from hfrender.renderer import shadertoy

    own = shadertoy.glsl
    monkeypatch.setattr(shadertoy, "glsl", lambda name: own(name) + (
        "\nfloat hf_broken = nope_of_ours;\n" if name == "shadertoy_header.frag" else ""))
    path = tmp_path / "s.frag"
    path.write_text(IMAGE)
    status, err = _still(path, capsys)
    assert (status, err.count("\n")) == (1, 1), err
    assert re.fullmatch(r"hfrender: error: \S+shadertoy_header\.frag:\d+: `nope_of_ours' "
                        r"undeclared\n", err), err


def _stray(path, line):
    return f"{path}:{line}: this '}}' closes no '{{'; delete it"


def _too_soon(path, line, closed, opened, more=1):
    return (f"{path}:{line}: this line is outside any function: the '}}' on line {closed} "
            f"closes the '{{' on line {opened} (the file has {more} '}}' more than '{{'); "
            "delete the one too many")


@pytest.mark.parametrize("source, said", [
    (IMAGE + "}\n", lambda p: _stray(p, 2)),  # was: "syntax error, unexpected '}', expecting
    # end of file" (the file does not end there: hfrender's main() follows it)
    ("void mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1.0);\n  }\n  c.r = 0.5;\n}\n",
     lambda p: _too_soon(p, 4, 3, 1)),  # was: line 4 "unexpected NEW_IDENTIFIER"
    ("// x\nvoid mainImage(out vec4 c, in vec2 p) {\n  c = vec4(1.0); /* { */\n"
     "  if (p.x > 1.0) c.r = 0.0; }\n  c.g = 0.5;\n}\n}\n",
     lambda p: _too_soon(p, 5, 4, 2, 2)),  # an if's '{' left out
])
def test_a_stray_closing_brace_in_the_image_is_told_at_its_line(tmp_path, capsys, source,
                                                                said):
    path = tmp_path / "s.frag"
    path.write_text(source)
    assert _still(path, capsys) == (2, f"hfrender: error: {said(path)}\n")


def test_a_stray_closing_brace_in_a_common_file_is_told_at_its_line(tmp_path, capsys):
    (tmp_path / "c.glsl").write_text("// shared\nfloat f() { return 1.0; }\n}\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = c.glsl\n" + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(path, capsys) == (2, f"hfrender: error: {_stray(tmp_path / 'c.glsl', 3)}\n")


def test_a_function_closed_too_soon_in_a_surface_shader_is_told_at_its_line(tmp_path):
    with pytest.raises(InputError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c) {\n  vec3 r = c;\n  }\n"
                           "  return r;\n}\n")
    assert str(err.value) == _too_soon(tmp_path / "mine.glsl", 4, 3, 1)


def test_a_closing_brace_too_many_in_a_comment_is_no_fault(tmp_path, capsys):
    path = tmp_path / "s.frag"
    path.write_text("// }\n" + IMAGE + "/* } */\n")
    assert _still(path, capsys) == (0, "")


def test_a_channel_picture_refused_at_the_users_line_exits_2(tmp_path, capsys):
    """A channel line naming a file that is no picture is told at the shader's line, so it
    is bad input (exit 2), as the docs say of a fault told in the user's own file (a
    review: it exited 1, a failure)."""
    (tmp_path / "bad.png").write_text("not a picture\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: iChannel0 = bad.png\n" + IMAGE)
    status, err = _still(path, capsys)
    assert status == 2, err
    assert err.startswith(f"hfrender: error: {path}:1: ") and "not a picture" in err, err
    assert err.count("\n") == 1 and not (tmp_path / "o.png").exists()
