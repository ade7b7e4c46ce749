"""Multisampling in each sub-frame (``--msaa``): coverage averaged in linear light, depth and
velocity of the nearest sample, interiors unchanged, and the limits told in one line.

The scenes are orthographic cards whose edges sit at known sub-pixel places, so that a
pixel's coverage is known exactly: 4 samples per pixel (the standard pattern) split a pixel
whose centre an edge crosses into 2 covered and 2 uncovered samples.
"""

import re

import numpy as np
import pytest
from render_helpers import linear, render_frames
from test_render import write_scene

import hfrender as hf
from hfrender.config import ConfigError, RenderConfig
from hfrender.engine.draw import SubframeDrawer
from hfrender.renderer.msaa import msaa_samples
from hfrender.renderer.renderer import SceneRenderer

pytestmark = pytest.mark.usefixtures("gl_context")  # no GL error left by any test

W, H = 200, 100
# 4 m across 200 px: 50 px a metre. A 0.5 m card at x = 0 spans 87.5 .. 112.5 px: its edge
# pixels 87 and 112 are half covered; one at x = 0.1 m spans 92.5 .. 117.5.
CARD = """
class Card(hf.Scene):
    duration = 0.1
    background = {background}
    ambient = 1.0

    def setup(self):
        self.card = self.add(hf.Plane(position=({x}, 0, -2), scale=0.5, color=(1, 1, 1)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0
"""


def card(tmp_path, msaa, x=0.0, background="(0, 0, 0)"):
    path = write_scene(tmp_path, CARD.format(x=x, background=background),
                       f"card_{msaa}_{x}_{len(background)}.py")
    if background == "None":  # RGBA: through a PNG (memory.mp4 has no alpha)
        import imageio.v3 as iio

        from hfrender.cli import main

        out = tmp_path / f"rgba_{msaa}_%02d.png"
        assert main(["render", str(path), "-o", str(out), "--size", f"{W}x{H}", "--samples",
                     "1", "--msaa", str(msaa), "--quiet"]) == 0
        return iio.imread(tmp_path / f"rgba_{msaa}_00.png")
    frames, _ = render_frames(path, count=1, size=(W, H), samples=1, antialias=False,
                              msaa=msaa)
    return frames[0]


@pytest.mark.parametrize("msaa", [2, 4])
def test_an_edge_through_a_pixel_centre_is_half_covered_in_linear_light(tmp_path, msaa):
    row = card(tmp_path, msaa)[50, :, 0]
    # half the samples white, half black: 0.5 in linear light is 188 in sRGB (a mean of
    # the sRGB codes would give 128)
    assert row[87] == row[112] == pytest.approx(188, abs=1)
    assert row[88:112].tolist() == [255] * 24 and row[86] == row[113] == 0
    assert float(linear(row).sum()) == pytest.approx(25.0, abs=0.02)  # the card's width


def test_without_msaa_an_edge_is_all_or_nothing(tmp_path):
    row = card(tmp_path, 1)[50, :, 0]
    assert set(np.unique(row).tolist()) == {0, 255}
    assert int((row == 255).sum()) in (25, 26)


def test_msaa_changes_edges_only(tmp_path):
    plain, multi = card(tmp_path, 1, x=0.1), card(tmp_path, 4, x=0.1)
    differ = np.any(plain != multi, axis=-1)
    # the card spans 92.5 .. 117.5 across and 37.5 .. 62.5 down: its border pixels, whose
    # centres its edges cross, and nothing else
    ring = np.zeros((H, W), bool)
    ring[37:63, [92, 117]] = True
    ring[[37, 62], 92:118] = True
    np.testing.assert_array_equal(differ, ring)


def test_transparent_edges_keep_their_colour_and_take_half_the_alpha(tmp_path):
    frame = card(tmp_path, 4, background="None")
    assert frame.shape[-1] == 4
    edge = frame[50, 87]
    assert edge[3] == pytest.approx(128, abs=1)  # half covered
    assert edge[:3].tolist() == [255, 255, 255]  # straight alpha: the card's own white


