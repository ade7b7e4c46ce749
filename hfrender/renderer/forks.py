"""Forked children that cannot draw: Mesa's llvmpipe rasterizes on threads its screen
starts with the first context (named ``llvmpipe-0``, ...; none with LP_NUM_THREADS=0),
and the screen is its EGL display's, which stays initialized until ``eglTerminate``
(moderngl never calls it). ``os.fork`` copies the display, initialized, but not the
threads: a child that makes a context on that display gets the same screen, and its
first draw waits for ever for them. A display the parent had not initialized is the
child's own, with threads of its own: it draws.

So, just before a fork (``os.register_at_fork``, at ``import hfrender``), where llvmpipe
threads run, the software EGL devices whose displays are initialized are handed to the
child (with those this process got from its own parent: a grandchild cannot draw either);
:func:`inherited` says so, and hfrender refuses a context on one in one line
(:data:`FORKED`), whoever made the parent's: hfrender or its caller. Nothing is loaded
for it in a process without those threads.
"""

from __future__ import annotations

import os
from typing import Any

FORKED = ("this process was forked (os.fork, multiprocessing's 'fork' start method) from one "
          "that made an OpenGL context with llvmpipe (hfrender's or its own), whose drawing "
          "threads stay there: a draw here would wait for ever; start it with "
          "multiprocessing's 'spawn' or 'forkserver' start method "
          "(multiprocessing.get_context('spawn')), or set LP_NUM_THREADS=0 before the "
          "parent's first OpenGL context")

_INHERITED: set[int] = set()  # EGL devices whose displays this process got by os.fork
_HANDED: dict = {}  # what the fork under way hands its child


def inherited(device_index: int) -> bool:
    """Whether a context on that EGL device (``device_index`` as moderngl takes it) would
    be on a display this process was forked with, its llvmpipe threads left behind."""
    return device_index in _INHERITED


def llvmpipe_threads() -> bool:
    """Whether llvmpipe's rasterizer threads run in this process (Linux's /proc)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/comm", encoding="utf-8",
                      errors="replace") as comm:
                if comm.read().startswith("llvmpipe-"):
                    return True
        except OSError:  # (a thread that ended meanwhile)
            continue
    return False


def initialized_software_displays() -> set[int]:
    """The EGL devices that are Mesa's software one (EGL_MESA_device_software) and whose
    display moderngl uses (EGL_PLATFORM_DEVICE_EXT) is initialized; none where libEGL is
    not loaded (it is not loaded for this)."""
    import ctypes

    try:
        egl = ctypes.CDLL("libEGL.so.1", mode=os.RTLD_NOLOAD)
        get = egl.eglGetProcAddress
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
        voidp, names = ctypes.c_void_p, (b"eglQueryDevicesEXT", b"eglQueryDeviceStringEXT",
                                         b"eglGetPlatformDisplayEXT")
        found = [get(name) for name in names]
        if not all(found):
            return set()
        query_devices = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_int, ctypes.POINTER(voidp),
                                         ctypes.POINTER(ctypes.c_int))(found[0])
        device_string = ctypes.CFUNCTYPE(ctypes.c_char_p, voidp, ctypes.c_int)(found[1])
        display_of = ctypes.CFUNCTYPE(voidp, ctypes.c_uint, voidp, voidp)(found[2])
        egl.eglQueryString.restype = ctypes.c_char_p
        egl.eglQueryString.argtypes = [voidp, ctypes.c_int]
        devices, count = (voidp * 32)(), ctypes.c_int(0)
        if not query_devices(32, devices, ctypes.byref(count)):
            return set()
        return {i for i in range(count.value) if _initialized_software(
            egl, devices[i], device_string, display_of)}
    except (OSError, AttributeError):
        return set()


def _initialized_software(egl: Any, device: int, device_string: Any, display_of: Any) -> bool:
    extensions = device_string(device, EGL_EXTENSIONS) or b""
    if b"EGL_MESA_device_software" not in extensions.split():
        return False
    display = display_of(EGL_PLATFORM_DEVICE_EXT, device, None)
    return bool(display) and egl.eglQueryString(display, EGL_VENDOR) is not None  # (NULL:
    # EGL_NOT_INITIALIZED)


EGL_EXTENSIONS, EGL_VENDOR, EGL_PLATFORM_DEVICE_EXT = 0x3055, 0x3053, 0x313F


def _before_fork() -> None:
    found = initialized_software_displays() if llvmpipe_threads() else set()
    _HANDED["devices"] = _INHERITED | found


def _after_fork_in_child() -> None:
    _INHERITED.update(_HANDED.pop("devices", ()))


def _after_fork_in_parent() -> None:
    _HANDED.pop("devices", None)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)
