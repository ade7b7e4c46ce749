"""GLSL programs from ``shaders/glsl/``: assembly, compilation, errors named by file:line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError, nearest
from hfrender.resources import shader_dir

# Mesa: "0:12(5): error: ..."; NVIDIA: "0(12) : error C1008: ..."
_MESA = re.compile(r"^\s*\d+:(\d+)\(\d+\):\s*(error|warning):\s*(.*)$")
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


def shadertoy_source(source: str) -> str:
    """A Shadertoy shader as pasted, made ready for hfrender's header, its lines kept in
    place: a byte-order mark dropped (Windows editors write one), a ``#version`` line and
    the shader's own declarations of the inputs hfrender declares turned into comments
    (ported shaders carry them: "'iTime' redeclared")."""
    source = source.removeprefix("\ufeff")
    names = rf"(?:{'|'.join(SHADERTOY_INPUTS)})"
    own = re.compile(rf"^(\s*#\s*version\b.*|\s*uniform\s+(?:(?:lowp|mediump|highp)\s+)?"
                     rf"\w+\s+{names}(?:\s*,\s*{names})*\s*;.*)$", re.MULTILINE)
    return own.sub(lambda m: "// (hfrender's) " + m.group(1).strip(), source)


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
    where = str(user_file) if user_file else "hfrender shader"
    found = []
    for line in log.splitlines():
        m = _MESA.match(line) or _NVIDIA.match(line)
        if m and m.group(2) == "error":
            lineno = int(m.group(1))
            place = f"{where}:{lineno}" if lineno < 1000000 else "hfrender's wrapper"
            found.append(f"{place}: {m.group(3).strip()}")
    if not found:
        body = " ".join(s.strip() for s in log.splitlines() if s.strip())
        return f"{where}: shader compilation failed: {body}"
    extra = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"{found[0]}{extra}"


def surface_source(name: str | None, scene_dir: Path | None) -> tuple[str, Path]:
    """A surface shader by name: a file beside the scene, or ``shaders/glsl/NAME.glsl``."""
    name = name or "lambert"
    candidates = []
    if scene_dir is not None:
        candidates += [scene_dir / name, scene_dir / f"{name}.glsl"]
    candidates += [shader_dir() / "glsl" / name, shader_dir() / "glsl" / f"{name}.glsl"]
    for c in candidates:
        if c.is_file():
            return c.read_text(), c
    known = sorted({f.stem for d in (scene_dir, shader_dir() / "glsl") if d is not None
                    for f in d.glob("*.glsl")})
    near = nearest(name, known)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise ShaderError(f"shader={name!r}: no such surface shader ({hint}looked for "
                      f"{', '.join(str(c) for c in candidates)})")
