"""``hfrender still``: one frame, and ``--compare``'s pinhole beside it."""

from pathlib import Path

import numpy as np
import pytest
from render_helpers import linear

from hfrender.cli import main

DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")


def test_still_compare_sets_the_scene_up_once(tmp_path, capsys):
    """``setup()`` runs once per process (and once, quietly, on a second instance that
    checks it gives the same scene), also when ``--compare`` draws the frame a second time
    without effects."""
    scene = tmp_path / "once.py"
    scene.write_text("import hfrender as hf\nclass Once(hf.Scene):\n    def setup(self):\n"
                     "        print('SETUP')\n        self.ball = self.add(hf.Sphere())\n"
                     "    def update(self, t):\n        self.ball.position = (t, 0, 0)\n")
    assert main(["still", str(scene), "-o", str(tmp_path / "c.png"), "--compare", "--size",
                 "32x18", "--quiet"]) == 0
    assert capsys.readouterr().out.count("SETUP") == 1
    assert (tmp_path / "c.png").stat().st_size > 100


def test_still_compare_puts_the_plain_frame_left(tmp_path):
    import imageio.v3 as iio

    out = tmp_path / "s.png"
    assert main(["still", BAR, "-t", "0.1", "--compare", "-o", str(out), "--size", "96x8",
                 "--samples", "16"]) == 0
    img = iio.imread(out)
    assert img.shape == (8, 192, 3)
    plain, blurred = img[4, :96, 0], img[4, 96:, 0]
    assert (plain == 255).sum() == 4 and (plain > 0).sum() == 4  # the instant: a 4 px bar
    # the streak: the bar's 4 px of light spread over its 10 px of travel in the 1/60 s
    # shutter (600 px/s), in linear light
    lin = linear(blurred)
    assert lin.sum() == pytest.approx(4, abs=0.05)
    assert abs((lin > 0.01).sum() - (600 / 60 + 4)) <= 1 and blurred.max() < 255


