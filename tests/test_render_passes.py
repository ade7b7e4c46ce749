"""``hfrender render --passes depth,velocity``: a Z channel (metres, inf for sky) and Nuke's
forward.u / forward.v (pixels a frame, v up) in each EXR frame, worked by hand from the
camera; ``fx --depth`` reads the render's own frames; what is refused, in one line."""

import functools

import numpy as np
import pytest

import hfrender as hf
from hfrender.cli import main
from hfrender.config import ConfigError

OpenEXR = pytest.importorskip("OpenEXR")
from hfrender.io.exr_files import read_exr  # noqa: E402

W, H = 96, 54
# a 50 mm lens on a 36 mm sensor across 96 px: a focal length of 96 * 50 / 36 px; a card
# 4 m away moving 3.6 m/s right and 1.8 m/s up: 3.6 * (96 * 50 / 36) / 4 = 120 px/s right,
# 60 px/s up; at 30 fps 4 and 2 px a frame
SLIDE = """
import hfrender as hf

class Slide(hf.Scene):
    duration = 0.1
    def setup(self):
        self.card = self.add(hf.Plane(scale=1.0, color=(0.8, 0.8, 0.8)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
    def update(self, t):
        self.card.position = (3.6 * t - 0.2, 1.8 * t - 0.1, -4.0)
"""
# a card 1.5 m away (in focus later) before one 6 m away, still; no f-stop: drawn sharp
CARDS = """
import hfrender as hf

class Cards(hf.Scene):
    duration = 2 / 30
    def setup(self):
        self.add(hf.Plane(position=(-0.2, 0, -1.5), scale=0.5, color=(0.9, 0.2, 0.1)))
        self.add(hf.Plane(position=(1.0, 0.2, -6.0), scale=2.0, color=(0.1, 0.6, 0.9)))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
"""


def channels(path):
    with OpenEXR.File(str(path), separate_channels=True) as f:
        return {k: np.array(v.pixels) for k, v in f.channels().items()}


