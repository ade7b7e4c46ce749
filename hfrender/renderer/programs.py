"""GLSL programs from ``shaders/glsl/``: assembly, compilation, errors named by file:line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from hfrender.errors import HFRenderError, InputError, nearest
from hfrender.renderer.gl_raw import release_failed_program
from hfrender.resources import shader_dir
from hfrender.scene.loader import shader_text
from hfrender.scene.shader_code import (
    closed_too_soon,
    foreign_character,
    never_closed,
    no_semicolon,
)
from hfrender.scene.shader_lines import COMMENTS
from hfrender.scene.sources import surface_files

# Mesa: "0:12(5): error: ..." (its column counts a run of blanks as one); NVIDIA: "0(12) :
# error C1008: ..." (no column)
_MESA = re.compile(r"^\s*\d+:(?P<line>\d+)\((?P<column>\d+)\):\s*(?P<kind>error|warning):"
                   r"(?P<said>.*)$")
_NVIDIA = re.compile(r"^\s*\d+\((?P<line>\d+)\)\s*:\s*(?P<kind>error|warning)\s*\w*:\s*"
                     r"(?P<said>.*)$")
# a Shadertoy shader's common file is numbered from here on (its line 1 is COMMON_LINE + 1),
# up to WRAPPER_LINE, where hfrender's own lines begin (Mesa names source string 0 for most
# errors whatever "#line LINE STRING" says: lines alone tell the files apart)
COMMON_LINE, WRAPPER_LINE = 500000, 1000000
WRAPPER = "hfrender's wrapper"  # where an error in hfrender's code around the user's is
WRAPPERS = ("mesh_main.frag", "shadertoy_main.frag")  # that code's files (their main())
# hfrender's own files (glsl()) are numbered from here on, file k's line n OWN_LINE + k *
# OWN_SPAN + n, k its place in _OWN (was: from 1, as the assembled source, so an error in
# mesh_header.frag was told at lambert.glsl and a line of the two together)
OWN_LINE, OWN_SPAN = 10_000_000, 100_000
_OWN: list[Path] = []  # the files numbered so, in the order first read
_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.M)  # hfrender's own shaders' (glsl())


class ShaderError(HFRenderError):
    """A shader did not compile; the message names the file and line of the first error,
    ``errors`` each of them so (``-v`` lists them: was the first alone, "(and 1 more
    error)", a trial); ``column`` the first's column where the compiler names one
    (:func:`first_error_column`), else None."""

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = list(errors) if errors else [message]
        self.column: int | None = None


class ShaderInputError(ShaderError, InputError):
    """A shader's fault told in the user's own file (a compile error at its line, one found
    before the compiler): bad input, exit 2, as any other (was: exit 1, a failure)."""


class NoSurfaceShader(ShaderInputError):
    """An object's ``shader`` names no file: bad input (exit 2), told at the scene's line
    that set it where known (its ``where``)."""


def shader_error(message: str, errors: list[str] | None,
                 files: list[str | Path | None]) -> ShaderError:
    """The error to raise for ``errors`` (``message`` tells them): a
    :class:`ShaderInputError` where the first is at a line of one of the user's ``files``;
    else (in hfrender's own code: a bug, or the driver's) a :class:`ShaderError`."""
    first = (errors or [message])[0]
    users = any(re.match(re.escape(f"{path}:") + r"\d+: ", first) for path in files if path)
    return (ShaderInputError if users else ShaderError)(message, errors)


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



def share_once(prog: Any, ready: set[int], values: dict) -> None:
    """``values`` (the uniforms a pass's objects share) set on ``prog`` once a pass:
    ``ready`` holds the programs set so far."""
    if id(prog) not in ready:
        ready.add(id(prog))
        for name, value in values.items():
            set_uniform(prog, name, value)

def glsl(name: str) -> str:
    """``shaders/glsl/NAME``, each of its lines ``#include "FILE"`` replaced by that file of
    the folder (``srgb.frag``: one curve for the shaders that need it), its lines numbered
    by ``#line`` from its own number (:data:`OWN_LINE`, after a ``#version`` line: first in
    a source), those after an include again (a compile error is told at its file and
    line: :func:`compile_errors`)."""
    path = shader_dir() / "glsl" / name
    text = path.read_text()
    if path not in _OWN:
        _OWN.append(path)
    base = OWN_LINE + OWN_SPAN * _OWN.index(path)

    def placed(m: re.Match) -> str:
        after = text.count("\n", 0, m.start()) + 2  # the number of the line after it
        return f"{glsl(m.group(1)).rstrip()}\n#line {base + after}"

    first, _, rest = _INCLUDE.sub(placed, text).partition("\n")
    if first.startswith("#version"):
        return f"{first}\n#line {base + 2}\n{rest}"
    return f"#line {base + 1}\n{first}\n{rest}"


def with_user_source(header: str, user: str, footer: str) -> str:
    """``header`` + the user's source (numbered from line 1) + ``footer``."""
    return f"{header}\n#line 1\n{user}\n#line {WRAPPER_LINE}\n{footer}"


