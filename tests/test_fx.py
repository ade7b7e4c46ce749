"""`hfrender fx` on footage: equal to tmix in code-value mode, strides, sound, hyperframes,
progress, the depth of field's method and blades."""

import os
import re
import subprocess

import numpy as np
import pytest
from conftest import reference_blur
from fx_helpers import (
    FFMPEG,
    decode,
    make_clip,
    read_pngs,
)

import hfrender as hf
from hfrender.cli import main


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


def test_hyperframe_size_follows_window_stride_and_memory(monkeypatch):
    from hfrender.engine import fx_checks
    from hfrender.engine.fx_settings import FxSettings
    from hfrender.io.footage import FootageError

    monkeypatch.setattr(fx_checks, "free_memory_bytes", lambda: 64 << 30)
    monkeypatch.setattr("hfrender.hyperframe.builder.free_memory_bytes", lambda: 64 << 30)
    per = fx_checks.outputs_per_hyperframe
    mb = 1 << 20
    assert [per(mb, FxSettings(window=w, stride=st)) for w, st in
            [(8, 1), (30, 1), (100, 1), (8, 8), (3, 5)]] == [8, 30, 32, 8, 8]
    # half the free memory for a pool of 2 slots of 40 frames: the 29-frame halo + 11 new
    monkeypatch.setattr("hfrender.hyperframe.builder.free_memory_bytes", lambda: 2 * 2 * 40 * mb)
    assert per(mb, FxSettings(window=30, stride=1)) == 11
    # 2 x 39 x 2**20 = 81,788,928 B (81.8 MB) do not fit 70 x 2**20 = 73,400,320 B (73.4 MB)
    monkeypatch.setattr(fx_checks, "free_memory_bytes", lambda: 70 * mb)
    with pytest.raises(FootageError, match=r"--motion-blur 30 --stride 10 holds 39 frames per "
                                           r"hyperframe, 81\.8 MB in all; 73\.4 MB is free: "
                                           r"use a shorter window or stride$"):
        per(mb, FxSettings(window=30, stride=10))


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
