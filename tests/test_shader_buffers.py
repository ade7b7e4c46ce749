"""Shadertoy's Buffer tabs without feedback: ``// hfrender: iChannel0 = bufA.frag`` draws
that shader first, at the same sub-frame time, into a float texture the channel reads."""

import numpy as np
import pytest

from hfrender.errors import InputError
from hfrender.scene import ShaderScene

MAIN = "void mainImage(out vec4 c, in vec2 p) "


def still(tmp_path, scene, t, *more):
    """The 8x4 still of ``scene`` at ``t`` as (4, 8, 3) codes, its bottom row first."""
    from PIL import Image

    from hfrender.cli import main

    out = tmp_path / "o.png"
    assert main(["still", str(tmp_path / scene), "-t", str(t), "--size", "8x4", "-o",
                 str(out), "-q", *more]) == 0
    return np.asarray(Image.open(out))[::-1, :, :3].astype(int)


def refused(path):
    """What the shader at ``path`` is refused with as it is loaded (one InputError)."""
    with pytest.raises(InputError) as err:
        ShaderScene(path.read_text(), str(path))
    return str(err.value)


def write(folder, **files):
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)


@pytest.mark.parametrize("t", [0.0, 0.5])
def test_the_image_reads_its_buffer_drawn_at_the_same_time_as_floats(tmp_path, t):
    """Was: "iChannel0 = bufA.frag: a shader (shadertoy.com's Buffer A..D tabs), not a
    picture: hfrender draws the Image tab alone". The buffer holds a function of the pixel
    and the time, past 0..1 too (a float texture: 3 and -0.5 kept), read one pixel to the
    right (the last column clamped to the edge, as shadertoy.com samples a buffer)."""
    write(tmp_path, bufA_frag=MAIN + "{ c = vec4(fract((p.x + 8.0 * iTime) / 8.0), "
          "p.y / iResolution.y, 3.0, -0.5); }\n",
          image_frag="// hfrender: iChannel0 = bufA.frag\n// hfrender: antialias = false\n"
          + MAIN + "{ vec4 b = texture(iChannel0, (p + vec2(1, 0)) / iResolution.xy);\n"
          "  c = vec4(b.r, b.g, b.b / 4.0 - (b.a + 0.5) * 10.0, 1); }\n")
    shown = still(tmp_path, "image.frag", t, "--samples", "1")
    right = [min(x + 1, 7) for x in range(8)]
    assert shown[0, :, 0].tolist() == [round((x + 0.5 + 8 * t) / 8 % 1 * 255) for x in right]
    assert shown[:, 0, 1].tolist() == [32, 96, 159, 223]  # (y + .5) / 4
    assert (shown[..., 2] == 191).all()  # 3 / 4 - 0 (an 8-bit buffer: 1 / 4 - 5, 0)


def test_pixels_line_up_a_buffer_read_at_the_images_pixel_is_what_the_image_would_draw(
        tmp_path):
    """The buffer is drawn with the Image's antialiasing offset: read at the Image's own
    pixel, each sub-frame gives the colour the Image would draw there itself."""
    shape = "step(length(p - vec2(3.7, 2.1)), 2.3)"
    write(tmp_path, bufA_frag=MAIN + f"{{ c = vec4(vec3({shape}), 1); }}\n",
          image_frag="// hfrender: iChannel0 = bufA.frag\n"
          + MAIN + "{ c = texelFetch(iChannel0, ivec2(p), 0); }\n",
          one_frag=MAIN + f"{{ c = vec4(vec3({shape}), 1); }}\n")
    alone = still(tmp_path, "one.frag", 0, "--samples", "8")
    assert 0 < len(np.unique(alone)) - 2  # antialiased: edges between black and white
    np.testing.assert_array_equal(still(tmp_path, "image.frag", 0, "--samples", "8"), alone)


