"""More of the render loop: contexts, camera, surface shaders, slots, progress, scenes."""

import re
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import render_frames
from test_render import BAR, write_scene

from hfrender.color import srgb_to_linear
from hfrender.config import RenderConfig
from hfrender.engine.render import render
from hfrender.io.writers import MemoryWriter
from hfrender.renderer import contexts
from hfrender.scene.loader import SceneUpdateError

pytestmark = pytest.mark.usefixtures("gl_context")  # glGetError after each test

SCENES = Path(__file__).resolve().parents[1] / "scenes"


def test_gl_context_by_flag_then_environment(monkeypatch):
    monkeypatch.setenv("HFRENDER_GL", "glfw")
    assert contexts.resolve_name(None) == "glfw" and contexts.resolve_name("egl") == "egl"
    monkeypatch.delenv("HFRENDER_GL")
    assert contexts.resolve_name(None) == "egl"
    monkeypatch.setenv("HFRENDER_GL", "wgl")
    with pytest.raises(ValueError, match=r"HFRENDER_GL='wgl' is not an OpenGL context; "
                                         r"choose one of egl, glfw"):
        contexts.resolve_name(None)


CARD = """
class Card(hf.Scene):
    duration = 0.1
    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        self.add(hf.Plane(position=(0, 0, -{z}), scale=0.5, color=(1, 1, 1){extra}))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.orthographic = {ortho}
        self.camera.ortho_height = 2.0
"""


def card_width(tmp_path, z, ortho, extra=""):
    path = write_scene(tmp_path, CARD.format(z=z, ortho=ortho, extra=extra), f"c{z}{ortho}.py")
    frames, _ = render_frames(path, count=1, size=(200, 100), samples=1, antialias=False,
                              msaa=4)
    # the white card's width in pixels: its coverage summed in linear light (MSAA edges)
    return float(srgb_to_linear(frames[0, 50, :, 0] / 255.0).sum()), frames[0]


def test_perspective_shrinks_with_distance_orthographic_does_not(tmp_path):
    # 0.5 m card: perspective 50 mm / 36 mm sensor -> 0.5 / (z * 0.72) of the width
    assert card_width(tmp_path, 2.0, False)[0] == pytest.approx(200 * 0.5 / (2 * 0.72),
                                                                abs=0.3)
    assert card_width(tmp_path, 4.0, False)[0] == pytest.approx(200 * 0.5 / (4 * 0.72),
                                                                abs=0.3)
    # orthographic: 2 m seen vertically, 4 m across at 2:1 -> 25 px wherever it is
    assert card_width(tmp_path, 2.0, True)[0] == pytest.approx(25, abs=0.3)
    assert card_width(tmp_path, 6.0, True)[0] == pytest.approx(25, abs=0.3)


def test_sub_frames_are_read_straight_into_pool_slots(tmp_path, monkeypatch):
    from hfrender.renderer import target as rmod

    seen = []
    original = rmod.Target.read_into

    def spy(self, color, depth, velocity=None):
        seen.append((color.ctypes.data, color.base is not None, color.flags.writeable))
        original(self, color, depth, velocity)

    monkeypatch.setattr(rmod.Target, "read_into", spy)
    frames, stats = render_frames(BAR, size=(32, 8), samples=4, duration=0.4, granularity=8)
    addresses = {a for a, _, _ in seen}
    assert len(seen) == stats.subframes == 48
    assert all(view and writable for _, view, writable in seen)  # views, not new arrays
    # 8 sub-frames per hyperframe, 3 slots: at most 3 * 8 distinct places ever written
    assert len(addresses) <= 24 and stats.granularity == 8
    assert len(frames) == 12


def test_progress_reports_every_frame_in_order():
    """Told first as the drawing starts (0 of 9: a bar from the start, its rate measured
    from there; was: from the first frame written, a trial), then every frame in order."""
    calls = []
    sink = MemoryWriter()

    def told(done, total):
        calls.append((done, total, len(sink.frames)))

    render(BAR, RenderConfig(size=(32, 8), samples=2, duration=0.3, quiet=True),
           progress=told, writer=sink)
    assert calls == [(0, 9, 0)] + [(k, 9, k) for k in range(1, 10)]


