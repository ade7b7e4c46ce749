"""hfrender's own GLSL files take shared code (``srgb.frag``) by ``#include``, placed by the
loader, every line numbered as in its own file (a compile error names the right file and
line: tests/test_shader_lines.py)."""

import re
from pathlib import Path

import pytest

from hfrender.renderer.programs import _place, glsl
from hfrender.resources import shader_dir

GLSL = shader_dir() / "glsl"


def told_at(text):
    """Each line of ``text`` but its ``#line`` ones, with the ``file:line`` a compile error
    there is told at (programs._place; "?" a line of no file's own number)."""
    found, number = [], 1
    for line in text.splitlines():
        if m := re.match(r"#line (\d+)$", line):
            number = int(m[1])
            continue
        found.append((_place(number, "?", None), line))
        number += 1
    return found


@pytest.mark.parametrize("name", ["mesh_header.frag", "msaa_resolve.frag", "translucent.frag"])
def test_the_srgb_curve_is_placed_once_and_every_line_keeps_its_file_and_number(name):
    """Every line placed is told at its own file's line that holds it (srgb.frag's at
    srgb.frag's, the file's after it at the file's: was at the assembled source's)."""
    srgb = (GLSL / "srgb.frag").read_text().rstrip()
    text = glsl(name)
    assert text.count(srgb) == 1 and text.count("vec3 hf_encode_srgb(") == 1
    assert not re.search(r"^#include", text, re.M)
    raw = {f: (GLSL / f).read_text().splitlines() for f in (name, "srgb.frag")}
    lines = told_at(text)
    assert lines[0] == ("?:1", raw[name][0])  # (#version: first, before any #line)
    files = []
    for place, line in lines[1:]:
        path, number = place.rsplit(":", 1)
        files += [Path(path).name] if Path(path).name not in files else []
        assert raw[Path(path).name][int(number) - 1] == line, (place, line)
    assert files == [name, "srgb.frag"]
    assert len(lines) == len(raw[name]) - 1 + len(raw["srgb.frag"])  # (all but #include)


def test_no_shader_of_hfrenders_writes_the_srgb_curve_again():
    copies = [p.name for p in sorted(GLSL.iterdir()) if p.name != "srgb.frag"
              and re.search(r"vec3 \w*(en|de)code_srgb\(vec3", p.read_text())]
    assert copies == []
