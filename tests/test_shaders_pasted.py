"""Shadertoy shaders as a user pastes them, found in a trial: a pixel the shader
discards, GLSL ES 1.00's gl_FragColor."""

import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.renderer.programs import ShaderError

# a white bar 10 px wide moving right at 300 px/s (5 px over a 180-degree shutter at
# 30 fps), the rest discarded
BAR = ("void mainImage(out vec4 fragColor, in vec2 fragCoord) {\n"
       "    if (mod(fragCoord.x - 300.0 * iTime, 40.0) > 10.0) discard;\n"
       "    fragColor = vec4(1.0);\n}\n")


def test_a_discarded_pixel_is_black_in_every_sub_frame(tmp_path):
    """Was: a discarded pixel kept the sub-frame drawn before, so the bar's streak was cut
    short behind it (white where it had been) and the picture hung on the drawing's
    order; now both ends of the streak ramp alike, as the shutter sweeps the bar."""
    path = tmp_path / "bar.frag"
    path.write_text(BAR)
    frames, _ = render_frames(path, size=(40, 2), samples=8, fps=30, first_frame=30,
                              count=1)
    row = frames[0, 0, :, 0].astype(int)
    assert row.tolist()[:12] == [0] * 12
    assert row[18:23].tolist() == [99, 165, 207, 240, 240]  # the bar's back end
    assert row[23:28].tolist() == [255] * 5
    assert row[28:33].tolist() == [240, 207, 165, 99, 99]  # its front end, the same ramp


def test_a_discarded_pixel_has_no_depth(gl_context, tmp_path):
    """The depth plane (a sample store's) is a shader's: none, discarded or not."""
    from hfrender.renderer.renderer import make_renderer
    from hfrender.scene import ShaderScene

    glctx = gl_context(size=(40, 2))
    renderer = make_renderer(glctx.ctx, ShaderScene(BAR, str(tmp_path / "bar.frag")),
                             (40, 2), True, 30.0)
    color, depth = np.zeros((2, 40, 4), np.uint8), np.zeros((2, 40), np.float32)
    for t in (0.0, 0.05):
        renderer.draw(t, 0)
        renderer.read_into(color, depth)
    renderer.release()
    assert np.isinf(depth).all()
    white = color[0, :, 0] == 255  # at 0.05 s the bar is at 15..25
    assert np.flatnonzero(white).tolist() == list(range(15, 25))
    assert (color[0, ~white, :3] == 0).all()


@pytest.mark.parametrize("text, line, said", [
    ("precision mediump float;\nvoid mainImage(out vec4 O, in vec2 u) {\n"
     "    O = vec4(1.0);\n    gl_FragColor = O;\n}\n", 4, "gl_FragColor"),
    ("void mainImage(out highp vec4 O, vec2 u) {\n    gl_FragColor = vec4(1.0);\n}\n", 2,
     "gl_FragColor"),
    ("void mainImage( out vec4 fragColor, vec2 fragCoord )\n{\n"
     "    /* gl_FragColor */ gl_FragData[0] = vec4(1.0);\n}\n", 3, "gl_FragData"),
])
def test_gl_fragcolor_is_named_at_its_line_with_the_colour_to_set(tmp_path, text, line,
                                                                  said):
    """Was: "s.frag:0: fragment shader writes to both `gl_FragColor' and `hf_fragColor'"
    (Mesa's words, line 0)."""
    path = tmp_path / "s.frag"
    path.write_text(text)
    colour = "O" if " O" in text else "fragColor"
    with pytest.raises(ShaderError) as caught:
        render_frames(path, size=(4, 2), samples=1, duration=1 / 30)
    assert str(caught.value) == (
        f"{path}:{line}: {said} is GLSL ES 1.00's output, which a Shadertoy shader has "
        f"not; set mainImage's colour ({colour}) instead")


def test_a_standalone_exports_main_may_write_gl_fragcolor(tmp_path):
    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0, 0.0, 0.0, 1.0); }\n"
                    "void main() { mainImage(gl_FragColor, gl_FragCoord.xy); }\n")
    frames, _ = render_frames(path, size=(4, 2), samples=1, duration=1 / 30)
    assert (frames[0] == [255, 0, 0]).all()


@pytest.mark.parametrize("line, channel", [
    ("    c = texture(iChannel0, u / iResolution.xy);\n"
     "    c += texture(iChannel2, vec3(u, 1.0));\n", "iChannel2"),
    ("    c = texture(iChannel1, vec3(u, 1.0)) + texture(iChannel3, vec3(u, 2.0));\n",
     "iChannelN (N its number)"),
])
def test_a_volume_or_cube_channel_is_told_by_its_own_name(tmp_path, line, channel):
    """Was: "declare it: uniform samplerCube iChannel0;" whatever channel the line read,
    and no word of a 3D texture (shadertoy.com's volumes of noise)."""
    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 u) {\n" + line + "}\n")
    with pytest.raises(ShaderError) as caught:
        render_frames(path, size=(4, 2), samples=1, duration=1 / 30)
    assert str(caught.value).endswith(
        "; hfrender declares a channel the shader uses undeclared as a 2D texture (black): "
        f"for a cube map or a 3D texture, declare it: uniform samplerCube {channel}; (or "
        "sampler3D)")
    declared = f"uniform sampler3D {channel[:9]};\n" if channel[8] != "N" else \
        "uniform samplerCube iChannel1, iChannel3;\n"
    path.write_text(declared + path.read_text())
    frames, _ = render_frames(path, size=(4, 2), samples=1, duration=1 / 30)
    assert (frames == 0).all()  # declared so: black, as the hint says


@pytest.mark.parametrize("samples", ["1", "8"])
def test_a_shaders_light_past_white_is_clipped_where_a_half_float_ends(tmp_path, samples):
    """With --hdr on an infinite or huge fragColor was its curve's light, up to 3e11x
    white, where the docs (and a mesh's light) stop at 65504: an infinity in an EXR, and
    at one sample "error: hyperframe.frames has 8 non-finite value(s) ...", exit 2."""
    from hfrender.cli import main
    from hfrender.io.exr_files import read_exr

    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 u) {\n    float zero = 0.0;\n"
                    "    c = vec4(1.0 / zero, 1e6, 2.0, 1.0);\n}\n")
    out = tmp_path / "s.exr"
    assert main(["still", str(path), "-o", str(out), "--size", "4x2", "--samples", samples,
                 "--hdr", "on", "-q"]) == 0
    light = read_exr(out).astype(np.float64)
    assert np.isfinite(light).all()
    np.testing.assert_allclose(light[..., :2], 65504.0)
    np.testing.assert_allclose(light[..., 2], ((2.0 + 0.055) / 1.055) ** 2.4, rtol=1e-3)
