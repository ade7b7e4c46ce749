"""A Shadertoy shader as pasted, made into hfrender's fragment shader: its lines kept in
place (an error names the file's own line), what hfrender declares itself taken out of it,
and what hfrender does not give named.

Only the shader's code is changed, never its comments: they are blanked before any search
(a declaration inside ``/* ... */`` stays as it is, and one between a declaration's names
does not hide them)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from hfrender.renderer.programs import COMMON_LINE, glsl, with_user_source
from hfrender.scene.shader_lines import blank_comments

_code = blank_comments  # the code, comments blanked: nothing in one is taken for code

SHADERTOY_INPUTS = ("iResolution", "iTime", "iTimeDelta", "iFrameRate", "iFrame", "iMouse",
                    "iDate")  # the uniforms hfrender's header declares (shadertoy_header.frag)
# shadertoy.com's inputs hfrender does not give, declared for a shader that uses them without
# (as shadertoy.com's own shaders do: was "`iChannel0' undeclared"), each channel a texture
# of one black texel (:class:`hfrender.renderer.shader_renderer.ShaderRenderer`)
CHANNELS = {"iChannel0": "sampler2D iChannel0", "iChannel1": "sampler2D iChannel1",
            "iChannel2": "sampler2D iChannel2", "iChannel3": "sampler2D iChannel3",
            "iChannelResolution": "vec3 iChannelResolution[4]",
            "iChannelTime": "float iChannelTime[4]", "iSampleRate": "float iSampleRate"}
OLD_NAMES = ("iGlobalTime",)  # Shadertoy's old iTime: a #define of the header, where used
MAIN_IMAGE = "void mainImage(out vec4 fragColor, in vec2 fragCoord)"
# mainImage's definition, of any type (a prototype before it is passed over)
DEFINES_MAIN_IMAGE = re.compile(r"\b\w+\s+mainImage\s*\([^)]*\)\s*\{")

# a uniform declaration: "uniform [precision] type " and its variables (over lines too)
_UNIFORM = re.compile(r"\buniform\s+((?:(?:lowp|mediump|highp)\s+)?\w+\s+)([^;]*);")
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)\b[^\n]*", re.MULTILINE)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
# mainImage's colour is passed in as Shadertoy's wrapper sets it (black): code-golf shaders
# add to it (``O += ...``), and an ``out`` parameter would start undefined
_MAIN_OUT = re.compile(r"(\bvoid\s+mainImage\s*\(\s*)out\b")
_MAIN = re.compile(r"\bvoid(\s+)main(\s*\()")
# mainImage's colour: (its qualifier, its name); one not out is never seen by its caller
_COLOUR = re.compile(r"\bmainImage\s*\(\s*((?:in|out|inout)\s+)?(?:(?:low|medium|high)p\s+)?"
                     r"vec4\s+(\w+)")
# a declaration's ``out`` (and its layout), as a standalone export declares its colour
_OUT = re.compile(r"\b(?:layout\s*\([^)]*\)\s*)?out\b")


def shadertoy_program(source: str, common: str = "", buffer: bool = False) -> str:
    """The fragment shader of a Shadertoy shader as pasted (a ``buffer``'s: its colour kept
    as it is, its rows GL's, ``HF_BUFFER`` in the header): hfrender's header, its common
    file's code (shadertoy.com's Common tab) numbered from ``COMMON_LINE + 1``, the shader
    (:func:`shadertoy_source`) numbered from its line 1, and hfrender's ``main()``. The
    ``#extension`` lines outside any ``#if`` go up into the header (GLSL takes them only
    before any declaration), each with its own line number."""
    source, common = source.removeprefix("\ufeff"), common.removeprefix("\ufeff")
    both = f"{common}\n{source}"
    header = glsl("shadertoy_header.frag")
    if buffer:  # (after #version, which comes first)
        header = header.replace("\n", "\n#define HF_BUFFER\n", 1)
    header += "".join(
        f"\nuniform {CHANNELS[name]};" if name in CHANNELS else f"\n#define {name} iTime"
        for name in _used_undeclared(both))
    hoisted = [f"#line {line + first}\n{text.strip()}"
               for first, code in ((COMMON_LINE, common), (0, source))
               for line, text in _extensions(code)]
    if hoisted:
        version, _, rest = header.partition("\n")
        header = "\n".join([version, *hoisted, rest])  # (rest: numbered as its file, glsl)
    undone = "".join(f"#undef {name}\n" for name in _own_macros(both))
    user = shadertoy_source(source)
    if common:
        user = f"#line {COMMON_LINE + 1}\n{shadertoy_source(common)}\n#line 1\n{user}"
    return with_user_source(header, user, undone + glsl("shadertoy_main.frag"))


def shadertoy_source(source: str) -> str:
    """The shader made ready for hfrender's header, its lines kept in place: a byte-order
    mark dropped (Windows editors write one); a ``#version`` line and the ``#extension``
    lines :func:`shadertoy_program` moves turned into comments; the shader's own
    declarations of the inputs hfrender declares taken out (ported shaders carry them:
    "'iTime' redeclared"), the other variables of a declaration kept; ``mainImage``'s
    colour ``inout`` (:data:`_MAIN_OUT`)."""
    source = source.removeprefix("\ufeff")
    moved = {line for line, _ in _extensions(source)}
    code = _code(source)
    edits = [(m.span(), m.group(1) + "inout") for m in _MAIN_OUT.finditer(code)]
    edits += [(m.span(), kept) for m in _UNIFORM.finditer(code)
              if (kept := _without_inputs(m)) is not None]
    if own_main(source) is not None:
        edits += _standalone_edits(code)
    for (start, end), text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return without_version(source, moved)


def without_version(source: str, moved: Collection[int] = ()) -> str:
    """``source`` without a byte-order mark, its ``#version`` line (hfrender's header has
    its own, which must come first) and the ``moved`` lines turned into comments, every
    line kept in place (errors keep the file's line numbers)."""
    lines = source.removeprefix("\ufeff").split("\n")
    for line, name, _ in _directives("\n".join(lines)):
        if name == "version" or line in moved:
            lines[line - 1] = "// (hfrender's) " + lines[line - 1].strip()
    return "\n".join(lines)


def unset_inputs(source: str) -> list[str]:
    """The uniforms a Shadertoy shader's code declares and reads that hfrender does not set
    (``iChannel0``, ``iSampleRate``, ...), and the channels it uses undeclared: they stay
    0; each once (declared in both arms of an ``#ifdef``: was named twice). Not one given a
    value (``uniform float gain = 0.5;`` keeps it), nor one declared and never read
    (shadertoy.com's list of inputs, pasted): both were said to be read and stay 0 (a
    trial)."""
    names = own_uniforms_read(source, SHADERTOY_INPUTS + OLD_NAMES)
    return list(dict.fromkeys(names + [n for n in _used_undeclared(source) if n in CHANNELS]))


def own_uniforms_read(source: str, known: Collection[str]) -> list[str]:
    """The uniforms ``source`` declares, gives no value and reads, but for the ``known``
    ones hfrender sets; each once."""
    code = _code(source)
    rest = _UNIFORM.sub(" ", code)  # where the code reads a uniform: outside declarations
    names = [name for m in _UNIFORM.finditer(code) for name, part in _declared(m.group(2))
             if name and name not in known and "=" not in part and _uses(rest, name)]
    return list(dict.fromkeys(names))


def _uses(code: str, name: str) -> bool:
    """Whether ``code`` uses ``name`` itself (not as a field, ``s.iChannel0``)."""
    return re.search(rf"(?<![.\w]){name}\b", code) is not None


def channels_read(source: str) -> list[str]:
    """The channels the code reads (not as a field, ``s.iChannel0``), declared or not."""
    code = _UNIFORM.sub(" ", _code(source))
    return [n for n in (f"iChannel{i}" for i in range(4))
            if _uses(code, n)]


def _used_undeclared(source: str) -> list[str]:
    """The names of :data:`CHANNELS` and :data:`OLD_NAMES` the code uses (not as a field,
    ``s.iChannel0``) and does not declare itself: as a uniform (an old name's uniform is
    taken out, :func:`shadertoy_source`), or as anything else (a ``const``, a variable,
    a ``#define``: its own, which the header's would break)."""
    code = _code(source)
    uniforms = {name for m in _UNIFORM.finditer(code) for name, _ in _declared(m.group(2))}
    return [name for name in (*CHANNELS, *OLD_NAMES)
            if _uses(code, name)
            and (name in OLD_NAMES or name not in uniforms) and not _own(code, name)]


def _own(code: str, name: str) -> bool:
    """Whether ``code`` makes ``name`` its own: a macro, or a declaration other than a
    uniform (a type, maybe qualified, then the name; the uniforms blanked first: ``uniform
    highp float iGlobalTime`` is no own name, a review)."""
    rest = _UNIFORM.sub(" ", code)
    return bool(re.search(rf"#\s*define\s+{name}\b", rest) or re.search(
        rf"\b(?:float|int|uint|bool|[iub]?vec[234]|mat[234](?:x[234])?|sampler\w*)"
        rf"\s+{name}\b", rest))


def _own_macros(source: str) -> list[str]:
    """The names the shader's code ``#define``s, each once, to be ``#undef``'d before
    hfrender's ``main()`` (was: ``#define c 0.5`` or ``#define mix(a,b,t) ...`` reached it,
    "hfrender's wrapper: syntax error", a trial); not ``mainImage`` (a shader that renames
    it by a macro is called by its macro, as on shadertoy.com), nor a ``GL_`` name (GLSL
    refuses to #undef one, and the shader cannot define one)."""
    names = dict.fromkeys(m.group(1) for m in _DEFINE.finditer(_code(source)))
    return [name for name in names if name != "mainImage" and not name.startswith("GL_")]


def own_main(source: str) -> int | None:
    """The line of the ``main()`` a shader defines besides ``mainImage`` (a standalone
    export's: ``void main() { mainImage(outColor, gl_FragCoord.xy); }``), else ``None``."""
    code = _code(source)
    found = _MAIN.search(code)
    if found is None or not re.search(r"\bmainImage\s*\(", code):
        return None
    return code.count("\n", 0, found.start()) + 1


def _standalone_edits(code: str) -> list[tuple[tuple[int, int], str]]:
    """A standalone export made a Shadertoy shader: its ``main()`` blanked (its line
    breaks kept), as hfrender's calls mainImage (was: "hfrender's wrapper: function `main'
    redefined", a trial; blanked, not renamed: one that writes gl_FragColor would not
    compile beside hfrender's outputs), and its outputs (``layout(location = 0) out vec4
    outColor;``) made plain globals: the ``out``s outside any braces or brackets, not on
    a preprocessor line."""
    edits = []
    for m in _MAIN.finditer(code):
        end = _definition_end(code, m.end())
        if end is not None:
            edits.append(((m.start(), end), "\n" * code.count("\n", m.start(), end)))
    for m in _OUT.finditer(code):
        before = code[:m.start()]
        line = before[before.rfind("\n") + 1:]
        if (before.count("{") == before.count("}") and before.count("(") == before.count(")")
                and not line.lstrip().startswith("#")):
            edits.append((m.span(), "\n" * m.group().count("\n")))
    return edits


def _definition_end(code: str, start: int) -> int | None:
    """Where the function whose parameters open at ``start`` ends: after its body's
    closing brace, or its prototype's ``;``; None where the code ends first."""
    close = code.find(")", start)
    rest = re.match(r"\s*([;{])", code[close + 1:]) if close >= 0 else None
    if rest is None:
        return None
    at = close + 1 + rest.end()
    if rest.group(1) == ";":
        return at
    depth = 1
    for i in range(at, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return i + 1
    return None


def _directives(source: str) -> Iterator[tuple[int, str, int]]:
    """(line, name, depth of #if around it) of each preprocessor line of the code."""
    code, depth = _code(source), 0
    for m in _DIRECTIVE.finditer(code):
        name = m.group(1)
        if name == "endif":
            depth -= 1
        yield code.count("\n", 0, m.start()) + 1, name, depth
        if name in ("if", "ifdef", "ifndef"):
            depth += 1


def _extensions(source: str) -> list[tuple[int, str]]:
    """(line, text) of the ``#extension`` lines outside any ``#if``."""
    lines = source.split("\n")
    return [(line, lines[line - 1]) for line, name, depth in _directives(source)
            if name == "extension" and depth == 0]


def _declared(names: str) -> list[tuple[str, str]]:
    """(the name, as written) of each variable of a declaration (``iChannelTime[4]``, ``x =
    vec3(1, 2, 3)``): split at its commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(names + ","):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(names[start:i].strip())
            start = i + 1
    return [(re.match(r"\w*", part).group(), part) for part in parts]  # type: ignore[union-attr]


def _without_inputs(m: re.Match) -> str | None:
    """A uniform declaration less the inputs hfrender declares, its line breaks kept (and
    the comments inside it dropped); None where it declares none of them."""
    kind, names = m.groups()
    declared = _declared(names)
    rest = [part for name, part in declared if name not in SHADERTOY_INPUTS + OLD_NAMES]
    if len(rest) == len(declared):
        return None
    kept = f"uniform {kind}{', '.join(rest)};" if rest else ""
    return kept + "\n" * m.group(0).count("\n")
