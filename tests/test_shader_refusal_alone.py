"""A shader refused (a compile error, no mainImage, GLSL ES 1.00's gl_FragColor) is told in
one line: the warnings of what it reads unset or leaves unused, said before it compiled,
came first (was: "reads iChannel0, which hfrender does not set ... it stays 0" above the
error that said to declare iChannel0 a cube map). A shader that draws still has them."""

import pytest

from hfrender.cli import main

CUBE = ("void mainImage(out vec4 fragColor, in vec2 fragCoord)\n{\n"
        "    vec3 rd = normalize(vec3(fragCoord / iResolution.xy - 0.5, 1.0));\n"
        "    fragColor = vec4(texture(iChannel0, rd).rgb, 1.0);\n}\n")
SANDBOX = ("uniform float time;\nuniform vec2 resolution;\nvoid main(void) {\n"
           "    gl_FragColor = vec4(gl_FragCoord.xy / resolution, sin(time), 1.0);\n}\n")
OLD_OUT = ("// hfrender: iChannel1 = tex.png\nvoid mainImage(out vec4 c, in vec2 p)\n{\n"
           "    gl_FragColor = vec4(p / iResolution.xy, 0.0, 1.0);\n}\n")


def _still(path, capsys, caplog):
    """(exit status, the error said, the warnings logged) of ``hfrender still`` at 4x2, 1
    sample, not ``-q``."""
    with caplog.at_level("WARNING"):
        status = main(["still", str(path), "--size", "4x2", "--samples", "1",
                       "-o", str(path.parent / "o.png")])
    err = capsys.readouterr().err
    return status, err, [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


@pytest.mark.parametrize("source, line, said", [
    (CUBE, 4, "no matching function for call to `texture(sampler2D, vec3)'"),
    (SANDBOX, None, "defines main(); a Shadertoy-style shader defines void mainImage"),
    (OLD_OUT, 4, "gl_FragColor is GLSL ES 1.00's output"),
])
def test_a_refused_shader_is_told_in_one_line(tmp_path, capsys, caplog, source, line, said):
    (tmp_path / "tex.png").write_bytes(bytes.fromhex(  # a 1x1 PNG
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944"
        "415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"))
    path = tmp_path / "s.frag"
    path.write_text(source)
    status, err, warned = _still(path, capsys, caplog)
    at = f"{path}:{line}: " if line else f"{path}: "
    assert status == 2 and err.startswith(f"hfrender: error: {at}{said}"), err
    assert (err.count("\n"), warned) == (1, [])


def test_a_shader_that_draws_is_still_warned_of_what_it_reads_unset(tmp_path, capsys,
                                                                     caplog):
    path = tmp_path / "s.frag"
    path.write_text(CUBE.replace("rd).rgb", "rd.xy).rgb"))
    status, err, warned = _still(path, capsys, caplog)
    assert (status, len(warned)) == (0, 1), (err, warned)
    assert warned[0].startswith("s.frag reads iChannel0, which hfrender does not set")
