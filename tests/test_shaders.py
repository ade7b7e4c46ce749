"""Shadertoy shaders as pasted: a byte-order mark, a ``#version`` line, the shader's own
declarations of iTime and the rest compile (a mainImage of another signature and inputs
hfrender does not give are named: tests/test_render.py); iDate runs with iTime on a fixed
day."""

import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.render.programs import ShaderError

RED = "void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n" \
      "    fragColor = vec4(1.0, 0.0, 0.0, 1.0);\n}\n"


@pytest.mark.parametrize("before", [
    "\ufeff",  # a byte-order mark (Windows editors)
    "#version 300 es\nprecision highp float;\n",  # a ported GLSL ES shader
    "uniform float iTime;\nuniform vec3 iResolution;\nuniform vec4 iMouse; // the mouse\n",
    "precision mediump float;\nuniform highp float iTime;\nuniform float iTimeDelta, iFrameRate;\n",
])
def test_a_pasted_shader_compiles_as_it_is(tmp_path, before):
    path = tmp_path / "red.frag"
    path.write_bytes((before + RED).encode())
    frames, _ = render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert frames.shape == (1, 4, 8, 3) and (frames[..., 0] == 255).all()
    assert (frames[..., 1:] == 0).all()


def test_a_compile_error_after_a_version_line_keeps_its_line(tmp_path):
    path = tmp_path / "bad.frag"
    path.write_text("#version 300 es\n" + RED.replace("1.0, 0.0, 0.0", "nope, 0.0, 0.0"))
    with pytest.raises(ShaderError, match=rf"^{path}:3: .*nope"):
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)


def test_idate_is_a_fixed_day_whose_clock_runs_with_itime(tmp_path):
    """Red: the year 2000, January (0), the 1st; green: seconds since midnight / 10, which
    is iTime (frame k at 10 fps: k / 10 s, green k / 100 of full, the code 2.55 k)."""
    path = tmp_path / "clock.frag"
    path.write_text("void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n"
                    "    bool day = iDate.x == 2000.0 && iDate.y == 0.0 && iDate.z == 1.0;\n"
                    "    fragColor = vec4(day ? 1.0 : 0.0, iDate.w / 10.0, iMouse.x, 1.0);\n"
                    "}\n")
    frames, _ = render_frames(path, size=(4, 2), samples=1, duration=4, fps=10)
    assert (frames[..., 0] == 255).all() and (frames[..., 2] == 0).all()
    green = frames[:, 0, 0, 1].astype(float)
    np.testing.assert_allclose(green, 2.55 * np.arange(40), atol=1)
