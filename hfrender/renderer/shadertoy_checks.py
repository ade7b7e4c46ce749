"""What a Shadertoy shader's source gets wrong, told before or after it is compiled, at
its own line: no ``mainImage`` (and what it is instead), a colour that is no ``out``,
GLSL ES 1.00's ``gl_FragColor``, an ``#include``; and what to add to a compile error
(split out of :mod:`hfrender.renderer.shadertoy`, which makes the program)."""

from __future__ import annotations

import difflib
import re

from hfrender.renderer.shadertoy import _COLOUR, MAIN_IMAGE, _code, shadertoy_source


def colour_not_out(source: str) -> str | None:
    """``LINE: what is wrong`` where mainImage's colour is no ``out`` (``void mainImage(vec4
    c, vec2 p)``): the picture is black, as on shadertoy.com (was: unsaid, a trial)."""
    code = _code(source)
    found = _COLOUR.search(code)
    if found is None or (found.group(1) or "").strip() in ("out", "inout"):
        return None
    colour = found.group(2)
    return (f"{code.count(chr(10), 0, found.start()) + 1}: mainImage's colour {colour} is not "
            "out, so what it sets is never seen (on shadertoy.com too): the picture is "
            f"black; declare it out vec4 {colour}")


def no_main_image(source: str) -> str | None:
    """What a shader that defines no ``mainImage`` is instead (empty, a Python script, a
    ``main()`` of its own, a surface shader's ``shade()``, a misspelt name), said before it
    is compiled (was: "hfrender's wrapper: no function with name 'mainImage'"); ``None``
    where it defines one."""
    code = _code(source)
    if re.search(r"\bmainImage\s*\(", code):
        return None
    if not code.strip():
        return f"is empty; a Shadertoy-style shader defines {MAIN_IMAGE}"
    if re.search(r"^(import\s+\w|from\s+[\w.]+\s+import\b|class\s+\w+\s*\(.*\)\s*:)",
                 source, re.MULTILINE):
        return ("is a Python script, read as a shader for its suffix: a scene script is named "
                ".py")
    if re.search(r"\bvoid\s+main\s*\(", code):
        return f"defines main(); a Shadertoy-style shader defines {MAIN_IMAGE}"
    other = re.search(r"\b(mainSound|mainCubemap|mainVR)\s*\(", code)
    if other:  # shadertoy.com's other tabs (was: "defines no mainImage", a trial)
        what = {"mainSound": "a Sound tab's shader", "mainCubemap": "a Cube A tab's shader",
                "mainVR": "a VR shader"}[other.group(1)]
        return (f"defines {other.group(1)}(): {what}, which hfrender does not draw; it draws "
                f"the Image tab's {MAIN_IMAGE}")
    if re.search(r"\bvec3\s+shade\s*\(", code):
        return ("defines shade(): a surface shader, for an object of a Python scene (shader="
                f"\"NAME.glsl\"), not a scene of its own (which defines {MAIN_IMAGE})")
    defined = re.findall(r"\b\w+\s+(\w+)\s*\([^)]*\)\s*\{", code)
    near = difflib.get_close_matches("mainImage", defined, 1, 0.7)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return f"defines no mainImage{meant}; hfrender calls {MAIN_IMAGE}"


def old_output(source: str) -> str | None:
    """``LINE: what is wrong`` where the code hfrender runs (a standalone export's own
    ``main()`` left out) writes GLSL ES 1.00's ``gl_FragColor`` or ``gl_FragData``, which
    shadertoy.com's GLSL ES 3.00 has not either (was: "s.frag:0: fragment shader writes to
    both `gl_FragColor' and `hf_fragColor'", a trial); ``None`` where it writes neither."""
    code = _code(shadertoy_source(source))
    found = re.search(r"\bgl_Frag(?:Color|Data)\b", code)
    if found is None:
        return None
    line = code.count("\n", 0, found.start()) + 1
    colour = _COLOUR.search(code)
    name = colour.group(2) if colour else "fragColor"
    return (f"{line}: {found.group()} is GLSL ES 1.00's output, which a Shadertoy shader "
            f"has not; set mainImage's colour ({name}) instead")


