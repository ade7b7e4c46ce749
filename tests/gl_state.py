"""Raw GL state and live objects of the current context (glGet*, glIs* by name), for the
tests of the headless context kept from one render to the next."""

from __future__ import annotations

import ctypes

ENABLES = {"blend": 0x0BE2, "depth test": 0x0B71, "cull face": 0x0B44,
           "rasterizer discard": 0x8C89, "program point size": 0x8642, "scissor": 0x0C11,
           "multisample": 0x809D, "alpha to coverage": 0x809E, "polygon offset": 0x8037,
           "stencil": 0x0B90, "depth clamp": 0x864F, "framebuffer srgb": 0x8DB9,
           "primitive restart": 0x8F9D, "restart fixed index": 0x8D69,
           "cube seamless": 0x884F, "dither": 0x0BD0}
INTEGERS = {"viewport": (0x0BA2, 4), "draw framebuffer": (0x8CA6, 1),
            "read framebuffer": (0x8CAA, 1), "renderbuffer": (0x8CA7, 1),
            "program": (0x8B8D, 1), "vertex array": (0x85B5, 1), "array buffer": (0x8894, 1),
            "uniform buffer": (0x8A28, 1), "pack buffer": (0x88ED, 1),
            "unpack buffer": (0x88EF, 1), "active texture": (0x84E0, 1),
            "blend src rgb": (0x80C9, 1), "blend dst rgb": (0x80C8, 1),
            "blend src alpha": (0x80CB, 1), "blend dst alpha": (0x80CA, 1),
            "blend equation rgb": (0x8009, 1), "blend equation alpha": (0x883D, 1),
            "depth func": (0x0B74, 1), "depth mask": (0x0B72, 1), "color mask": (0x0C23, 4),
            "front face": (0x0B46, 1), "cull face mode": (0x0B45, 1),
            "polygon mode": (0x0B40, 2), "pack alignment": (0x0D05, 1),
            "unpack alignment": (0x0CF5, 1), "scissor box": (0x0C10, 4),
            "provoking vertex": (0x8E4F, 1)}
FLOATS = {"point size": (0x0B11, 1), "line width": (0x0B21, 1),
          "polygon offset factor": (0x8038, 1), "polygon offset units": (0x2A00, 1),
          "clear color": (0x0C22, 4), "clear depth": (0x0B73, 1), "depth range": (0x0B70, 2),
          "blend color": (0x8005, 4)}
TEXTURE_BINDINGS = {"2d": 0x8069, "2d ms": 0x9104, "2d array": 0x8C1D, "3d": 0x806A,
                    "cube": 0x8514, "sampler": 0x8919}
OBJECTS = ("Texture", "Buffer", "Framebuffer", "Renderbuffer", "Program", "Shader",
           "VertexArray", "Query", "Sampler")


def _gl():
    egl = ctypes.CDLL("libEGL.so.1")
    egl.eglGetProcAddress.restype, egl.eglGetProcAddress.argtypes = (ctypes.c_void_p,
                                                                     [ctypes.c_char_p])

    def fn(name, restype, *args):
        return ctypes.CFUNCTYPE(restype, *args)(egl.eglGetProcAddress(name.encode()))
    return fn


def gl_state(units=16):
    """Every state value above, of the context current on this thread."""
    fn = _gl()
    is_enabled = fn("glIsEnabled", ctypes.c_ubyte, ctypes.c_uint)
    get_i = fn("glGetIntegerv", None, ctypes.c_uint, ctypes.POINTER(ctypes.c_int))
    get_f = fn("glGetFloatv", None, ctypes.c_uint, ctypes.POINTER(ctypes.c_float))
    active = fn("glActiveTexture", None, ctypes.c_uint)
    state = {name: bool(is_enabled(cap)) for name, cap in ENABLES.items()}
    for table, get, kind in ((INTEGERS, get_i, ctypes.c_int), (FLOATS, get_f, ctypes.c_float)):
        for name, (pname, n) in table.items():
            out = (kind * n)()
            get(pname, out)
            state[name] = tuple(out)
    was = state["active texture"][0]
    for unit in range(units):
        active(0x84C0 + unit)
        for name, pname in TEXTURE_BINDINGS.items():
            out = (ctypes.c_int * 1)()
            get_i(pname, out)
            state[f"unit {unit} {name}"] = out[0]
    active(was)
    return state


def live_objects(names=4096):
    """{kind: the GL names of that kind alive} in the context current on this thread."""
    fn = _gl()
    found = {}
    for kind in OBJECTS:
        is_one = fn(f"glIs{kind}", ctypes.c_ubyte, ctypes.c_uint)
        found[kind] = [n for n in range(1, names) if is_one(n)]
    return found
