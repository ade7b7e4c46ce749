"""A Shadertoy shader's channels: undeclared ones read black (a cube map's told how to
declare), a channel shows the picture its shader names, as a viewer shows it; a missing
or refused picture is said at its line, and a changed one makes its render again."""


import numpy as np
import pytest
from render_helpers import render_frames
from shader_helpers import _frag, _one

from hfrender.renderer.programs import ShaderError


def test_shadertoys_channels_used_undeclared_read_black_as_on_shadertoy(tmp_path, caplog):
    """shadertoy.com declares iChannel0..3 itself: a pasted shader that reads one failed
    ("`iChannel0' undeclared"); GLSL ES 3.00's packHalf2x16 was missing, and the old name
    iGlobalTime too. Red: the four channels (black) and iChannelResolution (0) added to
    0.5; green: a half float packed and back (0.25); blue: iGlobalTime is iTime (frame 1 of
    8 fps: 0.125, drawn at its own time with one sample)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    vec2 uv = p / iResolution.xy;\n"
                 "    vec4 t = texture(iChannel0, uv) + texture(iChannel1, uv) +\n"
                 "             texture(iChannel2, uv) + texture(iChannel3, uv);\n"
                 "    float h = unpackHalf2x16(packHalf2x16(vec2(0.25, 0.0))).x;\n"
                 "    c = vec4(0.5 + t.r + t.a + iChannelResolution[0].x, h, iGlobalTime, 1.0);\n"
                 "}\n")
    with caplog.at_level("WARNING"):
        frames, _ = render_frames(path, size=(8, 4), samples=1, duration=2 / 8, fps=8)
    np.testing.assert_array_equal(frames[1], np.broadcast_to([128, 64, 32], (4, 8, 3)))
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag reads iChannel0, iChannel1, iChannel2, iChannel3, iChannelResolution, which "
        "hfrender does not set (a line `// hfrender: iChannel0 = noise.png` in the shader "
        "gives a channel a picture, `= bufA.frag` a buffer; no sound): they stay 0; it sets "
        "iResolution, iTime, iTimeDelta, iFrameRate, iFrame, iMouse, iDate"]


def test_a_cube_map_channel_used_undeclared_is_told_how_to_declare_it(tmp_path):
    """Declared as a 2D texture, a cube map's channel fails to compile: the hint says how
    to declare it (was: the compiler's overload error alone)."""
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, vec3(1.0));\n}\n")
    with pytest.raises(ShaderError, match=r"^.*s\.frag:2: no matching function for call to "
                       r"`texture\(sampler2D, vec3\)'.*; hfrender declares a channel the "
                       r"shader uses undeclared as a 2D texture \(black\): for a cube map or "
                       r"a 3D texture, declare it: uniform samplerCube iChannel0; "
                       r"\(or sampler3D\)$"):
        _one(path)
    cube = _frag(tmp_path, "uniform samplerCube iChannel0;\n" + path.read_text(), "c.frag")
    assert (_one(cube)[..., :3] == 0).all()  # declared so: black, as the hint says


def test_a_channel_shows_the_picture_its_shader_names(tmp_path, caplog):
    """A trial: every channel read black, so a shader of shadertoy.com that samples a
    texture could not be rendered as it looks there. A line ``// hfrender: iChannel0 =
    FILE`` gives a channel a picture, sampled as shadertoy.com samples its textures: its
    bottom row at v = 0, repeated, its size in iChannelResolution; a grey or 16-bit picture
    as its codes. Red and blue: the picture at uv (its top row red, its bottom row blue);
    green: iChannel1's (a grey 16-bit picture of 40000) plus its width / 64."""
    import imageio.v3 as iio

    picture = np.zeros((4, 8, 3), np.uint8)
    picture[0], picture[-1] = (255, 0, 0), (0, 0, 255)
    (tmp_path / "tex").mkdir()
    iio.imwrite(tmp_path / "tex" / "a.png", picture)
    iio.imwrite(tmp_path / "grey.png", np.full((2, 16), 40000, np.uint16))
    path = _frag(tmp_path, "// hfrender: iChannel0 = tex/a.png\n"
                 "//hfrender:iChannel1=\"grey.png\"\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    vec2 uv = vec2(0.5, (floor(p.y) + 0.5) / 4.0);\n"
                 "    vec3 a = texture(iChannel0, uv).rgb;\n"
                 "    float g = texture(iChannel1, vec2(0.3, 0.7)).g;\n"
                 "    c = vec4(a.r, g * 0.5 + iChannelResolution[1].x / 64.0, a.b, 1.0);\n}\n")
    with caplog.at_level("WARNING"):
        frame = _one(path)
    assert caplog.records == []  # nothing said to stay 0
    # rows from the top: the picture's rows 0 (red), 1, 2 and 3 (blue), texel centres
    assert frame[:, 4, 0].tolist() == [255, 0, 0, 0] and frame[:, 4, 2].tolist() == \
        [0, 0, 0, 255]
    grey = round(40000 * 255 / 65535) / 255  # a 16-bit picture's code, 8-bit (155)
    assert (frame[..., 1] == round((grey * 0.5 + 16 / 64) * 255)).all()


