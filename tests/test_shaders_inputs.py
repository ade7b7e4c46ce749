"""A Shadertoy shader's inputs as on shadertoy.com: iDate runs with iTime on a fixed day,
iTime and iFrame follow the shutter, gl_FragCoord and dFdy point as there; inputs
hfrender does not set are named; sub-frames sample the pixel as a mesh's do."""

import re
from pathlib import Path

import numpy as np
import pytest
from render_helpers import render_frames
from shader_helpers import RED, _frag, _one

from hfrender.renderer.programs import ShaderError


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


def test_main_image_adds_to_black_as_on_shadertoy(tmp_path):
    """Code-golf shaders add to their colour (``O += ...``): it starts as Shadertoy's
    wrapper sets it, black (was: an ``out`` parameter, undefined: black here, white on a
    half the shader left alone)."""
    path = _frag(tmp_path, "void mainImage(out vec4 O, vec2 u) {\n"
                 "    for (int i = 0; i < 4; i++) O += vec4(0.1, 0.05, 0.02, 0.0);\n"
                 "    if (u.x < 4.0) O.b = 1.0;\n}\n")
    frame = _one(path)
    left, right = frame[:, :4], frame[:, 4:]  # 0.4, 0.2, 0.08 of full: codes 102, 51, 20
    assert (right == [102, 51, 20]).all() and (left == [102, 51, 255]).all()


def test_inputs_hfrender_does_not_set_are_named_and_msaa_is_said_unused(tmp_path, caplog):
    path = _frag(tmp_path, "uniform sampler2D iChannel0;\nuniform float iSampleRate, iTime;\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(texture(iChannel0, vec2(0.5)).r, iSampleRate, 1.0, 1.0);\n}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path, msaa=4)
    assert (frame == [0, 0, 255]).all()
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "--msaa 4: s.frag is a fragment shader, which colours each pixel once "
        "(multisampling smooths the edges of geometry); ignored",
        "s.frag reads iChannel0, iSampleRate, which hfrender does not set (a line `// "
        "hfrender: iChannel0 = noise.png` in the shader gives a channel a picture, `= "
        "bufA.frag` a buffer; no sound): they stay 0; it sets iResolution, iTime, iTimeDelta, "
        "iFrameRate, iFrame, iMouse, iDate"]
    other = _frag(tmp_path, "uniform float time;\nuniform vec2 resolution;\n"  # glslsandbox's
                  "void mainImage(out vec4 c, in vec2 p) {\n"
                  "    c = vec4(time, resolution.x, 1.0, 1.0);\n}\n")
    caplog.clear()
    with caplog.at_level("WARNING"):
        _one(other)
    assert [r.getMessage() for r in caplog.records] == [  # not "... no buffers or sound"
        "s.frag reads time, resolution, which hfrender does not set: they stay 0; it sets "
        "iResolution, iTime, iTimeDelta, iFrameRate, iFrame, iMouse, iDate"]


