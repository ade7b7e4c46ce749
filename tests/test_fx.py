"""`hfrender fx` on footage: equal to tmix in code-value mode, strides, depth, errors."""

import logging
import os
import re
import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from conftest import reference_blur

import hfrender as hf
from hfrender.cli import main

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


def decode(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    w, h = meta["size"]
    return np.stack([np.frombuffer(f, np.uint8).reshape(h, w, 3) for f in reader]), meta


def make_clip(tmp_path, rng, n=40, size=(64, 36), audio=False, fps=30):
    """A lossless RGB clip (libx264rgb, qp 0): decoded frames equal the written ones."""
    w, h = size
    frames = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    raw = tmp_path / "in.raw"
    frames.tofile(raw)
    out = tmp_path / "in.mkv"
    cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt",
           "rgb24", "-s", f"{w}x{h}", "-r", str(fps), "-i", str(raw)]
    if audio:
        cmd += ["-f", "lavfi", "-i", f"sine=frequency=440:duration={n / fps}", "-c:a", "aac"]
    cmd += ["-c:v", "libx264rgb", "-qp", "0", str(out)]
    subprocess.run(cmd, check=True)
    return out, frames


def read_pngs(folder):
    import imageio.v3 as iio

    return np.stack([iio.imread(f) for f in sorted(folder.iterdir())])


def test_code_value_blend_equals_tmix_frame_for_frame(tmp_path, rng):
    clip, frames = make_clip(tmp_path, rng)
    (tmp_path / "tmix").mkdir()
    assert main(["fx", str(clip), "-o", str(tmp_path / "ours" / "%04d.png"), "--motion-blur",
                 "8", "--gamma-space", "--quiet"]) == 0
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", str(clip), "-vf",
                    "format=gbrp,tmix=frames=8,format=rgb24",
                    str(tmp_path / "tmix" / "%04d.png")], check=True)
    a, b = read_pngs(tmp_path / "ours"), read_pngs(tmp_path / "tmix")
    assert a.shape == b.shape == frames.shape  # the same frame count, as tmix
    assert np.abs(a.astype(int) - b).max() <= 1
    # and the steady-state windows are the library's motion blur exactly
    np.testing.assert_array_equal(a[7:], hf.motion_blur(frames, 8, stride=1,
                                                        linear_light=False))
    # before frame 7 the window reaches before the clip: frame 0 stands in, as in tmix
    padded = np.concatenate([np.repeat(frames[:1], 5, 0), frames[:3]]).astype(np.int64)
    np.testing.assert_array_equal(a[2], (2 * padded.sum(0) + 8) // 16)


def test_stride_turns_240_fps_into_30_with_a_360_degree_shutter(tmp_path, rng):
    clip, frames = make_clip(tmp_path, rng, n=70, fps=240)
    out = tmp_path / "30fps.mp4"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "8", "--stride", "8",
                 "--quiet"]) == 0
    from hfrender.io.footage import probe

    info = probe(str(out))  # from the frames' timestamps: 240 / 8 exactly
    assert info.fps == 30 and info.count == (70 - 8) // 8 + 1 and info.times is None
    assert main(["fx", str(clip), "-o", str(tmp_path / "s" / "%03d.png"), "--motion-blur", "8",
                 "--stride", "8", "--quiet"]) == 0
    got = read_pngs(tmp_path / "s")
    assert len(got) == (70 - 8) // 8 + 1
    expected = reference_blur(frames, np.ones(8), 8, linear_light=True)
    assert np.abs(got.astype(int) - expected).max() <= 1


def test_audio_is_kept_and_long_clips_stream_through_hyperframes(tmp_path, rng):
    clip, frames = make_clip(tmp_path, rng, n=150, audio=True)  # many hyperframes
    out = tmp_path / "with_audio.mkv"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "3", "--quiet"]) == 0
    log = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                         text=True).stderr
    assert re.search(r"Stream #0:1.*Audio: aac", log)
    assert len(decode(out)[0]) == 150
    assert main(["fx", str(clip), "-o", str(tmp_path / "p" / "%03d.png"), "--motion-blur",
                 "3", "--quiet"]) == 0
    got = read_pngs(tmp_path / "p")
    expected = reference_blur(frames, np.ones(3), 1, linear_light=True)
    assert np.abs(got[2:].astype(int) - expected).max() <= 1  # across hyperframe boundaries


def png_sequence(tmp_path, rng, n, h, w):
    """``n`` random RGB frames (h, w) written as ``tmp_path/frames/0000.png`` ..: the
    folder and the frames."""
    import imageio.v3 as iio

    seq = tmp_path / "frames"
    seq.mkdir()
    frames = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:04d}.png", f)
    return seq, frames


def test_depth_pass_from_npy_and_png_sequences(tmp_path, rng):
    import imageio.v3 as iio

    h, w, n = 36, 64, 6
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    depth_m = np.full((n, h, w), 4.0, np.float32)
    depth_m[:, 10:26, 20:44] = 1.0  # an in-focus card over a far wall
    np.save(tmp_path / "depth.npy", depth_m)
    dseq = tmp_path / "depth"
    dseq.mkdir()
    for i, d in enumerate(depth_m):  # millimetres in 16-bit PNGs
        iio.imwrite(dseq / f"{i:04d}.png", (d * 1000).astype(np.uint16))
    lens = ["--focus-distance", "1.0", "--f-stop", "1.4", "--sensor-width-mm", "9"]
    out_npy, out_png = tmp_path / "a" / "%03d.png", tmp_path / "b" / "%03d.png"
    assert main(["fx", str(seq / "%04d.png"), "-o", str(out_npy), "--depth",
                 str(tmp_path / "depth.npy"), *lens, "--quiet"]) == 0
    assert main(["fx", str(seq), "-o", str(out_png), "--depth", str(dseq), "--depth-scale",
                 "0.001", *lens, "--quiet"]) == 0
    a = np.stack([iio.imread(tmp_path / "a" / f"{i:03d}.png") for i in range(n)])
    b = np.stack([iio.imread(tmp_path / "b" / f"{i:03d}.png") for i in range(n)])
    np.testing.assert_array_equal(a, b)
    expected = hf.depth_of_field(frames, depth_m, focus_distance=1.0, f_stop=1.4,
                                 sensor_width_mm=9.0)
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(a[:, 10:26, 20:44], frames[:, 10:26, 20:44])  # sharp card


@pytest.mark.parametrize("kind, scale, warned", [
    ("png", None, True), ("png", "0.001", False), ("npy", None, True), ("npy", "0.001", False),
    ("metres", None, False)])
def test_integer_millimetres_read_as_metres_are_warned_of(tmp_path, rng, caplog, kind, scale,
                                                          warned):
    """A uint16 depth pass in millimetres with no --depth-scale would blur every pixel as
    if kilometres away: one warning names the file, the farthest value and the option; the
    render still runs (the values may mean metres)."""
    import imageio.v3 as iio

    h, w, n = 12, 16, 2
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    far = int(rng.integers(2000, 9000))  # mm
    depth_mm = np.full((n, h, w), far, np.uint16)
    depth_mm[:, 4:8, 4:12] = 1000
    if kind == "png":
        depth = tmp_path / "depth"
        depth.mkdir()
        for i, d in enumerate(depth_mm):
            iio.imwrite(depth / f"{i:04d}.png", d)
    else:
        depth = tmp_path / "depth.npy"
        np.save(depth, depth_mm if kind == "npy" else (depth_mm // 1000).clip(1))
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth", str(depth),
            "--focus-distance", "1.0", "--f-stop", "2.8", "--quiet"]
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(args + (["--depth-scale", scale] if scale else [])) == 0
    said = [r.getMessage() for r in caplog.records if "--depth-scale" in r.getMessage()]
    expected = (f"depth {depth} is uint16, its first frame up to {far} m at --depth-scale 1: "
                "if these are millimetres, pass --depth-scale 0.001; if it is normalised to "
                "0..1 (Blender's Map Range), --depth-range NEAR,FAR (an inverse depth, or "
                "disparity, from a depth estimator is no distance: near is large there; "
                "pass --depth-kind disparity)")
    assert said == ([expected] if warned else []), said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


def test_a_depth_sensors_zeros_are_sky_with_depth_zero_is_sky(tmp_path, rng, capsys):
    """A depth sensor's 16-bit millimetres, 0 where it has no reading (too far): refused in
    one line that names --depth-zero-is-sky; with it, those pixels are sky: the picture
    of the same depth with inf there. The flag without --depth is refused as the lens's are."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 2
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    mm = rng.integers(800, 3000, (n, h, w)).astype(np.uint16)
    mm[:, :8] = 0  # no reading: the sky above
    (tmp_path / "depth").mkdir()
    for i, d in enumerate(mm):
        iio.imwrite(tmp_path / "depth" / f"{i:04d}.png", d)
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
            str(tmp_path / "depth"), "--depth-scale", "0.001", "--focus-distance", "1.5",
            "--f-stop", "2", "--sensor-width-mm", "9", "--quiet"]
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: depth frame 0 ({tmp_path / 'depth' / '0000.png'}) has 512 values "
        "<= 0, the first 0 at row 0, column 0; depth must be a distance > 0 (use inf for "
        "sky; hfrender fx --depth-zero-is-sky reads 0 as sky, --depth-range NEAR,FAR a pass "
        "normalised to 0..1)\n")
    assert not (tmp_path / "out").exists()
    assert main(args + ["--depth-zero-is-sky"]) == 0
    metres = np.where(mm == 0, np.inf, mm.astype(np.float32) * np.float32(0.001))
    expected = hf.depth_of_field(frames, metres, focus_distance=1.5, f_stop=2.0,
                                 sensor_width_mm=9.0)
    got = np.stack([iio.imread(tmp_path / "out" / f"{i:03d}.png") for i in range(n)])
    np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(got[:, :8], frames[:, :8])  # the sky is blurred, not kept
    assert main(["fx", str(seq), "-o", str(tmp_path / "x.mp4"), "--motion-blur", "2",
                 "--depth-zero-is-sky"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --depth-zero-is-sky applies only with "
                                       "--depth DEPTH (depth of field from a depth pass): give "
                                       "--depth, or leave it out\n")


def test_one_depth_frame_serves_a_locked_off_shot(tmp_path, rng):
    """--depth of one frame (an (H, W) .npy, or one 16-bit PNG file) is every frame's
    depth: the picture of a per-frame pass repeating it."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 3
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    mm = rng.integers(800, 4000, (h, w)).astype(np.uint16)
    np.save(tmp_path / "each.npy", np.stack([mm * np.float32(0.001)] * n))
    np.save(tmp_path / "one.npy", mm * np.float32(0.001))
    iio.imwrite(tmp_path / "one.png", mm)
    # and one frame batched as hf.depth_of_field takes it, (1, H, W) or a tensor's (1, 1,
    # H, W) (was: "has 1 frame, the footage 3", a library user's trial)
    np.save(tmp_path / "batched.npy", (mm * np.float32(0.001))[None])
    np.save(tmp_path / "tensor.npy", (mm * np.float32(0.001))[None, None])
    lens = ["--focus-distance", "1.5", "--f-stop", "1.4", "--sensor-width-mm", "9", "--quiet"]
    outs = []
    for depth, scale in (("each.npy", []), ("one.npy", []), ("one.png", ["--depth-scale",
                                                                          "0.001"]),
                         ("batched.npy", []), ("tensor.npy", [])):
        out = tmp_path / depth.replace(".", "_")
        assert main(["fx", str(seq), "-o", str(out / "%03d.png"), "--depth",
                     str(tmp_path / depth), *scale, *lens]) == 0
        outs.append(np.stack([iio.imread(out / f"{i:03d}.png") for i in range(n)]))
    assert (outs[0] != frames).mean() > 0.3  # (it blurs)
    for other in outs[1:]:
        np.testing.assert_array_equal(other, outs[0])


def test_one_depth_frame_for_a_shot_is_checked_once(tmp_path, rng, monkeypatch):
    """Not once a frame (0.23 ms a 1280x720 frame): the same frame each time."""
    from hfrender import validate

    clip, _ = make_clip(tmp_path, rng, n=6)
    np.save(tmp_path / "d.npy", rng.uniform(0.5, 9.0, (36, 64)).astype(np.float32))
    checked = []
    real = validate.depth_frame
    monkeypatch.setattr(validate, "depth_frame",
                        lambda arr, i, *a, **k: checked.append(i) or real(arr, i, *a, **k))
    assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--depth",
                 str(tmp_path / "d.npy"), "--focus-distance", "2", "--f-stop", "2",
                 "--quiet"]) == 0
    assert checked == [0] and decode(tmp_path / "o.mp4")[0].shape[0] == 6


