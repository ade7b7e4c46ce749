"""Text (hf.Text): glyphs rasterised with Pillow on a quad, drawn with their coverage as
alpha where the projection puts them; its colour, opacity, motion (velocity plane and
motion blur), font files and bad input."""

import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

import hfrender as hf
from hfrender.errors import InputError, InputTypeError
from hfrender.renderer.renderer import SceneRenderer
from hfrender.scene import text as text_module
from hfrender.scene.in_view import nothing_seen
from hfrender.scene.sources import asset_files
from tests.mesh_helpers import draw, make_scene
from tests.render_helpers import linear as linear_light
from tests.render_helpers import render_frames

W, H = 160, 96
PX_A_METRE = H / 2.0  # an orthographic camera 2 m high
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _shot(*objects):
    return make_scene(*objects, orthographic=True, ortho_height=2.0)


def _ink(image, threshold=128):
    """(top, bottom, left, right) rows and columns, inclusive, reaching ``threshold``."""
    rows = np.flatnonzero((image >= threshold).any(axis=1))
    cols = np.flatnonzero((image >= threshold).any(axis=0))
    return rows[0], rows[-1], cols[0], cols[-1]


def _font_metrics(size=text_module.RASTER_PX):
    face = ImageFont.load_default(size=size)
    ascent, descent = face.getmetrics()
    return -face.getbbox("H", anchor="ls")[1], ascent + descent


def test_a_white_i_lands_where_the_projection_says(gl_context):
    color, _, _ = draw(gl_context(), _shot(hf.Text("I", height=1.0, position=(0.5, 0.25, 0))))
    top, bottom, left, right = _ink(color[..., 1])
    cx, cy = W / 2 + 0.5 * PX_A_METRE, H / 2 - 0.25 * PX_A_METRE  # the anchor, in pixels
    # 1 m of cap height: 48 px, centred on the anchor (the rows from cap top to baseline)
    assert abs(top - (cy - PX_A_METRE / 2)) <= 1 and abs(bottom + 1 - (cy + PX_A_METRE / 2)) <= 1
    # the stem, as wide as Pillow draws it at this size, centred on the anchor
    glyph = Image.new("L", (200, 200))
    ImageDraw.Draw(glyph).text((50, 150), "I", fill=255, anchor="ls",
                               font=ImageFont.load_default(size=text_module.RASTER_PX))
    _, _, l0, r0 = _ink(np.asarray(glyph))
    stem = (r0 + 1 - l0) / _font_metrics()[0] * PX_A_METRE
    assert abs((left + right + 1) / 2 - cx) <= 1 and abs(right + 1 - left - stem) <= 1.5
    assert color[int(cy), int(cx)].tolist() == [255, 255, 255]  # the stroke's middle
    assert color[int(cy), right + 3].tolist() == [0, 0, 0]  # beside it: the background
    outside = np.ones((H, W), bool)
    outside[top - 1:bottom + 2, left - 1:right + 2] = False
    assert color[outside].max() == 0


def test_lines_are_aligned_and_the_block_centred_on_its_position(gl_context):
    block = hf.Text("Hello\nworld", height=0.25, align="left", position=(-0.5, 0.0, 0))
    color, _, _ = draw(gl_context(), _shot(block))
    top, bottom, left, _ = _ink(color[..., 0])
    cap, pitch = _font_metrics()
    tall = 0.25 * (1 + pitch / cap) * PX_A_METRE  # first cap top to last baseline
    assert abs(left - (W / 2 - 0.5 * PX_A_METRE)) <= 1  # "left": the ink's left edge
    assert abs((bottom + 1 - top) - tall) <= 1.5
    assert abs((top + bottom + 1) / 2 - H / 2) <= 1
    right, _, _, _ = _ink(color[..., 0].T[::-1])  # the right edges of the two lines differ
    assert right > 0


