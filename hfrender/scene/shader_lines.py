"""A shader's own lines for hfrender, in comments of their own (GLSL never sees them):
``// hfrender: iChannel0 = textures/noise.png`` gives a channel a picture (a path from the
shader's folder; iChannel0..iChannel3), ``// hfrender: antialias = false`` keeps its
``fragCoord`` at pixel centres (pixel-exact code: ``texelFetch`` of a picture shown 1:1,
grain hashed from ``fragCoord``). Lines inside ``/* ... */`` do not count; a second line
for the same name, a name hfrender does not read or a bad value is one line of error."""

from __future__ import annotations

import re
from pathlib import Path

from hfrender.errors import InputError

LINE = re.compile(r"^[ \t]*//[ \t]*hfrender:[ \t]*(\w+)[ \t]*=[ \t]*(.*?)[ \t\r]*$", re.M)
# comments, line ones first: a "/*" in a line comment ("//**** my shader", "// a/*.png")
# opens no block (was: every line after it hidden, a review)
COMMENTS = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
CHANNEL = re.compile(r"iChannel[0-3]")


def shader_lines(source: str, path: str) -> tuple[dict[int, tuple[Path, int]], bool]:
    """(channel -> (picture, line), antialias) of a shader's lines (``path``: its file)."""
    source = source.removeprefix("\ufeff")  # (was: a first line after a BOM not seen)
    blocked = [m.span() for m in COMMENTS.finditer(source) if m.group().startswith("/*")]
    channels: dict[int, tuple[Path, int]] = {}
    antialias, seen = True, {}
    for m in LINE.finditer(source):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        line = source.count("\n", 0, m.start()) + 1
        name = m.group(1)  # (a comment after the value, "a.png\t// noise" too)
        value = re.split(r"\s*//", m.group(2), maxsplit=1)[0].strip().strip("\"'")
        where = f"{path}:{line}: hfrender: {name} = {value}"
        if name in seen:  # (was: the last one taken, unsaid)
            raise InputError(f"{where}: {name} is given on line {seen[name]} already")
        seen[name] = line
        if CHANNEL.fullmatch(name) and value:
            channels[int(name[-1])] = (Path(path).parent / value, line)
        elif name == "antialias" and value.lower() in ("true", "false"):
            antialias = value.lower() == "true"
        else:
            raise InputError(f"{where}: hfrender reads iChannel0..iChannel3 = a picture's "
                             "path and antialias = true or false")
    return channels, antialias