def test_one_depth_frame_over_many_hyperframes_is_each_frames_depth(tmp_path, rng,
                                                                    monkeypatch):
    """30 frames, 8 a hyperframe: the pool's slots come round again, and their planes,
    filled with a one-frame pass once, keep it (written 30 times before): the pictures of
    a per-frame pass repeating it. The fusion is given that plane as every frame's (a
    stride of 0: a GPU takes it across once), a per-frame pass's planes as they are."""
    import imageio.v3 as iio

    from hfrender.io.depth_pass import DepthReader

    seq, _ = png_sequence(tmp_path, rng, 30, 24, 64)
    one = rng.uniform(0.5, 6.0, (24, 64)).astype(np.float32)
    np.save(tmp_path / "one.npy", one)
    np.save(tmp_path / "each.npy", np.stack([one] * 30))
    writes = []
    real = DepthReader.into
    monkeypatch.setattr(DepthReader, "into", lambda self, plane, i: (
        writes.append(len(self.filled)), real(self, plane, i)))
    strides = {}
    from hfrender.engine import fx_fusion

    fuse = fx_fusion.fuse
    monkeypatch.setattr(fx_fusion, "fuse", lambda hyper, *a, **k: (
        strides.setdefault(name, set()).add(hyper.depth.strides[0]), fuse(hyper, *a, **k))[1])
    outs = []
    for name in ("each.npy", "one.npy"):
        out = tmp_path / name.replace(".", "_")
        assert main(["fx", str(seq), "-o", str(out / "%03d.png"), "--depth",
                     str(tmp_path / name), "--focus-distance", "1.5", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
        outs.append(np.stack([iio.imread(out / f"{i:03d}.png") for i in range(30)]))
    np.testing.assert_array_equal(outs[1], outs[0])
    assert len(writes) == 2 * 29 and max(writes) < 29  # planes filled: fewer than frames
    assert strides == {"each.npy": {24 * 64 * 4}, "one.npy": {0}}


def test_verbose_fx_says_the_depths_range_and_the_blur_it_makes(tmp_path, rng, caplog):
    """-v: the first depth frame's range (sky named apart) and its largest circle of
    confusion, so that an f-stop can be chosen knowing the blur it gives."""
    seq, _ = png_sequence(tmp_path, rng, 2, 12, 64)
    depth = np.full((2, 12, 64), 4.0, np.float32)
    depth[:, :3] = np.inf
    depth[:, 6:, 10:20] = 1.0
    np.save(tmp_path / "d.npy", depth)
    with caplog.at_level(logging.INFO, logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                     str(tmp_path / "d.npy"), "--focus-distance", "1.5", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
    with caplog.at_level(logging.INFO, logger="hfrender"):  # focused on the wall (4 m)
        assert main(["fx", str(seq), "-o", str(tmp_path / "p" / "%03d.png"), "--depth",
                     str(tmp_path / "d.npy"), "--focus-pixel", "40,8", "--f-stop", "1.4",
                     "--sensor-width-mm", "9", "--quiet"]) == 0
    sky_coc = (50 / 1.4) * 0.05 / (1.5 - 0.05) / 9 * 64  # thin lens, the sky's: the largest
    card_coc = (50 / 1.4) * 3.0 * 0.05 / (4.0 - 0.05) / 9 * 64  # 1 m, focused at 4 m
    said = [r.getMessage() for r in caplog.records if "circles of confusion" in r.getMessage()]
    assert said == [f"depth {tmp_path / 'd.npy'}'s first frame: 1 to 4 m and sky; circles of "
                    f"confusion up to {c:.3g} px across" for c in (sky_coc, card_coc)], said
    assert (f"{sky_coc:.3g}", f"{card_coc:.3g}") == ("8.76", "9.64")


def test_focus_pixel_focuses_each_frame_on_its_depth_there(tmp_path, rng, capsys):
    """--focus-pixel X,Y: autofocus on a point. A card moving from 1 to 2 m under the pixel
    stays sharp in every frame while the wall behind it blurs, each frame as
    hf.depth_of_field focused at the card's distance in that frame."""
    import imageio.v3 as iio

    h, w, n = 24, 64, 3
    seq, frames = png_sequence(tmp_path, rng, n, h, w)
    depth = np.full((n, h, w), 4.0, np.float32)
    card = np.float32([1.0, 1.5, 2.0])
    depth[:, 6:18, 20:44] = card[:, None, None]
    np.save(tmp_path / "depth.npy", depth)
    lens = ["--f-stop", "1.4", "--sensor-width-mm", "9"]
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
            str(tmp_path / "depth.npy"), *lens, "--quiet"]
    assert main(args + ["--focus-pixel", "30,12"]) == 0
    got = np.stack([iio.imread(tmp_path / "out" / f"{i:03d}.png") for i in range(n)])
    for k in range(n):
        expected = hf.depth_of_field(frames[k], depth[k], focus_distance=float(card[k]),
                                     f_stop=1.4, sensor_width_mm=9.0)
        np.testing.assert_array_equal(got[k], expected)
        np.testing.assert_array_equal(got[k, 8:16, 24:40], frames[k, 8:16, 24:40])  # sharp
        assert np.abs(got[k, 20:, :10].astype(int) - frames[k, 20:, :10]).mean() > 10  # wall
    for extra, said in (
            (["--focus-pixel", "30,12", "--focus-distance", "2"], "--focus-distance and "
             "--focus-pixel: give one (the distance in focus, or the pixel whose depth is in "
             "focus)"),
            (["--focus-pixel", "64,3"], "--focus-pixel 64,3 is outside the 64x24 frames (x "
             "from 0 to 63, y from 0 to 23)"),
            (["--focus-pixel", "-1,3"], "--focus-pixel -1,3 must be X,Y, two whole numbers >= "
             "0: the pixel's column and row from the top left corner (e.g. 320,180)"),
            ([], "--depth needs --focus-distance (or --focus-pixel X,Y)")):
        capsys.readouterr()
        assert main(args[:-1] + ["-o", str(tmp_path / "bad" / "%03d.png")] + extra) == 2
        assert capsys.readouterr().err == f"hfrender: error: {said}\n"
    assert not (tmp_path / "bad").exists()
    depth[1, 12, 30] = 0.03  # within the 50 mm focal length: no focus there
    np.save(tmp_path / "depth.npy", depth)
    assert main(args[:-1] + ["-o", str(tmp_path / "bad" / "%03d.png"), "--focus-pixel",
                             "30,12"]) == 2
    said = ("hfrender: error: --focus-pixel 30,12: in frame 1 the depth there is 0.03 m, "
            "nearer than the lens's focal length: nothing can be focused there")
    bad = tmp_path / "bad"
    kept = f"; the 1 frame finished so far is in '{bad / '###.png.partial' / '%03d.png'}' " \
        f"({bad / '%03d.png'} is untouched)"
    # frame 0 may be fused and written before frame 1's error stops the run: it is kept
    assert capsys.readouterr().err in (f"{said}\n", f"{said}{kept}\n")
    assert not bad.exists() or [p.name for p in bad.iterdir()] == ["###.png.partial"]


@pytest.mark.parametrize("blur", [[], ["--motion-blur", "4"], ["--motion-blur", "2",
                                                                  "--stride", "2"]])
def test_a_focus_pixel_within_the_focal_length_names_the_footages_frame(tmp_path, rng, capsys,
                                                                         blur):
    """The frame named is the footage's, with motion blur too (whose stream has frames
    standing in before the clip: the error said frame 8 for frame 5)."""
    h, w, n = 12, 16, 8
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    depth = np.full((n, h, w), 2.0, np.float32)
    depth[5, 4, 6] = 0.01
    np.save(tmp_path / "depth.npy", depth)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o" / "%03d.png"), "--depth",
                 str(tmp_path / "depth.npy"), "--f-stop", "2", "--focus-pixel", "6,4",
                 "--quiet", *blur]) == 2
    assert "hfrender: error: --focus-pixel 6,4: in frame 5 the depth there is 0.01 m" in \
        capsys.readouterr().err


