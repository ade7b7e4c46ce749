"""GLSL programs from ``shaders/glsl/``: assembly, compilation, errors named by file:line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError, nearest
from hfrender.resources import shader_dir
from hfrender.scene.loader import shader_text

# Mesa: "0:12(5): error: ..."; NVIDIA: "0(12) : error C1008: ..."
_MESA = re.compile(r"^\s*\d+:(\d+)\(\d+\):\s*(error|warning):(.*)$")
_NVIDIA = re.compile(r"^\s*\d+\((\d+)\)\s*:\s*(error|warning)\s*\w*:\s*(.*)$")


class ShaderError(HFRenderError):
    """A shader did not compile; the message names the file and line."""


def set_uniform(prog: Any, name: str, value: Any) -> None:
    """Set a uniform if the compiler kept it (unused ones are optimised away). By
    ``prog.get``: ``name in prog`` walks every member of the program."""
    uniform = prog.get(name, None)
    if uniform is None:
        return
    if isinstance(value, np.ndarray):
        uniform.write(value.T.astype("f4").tobytes())  # GLSL matrices: column-major
    else:
        uniform.value = value


def glsl(name: str) -> str:
    return (shader_dir() / "glsl" / name).read_text()


def with_user_source(header: str, user: str, footer: str) -> str:
    """``header`` + the user's source (numbered from line 1) + ``footer``."""
    return f"{header}\n#line 1\n{user}\n#line 1000000\n{footer}"


def compile_program(ctx: Any, vertex: str, fragment: str, user_file: str | Path | None) -> Any:
    """``ctx.program(...)``; a compile error becomes ``ShaderError("file:line: msg")``."""
    try:
        return ctx.program(vertex_shader=vertex, fragment_shader=fragment)
    except Exception as exc:  # moderngl.Error; its text holds the compiler log
        raise ShaderError(describe_compile_error(str(exc), user_file)) from None


SHADERTOY_INPUTS = ("iResolution", "iTime", "iTimeDelta", "iFrameRate", "iFrame", "iMouse",
                    "iDate")  # the uniforms hfrender's header declares (shadertoy_header.frag)
MAIN_IMAGE = "void mainImage(out vec4 fragColor, in vec2 fragCoord)"


def shadertoy_program(source: str) -> str:
    """The fragment shader of a Shadertoy shader as pasted: hfrender's header, the shader
    (:func:`shadertoy_source`) numbered from its line 1, and hfrender's ``main()``; the
    shader's ``#extension`` lines go up into the header (GLSL takes them only before any
    declaration), commented out where they were."""
    extensions = _EXTENSION.findall(source)
    header = glsl("shadertoy_header.frag")
    if extensions:
        version, _, rest = header.partition("\n")
        header = "\n".join([version, *(e.strip() for e in extensions), rest])
    return with_user_source(header, shadertoy_source(source), glsl("shadertoy_main.frag"))


_EXTENSION = re.compile(r"^([ \t]*#[ \t]*extension\b.*)$", re.MULTILINE)
_VERSION = re.compile(r"^([ \t]*#[ \t]*version\b.*)$", re.MULTILINE)
# mainImage's colour is passed in as Shadertoy's wrapper sets it (black): code-golf shaders
# add to it (``O += ...``), and an ``out`` parameter would start undefined
_MAIN_OUT = re.compile(r"(\bvoid\s+mainImage\s*\(\s*)out\b")


def shadertoy_source(source: str) -> str:
    """A Shadertoy shader as pasted, made ready for hfrender's header, its lines kept in
    place: a byte-order mark dropped (Windows editors write one); a ``#version`` line and
    ``#extension`` lines (:func:`shadertoy_program` moves them) turned into comments, and
    so are the shader's own declarations of the inputs hfrender declares (ported shaders
    carry them: "'iTime' redeclared"), the rest of their line kept; ``mainImage``'s colour
    ``inout`` (:data:`_MAIN_OUT`)."""
    source = _UNIFORM.sub(_without_inputs, source.removeprefix("\ufeff"))
    for line in (_VERSION, _EXTENSION):
        source = line.sub(lambda m: "// (hfrender's) " + m.group(1).strip(), source)
    return _MAIN_OUT.sub(r"\1inout", source)


# a uniform declaration: (indent, "uniform [precision] type ", names)
_UNIFORM = re.compile(r"^([ \t]*)(uniform\s+(?:(?:lowp|mediump|highp)\s+)?\w+\s+)([^;]*);",
                      re.MULTILINE)