def scene(tmp_path, text, name="s.py"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_passes_of_a_sliding_card_are_its_distance_and_its_speed(tmp_path):
    hf.render(scene(tmp_path, SLIDE), str(tmp_path / "f" / "%04d.exr"), size=(W, H),
              samples=8, passes="depth,velocity")
    centres = []
    for k in range(3):
        got = channels(tmp_path / "f" / f"{k:04d}.exr")
        assert sorted(got) == ["B", "G", "R", "Z", "forward.u", "forward.v"]
        z, u, v = got["Z"], got["forward.u"], got["forward.v"]
        assert z.dtype == u.dtype == v.dtype == np.float32 and z.shape == (H, W)
        card = np.isfinite(z)
        assert 30 * 30 < card.sum() < 36 * 36  # 1 m at 4 m: 33.3 px square
        np.testing.assert_allclose(z[card], 4.0, rtol=2e-7)  # metres, float32 exact
        assert np.isposinf(z[~card]).all()  # sky
        np.testing.assert_allclose(u[card], 4.0, rtol=2e-7)  # pixels a frame, right
        np.testing.assert_allclose(v[card], 2.0, rtol=2e-7)  # up, as Nuke's v
        assert not u[~card].any() and not v[~card].any()
        ys, xs = np.nonzero(card)
        centres.append((xs.mean(), ys.mean()))
    # the card's middle moves 4 px right and 2 px up (rows count down) a frame
    np.testing.assert_allclose(np.diff(centres, axis=0), [[4.0, -2.0]] * 2, atol=0.3)


def test_passes_leave_the_colour_as_it_was_and_reconstruct_nothing(tmp_path):
    """The velocity drawn for the pass alone is no --reconstruct: the colour is the same
    render's, bit for bit."""
    path = scene(tmp_path, SLIDE)
    plain = hf.render(path, str(tmp_path / "a" / "%04d.exr"), size=(W, H), samples=4)
    both = hf.render(path, str(tmp_path / "b" / "%04d.exr"), size=(W, H), samples=4,
                     passes=["velocity", "depth"])
    assert not plain.reconstruct and not both.reconstruct
    for k in range(3):
        a, b = (read_exr(tmp_path / d / f"{k:04d}.exr") for d in "ab")
        np.testing.assert_array_equal(a, b)
    assert sorted(channels(tmp_path / "a" / "0000.exr")) == ["B", "G", "R"]


def test_fx_depth_reads_the_renders_own_depth_and_blurs_what_is_out_of_focus(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scene(tmp_path, CARDS, "cards.py")
    assert main(["render", "cards.py", "-o", "shot/%04d.exr", "--size", f"{W}x{H}",
                 "--samples", "2", "--passes", "depth", "--quiet"]) == 0
    assert main(["fx", "shot/%04d.exr", "--depth", "shot/%04d.exr", "--focus-distance",
                 "1.5", "--f-stop", "1.4", "-o", "out/%04d.exr", "--quiet"]) == 0
    src, z = read_exr("shot/0000.exr"), channels("shot/0000.exr")["Z"]
    got = read_exr("out/0000.exr")
    want = hf.depth_of_field(src[None].astype(np.float32), z, focus_distance=1.5,
                             f_stop=1.4)[0]
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)  # (halves written)
    near, far = np.isclose(z, 1.5, rtol=1e-6), np.isclose(z, 6.0, rtol=1e-6)
    assert near.sum() > 100 and far.sum() > 100
    inner = near & np.roll(near, 2, 0) & np.roll(near, -2, 0) & np.roll(near, 2, 1) & \
        np.roll(near, -2, 1)
    np.testing.assert_array_equal(got[inner], src[inner])  # the focused card: sharp
    edge = far & ~(np.roll(far, 2, 1) & np.roll(far, -2, 1) & np.roll(far, 2, 0) &
                   np.roll(far, -2, 0))
    assert np.abs(got[edge] - src[edge]).max() > 0.05  # the far card's edges: spread


@pytest.mark.parametrize(("output", "said"), [
    ("out.mp4", "out.mp4 is a video"),
    ("f/%04d.png", "f/%04d.png is a PNG sequence"),
])
def test_passes_into_anything_but_an_exr_sequence_are_refused_in_one_line(
        tmp_path, monkeypatch, capsys, output, said):
    monkeypatch.chdir(tmp_path)
    scene(tmp_path, SLIDE)
    assert main(["render", "s.py", "-o", output, "--passes", "depth"]) != 0
    err = capsys.readouterr().err.strip()
    assert err == (f"hfrender: error: --passes depth: {said}, which takes no passes: "
                   "they are channels of an EXR sequence's frames (-o frames/%04d.exr)")
    assert not (tmp_path / "out.mp4").exists() and not (tmp_path / "f").exists()


def test_passes_into_a_video_on_ray_are_refused_before_ray_starts(tmp_path, monkeypatch,
                                                                  capsys):
    # was: refused by a worker once the cluster had started (7 s)
    from hfrender.engine import cluster

    def started(*_):
        raise AssertionError("Ray was started")

    monkeypatch.setattr(cluster, "connect", started)
    monkeypatch.chdir(tmp_path)
    scene(tmp_path, SLIDE)
    assert main(["render", "s.py", "-o", "out.mp4", "--passes", "depth", "--ray"]) == 2
    assert capsys.readouterr().err.strip() == (
        "hfrender: error: --passes depth: out.mp4 is a video, which takes no passes: they are "
        "channels of an EXR sequence's frames (-o frames/%04d.exr)")


def test_a_pass_of_no_such_name_and_a_shader_are_refused_in_one_line(tmp_path):
    path = scene(tmp_path, SLIDE)
    with pytest.raises(ConfigError) as exc:
        hf.render(path, str(tmp_path / "f" / "%04d.exr"), passes="depth,normal")
    assert str(exc.value) == ("passes='depth,normal': 'normal' is no pass; choose from "
                              "depth, velocity (depth,velocity for both)")
    frag = tmp_path / "s.frag"
    frag.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    with pytest.raises(ConfigError) as exc:
        hf.render(frag, str(tmp_path / "g" / "%04d.exr"), passes=("depth",), size=(16, 16))
    assert str(exc.value) == ("passes='depth': s.frag is a fragment shader, which draws no "
                              "depth or velocity; render without passes='depth'")
    assert not (tmp_path / "f").exists() and not (tmp_path / "g").exists()


def test_a_projects_passes_are_left_out_of_a_video_and_written_into_exr(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scene(tmp_path, SLIDE)
    (tmp_path / "hfrender.toml").write_text('[render]\npasses = ["depth"]\nsize = "32x18"\n')
    assert main(["render", "s.py", "-o", "clip.mp4", "--quiet"]) == 0
    assert (tmp_path / "clip.mp4").stat().st_size > 0
    assert main(["render", "s.py", "-o", "f/%04d.exr", "--quiet"]) == 0
    assert sorted(channels(tmp_path / "f" / "0000.exr")) == ["B", "G", "R", "Z"]


def test_a_jobs_files_passes_are_written_and_a_wrong_type_is_one_line(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    scene(tmp_path, SLIDE)
    job = '[[job]]\nname = "card"\nscene = "s.py"\noutput = "f/%04d.exr"\nsize = "32x18"\n'
    (tmp_path / "jobs.toml").write_text(job + 'passes = "depth,velocity"\n')
    assert main(["batch", "jobs.toml", "--quiet"]) == 0
    assert sorted(channels(tmp_path / "f" / "0002.exr")) == [
        "B", "G", "R", "Z", "forward.u", "forward.v"]
    capsys.readouterr()
    (tmp_path / "jobs.toml").write_text(job + "passes = 3\n")
    assert main(["batch", "jobs.toml", "--quiet"]) != 0
    assert capsys.readouterr().err.strip() == (
        "hfrender: error: jobs.toml: job 'card': passes = 3 must be a string or a list")


@pytest.mark.parametrize(("samples", "shutter", "msaa"), [
    (4, 180, 1), (4, 540, 1), (4, 720, 1), ("auto", 180, 1), (4, 180, 4), (4, 540, 4)])
def test_passes_draw_and_read_back_the_planes_of_the_kept_sub_frame_alone(
        tmp_path, monkeypatch, samples, shutter, msaa):
    """A plain render with --passes draws velocity and reads the planes back for each
    frame's kept sub-frame only (was: every sub-frame's, 1.5x a plain render's time), and
    the GL draws the planes for it alone, the others their colour alone (was: both planes
    in every sub-frame); the files are those of a render that draws and reads every
    sub-frame's, bit for bit; planned a frame at a time (a chunk of one: above 360 degrees
    the next chunk's windows reach back)."""
    from hfrender.engine import render_prepare
    from hfrender.engine.draw import SubframeDrawer
    from hfrender.plan_stream import PlanStream
    from hfrender.renderer.renderer import SceneRenderer

    monkeypatch.setattr(render_prepare, "PlanStream", functools.partial(PlanStream, chunk=1))

    path, seen = scene(tmp_path, SLIDE), []
    draw, read = SceneRenderer.draw, SceneRenderer.read_into

    def drawn(self, *args, **kw):  # (--samples auto's probe: its own renderer, by keyword)
        seen.append((self, "rates", len(args) > 4 or "clip_rates" in kw))
        seen.append((self, "planes", kw.get("planes", True)))
        return draw(self, *args, **kw)

    def read_into(self, color, depth=None, velocity=None):
        seen.append((self, "read", depth is not None, velocity is not None))
        return read(self, color, depth, velocity)

    monkeypatch.setattr(SceneRenderer, "draw", drawn)
    monkeypatch.setattr(SceneRenderer, "read_into", read_into)
    how = dict(size=(W, H), samples=samples, shutter=shutter, msaa=msaa,
               passes="depth,velocity")
    hf.render(path, str(tmp_path / "a" / "%04d.exr"), **how)
    drawer = seen[-1][0]  # the render's renderer (the probe's draws first)
    assert drawer.target.msaa == msaa
    mine = [s[1:] for s in seen if s[0] is drawer]
    reads = [s for s in mine if s[0] == "read"]
    assert len(reads) > 6 and sorted(set(reads)) == [("read", False, False),
                                                     ("read", True, True)]
    assert reads.count(("read", True, True)) == 3  # one a frame
    assert mine.count(("rates", True)) == 3
    assert mine.count(("planes", True)) == 3  # the GL's draws of the planes: one a frame
    assert mine.count(("planes", False)) == len(reads) - 3
    monkeypatch.setattr(SubframeDrawer, "_reads", lambda *_: (True, True))  # as before
    hf.render(path, str(tmp_path / "b" / "%04d.exr"), **how)
    for k in range(3):
        a, b = (channels(tmp_path / d / f"{k:04d}.exr") for d in "ab")
        assert sorted(a) == ["B", "G", "R", "Z", "forward.u", "forward.v"]
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
