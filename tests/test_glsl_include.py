"""hfrender's own GLSL files take shared code (``srgb.frag``) by ``#include``, placed by the
loader, the lines after it numbered as in the file (a compile error names the right line)."""

import re

import pytest

from hfrender.renderer.programs import glsl
from hfrender.resources import shader_dir

GLSL = shader_dir() / "glsl"


@pytest.mark.parametrize("name", ["mesh_header.frag", "msaa_resolve.frag", "translucent.frag"])
def test_the_srgb_curve_is_placed_once_and_the_lines_after_keep_their_numbers(name):
    raw = (GLSL / name).read_text().splitlines()
    srgb = (GLSL / "srgb.frag").read_text().rstrip()
    text = glsl(name)
    assert text.count(srgb) == 1 and text.count("vec3 hf_encode_srgb(") == 1
    assert not re.search(r"^#include", text, re.M)
    before, _, after = text.partition(srgb)
    line = int(re.match(r"\n#line (\d+)\n", after)[1])
    assert raw[line - 2] == '#include "srgb.frag"'  # the line before it: the include's
    assert before.splitlines() == raw[: line - 2]
    assert after.splitlines()[2:] == raw[line - 1 :]  # from the file's line `line` on


def test_no_shader_of_hfrenders_writes_the_srgb_curve_again():
    copies = [p.name for p in sorted(GLSL.iterdir()) if p.name != "srgb.frag"
              and re.search(r"vec3 \w*(en|de)code_srgb\(vec3", p.read_text())]
    assert copies == []
