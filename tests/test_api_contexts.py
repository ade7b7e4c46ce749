"""hf.render and hf.still in a caller's process: a Ctrl-C stops a still at once as it stops the
command, the caller's own GL context is current again after a call (also where the release
fails) and none dead is left current, a notebook's kept Ctrl-C holds no hyperframe pool, and
the user's own frames keep their locals for a post-mortem."""

import traceback
from pathlib import Path

import numpy as np
import pytest
from api_helpers import BAR

import hfrender as hf
from hfrender.renderer.contexts import GLContext

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test


SCENES = Path(__file__).parents[1] / "scenes"


def test_a_still_is_stopped_at_once_by_ctrl_c_as_the_commands(monkeypatch):
    """One picture, in progress until it is whole: the first Ctrl-C stops its work at once,
    as in ``hfrender still`` (was: it waited for the work in progress, minutes for an exact
    gather, then threw the picture away)."""
    from hfrender.engine.render import RenderJob
    from hfrender.signals import at_once

    seen, run = [], RenderJob.run

    def watched(job):
        seen.append(at_once())
        return run(job)

    monkeypatch.setattr(RenderJob, "run", watched)
    hf.still(BAR, size=(16, 8), samples=1)
    assert seen == [True] and not at_once()


def test_the_callers_own_gl_context_is_current_again_after_a_call():
    """A tool that drew with its own moderngl context before calling hf.still draws with it
    after (was: hfrender's context, released, left current in its place: the tool's
    framebuffer read back hfrender's picture, GL_INVALID_OPERATION)."""
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    try:
        fbo = ctx.simple_framebuffer((4, 4))
        fbo.use()
        ctx.clear(1.0, 0.0, 0.0, 1.0)
        picture = hf.still(BAR, t=0.03, size="64x16", samples=1)
        assert picture.max() > 100
        fbo.use()
        ctx.clear(0.0, 1.0, 0.0, 1.0)
        pixels = np.frombuffer(fbo.read(components=3), np.uint8).reshape(4, 4, 3)
        assert (pixels == (0, 255, 0)).all() and ctx.error == "GL_NO_ERROR"
    finally:
        ctx.release()


def test_calls_in_a_row_leave_no_dead_context_current():
    """Without a caller's context, hfrender's own is left current by none once released (was:
    left current, destroyed only in name, then taken by the next call for the caller's and
    made current again at its end: EGL_BAD_CONTEXT)."""
    import ctypes

    from hfrender.renderer.contexts import _egl

    egl = _egl()
    egl.eglGetError.restype = ctypes.c_int
    for _ in range(3):
        hf.still(BAR, t=0.03, size="64x16", samples=1)
        assert (egl.eglGetCurrentContext(), egl.eglGetError()) == (None, 0x3000)  # SUCCESS


_RELEASE = GLContext.release  # (as defined: the GL tests' fixture wraps it with its checks)


def test_the_callers_context_comes_back_where_the_release_fails():
    """A release that raises (after a CUDA fault) still makes the caller's context current."""
    class Failing:
        def release(self):
            raise RuntimeError("a CUDA fault")

    back = []
    made = GLContext("egl", Failing(), before=lambda: back.append(True))
    with pytest.raises(RuntimeError, match="a CUDA fault"):
        _RELEASE(made)
    assert back == [True] and made.before is None


@pytest.mark.parametrize("dof", ["lens", "depth"])
def test_a_ctrl_c_kept_by_a_notebook_holds_no_hyperframe_pool(tmp_path, monkeypatch, dof):
    """A notebook keeps the last exception's traceback (sys.last_traceback): after a Ctrl-C
    in hf.render, the frames' pool is let go all the same (was: kept by the job and by the
    slot the interrupted read was filling, 640 MB at 1280x720, until the next error)."""
    import gc
    import weakref

    from hfrender.hyperframe.pool import HyperFramePool
    from hfrender.renderer.renderer import SceneRenderer

    arenas, reads = [], []
    made, read_into = HyperFramePool.__init__, SceneRenderer.read_into

    def making(pool, *args, **kwargs):
        made(pool, *args, **kwargs)
        memory = pool.arena
        while isinstance(memory, np.ndarray):  # the mapping every slot's view holds
            memory = memory.base
        arenas.append(weakref.ref(memory))

    def reading(renderer, color, *args):
        if arenas:  # (the slots' reads: not the hints' probes, before the pool)
            reads.append(color.shape)
        if len(reads) == 2:  # as a SIGINT lands: in the middle of filling a slot
            del color, args  # (this test's own frame is the user's: its locals are kept)
            raise KeyboardInterrupt
        read_into(renderer, color, *args)

    monkeypatch.setattr(HyperFramePool, "__init__", making)
    monkeypatch.setattr(SceneRenderer, "read_into", reading)
    with pytest.raises(KeyboardInterrupt) as info:
        hf.render(SCENES / "focus_pull.py", tmp_path / "o.mp4", size=(64, 36), samples=2,
                  duration=1.0, dof=dof)
    kept = info.value.__traceback__  # noqa: F841 - as sys.last_traceback keeps it
    gc.collect()
    assert len(arenas) == 1 and arenas[0]() is None
    assert "read_into" in "".join(traceback.format_tb(info.value.__traceback__))


def test_the_users_own_frames_keep_their_locals_for_a_post_mortem(tmp_path):
    """A scene's update that raised keeps its locals in the traceback (``%debug`` shows
    them), while hfrender's own frames let go of theirs (the pool, above)."""
    (tmp_path / "broken.py").write_text(
        "import hfrender as hf\n\n\nclass Broken(hf.Scene):\n    def setup(self):\n"
        "        self.ball = self.add(hf.Sphere())\n\n    def update(self, t):\n"
        "        marker = 'kept'\n        raise ValueError(marker)\n")
    with pytest.raises(Exception) as info:
        hf.still(tmp_path / "broken.py", size=(32, 18))
    frames, todo = [], [info.value]
    while todo:
        one = todo.pop()
        if one is not None:
            tb = one.__traceback__
            while tb is not None:
                frames.append(tb.tb_frame)
                tb = tb.tb_next
            todo += [one.__cause__, one.__context__]
    update = [f for f in frames if f.f_code.co_name == "update"]
    assert update and update[0].f_locals["marker"] == "kept"
    own = [f for f in frames if "/hfrender/engine/" in f.f_code.co_filename]
    assert own and all(not f.f_locals for f in own)
