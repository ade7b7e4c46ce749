"""Sample stores (--keep-samples) and re-exposure: another shutter, another focus, later."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from render_helpers import linear, render_frames

import hfrender as hf
from hfrender.config import RenderConfig
from hfrender.engine.render import render
from hfrender.errors import InputError
from hfrender.io.store import StoreError, partial_dir
from hfrender.io.writers import MemoryWriter

SCENE = '''
import math
import hfrender as hf

class Spin(hf.Scene):
    duration = 0.3
    def setup(self):
        self.add(hf.Plane(position=(0, 0, -1), scale=8, color=(0.3, 0.5, 0.3)))
        self.bar = self.add(hf.Cube(scale=(1.4, 0.2, 0.2), color=(0.9, 0.3, 0.1)))
        self.ball = self.add(hf.Sphere(radius=0.3, color=(0.2, 0.4, 0.9)))
        self.camera.position = (0, 0, 4)
        self.camera.look_at((0, 0, 0))
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 4.0
    def update(self, t):
        self.bar.rotation = (0, 0, 2 * math.pi * 3 * t)
        self.ball.position = (-1.5 + 9 * t, 0.6, 0.5)
'''
SIZE = (64, 36)


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "spin.py"
    path.write_text(SCENE)
    return path


def _keep(scene, store, **settings):
    settings = {"size": SIZE, "dof": "off", **settings}
    frames, stats = render_frames(scene, keep_samples=str(store), **settings)
    return frames, stats


@pytest.mark.usefixtures("gl_context")
def test_a_narrower_shutter_equals_a_fresh_render(scene, tmp_path):
    store = tmp_path / "store"
    # (without antialiasing: a window's sub-pixel offsets are centred on the pixel, and
    # the first 8 of 16 are not the 8 of a fresh render's window)
    _, stats = _keep(scene, store, samples=16, shutter=360.0, shutter_position="start",
                     antialias=False)
    assert stats.store_bytes > 0 and (store / "store.json").is_file()
    kept = hf.SampleStore.open(store)
    half = kept.expose(shutter=180)  # the first 8 of each frame's 16 sub-frames
    fresh, _ = render_frames(scene, size=SIZE, dof="off", samples=8, shutter=180.0,
                             shutter_position="start", antialias=False)
    assert half.shape == fresh.shape == (9, 36, 64, 3)
    assert np.abs(half.astype(int) - fresh.astype(int)).max() <= 1
    whole, _ = render_frames(scene, size=SIZE, dof="off", samples=16, shutter=360.0,
                             shutter_position="start", antialias=False)
    assert np.array_equal(kept.expose(), whole)  # the store's own exposure
    assert not np.array_equal(half, whole)  # the shutter did change


@pytest.mark.usefixtures("gl_context")
def test_the_store_is_plain_numpy(scene, tmp_path):
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    meta = json.loads((store / "store.json").read_text())
    assert meta["format"] == "hfrender-sample-store" and meta["version"] == 1
    assert meta["subframes"] == 9 * 4 and meta["planes"] == ["color", "depth"]
    chunk = np.load(store / meta["chunks"][0]["file"])
    n = meta["chunks"][0]["count"]
    assert chunk["color"].shape == (n, 36, 64, 4) and chunk["color"].dtype == np.uint8
    assert chunk["depth"].shape == (n, 36, 64) and np.isfinite(chunk["depth"]).any()
    aperture = chunk["aperture"]  # where on the lens each sub-frame was drawn from
    assert aperture.shape == (n, 2) and np.hypot(*aperture.T).max() <= 1.0
    assert len(np.unique(aperture[:4], axis=0)) == 4  # a window's 4 points differ
    times = np.load(store / "times.npy")
    assert len(times) == 36 and np.all(np.diff(times) > 0)
    np.testing.assert_array_equal(chunk["times"], times[:n])


@pytest.mark.usefixtures("gl_context")
def test_refocus_a_store_with_depth_equals_a_depth_render(scene, tmp_path):
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    kept = hf.SampleStore.open(store)
    same = kept.expose(focus_distance=4.0, f_stop=1.4)  # the camera's own lens
    depth, _ = render_frames(scene, size=SIZE, dof="depth", samples=4)
    assert np.abs(same.astype(int) - depth.astype(int)).max() <= 1
    near = kept.expose(focus_distance=0.6, f_stop=1.4)
    assert np.abs(near.astype(int) - same.astype(int)).mean() > 0.5  # another focus
    far = kept.expose(focus_distance=np.inf, f_stop=0.2)  # at infinity (as fx and the
    # library take it): the limit of a focus ever farther (the thin lens's formula there)
    assert np.abs(far.astype(int) - kept.expose(focus_distance=1e6, f_stop=0.2)).max() <= 1
    assert np.abs(far.astype(int) - kept.expose(focus_distance=4.0, f_stop=0.2)).mean() > 0.5


def test_a_store_refocuses_with_the_cameras_aperture_blades(tmp_path):
    near_focus = SCENE.replace("focus_distance = 4.0", "focus_distance = 1.5")
    path, round_path = tmp_path / "bladed.py", tmp_path / "round.py"
    path.write_text(near_focus.replace("        self.camera.focus_distance = 1.5\n",
                                       "        self.camera.focus_distance = 1.5\n"
                                       "        self.camera.aperture_blades = 5\n"))
    round_path.write_text(near_focus)
    store, size = tmp_path / "store", (160, 90)
    _keep(path, store, samples=4, size=size)
    kept = hf.SampleStore.open(store)
    assert kept.settings["lens"]["aperture_blades"] == 5
    depth, _ = render_frames(path, size=size, dof="depth", samples=4)
    same = kept.expose(focus_distance=1.5, f_stop=1.4)  # the camera's own lens
    assert np.abs(same.astype(int) - depth.astype(int)).max() <= 1
    round_, _ = render_frames(round_path, size=size, dof="depth", samples=4)
    assert np.abs(round_.astype(int) - depth.astype(int)).max() > 8  # the pentagons show


@pytest.mark.usefixtures("gl_context")
def test_a_focus_pull_kept_in_depth_mode_keeps_each_sub_frames_focus(tmp_path):
    path = tmp_path / "pull.py"  # the focus moves from 0.8 m to 4 m (the objects) in 0.3 s
    path.write_text(SCENE.replace("    def update(self, t):\n",
                                  "    def update(self, t):\n"
                                  "        self.camera.focus_distance = 0.8 + 12 * t\n"))
    store = tmp_path / "store"
    rendered, _ = _keep(path, store, samples=4, dof="depth", size=(160, 90))
    assert np.abs(rendered[0].astype(int) - rendered[-1].astype(int)).mean() > 2  # it pulls
    kept = hf.SampleStore.open(store)
    again = kept.expose()  # each sub-frame with the focus it was drawn with
    assert np.abs(again.astype(int) - rendered.astype(int)).max() <= 1
    held = kept.expose(focus_distance=0.8)  # a new focus: held for every sub-frame
    began = np.abs(held[0].astype(int) - rendered[0].astype(int)).mean()
    ended = np.abs(held[-1].astype(int) - rendered[-1].astype(int)).mean()
    assert began < 0.5 and ended > 5 * began  # near where the pull began, far at its end


@pytest.mark.usefixtures("gl_context")
def test_a_focus_pull_kept_without_depth_of_field_keeps_it_under_a_new_f_stop(tmp_path):
    """A --dof off store, refocused with --f-stop alone: the focus stayed at frame 0's for
    every frame (a pull lost: 31 dB by its end). The scene's focus at each sub-frame is now
    kept, and a new f-stop alone is the depth render of the pull at that f-stop."""
    path = tmp_path / "pull.py"
    path.write_text(SCENE.replace("    def update(self, t):\n",
                                  "    def update(self, t):\n"
                                  "        self.camera.focus_distance = 0.8 + 12 * t\n"))
    stopped = tmp_path / "f2.py"  # the same pull through f/2
    stopped.write_text(path.read_text().replace("f_stop = 1.4", "f_stop = 2.0"))
    store = tmp_path / "store"
    _keep(path, store, samples=4, dof="off", size=(160, 90))
    kept = hf.SampleStore.open(store)
    chunk = np.load(store / kept.chunks[0]["file"])
    np.testing.assert_allclose(chunk["focus_m"], 0.8 + 12 * chunk["times"], rtol=1e-12)
    assert (chunk["f_stop"] == 1.4).all()
    depths = {}
    for f_stop, scene_file in ((1.4, path), (2.0, stopped)):
        depths[f_stop], _ = render_frames(scene_file, size=(160, 90), dof="depth", samples=4)
        again = kept.expose(f_stop=f_stop)
        assert np.abs(again.astype(int) - depths[f_stop].astype(int)).max() <= 1, f_stop
    assert np.abs(depths[1.4].astype(int) - depths[2.0].astype(int)).max() > 8  # it shows
    held = kept.expose(focus_distance=0.8, f_stop=1.4)  # a focus given: held, as before
    began = np.abs(held[0].astype(int) - depths[1.4][0].astype(int)).mean()
    ended = np.abs(held[-1].astype(int) - depths[1.4][-1].astype(int)).mean()
    assert began < 0.5 and ended > 5 * began
    assert np.array_equal(kept.expose(f_stop=np.float32(2.0)), kept.expose(f_stop=2.0))  # a
    # NumPy number, as a library caller gives one (the options' check refused it)
    pinhole = tmp_path / "later.py"  # a camera that drops its f-stop after t = 0.1
    pinhole.write_text(path.read_text().replace(
        "    def update(self, t):\n", "    def update(self, t):\n"
        "        self.camera.f_stop = 1.4 if t < 0.1 else None\n"))
    later = tmp_path / "later.samples"
    _keep(pinhole, later, samples=4, dof="off", size=(160, 90))
    refocused = hf.SampleStore.open(later).expose(focus_distance=4.0)  # it was TypeError:
    assert refocused.shape == (9, 90, 160, 3)  # float(None), "a bug in hfrender"


@pytest.mark.usefixtures("gl_context")
def test_a_depth_store_whose_camera_drops_its_f_stop_exposes_as_it_rendered(tmp_path):
    """A --dof depth render draws a sub-frame whose camera has no f-stop sharp, and its
    store exposes as it rendered; a --dof off store of it, refocused, blurred those
    sub-frames with the first frame's f-stop: not the depth render at that focus."""
    path = tmp_path / "pin.py"
    path.write_text(SCENE.replace("focus_distance = 4.0", "focus_distance = 1.0").replace(
        "    def update(self, t):\n", "    def update(self, t):\n"
        "        self.camera.f_stop = 1.0 if t < 0.1 else None\n"))
    store = tmp_path / "store"
    rendered, _ = _keep(path, store, samples=4, dof="depth", size=(160, 90))
    sharp, _ = render_frames(path, size=(160, 90), dof="off", samples=4)
    assert np.abs(rendered[-1].astype(int) - sharp[-1].astype(int)).max() <= 1  # a pinhole
    assert np.abs(rendered[0].astype(int) - sharp[0].astype(int)).max() > 20  # blurred
    again = hf.SampleStore.open(store).expose()
    assert np.abs(again.astype(int) - rendered.astype(int)).max() <= 1
    off = tmp_path / "off.samples"
    _keep(path, off, samples=4, dof="off", size=(160, 90))
    refocused = hf.SampleStore.open(off).expose(focus_distance=1.0)
    assert np.abs(refocused.astype(int) - rendered.astype(int)).max() <= 1
    tail = tmp_path / "tail.samples"  # its first frame a pinhole: the store kept no lens
    _keep(path, tail, samples=4, dof="depth", size=(160, 90), frames=(5, 9))
    kept = hf.SampleStore.open(tail)
    assert kept.settings["lens"] == {"max_coc_px": None, "aperture_blades": 0}
    assert np.abs(kept.expose().astype(int) - rendered[5:9].astype(int)).max() <= 1  # (was:
    # "the store's camera has no f-stop: give both --focus-distance and --f-stop")