def _declared(names: str) -> list[tuple[str, str]]:
    """(the name, as written) of each variable of a declaration (``iChannelTime[4]``)."""
    parts = [part.strip() for part in names.split(",")]
    return [(re.match(r"\w*", part).group(), part) for part in parts]  # type: ignore[union-attr]


def _without_inputs(m: re.Match) -> str:
    """A uniform declaration less the inputs hfrender declares, which stay as a comment."""
    indent, kind, names = m.groups()
    declared = _declared(names)
    own = [part for name, part in declared if name in SHADERTOY_INPUTS]
    if not own:
        return m.group(0)
    rest = [part for name, part in declared if name not in SHADERTOY_INPUTS]
    kept = f"{kind}{', '.join(rest)}; " if rest else ""
    return f"{indent}{kept}/* (hfrender's) {kind}{', '.join(own)}; */"


def unset_inputs(source: str) -> list[str]:
    """The uniforms a Shadertoy shader declares that hfrender does not set (``iChannel0``,
    ``iSampleRate``, ...): they stay 0."""
    return [name for m in _UNIFORM.finditer(source) for name, _ in _declared(m.group(3))
            if name and name not in SHADERTOY_INPUTS]


def shadertoy_hint(source: str, said: str = "") -> str:
    """What a Shadertoy shader that did not compile may have that hfrender does not take:
    a ``main()`` of its own, a ``mainImage`` of another signature, inputs hfrender does not
    give (``iChannel0``..``3``, ``iChannelResolution``, ...); else nothing. ``said``: the
    compiler's message (a mainImage of another signature is told only where it is about
    mainImage)."""
    if re.search(r"\bvoid\s+main\s*\(", source) and "mainImage" not in source:
        return f"; a Shadertoy-style shader defines {MAIN_IMAGE}, not main()"
    missing = re.search(r"\b(iChannel[0-3]|iChannelResolution|iChannelTime|iSampleRate)\b",
                        source)
    if missing:
        return (f"; {missing.group(1)} is not an input hfrender gives (no textures, buffers "
                f"or sound): it gives {', '.join(SHADERTOY_INPUTS)}")
    if "mainImage" in said:
        return f"; hfrender calls {MAIN_IMAGE}"
    return ""


def describe_compile_error(log: str, user_file: str | Path | None) -> str:
    """The compiler's first error as ``file:line: message``, and how many more. Mesa's
    indented lines under an error (an overload's candidates) belong to it: the first is
    told with it, none is counted as an error of its own."""
    where = str(user_file) if user_file else "hfrender shader"
    found: list[list[str]] = []
    for line in log.splitlines():
        m = _MESA.match(line) or _NVIDIA.match(line)
        if not m or m.group(2) != "error":
            continue
        said = m.group(3)
        if found and re.match(r"\s{2,}\S", said):  # "error:    void mainImage(vec3, vec2)"
            found[-1].append(said.strip())
            continue
        lineno = int(m.group(1))
        place = f"{where}:{lineno}" if lineno < 1000000 else "hfrender's wrapper"
        found.append([f"{place}: {said.strip()}"])
    if not found:
        body = " ".join(s.strip() for s in log.splitlines() if s.strip())
        return f"{where}: shader compilation failed: {body}"
    first, *under = found[0]
    if under:
        first += f" {under[0]}" + (f" (and {len(under) - 1} more)" if len(under) > 1 else "")
    extra = f" (and {len(found) - 1} more error{'s' if len(found) > 2 else ''})" \
        if len(found) > 1 else ""
    return f"{first}{extra}"


def surface_source(name: str | None, scene_dir: Path | None) -> tuple[str, Path]:
    """A surface shader by name: a file beside the scene, or ``shaders/glsl/NAME.glsl``."""
    name = name or "lambert"
    candidates = []
    if scene_dir is not None:
        candidates += [scene_dir / name, scene_dir / f"{name}.glsl"]
    candidates += [shader_dir() / "glsl" / name, shader_dir() / "glsl" / f"{name}.glsl"]
    for c in candidates:
        if c.is_file():
            return shader_text(c.read_bytes()), c
    known = sorted({f.stem for d in (scene_dir, shader_dir() / "glsl") if d is not None
                    for f in d.glob("*.glsl")})
    near = nearest(name, known)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise ShaderError(f"shader={name!r}: no such surface shader ({hint}looked for "
                      f"{', '.join(str(c) for c in candidates)})")
