"""``hfrender fx in.png -o out.png``: one frame in, one picture out, as ``ffmpeg -i a.png
b.png`` does (was refused: "unknown output type '.png'; use ... a PNG pattern"); a clip of
more frames into one picture is refused in one line naming the count and a pattern."""

import subprocess

import imageio.v3 as iio
import numpy as np
from fx_helpers import FFMPEG, make_clip, png_sequence

import hfrender as hf
from hfrender.cli import main

H, W = 24, 32


def depth_flags(tmp_path):
    """A depth pass (a card at 1 m over a wall at 4 m) and a lens focused on the wall."""
    depth = np.full((H, W), 4.0, np.float32)
    depth[6:18, 8:20] = 1.0
    np.save(tmp_path / "d.npy", depth)
    return depth, ["--depth", str(tmp_path / "d.npy"), "--focus-distance", "4", "--f-stop",
                   "1.4", "--sensor-width-mm", "9"]


def test_one_png_in_one_png_out(tmp_path, rng):
    frame = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    iio.imwrite(tmp_path / "in.png", frame)
    depth, flags = depth_flags(tmp_path)
    assert main(["fx", str(tmp_path / "in.png"), "-o", str(tmp_path / "out.png"), *flags,
                 "--quiet"]) == 0
    got = iio.imread(tmp_path / "out.png")
    want = hf.depth_of_field(frame, depth, focus_distance=4.0, f_stop=1.4, sensor_width_mm=9)
    assert got.shape == (H, W, 3) and np.abs(got.astype(int) - want).max() <= 1
    assert np.abs(got.astype(int) - frame).max() > 40  # (the card blurred)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npy", "in.png", "out.png"]


def test_rgba_png_keeps_its_alpha_in_one_png(tmp_path, rng):
    frame = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    frame[..., 3] = 255
    frame[:4, :4, 3] = 0
    iio.imwrite(tmp_path / "in.png", frame)
    _, flags = depth_flags(tmp_path)
    assert main(["fx", str(tmp_path / "in.png"), "-o", str(tmp_path / "out.png"), *flags,
                 "--quiet"]) == 0
    got = iio.imread(tmp_path / "out.png")
    assert got.shape == (H, W, 4) and (got[:4, :4, 3] < 255).all() and got[-1, -1, 3] == 255


def test_a_one_frame_video_into_one_png_is_the_sequence_s_frame(tmp_path, rng):
    clip, frames = make_clip(tmp_path, rng, n=1, size=(W, H))
    _, flags = depth_flags(tmp_path)
    common = ["fx", str(clip), *flags, "--quiet"]
    assert main(common + ["-o", str(tmp_path / "one.png")]) == 0
    assert main(common + ["-o", str(tmp_path / "seq" / "%05d.png")]) == 0
    got, want = iio.imread(tmp_path / "one.png"), iio.imread(tmp_path / "seq" / "00000.png")
    np.testing.assert_array_equal(got, want)
    assert np.abs(got.astype(int) - frames[0]).max() > 40


def test_frames_that_blend_into_one_make_one_png(tmp_path, rng):
    seq, frames = png_sequence(tmp_path, rng, 3, H, W)
    assert main(["fx", str(seq), "-o", str(tmp_path / "out.png"), "--motion-blur", "3",
                 "--stride", "3", "--quiet"]) == 0
    np.testing.assert_array_equal(iio.imread(tmp_path / "out.png"),
                                  hf.motion_blur(frames, 3)[0])


def test_more_frames_into_one_png_are_refused_naming_the_count(tmp_path, rng, capsys):
    seq, _ = png_sequence(tmp_path, rng, 3, H, W)
    clip, _ = make_clip(tmp_path, rng, n=5, size=(W, H))
    out = tmp_path / "shots" / "out.png"
    assert main(["fx", str(seq), "-o", str(out), "--motion-blur", "2", "-q"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out} is one picture; --motion-blur 2 of {seq} makes 3 frames: "
        f"give a pattern such as {out.parent / 'out_%05d.png'} (each frame a picture)\n")
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--stride", "2",
                 "-q"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out} is one picture; --motion-blur 2 --stride 2 of {clip} "
        f"makes 2 frames: give a pattern such as {out.parent / 'out_%05d.png'} (each frame "
        "a picture)\n")
    assert not (tmp_path / "shots").exists()


