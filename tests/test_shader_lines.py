"""A surface program's compile error is told at the file and line it is in: the user's
own .glsl at its own lines, hfrender's header (``mesh_header.frag``, the ``srgb.frag`` it
includes) and ``mesh.vert`` at theirs (was: at the assembled source's line, named after
the surface's file, lambert.glsl)."""

import shutil

import pytest

from hfrender.renderer import programs
from hfrender.renderer.models import DEFINE, mesh_program
from hfrender.renderer.programs import ShaderError
from hfrender.resources import shader_dir

BROKEN = "float hf_broken = no_such_name;"  # (an error Mesa tells at source string 0)
SHADE = ("// mine\n\nvec3 shade(vec3 normal, vec3 world, vec3 color) {\n"
         "    vec3 lit = color * hf_lamps(world, normal);\n{line}\n    return lit;\n}\n")


def compiled(ctx, shader, scene_dir, defines):
    """The ShaderError's message of ``shader`` (None: lambert) over hfrender's header."""
    with pytest.raises(ShaderError) as caught:
        mesh_program(ctx, shader, scene_dir, defines)
    return str(caught.value)


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("line, said", [
    ("    lit += nope;", "5: `nope' undeclared"),
    # (Mesa stops at the next line's code, line 6: the ';' rule names the line lacking it)
    ("    lit += 1.0", "5: no ';' at the end of this line"),
])
@pytest.mark.parametrize("defines", ["", DEFINE])  # (a built-in's, a model's)
def test_a_broken_user_shader_is_told_at_its_own_file_and_line(gl_context, tmp_path, line,
                                                                 said, defines):
    path = tmp_path / "mine.glsl"
    path.write_text(SHADE.replace("{line}", line))
    message = compiled(gl_context().ctx, "mine", tmp_path, defines)
    assert message.startswith(f"{path}:{said}"), message


def broken_copy(tmp_path, monkeypatch, name, at):
    """hfrender's shaders copied, ``name``'s line ``at`` made :data:`BROKEN` (the lines
    after it pushed down), the copy read in their place; its path."""
    shutil.copytree(shader_dir(), tmp_path / "shaders")
    path = tmp_path / "shaders" / "glsl" / name
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[: at - 1] + [BROKEN] + lines[at - 1:]) + "\n")
    monkeypatch.setattr(programs, "shader_dir", lambda: tmp_path / "shaders")
    return path


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("name, at", [("mesh_header.frag", 40),
                                      ("mesh_header.frag", 176),  # (after srgb.frag's lines)
                                      ("srgb.frag", 11),
                                      ("mesh.vert", 72)])  # (past its #ifdef blocks)
@pytest.mark.parametrize("defines", ["", DEFINE])
def test_a_broken_header_copy_is_told_at_its_own_file_and_line(gl_context, tmp_path,
                                                                 monkeypatch, name, at,
                                                                 defines):
    (tmp_path / "mine.glsl").write_text(SHADE.replace("{line}", ""))
    path = broken_copy(tmp_path, monkeypatch, name, at)
    ctx = gl_context().ctx
    for shader, scene_dir in ((None, None), ("mine", tmp_path)):  # (lambert, the user's)
        message = compiled(ctx, shader, scene_dir, defines)
        assert message.startswith(f"{path}:{at}: `no_such_name' undeclared"), message
        assert "lambert" not in message and "mine" not in message
        assert "\n" not in message
