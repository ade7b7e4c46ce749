"""Motion reconstruction of rendered scenes: a still scene is bit-identical to plain
sampling, hyperframe boundaries and depth of field change nothing, each sub-frame's
antialiasing shift is where it moved its picture; --samples auto follows the motion."""

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from render_helpers import render_frames

from hfrender.config import ConfigError

SCENE = '''
import hfrender as hf

class Scene(hf.Scene):
    duration = 0.4
    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.5, 0.3)))
        self.post = self.add(hf.Cube(position=(0.2, 0, 1.0), scale=(0.3, 3, 0.3),
                                     color=(0.2, 0.3, 0.9)))
        self.box = self.add(hf.Cube(scale=0.5, color=(0.9, 0.3, 0.1)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
    def update(self, t):
        self.box.position = ({speed} * (t - 0.05), 0.1, 0)
'''


@pytest.fixture
def scenes(tmp_path):
    still, moving = tmp_path / "still.py", tmp_path / "moving.py"
    still.write_text(SCENE.format(speed=0.0))
    moving.write_text(SCENE.format(speed=40.0))
    return still, moving


@pytest.mark.usefixtures("gl_context")
def test_a_still_scene_renders_bit_identical_with_reconstruction(scenes):
    still, _ = scenes
    settings = {"size": (64, 36), "samples": 4, "duration": 0.2}
    plain, _ = render_frames(still, reconstruct="off", **settings)
    rec, stats = render_frames(still, reconstruct="on", **settings)
    assert stats.reconstruct and np.array_equal(plain, rec)
    _, stats = render_frames(still, backend="cpu", **settings)
    assert not stats.reconstruct  # auto: on where the fusion runs on CUDA only


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_is_the_same_across_hyperframe_boundaries(scenes):
    _, moving = scenes
    settings = {"size": (64, 36), "samples": 4, "reconstruct": "on", "duration": 0.3}
    whole, _ = render_frames(moving, granularity=36, **settings)
    cut, stats = render_frames(moving, granularity=4, **settings)
    assert stats.granularity == 4 and np.array_equal(whole, cut)
    wide, _ = render_frames(moving, shutter=540.0, granularity=7, **settings)
    wide_whole, _ = render_frames(moving, shutter=540.0, granularity=41, **settings)
    assert np.array_equal(wide, wide_whole)  # overlapping windows, halo carried


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_blurs_more_smoothly_than_the_same_sub_frames(scenes):
    """Against 64 plain sub-frames, reconstruction from 4 is closer than plain 4."""
    _, moving = scenes
    settings = {"size": (64, 36), "duration": 0.1, "antialias": False}
    ref, _ = render_frames(moving, samples=64, reconstruct="off", **settings)
    plain, _ = render_frames(moving, samples=4, reconstruct="off", **settings)
    rec, _ = render_frames(moving, samples=4, reconstruct="on", **settings)
    blurred = np.abs(ref.astype(int) - plain.astype(int)).max(-1) > 0
    assert blurred.mean() > 0.05  # the box moves: a real part of the picture differs

    def err(a):
        return np.abs(a.astype(float) - ref.astype(float))[blurred].mean()

    assert err(rec) < 0.6 * err(plain)