def test_buffer_b_reads_buffer_a_each_drawn_once_in_order(tmp_path):
    """Buffer B reads Buffer A; the Image reads both (A drawn once, before B); their own
    channels, common files and iChannelResolution as any shader's."""
    from PIL import Image

    Image.fromarray(np.full((2, 2, 3), 102, np.uint8)).save(tmp_path / "grey.png")
    write(tmp_path, common_glsl="float half_of(float x) { return x * 0.5; }\n",
          bufA_frag="// hfrender: common = common.glsl\n// hfrender: iChannel1 = grey.png\n"
          + MAIN + "{ c = vec4(half_of(iTime), texture(iChannel1, vec2(0.5)).r, 0, 1); }\n",
          bufB_frag="// hfrender: iChannel2 = bufA.frag\n"
          + MAIN + "{ vec4 a = texture(iChannel2, p / iResolution.xy);\n"
          "  c = vec4(a.r * 2.0, a.g, iChannelResolution[2].x / 16.0, 1); }\n",
          image_frag="// hfrender: iChannel0 = bufB.frag\n// hfrender: iChannel3 = bufA.frag\n"
          + MAIN + "{ vec4 b = texture(iChannel0, p / iResolution.xy);\n"
          "  c = vec4(b.r - texture(iChannel3, vec2(0.5)).r, b.g, b.b, 1); }\n")
    scene = ShaderScene((tmp_path / "image.frag").read_text(), str(tmp_path / "image.frag"))
    assert [b.source_path for b in scene.buffers] == [
        str(tmp_path / "bufA.frag"), str(tmp_path / "bufB.frag")]
    shown = still(tmp_path, "image.frag", 0.8, "--samples", "1")
    # iTime - iTime / 2 = 0.4 (102); the picture's 102 through both; 8 / 16 (128)
    assert (shown == [102, 102, 128]).all()


@pytest.mark.parametrize("files, at, said", [
    ({"bufA.frag": "// mine\n// hfrender: iChannel0 = bufA.frag\n"},
     "bufA.frag:2: hfrender: iChannel0 = bufA.frag",
     "bufA.frag reads itself, its own previous frame (feedback)"),
    ({"bufA.frag": "// hfrender: iChannel1 = bufB.frag\n",
      "bufB.frag": "\n\n// hfrender: iChannel0 = bufA.frag\n"},
     "bufB.frag:3: hfrender: iChannel0 = bufA.frag",
     "a cycle, bufA.frag -> bufB.frag -> bufA.frag (each reads the next): feedback, a buffer "
     "reading its own previous frame through others"),
    ({}, "image.frag:1: hfrender: iChannel0 = image.frag",
     "image.frag reads itself, its own previous frame (feedback)"),
])
def test_feedback_is_refused_in_one_line_at_its_line(tmp_path, files, at, said):
    for name, text in files.items():
        (tmp_path / name).write_text(text + MAIN + "{ c = texture(iChannel0, p); }\n")
    first = "bufA.frag" if files else "image.frag"
    path = tmp_path / "image.frag"
    path.write_text(f"// hfrender: iChannel0 = {first}\n" + MAIN + "{ c = vec4(1); }\n")
    assert refused(path) == (
        f"{tmp_path}/{at}: {said}; hfrender draws each sub-frame as a pure function of its "
        "time, and what a buffer keeps from its previous frames is not one; compute that "
        "state from iTime in the pass itself (a trail left by motion is hfrender's motion "
        "blur)")


def test_a_buffers_errors_are_told_at_its_own_file_and_line(tmp_path):
    from render_helpers import render_frames

    from hfrender.renderer.programs import ShaderError

    path = tmp_path / "image.frag"
    path.write_text("// hfrender: iChannel0 = passes/bufA.frag\n"
                    + MAIN + "{ c = texture(iChannel0, p); }\n")
    assert refused(path) == (f"{path}:1: hfrender: iChannel0 = passes/bufA.frag: no such file "
                             "(a path from the shader's folder)")
    (tmp_path / "passes").mkdir()
    buffer = tmp_path / "passes" / "bufA.frag"
    buffer.write_text("// hfrender: iChannel0 = noise.png\n" + MAIN + "{ c = vec4(1); }\n")
    with pytest.raises(ShaderError) as err:  # its picture, from its own folder
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    # (was "iChannel0 = {tmp_path}/passes/noise.png", the file's line in another form)
    assert str(err.value) == (f"{buffer}:1: hfrender: iChannel0 = noise.png: no such file (a "
                              "path from the shader's folder)")
    buffer.write_text("// Buffer A\n" + MAIN + "{\n  c = vec4(nope);\n}\n")
    with pytest.raises(ShaderError) as err:
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert str(err.value).startswith(f"{buffer}:3: ")
    assert "nope" in str(err.value)