def test_a_channels_picture_missing_or_unread_is_said_at_its_line(tmp_path, caplog):
    path = _frag(tmp_path, "void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n"
                 "// hfrender: iChannel2 = none.png\n")
    with pytest.raises(ShaderError, match=rf"^{path}:2: hfrender: iChannel2 = none\.png: "
                                          r"no such file \(a path from the shader's folder\)$"):
        _one(path)
    (tmp_path / "none.png").write_text("not a picture")
    with pytest.raises(ShaderError, match=rf"^{path}:2: hfrender: iChannel2 = none\.png: not "
                                          r"a picture hfrender reads \(PNG, JPEG, WebP, a GIF's "
                                          r"first frame, \.\.\.; not EXR or video; at most 178 "
                                          r"million pixels\)$"):
        _one(path)
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "none.png", np.zeros((2, 2, 3), np.uint8))
    from hfrender.renderer.shader_notes import shader_notes
    from hfrender.scene import ShaderScene

    caplog.clear()
    with caplog.at_level("WARNING"):
        shader_notes(type("C", (), {"msaa": 1})(), ShaderScene(path.read_text(), str(path)))
    assert [r.getMessage() for r in caplog.records] == [
        "s.frag gives iChannel2 a picture, which its code never reads"]


def test_a_channels_picture_reads_as_a_viewer_shows_it(tmp_path):
    """A trial: a 1-bit picture (a font atlas) drew almost black (codes 0 and 1), a CMYK
    JPEG's bytes were taken as colour, a palette's transparency was lost and a phone
    photo's EXIF orientation was not applied."""
    from PIL import Image

    from hfrender.renderer.channel_textures import _picture, _rgba8

    def refused(why):
        return AssertionError(why)

    ink = Image.new("1", (4, 2), 0)
    ink.putpixel((1, 0), 1)
    ink.save(tmp_path / "ink.png")
    got = _rgba8(_picture(tmp_path / "ink.png", refused))
    assert got[0, 1].tolist() == [255, 255, 255, 255] and got[0, 0].tolist() == [0, 0, 0, 255]
    Image.new("CMYK", (2, 2), (0, 26, 222, 0)).save(tmp_path / "cmyk.jpg", quality=100)
    cmyk = _rgba8(_picture(tmp_path / "cmyk.jpg", refused))
    assert np.abs(cmyk[0, 0, :3].astype(int) - [255, 229, 33]).max() <= 3
    palette = Image.new("P", (2, 1), 0)
    palette.putpalette([255, 0, 0, 0, 0, 255])
    palette.putpixel((1, 0), 1)
    palette.save(tmp_path / "p.png", transparency=0)
    assert _rgba8(_picture(tmp_path / "p.png", refused))[0, :, 3].tolist() == [0, 255]
    key = Image.new("RGB", (2, 1), (255, 0, 0))  # a colour key (tRNS) in an RGB picture
    key.putpixel((1, 0), (0, 0, 255))
    key.save(tmp_path / "key.png", transparency=(255, 0, 0))
    assert _rgba8(_picture(tmp_path / "key.png", refused))[0, :, 3].tolist() == [0, 255]
    tall = Image.new("RGB", (3, 1), (9, 9, 9))  # stored 3 wide, shown turned: 1 wide
    exif = Image.Exif()
    exif[0x0112] = 8  # rotated 90 degrees
    tall.save(tmp_path / "phone.jpg", exif=exif)
    assert _picture(tmp_path / "phone.jpg", refused).shape[:2] == (3, 1)