def test_a_progress_line_measures_its_rate_from_the_start(capsys):
    """A log's line: 8 frames 4 s after the start (told at 0), the first of them written
    3 s in: 2.0 fps (was: a rate from the first frame written, 8 frames in 1 s, 8.0 fps),
    and no time left yet: 1 s from the first frame is less than the 3 s it took."""
    from hfrender.progress import progress_lines

    now = [100.0]
    update = progress_lines("rendering", clock=lambda: now[0], every=0.5,
                            stamp=lambda: "12:00:00")
    update(0, 12)
    now[0] = 103.0
    update(1, 12)
    now[0] = 104.0
    update(8, 12)
    assert capsys.readouterr().err.splitlines()[-1] == (
        "rendering: 8/12 frames (66%), 2.0 fps (now 12:00:00)")


def test_an_error_mid_render_keeps_a_playable_partial_file(tmp_path):
    path = write_scene(tmp_path, """
    class Late(hf.Scene):
        duration = 2.0
        def setup(self):
            self.add(hf.Cube())
        def update(self, t):
            if t > 1.0:
                raise ValueError("late failure")
    """)
    out = tmp_path / "late.mp4"
    with pytest.raises(SceneUpdateError, match="late failure"):
        render(str(path), RenderConfig(output=str(out), size=(64, 36), samples=2))
    assert not out.exists()
    reader = imageio_ffmpeg.read_frames(str(tmp_path / "late.partial.mp4"))
    next(reader)
    assert sum(1 for _ in reader) == 30  # every frame completed before t = 1 s


def test_codec_passes_through_to_ffmpeg(tmp_path):
    from hfrender.cli import main

    out = tmp_path / "m.mkv"
    assert main(["render", str(BAR), "-o", str(out), "--codec", "mpeg4", "--size", "64x16",
                 "--duration", "0.2", "--samples", "2", "--quiet"]) == 0
    log = __import__("subprocess").run([imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(out)],
                                       capture_output=True, text=True).stderr
    assert re.search(r"Video: mpeg4", log)


def test_scene_state_errors_name_time_and_frame(tmp_path):
    path = write_scene(tmp_path, """
    class Pull(hf.Scene):
        duration = 1.0
        def setup(self):
            self.add(hf.Cube(position=(0, 0, -3)))
            self.camera.f_stop = 2.0
        def update(self, t):
            self.camera.focus_distance = 2.0 - 3 * t  # reaches the focal length
    """)
    with pytest.raises(SceneUpdateError, match=r"scene error in the camera at t=0\.6625 s "
                                               r"\(output frame 20\): \w*Error: "
                                               r"camera\.focus_distance=0\.0125 must be .* or "
                                               r"inf \(\S*scene\.py:11\)$"):
        render_frames(path, size=(32, 18), samples=2)


def test_degenerate_states_still_render(tmp_path):
    path = write_scene(tmp_path, """
    class Odd(hf.Scene):
        duration = 0.2
        def setup(self):
            self.box = self.add(hf.Cube(color=(1, 0, 0)))
            self.add(hf.Plane(position=(0, -1, 0), rotation=(-math.pi / 2, 0, 0), scale=5))
            self.camera.position = (0, 6, 0)  # straight down
            self.camera.look_at((0, 0, 0))
        def update(self, t):
            self.box.scale = (1.0, max(0.0, 1 - 10 * t), 1.0)  # flattened to zero
    """)
    frames, stats = render_frames(path, size=(64, 36), samples=2)
    assert stats.frames_written == 6
    red = (frames[..., 0] > 150) & (frames[..., 1] < 80)
    assert red[0].sum() > 20 and red[-1].sum() > 20  # seen from above, even when flat