@pytest.mark.parametrize("focus, side", [("2.0", "farther"), ("0.06", "nearer"),
                                         ("0.5", None)])
def test_a_focus_outside_all_of_the_depth_is_warned_of(tmp_path, rng, caplog, focus, side):
    """A depth estimator's disparity saved as depth (near = large, here 0.1-1) with the
    focus at 2 m: no pixel can be in focus, the whole clip blurs. One warning names the
    focus, the first frame's depth range and what depth must be; the run still goes on."""
    h, w, n = 12, 16, 2
    seq, _ = png_sequence(tmp_path, rng, n, h, w)
    disparity = rng.uniform(0.1, 1.0, (n, h, w)).astype(np.float32)
    np.save(tmp_path / "disparity.npy", disparity)
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth",
                     str(tmp_path / "disparity.npy"), "--focus-distance", focus, "--f-stop",
                     "2.8", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records if "focus distance" in r.getMessage()]
    lo, hi = float(disparity[0].min()), float(disparity[0].max())
    expected = (f"the focus distance {float(focus):g} m is {side} than all of depth "
                f"{tmp_path / 'disparity.npy'}'s first frame ({lo:g} to {hi:g} m): no pixel is "
                "in focus. Depth must be metres from the camera (an inverse depth, or "
                "disparity, from a depth estimator is not: near is large there; "
                "blur one as it is with depth_kind='disparity', hfrender fx --depth-kind "
                "disparity)")
    assert said == ([expected] if side else []), said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


@pytest.mark.parametrize("args, message", [
    (["{missing}", "--motion-blur", "4"], r"input not found: .*nope.mkv"),
    (["{clip}", "--motion-blur", "0"], r"--motion-blur 0 must be a whole "
                                       r"number of frames >= 1"),
    (["{clip}", "--motion-blur", "99"], r"--motion-blur 99 is longer than the input \(40 "
                                        r"frames\)"),
    (["{clip}", "--motion-blur", "4", "--stride", "0"], r"--stride 0 must be a whole "
                                                        r"number of frames >= 1"),
    (["{clip}"], r"nothing to do: give --motion-blur N \(or --vectors VECTORS\) and/or "
                 r"--depth DEPTH"),
    (["{clip}", "--depth", "{short}"], r"--depth needs --focus-distance \(or --focus-pixel "
     r"X,Y\) and --f-stop"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*short.npy has 10 frames, the footage 40: one depth frame per frame is needed"),
    (["{clip}", "--depth", "{small}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*small.npy is 32x18, the footage 64x36: they must match"),
    (["{clip}", "--depth", "{empty}", "--focus-distance", "2", "--f-stop", "2"],
     r"depth .*empty.npy has 0 frames, the footage 40: one depth frame per frame is needed"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "0.01", "--f-stop", "2"],
     r"--focus-distance 0.01 must be a distance in metres greater than the focal "
     r"length \(0.05 m, a 50 mm lens\), or inf"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "0"],
     r"--f-stop 0 must be a finite number > 0"),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2",
      "--depth-scale", "inf"], r"--depth-scale inf must be a finite number > 0"),
    (["{notvideo}", "--motion-blur", "2"], r"cannot read .*notvideo.mkv as video: "),
    (["{scene}", "--motion-blur", "2"], r"cannot read .*bar.frag as video \(a scene: "
     r"hfrender render\): "),
    (["{clip}", "--depth", "{short}", "--focus-distance", "2", "--f-stop", "2",
      "--aperture-blades", "2"], r"--aperture-blades 2 must be 0 \(round\) or between 3 and 64"),
    (["{clip}", "--motion-blur", "2", "--aperture-blades", "6"],
     r"--aperture-blades applies only with --depth DEPTH"),
])
def test_bad_input_is_one_line_and_leaves_nothing(tmp_path, rng, capsys, args, message):
    clip, _ = make_clip(tmp_path, rng)
    np.save(tmp_path / "short.npy", np.ones((10, 36, 64), np.float32))
    np.save(tmp_path / "small.npy", np.ones((40, 18, 32), np.float32))
    np.save(tmp_path / "empty.npy", np.ones((0, 36, 64), np.float32))
    (tmp_path / "notvideo.mkv").write_text("hello")
    (tmp_path / "bar.frag").write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }")
    names = dict(clip=clip, missing=tmp_path / "nope.mkv", short=tmp_path / "short.npy",
                 small=tmp_path / "small.npy", notvideo=tmp_path / "notvideo.mkv",
                 empty=tmp_path / "empty.npy", scene=tmp_path / "bar.frag")
    before = set(tmp_path.iterdir())
    out = tmp_path / "out.mp4"
    code = main(["fx", *[a.format(**names) for a in args], "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and re.fullmatch(rf"hfrender: error: {message}.*\n", err), err
    assert set(tmp_path.iterdir()) == before  # no output, no partial file


def test_a_failure_midway_leaves_no_output_that_looks_complete(tmp_path, rng, monkeypatch):
    clip, _ = make_clip(tmp_path, rng)
    from hfrender.engine import fx, fx_fusion

    calls = {"n": 0}
    real = fx_fusion.motion_blur

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("disk gone")
        return real(*args, **kwargs)

    monkeypatch.setattr(fx_fusion, "motion_blur", flaky)
    out = tmp_path / "out.mp4"
    with pytest.raises(RuntimeError, match="disk gone"):
        fx.run_fx(str(clip), str(out), fx.FxSettings(window=4))
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if "out" in p.name] == []


@pytest.mark.parametrize("window", [3, 8])
def test_a_fusion_error_ends_the_run_instead_of_hanging(tmp_path, rng, monkeypatch, window):
    import threading
    import time

    clip, _ = make_clip(tmp_path, rng)
    from hfrender.engine import fx, fx_fusion

    real = fx_fusion.motion_blur

    def failing(frames, *args, **kwargs):
        if len(frames) > window:  # a hyperframe, not a lead-in window
            time.sleep(0.5)  # meanwhile the decoder fills the other slot and asks for more
            raise RuntimeError("fusion failed")
        return real(frames, *args, **kwargs)

    monkeypatch.setattr(fx_fusion, "motion_blur", failing)
    out = tmp_path / "out.mp4"
    raised = []

    def run():
        try:
            fx.run_fx(str(clip), str(out), fx.FxSettings(window=window))
        except RuntimeError as exc:
            raised.append(str(exc))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)  # the decoder waits for a slot that the failed fusion held: released
    assert not t.is_alive() and raised == ["fusion failed"]
    assert not out.exists()


def test_depth_from_npz_matches_npy(tmp_path, rng, capsys):
    import imageio.v3 as iio

    seq = tmp_path / "f"
    seq.mkdir()
    frames = rng.integers(0, 256, (3, 20, 30, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:02d}.png", f)
    depth = rng.choice([0.8, 1.5, 4.0], size=(3, 20, 30)).astype(np.float32)
    np.save(tmp_path / "d.npy", depth)
    np.savez(tmp_path / "d.npz", depth=depth)
    lens = ["--focus-distance", "1.5", "--f-stop", "1.4", "--sensor-width-mm", "6", "--quiet"]
    for name in ("d.npy", "d.npz"):
        assert main(["fx", str(seq), "-o", str(tmp_path / name[-3:] / "%02d.png"), "--depth",
                     str(tmp_path / name), *lens]) == 0
    np.testing.assert_array_equal(read_pngs(tmp_path / "npy"), read_pngs(tmp_path / "npz"))
    assert not np.array_equal(read_pngs(tmp_path / "npy"), frames)
    np.savez(tmp_path / "one.npz", z=depth)  # its only array
    np.savez(tmp_path / "two.npz", a=depth, b=depth * 2)  # which? said, not guessed
    assert main(["fx", str(seq), "-o", str(tmp_path / "one" / "%02d.png"), "--depth",
                 str(tmp_path / "one.npz"), *lens]) == 0
    np.testing.assert_array_equal(read_pngs(tmp_path / "one"), read_pngs(tmp_path / "npy"))
    assert main(["fx", str(seq), "-o", str(tmp_path / "two" / "%02d.png"), "--depth",
                 str(tmp_path / "two.npz"), *lens]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {tmp_path / 'two.npz'} holds 2 arrays "
                                       "(a, b) and none named depth: save the pass as "
                                       "numpy.savez(path, depth=...)\n")
    assert not (tmp_path / "two").exists()


def test_native_420_code_value_path_equals_tmix_bit_for_bit(tmp_path, rng):
    w, h = 64, 36
    frames = rng.integers(0, 256, (30, h, w, 3), dtype=np.uint8)
    (tmp_path / "raw").write_bytes(frames.tobytes())
    clip = tmp_path / "in.mp4"  # an ordinary 4:2:0 H.264 clip
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", "30", "-i",
                    str(tmp_path / "raw"), "-c:v", "libx264", "-pix_fmt", "yuv420p", str(clip)],
                   check=True)
    assert main(["fx", str(clip), "-o", str(tmp_path / "hf.mp4"), "--motion-blur", "4",
                 "--gamma-space", "--quiet"]) == 0
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", str(clip), "-vf",
                    "tmix=frames=4", "-c:v", "libx264", "-crf", "18", "-preset", "medium",
                    "-pix_fmt", "yuv420p", str(tmp_path / "ff.mp4")], check=True)
    a, _ = decode(tmp_path / "hf.mp4")
    b, _ = decode(tmp_path / "ff.mp4")
    assert a.shape == b.shape and np.array_equal(a, b)  # same blend, same encode


