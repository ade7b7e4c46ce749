import contextlib
import os
import zlib
from pathlib import Path

import numpy as np
import pytest
from ray_helpers import end_ours, start_local, wait_idle

pytest_plugins = ["pytester"]  # tests/test_gl_checks.py runs the GL fixture on a test

# .ci/run names a file here: each test's id is written to it as the test starts, so that a
# pytest ended silently (a signal, an exit from a library) still says where it was
TRACE = os.environ.get("HFRENDER_TEST_TRACE")
_TEST_PID, _exit = os.getpid(), os._exit


def _exit_said(code):
    """``os._exit``, its stack said when it would end this test process (in the
    ``TRACE`` file: pytest's capture of stderr goes with the process; a child forked from
    this one exits as it would have)."""
    if os.getpid() == _TEST_PID:
        import traceback

        said = f"os._exit({code}) in the test process, from:\n" + "".join(
            traceback.format_stack()[-16:])
        if TRACE:
            with open(TRACE, "a") as out:
                out.write(said)
        os.write(2, said.encode())
    _exit(code)


if getattr(os._exit, "__name__", "") != "_exit_said":  # (a pytester run of this file in
    os._exit = _exit_said  # the process: wrapped once)


def pytest_runtest_logstart(nodeid, location):
    if TRACE:
        Path(TRACE).write_text(nodeid + "\n")


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", default=False,
                     help="rewrite the golden frames in tests/golden/ from this machine's "
                          "renders instead of comparing with them")


def pytest_report_header(config):
    """What the render tests run on: the GL vendor and renderer, and the CUDA device or why
    none."""
    lines = []
    try:
        from hfrender.renderer.contexts import create_context

        glctx = create_context("egl", size=(8, 8))
        lines.append(f"hfrender GL (egl): vendor {glctx.ctx.info['GL_VENDOR']}, "
                     f"renderer {glctx.renderer}")
        glctx.release()
    except Exception as exc:  # noqa: BLE001 - a header, not a test
        lines.append(f"hfrender GL (egl): unavailable: {exc}")
    try:
        from hfrender.backends import load

        lines.append(f"hfrender CUDA: {load('cuda').describe()}")
    except Exception as exc:  # noqa: BLE001
        lines.append(f"hfrender CUDA: none ({exc})")
    return lines


GL_NO_ERROR = "GL_NO_ERROR"


def gl_errors(ctx, make_current=False, limit=16):
    """The GL error flags set on ``ctx`` (a moderngl context) since the last look, oldest
    first; reading them (glGetError) clears them. ``make_current``: enter the context for
    the look (a headless EGL context; a GLFW window's is current in its thread already)."""

    def drain():
        errors = []
        for _ in range(limit):  # each call returns and clears one flag
            err = ctx.error
            if err == GL_NO_ERROR:
                break
            errors.append(err)
        return errors

    if make_current:
        with ctx:
            return drain()
    return drain()


def check_gl_errors(ctx, where="after the test", make_current=False):
    """Raise AssertionError naming every GL error flag set on ``ctx`` (none: return)."""
    errors = gl_errors(ctx, make_current)
    if errors:
        raise AssertionError(f"OpenGL error {', '.join(errors)} {where} (glGetError is not "
                             f"{GL_NO_ERROR})")


@pytest.fixture
def gl_context(monkeypatch):
    """The GL tests' one context factory, and their glGetError check (moderngl's own
    tests/conftest.py does the same): ``gl_context(name="egl", size=(64, 64), **kwargs)``
    makes a context with ``hfrender.renderer.contexts.create_context``, released after the
    test. Every context released during the test - those made here and those a render
    makes and releases itself - must have no GL error flag set by then: the test errors at
    teardown naming the flags otherwise. Use it, or ``pytest.mark.usefixtures
    ("gl_context")``, in every test that draws with GL."""
    from hfrender.renderer import contexts

    found, made, released = [], [], []
    real_release = contexts.GLContext.release

    def release(glctx):
        if not any(g is glctx for g in released):  # a second release is a no-op
            released.append(glctx)
            try:  # (the renderer read current: moderngl keeps the first ctx.info read,
                # all 0 where none was, for the thread's kept context's every later render)
                with glctx.ctx if glctx.name == "egl" else contextlib.nullcontext():
                    renderer = glctx.renderer
                check_gl_errors(glctx.ctx, f"on the {glctx.name} context ({renderer}) "
                                           "when it was released", glctx.name == "egl")
            except AssertionError as exc:
                found.append(str(exc))
        real_release(glctx)

    monkeypatch.setattr(contexts.GLContext, "release", release)

    def make(name="egl", size=(64, 64), **kwargs):
        glctx = contexts.create_context(name, size=size, **kwargs)
        made.append(glctx)
        return glctx

    yield make
    for glctx in reversed(made):
        glctx.release()
    if found:
        pytest.fail("\n".join(found), pytrace=False)