def test_iframe_above_360_degrees_is_the_same_whatever_range_is_rendered(tmp_path):
    """At 720 degrees frames share sub-frames; each is given the frame whose open shutter's
    middle is nearest (was: the frame whose window it completed, which depended on the
    range: frame 4 was 5 in the whole render, 4 with --frames 3:5)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(float(iFrame) / 255.0, 0.0, 0.0, 1.0);\n}\n")
    settings = dict(size=(4, 2), samples=4, shutter=720.0, duration=0.2)
    whole, _ = render_frames(path, **settings)
    part, _ = render_frames(path, first_frame=3, count=2, **settings)
    np.testing.assert_array_equal(part, whole[3:5])
    assert [int(f[0, 0, 0]) for f in whole[1:]] == [1, 2, 3, 4, 5]
    from hfrender.sampler import SampleSchedule

    for position in ("start", "center", "end"):  # never -1 (was, for frame 0's first)
        schedule = SampleSchedule(fps=10, samples=4, shutter_deg=720, position=position)
        assert min(schedule.frame_at(t) for t in schedule.plan(3).times) == 0


def test_only_the_codes_unset_inputs_are_named():
    from hfrender.renderer.shadertoy import unset_inputs

    assert unset_inputs("#ifdef A\nuniform sampler2D iChannel0;\n#else\n"
                        "uniform sampler2D iChannel0;\n#endif\n"
                        "vec4 f() { return texture(iChannel0, vec2(0.0)); }") == ["iChannel0"]
    assert unset_inputs("// uniform sampler2D iChannel0;\n/* uniform float iSampleRate; */\n"
                        "uniform vec3 iResolution = vec3(1, 2, 3), iChannelResolution[4];\n"
                        "uniform float iTime; uniform sampler2D iChannel1;\n"
                        "float f() { return iChannelResolution[0].x + iChannelTime[0]; }\n"
                        "vec4 g() { return texture(iChannel1, vec2(iSampleRate)); }") == [
        "iChannelResolution", "iChannel1", "iChannelTime", "iSampleRate"]


@pytest.mark.parametrize("declared", [
    "uniform float gain = 0.5;\n",  # given a value: it keeps it
    "uniform float iChannelTime[4];\nuniform vec3 iChannelResolution[4];\n"  # shadertoy.com's
    "uniform float iSampleRate;\nuniform sampler2D iChannel0;\n",  # inputs, pasted, unread
    "uniform vec2 gain2 = vec2(0.5, 1.0), unread;\n",
])
def test_an_initialised_or_unread_uniform_is_not_said_to_stay_0(tmp_path, caplog, declared):
    """Was: "s.frag reads gain, which hfrender does not set: it stays 0" for a uniform
    that keeps 0.5, and "reads" for each of shadertoy.com's inputs pasted unread (a
    trial); the picture's red is 0.5 either way."""
    gain = re.search(r"gain2?", declared)
    use = "0.5" if gain is None else gain.group() + (".x" if "2" in gain.group() else "")
    path = _frag(tmp_path, declared + "void mainImage(out vec4 c, in vec2 p) {\n"
                 f"    c = vec4({use}, 0.0, 0.0, 1.0);\n}}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path)
    assert (frame == [128, 0, 0]).all() and caplog.records == []


def test_a_shaders_notes_are_said_once_and_where_the_user_sees_them(tmp_path, caplog):
    """still --compare drew the frame twice and said the note twice; render --ray said it
    only on the workers, whose logs the user does not see."""
    from hfrender.cli import main
    from hfrender.config import RenderConfig
    from hfrender.engine.cluster import ClusterRender

    path = _frag(tmp_path, "uniform sampler2D iChannel0;\n"
                 + RED.replace("1.0, 0.0", "1.0 + texture(iChannel0, vec2(0.0)).r, 0.0", 1))
    with caplog.at_level("WARNING"):
        assert main(["still", str(path), "--compare", "-o", str(tmp_path / "c.png"), "--size",
                     "8x4", "--quiet"]) == 0
    assert [r.getMessage()[:23] for r in caplog.records] == ["s.frag reads iChannel0,"]
    caplog.clear()
    with caplog.at_level("WARNING"):
        ClusterRender(path, RenderConfig(output=str(tmp_path / "r.mp4"), size=(8, 4),
                                         duration=0.2)).prepare()
    assert [r.getMessage()[:23] for r in caplog.records] == ["s.frag reads iChannel0,"]


def test_gl_fragcoord_is_fragcoord_and_dfdy_points_up_as_on_shadertoy(tmp_path):
    """shadertoy.com calls mainImage with gl_FragCoord.xy; dFdx and dFdy follow the
    picture's right and up (was: gl_FragCoord.y ran from the top, and dFdy(fragCoord.y) was
    -1: screen-space normals and bump maps flipped). Red: gl_FragCoord is fragCoord and
    dFdx(fragCoord.x) is 1; green: fragCoord.y / 4 (rows from the top: 3.5, 2.5, 1.5, 0.5);
    blue: 0.5 + 0.25 * dFdy(fragCoord.y)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    bool same = all(lessThan(abs(gl_FragCoord.xy - p), vec2(1e-3)));\n"
                 "    bool right = abs(dFdx(p.x) - 1.0) < 1e-3;\n"
                 "    c = vec4(same && right ? 1.0 : 0.0, p.y / 4.0,\n"
                 "             0.5 + 0.25 * dFdy(p.y), 1.0);\n}\n")
    frame = _one(path).astype(int)
    assert (frame[..., 0] == 255).all()
    np.testing.assert_array_equal(frame[:, 0, 1], np.rint([223.1, 159.4, 95.6, 31.9]))
    assert (frame[..., 2] == 191).all()  # dFdy(fragCoord.y) = +1 (0.75: code 191)


def test_itime_follows_the_shutter_before_0_and_a_start_shutter_keeps_it_at_0_on(tmp_path):
    """The centred shutter opens frame 0 before t = 0: iTime < 0 there (kept: drawing those
    sub-frames at 0 stuck a copy of every moving shader at its t = 0 place); the README's
    remedy for a shader that cannot take it, ``--shutter-position start``, keeps iTime at
    0 and on. Red: iTime below 0."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(iTime < 0.0 ? 1.0 : 0.0, 0.0, 0.0, 1.0);\n}\n")
    frames, _ = render_frames(path, size=(4, 2), samples=8, duration=2 / 30)
    assert (frames[0, ..., 0] > 100).all() and (frames[1, ..., 0] == 0).all()
    start, _ = render_frames(path, size=(4, 2), samples=8, duration=2 / 30,
                             shutter_position="start")
    assert (start[..., 0] == 0).all()