def test_sequences_in_numeric_order_gaps_refused_outputs_replaced(tmp_path, rng, capsys,
                                                                  monkeypatch):
    import imageio.v3 as iio

    seq = tmp_path / "in"
    seq.mkdir()
    frames = rng.integers(0, 256, (12, 8, 8, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"frame_{i}.png", f)  # frame_2 sorts after frame_10 by name
    monkeypatch.chdir(tmp_path)
    from hfrender.io.images import write_png8

    for i in range(40):  # an older run's 40 frames
        write_png8(tmp_path / f"o_{i:04d}.png", frames[0])
    assert main(["fx", str(seq), "-o", "o_%04d.png", "--motion-blur", "1", "--quiet"]) == 0
    outs = sorted(tmp_path.glob("o_*.png"))
    assert len(outs) == 12  # no folder in the name works, and the older 40 are gone
    np.testing.assert_array_equal(np.stack([iio.imread(f) for f in outs]), frames)
    (seq / "frame_5.png").unlink()
    assert main(["fx", str(seq / "frame_%d.png"), "-o", "x.mp4", "--motion-blur", "2"]) == 2
    assert "frame_%d.png: frame 5 is missing (the sequence jumps from 4 to 6)" in \
        capsys.readouterr().err


def test_rotated_phone_video_is_read_upright_in_its_turned_size(tmp_path, rng):
    clip, _ = make_clip(tmp_path, rng, n=12)
    turned = tmp_path / "turned.mp4"  # a display matrix, as phones write: pixels stored 64x36
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-display_rotation",
                    "90", "-i", str(clip), "-c", "copy", str(turned)], check=True)
    from hfrender.io.footage import probe

    info = probe(str(turned))
    assert (info.size, info.count, info.has_audio) == ((36, 64), 12, False)
    upright, meta = decode(turned)  # ffmpeg turns the picture when it decodes
    assert upright.shape == (12, 64, 36, 3) and meta["size"] == (36, 64)
    assert main(["fx", str(turned), "-o", str(tmp_path / "o" / "%03d.png"), "--motion-blur",
                 "3", "--stride", "3", "--gamma-space", "--quiet"]) == 0
    got = read_pngs(tmp_path / "o")
    np.testing.assert_array_equal(got, hf.motion_blur(upright, 3, linear_light=False))


def test_probe_counts_frames_sees_audio_and_names_the_path(tmp_path, rng):
    from hfrender.io.footage import FootageError, probe

    clip, _ = make_clip(tmp_path, rng, n=17, audio=True, fps=24)
    info = probe(str(clip))
    assert (info.count, info.fps, info.size, info.has_audio) == (17, 24.0, (64, 36), True)
    assert not info.native_yuv420p  # libx264rgb: RGB planes
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\0" * 100)
    with pytest.raises(FootageError, match=rf"cannot read {re.escape(str(bad))} as video: "):
        probe(str(bad))


def test_decoder_reads_whole_frames_from_a_writer_that_trickles(tmp_path):
    import sys
    import tempfile

    from hfrender.io.ffmpeg import widen_pipe
    from hfrender.io.footage import FootageError, _Decoder

    frame_bytes = 300_000  # 2.5 frames, then the stream stops mid-frame
    writer = ("import sys, time\n"
              "data = bytes(i % 251 for i in range(750_000))\n"
              "for a in range(0, len(data), 7000):\n"
              "    sys.stdout.buffer.write(data[a:a + 7000]); sys.stdout.buffer.flush()\n"
              "    time.sleep(0.0005)\n")
    dec = _Decoder.__new__(_Decoder)
    dec.path, dec.frame_bytes, dec.frames_read = "trickle", frame_bytes, 0
    dec.log = tempfile.TemporaryFile()
    dec.proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE)
    widen_pipe(dec.proc.stdout)
    want = np.arange(750_000) % 251
    buf = np.empty(frame_bytes, np.uint8)
    for k in range(2):
        assert dec.read_into(buf)
        np.testing.assert_array_equal(buf, want[k * frame_bytes:(k + 1) * frame_bytes])
    with pytest.raises(FootageError, match="trickle: decoding stopped after 2 frames: the video "
                                           "ended in the middle of a frame"):
        dec.read_into(buf)
    # an ffmpeg that fails after two whole frames: an error, not a shorter video
    failing = ("import sys\n"
               "sys.stdout.buffer.write(bytes(600_000)); sys.stdout.buffer.flush()\n"
               "sys.stderr.write('Invalid NAL unit size (9 > 4).\\n'); sys.exit(1)\n")
    dec.frames_read, dec.log = 0, tempfile.TemporaryFile()
    dec.proc = subprocess.Popen([sys.executable, "-c", failing], stdout=subprocess.PIPE,
                                stderr=dec.log)
    assert dec.read_into(buf) and dec.read_into(buf)
    with pytest.raises(FootageError, match=r"trickle: decoding stopped after 2 frames: Invalid "
                                           r"NAL unit size \(9 > 4\)\.$"):
        dec.read_into(buf)


def test_motion_blur_with_depth_of_field_pads_the_lead_in_with_frame_zero(tmp_path, rng):
    h, w, n = 36, 64, 7
    clip, frames = make_clip(tmp_path, rng, n=n)
    depth_m = rng.uniform(0.5, 6.0, (n, h, w)).astype(np.float32)  # every frame its own depth
    np.save(tmp_path / "depth.npy", depth_m)
    assert main(["fx", str(clip), "-o", str(tmp_path / "o" / "%03d.png"), "--motion-blur",
                 "3", "--depth", str(tmp_path / "depth.npy"), "--focus-distance", "1.5",
                 "--f-stop", "1.4", "--sensor-width-mm", "9", "--quiet"]) == 0
    got = read_pngs(tmp_path / "o")
    order = [0, 0] + list(range(n))  # windows before the clip: frame 0 (and its depth) again
    lens = hf.Lens(1.5, 1.4, 50.0, 9.0)
    want = hf.fuse(hf.HyperFrame(frames[order], depth_m[order]),
                   hf.WindowWeights.sliding(np.ones(3) / 3, n, 1), lens=lens)
    assert got.shape == (n, h, w, 3)
    np.testing.assert_array_equal(got, want)
    assert np.abs(got[0].astype(int) - got[3]).max() > 50  # not all one picture


def test_cover_art_and_odd_names_do_not_confuse_the_reader(tmp_path, rng, monkeypatch):
    clip, frames = make_clip(tmp_path, rng, n=10)
    monkeypatch.chdir(tmp_path)  # a relative name
    import imageio.v3 as iio

    iio.imwrite(tmp_path / "cover.png", np.zeros((16, 16, 3), np.uint8))
    odd = tmp_path / "take:1.mp4"  # ffmpeg would read "take:" as a protocol
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", str(clip), "-i",
                    str(tmp_path / "cover.png"), "-map", "0", "-map", "1", "-c:v:0", "copy",
                    "-c:v:1", "png", "-disposition:v:1", "attached_pic", "file:" + str(odd)],
                   check=True)
    from hfrender.io.footage import probe

    info = probe("take:1.mp4")
    assert (info.size, info.count) == ((64, 36), 10)  # the film, not the 16x16 cover
    out = tmp_path / "o" / "%03d.png"
    assert main(["fx", "take:1.mp4", "-o", str(out), "--motion-blur", "2", "--gamma-space",
                 "--quiet"]) == 0
    np.testing.assert_array_equal(read_pngs(tmp_path / "o"), _lead(frames, 2))