def test_a_buffer_and_its_files_are_the_scenes_files(tmp_path, capsys):
    """As the common file is: each checksum kept for --resume and a batch, a missing
    picture of a buffer's found by a batch before any job, and on Ray inside the folder."""
    from test_cli_ray import _refused_on_ray

    from hfrender.cli import main
    from hfrender.scene.sources import scene_assets

    (tmp_path / "lib").mkdir()
    write(tmp_path / "lib", common_glsl="float one() { return 1.0; }\n")
    (tmp_path / "grey.png").write_bytes(b"")
    write(tmp_path, bufA_frag="// hfrender: common = lib/common.glsl\n"
          "// hfrender: iChannel0 = grey.png\n" + MAIN + "{ c = vec4(one()); }\n",
          bufB_frag="// hfrender: iChannel0 = bufA.frag\n" + MAIN + "{ c = vec4(1); }\n",
          s_frag="// hfrender: iChannel1 = bufB.frag\n" + MAIN + "{ c = vec4(1); }\n")
    path = tmp_path / "s.frag"
    assert list(scene_assets(ShaderScene(path.read_text(), str(path)))) == [
        "bufA.frag", "bufB.frag", "grey.png", "lib/common.glsl"]
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.1\n')
    (tmp_path / "grey.png").unlink()
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(  # (was "iChannel picture {tmp_path}/grey.png")
        f"{tmp_path / 'bufA.frag'}:2: hfrender: iChannel0 = grey.png: no such file (a path "
        "from the shader's folder)\n")
    (tmp_path / "shot").mkdir()
    shader = tmp_path / "shot" / "s.frag"
    shader.write_text("// hfrender: iChannel1 = ../bufB.frag\n" + MAIN + "{ c = vec4(1); }\n")
    # (the first it reads outside: bufA.frag, drawn first)
    assert _refused_on_ray(shader, tmp_path) == (
        f"--ray: the scene loads {tmp_path / 'bufA.frag'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the buffer's shader in it, or render without --ray")


def test_a_buffers_own_unset_and_unread_channels_are_said(tmp_path, caplog):
    """Was: only the Image's said; a buffer reading a channel given nothing read black
    unsaid, and one given a picture it never reads drew it unsaid."""
    from hfrender.renderer.shader_notes import shader_notes

    (tmp_path / "grey.png").write_bytes(b"")
    write(tmp_path, bufA_frag="// hfrender: iChannel2 = grey.png\n"
          + MAIN + "{ c = texture(iChannel1, p); }\n",
          s_frag="// hfrender: iChannel0 = bufA.frag\n" + MAIN + "{ c = vec4(1); }\n")
    path = tmp_path / "s.frag"
    with caplog.at_level("WARNING"):
        shader_notes(type("C", (), {"msaa": 1})(), ShaderScene(path.read_text(), str(path)))
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag gives iChannel0 a buffer, which its code never reads",
        "bufA.frag reads iChannel1, which hfrender does not set (a line `// hfrender: "
        "iChannel0 = noise.png` in the shader gives a channel a picture, `= bufA.frag` a "
        "buffer; no sound): it stays 0; it sets iResolution, iTime, iTimeDelta, iFrameRate, "
        "iFrame, iMouse, iDate",
        "bufA.frag gives iChannel2 a picture, which its code never reads"]


def test_a_buffer_given_by_a_whole_path_outside_the_shaders_folder(tmp_path):
    """Was: "internal error: ValueError: ... is not in the subpath of ..." (the line's path
    shown from the shader's folder, which this one is not in), for a buffer there as for
    one missing."""
    (tmp_path / "shot").mkdir()
    (tmp_path / "lib").mkdir()
    buffer = tmp_path / "lib" / "bufA.frag"
    buffer.write_text(MAIN + "{ c = vec4(1); }\n")
    path = tmp_path / "shot" / "image.frag"
    path.write_text(f"// hfrender: iChannel0 = {buffer}\n" + MAIN
                    + "{ c = texture(iChannel0, p); }\n")
    scene = ShaderScene(path.read_text(), str(path))
    assert [b.source_path for b in scene.buffers] == [str(buffer)]
    buffer.unlink()
    assert refused(path) == (f"{path}:1: hfrender: iChannel0 = {buffer}: no such file (a "
                             "path from the shader's folder)")


@pytest.mark.parametrize("value, setting", [("bufA.frag filter=nearest wrap=repeat", "filter"),
                                            ("noise.png  wrap = clamp", "wrap"),
                                            ("filter=nearest bufA.frag", "filter"),
                                            ("bufA.frag;wrap=repeat", "wrap")])