def include_line(source: str, common: tuple[object, int] | None) -> str | None:
    """``LINE: what to do`` where the shader's code (not a comment) has an ``#include``,
    which GLSL and shadertoy.com have not (was: "shader compilation failed: 'cannot include
    "old.glsl"'", of no line, even of one in a comment); ``common``: the file and line of
    its ``// hfrender: common`` line, if any. ``None`` where it has none."""
    found = _include(source)
    if found is None:
        return None
    line, named, name = found
    fix = (f"the common file named on line {common[1]} is placed before the shader's code "
           "already: delete it" if common else "code the passes share goes in a file named "
           f"by a line // hfrender: common = {name or 'FILE'}")
    return f"{line}: #include {named}: GLSL has no #include (shadertoy.com neither); {fix}"


def include_in(source: str, into: str, common: bool) -> str | None:
    """``LINE: what to do`` where the code of a ``common`` file (or else a surface shader's,
    the file named ``into``) has an ``#include`` (was: "shader compilation failed: 'cannot
    include "other.glsl"'", naming the Image's file, no line); ``None`` where it has none."""
    found = _include(source)
    if found is None:
        return None
    line, named, name = found
    why = " (shadertoy.com neither); a shader has one common file:" if common else ";"
    return (f"{line}: #include {named}: GLSL has no #include{why} put the code of "
            f"{name or 'that file'} in {into}")


def _include(source: str) -> tuple[int, str, str] | None:
    """(line, what it names as written, the file's name) of the first ``#include`` of the
    code (not a comment), ``"x"`` or ``<x>``; None where there is none."""
    code = _code(source)
    found = re.search(r"^[ \t]*#[ \t]*include\b[ \t]*([^\n]*?)[ \t\r]*$", code, re.M)
    if found is None:
        return None
    named = found.group(1)
    return code.count("\n", 0, found.start()) + 1, named, named.strip(chr(34) + "<>")


def shadertoy_hint(said: str, source: str = "", common: bool = False) -> str:
    """What to add to a compile error: the signature hfrender calls, where the compiler
    names mainImage (one of another signature); a channel's type, where it names a channel
    or a 2D sampler given 3D coordinates (a cube map's or a volume's channel, declared here
    as 2D): the channel the error is about (:func:`_channel_at`); where a function is
    defined nowhere and the shader names no ``common`` file, how to give it one."""
    if "mainImage" in said:
        return f"; hfrender calls {MAIN_IMAGE}"
    if not common and re.search(r"no function with name|undefined function", said):
        return ("; if shadertoy.com's Common tab defines it, put that code in a file named by "
                "a line of the shader: // hfrender: common = common.glsl")
    if re.search(r"iChannel\d|sampler2D, vec3", said):
        return ("; hfrender declares a channel the shader uses undeclared as a 2D texture "
                "(black): for a cube map or a 3D texture, declare it: uniform samplerCube "
                f"{_channel_at(said, source)}; (or sampler3D)")
    return ""


def _channel_at(said: str, source: str) -> str:
    """The channel a compile error is about: the one it names, else the one the code of
    its line reads (was: iChannel0 always, where the line read iChannel2, a trial); else
    ``iChannelN`` (the line reads none, or several)."""
    named = re.search(r"iChannel\d", said)
    if named:
        return named.group()
    at = re.search(r":(\d+): ", said)
    lines = _code(source).split("\n")
    code = lines[int(at.group(1)) - 1] if at and 0 < int(at.group(1)) <= len(lines) else ""
    read = list(dict.fromkeys(re.findall(r"(?<![.\w])iChannel\d\b", code)))
    return read[0] if len(read) == 1 else "iChannelN (N its number)"
