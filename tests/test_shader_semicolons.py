"""A ';' left off the end of a line is told at that line: the compiler stops at the next
code ("line 18: syntax error, unexpected '}', expecting ',' or ';'"), where the user's
fault is not; an error in the middle of a line stays the compiler's own."""

import pytest
from test_shader_code_errors import _still, _surface

from hfrender.errors import InputError
from hfrender.renderer.programs import first_error_column
from hfrender.scene.shader_code import no_semicolon


def _no_semicolon(path, line, at, said):
    return (f"{path}:{line}: no ';' at the end of this line; add one (the compiler stopped "
            f"at line {at}: syntax error, unexpected {said}, expecting ',' or ';')")


@pytest.mark.parametrize("body, line, at, said", [
    ("    vec2 uv = p / iResolution.xy\n    c = vec4(uv, 0.0, 1.0);\n", 3, 4, "IDENTIFIER"),
    ("    c = vec4(1.0);\n    c.r = 0.5 // half\n\n    #define G 0.2\n", 4, 7,
     "'}'"),  # a comment, a blank line and a directive passed over
    ("    float x = 1.0\n    float y = 2.0;\n    c = vec4(x, y, 0.0, 1.0);\n", 3, 4,
     "BASIC_TYPE_TOK"),
    ("    float y = 0.;\n    y += 1.\n    c = vec4(y);\n", 4, 5,
     "IDENTIFIER"),  # a number's '.' ends it (was: taken as going on, line 5 told)
    ("    int i = 0;\n    i++\n    c = vec4(i);\n", 4, 5, "IDENTIFIER"),
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


_WANTS = "syntax error, unexpected NEW_IDENTIFIER, expecting ',' or ';'"


@pytest.mark.parametrize("lines", [
    ["    if (p.x > 0.)", "        y = 2. z;"],  # was: line 4 blamed
    ["    if (p.x > 0.) y = 1.;", "    else", "        y = 2. z;"],  # was: line 5 blamed
])
def test_one_missing_after_a_header_stays_the_compilers_own_line(tmp_path, capsys, lines):
    """The compiler stops inside line 5 or 6 (at 'z'), not at its start: that line's."""
    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 p)\n{\n    float y = 0.;\n"
                    + "\n".join(lines) + "\n    c = vec4(y);\n}\n")
    assert _still(path, capsys) == (
        2, f"hfrender: error: {path}:{3 + len(lines)}: {_WANTS}\n")


def test_a_macros_continued_body_is_passed_over(tmp_path, capsys):
    """The line before the compiler's (line 4) is the '#define's second: the ';' is off
    line 1 (was: line 3, the macro's body, blamed)."""
    path = tmp_path / "s.frag"
    path.write_text("float x = 1.0\n#define S \\\n   2.0\n"
                    "void mainImage(out vec4 c, in vec2 p) { c = vec4(x * S); }\n")
    assert _still(path, capsys) == (2, "hfrender: error: " + _no_semicolon(
        path, 1, 4, "VOID_TOK") + "\n")


_FUNCTION = "void f(out vec4 c, vec2 p)\n{\n    float y = 0.;\n"


@pytest.mark.parametrize("before, blamed", [
    ("    if (p.x > 0.)", None), ("    for (int i = 0; i < 2; i++)", None),
    ("    } else", None), ("    do", None), ("    while (y < 1.)", None),
    ("    if (p.x > 0. &&\n        p.y > 0.)", None),  # the header's ')' on a line of its own
    ("    y = 1. \\", None),  # goes on to the next line
    ("    y = max(p.x, 0.)", 4), ("    y = 1.0", 4),  # a statement's end: its ';' is off
    ("    y = 1.", 4), ("    y++", 4), ("    y--", 4), ("    y = 2. * 1.", 4),
    ("    y = a +", None), ("    y = a -", None), ("    y = p.", None),  # go on
    ("    y = v2.", None),  # a member's '.' after a name ending in a digit
])
def test_a_header_or_a_continued_line_before_is_not_blamed(before, blamed):
    """No column given (NVIDIA's log has none): the lines alone tell."""
    source = f"{_FUNCTION}{before}\n    c = vec4(y);\n}}\n"
    line = source.count("\n") - 1
    assert no_semicolon(source, line, "unexpected IDENTIFIER, expecting ',' or ';'",
                        None) == blamed


@pytest.mark.parametrize("call, blamed", [
    ("LOOP", None), ("TWICE(2)", None),  # a macro used as a header: the compiler's own
    ("f(y)", 6), ("y = LOOP", 6),  # a call, a statement: blamed
])
def test_a_line_that_is_only_a_macro_is_not_blamed_with_no_column(call, blamed):
    """NVIDIA's log gives no column: ``LOOP`` (``#define``d as a ``for`` header) goes on
    into the next line, where the compiler stopped inside the line (at 'z')."""
    source = ("#define LOOP for (int i = 0; i < 2; i++)\n#define TWICE(n) for (int j = 0; "
              f"j < n; j++)\n{_FUNCTION}    {call}\n        y = 2. z;\n}}\n")
    assert no_semicolon(source, 7, "unexpected IDENTIFIER, expecting ',' or ';'",
                        None) == blamed


@pytest.mark.parametrize("column, blamed", [(2, 4), (1, None), (9, None)])
def test_the_compiler_must_stop_at_the_lines_first_code(column, blamed):
    """Mesa counts columns from 1, a run of blanks as one: indented code starts at 2."""
    source = f"{_FUNCTION}    y = 1.0\n    c = vec4(y);\n}}\n"
    assert no_semicolon(source, 5, "unexpected IDENTIFIER, expecting ',' or ';'",
                        column) == blamed


@pytest.mark.parametrize("log, column", [
    ("0:3(5): warning: unused\n0:4(12): error: syntax error\n0:6(2): error: x", 12),
    ("0(4) : error C0000: syntax error, unexpected identifier", None),  # NVIDIA's: none
    ("link failed", None),
])
def test_the_first_errors_column_is_read_from_the_log(log, column):
    assert first_error_column(log) == column