@pytest.fixture
def golden(request):
    """``golden(name, frames, settings, tolerance, renderer)``: assert that the frames match
    tests/golden/<name>.npz (see tests/golden_frames.py); with ``--regen-golden`` they
    become it."""
    from golden_frames import assert_matches_golden

    regen = request.config.getoption("--regen-golden")

    def check(name, frames, settings, tolerance, renderer):
        assert_matches_golden(name, frames, settings, tolerance, renderer, regen=regen)

    return check


@pytest.fixture
def bar(tmp_path, monkeypatch):
    """A Shadertoy shader of a horizontal ramp, ``bar.frag`` in the test's own folder (the
    working folder): the smallest scene a render's output lines are tried with."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bar.frag").write_text("void mainImage(out vec4 c, in vec2 p) "
                                       "{ c = vec4(p.x / 8.0); }\n")
    return "bar.frag"


@pytest.fixture
def rng(request):
    """A generator seeded from the test's own id: fresh per case, reproducible."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def srgb_encode(x):
    """Reference sRGB encoding (IEC 61966-2-1), written out independently of hfrender."""
    x = np.clip(np.asarray(x, np.float64), 0, 1)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def srgb_decode(v):
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.04045, v / 12.92, np.power((v + 0.055) / 1.055, 2.4))


def reference_blur(frames, weights, stride, linear_light):
    """Dense float64 reference of motion_blur: decode, weighted sum, encode, round."""
    frames = np.asarray(frames)
    w = np.asarray(weights, np.float64)
    w = w / w.sum()
    n, window = len(frames), len(w)
    m = (n - window) // stride + 1
    idx = np.arange(m)[:, None] * stride + np.arange(window)
    if frames.dtype.kind == "f":
        return np.einsum("kj...,j->k...", frames.astype(np.float64)[idx], w)
    top = np.iinfo(frames.dtype).max
    v = frames.astype(np.float64) / top
    if linear_light:
        lin = srgb_decode(v)
        if frames.shape[-1] == 4:
            lin[..., 3] = v[..., 3]
        mix = np.einsum("kj...,j->k...", lin[idx], w)
        enc = srgb_encode(mix)
        if frames.shape[-1] == 4:
            enc[..., 3] = np.clip(mix[..., 3], 0, 1)
        return np.floor(enc * top + 0.5)
    if np.all(w == w[0]):  # box: exact integers, halves round up
        total = frames.astype(np.int64)[idx].sum(axis=1)
        return ((2 * total + window) // (2 * window)).astype(np.float64)
    return np.floor(np.einsum("kj...,j->k...", frames.astype(np.float64)[idx], w) + 0.5)


@pytest.fixture
def local_ray(_session_ray):
    """The test session's one local Ray, idle as a test begins (no earlier test's task
    holding a CPU)."""
    wait_idle(_session_ray)
    return _session_ray


@pytest.fixture(scope="session")
def _session_ray():
    """The test session's one local Ray (2 CPUs), shut down at the end, and no Ray process
    of ours left behind (only descendants of this test process are ended)."""
    ray = pytest.importorskip("ray", reason="the ray extra: bash dev.sh test installs it")
    started = not ray.is_initialized()
    if started:  # (a raylet late to start on a loaded machine: once more, ray_helpers)
        start_local(ray, lambda: end_ours(os.getpid(), wait_s=0), address="local",
                    num_cpus=2, include_dashboard=False, log_to_driver=False,
                    object_store_memory=256 << 20)  # (Ray's own: 30% of the machine's memory)
    yield ray
    if started:
        ray.shutdown()
        left = end_ours(os.getpid())  # only ours: descendants of this test process
        assert not left, f"Ray processes left behind: {left}"


@pytest.fixture
def launched(emu):
    """``(dev, names)``: a launcher on the requesting module's CUDA emulator (its ``emu``
    fixture) that records every kernel it runs."""
    from hfrender.backends.cuda import launches

    names = []

    def run(name, grid, block, args):
        names.append(name)
        emu.run(name, grid, block, args)

    return launches.Device(np, run), names
