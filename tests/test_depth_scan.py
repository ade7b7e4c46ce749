"""A ``.npy``/``.npz`` depth pass is checked whole before a frame is written: a NaN or a
value <= 0 in any frame refuses the run up front, in the line the per-frame check says
(was: found only when that frame was reached, after the frames before it were written);
image sequences keep the per-frame check (reading them all first would cost their decode)."""

import numpy as np
import pytest
from fx_helpers import make_clip, png_sequence

from hfrender.cli import main
from hfrender.errors import InputError
from hfrender.io import depth_fit, depth_scan
from hfrender.optics import Lens

H, W, N = 18, 32, 8
LENS = ["--focus-distance", "2", "--f-stop", "2", "--quiet"]
POSITIVE = "; depth must be a distance > 0 (use inf for sky)"


def fx_line(capsys, source, out, depth, *flags):
    """The one line fx refuses ``source -> out`` with; nothing at all written."""
    assert main(["fx", str(source), "-o", str(out), "--depth", str(depth), *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.removeprefix("hfrender: error: ").rstrip("\n")


@pytest.mark.parametrize("out", ["o/%05d.png", "o/clip.mp4"])
@pytest.mark.parametrize("bad, said", [(-1.0, "a value <= 0 (-1)"), (np.nan, "a NaN")])
def test_a_bad_value_late_in_an_npy_refuses_the_run_before_any_frame(tmp_path, rng, capsys,
                                                                      out, bad, said):
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    depth = np.full((N, H, W), 2.0, np.float32)
    depth[6, 3, 4] = bad
    np.save(tmp_path / "d.npy", depth)
    assert fx_line(capsys, seq, tmp_path / out, tmp_path / "d.npy", *LENS) == (
        f"depth frame 6 ({tmp_path / 'd.npy'}) has {said} at row 3, column 4{POSITIVE}")
    assert not (tmp_path / "o").exists()


def test_an_npz_and_a_disparity_map_are_checked_whole_too(tmp_path, rng, capsys):
    clip, _ = make_clip(tmp_path, rng, n=N, size=(W, H))
    depth = np.full((N, H, W), 2.0, np.float32)
    depth[5, 1, 2] = -3.0
    np.savez(tmp_path / "d.npz", depth=depth)
    assert fx_line(capsys, clip, tmp_path / "o" / "%05d.png", tmp_path / "d.npz", *LENS) == (
        f"depth frame 5 ({tmp_path / 'd.npz'}) has a value <= 0 (-3) at row 1, column 2"
        f"{POSITIVE}")
    disparity = np.full((N, H, W), 0.5, np.float32)
    disparity[:, :4] = 1.0
    disparity[7, 2, 9] = np.nan
    np.save(tmp_path / "disp.npy", disparity)
    assert fx_line(capsys, clip, tmp_path / "o" / "%05d.png", tmp_path / "disp.npy",
                   "--depth-kind", "disparity", "--focus-disparity", "0.5", "--max-blur",
                   "9", "-q") == (
        f"depth frame 7 ({tmp_path / 'disp.npy'}) has a NaN or infinite disparity at row "
        "2, column 9; a disparity must be a finite number (near is large; 0 or below is sky)")
    assert not (tmp_path / "o").exists()


def test_the_scan_reads_metres_as_the_run_does(tmp_path, rng, monkeypatch):
    """Zeros are sky with --depth-zero-is-sky (not refused); chunks of a few frames find
    the first bad frame of a later chunk by its own number."""
    depth = rng.uniform(0.5, 9.0, (N, H, W)).astype(np.float32)
    depth[2, 5, 5] = 0.0
    np.save(tmp_path / "d.npy", depth)
    lens = Lens(2.0, 2.8)
    got = depth_fit.depth_for(str(tmp_path / "d.npy"), 1.0, True, (W, H), N, lambda d: lens)
    assert np.isinf(list(got.frames)[2][5, 5])
    depth[6, 7, 8], depth[7, 0, 0] = -0.5, np.nan
    np.save(tmp_path / "d.npy", depth)
    for chunk in (1, 3, 5, N):
        monkeypatch.setattr(depth_scan, "CHUNK_BYTES", chunk * H * W * 4)
        with pytest.raises(InputError) as e:
            depth_fit.depth_for(str(tmp_path / "d.npy"), 1.0, True, (W, H), N,
                                 lambda d: lens)
        assert str(e.value) == (f"depth frame 6 ({tmp_path / 'd.npy'}) has a value <= 0 "
                                f"(-0.5) at row 7, column 8{POSITIVE}")


def test_a_png_depth_sequence_is_still_checked_frame_by_frame(tmp_path, rng, capsys):
    """No whole read first: its bad frame found as it comes, the frames before it kept."""
    import imageio.v3 as iio

    seq, _ = png_sequence(tmp_path, rng, 4, H, W)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i in range(4):
        mm = np.full((H, W), 2000, np.uint16)
        mm[7, 9] = 0 if i == 3 else 2000
        iio.imwrite(folder / f"{i:04d}.png", mm)
    line = fx_line(capsys, seq, tmp_path / "o" / "%05d.png", folder, "--depth-scale", "0.001",
                   *LENS)
    assert line.startswith(f"depth frame 3 ({folder / '0003.png'}) has a value <= 0 (0)"), line
    assert "finished so far are in" in line


@pytest.mark.parametrize("near_far, value, metres", [((0.5, 20.0), -0.125, "-1.9375"),
                                                     ((20.0, 0.5), 1.5, "-9.25")])
def test_a_normalised_pass_is_scanned_in_its_metres(tmp_path, rng, near_far, value, metres):
    """--depth-range NEAR,FAR: metres grow with the stored values (a chunk's least bounds
    them) or, far nearer than near, shrink (each chunk's metres made)."""
    depth = rng.uniform(0.0, 1.0, (N, H, W)).astype(np.float32)
    depth[4, 2, 3] = value
    np.save(tmp_path / "d.npy", depth)
    with pytest.raises(InputError) as e:
        depth_fit.depth_for(str(tmp_path / "d.npy"), near_far, False, (W, H), N,
                             lambda d: Lens(2.0, 2.8))
    assert str(e.value) == (f"depth frame 4 ({tmp_path / 'd.npy'}) has a value <= 0 "
                            f"({metres}) at row 2, column 3{POSITIVE}")


@pytest.mark.parametrize("resize", [None, "nearest", "linear"])
def test_a_too_near_focus_pixel_late_in_an_npy_refuses_the_run_before_any_frame(
        tmp_path, rng, capsys, resize):
    """--focus-pixel over a depth within the focal length in frame 3 of an .npy: refused
    before the first frame is written (was: at frame 3, frames 0-2 kept in a .partial
    folder); a half-size pass resized to the footage, read at the resized pixel."""
    seq, _ = png_sequence(tmp_path, rng, N, H, W)
    scale = 1 if resize is None else 2
    depth = np.full((N, H // scale, W // scale), 2.0, np.float32)
    under = np.s_[5:6, 6:7] if resize is None else np.s_[2:4, 2:4]  # all footage (6, 5) takes
    depth[3][under] = 0.03  # within the 50 mm focal length
    depth[5][under] = 0.01  # a later one: the first is named
    np.save(tmp_path / "d.npy", depth)
    flags = [] if resize is None else ["--depth-resize", resize]
    assert fx_line(capsys, seq, tmp_path / "o" / "%05d.png", tmp_path / "d.npy",
                   "--f-stop", "2", "--focus-pixel", "6,5", "--quiet", *flags) == (
        "--focus-pixel 6,5: in frame 3 the depth there is 0.03 m, nearer than the lens's "
        "focal length: nothing can be focused there")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("resize", [None, "nearest", "linear"])
def test_the_focus_pixels_column_is_the_resized_frames_pixel(tmp_path, rng, resize):
    """The up-front focus check reads one pixel of every frame (DepthPass.column) rather
    than whole frames: at footage pixels whose x and y differ, within both sizes (an x, y
    swapped in depth_scale._point read another pixel; the late-frame test's bad block covers
    both), its metres are the resized frames' own, sky among them."""
    scale = 1 if resize is None else 2
    depth = rng.uniform(0.5, 9.0, (N, H // scale, W // scale)).astype(np.float32)
    depth[1:4, 0, 5] = depth[2, 4, 1] = np.inf  # sky at some of the pixels read, some frames
    np.save(tmp_path / "d.npy", depth)
    got = depth_fit.depth_for(str(tmp_path / "d.npy"), 1.0, True, (W, H), N,
                               lambda d: Lens(2.0, 2.8), resize)
    frames = np.stack(list(got.frames))
    for x, y in [(6, 5), (11, 0), (2, 9), (13, 3), (31, 17)]:
        column = got.column(x, y)
        assert column.shape == (N,) and len(set(column.tolist())) > 1
        assert column.tolist() == frames[:, y, x].tolist(), (x, y)
