"""Sample stores (--keep-samples) and re-exposure: another shutter, later, equals a fresh
render (refocus, refusals and a store's safety: test_reexpose_*.py)."""

import json
import subprocess
import sys

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
from hfrender.errors import InputError


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


def test_reexposes_summary_says_what_the_exposure_changed():
    from hfrender.cli.reexpose import _exposed
    from hfrender.engine.exposure import Exposure

    assert _exposed(Exposure()) == ""  # as kept
    assert _exposed(Exposure(90.0, "end", "triangle", 2.5, 1.4)) == (
        ", shutter 90 degrees, shutter position end, triangle shutter curve, focus 2.5 m, f/1.4")
    assert _exposed(Exposure(focus_distance=float("inf"))) == ", focus at infinity"


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