@pytest.mark.parametrize("source", [
    "// ported from a shader that read iChannel0\n",  # in a comment
    "uniform sampler2D iChannel0;\n",  # declared (unread: no warning)
])
def test_an_input_hfrender_does_not_give_is_blamed_only_where_the_compiler_names_it(
        tmp_path, source):
    """Was: "...; iChannel0 is not an input hfrender gives" after any error of a shader
    whose text held the name."""
    path = _frag(tmp_path, source + "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(iTim);\n}\n")
    with pytest.raises(ShaderError) as err:
        _one(path)
    assert re.fullmatch(rf"{path}:3: `iTim' undeclared( \(and \d+ more errors?\))?",
                        str(err.value)), str(err.value)


@pytest.mark.parametrize("samples_range, count", [((4, 64), 8), ((12, 20), 12), ((2, 5), 5)])
def test_samples_auto_draws_a_shader_at_the_default_count(tmp_path, caplog, samples_range,
                                                          count):
    """Was: refused ("no velocity to measure its motion by"), so an hfrender.toml with
    ``samples = "auto"`` failed every shader. The bar's streak is the fixed count's, said
    in a warning; the count stays within --samples-range."""
    bar = Path(__file__).parent / "data" / "bar.frag"
    common = dict(size=(96, 8), duration=3 / 30, shutter=360)
    with caplog.at_level("WARNING"):
        auto, _ = render_frames(bar, samples="auto", samples_range=samples_range, **common)
    fixed, _ = render_frames(bar, samples=count, **common)
    np.testing.assert_array_equal(auto, fixed)
    assert not np.array_equal(fixed, render_frames(bar, samples=count + 1, **common)[0])
    assert (f"--samples auto: bar.frag is a fragment shader, with no geometry to measure its "
            f"motion by; {count} sub-frames a frame" in caplog.text)


def test_dfdy_fine_and_coarse_point_up_as_dfdy_does(tmp_path):
    """The review's: with GL_ARB_derivative_control, dFdyFine was -1 where dFdy was +1."""
    path = _frag(tmp_path, "#extension GL_ARB_derivative_control : enable\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = vec4(0.5 + 0.25 * dFdyFine(p.y), 0.5 + 0.25 * dFdyCoarse(p.y),\n"
                 "             0.5 + 0.25 * dFdy(p.y), 1.0);\n}\n")
    assert (_one(path) == 191).all()  # each +1: 0.75, code 191


@pytest.mark.parametrize("own", [
    "const float iSampleRate = 0.5;\n",  # a global of its own, named as shadertoy's input
    "#define iGlobalTime 0.5\n",  # its own macro of the old name
    "float iGlobalTime = 0.5;\n",
    "struct S { float iChannelTime; };\nconst S s = S(0.5);\n",  # a field of that name
])
def test_a_shaders_own_name_of_an_input_stays_its_own(tmp_path, own):
    """Declaring what a shader uses undeclared broke those that had one of their own
    (a review: "'iSampleRate' redeclared", "Redefinition of macro iGlobalTime")."""
    name = re.findall(r"iSampleRate|iGlobalTime|iChannelTime", own)[0]
    use = "s.iChannelTime" if "struct" in own else name
    frame = _one(_frag(tmp_path, own + "void mainImage(out vec4 c, in vec2 p) {\n"
                       f"    c = vec4({use}, 0.0, 0.0, 1.0);\n}}\n"))
    assert (frame[..., 0] == 128).all()  # 0.5, a display colour


