"""A ';' left off the end of a line is told at that line: the compiler stops at the next
code ("line 18: syntax error, unexpected '}', expecting ',' or ';'"), where the user's
fault is not; an error in the middle of a line stays the compiler's own."""

import pytest
from test_shader_code_errors import _still, _surface

from hfrender.errors import InputError


def _no_semicolon(path, line, at, said):
    return (f"{path}:{line}: no ';' at the end of this line; add one (the compiler stopped "
            f"at line {at}: syntax error, unexpected {said}, expecting ',' or ';')")


@pytest.mark.parametrize("body, line, at, said", [
    ("    vec2 uv = p / iResolution.xy\n    c = vec4(uv, 0.0, 1.0);\n", 3, 4, "IDENTIFIER"),
    ("    c = vec4(1.0);\n    c.r = 0.5 // half\n\n    #define G 0.2\n", 4, 7,
     "'}'"),  # a comment, a blank line and a directive passed over
    ("    float x = 1.0\n    float y = 2.0;\n    c = vec4(x, y, 0.0, 1.0);\n", 3, 4,
     "BASIC_TYPE_TOK"),
])
def test_a_missing_semicolon_is_told_at_its_own_line(tmp_path, capsys, body, line, at, said):
    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 p)\n{\n" + body + "}\n")
    assert _still(path, capsys) == (2, "hfrender: error: " + _no_semicolon(
        path, line, at, said) + "\n")


def test_a_global_constant_without_one_is_told_at_its_line(tmp_path, capsys):
    path = tmp_path / "s.frag"
    path.write_text("// 1\nconst float K = 2.0\nvoid mainImage(out vec4 c, in vec2 p)\n"
                    "{\n    c = vec4(K);\n}\n")
    assert _still(path, capsys) == (2, "hfrender: error: " + _no_semicolon(
        path, 2, 3, "VOID_TOK") + "\n")


def test_a_return_without_one_in_a_surface_shader_is_told_at_its_line(tmp_path):
    with pytest.raises(InputError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c) {\n  return c\n}\n")
    assert str(err.value) == _no_semicolon(tmp_path / "mine.glsl", 2, 3, "'}'")


@pytest.mark.parametrize("body, said", [
    ("    float x = 1.0 float y = 2.0;\n    c = vec4(x, y, 0.0, 1.0);\n",
     "3: syntax error, unexpected BASIC_TYPE_TOK"),  # in the line: the compiler's line
    ("    float x = 1.0 +\n        2.0 float y = 2.0;\n    c = vec4(x);\n",
     "4: syntax error, unexpected BASIC_TYPE_TOK"),  # the line before goes on: no fault
    ("    c = vec4(1.0);\n    c.r = 0.5\n    #ifdef FOO\n    c.g = 0.2;\n    #endif\n",
     "8: syntax error, unexpected '}'"),  # an #if between: which code compiled is unknown
])
def test_one_missing_inside_a_line_stays_the_compilers_error(tmp_path, capsys, body, said):
    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 p)\n{\n" + body + "}\n")
    status, err = _still(path, capsys)
    assert status == 2 and err.startswith(f"hfrender: error: {path}:{said}, expecting"), err


def test_one_left_off_the_common_files_last_line_is_told_there(tmp_path, capsys):
    """The compiler meets it in the shader's first code, after the common file's."""
    (tmp_path / "c.glsl").write_text("// shared\nconst float K = 2.0\n\n// end\n")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = c.glsl\n"
                    "void mainImage(out vec4 c, in vec2 p) { c = vec4(K); }\n")
    assert _still(path, capsys) == (2, (
        f"hfrender: error: {tmp_path / 'c.glsl'}:2: no ';' at the end of this line; add one "
        f"(the compiler stopped at {path}:2: syntax error, unexpected VOID_TOK, expecting "
        "',' or ';')\n"))
