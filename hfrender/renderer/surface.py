"""An object's surface shader (``vec3 shade(vec3 normal, vec3 world, vec3 color)``, a file
beside the scene or ``shaders/glsl/``) looked at before it is compiled: one that defines
no ``shade()`` is told what it is instead (was: "hfrender's wrapper: no function with name
'shade'", naming no file), an error the compiler finds in hfrender's call of ``shade()``
names the user's file, and a uniform of its own that hfrender never sets (it stays 0: an
object drawn black without a word) is warned of, as is one lit by the directional light
that never calls ``hf_lamps()`` while lamps are lit or ``hf_shadow()`` while the sun
casts (:func:`say_unlit`: was drawn without them, without a word)."""

from __future__ import annotations

import difflib
import functools
import logging
import re
from pathlib import Path
from typing import Any

from hfrender.renderer.programs import (
    ShaderError,
    ShaderInputError,
    code_fault,
    compile_program,
    glsl,
    shader_error,
    surface_source,
    with_user_source,
    wrapper_errors_at,
)
from hfrender.renderer.shadertoy import (
    _UNIFORM,
    _code,
    _declared,
    own_uniforms_read,
    without_version,
)
from hfrender.renderer.shadertoy_checks import include_in
from hfrender.resources import shader_dir

log = logging.getLogger(__name__)

SHADE = "vec3 shade(vec3 normal, vec3 world, vec3 color)"
_DEFINES_SHADE = re.compile(r"\b\w+\s+shade\s*\(")
READ = ("u_time", "u_light_dir", "u_light_color", "u_ambient", "u_eye", "u_forward", "u_color",
        "u_emissive")
_SAID: set[str] = set()  # files whose unset uniforms were told (once a process)
_UNLIT_SAID: set[tuple[str, str]] = set()  # (file, hf_lamps or hf_shadow) told: once each
_SUN = re.compile(r"\bu_light_dir\b")
_UNLIT = {  # what a surface lit by the sun misses without each, and what to do
    "hf_lamps": ("the scene's lamps ({lamps} lit at t={t:.6g} s) light nothing drawn with "
                 "it; add color * hf_lamps(world, normal) to what its shade() returns"),
    "hf_shadow": ("the scene's shadows=True shades nothing drawn with it; multiply its "
                  "directional light by hf_shadow(world, normal)")}


def no_shade(source: str) -> str | None:
    """What a surface shader that defines no ``shade()`` is instead (empty, a
    Shadertoy-style shader, a misspelt name); ``None`` where it defines one."""
    code = _code(source)
    if _DEFINES_SHADE.search(code):
        return None
    if not code.strip():
        return f"is empty; a surface shader defines {SHADE}"
    if re.search(r"\bmainImage\s*\(", code):
        return ("defines mainImage(): a Shadertoy-style shader, drawn as a scene of its own "
                "(hfrender render FILE.frag), not an object's surface; a surface shader "
                f"defines {SHADE}")
    defined = re.findall(r"\b\w+\s+(\w+)\s*\([^)]*\)\s*\{", code)
    near = difflib.get_close_matches("shade", defined, 1, 0.6)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return f"defines no shade(){meant}; a surface shader defines {SHADE}"


@functools.cache
def _set_uniforms() -> frozenset[str]:
    """The uniforms hfrender declares and sets for every surface shader: its header's, and
    the vertex shader's (``u_view``, ``u_model``: one program, a surface shader that
    declares one reads it; was warned of as never set)."""
    return frozenset(name for file in ("mesh_header.frag", "mesh.vert")
                     for m in _UNIFORM.finditer(_code(glsl(file)))
                     for name, _ in _declared(m.group(2)))


def unset_uniforms(source: str) -> list[str]:
    """The uniforms a surface shader declares and reads that hfrender does not set: they
    stay 0 (not one given a value, ``uniform float gain = 0.5;``)."""
    return own_uniforms_read(source, _set_uniforms())


