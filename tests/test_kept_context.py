"""The headless GL context a thread keeps from one render to the next (was: one made and
released a render; moderngl/glcontext kept ~39 KiB of each, 400 MB over 10,000 hf.still
calls): made once a thread, given back as a new one's, never shared across threads or
os.fork, released when its thread ends and at exit."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import moderngl
import numpy as np
import pytest
from gl_state import gl_state, live_objects

import hfrender as hf
from hfrender.cli import main
from hfrender.errors import HFRenderError
from hfrender.renderer import msaa
from hfrender.renderer.contexts import KeptContext
from hfrender.renderer.programs import ShaderError

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test
BAR = str(Path(__file__).parent / "data" / "bar.frag")
SHAPES = str(Path(__file__).parents[1] / "scenes" / "shapes.py")


def _in_thread(work):
    """work() on a new thread (its own kept context): its result, or its error raised."""
    out = {}

    def run():
        try:
            out["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - raised again below
            out["error"] = exc
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def made(monkeypatch):
    """The standalone contexts made, by the thread that made them."""
    made, real = [], moderngl.create_standalone_context

    def counted(**kwargs):
        made.append(threading.current_thread().name)
        return real(**kwargs)
    monkeypatch.setattr(moderngl, "create_standalone_context", counted)
    return made


def test_a_thread_makes_one_context_for_its_renders(made):
    def three():
        return [hf.still(SHAPES, t=0.1 * i, size="64x40", samples=2) for i in (1, 2, 1)]

    first = _in_thread(three)
    assert len(made) == 1  # (was 3: one made and released a still)
    assert not np.array_equal(first[0], first[1]) and np.array_equal(first[0], first[2])
    second = _in_thread(three)  # another thread: its own context, the same pictures
    assert len(made) == 2 and made[0] != made[1]
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_a_render_gives_the_context_back_as_a_new_one(made):
    """Every object a render made released, every state it set as a new context's."""
    def renders():
        fresh = moderngl.create_standalone_context(backend="egl", require=330)
        new = gl_state()
        fresh.release()
        seen = []
        for scene, options in ((SHAPES, {"msaa": 4}), (SHAPES, {"hdr": "on", "bit_depth": 16}),
                               (SHAPES, {}), (BAR, {})):  # (a shader's clear: alpha 1)
            hf.still(scene, t=0.1, size="64x40", samples=2, **options)
            with KeptContext._thread.kept.ctx:
                state = gl_state()
                seen.append(({k: (v, state[k]) for k, v in new.items() if state[k] != v},
                             {k: v for k, v in live_objects().items() if v}))
        return seen

    assert _in_thread(renders) == [({}, {})] * 4
    assert len(made) == 2  # the fresh one and the kept one


def test_a_shader_that_fails_to_compile_leaves_nothing_in_the_context(made, tmp_path):
    """moderngl leaves a failed compile's program and its shaders compiled so far (~2.6 KB
    each, as long as the context): released, the kept context as a new one's after 50."""
    bad = tmp_path / "bad.frag"
    bad.write_text("void mainImage(out vec4 c, in vec2 p) {\n    c = vec4(nope, 1.0);\n}\n")

    def fails():
        said = set()
        for _ in range(50):
            with pytest.raises(ShaderError) as error:
                hf.still(bad, size="64x16", samples=1)
            said.add(str(error.value))
        with KeptContext._thread.kept.ctx:
            left = {k: len(v) for k, v in live_objects().items() if v}
        return said, left, hf.still(BAR, t=0.03, size="64x16", samples=1)

    said, left, after = _in_thread(fails)
    assert said == {f"{bad}:2: `nope' undeclared (and 1 more error)"}
    assert left == {}  # (was {'Program': 50, 'Shader': 50})
    assert len(made) == 1  # the one kept context, all along
    fresh = _in_thread(lambda: hf.still(BAR, t=0.03, size="64x16", samples=1))
    assert np.array_equal(after, fresh) and after.any()


