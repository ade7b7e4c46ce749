"""A child forked (os.fork, multiprocessing's 'fork' start method) from a process whose
llvmpipe drew (hfrender's context or the caller's own) cannot draw with it: the headless
EGL display it inherits keeps llvmpipe's rasterizer threads in the parent, its first draw
waited for ever. hfrender's context says so in one line; forks that draw are not refused:
before any GL, with LP_NUM_THREADS=0, after the caller drew on another EGL display, and
'forkserver' children. Each case runs in a process of its own, every child under a time
limit (terminated, by the process that started it, if it waits)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hfrender.renderer.forks import FORKED

BAR = str(Path(__file__).parent / "data" / "bar.frag")

SCRIPT = f"""
import ctypes, multiprocessing, os, signal, sys
import numpy as np
import hfrender as hf


def draw():
    return hf.still({BAR!r}, t=0.03, size="64x16", samples=1)


def said(write, target):
    signal.alarm(40)  # (a child left waiting, its parent ended: it ends too)
    try:
        write.send(target())
    except hf.HFRenderError as exc:
        write.send(f"{{type(exc).__name__}}: {{exc}}")


def run(method, target, seconds=20):
    \"\"\"What target() gave in a child of that start method, within the seconds.\"\"\"
    mp = multiprocessing.get_context(method)
    read, write = mp.Pipe(duplex=False)
    child = mp.Process(target=said, args=(write, target))
    child.start()
    write.close()
    got = read.recv() if read.poll(seconds) else f"waited {{seconds}} s"
    child.terminate()  # (this child only: it waits for ever, or is done)
    child.join()
    return got


def draw_in_grandchild():
    return run("fork", draw, 10)


def own_context():  # the caller's, not hfrender's: moderngl's headless (EGL device) one
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    fbo = ctx.simple_framebuffer((8, 8))
    fbo.use()
    ctx.clear(1.0, 0.0, 0.0, 1.0)
    fbo.read()
    return ctx.info["GL_RENDERER"]


def surfaceless_context():  # the caller's, on another EGL display (Mesa's surfaceless)
    egl, vp = ctypes.CDLL("libEGL.so.1"), ctypes.c_void_p
    egl.eglGetProcAddress.restype, egl.eglGetProcAddress.argtypes = vp, [ctypes.c_char_p]
    get = ctypes.CFUNCTYPE(vp, ctypes.c_uint, vp, vp)(
        egl.eglGetProcAddress(b"eglGetPlatformDisplayEXT"))
    display = get(0x31DD, None, None)  # EGL_PLATFORM_SURFACELESS_MESA
    egl.eglInitialize.argtypes = [vp, vp, vp]
    egl.eglCreateContext.restype, egl.eglCreateContext.argtypes = vp, [vp] * 4
    egl.eglMakeCurrent.argtypes = [vp] * 4
    assert egl.eglInitialize(display, None, None) and egl.eglBindAPI(0x30A2)
    context = egl.eglCreateContext(display, None, None, None)
    assert egl.eglMakeCurrent(display, None, None, context)
    glGetString = egl.eglGetProcAddress(b"glGetString")
    renderer = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_uint)(glGetString)(0x1F01)
    egl.eglMakeCurrent(display, None, None, None)
    return renderer.decode()


def hfrenders_context():
    from hfrender.renderer.contexts import KeptContext

    draw()
    return KeptContext._thread.kept.ctx.info["GL_RENDERER"]


if __name__ == "__main__":
    case = sys.argv[1]
    made = {{"none": lambda: "llvmpipe (none made)", "own": own_context,
             "surfaceless": surfaceless_context, "hfrender": hfrenders_context}}[case]()
    print("llvmpipe" in made)
    runs = {{"own": [("fork", draw), ("fork", draw_in_grandchild), ("forkserver", draw)],
             "hfrender": [("fork", draw), ("spawn", draw)]}}.get(case, [("fork", draw)])
    saids = [run(method, target) for method, target in runs]
    picture = draw()
    for got in saids:
        print(np.array_equal(got, picture) if isinstance(got, np.ndarray) else got)
"""


@pytest.mark.parametrize(("case", "threads", "children"), [
    ("own", None, [f"ContextUnavailable: {FORKED}", f"ContextUnavailable: {FORKED}", "True"]),
    ("own", "0", ["True", "True", "True"]),
    ("hfrender", None, [f"ContextUnavailable: {FORKED}", "True"]),
    ("hfrender", "0", ["True", "True"]),
    ("none", None, ["True"]),
    ("surfaceless", None, ["True"]),
])
def test_a_child_forked_from_a_process_that_drew_on_llvmpipe(tmp_path, case, threads,
                                                             children):
    """The caller's own context (was: the child waited for ever; hfrender saw only its
    own): refused in one line naming the start methods that work, in a grandchild too; a
    'forkserver' child draws the parent's picture. hfrender's context: refused, a 'spawn'
    child draws. A fork before any GL, one whose parent has no llvmpipe threads
    (LP_NUM_THREADS=0), one whose parent drew on another EGL display: the child draws the
    parent's picture."""
    script = tmp_path / "forks.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "LP_NUM_THREADS"}
    env.update({"LP_NUM_THREADS": threads} if threads else {})
    done = subprocess.run([sys.executable, str(script), case], capture_output=True,
                          text=True, timeout=150, env=env, cwd=tmp_path)
    if done.stdout.startswith("False"):
        pytest.skip("not llvmpipe: a forked child is not refused")
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == \
        (0, ["True", *children], "")


def test_the_message_names_the_fix():
    assert FORKED == (
        "this process was forked (os.fork, multiprocessing's 'fork' start method) from one "
        "that made an OpenGL context with llvmpipe (hfrender's or its own), whose drawing "
        "threads stay there: a draw here would wait for ever; start it with "
        "multiprocessing's 'spawn' or 'forkserver' start method "
        "(multiprocessing.get_context('spawn')), or set LP_NUM_THREADS=0 before the "
        "parent's first OpenGL context")
    assert "\n" not in FORKED