def _lead(frames, window):
    """Code-value box windows at stride 1 with frame 0 standing in before the clip."""
    padded = np.concatenate([np.repeat(frames[:1], window - 1, 0), frames]).astype(np.int64)
    sums = np.stack([padded[k:k + window].sum(0) for k in range(len(frames))])
    return ((sums + window // 2) // window).astype(np.uint8)


def test_hyperframe_size_follows_window_stride_and_memory(monkeypatch):
    from hfrender.engine import fx
    from hfrender.io.footage import FootageError

    monkeypatch.setattr(fx, "free_memory_bytes", lambda: 64 << 30)
    monkeypatch.setattr("hfrender.hyperframe.builder.free_memory_bytes", lambda: 64 << 30)
    per = fx.outputs_per_hyperframe
    mb = 1 << 20
    assert [per(mb, fx.FxSettings(window=w, stride=st)) for w, st in
            [(8, 1), (30, 1), (100, 1), (8, 8), (3, 5)]] == [8, 30, 32, 8, 8]
    # half the free memory for a pool of 2 slots of 40 frames: the 29-frame halo + 11 new
    monkeypatch.setattr("hfrender.hyperframe.builder.free_memory_bytes", lambda: 2 * 2 * 40 * mb)
    assert per(mb, fx.FxSettings(window=30, stride=1)) == 11
    # 2 x 39 x 2**20 = 81,788,928 B (81.8 MB) do not fit 70 x 2**20 = 73,400,320 B (73.4 MB)
    monkeypatch.setattr(fx, "free_memory_bytes", lambda: 70 * mb)
    with pytest.raises(FootageError, match=r"--motion-blur 30 --stride 10 holds 39 frames per "
                                           r"hyperframe, 81\.8 MB in all; 73\.4 MB is free: "
                                           r"use a shorter window or stride$"):
        per(mb, fx.FxSettings(window=30, stride=10))


def test_variable_frame_rate_footage_keeps_its_frame_times(tmp_path, rng, caplog, capsys):
    from hfrender.io.ffmpeg import timestamps_filter
    from hfrender.io.footage import probe

    n = 24
    times = np.cumsum(np.r_[0, rng.choice([1 / 30, 1 / 60, 0.1], n - 1)])  # a screen capture
    frames = rng.integers(0, 256, (n, 36, 64, 3), dtype=np.uint8)
    raw = tmp_path / "in.raw"
    frames.tofile(raw)
    clip = tmp_path / "vfr.mkv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-s", "64x36", "-r", "30", "-i", str(raw), "-/vf",
                    _filter_file(tmp_path, timestamps_filter(list(times))), "-fps_mode",
                    "passthrough", "-enc_time_base:v", "filter", "-c:v", "libx264rgb", "-qp",
                    "0", str(clip)], check=True)
    got = probe(str(clip)).times
    assert got is not None and np.abs(np.array(got) - times).max() < 1.5e-3
    for out in (tmp_path / "out.mp4", tmp_path / "out.mkv"):
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
        info = probe(str(out))
        assert info.count == n and np.abs(np.array(info.times) - times).max() < 1.5e-3, out
    assert not caplog.records
    gif = tmp_path / "out.gif"  # evenly spaced frames: the timing evens out, said
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(gif), "--motion-blur", "2", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{clip} has a variable frame rate; {gif} plays its frames evenly spaced (at "
        f"{probe(str(clip)).fps:.4g} fps), so its timing is evened out (a video output keeps it)"]
    caplog.clear()  # a sequence's too (was unsaid, and the summary named one rate, a trial)
    pngs = tmp_path / "png" / "%03d.png"
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(pngs), "--motion-blur", "2"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{clip} has a variable frame rate; {pngs} numbers its frames evenly spaced (at "
        f"{probe(str(clip)).fps:.4g} fps), so its timing is evened out (a video output keeps it)"]
    assert capsys.readouterr().out.splitlines()[-1].endswith(
        f"from {n} at a variable rate (about {probe(str(clip)).fps:.3g} fps)")
    # with a stride, each output frame at its window's first frame's time (it was a new,
    # constant rate: a frame after a pause was shown 0.3 s early, against the sound)
    assert main(["fx", str(clip), "-o", str(tmp_path / "s.mkv"), "--motion-blur", "2",
                 "--stride", "2", "--quiet"]) == 0
    info = probe(str(tmp_path / "s.mkv"))
    assert info.count == (n - 2) // 2 + 1
    assert np.abs(np.array(info.times) - times[::2][:info.count]).max() < 1.5e-3
    capsys.readouterr()
    assert main(["fx", str(clip), "-o", str(tmp_path / "t.mkv"), "--motion-blur", "2",
                 "--stride", "2"]) == 0  # the summary: no one rate (it said "at 15 fps")
    fps = probe(str(clip)).fps
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"wrote {tmp_path / 't.mkv'}: {info.count} frames at about {fps / 2:.3g} fps from {n} "
        f"at a variable rate (about {fps:.3g} fps), each at its frame's time")
    assert n / (times[-1] * (1 + 2 / (n - 1))) <= fps <= n / times[-1]  # the mean rate
    assert main(["fx", str(clip), "-o", str(tmp_path / "t.gif"), "--motion-blur", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (  # a GIF evens the timing out
        f"wrote {tmp_path / 't.gif'}: {n} frames at {fps:g} fps from {n} at a variable rate "
        f"(about {fps:.3g} fps)")  # (was "from 24 at 20 fps": a constant rate, a trial)


def _filter_file(folder, text):
    path = folder / "timing.filter"
    path.write_text(text)
    return str(path)


def test_timestamps_filter_is_one_piece_per_run_of_even_spacing():
    from hfrender.io.ffmpeg import timestamps_filter

    even = timestamps_filter([k / 25 for k in range(1000)])
    assert even == "settb=1/90000,setpts='(0.000000000+(N-0)*0.040000000)/TB+0.5'\n"
    gaps = timestamps_filter([0, 0.04, 0.08, 0.5, 0.54, 0.58, 0.62, 1.0])
    assert gaps.count("if(") == 2 and "lt(N,3)" in gaps and "lt(N,7)" in gaps


def test_progress_counts_every_output_frame_from_the_first(tmp_path, rng):
    from hfrender.engine.fx import FxSettings, run_fx

    clip, _ = make_clip(tmp_path, rng, n=30)
    calls = []
    stats = run_fx(str(clip), str(tmp_path / "o.mkv"), FxSettings(window=5),
                   progress=lambda done, total: calls.append((done, total)))
    assert stats.frames_out == 30 and calls[-1] == (30, 30)
    # told at the start (0: a bar from then), then the lead-in frame by frame
    assert calls[:5] == [(0, 30), (1, 30), (2, 30), (3, 30), (4, 30)]
    done = [d for d, _ in calls]
    assert done == sorted(set(done)) and {t for _, t in calls} == {30}
    calls.clear()
    run_fx(str(clip), str(tmp_path / "s.mkv"), FxSettings(window=5, stride=5),
           progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (6, 6)


def test_probe_takes_ntsc_rates_exactly_trims_and_offsets_from_timestamps(tmp_path):
    from hfrender.io.footage import probe

    def make(name, *args):
        subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", *args,
                        str(tmp_path / name)], check=True)
        return str(tmp_path / name)

    src = ["-f", "lavfi", "-i", "testsrc=size=64x36:rate=24000/1001", "-frames:v", "48"]
    assert probe(make("ntsc.mp4", *src, "-pix_fmt", "yuv420p")).fps == 24000 / 1001
    assert probe(make("ntsc.mkv", *src, "-pix_fmt", "yuv420p")).fps == 23.98  # ms: unsure
    full = make("full.mp4", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=30", "-frames:v",
                "90", "-g", "30", "-pix_fmt", "yuv420p")
    trimmed = make("trim.mp4", "-ss", "1.3", "-i", full, "-c", "copy")  # an edit list
    decoded = sum(1 for _ in list(imageio_ffmpeg.read_frames(trimmed))[1:])
    assert probe(trimmed).count == decoded < 90
    late = make("late.mkv", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=30", "-f", "lavfi",
                "-i", "sine=duration=3", "-frames:v", "60", "-output_ts_offset", "0",
                "-vf", "setpts=PTS+1.5/TB", "-pix_fmt", "yuv420p", "-c:a", "aac")
    info = probe(late)
    assert info.has_audio and abs(info.start - 1.5) < 0.01
    out = tmp_path / "out.mkv"
    assert main(["fx", late, "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert abs(probe(str(out)).start - 1.5) < 0.03  # still 1.5 s after the sound starts


def test_ffmpeg_processes_that_move_frames_keep_freed_frames(tmp_path, rng, monkeypatch):
    from hfrender.io import footage
    from hfrender.io import writers as writer

    seen = []
    real = subprocess.Popen

    def spy(cmd, *args, **kwargs):
        seen.append((cmd, kwargs.get("env")))
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(footage.subprocess, "Popen", spy)
    monkeypatch.setattr(writer.subprocess, "Popen", spy)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")  # the user's own setting wins
    clip, frames = make_clip(tmp_path, rng, n=12)
    out = tmp_path / "out.mkv"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "3", "--quiet"]) == 0
    roles = {("decoder" if "-c:v" not in cmd else "encoder"): env for cmd, env in seen
             if "rawvideo" in cmd}
    assert set(roles) == {"decoder", "encoder"}
    for env in roles.values():
        assert env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)
        assert env["MALLOC_TRIM_THRESHOLD_"] == "12345"
        assert env["PATH"] == os.environ["PATH"]  # the rest of the environment is kept
    assert len(decode(out)[0]) == 12


def test_dof_method_reaches_fx_and_render(tmp_path, rng, capsys):
    """--dof-method exact is the gather; fast (the default) the layers: each as the library."""
    import imageio.v3 as iio

    seq = tmp_path / "f"
    seq.mkdir()
    frames = rng.integers(0, 256, (2, 24, 40, 3), dtype=np.uint8)
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:02d}.png", f)
    # a depth ramp: more circles of confusion than layers, where fast and exact differ
    ramp = np.linspace(0.4, 9.0, 40, dtype=np.float32)[None, None, :]
    depth = (ramp * rng.uniform(0.9, 1.1, (2, 24, 1))).astype(np.float32)
    np.save(tmp_path / "d.npy", depth)
    lens = dict(focus_distance=1.5, f_stop=1.4, sensor_width_mm=6.0)
    flags = ["--focus-distance", "1.5", "--f-stop", "1.4", "--sensor-width-mm", "6", "--quiet"]
    for method in ("exact", "fast"):
        out = tmp_path / method / "%02d.png"
        assert main(["fx", str(seq), "-o", str(out), "--depth", str(tmp_path / "d.npy"),
                     "--dof-method", method, *flags]) == 0
        want = hf.depth_of_field(frames, depth, method=method, backend="cpu", **lens)
        np.testing.assert_array_equal(read_pngs(tmp_path / method), want)
    assert not np.array_equal(read_pngs(tmp_path / "exact"), read_pngs(tmp_path / "fast"))
    assert main(["fx", str(seq), "-o", str(tmp_path / "x.mp4"), "--motion-blur", "2",
                 "--dof-method", "exact"]) == 2
    assert "--dof-method applies only with --depth" in capsys.readouterr().err
    from hfrender.config import RenderConfig

    with pytest.raises(hf.InputError, match="dof_method='slow' must be one of fast, exact"):
        RenderConfig(dof_method="slow")


