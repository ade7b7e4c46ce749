"""Re-exposure with another focus: a depth store refocuses as a depth render would, a
focus pull keeps each sub-frame's focus, and the refocus fuses in child processes alike."""

from pathlib import Path

import numpy as np
import pytest
from reexpose_helpers import (
    SCENE,
    SIZE,
    _keep,
    scene_fixture,  # noqa: F401  (the fixture scene)
)
from render_helpers import render_frames

import hfrender as hf
from hfrender.io.writers import MemoryWriter


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
def test_a_shader_stores_refocus_is_refused_without_advice_it_cannot_follow(tmp_path):
    shader = tmp_path / "s.frag"
    shader.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 64.0); }\n")
    store = tmp_path / "store"
    render_frames(shader, keep_samples=str(store), size=SIZE, samples=2, duration=0.1)
    with pytest.raises(hf.InputError) as info:
        hf.SampleStore.open(store).expose(focus_distance=2.0)
    assert str(info.value) == ("focus_distance/f_stop: this store's sub-frames have no "
                               "depth (a shader scene draws none): only its shutter can change")


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
