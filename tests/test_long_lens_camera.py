"""A scene camera's focal length past 1 km (a long telephoto at 3 km, a glTF camera of a tiny
yfov) renders as before: the 1 km cap of the effects' focal_length_mm keyword and fx's
--focal-length-mm flag had moved into Lens itself, and so refused the camera's lens, the
pinhole lens of --dof depth and a store kept from such a camera."""

import numpy as np
import pytest
from render_helpers import render_frames
from store_helpers import SETTINGS
from test_render import write_scene

import hfrender as hf
from hfrender.cli import main
from hfrender.io.store import StoreWriter
from hfrender.sampler import SampleSchedule

TELE = """
class Tele(hf.Scene):
    duration = 0.05
    background = (0, 0, 0)
    def setup(self):
        self.add(hf.Cube(color="orange"))
        self.camera.position = (0, 0, 3000)
        self.camera.focal_length_mm = 2e6  # 2 km: 0.054 m across at 3 km
        self.camera.far = 10000
        self.camera.f_stop = {f_stop}
        self.camera.focus_distance = 3000
"""


@pytest.mark.parametrize("dof, f_stop", [("depth", 2.8), ("lens", 2.8), ("off", 2.8)])
def test_a_camera_of_a_2_km_lens_renders(tmp_path, dof, f_stop):
    path = write_scene(tmp_path, TELE.format(f_stop=f_stop))
    frames, stats = render_frames(path, size=(32, 18), samples=2, dof=dof)
    assert frames.shape == (2, 18, 32, 3)  # 0.05 s at 30 fps
    red = frames[..., 0].astype(int)
    assert red.min() > 100, red.min()  # the cube's face fills the frame (no black sky)


def test_a_store_of_a_2_km_camera_is_refocused(tmp_path):
    times = SampleSchedule(30.0, 180.0, "center", "box", 2).plan(1).times
    n = len(times)
    store = tmp_path / "s.samples"
    writer = StoreWriter(store, {**SETTINGS, "frames": 1, "dof": "depth",
                                 "focal_length_mm": 2e6, "width_mm": 36.0,
                                 "lens": {"focus_distance": 3000.0, "f_stop": 2.8}}, (16, 8))
    writer.add({"color": np.full((n, 8, 16, 4), 200, np.uint8), "times": times,
                "depth": np.full((n, 8, 16), 3000.0, np.float32)})
    writer.finish(1)
    got = hf.SampleStore.open(store).expose(focus_distance=2500.0, f_stop=2.8)
    assert np.asarray(got).shape[-3:-1] == (8, 16)


def test_the_effects_keyword_and_the_fx_flag_are_still_capped(tmp_path, capsys):
    rng = np.random.default_rng(3)
    frames = rng.random((4, 4, 3), dtype=np.float32)
    with pytest.raises(hf.InputError) as e:
        hf.depth_of_field(frames, np.full((4, 4), 2.0, np.float32), focus_distance=3000.0,
                          f_stop=2.0, focal_length_mm=2e6)
    assert str(e.value) == ("focal_length_mm=2000000.0 must be a finite number > 0, at most "
                            "1000000 (a lens of a kilometre)")
    clip, depth = tmp_path / "in.mkv", tmp_path / "d.npy"
    clip.write_bytes(b"")  # refused before either is read
    np.save(depth, np.ones((1, 4, 4), np.float32))
    assert main(["fx", str(clip), "-o", str(tmp_path / "out.mp4"), "--depth", str(depth),
                 "--focus-distance", "3000", "--f-stop", "2", "--focal-length-mm",
                 "2e6"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --focal-length-mm 2e6 must be a finite "
                                       "number > 0, at most 1000000 (a lens of a kilometre)\n")
    assert hf.Lens(3000.0, 2.0, focal_length_mm=2e6).focal_length_mm == 2e6  # a camera's