def test_a_picture_for_a_cube_channel_or_past_the_texture_limit_is_refused(tmp_path):
    """A trial: both drew black, exit 0."""
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "a.png", np.zeros((2, 2, 3), np.uint8))
    cube = _frag(tmp_path, "// hfrender: iChannel0 = a.png\nuniform samplerCube iChannel0;\n"
                 "void mainImage(out vec4 c, in vec2 p) {\n"
                 "    c = texture(iChannel0, vec3(p, 1.0));\n}\n")
    with pytest.raises(ShaderError, match=rf"^{cube}:1: hfrender: iChannel0 = a\.png: the shader "
                                          r"declares this channel a cube map or a 3D texture; "
                                          r"a picture fills a 2D channel \(sampler2D\) only$"):
        _one(cube)
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    most = int(ctx.info["GL_MAX_TEXTURE_SIZE"])  # (16384 on llvmpipe; a GPU's may be more)
    ctx.release()
    iio.imwrite(tmp_path / "wide.png", np.zeros((1, most + 1, 3), np.uint8))
    wide = _frag(tmp_path, "// hfrender: iChannel0 = wide.png\n"
                 "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    with pytest.raises(ShaderError, match=rf":1: hfrender: iChannel0 = wide\.png: {most + 1}x1, "
                                          rf"more than this GL's largest texture \({most} a "
                                          r"side\); scale it down$"):
        _one(wide)


def test_a_channels_picture_is_an_asset_a_resume_and_a_batch_see_change(tmp_path):
    """A trial: a changed picture went unnoticed: a batch said the job up to date, and
    --resume went on, one video of two textures. It is one of the scene's files, as its
    models and surface shaders are (their checksums kept with the run, their stamps with a
    batch's record)."""
    import json

    import imageio.v3 as iio

    from hfrender.cli import main
    from hfrender.scene import ShaderScene
    from hfrender.scene.sources import scene_assets

    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 40, np.uint8))
    path = _frag(tmp_path, "// hfrender: iChannel0 = n.png\n"
                 "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    first = scene_assets(ShaderScene(path.read_text(), str(path)))
    assert list(first) == ["n.png"]
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')

    def status():
        assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary",
                     str(tmp_path / "r.json")]) == 0
        return json.loads((tmp_path / "r.json").read_text())[0]["status"]

    assert status() == "done" and status() == "up-to-date"
    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 200, np.uint8))
    assert scene_assets(ShaderScene(path.read_text(), str(path))) != first
    assert status() == "done"  # made again with the new picture


def test_a_batch_checks_a_shaders_pictures_before_any_job_runs(tmp_path, capsys):
    """A trial: a missing picture failed its job only when its turn came."""
    from hfrender.cli import main

    _frag(tmp_path, "// hfrender: iChannel0 = gone.png\n"
          "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(
        f"{tmp_path / 's.frag'}:1: hfrender: iChannel0 = gone.png: no such file (a path from "
        "the shader's folder)\n")
    assert not (tmp_path / "o.mp4").exists()


def test_a_picture_edited_while_its_job_renders_makes_the_job_again(tmp_path, monkeypatch):
    """A review: the stamps were taken after the render, so a picture changed while it ran
    left a stale output up to date; they are taken as the scene is read."""
    import json

    import imageio.v3 as iio

    from hfrender.cli import main
    from hfrender.engine.render import RenderJob

    iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 40, np.uint8))
    _frag(tmp_path, "// hfrender: iChannel0 = n.png\n"
          "void mainImage(out vec4 c, in vec2 p) { c = texture(iChannel0, p); }\n")
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "s"\nscene = "s.frag"\n'
                                        'output = "o.mp4"\nsize = "16x8"\nduration = 0.2\n')
    real = RenderJob.run

    def edited(self):  # the picture changes while the job renders (its texture loaded)
        iio.imwrite(tmp_path / "n.png", np.full((2, 2, 3), 200, np.uint8))
        return real(self)

    def status():
        assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet", "--summary",
                     str(tmp_path / "r.json")]) == 0
        return json.loads((tmp_path / "r.json").read_text())[0]["status"]

    monkeypatch.setattr(RenderJob, "run", edited)
    assert status() == "done"
    monkeypatch.setattr(RenderJob, "run", real)
    assert status() == "done"  # made again: its output held the old picture
