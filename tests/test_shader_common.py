"""A Shadertoy shader's Common tab: code in a file its line ``// hfrender: common = FILE``
names, placed before the shader's, its errors told at its own name and line."""

import pytest
from render_helpers import render_frames
from test_cli_ray import _refused_on_ray

from hfrender.errors import InputError
from hfrender.renderer.programs import ShaderError
from hfrender.scene import ShaderScene

COMMON = ("// shared by every pass\n"
          "#define HALF 0.5\n"
          "vec3 tint(vec2 p) {\n"
          "    return vec3(1.0, HALF, p.x < 4.0 ? 0.0 : 1.0);\n"
          "}\n")
CALLS = ("// hfrender: common = lib/common.glsl\n"
         "void mainImage(out vec4 c, in vec2 p) {\n"
         "    c = vec4(tint(p), 1.0);\n"
         "}\n")


def _files(tmp_path, shader=CALLS, common=COMMON):
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "common.glsl").write_text(common)
    path = tmp_path / "s.frag"
    path.write_text(shader)
    return path


def _one(path, **settings):
    frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30, **settings)
    return frames[0]


def test_a_shader_calls_the_code_of_its_common_file(tmp_path):
    """Was: "s.frag:3: no function with name 'tint'": Shadertoy's Common tab had no place."""
    frame = _one(_files(tmp_path))
    assert frame[:, :4].tolist() == [[[255, 128, 0]] * 4] * 4
    assert frame[:, 4:].tolist() == [[[255, 128, 255]] * 4] * 4


def test_errors_in_the_common_file_and_the_shader_keep_their_own_names_and_lines(tmp_path):
    path = _files(tmp_path, CALLS.replace("1.0);\n}", "oops);\n}"),
                  COMMON.replace("1.0, HALF", "nope, HALF"))
    with pytest.raises(ShaderError) as err:
        _one(path)
    common = tmp_path / "lib" / "common.glsl"
    errors = err.value.errors  # each with the errors it makes in its line (Mesa's)
    assert errors[0] == f"{common}:4: `nope' undeclared" and \
        f"{path}:3: `oops' undeclared" in errors
    assert {e.split(": ")[0] for e in errors} == {f"{common}:4", f"{path}:3"}
    assert str(err.value) == f"{common}:4: `nope' undeclared (and {len(errors) - 1} more errors)"


def test_a_common_file_missing_given_twice_or_with_a_main_image_is_one_line(tmp_path):
    path = _files(tmp_path, "// hfrender: common = gone.glsl\n" + CALLS[CALLS.index("\n"):])
    with pytest.raises(InputError) as err:
        ShaderScene(path.read_text(), str(path))
    assert str(err.value) == (f"{path}:1: common = {tmp_path / 'gone.glsl'}: no such file (a "
                              "path from the shader's folder)")
    path.write_text(CALLS + "// hfrender: common = other.glsl\n")
    with pytest.raises(InputError) as err:
        ShaderScene(path.read_text(), str(path))
    assert str(err.value) == (f"{path}:5: hfrender: common = other.glsl: common is given on "
                              "line 1 already")
    _files(tmp_path, common=COMMON + "/* mainImage() here */\n"
           "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    path.write_text(CALLS)
    with pytest.raises(InputError) as err:
        ShaderScene(path.read_text(), str(path))
    assert str(err.value) == (f"{path}:1: common = {tmp_path / 'lib' / 'common.glsl'}: "
                              "defines mainImage (its line 7); a common file holds the code "
                              "the passes share (shadertoy.com's Common tab), mainImage stays "
                              "in the shader")


def test_a_function_defined_nowhere_is_told_of_the_common_line(tmp_path):
    hint = ("; if shadertoy.com's Common tab defines it, put that code in a file named by a "
            "line of the shader: // hfrender: common = common.glsl")
    path = tmp_path / "s.frag"
    path.write_text(CALLS[CALLS.index("\n") + 1:])
    with pytest.raises(ShaderError) as err:
        _one(path)
    assert str(err.value) == f"{path}:2: no function with name 'tint' (and 1 more error){hint}"
    path = _files(tmp_path, common="float other() { return 1.0; }\n")  # a line: no hint
    with pytest.raises(ShaderError) as err:
        _one(path)
    assert str(err.value) == f"{path}:3: no function with name 'tint' (and 1 more error)"


def test_the_common_file_is_one_of_the_scenes_files(tmp_path, capsys):
    """As a channel's picture is: its checksum kept for --resume and its stamp for a batch,
    checked by a batch before any job, and on Ray inside the scene's folder."""
    from hfrender.cli import main
    from hfrender.scene.sources import scene_assets

    path = _files(tmp_path)
    assert list(scene_assets(ShaderScene(path.read_text(), str(path)))) == ["lib/common.glsl"]
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.1\n')
    (tmp_path / "lib" / "common.glsl").unlink()
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(
        f"{path}:1: common = {tmp_path / 'lib' / 'common.glsl'}: no such file (a path from "
        "the shader's folder)\n")
    (tmp_path / "shot").mkdir()
    shader = _files(tmp_path, CALLS.replace("lib/", "../lib/"))
    shader = shader.rename(tmp_path / "shot" / "s.frag")
    assert _refused_on_ray(shader, tmp_path) == (
        f"--ray: the scene loads {tmp_path / 'lib' / 'common.glsl'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the common file in it, or render without --ray")


@pytest.mark.parametrize("first, fix", [
    ("// my shader\n", "code the passes share goes in a file named by a line // hfrender: "
                       "common = lib/common.glsl"),
    ("// hfrender: common = lib/common.glsl\n", "the common file named on line 1 is placed "
                                                "before the shader's code already: delete it"),
])
def test_an_include_line_is_told_at_its_line_with_the_common_line(tmp_path, first, fix):
    """Was: "s.frag: shader compilation failed: 'cannot include "lib/common.glsl"'", with no
    line and no word of the common file (a line inside /* */ is no include)."""
    path = _files(tmp_path, first + '/* #include "old.glsl" */\n#include "lib/common.glsl"\n'
                  + CALLS.split("\n", 1)[1])
    with pytest.raises(ShaderError) as err:
        _one(path)
    assert str(err.value) == (f'{path}:3: #include "lib/common.glsl": GLSL has no #include '
                              f"(shadertoy.com neither); {fix}")


@pytest.mark.parametrize("comment", ['// #include "lib/common.glsl"  (was, before the line)',
                                     '/* #include "old.glsl"\n   #include "older.glsl" */'])
def test_an_include_in_a_comment_is_a_comment(tmp_path, comment):
    """Was: "s.frag: shader compilation failed: 'cannot include "old.glsl"'" (moderngl
    replaced every #include, in a comment too)."""
    frame = _one(_files(tmp_path, comment + "\n" + CALLS))
    assert frame[:, :4].tolist() == [[[255, 128, 0]] * 4] * 4