def _left_panel(path, *options):
    import imageio.v3 as iio

    out = path.parent / f"{path.stem}{len(options)}_{abs(hash(options))}.png"
    assert main(["still", str(path), "-t", "0.1", "--compare", "-o", str(out), "--quiet",
                 *options]) == 0
    img = iio.imread(out)
    return img[:, : img.shape[1] // 2]


@pytest.mark.parametrize("options", [("--shutter", "720", "--samples", "4"),
                                     ("--shutter-position", "start", "--samples", "4"),
                                     ("--shutter-curve", "triangle", "--samples", "4")])
def test_still_compare_left_is_the_instant_whatever_the_shutter(tmp_path, options):
    """The left panel is the pinhole at the frame's time: the same picture whatever the
    shutter of the right one (a 720-degree shutter blurred it, and warned of 2 samples)."""
    bar = tmp_path / "bar.frag"
    bar.write_text(Path(BAR).read_text())
    size = ("--size", "96x8")
    plain = _left_panel(bar, *size)
    assert (plain[4, :, 0] == 255).sum() == 4 and (plain[4, :, 0] > 0).sum() == 4
    np.testing.assert_array_equal(_left_panel(bar, *size, *options), plain)


def test_still_compare_left_makes_nothing_between_sub_frames(tmp_path):
    """``--reconstruct on`` (a mesh scene's motion made between sub-frames) leaves the
    left panel alone: it blurred a fast ball there as on the right."""
    scene = tmp_path / "fast.py"
    scene.write_text("import hfrender as hf\nclass Fast(hf.Scene):\n    def setup(self):\n"
                     "        self.ball = self.add(hf.Sphere(radius=0.3))\n"
                     "        self.camera.position = (0, 0, 5)\n"
                     "    def update(self, t):\n        self.ball.position = (20 * t, 0, 0)\n")
    size = ("--size", "64x36", "--samples", "2", "--msaa", "1")
    plain = _left_panel(scene, *size)
    assert (plain > 0).any()
    np.testing.assert_array_equal(_left_panel(scene, *size, "--reconstruct", "on"), plain)


@pytest.mark.parametrize("when, frame, green", [
    (["-t", "5", "--duration", "20"], 150, 150 * 255 // 1020),
    (["-t", "10"], 300, 75), (["-f", "300"], 300, 75)])
def test_a_shaders_still_is_drawn_at_any_time(tmp_path, capsys, when, frame, green):
    """A shader is a pure function of time: ``-t 10`` with no duration given is frame 300
    (was: "past the end; a shader's default duration 4 s", a trial), ``-t 5 --duration
    20`` frame 150 (was refused: "nothing to render (the scene has 120 frames)"); the
    render's frame of a 20 s render is the same picture. A Python scene's own duration
    still bounds it, as the error says."""
    import imageio.v3 as iio
    from render_helpers import render_frames

    clock = tmp_path / "clock.frag"
    clock.write_text("void mainImage(out vec4 c, in vec2 p) {\n"
                     "    c = vec4(iTime / 20.0, float(iFrame) / 1020.0, 0.0, 1.0);\n}\n")
    out = tmp_path / "s.png"
    assert main(["still", str(clock), *when, "--size", "8x4", "--samples", "1", "-o",
                 str(out)]) == 0
    assert capsys.readouterr().out == (f"wrote {out}: frame {frame} (t={frame / 30:.3f} s), "
                                       "1 sample (no motion blur), dof off\n")
    frames, _ = render_frames(clock, first_frame=frame, count=1, size=(8, 4), samples=1,
                              duration=20.0)
    still = iio.imread(out)
    np.testing.assert_array_equal(still, frames[0])
    assert (still[..., 0] == round(frame / 30 / 20 * 255)).all()
    assert np.abs(still[..., 1].astype(int) - green).max() <= 1
    scene = tmp_path / "one.py"
    scene.write_text("import hfrender as hf\nclass One(hf.Scene):\n    duration = 1\n"
                     "    def setup(self):\n        self.add(hf.Cube())\n")
    assert main(["still", str(scene), "-t", "10", "-o", str(out), "--size", "8x4"]) == 2
    assert capsys.readouterr().err == (
        "hfrender: error: -t 10: frame 300, past the end; the scene's duration 1 s at 30 fps "
        "has frames 0..29 (-t 0 to 0.967) (--duration makes it longer)\n")


@pytest.mark.parametrize("duration", ['"2"', "None"])
def test_a_scene_duration_that_is_no_number_is_one_line(tmp_path, capsys, duration):
    """It was an internal error: the message formatted the duration before it was checked
    (a trial)."""
    scene = tmp_path / "d.py"
    scene.write_text("import hfrender as hf\nclass D(hf.Scene):\n"
                     f"    duration = {duration}\n    def setup(self):\n"
                     "        self.add(hf.Cube())\n")
    assert main(["still", str(scene), "-o", str(tmp_path / "s.png"), "--size", "32x18"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hfrender: error: duration=") and " must be a finite number > 0" \
        in err and err.count("\n") == 1, err


def test_a_16_bit_still_is_the_8_bit_one_with_finer_steps(tmp_path, capsys):
    """Was: ``still --bit-depth`` refused every value, 8 too (the help offers it). The bar's
    streak at 16 bits is the 8-bit picture within half a code, and holds values between
    its codes."""
    from hfrender.io.images import png_header, read_png

    common = [BAR, "-t", "0.1", "--size", "96x8", "--samples", "16", "--quiet"]
    assert main(["still", *common, "-o", str(tmp_path / "a.png"), "--bit-depth", "8"]) == 0
    assert main(["still", *common, "-o", str(tmp_path / "b.png"), "--bit-depth", "16"]) == 0
    assert png_header(tmp_path / "a.png")[2] == 8 and png_header(tmp_path / "b.png")[2] == 16
    eight, sixteen = read_png(tmp_path / "a.png"), read_png(tmp_path / "b.png")
    assert sixteen.dtype == np.uint16 and eight.dtype == np.uint8
    assert np.abs(sixteen / 257.0 - eight).max() <= 0.5 + 1e-9
    assert (sixteen % 257 != 0).any() and 0 < (eight[4, :, 0] > 0).sum() < 96


@pytest.mark.usefixtures("gl_context")
def test_a_ctrl_c_stops_a_still_at_once_and_writes_nothing(tmp_path, capsys, monkeypatch):
    """A still's one picture is all of its work in progress: the first Ctrl-C stops it at
    once (was: an exact gather of minutes went on to its end, then the picture was thrown
    away, exit 130; a second Ctrl-C was needed), and the file there is left as it was."""
    import os
    import signal
    import threading
    import time

    from hfrender.backends.cpu import CPUBackend

    def slow(self, *args, **kwargs):  # a fusion of minutes, a Ctrl-C once it is under way
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        for _ in range(16):
            time.sleep(0.5)
            if stopped.is_set():  # (the engine's failure is not seen by this fake)
                break
        return real(self, *args, **kwargs)

    real, stopped = CPUBackend.fuse, threading.Event()
    monkeypatch.setattr(CPUBackend, "fuse", slow)
    out = tmp_path / "s.png"
    from hfrender.io.images import png8_bytes

    earlier = png8_bytes(np.full((2, 2, 3), 7, np.uint8))  # an earlier still of hfrender's
    out.write_bytes(earlier)
    began = time.monotonic()
    assert main(["still", BAR, "-o", str(out), "--size", "32x8", "--samples", "2",
                 "--backend", "cpu"]) == 130
    assert time.monotonic() - began < 4.0  # not the fusion's 8 s
    stopped.set()
    assert capsys.readouterr().err.splitlines() == [
        f"interrupted: {out} is not written (the file there is as it was)"]
    assert out.read_bytes() == earlier


@pytest.mark.parametrize("name", ["s.png/", "s.exr/", "shots/"])
def test_a_still_onto_a_folders_name_is_one_line_and_keeps_the_file(tmp_path, capsys, name):
    """``-o s.png/`` (a trailing slash: a folder) wrote the file s.png, replacing an earlier
    still there; now one line, the file as it was."""
    kept = tmp_path / "s.png"
    assert main(["still", BAR, "-o", str(kept), "--size", "8x4", "--quiet"]) == 0
    before = kept.read_bytes()
    out = f"{tmp_path}/{name}"
    assert main(["still", BAR, "-o", out, "--size", "8x4", "-t", "0.1"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: -o {out}: a folder's name (it ends "
                                       f"in /); name the picture (-o {out}still.png)\n")
    assert kept.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.png"]