@pytest.mark.parametrize("hdr", ["off", "on"])
def test_color_and_opacity_apply_blended_over_the_background(tmp_path, hdr):
    (tmp_path / "flat.glsl").write_text(
        "vec3 shade(vec3 normal, vec3 world, vec3 color) { return color; }\n")
    (tmp_path / "words.py").write_text('''
import hfrender as hf

class Words(hf.Scene):
    duration = 0.2
    background = (0.0, 0.0, 1.0)
    def setup(self):
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0
        self.add(hf.Text("I", height=1.0, position=(-0.5, 0, 0), color=(1.0, 0.0, 0.0),
                         opacity=0.5, shader="flat"))
        self.add(hf.Text("I", height=1.0, position=(0.5, 0, 0), color="lime", shader="flat"))
''')
    frames, _ = render_frames(tmp_path / "words.py", count=1, size=(W, H), samples=2, hdr=hdr)
    half = round((1.055 * 0.5 ** (1 / 2.4) - 0.055) * 255)  # linear 0.5: code 188
    assert frames[0, H // 2, W // 2 - 24].tolist() == [half, 0, half]  # half red over blue
    assert frames[0, H // 2, W // 2 + 24].tolist() == [0, 255, 0]
    assert frames[0, 5, 5].tolist() == [0, 0, 255]
    assert frames[0, H // 2, W // 2].tolist() == [0, 0, 255]  # between them


def test_a_moving_text_writes_its_velocity(gl_context):
    color, _, clips = draw(gl_context(), _shot(hf.Text("I", height=1.0)), velocity=True)
    to_clip = clips[0] @ np.linalg.inv(hf.Text("I", height=1.0).model_matrix())  # proj view
    rate = to_clip @ np.array([[0, 0, 0, 2.0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    _, vel, _ = draw(gl_context(), _shot(hf.Text("I", height=1.0)), velocity=True,
                     clip_rates=[rate])
    # 2 m/s right: 96 px/s right, nothing up or down, in the stroke's middle
    np.testing.assert_allclose(vel[H // 2, W // 2], (2.0 * PX_A_METRE, 0.0), atol=1e-3)
    assert np.abs(vel[color.max(axis=2) == 0]).max() == 0  # the background stays still


def test_a_moving_text_streaks_under_motion_blur(tmp_path):
    (tmp_path / "moving.py").write_text('''
import hfrender as hf

class Moving(hf.Scene):
    duration = 0.2
    background = (0.0, 0.0, 0.0)
    ambient = 1.0
    def setup(self):
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0
        self.word = self.add(hf.Text("I", height=1.0))
    def update(self, t):
        self.word.position = ({speed} * t, 0, 0)
''')
    widths = {}
    for speed in (0.0, 12.0):
        path = tmp_path / f"m{int(speed)}.py"
        path.write_text((tmp_path / "moving.py").read_text().replace("{speed}", str(speed)))
        frames, _ = render_frames(path, count=1, size=(W, H), samples=16, fps=30)
        row = frames[0, H // 2, :, 1].astype(int)
        widths[speed] = (np.count_nonzero(row > 0), np.count_nonzero((row > 20) & (row < 235)))
    # 12 m/s over a 180-degree shutter at 30 fps: 0.2 m, 9.6 px, smeared on both sides
    still, streak = widths[0.0], widths[12.0]
    assert streak[0] - still[0] >= 8 and streak[1] >= 12 and still[1] <= 4


def test_a_font_file_beside_the_scene_is_used_and_is_one_of_its_files(tmp_path):
    if not DEJAVU.is_file():
        pytest.skip("no DejaVu font on this machine")
    shutil.copy(DEJAVU, tmp_path / "mine.ttf")
    (tmp_path / "fonted.py").write_text('''
import hfrender as hf

class Fonted(hf.Scene):
    def setup(self):
        self.add(hf.Text("Hi", font="mine.ttf"))
''')
    from hfrender.scene.loader import load_scene

    scene = load_scene(str(tmp_path / "fonted.py"))
    scene.setup()
    word = scene.objects[0]
    assert word.raster().cap == -ImageFont.truetype(DEJAVU, 128).getbbox("H", anchor="ls")[1]
    assert word.raster().cap != _font_metrics()[0]
    assert (tmp_path / "mine.ttf").resolve() in asset_files(scene)


@pytest.mark.skipif(not DEJAVU.is_file() or not sys.platform.startswith("linux"),
                    reason="DejaVu and Linux's font folders")
def test_a_font_named_bare_is_found_in_the_systems_font_folders(tmp_path, monkeypatch):
    """The glyph warning says DejaVuSans.ttf has Greek: font="DejaVuSans.ttf" finds the
    installed one (was: font file not found, looked beside the scene and in the current
    folder only), as Pillow finds it: XDG_DATA_HOME/fonts, then XDG_DATA_DIRS/fonts."""
    fonts = tmp_path / "share" / "fonts" / "truetype" / "mine"
    fonts.mkdir(parents=True)
    shutil.copy(DEJAVU, fonts / "Installed.ttf")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    (tmp_path / "fonted.py").write_text(
        "import hfrender as hf\n\nclass Fonted(hf.Scene):\n    def setup(self):\n"
        "        self.add(hf.Text('Hi', font='Installed.ttf'))\n")
    from hfrender.scene.loader import load_scene

    scene = load_scene(str(tmp_path / "fonted.py"))
    scene.setup()
    word = scene.objects[0]
    assert word.raster().cap == -ImageFont.truetype(DEJAVU, 128).getbbox("H", anchor="ls")[1]
    assert (fonts / "Installed.ttf").resolve() in asset_files(scene)
    with pytest.raises(InputError) as caught:
        hf.Text("Hi", font="sub/Installed.ttf")  # a path with a folder is not looked for
    assert "font file not found" in str(caught.value)


def test_bad_text_font_and_align_are_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputTypeError) as caught:
        hf.Text(42)
    assert str(caught.value) == ("Text.text=42 must be a str (lines apart by '\\n'): str(...) "
                                 "or f'{...:.2f}' for a number")
    with pytest.raises(InputError) as caught:
        hf.Text("Hi", font="nope.ttf")
    here = Path(__file__).resolve().parent
    assert str(caught.value) == (f"Text.font='nope.ttf': font file not found (looked for "
                                 f"{here / 'nope.ttf'} and {tmp_path.resolve() / 'nope.ttf'}, "
                                 "and by that name in the system's font folders)")
    (tmp_path / "notes.txt").write_text("not a font")
    with pytest.raises(InputError, match=r"^Text.font='notes.txt': .*notes.txt is not a font "
                                         r"Pillow can read \(.*\): give a .ttf or .otf file$"):
        hf.Text("Hi", font="notes.txt")
    with pytest.raises(InputError) as caught:
        hf.Text("Hi", align="middle")
    assert str(caught.value) == "Text.align='middle' must be one of 'left', 'center', 'right'"
    with pytest.raises(InputError, match=r"^Text.height=-1 must be a finite number >= 0$"):
        hf.Text("Hi", height=-1)
    word = hf.Text("Hi")
    with pytest.raises(InputTypeError):
        word.text = 3.5
    assert word.text == "Hi"  # the bad value set nothing


def test_the_scene_checks_know_a_texts_bounds():
    behind = _shot(hf.Text("Far away", position=(0, 0, 10)))
    behind.setup()
    assert nothing_seen(behind, (W, H)) == ["the Text at (0, 0, 10) is behind the camera"]
    tiny = _shot(hf.Text("Hi", height=1e-4))
    tiny.setup()
    said = nothing_seen(tiny, (W, H))
    assert said is not None and "px across (under a pixel)" in said[0]
    assert nothing_seen(_set_up(_shot(hf.Text("Hi", position=(1.0, 0.5, 0)))), (W, H)) is None
    bounds = hf.Text("I", height=1.0).bounds * (1.0 / _font_metrics()[0])
    assert math.isclose(bounds[1, 1] - bounds[0, 1], text_module.raster("I").coverage.shape[0]
                        / _font_metrics()[0])


def _set_up(scene):
    scene.setup()
    return scene


def test_a_text_past_the_gls_largest_texture_is_drawn_from_a_smaller_raster(gl_context):
    """A block of lines (a credits roll) or a long line whose raster is taller or wider
    than the GL's largest texture (16,384 px a side on llvmpipe: some 105 lines) is drawn
    from its raster scaled to fit, where the projection puts it, its ink kept (was: nothing
    drawn, the texture refused by the GL without a word)."""
    glctx = gl_context(size=(W, H))
    most = glctx.ctx.info["GL_MAX_TEXTURE_SIZE"]
    cap, spacing = _font_metrics()
    block = "\n".join(["HHHH"] * (most // spacing + 2))
    coverage = text_module.raster(block).coverage
    assert coverage.shape[0] > most
    w, h = 96, 1024  # an orthographic camera 2 m high: 512 px a metre
    height = 1.6 * cap / coverage.shape[0]  # the quad 1.6 m tall: rows 102.4 to 921.6
    color, _, _ = draw(glctx, _shot(hf.Text(block, height=height)), size=(w, h))
    drawn = linear_light(color[..., 1])
    px = height / cap * h / 2  # picture pixels a raster pixel spans
    ink = coverage.sum(dtype=np.float64) / 255 * px * px
    assert abs(drawn.sum() - ink) < 0.15 * ink, (drawn.sum(), ink)
    rows = np.flatnonzero(drawn.sum(axis=1) > 0.01)
    assert 102 <= rows[0] <= 106 and 918 <= rows[-1] <= 922  # its first line to its last


@pytest.mark.parametrize("near_first", [True, False])
def test_overlapping_texts_depth_is_the_one_drawn_on_top(gl_context, near_first):
    """Where two texts overlap, the depth plane (--dof depth, reconstruction) holds the
    nearer one's, which the colour shows on top, whatever the scene's order (was: the
    scene's last: 6 m, the far text's, under the near red one added first)."""
    near = hf.Text("I", height=1.0, position=(0, 0, 1), color="red")
    far = hf.Text("I", height=1.0, position=(0, 0, -1), color="lime")
    scene = _shot(*((near, far) if near_first else (far, near)))
    scene.setup()
    renderer = SceneRenderer(gl_context(size=(W, H)).ctx, scene, (W, H), True)
    renderer.draw(0.0, 0)
    color, depth = np.empty((H, W, 4), np.uint8), np.empty((H, W), np.float32)
    renderer.read_into(color, depth)
    renderer.release()
    assert color[H // 2, W // 2, :3].tolist() == [255, 0, 0]  # the near one, on top
    assert depth[H // 2, W // 2] == 4.0  # the camera at z = 5: the near text 4 m away


def test_text_is_drawn_in_its_colour_whatever_the_light(gl_context):
    """Text is unlit, as a title is (manim's, a compositor's): white under the scene's
    default light was grey 207 (lit as a plane facing the camera); shader='lambert' lights
    it as a plane still."""

    def middle(**fields):
        class Lit(hf.Scene):  # the default ambient and light
            background = (0.0, 0.0, 0.0)

            def setup(self):
                self.add(hf.Text("I", height=1.0, **fields))
                self.camera.orthographic, self.camera.ortho_height = True, 2.0

        color, _, _ = draw(gl_context(), Lit())
        return color[H // 2, W // 2].tolist()

    assert middle() == [255, 255, 255]
    assert middle(color=(1.0, 0.5, 0.0)) == [255, 128, 0]  # a display colour, as given
    lit = middle(shader="lambert")
    assert lit[0] == lit[1] == lit[2] and 0 < lit[0] < 250


def test_ray_refuses_a_font_outside_the_scenes_folder(tmp_path):
    """--ray sends the scene's folder alone: a font read from elsewhere was not checked (the
    models, pictures and common file were: two lists of the scene's files), and the
    workers would not find it."""
    from hfrender.config import ConfigError
    from hfrender.engine.files_read import files_inside
    from hfrender.scene.loader import load_scene

    if not DEJAVU.is_file():
        pytest.skip("no DejaVu font on this machine")
    (tmp_path / "shot").mkdir()
    shutil.copy(DEJAVU, tmp_path / "mine.ttf")
    (tmp_path / "shot" / "fonted.py").write_text(
        "import hfrender as hf\n\nclass Fonted(hf.Scene):\n    def setup(self):\n"
        f"        self.add(hf.Text('Hi', font={str(tmp_path / 'mine.ttf')!r}))\n")
    scene = load_scene(str(tmp_path / "shot" / "fonted.py"))
    scene.setup()
    with pytest.raises(ConfigError) as info:
        files_inside(scene, tmp_path / "shot")
    assert str(info.value) == (
        f"--ray: the scene loads {tmp_path / 'mine.ttf'}, outside its folder "
        f"{tmp_path / 'shot'} (only that folder, hidden files left out, goes to the workers); "
        "put the font in it, or render without --ray")


def test_a_batch_sees_a_font_that_update_sets_later_change(tmp_path):
    """A Text whose font update(t) sets for t = 0.5 .. 0.75 alone: the batch recorded only
    the font of the state it stamped (t = 0), and an edited second font left the job up to
    date."""
    from render_helpers import batch_status

    mono = DEJAVU.with_name("DejaVuSansMono.ttf")
    if not (DEJAVU.is_file() and mono.is_file()):
        pytest.skip("no DejaVu fonts on this machine")
    shutil.copy(DEJAVU, tmp_path / "one.ttf")
    shutil.copy(DEJAVU, tmp_path / "two.ttf")
    (tmp_path / "fonts.py").write_text(
        "import hfrender as hf\n\nclass Fonts(hf.Scene):\n    duration = 1.0\n"
        "    def setup(self):\n        self.word = self.add(hf.Text('Hi', font='one.ttf'))\n"
        "    def update(self, t):\n"
        "        self.word.font = 'two.ttf' if 0.5 <= t < 0.75 else 'one.ttf'\n")
    (tmp_path / "jobs.toml").write_text(
        '[defaults]\nfps = 4\nsize = "32x16"\nsamples = 1\n\n'
        '[[job]]\nname = "fonts"\nscene = "fonts.py"\noutput = "out.mp4"\n')

    def status():
        return batch_status(tmp_path / "jobs.toml")

    assert status() == "done" and status() == "up-to-date"
    shutil.copy(mono, tmp_path / "two.ttf")  # the font of frame 2 alone
    assert status() == "done"