def surface_program(ctx: Any, vertex: str, header: str, source: str, path: Path) -> Any:
    """The program of a surface shader ``source`` read from ``path``, between ``header``
    and hfrender's ``main()`` (:func:`no_shade` refused first; :func:`unset_uniforms` said
    once a file). A byte-order mark and a ``#version`` line are left out, as a Shadertoy
    shader's are (were: "fragment shader lacks `main'", "#version must appear on the first
    line", naming no line of the file); an ``#include`` in its code is told at its line
    (:func:`~hfrender.renderer.shadertoy_checks.include_in`)."""
    source = without_version(source)
    said = no_shade(source)
    if said is not None:
        raise ShaderInputError(f"{path}: {said}")
    said = include_in(source, Path(path).name, False)
    if said is not None:  # (was: "shader compilation failed: 'cannot include ...'")
        raise ShaderInputError(f"{path}:{said}")
    unset = unset_uniforms(source)
    if unset and str(path) not in _SAID:
        _SAID.add(str(path))
        log.warning("%s reads %s, which hfrender does not set: %s 0; a surface shader may "
                    "read %s (give a value in the file: uniform float gain = 0.5;)",
                    Path(path).name, ", ".join(unset),
                    "it stays" if len(unset) == 1 else "they stay",
                    ", ".join(READ))
    frag = with_user_source(header, source, glsl("mesh_main.frag"))
    try:
        return compile_program(ctx, vertex, frag, path)
    except ShaderError as exc:  # one in hfrender's call of shade(): at the user's shade()
        fault = code_fault(exc.errors, [(path, source)], exc.column)
        if fault is not None:
            raise ShaderInputError(fault, [fault, *exc.errors]) from None
        hint = f"; hfrender calls {SHADE}"
        moved = wrapper_errors_at(exc.errors, _code(source), _DEFINES_SHADE, path)
        errors = [new + hint if new != old else old
                  for old, new in zip(exc.errors, moved, strict=True)]
        more = str(exc)[len(exc.errors[0]):]  # " (and 1 more error)"
        raise shader_error(errors[0] + more, errors, [path]) from None


def unlit_calls(shader: str | None, scene_dir: Path | None) -> tuple[Path, tuple[str, ...]]:
    """(its file, the calls it never makes of ``hf_lamps`` and ``hf_shadow``) of a
    scene's own surface shader ``shader`` lit by the directional light (its code reads
    ``u_light_dir``), as its file is now (:func:`lighting_calls`); none for one that
    reads no sun (its own light, ``hf_lamps()`` alone) and for hfrender's own (``unlit``
    takes no light by design)."""
    source, path = surface_source(shader, scene_dir)
    calls, sun = _calls_in(source)
    if path.parent == shader_dir() / "glsl" or not sun:
        return path, ()
    return path, tuple(name for name in _UNLIT if name not in calls)


def lighting_calls(shader: str | None, scene_dir: Path | None) -> frozenset[str]:
    """Which of ``hf_lamps`` and ``hf_shadow`` the code of surface shader ``shader`` (a
    file beside the scene, hfrender's own: ``surface_source``'s) calls, its file read as
    it is now (was: kept by name and folder, so a file edited between two renders in one
    process kept its first answer): the lighting variants
    (:func:`~hfrender.renderer.models.lighting_of`) differ in those alone."""
    return _calls_in(surface_source(shader, scene_dir)[0])[0]


@functools.lru_cache(maxsize=256)
def _calls_in(source: str) -> tuple[frozenset[str], bool]:
    """(which of ``hf_lamps`` and ``hf_shadow`` it calls, whether it reads
    ``u_light_dir``) of a surface shader's ``source``, its comments left out; kept by
    the text."""
    code = _code(source)
    return (frozenset(name for name in _UNLIT if re.search(rf"\b{name}\s*\(", code)),
            _SUN.search(code) is not None)


def say_unlit(renderer: Any, shared: dict, t: float) -> None:
    """A warning, once a file and call, for each of ``renderer``'s surface programs
    (objects', models', texts') of a scene's own shader (:func:`unlit_calls`) that never
    calls ``hf_lamps`` while lamps are lit or ``hf_shadow`` while the sun casts (as
    ``shared``, the sub-frame's uniforms at ``t``, say)."""
    lamps, sun = shared["u_lamp_count"], shared["u_shadows"]
    if not lamps and not sun:
        return
    every = (renderer.programs, renderer.models.programs, renderer.texts.programs)
    for path, lacks in {programs.lacks(shader) for programs in every for shader in programs}:
        for call in lacks:  # (each file read once a render: SurfacePrograms.lacks)
            said = (str(path), call)
            if said in _UNLIT_SAID or not (lamps if call == "hf_lamps" else sun):
                continue
            _UNLIT_SAID.add(said)
            log.warning("%s never calls %s(world, normal): %s", path.name, call,
                        _UNLIT[call].format(lamps=lamps, t=t))