SHIFT_SCENES = {
    "perspective": "import hfrender as hf\n\nclass S(hf.Scene):\n"
                   "    background = (0, 0, 0)\n    def setup(self):\n"
                   "        self.add(hf.Cube(position=(0.12, 0.08, 0), scale=(1, 1, 0.1),\n"
                   "                         color=(1, 1, 1), emissive=1.0))\n"
                   "        self.camera.position = (0, 0, 5)\n{ortho}",
    "shader": "void mainImage(out vec4 c, in vec2 p) {\n"
              "    vec2 q = abs(p - vec2(31.3, 17.2));\n"
              "    c = vec4(vec3(q.x < 6.0 && q.y < 5.0 ? 1.0 : 0.0), 1.0);\n}\n"}


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("kind", ["perspective", "orthographic", "shader"])
def test_a_sub_frames_shift_is_where_its_antialiasing_offset_moved_its_picture(
        tmp_path, monkeypatch, kind):
    """What reconstruction warps from: each sub-frame's shift in its hyperframe is how far
    its antialiasing offset moved its picture, in its pixels (x, y down). A perspective
    camera and a shader move it against the offset, an orthographic camera with it."""
    from hfrender.engine import draw, render_fusion

    ortho = "        self.camera.orthographic = True\n" if kind == "orthographic" else ""
    path = tmp_path / ("s.frag" if kind == "shader" else "s.py")
    path.write_text(SHIFT_SCENES["shader" if kind == "shader" else "perspective"].replace(
        "{ortho}", ortho))
    seen, real = [], render_fusion.RenderFusion.fuse
    monkeypatch.setattr(render_fusion.RenderFusion, "fuse", lambda self, hyper, *a, **k: (
        seen.append(np.array(hyper.shifts[hyper.halo:])), real(self, hyper, *a, **k))[1])
    centres = []
    for offset in [(0.0, 0.0), (3.0, 0.0), (0.0, 2.0)]:  # whole pixels: a sharp edge moves
        monkeypatch.setattr(draw.SubframeDrawer, "_pixel_offset",
                            lambda self, plan, j, index, offset=offset: offset)
        out, _ = render_frames(path, size=(64, 36), samples=1, count=1, duration=0.1)
        bright = out[0, ..., 0].astype(float)
        ys, xs = np.mgrid[: bright.shape[0], : bright.shape[1]]
        centres.append(((bright * xs).sum() / bright.sum(), (bright * ys).sum() / bright.sum()))
    sign = 1 if kind == "orthographic" else -1
    assert [tuple(s[0]) for s in seen] == [(0, 0), (3 * sign, 0), (0, -2 * sign)]
    for shift, centre in zip(seen[1:], centres[1:], strict=True):
        moved = np.subtract(centre, centres[0])
        np.testing.assert_allclose(moved, shift[0], atol=1e-9)


def with_lens(scene, path, f_stop):
    """``scene`` copied to ``path`` with a lens: ``f_stop``, focused at 4 m."""
    path.write_text(scene.read_text().replace(
        "self.camera.look_at((0, 0, 0))",
        f"self.camera.look_at((0, 0, 0))\n        self.camera.f_stop = {f_stop}\n"
        "        self.camera.focus_distance = 4.0"))
    return path


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_with_depth_of_field_from_depth(scenes, tmp_path):
    focused = with_lens(scenes[1], tmp_path / "focused.py", f_stop=1.4)
    settings = {"size": (64, 36), "samples": 4, "duration": 0.2, "dof": "depth"}
    rec, stats = render_frames(focused, reconstruct="on", **settings)
    plain, _ = render_frames(focused, reconstruct="off", **settings)
    assert stats.reconstruct and stats.dof == "depth"
    assert rec.shape == plain.shape and not np.array_equal(rec, plain)
    assert np.abs(rec.astype(int) - plain.astype(int)).mean() < 6  # the same picture
    exact, _ = render_frames(focused, reconstruct="off", dof_method="exact", **settings)
    assert np.abs(exact.astype(int) - plain.astype(int)).mean() < 1  # fast is near exact