class Slide(hf.Scene):
    """A card moving right at 2 m/s (100 px/s) in front of a still one."""

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -3), scale=8, color=(0.3, 0.3, 0.3)))
        self.card = self.add(hf.Plane(position=(0, 0, -2), scale=0.5, color=(1, 1, 1)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0

    def update(self, t):
        self.card.position = (2.0 * t, 0, -2)


def test_silhouette_pixels_take_depth_and_velocity_of_the_nearer_surface(gl_context):
    glctx = gl_context(size=(W, H))
    scene = Slide()
    scene.setup()
    renderer = SceneRenderer(glctx.ctx, scene, (W, H), True, with_velocity=True, msaa=4)
    scene.update(0.0)
    drawer = SubframeDrawer(scene, renderer, None, None, None, "off", True)
    renderer.draw(0.0, 0, clip_rates=drawer._clip_rates(0.0, 0, (0.0, 0.0), (0.0, 0.0)))
    color = np.empty((H, W, 4), np.uint8)
    depth = np.empty((H, W), np.float32)
    velocity = np.empty((H, W, 2), np.float32)
    renderer.read_into(color, depth, velocity)
    renderer.release()
    edge, inside, behind = (50, 87), (50, 100), (50, 60)
    assert 0.3 < linear(color[edge][:1])[0] < 0.7  # a blend of card and background
    assert depth[edge] == pytest.approx(depth[inside]) and depth[inside] == pytest.approx(2.0)
    assert depth[behind] == pytest.approx(3.0)
    assert velocity[edge].tolist() == pytest.approx([100.0, 0.0], abs=0.01)
    assert velocity[behind].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("bad", [3, True, 4.0, "4", "Auto", None])
def test_msaa_choices_are_told_in_one_line(bad):
    with pytest.raises(ConfigError, match=rf"^msaa={re.escape(repr(bad))} must be auto or "
                                          r"one of 1, 2, 4, 8, 16$"):
        RenderConfig(msaa=bad)


def test_more_samples_than_the_context_offers_are_told_in_one_line(tmp_path, gl_context):
    most = gl_context(size=(8, 8)).ctx.max_samples
    assert msaa_samples(FakeContext("llvmpipe", 4), 4) == 4
    with pytest.raises(hf.InputError, match=r"^--msaa 8: llvmpipe offers at most 4 samples "
                                            r"per pixel \(hfrender info says so\); give "
                                            r"--msaa 4 or less$"):
        msaa_samples(FakeContext("llvmpipe", 4), 8)
    if most >= 16:  # a GPU offering every choice: the render has nothing to refuse
        return
    path = write_scene(tmp_path, CARD.format(x=0.0, background="(0, 0, 0)"), "limit.py")
    with pytest.raises(hf.InputError, match=rf"^--msaa 16: .* offers at most {most} samples "
                                            rf"per pixel \(hfrender info says so\); give "
                                            rf"--msaa {most} or less$"):
        render_frames(path, count=1, size=(W, H), samples=1, msaa=16)


def test_more_samples_than_offered_are_named_as_each_caller_gives_them(tmp_path, capsys,
                                                                        gl_context):
    """--msaa 16 on llvmpipe (4 at most) said 'msaa=16: ...' to the command, and hf.render's
    caller was told 'give --msaa 4': each is now told in its own words, in one line,
    before any frame is written."""
    from hfrender.cli import main

    most = gl_context(size=(8, 8)).ctx.max_samples
    if most >= 16:
        pytest.skip(f"this OpenGL offers {most} samples: --msaa 16 is taken")
    scene = write_scene(tmp_path, CARD.format(x=0.0, background="(0, 0, 0)"), "most.py")
    out = tmp_path / "f%02d.png"
    assert main(["render", str(scene), "-o", str(out), "--size", f"{W}x{H}", "--samples",
                 "1", "--msaa", "16", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"hfrender: error: --msaa 16: .+ offers at most {most} samples per "
                        rf"pixel \(hfrender info says so\); give --msaa {most} or less\n", err)
    assert not list(tmp_path.glob("f*.png"))
    with pytest.raises(hf.InputError, match=rf"^msaa=16: .+; give msaa={most} or less$"):
        hf.render(str(scene), str(tmp_path / "g%02d.png"), size=(W, H), samples=1, msaa=16)


def test_cli_takes_msaa(tmp_path):
    from hfrender.cli import main

    scene = write_scene(tmp_path, CARD.format(x=0.0, background="(0, 0, 0)"), "cli.py")
    out = tmp_path / "f%02d.png"
    assert main(["render", str(scene), "-o", str(out), "--size", f"{W}x{H}", "--samples",
                 "1", "--msaa", "1", "--quiet"]) == 0
    import imageio.v3 as iio

    row = iio.imread(tmp_path / "f00.png")[50, :, 0]
    assert set(np.unique(row).tolist()) == {0, 255}  # --msaa 1: no partial coverage


class FakeContext:
    def __init__(self, renderer, most, textures=None):
        self.info, self.max_samples = {"GL_RENDERER": renderer}, most
        if textures is not None:  # fewer samples for float colour textures
            self.info["GL_MAX_COLOR_TEXTURE_SAMPLES"] = textures


@pytest.mark.parametrize("renderer, most, expected", [
    ("llvmpipe (LLVM 15.0.6, 256 bits)", 4, 1),  # shades every sample: 2.4x the time
    ("NVIDIA H200/PCIe/SSE2", 32, 4),
    ("Mesa Intel(R) UHD Graphics 620", 16, 4),
    ("an old GPU", 2, 2),  # as many as it offers
])
def test_auto_is_4_on_a_gpu_and_1_on_a_software_rasteriser(renderer, most, expected):
    assert msaa_samples(FakeContext(renderer, most), "auto") == expected
    assert msaa_samples(FakeContext(renderer, most), 1) == 1


def test_the_limit_is_the_least_of_renderbuffers_and_float_textures():
    gpu = FakeContext("NVIDIA H200/PCIe/SSE2", 32, textures=8)
    assert msaa_samples(gpu, 8) == 8
    with pytest.raises(hf.InputError, match=r"^--msaa 16: NVIDIA H200/PCIe/SSE2 offers at "
                                            r"most 8 samples per pixel \(hfrender info says "
                                            r"so\); give --msaa 8 or less$"):
        msaa_samples(gpu, 16)


def test_the_render_says_what_it_drew_with(tmp_path, capsys, gl_context):
    from hfrender.cli import main

    auto = msaa_samples(gl_context(size=(8, 8)).ctx, "auto")  # 1 on llvmpipe, 4 on a GPU
    scene = write_scene(tmp_path, CARD.format(x=0.0, background="(0, 0, 0)"), "say.py")
    for msaa, drawn in (("4", 4), ("1", 1), ("auto", auto)):
        assert main(["render", str(scene), "-o", str(tmp_path / f"s{msaa}_%02d.png"),
                     "--size", f"{W}x{H}", "--samples", "1", "--msaa", msaa]) == 0
        out = capsys.readouterr().out
        assert (f"({drawn}x MSAA), fusion" in out) if drawn > 1 else ("MSAA" not in out)


SAMPLE_WRITER = """#version 400 core
uniform int u_mask;  // the samples written
uniform float u_depth;
uniform vec2 u_velocity;
layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
layout(location = 2) out vec2 f_velocity;
void main() {
    gl_SampleMask[0] = u_mask;
    f_color = vec4(1.0);
    f_depth = u_depth;
    f_velocity = u_velocity;
}
"""


def test_the_resolve_takes_the_nearest_sample_in_front_of_the_camera(gl_context):
    """A sample a rasteriser shaded beyond its triangle (llvmpipe gives grazing slivers a
    negative depth) never wins; among the others the nearest gives depth and velocity."""
    import moderngl

    from hfrender.renderer.programs import glsl
    from hfrender.renderer.target import Target

    glctx = gl_context(size=(8, 8))
    ctx = glctx.ctx
    target = Target(ctx, (8, 8), True, True, msaa=4)
    prog = ctx.program(vertex_shader=glsl("fullscreen.vert"), fragment_shader=SAMPLE_WRITER)
    vao = ctx.vertex_array(prog, [])
    depth = np.empty((8, 8), np.float32)
    velocity = np.empty((8, 8, 2), np.float32)
    color = np.empty((8, 8, 4), np.uint8)

    def write(mask, d, v):
        target.draw_fbo.use()
        ctx.viewport = (0, 0, 8, 8)
        ctx.disable(moderngl.DEPTH_TEST)
        prog["u_mask"], prog["u_depth"], prog["u_velocity"] = mask, d, v
        vao.render(moderngl.TRIANGLES, vertices=3)
        target.resolve()
        target.read_into(color, depth, velocity)

    write(0b1111, 3.0, (5.0, 0.0))  # every sample at 3 m moving right
    write(0b0001, -0.5, (99.0, 99.0))  # sample 0 shaded beyond its triangle
    assert np.all(depth == 3.0) and np.all(velocity == [5.0, 0.0])
    write(0b0100, 1.5, (0.0, -7.0))  # sample 2: a nearer surface
    assert np.all(depth == 1.5) and np.all(velocity == [0.0, -7.0])
    write(0b1111, 0.0, (1.0, 1.0))  # nothing in front of the camera: sky, still
    assert np.all(np.isinf(depth)) and np.all(velocity == 0.0)
    vao.release()
    prog.release()
    target.release()


def test_a_kept_store_records_the_samples_drawn_and_shaders_are_held_to_the_limit(
        tmp_path, gl_context):
    import json

    from hfrender.cli import main

    ctx = gl_context(size=(8, 8)).ctx
    auto, most = msaa_samples(ctx, "auto"), ctx.max_samples  # while it is current
    scene = write_scene(tmp_path, CARD.format(x=0.0, background="(0, 0, 0)"), "kept.py")
    assert main(["render", str(scene), "-o", str(tmp_path / "k.mp4"), "--size", f"{W}x{H}",
                 "--samples", "2", "--keep-samples", str(tmp_path / "store"), "--quiet"]) == 0
    settings = json.loads((tmp_path / "store" / "store.json").read_text())["settings"]
    assert settings["msaa"] == auto  # what auto came to, not "auto"
    bad = next((m for m in (2, 4, 8, 16) if m > most), None)
    if bad is None:  # a context offering every choice
        return
    shader = tmp_path / "flat.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    assert main(["render", str(shader), "-o", str(tmp_path / "s.mp4"), "--size", "64x36",
                 "--msaa", str(bad), "--quiet"]) == 2
    assert not (tmp_path / "s.mp4").exists()


# cards whose edge crosses a pixel at a known fraction: ortho_height 32 at 32x32 is one
# pixel a metre; card i's right edge (x) or top edge (y) covers FRACTIONS[i] of its pixel
FRACTIONS = (0.1, 0.25, 0.4, 0.6, 0.75, 0.9)
EDGES = """
class Edges(hf.Scene):
    duration = 0.1
    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        for i, f in enumerate({fractions}):
            across, along = f - 10, -14.5 + 5 * i  # a 20 x 3 card, edge at f, 5 px apart
            white = dict(color=(1, 1, 1), scale=(20, 3, 1) if "{axis}" == "x" else (3, 20, 1))
            if "{axis}" == "x":
                self.add(hf.Cube(position=(across, along, 0), **white))
            else:
                self.add(hf.Cube(position=(along, across, 0), **white))
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic = True
        self.camera.ortho_height = 32
"""


@pytest.mark.parametrize("axis", ["x", "y"])
@pytest.mark.parametrize("samples", [1, 8, 16])
def test_the_antialiasing_pattern_keeps_an_edge_where_it_is(tmp_path, axis, samples):
    """The sub-frames' sub-pixel offsets average to the pixel's centre (was: Halton's points
    less 0.5, a sixth of a pixel off at 1 sub-frame, 1/16 at 16: every edge of a mesh
    render moved with the sample count). Each edge pixel's coverage is its fraction to
    within half a strip (1 / 2n), and their errors average out; one sub-frame samples the
    pixel's centre."""
    path = write_scene(tmp_path, EDGES.format(fractions=FRACTIONS, axis=axis),
                       f"edges_{axis}.py")
    frames, _ = render_frames(path, count=1, size=(32, 32), samples=samples, msaa=1)
    cover = linear(frames[0][..., 0])
    got = np.array([cover[30 - 5 * i, 16] if axis == "x" else cover[15, 5 * i + 1]
                    for i in range(len(FRACTIONS))])  # the edge pixel of each card's middle
    want = np.array(FRACTIONS)
    if samples == 1:
        np.testing.assert_array_equal(got, (want > 0.5).astype(float))
    else:
        assert np.abs(got - want).max() <= 1 / (2 * samples) + 0.005, got
        assert abs(float((got - want).mean())) < 0.01, got


def test_the_help_says_the_device_decides_the_most(capsys):
    """--msaa's help listed 8 and 16 as if each could be given, where llvmpipe offers 4."""
    from hfrender.cli import build_parser

    text = " ".join(build_parser()._subparsers._group_actions[0].choices["render"]
                    .format_help().split())
    said = text.split("--msaa auto|N ", 1)[1].split(" --hdr", 1)[0]
    assert "1, 2, 4, 8 or 16, up to what the OpenGL device offers (hfrender info says: " \
           "llvmpipe 4); more is refused" in said, said