def compile_program(ctx: Any, vertex: str, fragment: str, user_file: str | Path | None,
                    common_file: str | Path | None = None) -> Any:
    """``ctx.program(...)``; a compile error becomes ``ShaderError("file:line: msg")``
    (:func:`shader_error`: a :class:`ShaderInputError` in the user's file). An
    ``#include "x"`` in a comment stays one (moderngl replaces each it finds, in a comment
    too: was "shader compilation failed: 'cannot include "x"'")."""
    fragment = COMMENTS.sub(lambda m: m.group().replace("#include", "# include"), fragment)
    try:
        return ctx.program(vertex_shader=vertex, fragment_shader=fragment)
    except Exception as exc:  # moderngl.Error; its text holds the compiler log
        release_failed_program()  # (was: kept as long as the context, ~5 KB each)
        errors = compile_errors(str(exc), user_file, common_file)
        error = shader_error(describe_compile_error(errors), errors, [user_file, common_file])
        error.column = first_error_column(str(exc))
        raise error from None


def compile_errors(log: str, user_file: str | Path | None,
                   common_file: str | Path | None = None) -> list[str]:
    """Each of the compiler's errors as ``file:line: message`` (those past
    :data:`COMMON_LINE` the ``common_file``'s). Mesa's indented lines under an error (an
    overload's candidates) belong to it: the first is told with it, none is counted as an
    error of its own. A log of no error in a known form: one line of it."""
    where = str(user_file) if user_file else "hfrender shader"
    found: list[list[str]] = []
    for m in _errors_in(log):
        said = m["said"]
        if found and re.match(r"\s{2,}\S", said):  # "error:    void mainImage(vec3, vec2)"
            found[-1].append(said.strip())
            continue
        found.append([f"{_place(int(m['line']), where, common_file)}: {said.strip()}"])
    if not found:
        body = " ".join(s.strip() for s in log.splitlines() if s.strip())
        return [f"{where}: shader compilation failed: {body}"]
    return [first + (f" {under[0]}" + (f" (and {len(under) - 1} more)" if len(under) > 1
                                         else "") if under else "")
            for first, *under in found]


def _errors_in(log: str) -> list[re.Match]:
    """The compiler's error lines of ``log`` (Mesa's or NVIDIA's form; warnings left out)."""
    found = (_MESA.match(line) or _NVIDIA.match(line) for line in log.splitlines())
    return [m for m in found if m and m["kind"] == "error"]


def first_error_column(log: str) -> int | None:
    """The column of the compiler's first error in ``log`` (Mesa's, from 1, each run of
    blanks one column); None where it names none (NVIDIA's) or there is no error."""
    first = next(iter(_errors_in(log)), None)
    column = first and first.groupdict().get("column")
    return int(column) if column else None


def _place(lineno: int, where: str, common_file: str | Path | None) -> str:
    """``file:line`` of a compiler's ``lineno``: one of hfrender's own files' (:func:`glsl`;
    :data:`WRAPPER` for its main()'s, :data:`WRAPPERS`), the common file's (past
    :data:`COMMON_LINE`), or ``where``'s (the user's file); :data:`WRAPPER` for the lines
    after :data:`WRAPPER_LINE` (hfrender's, around the user's)."""
    k, line = divmod(lineno - OWN_LINE, OWN_SPAN)
    if lineno > OWN_LINE and k < len(_OWN):
        return WRAPPER if _OWN[k].name in WRAPPERS else f"{_OWN[k]}:{line}"
    if lineno >= WRAPPER_LINE:
        return WRAPPER
    if common_file and lineno > COMMON_LINE:
        return f"{common_file}:{lineno - COMMON_LINE}"
    return f"{where}:{lineno}"


def wrapper_errors_at(errors: list[str], code: str, defines: re.Pattern, path: str | Path,
                      ) -> list[str]:
    """``errors`` with those in hfrender's wrapper (its call of the user's function: one of
    another signature) told at the line of ``code`` (comments blanked) where ``defines``
    finds that function; as they are where it finds none (one named by a macro)."""
    found = defines.search(code)
    if found is None:
        return errors
    place = f"{path}:{code.count(chr(10), 0, found.start()) + 1}"
    return [e.replace(WRAPPER, place, 1) if e.startswith(WRAPPER) else e for e in errors]