def test_cli_says_sub_frames_drawn_and_refuses_a_bad_mode(tmp_path):
    shader = textwrap.dedent("""
        void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / iResolution.x, 0.5, 0.2, 1.0); }
    """)
    (tmp_path / "s.frag").write_text(shader)
    run = [sys.executable, "-m", "hfrender", "render", str(tmp_path / "s.frag"), "--size",
           "32x16", "--duration", "0.2", "--samples", "3", "-o", str(tmp_path / "o.mp4")]
    done = subprocess.run(run + ["--stats", "--reconstruct", "on"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sub-frames drawn: 18" in done.stdout
    assert "fragment shader" in done.stderr and "plain sub-frames" in done.stderr
    bad = subprocess.run(run + ["--reconstruct", "maybe"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert bad.returncode == 2 and "invalid choice: 'maybe'" in bad.stderr


def test_samples_auto_follows_the_motion():
    from hfrender.engine.adaptive import needed

    assert needed(0.0, 0.0, True, (4, 64)) == 4  # still: the minimum
    assert needed(37.0, 0.0, True, (4, 64)) == 7  # ceil(37 / 6 px)
    assert needed(37.0, 0.0, False, (4, 64)) == 37  # without reconstruction: 1 px gaps
    assert needed(900.0, 0.0, True, (4, 64)) == 64  # capped
    assert needed(0.0, 30.0, True, (4, 64)) == 57  # a 30 px lens blur: ceil((30/4)^2)


@pytest.mark.usefixtures("gl_context")
def test_samples_auto_draws_few_sub_frames_where_nothing_moves(scenes, tmp_path, caplog):
    still, moving = scenes
    settings = {"size": (64, 36), "duration": 0.1, "samples": "auto", "samples_range": (2, 24)}
    with caplog.at_level("WARNING"):
        _, stats = render_frames(still, **settings)
    assert stats.subframes == 3 * 2 and caplog.records == []  # the minimum, nothing capped
    with caplog.at_level("WARNING"):  # a cap of 3 is too few for the motion: said, once
        _, stats = render_frames(moving, **{**settings, "samples_range": (2, 3)})
    said = [r.getMessage() for r in caplog.records]
    assert stats.subframes == 3 * 3 and len(said) == 1, said
    m = re.fullmatch(r"(\d) frames? wanted more sub-frames than --samples-range allows \(3\), "
                     r"frame (\d) the most: about (\d+), for its motion, so they may show "
                     r"steps; raise the cap \(--samples-range 2:\3\)(, or --reconstruct on)?",
                     said[0])
    assert m and 1 <= int(m.group(1)) <= 3 and int(m.group(3)) > 3, said  # the most, once
    frames, stats = render_frames(moving, **settings)
    assert 3 * 2 < stats.subframes < 3 * 24 and frames.shape == (3, 36, 64, 3)
    with pytest.raises(ConfigError, match="^--samples auto with --shutter 540: an adaptive count "):
        render_frames(moving, **settings, shutter=540.0)
    with pytest.raises(ConfigError, match=r"samples_range=\(8, 4\) must be MIN:MAX"):
        render_frames(moving, **{**settings, "samples_range": (8, 4)})


CROSSING = SCENE.replace("duration = 0.4", "duration = 0.1").replace(
    "{speed} * (t - 0.05), 0.1, 0", "400 * (t - (1 / 30 - 1 / 120)), 0.1, 0")


@pytest.mark.usefixtures("gl_context")
def test_samples_auto_sees_an_object_on_screen_only_while_the_shutter_opens(tmp_path):
    """At 30 fps and 180 degrees, frame 1's shutter opens with the box in the middle of
    the picture, and it leaves it long before the shutter is half open: a probe at the
    middle alone sees only still pixels and draws the fewest sub-frames (one faint box)."""
    scene = tmp_path / "crossing.py"
    scene.write_text(CROSSING)
    settings = {"size": (64, 36), "samples": "auto", "samples_range": (2, 24)}
    frames, stats = render_frames(scene, **settings)
    assert stats.subframes == 2 + 24 + 2  # frame 1 at the most; 0 and 2 see nothing move
    fixed, _ = render_frames(scene, **{**settings, "samples": 24})
    assert np.abs(frames[1].astype(int) - fixed[1]).mean() < 1.0  # as many as a fixed 24


@pytest.mark.usefixtures("gl_context")
def test_reconstruction_with_lens_depth_of_field(scenes, tmp_path):
    """Each sub-frame keeps its own lens position; the motion of its view is warped."""
    lens = with_lens(scenes[1], tmp_path / "lens.py", f_stop=2.0)
    settings = {"size": (64, 36), "samples": 4, "duration": 0.1, "dof": "lens"}
    rec, stats = render_frames(lens, reconstruct="on", **settings)
    plain, _ = render_frames(lens, reconstruct="off", **settings)
    assert stats.reconstruct and stats.dof == "lens"
    diff = np.abs(rec.astype(int) - plain.astype(int))
    assert diff.max() > 10 and diff.mean() < 6  # the streak filled in; the same picture
