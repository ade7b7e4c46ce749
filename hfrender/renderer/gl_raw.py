"""OpenGL functions moderngl does not offer, called through ``eglGetProcAddress`` (Mesa's
and NVIDIA's libEGL hand out the core functions too) on the context current on this
thread."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

GL_LINK_STATUS = 0x8B82
GL_DEPTH_CLAMP = 0x864F  # core since 3.2; not among moderngl's enable flags
GL_CLIP_DISTANCE0 = 0x3000  # core since 3.0; nor this
SCAN = 64  # names below a new program's looked at for the one a failed compile left


@functools.cache
def gl_function(name: str, restype: Any, *argtypes: Any) -> Any:
    """The GL function ``name`` (its C types given), or None where there is no libEGL."""
    try:
        get = ctypes.CDLL("libEGL.so.1").eglGetProcAddress
    except OSError:
        return None
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    address = get(name.encode())
    return ctypes.CFUNCTYPE(restype, *argtypes)(address) if address else None


def depth_clamp(on: bool) -> None:
    """``GL_DEPTH_CLAMP`` on (or off) on the current context: what lies nearer than the
    near plane or past the far one is drawn at their depth, not clipped (nothing where
    there is no libEGL)."""
    enable(GL_DEPTH_CLAMP, on)


def clip_distance(on: bool) -> None:
    """``GL_CLIP_DISTANCE0`` on (or off) on the current context: what a vertex shader's
    ``gl_ClipDistance[0]`` puts below 0 is clipped (a point lamp's map: its bulb)."""
    enable(GL_CLIP_DISTANCE0, on)


def enable(capability: int, on: bool) -> None:
    """``glEnable`` (or ``glDisable``) ``capability`` (nothing where there is no libEGL)."""
    call = gl_function("glEnable" if on else "glDisable", None, ctypes.c_uint)
    if call is not None:
        call(capability)


def release_failed_program() -> bool:
    """Delete the program a failed ``ctx.program`` left in the current context, with the
    shaders attached to it (moderngl 5.13 makes the program, then compiles each shader,
    and on a compile error deletes that shader alone: ~5 KB a failed compile, kept as long
    as the context, a review). It is the program nearest below a new program's name (names
    are handed out upwards, or lowest free first), and it was never linked: one moderngl
    made is linked or was deleted. Whether one was deleted."""
    uint, out = ctypes.c_uint, ctypes.POINTER(ctypes.c_int)
    create = gl_function("glCreateProgram", uint)
    if create is None:
        return False
    is_program = gl_function("glIsProgram", ctypes.c_ubyte, uint)
    get_status = gl_function("glGetProgramiv", None, uint, uint, out)
    delete_program = gl_function("glDeleteProgram", None, uint)
    probe = create()
    try:
        for name in range(probe - 1, max(probe - SCAN, 0), -1):
            if is_program(name):
                linked = ctypes.c_int(1)
                get_status(name, GL_LINK_STATUS, linked)
                if linked.value:
                    return False  # (not one a failed compile left: kept)
                _delete_attached_shaders(name)
                delete_program(name)
                return True
        return False
    finally:
        if probe:
            delete_program(probe)


def _delete_attached_shaders(program: int) -> None:
    uint = ctypes.c_uint
    attached = gl_function("glGetAttachedShaders", None, uint, ctypes.c_int,
                           ctypes.POINTER(ctypes.c_int), ctypes.POINTER(uint))
    delete_shader = gl_function("glDeleteShader", None, uint)
    shaders, count = (uint * 16)(), ctypes.c_int(0)
    attached(program, 16, count, shaders)
    for shader in shaders[:count.value]:
        delete_shader(shader)