def test_scene_imports_a_module_beside_it(tmp_path):
    (tmp_path / "palette.py").write_text("ORANGE = (1.0, 0.5, 0.0)\n")
    path = write_scene(tmp_path, """
    from palette import ORANGE

    class UsesPalette(hf.Scene):
        duration = 0.1
        def setup(self):
            self.add(hf.Cube(color=ORANGE, position=(0, 0, -3)))
    """, name="uses_palette.py")
    frames, _ = render_frames(path, size=(32, 18), samples=1)
    assert frames[0, 9, 16].tolist()[0] > frames[0, 9, 16].tolist()[2]


def test_orthographic_lighting_is_the_same_across_the_frame(tmp_path):
    path = write_scene(tmp_path, """
    class Tiles(hf.Scene):
        duration = 0.1
        def setup(self):
            for x in (-3, 0, 3):
                self.add(hf.Plane(position=(x, 0, 0), rotation=(0, 0.3, 0), scale=1.5))
            self.camera.position = (0, 0, 0.5)
            self.camera.look_at((0, 0, -1))
            self.camera.orthographic = True
            self.camera.ortho_height = 4.0
    """)
    frames, _ = render_frames(path, size=(200, 50), samples=1, antialias=False)
    # 16 m across 200 px: x = -3, 0, 3 m at columns 62.5, 100, 137.5
    centres = [frames[0, 25, x].tolist() for x in (62, 100, 138)]
    assert centres[1] != frames[0, 25, 5].tolist()  # a tile, not the background
    assert centres[0] == centres[1] == centres[2]


def test_a_base_scene_class_does_not_count_as_a_scene(tmp_path):
    path = write_scene(tmp_path, """
    class Base(hf.Scene):
        duration = 0.1
    class Real(Base):
        def setup(self):
            self.add(hf.Cube())
    """)
    from hfrender.scene.loader import load_scene

    assert type(load_scene(path)).__name__ == "Real"
    # named, it is one (was: "no Scene named 'Base'; found Real")
    assert type(load_scene(path, "Base")).__name__ == "Base"
    from hfrender.scene.loader import SceneError  # a misspelt name lists both (was "found
    with pytest.raises(SceneError, match=r"no Scene named 'Other'; found Base, Real$"):
        load_scene(path, "Other")  # Real" alone, though -s Base renders)


@pytest.mark.parametrize("settings", [
    {"samples": 8, "shutter": 720},  # halo frames carried with copy_buffer
    {"samples": 4, "dof": "depth", "scene": "focus"},  # depth planes in the GL buffers too
    {"samples": 8, "shutter": 720, "hdr": "on"},  # float colour (--hdr), halos too
])
def test_gl_buffer_slots_give_the_same_frames(monkeypatch, settings):
    """The interop path's slot logic (GL buffers, offsets, halo copies, publish/reclaim) on
    Mesa: a host mapper stands in for CUDA's map, everything else is the real path."""
    from hfrender.engine import render_prepare
    from hfrender.renderer.gl_slots import GLBufferStorage, HostMapper

    settings = dict(settings)
    scene = SCENES / "focus_pull.py" if settings.pop("scene", None) else BAR
    common = dict(first_frame=1, count=3, size=(96, 36), granularity="auto", **settings)
    plain, stats_plain = render_frames(scene, **common)
    monkeypatch.setattr(render_prepare, "gl_storage",
                        lambda config, glctx, backend: GLBufferStorage(glctx.ctx, HostMapper()))
    via_gl, stats_gl = render_frames(scene, **common)
    assert stats_gl.interop and not stats_plain.interop
    np.testing.assert_array_equal(via_gl, plain)
    assert (plain.max(axis=(1, 2, 3)) > 50).all()  # every frame has a picture


def test_interop_on_without_cuda_is_refused(capsys):
    from hfrender.cli import main

    assert main(["render", str(BAR), "--interop", "on", "-o", "x.mp4"]) == 2
    assert "--interop on: the fusion backend is cpu; GL-CUDA interop needs the cuda " \
           "backend" in capsys.readouterr().err