def test_resume_into_one_png_says_it_is_written_whole(tmp_path, rng, capsys):
    iio.imwrite(tmp_path / "in.png", rng.integers(0, 256, (H, W, 3), dtype=np.uint8))
    _, flags = depth_flags(tmp_path)
    out = tmp_path / "out.png"
    assert main(["fx", str(tmp_path / "in.png"), "-o", str(out), *flags, "--resume",
                 "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: --resume: {out}") and err.count("\n") == 1, err
    assert "one picture" in err and not out.exists()


def test_one_picture_is_png_and_takes_no_quality_settings(tmp_path, rng, capsys):
    iio.imwrite(tmp_path / "in.png", rng.integers(0, 256, (H, W, 3), dtype=np.uint8))
    _, flags = depth_flags(tmp_path)
    run = ["fx", str(tmp_path / "in.png"), *flags, "-q", "-o"]
    assert main(run + [str(tmp_path / "out.exr")]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {tmp_path / 'out.exr'}: one picture is written as PNG (EXR from "
        f"EXR footage alone: this footage's light stops at white): use a name like "
        f"{tmp_path / 'out.png'}\n")
    assert main(run + [str(tmp_path / "out.png"), "--crf", "18"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --crf 18: PNG (lossless) has no "
                                       "quality settings; leave it out, or write a video "
                                       "(.mp4, .webm)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npy", "in.png"]


def test_more_frames_into_one_png_are_refused_before_the_depth_is_read(tmp_path, rng, capsys):
    """(was: the depth pass read and scanned first, and its fault told instead)"""
    clip, _ = make_clip(tmp_path, rng, n=5, size=(W, H))
    np.save(tmp_path / "bad.npy", np.full((H + 1, W), np.nan, np.float32))  # wrong size, NaN
    out = tmp_path / "x.png"
    assert main(["fx", str(clip), "-o", str(out), "--depth", str(tmp_path / "bad.npy"),
                 "--focus-distance", "4", "--f-stop", "2", "-q"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out} is one picture; {clip} makes 5 frames: give a pattern "
        f"such as {tmp_path / 'x_%05d.png'} (each frame a picture)\n")
    assert not out.exists()


def test_a_4_2_0_frame_blended_in_code_values_into_one_png_is_rgb(tmp_path, rng):
    """A phone's or camera's 4:2:0 video with --gamma-space into one picture: its RGB codes,
    as ffmpeg's own conversion makes them (was an internal error, "Can't write images with
    one color channel": the stored planes went to the PNG writer as they were)."""
    raw = tmp_path / "in.raw"
    rng.integers(0, 256, (H, W, 3), dtype=np.uint8).tofile(raw)
    clip = tmp_path / "in.mp4"
    subprocess.run([FFMPEG, "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s",
                    f"{W}x{H}", "-i", str(raw), "-c:v", "libx264", "-pix_fmt", "yuv420p",
                    str(clip)], check=True)
    want = np.frombuffer(subprocess.run(
        [FFMPEG, "-v", "error", "-i", str(clip), "-sws_flags",
         "accurate_rnd+full_chroma_int+full_chroma_inp", "-f", "rawvideo", "-pix_fmt",
         "rgb24", "-"], capture_output=True, check=True).stdout, np.uint8).reshape(H, W, 3)
    assert main(["fx", str(clip), "-o", str(tmp_path / "out.png"), "--motion-blur", "1",
                 "--gamma-space", "-q"]) == 0
    got = iio.imread(tmp_path / "out.png")
    assert got.shape == (H, W, 3) and np.abs(got.astype(int) - want).max() <= 1
    assert want.std() > 40  # (a picture, not a flat field)