def code_fault(errors: list[str], files: list[tuple[str | Path, str]],
               column: int | None = None) -> str | None:
    """``file:LINE: what is wrong`` with a user's file's code as written (its braces, a
    character, a ';'), where the compiler's first error follows from it (``files``: (file,
    its code), in the order compiled, then hfrender's wrapper): a ``{`` never closed
    (``shader_code.never_closed``), the error past the file (was: the wrapper's error,
    told at mainImage's or shade()'s line, or a common file's at the shader's; counted
    only where the compiler fails after the file: a file whose ``#if`` arms each open one
    is GLSL), or a ``}`` too many, the error in the file (``shader_code.closed_too_soon``:
    was "unexpected '}', expecting end of file", or the next line's "unexpected
    NEW_IDENTIFIER"), or a character GLSL does not have at the error's line
    (``shader_code.foreign_character``: was "unexpected end of file"), or a ';' left off
    the line before the error's, the error at that line's first code (its ``column``,
    where the compiler names one: :func:`_semicolon_fault`; was told at the next line's
    code); None where none of these."""
    names = [f"{path}:" for path, _ in files] + [f"{WRAPPER}:"]
    past = next((i for i, name in enumerate(names) if errors[0].startswith(name)), 0)
    for path, source in files[:past]:
        said = never_closed(source)
        if said is not None:
            return f"{path}:{said}"
    if past < len(files):  # the first error is in this user's file
        path, source = files[past]
        at = re.match(re.escape(f"{path}:") + r"(\d+): ", errors[0])
        line = int(at.group(1)) if at else 0
        said = at and (closed_too_soon(source, line) or foreign_character(source, line))
        if said:
            return f"{path}:{said}"
        return _semicolon_fault(files[past - 1] if past else None, files[past],
                                (line, column), errors[0][at.end():]) if at else None
    return None


def _semicolon_fault(before: tuple[str | Path, str] | None, file: tuple[str | Path, str],
                     at: tuple[int, int | None], said: str) -> str | None:
    """``file:LINE: no ';' ...`` where the compiler's error ``said`` at ``at`` (line,
    column or None) of ``file`` (its path, its code) follows from a ';' left off the line
    before, in that file or at the end of the one compiled ``before`` it (a common
    file's); None where not so."""
    (first, code), (path, source) = before or ("", ""), file
    (line, column), lead = at, code.count("\n") + 1 if before else 0
    missing = no_semicolon(f"{code}\n{source}" if before else source, lead + line, said,
                           column)
    if missing is None:
        return None
    where = f"{first}:{missing}" if missing <= lead else f"{path}:{missing - lead}"
    stopped = f"line {line}" if missing > lead else f"{path}:{line}"
    return (f"{where}: no ';' at the end of this line; add one (the compiler stopped at "
            f"{stopped}: {said})")


def describe_compile_error(errors: list[str]) -> str:
    """The compiler's first error (of :func:`compile_errors`), and how many more."""
    first, *more = errors
    return first + (f" (and {len(more)} more error{'s' if len(more) > 1 else ''})"
                    if more else "")


def surface_source(name: str | None, scene_dir: Path | None) -> tuple[str, Path]:
    """A surface shader by name: a file beside the scene, or ``shaders/glsl/NAME.glsl``."""
    name = name or "lambert"
    candidates = []
    if scene_dir is not None:
        candidates += surface_files(name, scene_dir)
    candidates += [shader_dir() / "glsl" / name, shader_dir() / "glsl" / f"{name}.glsl"]
    for c in candidates:
        if c.is_file():
            return shader_text(c), c
    own = sorted(f.stem for f in (shader_dir() / "glsl").glob("*.glsl"))
    known = sorted({*own, *(f.stem for f in (scene_dir.glob("*.glsl") if scene_dir else ()))})
    near = nearest(name, known, cutoff=0.5)  # (a short name's too: 'tun' for 'toon')
    hint = f"did you mean {near[0]!r}? " if near else (  # (was: the paths looked at alone)
        f"hfrender's are {', '.join(map(repr, own[:-1]))} and {own[-1]!r}, or a NAME.glsl "
        "beside the scene; ")
    raise NoSurfaceShader(f"shader={name!r}: no such surface shader ({hint}looked for "
                      f"{', '.join(str(c) for c in candidates)})")