def test_aperture_blades_shape_the_bokeh_of_the_footage(tmp_path, rng):
    import imageio.v3 as iio

    seq = tmp_path / "in"
    seq.mkdir()
    frames = np.zeros((2, 40, 64, 3), np.uint8)
    frames[:, 20, 32] = 255  # a point light, far behind the focus
    for i, f in enumerate(frames):
        iio.imwrite(seq / f"{i:02d}.png", f)
    np.save(tmp_path / "d.npy", np.full((2, 40, 64), 8.0, np.float32))
    flags = ["--depth", str(tmp_path / "d.npy"), "--focus-distance", "1", "--f-stop", "1",
             "--sensor-width-mm", "6", "--quiet"]
    for blades in ("0", "6"):
        assert main(["fx", str(seq), "-o", str(tmp_path / blades / "%02d.png"), *flags,
                     "--aperture-blades", blades]) == 0
    hexagon, round_ = read_pngs(tmp_path / "6"), read_pngs(tmp_path / "0")
    want = hf.depth_of_field(frames, np.full((2, 40, 64), 8.0, np.float32), focus_distance=1.0,
                             f_stop=1.0, sensor_width_mm=6.0, aperture_blades=6, backend="cpu")
    np.testing.assert_array_equal(hexagon, want)
    lit6, lit0 = (hexagon[0, ..., 0] > 0).sum(), (round_[0, ..., 0] > 0).sum()
    assert 0.7 * lit0 < lit6 < 0.9 * lit0  # a hexagon in the circle: 83% of its area


@pytest.mark.parametrize("existed", [False, True])
def test_a_failed_run_keeps_the_frames_it_made_apart_and_says_where(tmp_path, rng, capsys,
                                                                    existed):
    """-o out/a/%05d.png with a bad depth frame half-way: no frame of the output appears;
    those made are kept in out/a/#####.png.partial/ (as render keeps them; a run goes on
    from them with --resume once its cause is fixed), and the error line says so."""
    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=8)
    (tmp_path / "d").mkdir()  # a PNG sequence: checked frame by frame (an .npy: whole, first)
    for i in range(8):
        mm = np.full((36, 64), 2000, np.uint16)
        mm[3, 4] = 0 if i == 5 else 2000
        iio.imwrite(tmp_path / "d" / f"{i:04d}.png", mm)
    if existed:
        (tmp_path / "out" / "a").mkdir(parents=True)
    code = main(["fx", str(clip), "-o", str(tmp_path / "out" / "a" / "%05d.png"), "--depth",
                 str(tmp_path / "d"), "--depth-scale", "0.001", "--focus-distance", "2",
                 "--f-stop", "2", "--quiet"])
    assert code == 2
    kept = tmp_path / "out" / "a" / "#####.png.partial"
    frames = sorted(f.name for f in kept.glob("*.png"))
    assert capsys.readouterr().err == (
        f"hfrender: error: depth frame 5 ({tmp_path / 'd' / '0005.png'}) has a value <= 0 (0) "
        "at row 3, column 4; depth must be a distance > 0 (use inf for sky; hfrender fx "
        "--depth-zero-is-sky reads 0 as sky, --depth-range NEAR,FAR a pass normalised to "
        f"0..1); the {len(frames)} frames finished so far are "
        f"in '{kept / '%05d.png'}' "
        f"({tmp_path / 'out' / 'a' / '%05d.png'} is untouched)\n")
    assert frames == [f"{i:05d}.png" for i in range(len(frames))] and 0 < len(frames) <= 5
    assert [f.name for f in (tmp_path / "out" / "a").iterdir()] == ["#####.png.partial"]


def test_a_depth_frame_of_another_size_is_named_in_width_x_height(tmp_path, rng, capsys):
    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=3)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i, (h, w) in enumerate([(36, 64), (36, 64), (18, 32)]):
        iio.imwrite(folder / f"{i:02d}.png", np.full((h, w), 2000, np.uint16))
    code = main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--depth", str(folder),
                 "--depth-scale", "0.001", "--focus-distance", "2", "--f-stop", "2"])
    assert code == 2
    assert capsys.readouterr().err.endswith(
        f"hfrender: error: depth frame 2 ({folder / '02.png'}) is 32x18, the first 64x36: a "
        "depth pass is one size\n")  # named by its file (was: by its number alone)
    assert main(["fx", str(clip), "-o", str(tmp_path / "s.mp4"), "--motion-blur", "3",
                 "--stride", "3"]) == 0  # one output frame: counted as one
    assert capsys.readouterr().out.strip() == (f"wrote {tmp_path / 's.mp4'}: 1 frame at 10 fps "
                                               "from 3 at 30 fps")


def test_a_pattern_of_another_width_than_the_files_names_the_one_that_reads_them(
        tmp_path, rng, capsys):
    """Blender writes 0001.png; in/%05d.png prints 00001.png, which is not there: the line
    names the pattern that reads what is, and following it works."""
    import imageio.v3 as iio

    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(1, 4):
        iio.imwrite(folder / f"{i:04d}.png", rng.integers(0, 256, (8, 8, 3), dtype=np.uint8))
    out = str(tmp_path / "o" / "%02d.png")
    assert main(["fx", str(folder / "%05d.png"), "-o", out, "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {folder / '%05d.png'}: no file has the names this pattern prints; "
        f"{folder} holds 0001.png ... (3 files): give {folder / '%04d.png'}, or the folder\n")
    assert main(["fx", str(folder / "%04d.png"), "-o", out, "--motion-blur", "2",
                 "--quiet"]) == 0
    assert len(list((tmp_path / "o").iterdir())) == 3


def test_an_8_bit_depth_pass_is_warned_of_as_steps(tmp_path, rng, caplog):
    """256 depths at most: a slanted floor's blur changes in steps; said, still run."""
    import imageio.v3 as iio

    h, w, n = 12, 16, 2
    seq, depth = tmp_path / "frames", tmp_path / "depth"
    seq.mkdir()
    depth.mkdir()
    for i in range(n):
        iio.imwrite(seq / f"{i:04d}.png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        iio.imwrite(depth / f"{i:04d}.png", rng.integers(1, 256, (h, w), dtype=np.uint8))
    args = ["fx", str(seq), "-o", str(tmp_path / "out" / "%03d.png"), "--depth", str(depth),
            "--depth-scale", "0.05", "--focus-distance", "2.0", "--f-stop", "2.8", "--quiet"]
    with caplog.at_level(logging.WARNING, logger="hfrender"):
        assert main(args) == 0
    said = [r.getMessage() for r in caplog.records if "8-bit" in r.getMessage()]
    assert said == [f"depth {depth} is 8-bit: 256 depths at most, so the blur changes in steps "
                    "along a slanted surface; write 16-bit PNG or EXR depth"], said
    assert len(list((tmp_path / "out").glob("*.png"))) == n


def test_fx_into_a_log_says_its_progress_in_lines(tmp_path, rng, capsys, monkeypatch):
    """stderr not a terminal (a log, a pipe): fx's progress comes as lines naming fx, the
    frames done out of the clip's and the rate (here one after each hyperframe written: the
    line's interval set to 0; the time left once as long has passed since the first frame as
    it took), the summary on stdout as before."""
    from hfrender import progress as common

    monkeypatch.setattr(common, "LOG_EVERY_S", 0.0)
    monkeypatch.setattr(common, "RATE_AFTER_S", 0.0)  # a rate from the first line on
    clip, _ = make_clip(tmp_path, rng, n=24)
    assert main(["fx", str(clip), "-o", str(tmp_path / "out.mkv"), "--motion-blur", "2"]) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines()  # (a slow first frame's, beside)
             if not re.fullmatch(r"fx: 0/24 frames \(0%\), first frame in progress, \d+s so "
                                 r"far \(now \d\d:\d\d:\d\d\)", line)]
    assert lines and all(re.fullmatch(r"fx: (\d+)/24 frames \(\d+%\), [\d.]+ fps(, about \d+s "
                                      r"left)? \(now \d\d:\d\d:\d\d\)", line) for line in lines), \
        captured.err
    done = [int(re.match(r"fx: (\d+)/", line).group(1)) for line in lines]
    assert done == sorted(done) and 0 < done[0] and done[-1] < 24
    assert captured.out.startswith(f"wrote {tmp_path / 'out.mkv'}: 24 frames at 30 fps"), \
        captured.out


@pytest.mark.parametrize("container", ["mp4", "ts"])
def test_a_video_starting_after_its_sound_keeps_its_place_whatever_the_files_start(
        tmp_path, container):
    """The video 0.5 s after the sound, in a file whose timestamps start at 10 s (a
    broadcast cut, an .ts capture): the output's video still starts 0.5 s after its sound
    (was: at 0, the sound 0.52 s late against the picture: the file's start taken off the
    timestamps twice)."""
    from hfrender.io.probe import probe

    def ff(*args):
        subprocess.run([FFMPEG, "-v", "error", "-y", *map(str, args)], check=True)

    base, late = tmp_path / "base.mp4", tmp_path / "late.mp4"
    ff("-f", "lavfi", "-i", "testsrc2=s=64x36:r=30:d=2", "-f", "lavfi", "-i",
       "sine=f=440:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", base)
    ff("-itsoffset", "0.5", "-i", base, "-i", base, "-map", "0:v", "-map", "1:a", "-c",
       "copy", late)
    shifted = tmp_path / f"shifted.{container}"
    ff("-i", late, "-c", "copy", "-output_ts_offset", "10", shifted)
    assert abs(probe(str(late)).start - 0.5) < 0.01
    assert abs(probe(str(shifted)).start - 0.5) < 0.05  # was 0.0
    out = tmp_path / "o.mp4"
    assert main(["fx", str(shifted), "-o", str(out), "--motion-blur", "1", "--quiet"]) == 0
    assert abs(probe(str(out)).start - probe(str(shifted)).start) < 0.01


def test_a_bad_value_in_a_depth_sequence_names_its_file(tmp_path, rng, capsys):
    """A sequence numbered from 1001: "depth frame 3" left the user to count to the file."""
    import imageio.v3 as iio

    seq, _ = png_sequence(tmp_path, rng, 5, 18, 32)
    folder = tmp_path / "depth"
    folder.mkdir()
    for i in range(5):
        mm = np.full((18, 32), 2000, np.uint16)
        mm[7, 9] = 0 if i == 3 else 2000
        iio.imwrite(folder / f"d.{1001 + i}.png", mm)
    assert main(["fx", str(seq), "-o", str(tmp_path / "o.mp4"), "--depth",
                 str(folder / "d.%04d.png"), "--depth-scale", "0.001", "--focus-distance", "2",
                 "--f-stop", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: depth frame 3 ({folder / 'd.1004.png'}) has a "
                          "value <= 0 (0) at row 7, column 9; depth must be a distance > 0"), err


def test_a_24_fps_gif_is_read_at_about_24_fps(tmp_path, capsys):
    """A GIF's delays are hundredths (40, 40 and 50 ms at 24 fps): ffmpeg guesses 25 fps;
    the summary said "at about 25 fps" for hfrender's own 24 fps GIF."""
    gif, out = tmp_path / "o.gif", tmp_path / "o.mp4"
    assert main(["render", str(Path(__file__).parent / "data" / "bar.frag"), "-o", str(gif),
                 "--size", "32x8", "--samples", "1", "--fps", "24", "--duration", "0.5",
                 "--quiet"]) == 0
    assert main(["fx", str(gif), "-o", str(out), "--motion-blur", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"wrote {out}: 12 frames at about 24 fps from 12 at a variable rate (about 24 fps), "
        "each at its frame's time")


@pytest.mark.parametrize("colour", ["0xC03020", "0x20E040", "0xB4B4B4"])
def test_a_still_flat_colour_comes_back_within_one_code(tmp_path, colour):
    """An 8-bit 4:2:0 clip of one colour through fx (linear light, no motion) came back 1-2
    luma codes darker (swscale's default YUV <-> RGB: truncated, chroma interpolated
    coarsely): (81, 107, 192) -> (79, 107, 192) for 0xC03020 (a video editor's trial)."""
    clip, out = tmp_path / "flat.mp4", tmp_path / "out.mkv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    f"color=c={colour}:size=64x36:rate=30", "-t", "0.2", "-vf",
                    "scale=out_color_matrix=bt709,setparams=colorspace=bt709:"
                    "color_primaries=bt709:color_trc=bt709:range=tv", "-pix_fmt", "yuv420p",
                    "-c:v", "libx264", "-qp", "0", str(clip)], check=True)
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "3", "--codec", "libx264",
                 "--crf", "0", "--pix-fmt", "yuv420p", "--quiet"]) == 0

    def planes(path):
        raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                              "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"],
                             capture_output=True, check=True).stdout
        return np.frombuffer(raw, np.uint8).astype(int)

    a, b = planes(clip), planes(out)
    assert a.size == b.size and np.abs(a - b).max() <= 1


