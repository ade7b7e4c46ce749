"""OpenGL contexts, chosen by name: ``egl`` (headless) or ``glfw`` (a window).

The name comes from the caller's flag, else ``HFRENDER_GL``, else ``egl``. A context
belongs to the thread that made it: the render thread creates, uses and releases it.

A thread's headless context is kept from one render to the next (:class:`KeptContext`):
moderngl/glcontext keep about 39 KiB of every context made and released, 400 MB over
10,000 ``hf.still`` calls in one process. A render gets it current and in GL's default
state, and gives it back with every object it made released.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from hfrender.errors import HFRenderError, InputError, about, spelling
from hfrender.renderer import forks
from hfrender.renderer.forks import FORKED
from hfrender.renderer.gl_raw import gl_function

CONTEXTS = ("egl", "glfw")
ENV_VAR = "HFRENDER_GL"
MIN_GL = 330


class ContextUnavailable(HFRenderError):
    """No OpenGL context of that kind can be made here (no display, no driver, ...)."""


@dataclass
class GLContext:
    name: str
    ctx: Any  # moderngl.Context
    window: Any = None  # a GLFW window, for glfw
    before: Any = None  # makes the context current before this one current again, or None
    kept: Any = None  # the KeptContext it is lent from (given back, not released)

    @property
    def renderer(self) -> str:
        return f"{self.ctx.info['GL_RENDERER']} (OpenGL {self.ctx.info['GL_VERSION']})"

    def release(self) -> None:
        try:
            if self.kept:
                kept, self.kept = self.kept, False  # (False: a second release does nothing)
                kept.take_back()
            elif self.kept is None:
                self.ctx.release()
            if self.window is not None:
                import glfw

                glfw.destroy_window(self.window)
                glfw.terminate()  # let go of the display: the next window may be on another
                self.window = None
        finally:  # (also where a release failed: after a CUDA fault)
            if self.before is not None:  # the caller's context current again (was: its
                self.before()  # moderngl drew nowhere after), else none: not a dead one
                self.before = None


def resolve_name(name: str | None = None) -> str:
    source = "gl"
    if name is None:
        name, source = os.environ.get(ENV_VAR) or "egl", ENV_VAR
    if name not in CONTEXTS:
        raise about(InputError, source, name, " is not an OpenGL context; choose one of "
                    f"{', '.join(CONTEXTS)}")
    return name


def egl_device_for_cuda(cuda_device: int) -> int | None:
    """Index of the EGL device that is CUDA device ``cuda_device`` (EGL_CUDA_DEVICE_NV).

    ``None`` where EGL cannot tell (Mesa, or no EGL_NV_device_cuda): the default device.
    """
    import ctypes

    try:
        lib = ctypes.CDLL("libEGL.so.1")
        get = lib.eglGetProcAddress
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
        q_devices = get(b"eglQueryDevicesEXT")
        q_attrib = get(b"eglQueryDeviceAttribEXT")
        if not q_devices or not q_attrib:
            return None
        query_devices = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_int))(q_devices)
        query_attrib = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_void_p, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_long))(q_attrib)
        devices = (ctypes.c_void_p * 32)()
        count = ctypes.c_int(0)
        if not query_devices(32, devices, ctypes.byref(count)):
            return None
        for i in range(count.value):
            value = ctypes.c_long(-1)
            if query_attrib(devices[i], EGL_CUDA_DEVICE_NV, ctypes.byref(value)) and \
                    value.value == cuda_device:
                return i
    except (OSError, AttributeError):
        return None
    return None


EGL_CUDA_DEVICE_NV = 0x323A


def create_context(name: str | None = None, *, size: tuple[int, int] = (640, 360),
                   visible: bool = False, title: str = "hfrender",
                   cuda_device: int | None = None) -> GLContext:
    """A moderngl context of the named kind, current on this thread.

    With ``cuda_device``, the EGL context is made on that GPU (for GL-CUDA interop).
    """
    name = resolve_name(name)
    egl = _egl()
    before = _current_egl(egl)
    try:
        import moderngl
    except ImportError as exc:  # a runtime dependency, but say so clearly
        raise ContextUnavailable(f"moderngl is not installed ({exc}); "
                                 "pip install moderngl") from None
    if name == "egl":
        extra = {}
        if cuda_device is not None:
            index = egl_device_for_cuda(cuda_device)
            if index is not None:
                extra["device_index"] = index
        kept = KeptContext.lend(egl, extra) if egl is not None else None
        if kept is not None:  # this thread's, made current (None: lent already, a render
            return GLContext("egl", kept.ctx, before=_back(before, egl), kept=kept)
        ctx = _standalone(moderngl, extra)  # in a render, or on another GPU)
        return GLContext("egl", ctx, before=_back(before, egl))
    made = _glfw_context(moderngl, size, visible, title)
    made.before = before
    return made


def _standalone(moderngl: Any, extra: dict) -> Any:
    if forks.inherited(extra.get("device_index", 0)):  # (was: its first draw waited for
        raise ContextUnavailable(FORKED)  # ever; where the caller made the parent's: too)
    try:
        return moderngl.create_standalone_context(backend="egl", require=MIN_GL, **extra)
    except Exception as exc:
        raise ContextUnavailable(
            f"no headless OpenGL (EGL) context: {exc}. On Debian/Ubuntu install "
            "libegl1 and libgl1-mesa-dri (bash dev.sh does)") from None


class KeptContext:
    """A thread's headless context, lent to one render at a time and kept for the next
    (was: one made and released a render, ~39 KiB each kept by moderngl/glcontext). Not
    shared across threads nor across ``os.fork`` (a child makes its own, where it can:
    :data:`FORKED`); released when its thread ends and at interpreter exit."""

    _thread = threading.local()
    _every: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # for atexit

    def __init__(self, ctx: Any, make_current: Any, extra: dict) -> None:
        self.ctx, self.make_current, self.extra = ctx, make_current, extra
        self.pid, self.lent, self.thread = os.getpid(), False, threading.current_thread()
        KeptContext._every[id(self)] = self

    @classmethod
    def lend(cls, egl: Any, extra: dict) -> KeptContext | None:
        """This thread's context, current (made the first time), or None where it is lent
        already or made for another device."""
        kept = getattr(cls._thread, "kept", None)
        if kept is not None and (kept.pid != os.getpid() or kept.ctx is None):
            kept = cls._thread.kept = None  # a forked child's copy of its parent's: not used
        if kept is not None and (kept.lent or kept.extra != extra):
            return None
        if kept is not None and not kept.make_current():  # EGL refused it (was: unseen, the
            kept.release()  # render drew into whatever context was current): a new one
            kept = None
        if kept is None:
            import moderngl

            ctx = _standalone(moderngl, extra)  # current on this thread
            kept = cls._thread.kept = cls(ctx, _current_egl(egl), extra)
        kept.lent = True
        return kept

    def take_back(self) -> None:
        """Back from a render (its objects released): GL's default state again, no error
        flag. Released where EGL will not make it current again (was: unseen, another
        context current reset instead) or the reset raises: the next render makes another.
        (A GPU fault EGL lets by is not seen: moderngl does not check GL for one.)"""
        try:
            if not self.make_current():
                self.release()
                return
            reset_gl_state(self.ctx)
        except BaseException:
            self.release()
            raise
        finally:
            self.lent = False

    def release(self) -> None:
        KeptContext._every.pop(id(self), None)
        ctx, self.ctx = self.ctx, None
        if ctx is not None and self.pid == os.getpid():  # (a forked child's: its parent's)
            ctx.release()

    def __del__(self) -> None:  # its thread ended (threading.local let it go)
        self.release()


@atexit.register
def _release_kept() -> None:
    """The main thread's context (the others' went with their threads), not a daemon
    thread's still running: it may be drawing with it (was: released under it)."""
    try:
        every = list(KeptContext._every.values())
    except RuntimeError:  # (a daemon thread made one while this listed them: leave all)
        return
    for kept in every:
        if kept.thread is not threading.main_thread() and kept.thread.is_alive():
            continue
        try:
            kept.release()
        except Exception:  # noqa: BLE001, S110 - at exit: nothing to tell it to
            pass