def test_a_chunk_renders_the_same_frames_as_the_whole_render(tmp_path):
    """What makes --resume exact: frames k.. of a run that starts at k equal the whole
    run's, with overlapping windows, jitter and anti-aliasing too (odd start, 720 deg)."""
    scene = SCENES / "showcase.py"
    common = dict(size=(64, 36), samples=4, shutter=720, jitter=True, seed=5)
    whole, _ = render_frames(scene, first_frame=0, count=8, **common)
    part, _ = render_frames(scene, first_frame=5, count=3, **common)
    np.testing.assert_array_equal(part, whole[5:])


def test_a_bug_in_fusion_is_reported_as_a_bug_with_its_traceback(tmp_path, capsys,
                                                                   monkeypatch):
    from hfrender.cli import main
    from hfrender.engine import render_fusion

    def broken(*args, **kwargs):
        raise RuntimeError("kernel bug")

    monkeypatch.setattr(render_fusion, "fuse", broken)
    code = main(["render", str(BAR), "-o", str(tmp_path / "f.mp4"), "--size", "32x8",
                 "--duration", "0.5", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" in err and "RuntimeError: kernel bug" in err
    assert "in broken" in err  # the worker thread's frames are in the traceback
    assert "bug" in err.strip().splitlines()[-1]
    assert not (tmp_path / "f.mp4").exists()


def test_output_folder_names_with_quotes_join(tmp_path):
    from hfrender.cli import main

    out = tmp_path / "it's here" / "q.mp4"
    out.parent.mkdir()
    assert main(["render", str(BAR), "-o", str(out), "--size", "32x8", "--duration", "0.2",
                 "--samples", "1", "--quiet"]) == 0
    reader = imageio_ffmpeg.read_frames(str(out))
    next(reader)
    assert sum(1 for _ in reader) == 6


def test_model_matrix_follows_the_object_and_a_callers_change_stays_its_own():
    import hfrender as hf

    cube = hf.Cube(position=(1.0, 2.0, 3.0), scale=(1.0, 2.0, 0.5))
    first = cube.model_matrix()
    assert first[:3, 3].tolist() == [1.0, 2.0, 3.0]
    assert np.diag(first)[:3].tolist() == [1.0, 2.0, 0.5]
    first[:3, 1] *= 10.0  # as a subclass scaling super().model_matrix() would
    again = cube.model_matrix()
    assert again is not first and np.diag(again)[:3].tolist() == [1.0, 2.0, 0.5]
    cube.position = (0.0, 0.0, -1.0)
    cube.rotation = (0.0, 0.0, np.pi / 2)
    moved = cube.model_matrix()
    assert moved[:3, 3].tolist() == [0.0, 0.0, -1.0]
    np.testing.assert_allclose(moved[:2, :2], [[0.0, -2.0], [1.0, 0.0]], atol=1e-12)
    ball = hf.Sphere(radius=2.0, scale=(1.0, 2.0, 3.0))
    assert np.diag(ball.model_matrix())[:3].tolist() == [2.0, 4.0, 6.0]
    ball.radius = 0.5
    assert np.diag(ball.model_matrix())[:3].tolist() == [0.5, 1.0, 1.5]


PILLAR = """
class Pillar(hf.Cube):
    height: float = 3.0

    def model_matrix(self):
        m = super().model_matrix()
        m[:3, 1] *= self.height  # taller, in place
        return m


class Tall(hf.Scene):
    duration = 0.1
    background = (0, 0, 0)
    ambient = 1.0

    def setup(self):
        self.add(Pillar(position=(0, 0, -{z}), scale=0.5, color=(1, 1, 1)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.orthographic = True
        self.camera.ortho_height = 2.0
"""


def test_a_subclass_may_change_its_model_matrix_in_place(tmp_path):
    path = write_scene(tmp_path, PILLAR.format(z=2.0), "pillar.py")
    frames, _ = render_frames(path, count=2, size=(200, 100), samples=1, antialias=False,
                              msaa=4)
    for frame in frames:  # 0.5 m wide, 1.5 m tall: 25 x 75 px (the height clipped at 100)
        assert float(srgb_to_linear(frame[50, :, 0] / 255.0).sum()) == pytest.approx(25, abs=0.3)
        assert float(srgb_to_linear(frame[:, 100, 0] / 255.0).sum()) == pytest.approx(75, abs=0.3)