@pytest.mark.usefixtures("gl_context")
def test_a_store_with_velocity_reconstructs_over_the_new_shutter(scene, tmp_path):
    store = tmp_path / "store"
    _keep(scene, store, samples=16, shutter=360.0, shutter_position="start",
          reconstruct="on", antialias=False)
    kept = hf.SampleStore.open(store)
    assert kept.planes == ["color", "depth", "velocity"]
    half = kept.expose(shutter=180)
    fresh, _ = render_frames(scene, size=SIZE, dof="off", samples=8, shutter=180.0,
                             shutter_position="start", reconstruct="on", antialias=False)
    assert np.abs(half.astype(int) - fresh.astype(int)).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_clear_errors(scene, tmp_path, capsys):
    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    kept = hf.SampleStore.open(store)
    with pytest.raises(hf.InputError, match=r"^shutter=270: the store holds sub-frames over "
                                            r"180 degrees only"):
        kept.expose(shutter=270)
    for bad in (0, -90.0, math.inf, math.nan):  # the store's bound (was render's "<= 5760")
        with pytest.raises(hf.InputError, match=rf"^shutter={bad!r} must be a finite number > 0 "
                                                r"and at most the 180 the store holds$"):
            kept.expose(shutter=bad)
    for bad, allowed in (({"f_stop": 0}, "a finite number > 0"), ({"f_stop": np.inf},
                         "a finite number > 0"), ({"focus_distance": -1.0}, "a distance > 0 in "
                         "metres, or inf"), ({"focus_distance": np.nan}, "a distance > 0 in "
                         "metres, or inf")):  # named as this call's keywords (a library
        name, value = next(iter(bad.items()))  # user was told the command's options)
        with pytest.raises(hf.InputError, match=rf"^{name}={value!r} must be {allowed}$"):
            kept.expose(**bad)
    for bad, said in (({"curve": "tri"}, "curve='tri' must be one of box, triangle, "
                       "gaussian"), ({"position": "middle"}, "position='middle' must be one of"),
                      ({"workers": 0}, "workers=0 must be an integer >= 1")):  # (0: NumPy's
        with pytest.raises(hf.InputError, match="^" + re.escape(said)):  # "need at least one
            kept.expose(**bad)  # array to stack", -1: a pool's internal names)
    with pytest.raises(hf.InputTypeError, match=r"^workers='2' must be an integer >= 1$"):
        kept.expose(workers="2")
    for bad in (True, "90"):  # (True passed as 1 degree; "90" was no TypeError)
        with pytest.raises(hf.InputTypeError, match=rf"^shutter={bad!r} must be a finite "
                                                    r"number > 0 and at most the 180 the "
                                                    r"store holds$"):
            kept.expose(shutter=bad)
    with pytest.raises(hf.InputError, match=r"^output frame 0: no kept sub-frame inside its "
                       r"shutter \(from -0\.0005 to 0\.0005 s\); the kept sub-frames around "
                       r"it lie 45 degrees apart \(-0\.0021 and 0\.0021 s\): a shutter of 45 "
                       r"degrees or more holds one \(or keep more --samples\)$"):  # (no figure)
        kept.expose(shutter=10)  # centred between the middle two (+-22.5 degrees)
    assert len(kept.expose(shutter=45)) == len(kept.expose())
    from hfrender.cli import main  # the command names its options

    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4"), "--shutter", "270"]) == 2
    assert "error: --shutter 270: the store holds sub-frames over 180" in capsys.readouterr().err
    lens_store = tmp_path / "lens"
    _keep(scene, lens_store, samples=4, dof="lens")
    with pytest.raises(hf.InputError, match=r"drawn through the lens \(--dof lens\)"):
        hf.SampleStore.open(lens_store).expose(focus_distance=2.0)
    # nor is its depth kept: its sub-frames are defocused already (it was half the bytes)
    assert hf.SampleStore.open(lens_store).planes == ["color"]
    assert sum(f.stat().st_size for f in lens_store.glob("*.npz")) < \
        0.8 * sum(f.stat().st_size for f in store.glob("*.npz"))
    _keep(scene, tmp_path / "lens_recon", samples=4, dof="lens", reconstruct="on")
    assert hf.SampleStore.open(tmp_path / "lens_recon").planes == ["color", "depth", "velocity"]
    meta = json.loads((store / "store.json").read_text())
    chunk = store / meta["chunks"][-1]["file"]
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"c00000\d\.npz: damaged \(its SHA-256 differs"):
        hf.SampleStore.open(store).expose()
    chunk.unlink()  # one chunk gone: said before any frame is written (was: midway)
    with pytest.raises(StoreError, match=rf"^{store}: {chunk.name} of its "
                       rf"{len(meta['chunks'])} chunks missing; render it again with "
                       r"--keep-samples$"):
        hf.SampleStore.open(store)
    meta["version"] = 99
    (store / "store.json").write_text(json.dumps(meta))
    with pytest.raises(StoreError, match="sample store version 99; this hfrender reads "
                                         "versions 1 and 2$"):
        hf.SampleStore.open(store)
    for where, why in (("gone", "no such folder"), ("", r"not a sample store \(no store.json\)")):
        with pytest.raises(StoreError, match=rf"^{tmp_path / where}: {why}; make one with "
                                             r"hfrender render \.\.\. --keep-samples DIR$"):
            hf.SampleStore.open(tmp_path / where)  # (it said "not a sample store" for both)
    (tmp_path / "busy.partial").mkdir()
    with pytest.raises(StoreError, match="still being written"):
        hf.SampleStore.open(tmp_path / "busy")
    with pytest.raises(StoreError, match=rf"^{tmp_path / 'gone.partial'}: no such folder; "):
        hf.SampleStore.open(tmp_path / "gone.partial")  # (was: "still being written")
    with pytest.raises(StoreError, match=r"^--keep-samples .*/my\.partial: a name ending "
                       r"\.partial is a store's while it is written; give another \(e\.g\. "
                       r".*/my\.samples\)$"):  # (was: kept, then refused by reexpose)
        _keep(scene, tmp_path / "my.partial", samples=4)
    assert not (tmp_path / "my.partial").exists()
    from hfrender.engine.render import RenderJob

    with pytest.raises(hf.InputError, match="--keep-samples with --resume"):
        RenderJob(scene, RenderConfig(output=str(tmp_path / "r.mp4"), resume=True,
                                      keep_samples=str(tmp_path / "k")))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="the folder is not empty and holds no sample store"):
        _keep(scene, tmp_path / "full", samples=4)
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine"