def test_shadertoys_channel_settings_are_refused_naming_what_is_used(tmp_path, value,
                                                                    setting):
    """Was: "iChannel0 = bufA.frag filter=nearest wrap=repeat: no such file", the settings
    taken for part of the file's name."""
    path = tmp_path / "image.frag"
    path.write_text(f"// hfrender: iChannel0 = {value}\n" + MAIN + "{ c = vec4(1); }\n")
    assert refused(path) == (
        f"{path}:1: hfrender: iChannel0 = {value}: hfrender takes no channel settings "
        f"({setting}=): a picture is read mipmapped and repeated, a buffer linear and clamped "
        "to the edge with no mipmaps (textureLod reads its full size), shadertoy.com's "
        "defaults; give the file alone")


def test_a_buffer_no_drawn_pass_reads_is_not_drawn(tmp_path, monkeypatch, caplog):
    """Was: warned of, and drawn all the same each sub-frame (a full-screen pass for
    nothing). bufB is given to the Image, which never reads it; bufC is read by bufB alone:
    neither is drawn; bufA, which the Image reads, is, once a sub-frame."""
    from render_helpers import render_frames

    from hfrender.renderer import shader_renderer

    drawn = []
    run = shader_renderer.PassProgram.run
    monkeypatch.setattr(shader_renderer.PassProgram, "run", lambda self, *a: (
        drawn.append(self.shader.source_path.rsplit("/", 1)[-1]), run(self, *a))[1])
    write(tmp_path, bufA_frag=MAIN + "{ c = vec4(0.4, 0, 0, 1); }\n",
          bufC_frag=MAIN + "{ c = vec4(1); }\n",
          bufB_frag="// hfrender: iChannel0 = bufC.frag\n"
          + MAIN + "{ c = texture(iChannel0, p / iResolution.xy); }\n",
          image_frag="// hfrender: iChannel0 = bufA.frag\n// hfrender: iChannel1 = bufB.frag\n"
          + MAIN + "{ c = texture(iChannel0, p / iResolution.xy); }\n")
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(tmp_path / "image.frag", size=(8, 4), samples=3,
                                  duration=1 / 30)
    assert (frames[..., 0] == 102).all()  # 0.4 (a shader writes codes)
    assert drawn == ["bufA.frag", "image.frag"] * 3
    assert "image.frag gives iChannel1 a buffer, which its code never reads" in caplog.text


@pytest.mark.parametrize("lines, read, said", [
    ("// hfrender: iChannel1 = gone.png\n", "texture(iChannel1, p)",
     "iChannel1 = gone.png: no such file (a path from the shader's folder)"),
    ("// hfrender: iChannel2 = bufA.frag\nuniform samplerCube iChannel2;\n",
     "texture(iChannel2, vec3(1))", "iChannel2 = bufA.frag: the shader declares this channel a "
     "cube map or a 3D texture; a buffer fills a 2D channel (sampler2D) only")])
def test_a_pass_that_fails_after_compiling_leaves_nothing_behind(tmp_path, monkeypatch,
                                                                 gl_context, lines, read,
                                                                 said):
    """Was: its program, vertex array and the picture it had made kept (the renderer
    released the passes it had finished, not the half-built one)."""
    import moderngl
    from PIL import Image

    from hfrender.renderer.programs import ShaderError
    from hfrender.renderer.shader_renderer import ShaderRenderer

    made = []

    def counted(real):
        def making(self, *a, **k):
            made.append(real(self, *a, **k))
            return made[-1]
        return making

    for kind in ("program", "vertex_array", "texture", "framebuffer"):
        monkeypatch.setattr(moderngl.Context, kind, counted(getattr(moderngl.Context, kind)))
    Image.fromarray(np.full((2, 2, 3), 102, np.uint8)).save(tmp_path / "grey.png")
    write(tmp_path, bufA_frag=MAIN + "{ c = vec4(1); }\n",
          image_frag="// hfrender: iChannel3 = grey.png\n// hfrender: iChannel0 = bufA.frag\n"
          + lines + MAIN + "{ c = texture(iChannel0, p) + texture(iChannel3, p) + "
          + read + "; }\n")
    path = tmp_path / "image.frag"
    ctx = gl_context(size=(8, 4)).ctx
    with pytest.raises(ShaderError) as err:
        ShaderRenderer(ctx, ShaderScene(path.read_text(), str(path)), (8, 4), False)
    assert str(err.value) == f"{path}:3: hfrender: {said}"
    assert sorted({type(m).__name__ for m in made}) == [
        "Framebuffer", "Program", "Texture", "VertexArray"]
    assert [type(m).__name__ for m in made  # each released
            if not isinstance(m.mglo, moderngl.mgl.InvalidObject)] == []