def test_interlaced_footage_and_a_timecode_left_out_are_said(tmp_path, caplog):
    """Interlaced footage came out flagged progressive, fields mixed, and a timecode was
    dropped at --stride 2 or into .mkv, each without a word (a video editor's trial)."""
    inter, timed = tmp_path / "inter.mp4", tmp_path / "tc.mov"
    run = [FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"]
    subprocess.run([*run, "testsrc2=size=64x36:rate=25", "-t", "0.4", "-pix_fmt", "yuv420p",
                    "-c:v", "libx264", "-flags", "+ilme+ildct", "-x264opts", "tff=1",
                    str(inter)], check=True)
    subprocess.run([*run, "testsrc2=size=64x36:rate=30000/1001", "-t", "0.4", "-c:v",
                    "prores_ks", "-timecode", "01:00:00;00", str(timed)], check=True)

    def said(*args):  # (ProRes is 10-bit: its 8-bit output's warning is another test's)
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", *map(str, args), "--motion-blur", "2", "--quiet"]) == 0
        return [r.getMessage() for r in caplog.records if "more than 8 bits" not in
                r.getMessage()]

    hint = ("is progressive; deinterlace it first, a frame a frame (ffmpeg -i IN -vf "
            "bwdif=mode=send_frame OUT; bwdif alone makes a frame of each field, twice the "
            "rate)")
    assert said(inter, "-o", tmp_path / "i.mp4") == [
        f"{inter} is interlaced (top first): fx blends whole frames, so its fields mix and "
        f"{tmp_path / 'i.mp4'} {hint}"]
    dropped = (f"{timed} has timecode 01:00:00;00; {{}} keeps none (fx keeps it at --stride 1 "
               "in .mov and .mp4)")
    assert said(timed, "-o", tmp_path / "t.mkv") == [dropped.format(tmp_path / "t.mkv")]
    assert said(timed, "-o", tmp_path / "s.mov", "--stride", "2") == [
        dropped.format(tmp_path / "s.mov")]
    assert said(timed, "-o", tmp_path / "k.mov") == []  # kept: nothing to say


def test_dv_said_progressive_is_not_said_interlaced(caplog):
    """A review: DV flagged progressive (in .mov, or DVCPRO HD 720p) was told to be
    deinterlaced too."""
    from hfrender.engine.fx_notes import picture_notes
    from hfrender.io.probe import VideoInfo

    for pix_fmt, said in (("yuv420p(progressive)", False), ("yuv422p", True)):
        caplog.clear()
        with caplog.at_level("WARNING"):
            picture_notes("in.mov", "o.mp4", VideoInfo(25.0, (720, 576), 10, pix_fmt, False,
                                                       codec="dvvideo"))
        assert any("is interlaced (DV" in r.getMessage() for r in caplog.records) == said


@pytest.mark.parametrize("size, rate, pix, fps", [
    ("720x576", "25", "yuv420p", 25.0), ("720x480", "30000/1001", "yuv411p", 30000 / 1001)])
def test_a_raw_dv_file_is_read_at_its_rate_and_said_interlaced(tmp_path, caplog, size, rate,
                                                                pix, fps):
    """A footage trial: ffmpeg prints "60k fps" for a raw .dv file (25 tbr): it was read at
    60000 fps ("fps 60000 is too large" into .mp4, a 1 ms .mkv), and DV outside .mov, which
    says no field order, was not said to be interlaced."""
    from hfrender.io.probe import probe

    dv = tmp_path / "cam.dv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    f"testsrc2=size={size}:rate={rate}", "-frames:v", "6", "-pix_fmt", pix,
                    "-c:v", "dvvideo",
                    "-f", "dv", str(dv)], check=True)
    head = subprocess.run([FFMPEG, "-hide_banner", "-i", str(dv)], capture_output=True,
                          text=True).stderr
    assert "60k fps" in head  # (what ffmpeg says)
    assert probe(str(dv)).fps == pytest.approx(fps, rel=1e-9)
    out = tmp_path / "o.mp4"
    with caplog.at_level("WARNING"):
        assert main(["fx", str(dv), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    # (6 frames' timestamps allow 29.97 as printed for 30000/1001: it stands, as ever)
    assert probe(str(out)).fps == pytest.approx(fps, rel=1e-4) and probe(str(out)).count == 6
    assert [r.getMessage() for r in caplog.records] == [
        f"{dv} is interlaced (DV, bottom first unless shot progressive): fx blends whole "
        f"frames, so its fields mix and {out} is progressive; deinterlace it first, a frame "
        "a frame (ffmpeg -i IN -vf bwdif=mode=send_frame OUT; bwdif alone makes a frame of "
        "each field, twice the rate)"]


def test_deep_footage_written_with_8_bits_is_said(tmp_path, caplog):
    """10-bit ProRes into .mov came out 8-bit H.264 without a word, under a README heading
    "fx keeps the footage's ... bit depth" (a video editor's trial)."""
    clip = tmp_path / "pr.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x36:rate=30", "-t", "0.3", "-pix_fmt", "yuv422p10le",
                    "-c:v", "prores_ks", str(clip)], check=True)
    for extra, warned in (([], True), (["--codec", "prores_ks"], False)):
        caplog.clear()
        out = tmp_path / f"o{len(extra)}.mov"
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet",
                         *extra]) == 0
        assert [r.getMessage() for r in caplog.records] == ([
            f"{clip} has more than 8 bits; {out} is written with 8 (its encoder's default): "
            "give --codec prores_ks (.mov), or --codec libx265 --pix-fmt yuv420p10le, to keep "
            "them"] if warned else [])
    alpha = tmp_path / "pa.mov"  # 10-bit ProRes 4444 with alpha: .mov keeps both, .webm not
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x36:rate=30,format=yuva444p10le", "-t", "0.3",
                    "-pix_fmt", "yuva444p10le", "-c:v", "prores_ks", "-profile:v", "4444",
                    str(alpha)], check=True)
    for suffix, warned in ((".webm", True), (".mov", False)):
        caplog.clear()
        out = tmp_path / f"a{suffix}"
        with caplog.at_level("WARNING"):
            assert main(["fx", str(alpha), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
        assert [r.getMessage() for r in caplog.records if "bits" in r.getMessage()] == ([
            f"{alpha} has more than 8 bits; {out} is written with 8 (VP9 keeps its alpha with "
            "8 alone): write .mov (ProRes 4444) to keep both"] if warned else [])


def test_frames_the_decoder_skips_are_said_and_not_counted(tmp_path, caplog, capsys):
    """A clip damaged in the middle: fx wrote fewer frames than its summary said ("wrote
    60 frames" of 58), its picture ahead of its sound from the damage on, without a word.
    Of a clip without sound, or into an output without it, the frames come early (it spoke
    of sound there too)."""
    for sound in (True, False):
        clip, out = tmp_path / f"pr{sound}.mov", tmp_path / f"o{sound}.mov"
        audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a",
                 "pcm_s16le"] if sound else []
        subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                        "testsrc2=size=160x90:rate=30", *audio, "-t", "2", "-pix_fmt",
                        "yuv422p10le", "-c:v", "prores_ks", str(clip)], check=True)
        data = bytearray(clip.read_bytes())
        at = len(data) // 3 if sound else len(data) // 2
        data[at: at + 30000] = b"\xff" * 30000  # a frame or two gone
        clip.write_bytes(bytes(data))
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "3", "--codec",
                         "prores_ks"]) == 0
        said = capsys.readouterr().out.splitlines()[-1]
        made = int(re.match(rf"wrote {re.escape(str(out))}: (\d+) frames at 30 fps from 60 at "
                            r"30 fps$", said).group(1))
        assert 50 <= made < 60
        sync = ("picture runs ahead of its sound; repair the footage to keep them in step"
                if sound else "frames come earlier than the footage's; repair the footage to "
                "keep its timing")
        assert [r.getMessage() for r in caplog.records] == [
            f"{clip}: the decoder gave fewer than the 60 frames its index lists (damaged ones "
            f"are skipped), so {out} has {made} frames of 60, and from the first damaged "
            f"frame on its {sync}"]