def reset_gl_state(ctx: Any) -> None:
    """The state a render may change back to a new context's: nothing enabled, no
    framebuffer bound, viewport 0, blending, depth and faces as moderngl sets them."""
    ctx.detect_framebuffer(0).use()
    ctx.fbo = None  # (as a new standalone context's)
    ctx.viewport = (0, 0, 0, 0)
    ctx.enable_only(0)
    ctx.blend_func = ctx.DEFAULT_BLENDING
    ctx.blend_equation = ctx.FUNC_ADD
    ctx.front_face, ctx.cull_face = "ccw", "back"
    use_program, active_texture, pixel_store, clear_color, clear_depth = _raw_gl()  # (moderngl
    use_program(0)  # sets these before each use, but leaves them: the last program alive, a
    active_texture(GL_TEXTURE0)  # review; the clear colour: a shader scene's alpha 1)
    pixel_store(GL_PACK_ALIGNMENT, 4)
    pixel_store(GL_UNPACK_ALIGNMENT, 4)
    clear_color(0.0, 0.0, 0.0, 0.0)
    clear_depth(1.0)
    ctx.clear_errors()


GL_TEXTURE0, GL_PACK_ALIGNMENT, GL_UNPACK_ALIGNMENT = 0x84C0, 0x0D05, 0x0CF5


