"""The GL tests' glGetError check (``gl_context`` in tests/conftest.py) fails when it must."""

from pathlib import Path

import pytest
from conftest import GL_NO_ERROR, check_gl_errors, gl_errors

NOT_A_CAPABILITY = 0x1234  # glEnable(0x1234): GL_INVALID_ENUM


def test_a_provoked_gl_error_is_named(gl_context):
    glctx = gl_context(size=(8, 8))
    assert gl_errors(glctx.ctx, make_current=True) == []
    with glctx.ctx:
        glctx.ctx.enable_direct(NOT_A_CAPABILITY)  # raw glEnable: moderngl does not check it
    with pytest.raises(AssertionError, match=r"^OpenGL error GL_INVALID_ENUM on purpose "
                                             r"\(glGetError is not GL_NO_ERROR\)$"):
        check_gl_errors(glctx.ctx, "on purpose", make_current=True)
    with glctx.ctx:
        assert glctx.ctx.error == GL_NO_ERROR  # reading the flag cleared it


def test_every_flag_is_reported_in_order():
    class FakeContext:  # glGetError hands out one flag a call
        def __init__(self, flags):
            self.flags = list(flags)

        @property
        def error(self):
            return self.flags.pop(0) if self.flags else GL_NO_ERROR

    fake = FakeContext(["GL_INVALID_ENUM", "GL_INVALID_VALUE"])
    with pytest.raises(AssertionError, match=r"^OpenGL error GL_INVALID_ENUM, "
                                             r"GL_INVALID_VALUE after the test "):
        check_gl_errors(fake)
    check_gl_errors(fake)  # cleared: passes
    assert gl_errors(FakeContext(["GL_OUT_OF_MEMORY"] * 50)) == ["GL_OUT_OF_MEMORY"] * 16


LEAVES_ERRORS = """
from hfrender.renderer.contexts import create_context


def test_own_context(gl_context):
    glctx = gl_context(size=(8, 8))
    with glctx.ctx:
        glctx.ctx.enable_direct(0x1234)


def test_a_render_s_context(gl_context):  # made and released by the code under test
    glctx = create_context("egl", size=(8, 8))
    glctx.ctx.enable_direct(0x1234)
    glctx.release()


def test_clean(gl_context):
    glctx = gl_context(size=(8, 8))
    with glctx.ctx:
        glctx.ctx.buffer(b"1234").release()
"""


def test_the_fixture_fails_tests_that_leave_a_gl_error(pytester):
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(test_leaves_errors=LEAVES_ERRORS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=2)  # the two that leave a flag error at teardown
    result.stdout.fnmatch_lines([
        "*ERROR at teardown of test_own_context*",
        "*OpenGL error GL_INVALID_ENUM on the egl context (*) when it was released*",
        "*ERROR at teardown of test_a_render_s_context*",
        "*OpenGL error GL_INVALID_ENUM on the egl context (*) when it was released*",
    ])
    assert "test_clean" not in "\n".join(line for line in result.outlines if "ERROR" in line)


LEAVES_NONE_CURRENT = """
from hfrender.renderer.contexts import create_context


def test_leaves_no_context_current(gl_context):
    glctx = gl_context(size=(8, 8))
    with glctx.ctx:  # (left: no context current)
        pass


def test_next(gl_context):  # the same kept context, lent again
    glctx = gl_context(size=(8, 8))
    assert glctx.ctx.info["GL_MAX_TEXTURE_SIZE"] >= 1024
"""


def test_the_fixture_reads_the_renderer_with_the_context_current(pytester, monkeypatch):
    """(Was: read with none current, moderngl kept the kept context's limits as 0, and
    test_shaders.py failed ten tests after this file: "largest texture (0 a side)".)"""
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(test_none_current=LEAVES_NONE_CURRENT)
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # (a process: a new kept
    # context; -q: no header, which reads the renderer of a context current)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
