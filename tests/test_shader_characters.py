"""A character GLSL does not have in a shader's code (a no-break space, a '×' or curly
quotes a web page or word processor put in) is told at its line and column, by name:
was the compiler's "syntax error, unexpected end of file" at that line."""

import pytest
from test_shader_code_errors import IMAGE, _still, _surface

from hfrender.errors import InputError

NBSP_IMAGE = ("// Créé par Zoë, © 2021\nvoid mainImage(out vec4 fragColor, in vec2 fragCoord)\n"
              "{\n    vec2 uv = fragCoord / iResolution.xy;\n"
              "    fragColor = vec4(uv,\u00a00.0, 1.0);\n}\n")


def _foreign(path, line, column, code, name, instead):
    return (f"{path}:{line}: U+{code} ({name}) at column {column} is no GLSL character: GLSL "
            f"code is ASCII (a web page or word processor puts such characters in); "
            f"{instead}")


def test_a_no_break_space_in_the_image_is_told_at_its_line_and_column(tmp_path, capsys):
    path = tmp_path / "s.frag"
    path.write_text(NBSP_IMAGE, encoding="utf-8")
    assert _still(path, capsys) == (2, "hfrender: error: " + _foreign(
        path, 5, 25, "00A0", "no-break space", "write ' ' instead") + "\n")


def test_a_times_sign_in_a_common_file_is_told_at_its_own_line(tmp_path, capsys):
    (tmp_path / "c.glsl").write_text("// shared\nfloat f() { return 2.0 \u00d7 0.25; }\n",
                                     encoding="utf-8")
    path = tmp_path / "s.frag"
    path.write_text("// hfrender: common = c.glsl\n" + IMAGE.replace("vec4(1.0", "vec4(f()"))
    assert _still(path, capsys) == (2, "hfrender: error: " + _foreign(
        tmp_path / "c.glsl", 2, 24, "00D7", "multiplication sign", "write '*' instead") + "\n")


def test_a_curly_quote_in_a_surface_shader_is_told_at_its_line(tmp_path):
    with pytest.raises(InputError) as err:
        _surface(tmp_path, "vec3 shade(vec3 n, vec3 w, vec3 c) {\n"
                           "  return c\u2019;\n}\n")
    assert str(err.value) == _foreign(tmp_path / "mine.glsl", 2, 11, "2019",
                                      "right single quotation mark", "write \"'\" instead")


def test_an_unnamed_character_is_told_to_be_typed_again(tmp_path, capsys):
    path = tmp_path / "s.frag"
    path.write_text(IMAGE.replace("0.5", "0\u20805"), encoding="utf-8")
    status, err = _still(path, capsys)
    assert (status, err) == (2, "hfrender: error: " + _foreign(
        path, 1, IMAGE.index("0.5") + 2, "2080", "subscript zero", "type it again in ASCII") + "\n")


def test_such_characters_in_comments_or_code_never_compiled_draw(tmp_path, capsys):
    """Mesa's compiler takes them in a comment, an #if 0 arm or a macro never used: such a
    shader draws as before (nothing refused up front)."""
    path = tmp_path / "s.frag"
    path.write_text("// Zoë × 2\n#if 0\nfloat x = 1.0\u00d72.0;\n#endif\n#define Z 1.0\u00a0\n"
                    "/* “quoted” */\n" + IMAGE, encoding="utf-8")
    assert _still(path, capsys) == (0, "")