def test_a_kept_context_egl_will_not_make_current_is_replaced(made):
    """eglMakeCurrent refusing the kept context (its display gone) was unseen: the render
    drew into the context current (a caller's) and reset its state. Now a new one is made
    and the refused one released; the caller's context is current again, as it was."""
    def renders():
        picture = hf.still(BAR, t=0.03, size="64x16", samples=1)
        refused = KeptContext._thread.kept
        mine = moderngl.create_standalone_context(backend="egl", require=330)  # current
        mine.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        mine.viewport = (1, 2, 3, 4)
        before = gl_state()
        refused.make_current = lambda: 0  # (EGL_FALSE)
        try:
            again = hf.still(BAR, t=0.03, size="64x16", samples=1)
            after, left = gl_state(), {k: v for k, v in live_objects().items() if v}
        finally:
            mine.release()
        kept = KeptContext._thread.kept
        return (np.array_equal(again, picture), refused.ctx, kept is refused,
                {k: (v, after[k]) for k, v in before.items() if after[k] != v}, left)

    assert _in_thread(renders) == (True, None, False, {}, {})
    assert len(made) == 3  # the first kept, the caller's, the new kept


def test_a_forked_child_makes_its_own_context(made):
    """A child of os.fork (a multiprocessing or Ray worker) holds a copy of its parent's
    kept context: it makes its own, and leaves the copy alone (the parent's, not to release
    there). (Told apart by the pid: a real child cannot draw here at all, llvmpipe's threads
    stay in the parent.)"""
    def renders():
        picture = hf.still(BAR, t=0.03, size="64x16", samples=1)
        parents = KeptContext._thread.kept
        parents.pid += 1  # as a child sees its parent's
        try:
            again = hf.still(BAR, t=0.03, size="64x16", samples=1)
            mine = KeptContext._thread.kept
            assert mine is not parents and parents.ctx is not None  # kept, not released
            return np.array_equal(again, picture), mine.pid == os.getpid()
        finally:
            parents.pid -= 1
            parents.release()

    assert _in_thread(renders) == (True, True)
    assert len(made) == 2


def test_a_threads_context_goes_with_it_and_the_rest_at_exit():
    code = f"""
import atexit
atexit.register(lambda: print(len(released)))  # (after hfrender's: registered before it)
import threading, moderngl
import hfrender as hf
from hfrender.cli import main
from hfrender.errors import HFRenderError
from hfrender.renderer import contexts, msaa
from hfrender.renderer.contexts import KeptContext
from hfrender.renderer.programs import ShaderError
released = []
real = moderngl.Context.release
moderngl.Context.release = lambda ctx: (released.append(ctx), real(ctx))[1]
hf.still({BAR!r}, t=0.03, size="64x16", samples=1)
thread = threading.Thread(target=hf.still, args=({BAR!r},), kwargs={{"size": "64x16"}})
thread.start(); thread.join()
print(len(released), len(KeptContext._every))  # the thread's released as it ended
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["1", "1", "2"], "")


def test_a_running_daemon_threads_context_is_left_at_exit():
    """At exit the main thread's context is released, not a daemon thread's still running
    (it may be drawing with it: was released under it)."""
    code = f"""
import atexit
atexit.register(lambda: print(len(released)))  # (after hfrender's: registered before it)
import threading, moderngl
import hfrender as hf
released, drawn = [], threading.Event()
real = moderngl.Context.release
moderngl.Context.release = lambda ctx: (released.append(ctx), real(ctx))[1]
hf.still({BAR!r}, t=0.03, size="64x16", samples=1)

def draws():
    hf.still({BAR!r}, size="64x16")
    drawn.set()
    threading.Event().wait()  # running still at exit
threading.Thread(target=draws, daemon=True).start()
drawn.wait()
print(len(released))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["0", "1"], "")


def test_info_gives_the_context_back_where_a_line_of_it_fails(capsys, monkeypatch):
    """``hfrender info`` (was: not released where a line raised: the thread's kept context
    lent for good, each later render made and released its own, ~39 KiB each kept)."""
    def fails(ctx):
        raise HFRenderError("no samples to tell")
    monkeypatch.setattr(msaa, "most_samples", fails)

    def info():
        assert main(["info"]) == 0
        return KeptContext._thread.kept.lent

    assert _in_thread(info) is False
    assert "gl egl: unavailable: no samples to tell\n" in capsys.readouterr().out


def test_exit_leaves_the_contexts_when_a_thread_makes_one_while_they_are_listed(monkeypatch):
    """At exit a daemon thread may make its context while the kept ones are listed
    ("dictionary changed size during iteration"): nothing is released then, and nothing
    raises from the exit hook."""
    from hfrender.renderer import contexts

    class Changing:
        def values(self):
            raise RuntimeError("dictionary changed size during iteration")

    monkeypatch.setattr(contexts.KeptContext, "_every", Changing())
    assert contexts._release_kept() is None