def test_a_field_order_in_nested_parentheses_is_read(tmp_path, caplog):
    """"yuv420p(tv, bt709, top coded first (swapped))" was cut at "(tv" by the probe: the
    colour tags and the field order lost, no interlace warning (a review)."""
    from hfrender.io.probe import probe

    clip = tmp_path / "il.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc=size=64x36:rate=25", "-t", "0.4", "-c:v", "mpeg2video",
                    "-flags", "+ilme+ildct", "-field_order", "tt", "-color_primaries", "bt709",
                    "-color_trc", "bt709", "-colorspace", "bt709", str(clip)], check=True)
    info = probe(str(clip))
    assert "coded first" in info.pix_fmt and "bt709" in info.pix_fmt, info.pix_fmt
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                     "--quiet"]) == 0
    assert any("is interlaced" in r.getMessage() for r in caplog.records)


def test_a_single_picture_output_is_told_the_pattern_fx_writes(tmp_path, rng, capsys):
    """``fx clip -o x.png`` was told "(one picture: hfrender still)", and still renders
    scenes, not footage: fx names the frames it makes and the sequence it would write
    instead (one frame is written as x.png: tests/test_fx_one_picture.py)."""
    clip, _ = make_clip(tmp_path, rng, n=4)
    assert main(["fx", str(clip), "--motion-blur", "2", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {tmp_path / 'x.png'} is one picture; --motion-blur 2 "
                   f"of {clip} makes 4 frames: give a pattern such as "
                   f"{tmp_path / 'x_%05d.png'} (each frame a picture)\n")  # (in its folder)


def test_a_pattern_of_videos_is_one_line_and_a_file_of_that_name_is_itself(tmp_path, rng,
                                                                        capsys):
    """A trial's: ``fx 'vids/%d.mp4'`` read each video as one frame and crashed ("could not
    broadcast ..."); a video literally named ``a%d.mp4`` was read as the pattern whenever
    ``a3.mp4`` sat beside it."""
    import shutil

    import imageio.v3 as iio

    clip, _ = make_clip(tmp_path, rng, n=6)
    (tmp_path / "vids").mkdir()
    for name in ("1.mp4", "2.mp4", "a%d.mp4", "a3.mp4"):
        shutil.copy(clip, tmp_path / "vids" / name)
    out = tmp_path / "o.mp4"
    assert main(["fx", str(tmp_path / "vids" / "%d.mp4"), "-o", str(out), "--motion-blur",
                 "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {tmp_path / 'vids' / '%d.mp4'}: a sequence's frames are images (PNG "
        "or EXR: frames/%05d.png), not .mp4 videos\n")
    assert main(["fx", str(tmp_path / "vids" / "a%d.mp4"), "-o", str(out), "--motion-blur",
                 "2", "--quiet"]) == 0
    assert len(iio.imread(out)) == 6  # the file's 6 frames, not a3.mp4 as one


def test_a_pattern_of_other_images_is_still_a_sequence(tmp_path, rng):
    """A review's: the video suffixes' refusal must leave the images imageio reads (a
    .webp, .tga or .gif pattern) as sequences."""
    from hfrender.io.sequence_files import sequence_files

    for i in range(3):
        (tmp_path / f"f{i:03d}.webp").write_bytes(b"x")
    assert [f.name for f in sequence_files(str(tmp_path / "f%03d.webp"))] == [
        "f000.webp", "f001.webp", "f002.webp"]


def test_one_png_file_is_one_frame_at_the_sequences_rate(tmp_path, rng, capsys):
    """One PNG file was read by ffmpeg as a video at its image demuxer's 25 fps, and --fps
    refused as "a video's" (a library user's trial): it is a sequence of one frame, at 30
    fps unless --fps says, its pixels kept."""
    import imageio.v3 as iio

    frame = rng.integers(0, 256, (8, 16, 3), dtype=np.uint8)
    still = tmp_path / "shot.1001.png"
    iio.imwrite(still, frame)
    for extra, fps in (([], 30), (["--fps", "24"], 24)):
        out = tmp_path / f"o{fps}" / "%04d.png"
        assert main(["fx", str(still), "-o", str(out), "--motion-blur", "1", *extra]) == 0
        assert capsys.readouterr().out == (f"wrote {out.parent / '1001.png'}: 1 frame at {fps} "
                                           f"fps from 1 at {fps} fps\n")
        # numbered by its name, as its folder would be (was 0000.png: out of step with it)
        assert sorted(p.name for p in (tmp_path / f"o{fps}").iterdir()) == ["1001.png"]
        np.testing.assert_array_equal(iio.imread(tmp_path / f"o{fps}" / "1001.png"), frame)
    anim = tmp_path / "anim.png"  # an animated PNG is a video: its frames, its rate (a review)
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-f", "lavfi", "-i",
                    "testsrc=size=16x8:rate=10", "-frames:v", "5", "-f", "apng", str(anim)],
                   check=True)
    assert main(["fx", str(anim), "-o", str(tmp_path / "a.mp4"), "--motion-blur", "2"]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'a.mp4'}: 5 frames at 10 fps from 5 " \
                                      "at 10 fps\n"
    from PIL import Image, PngImagePlugin

    from hfrender.io.exr_footage import is_one_image

    text = PngImagePlugin.PngInfo()  # 70 KB of text before its acTL (a review: missed)
    text.add_text("Comment", "x" * 70000)
    pictures = [Image.fromarray(f) for f in rng.integers(0, 256, (3, 8, 16, 3), np.uint8)]
    pictures[0].save(tmp_path / "big.png", save_all=True, append_images=pictures[1:],
                     pnginfo=text)
    pictures[0].save(tmp_path / "one.png", pnginfo=text)
    assert (is_one_image(str(tmp_path / "big.png")), is_one_image(str(tmp_path / "one.png")),
            is_one_image(str(anim)), is_one_image(str(still))) == (False, True, False, True)


def test_fps_conforms_a_video_read_at_another_rate(tmp_path, caplog):
    """A footage trial: a raw H.264 stream carries no rate ffmpeg reads (25 fps, for 30),
    and --fps, "a PNG sequence's frame rate", was refused for a video. Now it reads the
    video's frames at that rate, every frame once (as an editor's "interpret footage");
    with sound, that they part is said."""
    from hfrender.io.probe import probe

    clip, raw = tmp_path / "c.mp4", tmp_path / "c.h264"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x36:rate=30", "-f", "lavfi", "-i", "sine=d=1",
                    "-frames:v", "30", "-pix_fmt", "yuv420p", "-shortest", str(clip)],
                   check=True)
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(clip), "-map",
                    "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb", str(raw)], check=True)
    assert probe(str(raw)).fps == 25  # ffmpeg's guess for a raw stream
    out = tmp_path / "o.mp4"
    assert main(["fx", str(raw), "-o", str(out), "--fps", "30", "--motion-blur", "2",
                 "--quiet"]) == 0
    assert probe(str(out)).fps == 30 and probe(str(out)).count == 30
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "s.mp4"), "--fps", "24",
                     "--motion-blur", "2", "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{clip}: --fps 24 reads its 30 frames over 1.250 s (its own rate, 30 fps: 1.000 s); "
        "its sound is kept as it is, so they part"]
    assert probe(str(tmp_path / "s.mp4")).fps == 24