def _raw_gl() -> tuple:
    """glUseProgram, glActiveTexture, glPixelStorei, glClearColor, glClearDepth."""
    import ctypes

    uint, f4 = ctypes.c_uint, ctypes.c_float
    return (gl_function("glUseProgram", None, uint),
            gl_function("glActiveTexture", None, uint),
            gl_function("glPixelStorei", None, uint, ctypes.c_int),
            gl_function("glClearColor", None, f4, f4, f4, f4),
            gl_function("glClearDepth", None, ctypes.c_double))


def _egl() -> Any:
    """libEGL through ctypes, its calls typed (None where there is none)."""
    import ctypes

    try:
        egl = ctypes.CDLL("libEGL.so.1")
    except OSError:
        return None
    for fn, args in ((egl.eglGetCurrentContext, []), (egl.eglGetCurrentDisplay, []),
                     (egl.eglGetCurrentSurface, [ctypes.c_int]),
                     (egl.eglMakeCurrent, [ctypes.c_void_p] * 4)):
        fn.restype, fn.argtypes = ctypes.c_void_p, args
    return egl


def _current_egl(egl: Any) -> Any:
    """What makes this thread's current EGL context current again (one its caller made, a
    moderngl standalone context, which hfrender's own replaces as it is made current), or
    None where there is none."""
    context = egl.eglGetCurrentContext() if egl is not None else None
    if not context:
        return None
    made = (egl.eglGetCurrentDisplay(), egl.eglGetCurrentSurface(EGL_DRAW),
            egl.eglGetCurrentSurface(EGL_READ), context)
    return lambda: egl.eglMakeCurrent(*made)


def _unbinding(egl: Any) -> Any:
    """What leaves no EGL context current once hfrender's own (current now, just made) is
    released, so that it is destroyed and not taken for a caller's by the next render (was:
    the dead one made current again, EGL_BAD_CONTEXT, a review)."""
    ours = egl.eglGetCurrentContext() if egl is not None else None
    if not ours:
        return None

    def unbind() -> None:
        if egl.eglGetCurrentContext() == ours:
            egl.eglMakeCurrent(egl.eglGetCurrentDisplay(), None, None, None)
    return unbind


def _back(before: Any, egl: Any) -> Any:
    """What makes the caller's context current again once hfrender's is released or given
    back, else (none, or the caller released it meanwhile: EGL_BAD_CONTEXT) none: not
    hfrender's, kept and alive, left current for the caller to draw into."""
    unbind = _unbinding(egl)
    if before is None or unbind is None:
        return before or unbind

    def back() -> None:
        if not before():
            unbind()
    return back


EGL_DRAW, EGL_READ = 0x3059, 0x305A


class _GlfwLoader:
    """Hands moderngl the GL functions of the current GLFW context (EGL or GLX)."""

    def __init__(self, glfw: Any) -> None:
        self.glfw = glfw

    def load_opengl_function(self, name: str) -> int:
        return self.glfw.get_proc_address(name) or 0

    def release(self) -> None:
        pass


def _glfw_context(moderngl: Any, size: tuple[int, int], visible: bool, title: str) -> GLContext:
    try:
        import glfw
    except ImportError as exc:
        raise ContextUnavailable(f"glfw is not installed ({exc}); pip install glfw") from None
    glfw.ERROR_REPORTING = "ignore"  # errors are reported below, in one line
    if not glfw.init():
        raise ContextUnavailable(f"GLFW could not start ({_glfw_error(glfw)}): no display? "
                                 "Set DISPLAY; or use the headless context "
                                 f"({spelling().said('gl', 'egl')})")
    window = None
    # EGL first: Mesa cannot make a GLX context current in a process that used EGL before
    for api in (glfw.EGL_CONTEXT_API, glfw.NATIVE_CONTEXT_API):
        glfw.default_window_hints()
        glfw.window_hint(glfw.CONTEXT_CREATION_API, api)
        glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 3)
        glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
        glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
        glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
        glfw.window_hint(glfw.VISIBLE, visible)
        window = glfw.create_window(size[0], size[1], title, None, None)
        if window:
            break
    if not window:
        reason = _glfw_error(glfw)
        glfw.terminate()
        raise ContextUnavailable(f"GLFW could not open an OpenGL 3.3 window here ({reason}); "
                                 f"use {spelling().said('gl', 'egl')}")
    glfw.make_context_current(window)
    moderngl.init_context(loader=_GlfwLoader(glfw))  # this window's context, not a cached one
    ctx = moderngl.get_context()
    if ctx.version_code < MIN_GL:
        glfw.destroy_window(window)
        glfw.terminate()
        raise ContextUnavailable(f"the window's OpenGL is {ctx.version_code}; hfrender needs "
                                 f"{MIN_GL} or newer")
    return GLContext("glfw", ctx, window)


def _glfw_error(glfw: Any) -> str:
    code, text = glfw.get_error()
    return text.decode(errors="replace") if text else f"error {code}"
