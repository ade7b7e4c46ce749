"""A shader's own lines for hfrender, in comments of their own (GLSL never sees them):
``// hfrender: iChannel0 = textures/noise.png`` gives a channel a picture (a path from the
shader's folder; iChannel0..iChannel3), ``iChannel0 = bufA.frag`` a buffer's shader
(shadertoy.com's Buffer tabs: :mod:`~hfrender.scene.shader_passes`), ``// hfrender:
antialias = false`` keeps its ``fragCoord`` at pixel centres (pixel-exact code:
``texelFetch`` of a picture shown 1:1, grain hashed from ``fragCoord``), ``// hfrender:
common = common.glsl`` names a file of code placed before the shader's (shadertoy.com's
Common tab: a path from the shader's folder). Lines inside ``/* ... */`` do not count; a
second line for the same name, a name hfrender does not read, a bad value or a line meant
as one written otherwise (``// HFRender: iChannel0 = a.png``) is one line of error."""

from __future__ import annotations

import re
from pathlib import Path

from hfrender.errors import InputError

LINE = re.compile(r"^[ \t]*//[ \t]*hfrender:[ \t]*(\w+)[ \t]*=[ \t]*(.*?)[ \t\r]*$", re.M)
# one meant as such a line, written otherwise: "// HFRender: iChannel0 = a.png", "// hfrender
# iChannel0 = a.png", "// hfrender: iChannel0: a.png": its value one word, or after "=" or ":" a
# file's name with spaces ("= tex/a b.png"), a "// comment" after it; not prose ("// hfrender
# render ...", "// hfrender common: c.glsl is where shared code would go": was refused)
_END = r"[ \t\r]*(?://.*)?$"
NEAR = re.compile(r"^[ \t]*//[ \t]*hfrender\b[ \t]*:?[ \t]*(ichannel\d|common|antialias)"
                  rf"[ \t]*[=:][ \t]*(?=\S+{_END}|.*?\.\w+{_END})"
                  r"(.*?)[ \t\r]*$", re.M | re.I)
# comments, line ones first: a "/*" in a line comment ("//**** my shader", "// a/*.png")
# opens no block (was: every line after it hidden, a review)
COMMENTS = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
CHANNEL = re.compile(r"iChannel[0-3]")
# shadertoy.com's per-channel sampler settings, none of which hfrender takes: its defaults
SETTING = re.compile(r"(?:^|[\s,;])(filter|wrap|vflip|srgb)\s*=", re.I)
SAMPLED = ("a picture is read mipmapped and repeated, a buffer linear and clamped to the "
           "edge with no mipmaps (textureLod reads its full size), shadertoy.com's defaults")


def shader_lines(source: str, path: str
                 ) -> tuple[dict[int, tuple[Path, int]], bool, tuple[Path, int] | None]:
    """(channel -> (picture or buffer's shader, line), antialias, (common file, line) or
    None) of a shader's lines (``path``: its file)."""
    near = _near_line(source)
    if near:  # (was: left a comment, the channel black, a warning beside the line written)
        raise InputError(f"{path}:{near[0]}: {near[1]}: not read (hfrender reads lines "
                         f"written exactly so: {near[2]})")
    channels: dict[int, tuple[Path, int]] = {}
    antialias, common, seen = True, None, {}
    for line, name, value in _own_lines(source):
        where = f"{path}:{line}: hfrender: {name} = {value}"
        if name in seen:  # (was: the last one taken, unsaid)
            raise InputError(f"{where}: {name} is given on line {seen[name]} already")
        seen[name] = line
        setting = SETTING.search(value) if CHANNEL.fullmatch(name) else None
        if setting:  # (was: "no such file", the settings taken for the file's name, a trial)
            raise InputError(f"{where}: hfrender takes no channel settings ({setting[1]}=): "
                             f"{SAMPLED}; give the file alone")
        if CHANNEL.fullmatch(name) and value:
            channels[int(name[-1])] = (_named(path, value), line)
        elif name == "antialias" and value.lower() in ("true", "false"):
            antialias = value.lower() == "true"
        elif name == "common" and value:
            common = (_named(path, value), line)
        else:
            raise InputError(f"{where}: hfrender reads iChannel0..iChannel3 = a picture's "
                             "or a buffer's shader's path, common = a file of shared code "
                             "and antialias = true or false")
    return channels, antialias, common


def _named(path: str, value: str) -> Path:
    """The file a line of the shader at ``path`` names: a path from its folder, ``\\``
    between folders as ``/`` (a shader written on Windows, rendered on Linux or Ray; was
    "no such file"), unless a file of that very name is there."""
    named = Path(path).parent / value
    if "\\" in value and not named.exists():
        return Path(path).parent / value.replace("\\", "/")
    return named


def _own_lines(source: str, pattern: re.Pattern = LINE) -> list[tuple[int, str, str]]:
    """(line, name, value) of each ``// hfrender: NAME = VALUE`` line (``pattern``'s)
    outside ``/* */``."""
    source = source.removeprefix("\ufeff")  # (was: a first line after a BOM not seen)
    blocked = [m.span() for m in COMMENTS.finditer(source) if m.group().startswith("/*")]
    return [(source.count("\n", 0, m.start()) + 1, m.group(1),  # (a comment after the
             re.split(r"\s*//", m.group(2), maxsplit=1)[0].strip().strip("\"'"))  # value too)
            for m in pattern.finditer(source)
            if not any(a <= m.start() < b for a, b in blocked)]


def _near_line(source: str) -> tuple[int, str, str] | None:
    """(line, its text, the line hfrender reads) of the first line :data:`NEAR` finds that
    :data:`LINE` does not; None where there is none."""
    own = {line for line, _name, _value in _own_lines(source)}
    for line, name, value in _own_lines(source, NEAR):
        if line not in own:
            name = f"iChannel{name[-1]}" if name[0] in "iI" else name.lower()
            text = source.removeprefix("\ufeff").split("\n")[line - 1].strip()
            return line, text, f"// hfrender: {name} = {value}"
    return None


def common_code(common: tuple[Path, int], path: str) -> str:
    """The text of the common file a shader (``path``) names at a line (``common``: file,
    line), checked: there, and no ``mainImage`` of its own (that stays in the shader)."""
    from hfrender.scene.loader import shader_text  # (loader imports this module's scene)

    file, line = common
    where = f"{path}:{line}: common = {file}"
    if not file.is_file():
        raise InputError(f"{where}: no such file (a path from the shader's folder)")
    text = shader_text(file).removeprefix("\ufeff")
    own = _own_lines(text)
    if own:  # (was: taken for a comment, a trial)
        at, name, value = own[0]
        raise InputError(f"{file}:{at}: hfrender: {name} = {value}: hfrender reads its lines "
                         f"in the shader ({path}), not in its common file; move it there")
    code = blank_comments(text)
    found = re.search(r"\bmainImage\s*\(", code)
    if found:
        at = code.count("\n", 0, found.start()) + 1
        raise InputError(f"{where}: defines mainImage (its line {at}); a common file holds "
                         "the code the passes share (shadertoy.com's Common tab), mainImage "
                         "stays in the shader")
    return text


def blank_comments(source: str) -> str:
    """``source`` with its comments blanked (their line breaks kept): the same length, each
    declaration's place the same, and nothing inside a comment taken for code (a comment
    between a declaration's names does not hide them)."""
    return COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