def test_the_readmes_loop_limit_is_llvmpipes_for_all_of_a_pixels_loops(tmp_path):
    """The README said "a loop stops after 65,535 iterations"; on llvmpipe the limit is
    shared by all the loops of one pixel (a trial measured it): its figures, measured.
    The count is written as two 8-bit codes (high, low)."""
    readme = (Path(__file__).parent.parent / "docs" / "rendering.md").read_text()
    said = re.search(r"300 x 300 nested loops stop at about ([\d,]+) of their 90,000, two "
                     r"loops of 40,000 in a row at ([\d,]+); 200 x 200 runs whole",
                     " ".join(readme.split()))
    assert said, "docs/rendering.md's sentence on llvmpipe's loop limit"
    nested = "for (int i = 0; i < N + iFrame; i++) for (int j = 0; j < N + iFrame; j++) k++;"
    row = "for (int i = 0; i < 40000 + iFrame; i++) k++; for (int j = 0; j < 40000; j++) k++;"
    counts = {}
    for name, code in (("nested", nested.replace("N", "300")), ("in a row", row),
                       ("whole", nested.replace("N", "200"))):
        path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n    float k = 0.0;\n"
                     f"    {code}\n    c = vec4(floor(k / 256.0), mod(k, 256.0), 0.0, 255.0)"
                     " / 255.0;\n}\n")
        frames, stats = render_frames(path, size=(2, 2), samples=1, duration=1 / 30)
        if "llvmpipe" not in stats.gl_renderer:
            pytest.skip(f"the README's figures are llvmpipe's, not {stats.gl_renderer}'s")
        r, g = frames[0, 0, 0, :2].astype(int)
        counts[name] = 256 * r + g
    assert counts == {"nested": pytest.approx(int(said.group(1).replace(",", "")), abs=100),
                      "in a row": int(said.group(2).replace(",", "")), "whole": 40000}


@pytest.mark.parametrize("antialias", [True, False])
def test_a_shaders_sub_frames_sample_the_pixel_as_a_meshs_do(tmp_path, antialias):
    """A trial: a shader drew the pixel's centre in every sub-frame (16 sub-frames of a
    still circle: codes 0 and 255 alone). Each sub-frame's fragCoord moves by its place in
    the window's antialiasing pattern (x right, y up): a pixel is the share of its 16
    points inside the circle (linear light); ``antialias = false`` keeps the centres."""
    from render_helpers import linear

    from hfrender.sampler import pixel_offsets

    cx, cy, r = 13.3, 17.6, 7.2  # (off the pixel grid: the pattern's orientation shows)
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 f"    c = vec4(vec3(length(p - vec2({cx}, {cy})) < {r} ? 1.0 : 0.0), 1.0);\n"
                 "}\n")
    frames, _ = render_frames(path, size=(32, 32), samples=16, duration=1 / 30,
                              antialias=antialias)
    x = np.arange(32) + 0.5
    y = 32 - (np.arange(32) + 0.5)  # rows from the top; fragCoord's y runs up
    points = pixel_offsets(16) if antialias else np.zeros((1, 2))
    share = np.mean([np.hypot(x[None, :] + dx - cx, y[:, None] + dy - cy) < r
                     for dx, dy in points], axis=0)
    np.testing.assert_allclose(linear(frames[0, ..., 0]), share, atol=0.004)
    assert len(np.unique(frames[0])) == (2 if not antialias else len(np.unique(share)))


def test_a_shaders_antialias_line_keeps_its_pixel_centres(tmp_path):
    """A trial: pixel-exact code (texelFetch of a picture shown 1:1, grain hashed from
    fragCoord) was softened by the sub-frames' antialiasing, and only a hfrender.toml could
    turn it off; its own line does, for that shader alone."""
    code = ("void mainImage(out vec4 c, in vec2 p) {\n"
            "    c = vec4(vec3(fract(p.x) == 0.5 && fract(p.y) == 0.5 ? 1.0 : 0.0), 1.0);\n}\n")
    soft, _ = render_frames(_frag(tmp_path, code, "soft.frag"), size=(8, 4), samples=8,
                            duration=1 / 30)
    exact, _ = render_frames(_frag(tmp_path, "// hfrender: antialias = false\n" + code,
                                   "exact.frag"), size=(8, 4), samples=8, duration=1 / 30)
    assert (exact == 255).all() and (soft < 255).all()


def test_a_python_scenes_own_antialias_attribute_changes_nothing(tmp_path):
    """A review: any scene's ``antialias`` attribute turned the jitter off (5 codes for 46);
    only a shader's own line does."""
    body = ("import hfrender as hf\nclass S(hf.Scene):\n    duration = 0.1\n{}"
            "    def setup(self):\n        self.add(hf.Sphere(radius=0.6))\n")
    plain = tmp_path / "plain.py"
    plain.write_text(body.format(""))
    own = tmp_path / "own.py"
    own.write_text(body.format("    antialias = False\n"))
    settings = dict(size=(32, 18), samples=8, duration=1 / 30, msaa=1)
    a, _ = render_frames(plain, **settings)
    b, _ = render_frames(own, **settings)
    np.testing.assert_array_equal(a, b)
    assert len(np.unique(a)) > 4  # antialiased: more than a few codes