@pytest.mark.usefixtures("gl_context")
def test_an_interrupted_render_leaves_the_old_store_whole(scene, tmp_path, monkeypatch):
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    before = (store / "store.json").read_text()
    import hfrender.engine.draw as draw

    real, calls = draw.SubframeDrawer.draw, {"n": 0}

    def stop(self, *args):
        calls["n"] += 1
        if calls["n"] == 20:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(draw.SubframeDrawer, "draw", stop)
    config = RenderConfig(output="memory.mp4", size=SIZE, samples=8, dof="off", quiet=True,
                          keep_samples=str(store))
    with pytest.raises(KeyboardInterrupt):
        render(str(scene), config, writer=MemoryWriter())
    assert (store / "store.json").read_text() == before  # the old store is untouched
    assert partial_dir(store).is_dir()  # what was kept of the new one waits there


def test_cli_keeps_and_reexposes(scene, tmp_path):
    store, out = tmp_path / "stores" / "s", tmp_path / "r" / "%02d.png"  # stores/ is made
    run = [sys.executable, "-m", "hfrender"]
    done = subprocess.run(run + ["render", str(scene), "-o", str(tmp_path / "a.mp4"),
                                 "--size", "64x36", "--samples", "8", "--shutter", "360",
                                 "--keep-samples", str(store), "--max-coc-px", "6"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # the cap is kept for refocusing, not refused
    assert f"kept 72 sub-frames in {store}:" in done.stdout
    assert done.stdout.rstrip().endswith(f"hfrender reexpose {store} -o OUTPUT --shutter "
                                         "DEG")  # drawn through the lens: no new focus
    assert json.loads((store / "store.json").read_text())["settings"]["lens"]["max_coc_px"] == 6
    done = subprocess.run(run + ["reexpose", str(store), "-o", str(out), "--shutter", "90"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "9 frames from 18 of the 72 kept sub-frames, shutter 90 " \
        "degrees; " in done.stdout  # 90 of 360 degrees (it said "from 72"), and what changed
    assert len(list((tmp_path / "r").glob("*.png"))) == 9
    small = subprocess.run(run + ["reexpose", str(store), "-o", str(tmp_path / "q.mp4"),
                                  "--crf", "40", "--quiet"], capture_output=True, text=True)
    assert small.returncode == 0, small.stderr
    bad = subprocess.run(run + ["reexpose", str(store), "-o", str(out), "--shutter", "400"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "at most that" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    video = tmp_path / "v" / "bad.mp4"
    video.parent.mkdir()
    bad = subprocess.run(run + ["reexpose", str(store), "-o", str(video), "--shutter", "400"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and list(video.parent.iterdir()) == []  # no work folder left
    odd = subprocess.run(run + ["reexpose", str(store), "-o", str(tmp_path / "out.xyz")],
                         capture_output=True, text=True)  # named as given, not its temp name
    assert odd.returncode == 2 and odd.stderr.startswith(
        f"hfrender: error: -o {tmp_path / 'out.xyz'}: unknown output type '.xyz'; ")


@pytest.mark.usefixtures("gl_context")
def test_a_transparent_store_exposes_with_its_alpha(scene, tmp_path):
    clear = tmp_path / "clear.py"
    clear.write_text(SCENE.replace("self.add(hf.Plane(position=(0, 0, -1), scale=8, "
                                   "color=(0.3, 0.5, 0.3)))", "pass"))
    store = tmp_path / "store"
    _keep(clear, store, samples=16, shutter=360.0, shutter_position="start", transparent=True,
          antialias=False)
    half = hf.SampleStore.open(store).expose(shutter=180)
    fresh, _ = render_frames(clear, size=SIZE, dof="off", samples=8, shutter=180.0,
                             shutter_position="start", transparent=True, antialias=False)
    assert half.shape == fresh.shape == (9, 36, 64, 4)
    assert half[..., 3].min() == 0 and half[..., 3].max() == 255  # alpha kept, straight
    assert np.abs(half.astype(int) - fresh.astype(int)).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_samples_auto_keeps_only_the_sub_frames_it_drew(scene, tmp_path):
    store = tmp_path / "store"
    _, stats = _keep(scene, store, samples="auto", samples_range=(2, 12), dof="depth")
    kept = hf.SampleStore.open(store)
    assert kept.subframes == stats.subframes < 9 * 12  # the undrawn slots are not kept
    assert np.all(np.diff(kept.times) > 0)
    again = kept.expose()
    fresh, _ = render_frames(scene, size=SIZE, samples="auto", samples_range=(2, 12),
                             dof="depth")
    assert np.abs(again.astype(int) - fresh.astype(int)).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_a_store_never_touches_folders_that_are_not_its_own(scene, tmp_path):
    store = tmp_path / "st"
    foreign = tmp_path / "st.partial"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    with pytest.raises(StoreError, match=r"st\.partial is there and is not an interrupted "
                                         "sample store"):
        _keep(scene, store, samples=2)
    assert (foreign / "mine.txt").read_text() == "keep me"
    (foreign / "mine.txt").unlink()
    foreign.rmdir()
    foreign.write_text("a file")
    with pytest.raises(StoreError, match="is not an interrupted sample store"):
        _keep(scene, store, samples=2)
    foreign.unlink()
    _keep(scene, store, samples=2)
    (tmp_path / "st.old").mkdir()
    (tmp_path / "st.old" / "a.txt").write_text("also mine")
    _keep(scene, store, samples=2)  # replaces the older store
    assert (tmp_path / "st.old" / "a.txt").read_text() == "also mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spin.py", "st", "st.old"]
    with pytest.raises(StoreError, match="would be inside the store"):
        render(str(scene), RenderConfig(output=str(tmp_path / "shot" / "%03d.png"),
                                        size=SIZE, samples=2, quiet=True,
                                        keep_samples=str(tmp_path / "shot")))
    assert not (tmp_path / "shot").exists() and not partial_dir(tmp_path / "shot").exists()


def test_ray_refuses_what_it_does_not_write_yet_and_tells_a_task_s_cause(tmp_path):
    from hfrender.cli.common import first_line as _first_line
    from hfrender.engine.cluster import ClusterRender

    clear = tmp_path / "clear.py"
    clear.write_text(SCENE.replace("self.add(hf.Plane(position=(0, 0, -1), scale=8, "
                                   "color=(0.3, 0.5, 0.3)))", "self.background = None"))
    job = ClusterRender(clear, RenderConfig(output=str(tmp_path / "a.mov"), size=SIZE))
    with pytest.raises(hf.InputError, match=r"--ray: --transparent \(or background = None\) "
                                            "is rendered locally only"):
        job.prepare()
    exr = str(tmp_path / "f" / "%04d.exr")  # float frames (was: every chunk's internal error)
    with pytest.raises(hf.InputError, match=rf"^--ray: -o {re.escape(exr)} \(OpenEXR frames\) "
                                            r"is rendered locally only for now; render "
                                            r"without --ray$"):
        opaque = tmp_path / "opaque.py"
        opaque.write_text(SCENE)
        ClusterRender(opaque, RenderConfig(output=exr, size=SIZE)).prepare()

    class RayTaskError(Exception):  # what Ray raises in the driver for a task's error
        cause = StoreError("the real reason")

    assert _first_line(RayTaskError("ray::_render_chunk() (pid=1, ip=...)")) == \
        "the real reason"


@pytest.mark.usefixtures("gl_context")
def test_nothing_of_the_users_is_kept_in_a_store_to_be_deleted_with_it(scene, tmp_path, capsys):
    """An output written inside a store, or any file a user put there, would go when the
    store is replaced by the next --keep-samples: both are refused, the file stays."""
    from hfrender.cli import main

    store = tmp_path / "s"
    args = ["render", str(scene), "-o", str(tmp_path / "a.mp4"), "--size", "32x18",
            "--samples", "2", "--quiet", "--keep-samples", str(store)]
    assert main(args) == 0
    assert main(["reexpose", str(store), "-o", str(store / "x.mp4"), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: -o {store / 'x.mp4'} is inside the "
                                       f"sample store {store}; write it beside the store (a new "
                                       "--keep-samples there would delete it)\n")
    (store / "notes.txt").write_text("mine")
    assert main(args) == 2
    assert capsys.readouterr().err == (f"hfrender: error: --keep-samples {store}: the store "
                                       "holds notes.txt, which replacing the store would "
                                       "delete; move it out, or give another folder\n")
    assert (store / "notes.txt").read_text() == "mine"
    (store / "notes.txt").unlink()
    assert main(args) == 0  # a store alone is replaced, as before
    # EXR: linear light (an 8-bit store's codes decoded before the blend), as 8-bit's
    assert main(["reexpose", str(store), "-o", str(tmp_path / "e" / "%04d.exr"),
                 "--quiet"]) == 0
    from hfrender.io.images import read_exr

    exr = np.stack([read_exr(f) for f in sorted((tmp_path / "e").glob("*.exr"))])
    codes = hf.SampleStore.open(store).expose(workers=1)
    assert exr.dtype == np.float16 and exr.shape == codes.shape
    assert np.abs(exr.astype(np.float64) - linear(codes)).max() < 0.01
    assert exr.max() <= 1.0 and exr.max() > 0.5


@pytest.mark.usefixtures("gl_context")
def test_a_shader_stores_refocus_is_refused_without_advice_it_cannot_follow(tmp_path):
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0); }\n")
    store = tmp_path / "store"
    render_frames(shader, keep_samples=str(store), size=SIZE, samples=2, duration=0.1)
    with pytest.raises(hf.InputError) as info:
        hf.SampleStore.open(store).expose(focus_distance=2.0)
    assert str(info.value) == ("focus_distance/f_stop: this store's sub-frames have no "
                               "depth (a shader scene draws none): only its shutter can change")


def test_a_store_path_through_a_file_is_one_line(tmp_path):
    from hfrender.io.store import StoreError, check_target

    (tmp_path / "afile").write_text("")
    with pytest.raises(StoreError, match=r"afile is a file, not a folder$"):
        check_target(tmp_path / "afile" / "sub" / "s")


@pytest.mark.usefixtures("gl_context")
def test_a_lens_store_exposed_otherwise_is_said_to_weigh_its_lens_unevenly(scene, tmp_path,
                                                                          caplog):
    """A --dof lens store exposed at 180 degrees took the first 8 of its 16 lens points,
    not evenly spread (out-of-focus objects 2.2 px off: 31.8 dB where a fresh 8-sample
    render has 39), without a word."""
    store = tmp_path / "store"
    _keep(scene, store, samples=16, dof="lens", shutter=360.0, shutter_position="start")
    kept = hf.SampleStore.open(store)
    points = np.load(store / kept.chunks[0]["file"])["aperture"]
    assert np.hypot(*points[:8].mean(axis=0)) > 0.05  # the first half: lopsided
    with caplog.at_level("WARNING"):
        kept.expose()  # as drawn: no word
        assert caplog.records == []
        for change in ({"shutter": 180}, {"curve": "triangle"}, {"position": "center"}):
            caplog.clear()
            try:
                kept.expose(**change)
            except hf.InputError:
                pass  # a position the store cannot give: refused after the warning
            assert [r.getMessage() for r in caplog.records] == [
                "this store was drawn through the lens (dof='lens'): each sub-frame holds one "
                "point of the aperture, so another shutter weighs them unevenly and "
                "out-of-focus parts shift (a pixel or two); to re-expose freely, render with "
                "dof='depth' (or 'off') and keep_samples"], change  # (hf.render's keywords)
    with pytest.raises(hf.InputError, match=r"^shutter=360\.0001: the store holds "):
        kept.expose(shutter=360.0001)  # it said "--shutter 360", the limit itself


@pytest.mark.usefixtures("gl_context")
def test_a_store_that_cannot_be_written_is_one_line(scene, tmp_path, monkeypatch, capsys):
    """A full disk under the sample store ended in "internal error ... this is a bug in
    hfrender" and a traceback; it is one line naming where what was kept stays."""
    from hfrender.cli import main
    from hfrender.io import store as io_store

    real = io_store.StoreWriter.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        (self.tmp / "c000001.npz").mkdir()  # the second chunk cannot be written there

    monkeypatch.setattr(io_store.StoreWriter, "__init__", init)
    store, out = tmp_path / "s.samples", tmp_path / "o.mp4"
    assert main(["render", str(scene), "-o", str(out), "--size", "64x36", "--samples", "8",
                 "--granularity", "8", "--keep-samples", str(store), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: --keep-samples {store}: cannot write the sample "
                          "store: Is a directory (what was kept so far is in "
                          f"{store}.partial; delete it, or free the space and render again)")
    assert err.count("\n") == 1 and "internal error" not in err
    assert err.count(f"{store}.partial") == 1  # named once, by the store's own line
    assert not store.exists() and (tmp_path / "s.samples.partial" / "c000000.npz").is_file()


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("stop", ["ctrl-c", "full disk"])
def test_an_interrupted_or_failed_reexpose_says_what_it_kept(scene, tmp_path, monkeypatch,
                                                             capsys, stop):
    """A Ctrl-C ended reexpose with "stopping after the work in progress..." alone (the
    frames made were in o.partial.mp4, unsaid); a failed join told to run "the same
    command with --resume", an option reexpose does not have."""
    from hfrender.cli import main
    from hfrender.engine import reexpose
    from hfrender.io.writers import WriteFailed

    store, out = tmp_path / "s", tmp_path / "o.mp4"
    _keep(scene, store, samples=4)

    def three_then_stop(kept, exposure, sink, **kwargs):
        for _ in range(3):
            sink.write(np.full((36, 64, 3), 90, np.uint8))
        if stop == "ctrl-c":
            raise KeyboardInterrupt
        raise WriteFailed(f"joining 1 segment into {out} failed: No space left on device (the "
                          "segments stay in x: once that is mended, the same command with "
                          "--resume joins them)")

    monkeypatch.setattr(reexpose, "run_exposure", three_then_stop)
    code = main(["reexpose", str(store), "-o", str(out)])
    err = capsys.readouterr().err
    partial = tmp_path / "o.partial.mp4"
    assert partial.is_file() and not out.exists()
    if stop == "ctrl-c":
        assert code == 130 and err.endswith(
            f"interrupted: the 3 frames finished so far are in {partial} ({out} is not "
            "written); run the same command again to expose it whole\n"), err
    else:
        assert code == 1 and err == (
            f"hfrender: error: joining 1 segment into {out} failed: No space left on device "
            "(the segments stay in x: once that is mended, the same command exposes it again)"
            f"; the 3 frames finished so far are in {partial} ({out} is not written)\n")


@pytest.mark.parametrize("output, store, what", [
    ("b.mp4", "b.mp4", "the output b.mp4"),
    ("kk/%04d.png", "kk/0003.png", "a frame of the output kk/%04d.png"),
    ("c.mp4", "c.partial.mp4", "the partial output of c.mp4 (an interrupted render's frames)")])
def test_a_store_where_the_output_goes_is_refused_first(scene, tmp_path, monkeypatch, capsys,
                                                        output, store, what):
    """A store named as the output blamed "another hfrender (pid ...)", this one; one named
    as a frame of the output's sequence was found after the whole render ("cannot put
    kk/0003.png in place: Is a directory")."""
    from hfrender.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["render", str(scene), "-o", output, "--size", "64x36", "--samples", "2",
                 "--keep-samples", store]) == 2
    folder = Path(output).parent
    assert capsys.readouterr().err == (
        f"hfrender: error: --keep-samples {store}: that is where {what} goes; give the store "
        f"a folder of its own (e.g. {folder / 'render.samples'})\n")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.name != "spin.py") == []


@pytest.mark.usefixtures("gl_context")
def test_reexpose_into_a_place_no_file_can_be_made_is_one_line(scene, tmp_path, capsys):
    """``-o /proc/x.mp4`` was an internal error (FileNotFoundError), and a file where a
    folder goes "cannot write ...: Not a directory"; as render says them now."""
    from hfrender.cli import main

    store = tmp_path / "s.samples"
    _keep(scene, store, samples=2)
    (tmp_path / "f.mp4").write_bytes(b"mine")
    for out, said in (("/proc/x.mp4", "-o /proc/x.mp4: cannot write in /proc: no file can be "
                       "made there (No such file or directory)"),
                      (f"{tmp_path}/f.mp4/x.mp4", f"-o {tmp_path}/f.mp4/x.mp4: cannot make "
                       f"folder {tmp_path}/f.mp4: it is a file")):
        assert main(["reexpose", str(store), "-o", out]) == 2
        assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert (tmp_path / "f.mp4").read_bytes() == b"mine"


@pytest.mark.usefixtures("gl_context")
def test_a_shutter_past_the_store_says_what_it_holds_and_what_fits(scene, tmp_path):
    """A store drawn from each frame's start, exposed centred: "a narrower shutter, or
    another position, fits the store", where no narrower shutter can fit frame 0."""
    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=360.0, shutter_position="start")
    kept = hf.SampleStore.open(store)
    with pytest.raises(hf.InputError) as excinfo:
        kept.expose(shutter=180, position="center")
    assert str(excinfo.value) == (
        "output frame 0: its shutter (from -0.0083 to 0.0083 s) reaches past the kept "
        "sub-frames (from 0.0000 to 0.0333 s: the store's 360 degrees opening at each frame's "
        "time); the store's position='start' fits it")
    assert kept.expose(shutter=180).shape[0] == 9  # as said


@pytest.mark.usefixtures("gl_context")
def test_keeping_a_store_calls_no_update_of_its_own(tmp_path):
    """Keeping a --dof off store's focus called update(t) once more for every sub-frame:
    the render paid the scene's update twice, and a scene keeping state (warned of, but
    drawn) came out other pictures with --keep-samples than without."""
    path = tmp_path / "count.py"
    path.write_text(SCENE.replace("    def update(self, t):\n",
                                  "    calls = 0\n\n    def update(self, t):\n"
                                  "        self.calls += 1\n"
                                  "        self.ball.color = (0.2, 0.4, self.calls / 200)\n"))
    plain, _ = render_frames(path, size=SIZE, dof="off", samples=4, granularity=4)
    kept, _ = _keep(path, tmp_path / "store", samples=4, granularity=4)  # a hyperframe a
    assert np.array_equal(plain, kept)  # frame: the store's after each, between drawings


def test_a_store_kept_with_a_cap_that_blurs_nothing_exposes_as_it_rendered():
    """A store kept before a --max-coc-px under 2 px was refused: its depth mode blurred
    nothing, so it exposes again without depth of field, as it rendered; refocusing it is
    refused in one line that says what to do."""
    from hfrender.engine.exposure import Exposure, _lens

    kept = {"dof": "depth", "lens": {"focus_distance": 2.0, "f_stop": 2.0, "max_coc_px": 1.5}}
    assert _lens(kept, Exposure(shutter=90.0)) is None
    with pytest.raises(InputError, match=r"^the store's depth of field is capped at "
                       r"max_coc_px=1\.5, which blurs nothing: it cannot be refocused; keep it "
                       r"again with --max-coc-px 2 or more$"):
        _lens(kept, Exposure(f_stop=1.4))
    kept["lens"]["max_coc_px"] = 6.0
    assert _lens(kept, Exposure(shutter=90.0)).max_coc_px == 6.0


def test_a_render_stopped_before_a_whole_segment_names_its_unfinished_store(tmp_path,
                                                                             capsys):
    """Stopped before a second of video was finished, a render kept with --keep-samples
    left its sub-frames so far in STORE.partial (11 MB for 13 frames at 320x180 in a
    trial), unsaid: it is named, as the resumable case names it."""
    import argparse

    from hfrender.cli import commands

    keep = tmp_path / "k.samples"
    config = RenderConfig(output=str(tmp_path / "o.mp4"), keep_samples=str(keep))
    said = commands._again(argparse.Namespace(file="s.py"), config)
    assert said == ("; no whole segment (about a second of video) was finished, so --resume "
                    "has nothing to go on from")  # nothing kept yet: nothing to name
    partial_dir(keep).mkdir()
    said = commands._again(argparse.Namespace(file="s.py"), config)
    assert said.endswith(f"; the unfinished sample store {partial_dir(keep)} can go (a store "
                         "holds a whole render)")
    commands._interrupted(argparse.Namespace(file="s.py"), config,
                          argparse.Namespace(partial=None, frames_written=0))  # before frame 0
    assert capsys.readouterr().err == (
        "interrupted before the first frame: no frame was written; the unfinished sample "
        f"store {partial_dir(keep)} can go (a store holds a whole render)\n")


def test_reexposes_summary_says_what_the_exposure_changed():
    from hfrender.cli.reexpose import _exposed
    from hfrender.engine.exposure import Exposure

    assert _exposed(Exposure()) == ""  # as kept
    assert _exposed(Exposure(90.0, "end", "triangle", 2.5, 1.4)) == (
        ", shutter 90 degrees, shutter position end, triangle shutter curve, focus 2.5 m, f/1.4")
    assert _exposed(Exposure(focus_distance=float("inf"))) == ", focus at infinity"


@pytest.mark.usefixtures("gl_context")
def test_the_kept_stores_hint_offers_a_new_focus_where_it_can_be_refocused(scene, tmp_path):
    """render --keep-samples ends on how to reexpose the store: a new shutter, and a new
    focus and f-stop where the store can take them (depth kept, not drawn through the
    lens); a lens store is offered the shutter alone."""
    from hfrender.cli.commands import _refocusable

    depth_store, lens_store = tmp_path / "d", tmp_path / "l"
    _keep(scene, depth_store, samples=2, dof="depth")
    _keep(scene, lens_store, samples=2, dof="lens")
    assert _refocusable(str(depth_store)) and not _refocusable(str(lens_store))
    assert not _refocusable(str(tmp_path / "gone"))  # no store to read: no hint, no error
    with pytest.raises(hf.InputError, match=r"drawn through the lens"):  # as reexpose says
        hf.SampleStore.open(lens_store).expose(focus_distance=2.0)
    assert hf.SampleStore.open(depth_store).expose(focus_distance=2.0).shape[0] > 0


@pytest.mark.usefixtures("gl_context")
def test_a_failed_render_names_its_unfinished_store(scene, tmp_path, capsys):
    """A scene error part way through a render kept with --keep-samples: the one line names
    the frames finished and the unfinished store (a store holds a whole render)."""
    from hfrender.cli import main
    from hfrender.io.store import partial_dir

    broken = tmp_path / "broken.py"
    broken.write_text(SCENE.replace("    def update(self, t):\n",
                                    "    def update(self, t):\n"
                                    "        assert t < 0.2, 'the scene broke'\n"))
    store, out = tmp_path / "k.samples", tmp_path / "o.mp4"
    assert main(["render", str(broken), "-o", str(out), "--size", "64x36", "--samples", "4",
                 "--granularity", "4", "--keep-samples", str(store), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "the scene broke" in err and err.count("\n") == 1, err
    assert err.rstrip().endswith(f"; the unfinished sample store {partial_dir(store)} can go "
                                 "(a store holds a whole render)"), err
    assert partial_dir(store).is_dir() and not store.exists()


@pytest.mark.usefixtures("gl_context")
def test_a_store_about_to_be_replaced_is_said_before_the_render(scene, tmp_path, caplog):
    """--keep-samples into a folder holding a store replaced it without a word (a kept
    render of another scene, 16.7 MB, in the trial); said before the work, not after."""
    from hfrender.cli import main

    store, out = tmp_path / "s.samples", tmp_path / "o.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "64x36", "--samples", "2",
            "--keep-samples", str(store)]
    with caplog.at_level("WARNING", logger="hfrender.io.store"):
        assert main(args) == 0
        assert not caplog.records  # a new folder: nothing to say
        subframes = json.loads((store / "store.json").read_text())["subframes"]
        assert main(args) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"--keep-samples {store}: the store there ({subframes} sub-frames of spin.py) is "
        "replaced once this render completes; give another folder to keep it"]


@pytest.mark.usefixtures("gl_context")
def test_reexpose_workers_takes_auto_as_its_errors_say(scene, tmp_path, capsys):
    """Was: ``--workers auto`` refused by argparse, while ``--workers 0`` said "an integer
    from 1 to 64 or 'auto'". auto is the default, 2; the same frames with 1."""
    from hfrender.cli import main

    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    outs = []
    for workers in ("auto", "1"):
        out = tmp_path / f"w{workers}" / "%03d.png"
        assert main(["reexpose", str(store), "-o", str(out), "--workers", workers,
                     "--quiet"]) == 0
        outs.append([iio.imread(f) for f in sorted(out.parent.glob("*.png"))])
    assert len(outs[0]) == len(outs[1]) > 0
    assert all(np.array_equal(a, b) for a, b in zip(*outs, strict=True))
    assert main(["reexpose", str(store), "-o", str(tmp_path / "x.mp4"), "--workers", "0"]) == 2
    assert "workers" in capsys.readouterr().err


@pytest.mark.usefixtures("gl_context")
def test_reexpose_writes_16_bit_png_and_warns_of_an_8_bit_stores_exr(scene, tmp_path, caplog):
    """A compositor's trial: reexpose had no --bit-depth (a 16-bit render's store came back
    as 8-bit PNG), and an 8-bit store's EXR said nothing of its light stopping at white."""
    from hfrender.cli import main
    from hfrender.io.images import read_png

    store = tmp_path / "store"
    _keep(scene, store, samples=4, shutter=180.0)
    out = tmp_path / "deep" / "%03d.png"
    assert main(["reexpose", str(store), "-o", str(out), "--bit-depth", "16", "--quiet"]) == 0
    deep = np.stack([read_png(f) for f in sorted(out.parent.glob("*.png"))])
    codes = hf.SampleStore.open(store).expose()
    assert deep.dtype == np.uint16 and deep.shape == codes.shape
    assert np.abs(deep / 257.0 - codes).max() <= 0.5 + 1 / 257 and (deep % 257 != 0).any()
    with caplog.at_level("WARNING"):
        assert main(["reexpose", str(store), "-o", str(tmp_path / "x" / "%03d.exr"),
                     "--quiet"]) == 0
    assert f"{store} holds 8-bit sub-frames (rendered without --hdr): the EXR's light stops " \
           "at white" in caplog.text
    assert main(["reexpose", str(store), "-o", str(tmp_path / "v.mp4"), "--bit-depth",
                 "16"]) == 2
    assert not (tmp_path / "v.mp4").exists()


@pytest.mark.usefixtures("gl_context")
def test_an_angle_between_the_stores_sub_frames_weighs_the_edge_ones_in_part(scene, tmp_path):
    """16 sub-frames over 360 degrees stand for 22.5 degrees each: a centred 160 degrees
    takes 6 whole and two 12.5-degree parts (was: 8 whole, the pictures of 180 degrees,
    with 160 in the summary)."""
    from hfrender.engine.exposure import Exposure, plan_exposure

    store = tmp_path / "store"
    _keep(scene, store, samples=16, shutter=360.0)
    kept = hf.SampleStore.open(store)
    for angle, part in ((160, 12.5), (120, 15.0), (180, 22.5)):
        plan = plan_exposure(kept, Exposure(shutter=angle))
        row = plan.weights.rows[4]
        used = row[row > 0]
        whole = (angle - 2 * part) / 22.5
        np.testing.assert_allclose(used, [part / angle, *[22.5 / angle] * round(whole),
                                          part / angle], rtol=1e-9)
        start = kept.times[np.flatnonzero(plan.used)][plan.weights.starts[4]]
        centre = float((row[: len(used)] * kept.times[np.searchsorted(kept.times, start):][
            : len(used)]).sum())
        assert centre == pytest.approx(4 / 30, abs=1e-9)  # frame 4's time, centred
    pictures = [kept.expose(shutter=a) for a in (160, 180, 200)]
    assert not np.array_equal(pictures[0], pictures[1])
    assert not np.array_equal(pictures[1], pictures[2])


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("settings", [
    {"samples": 8, "shutter": 360.0, "jitter": True},
    {"samples": 8, "shutter": 180.0, "jitter": True, "shutter_curve": "triangle"},
    {"samples": "auto", "samples_range": (2, 16)},
    {"samples": 6, "shutter": 540.0, "jitter": True},
])
def test_a_stores_own_exposure_is_its_render_with_jitter_and_auto_counts(scene, tmp_path,
                                                                         settings):
    """Each kept sub-frame stands for its stratum of its window's shutter, found from the
    window and its count (a review found the strata guessed from the neighbours' times:
    a jittered or --samples auto store's own exposure was 11-21 codes off its render)."""
    store = tmp_path / "store"
    _keep(scene, store, **settings)
    fresh, _ = render_frames(scene, size=SIZE, dof="off", **settings)
    own = hf.SampleStore.open(store).expose()
    assert np.abs(own.astype(int) - fresh.astype(int)).max() <= 1


@pytest.mark.usefixtures("gl_context")
def test_an_interrupted_stores_leftover_is_said_as_it_is_removed(scene, tmp_path, caplog):
    """The interrupted render said its unfinished store "can go"; the next one removed it
    without a word."""
    from hfrender.io.store import MARKER

    left = tmp_path / "s.samples.partial"
    left.mkdir()
    (left / MARKER).write_text("an hfrender sample store being written\n")
    (left / "c000000.npz").write_bytes(b"old")
    with caplog.at_level("WARNING"):
        _keep(scene, tmp_path / "s.samples", samples=2)
    assert [r.getMessage() for r in caplog.records if "removing" in r.getMessage()] == [
        f"--keep-samples {tmp_path / 's.samples'}: removing {left}, an interrupted render's "
        "unfinished store (a store cannot be resumed)"]
    assert not left.exists() and (tmp_path / "s.samples" / "store.json").is_file()


@pytest.mark.usefixtures("gl_context")
def test_a_refocus_fuses_in_child_processes_the_same_frames(scene, tmp_path, monkeypatch,
                                                             capsys):
    """A depth store's refocus fuses in child processes (as a render does: threads share
    one interpreter, and re-exposing took as long as rendering), frames identical, the
    children ended after it."""
    from hfrender.cli import main
    from hfrender.engine import reexpose, render_setup
    from hfrender.engine.exposure import Exposure

    store = tmp_path / "store"
    _keep(scene, store, samples=8)  # 9 frames x 8: 72 sub-frames, more than a hyperframe's
    kept = hf.SampleStore.open(store)
    started = []
    monkeypatch.setattr(reexpose, "start_processes",
                        lambda *a: started.append(render_setup.start_processes(*a))
                        or started[-1])
    monkeypatch.setattr(render_setup, "usable_cores", lambda: 2)
    figures = {}
    for mode in ("on", "off", "auto"):
        sink = MemoryWriter()
        figures[mode] = reexpose.run_exposure(kept, Exposure(None, None, None, 1.0, 1.4), sink,
                                              workers=2, processes=mode)
        figures[mode]["frames"] = np.stack(sink.frames)
    assert [figures[m]["processes"] for m in ("on", "off", "auto")] == [2, 0, 2]
    assert np.array_equal(figures["on"]["frames"], figures["off"]["frames"])
    assert np.array_equal(figures["auto"]["frames"], figures["off"]["frames"])
    assert np.abs(figures["off"]["frames"].astype(int) - kept.expose().astype(int)).mean() > .5
    assert len(started) == 2 and all(c.proc.poll() is not None for p in started
                                     for c in p.children or [])
    assert all(not Path(f"/proc/{pid}").exists() or _zombie(pid)
               for p in started for pid in p.pids)
    out = tmp_path / "re.mp4"
    assert main(["reexpose", str(store), "-o", str(out), "--f-stop", "2"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(", fused in 2 child processes")
    assert main(["reexpose", str(store), "-o", str(out), "--f-stop", "2",
                 "--fusion-process", "off"]) == 0
    assert "child process" not in capsys.readouterr().out
    small = tmp_path / "small"  # one hyperframe's sub-frames: auto fuses in threads
    _keep(scene, small, samples=4)
    sink = MemoryWriter()
    assert reexpose.run_exposure(hf.SampleStore.open(small), Exposure(None, None, None, 1.0,
                                 1.4), sink, workers=2)["processes"] == 0


def _zombie(pid):
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"


@pytest.mark.usefixtures("gl_context")
def test_a_store_replaced_while_it_is_read_is_said_so_not_damaged(scene, tmp_path):
    """A render putting a new store where a reexpose was reading one: the reexpose called
    the (sound) new store's chunk "damaged" (a never-lose-work trial): a user told so may
    delete it. Now it says the store was replaced."""
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    opened = hf.SampleStore.open(store)
    first = opened.read(0)  # reading has begun
    _keep(scene, store, samples=8)  # another render's --keep-samples finishes into it
    with pytest.raises(StoreError) as info:
        opened.read(0)
    assert str(info.value) == (f"{store}: the store was replaced while it was read (a render "
                               "with --keep-samples put a new one there); run this again to "
                               "read the new one")
    again = hf.SampleStore.open(store).read(0)
    assert len(again["times"]) != len(first["times"]) or not np.array_equal(
        again["times"], first["times"])


@pytest.mark.usefixtures("gl_context")
def test_a_store_keeps_each_sub_frames_antialiasing_shift_for_reconstruction(scene, tmp_path):
    """A re-exposure reconstructs the motion from where each kept sub-frame was drawn: the
    store keeps the pixels (x, y down) its antialiasing offset moved its picture (was: not
    kept, and warped as if drawn on the output's pixels)."""
    from hfrender.sampler import pixel_offsets

    store = tmp_path / "store"
    _keep(scene, store, samples=4, duration=0.1)
    hypers = list(hf.SampleStore.open(store).hyperframes(granularity=8))
    shifts = np.concatenate([h.shifts[h.halo :] for h in hypers])
    # a perspective camera's picture moves against the offset (docs/rendering.md)
    want = pixel_offsets(4) * np.array([-1.0, 1.0])
    assert len(shifts) == 12
    np.testing.assert_array_equal(shifts, np.tile(want, (3, 1)))
