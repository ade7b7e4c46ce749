"""What `hfrender fx` reads of a file: its turned size, frame count, sound, cover art, frame
times and rates (variable, NTSC, GIF, a raw stream's), and where the video starts."""

import re
import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from fx_helpers import (
    FFMPEG,
    decode,
    make_clip,
    read_pngs,
)

import hfrender as hf
from hfrender.cli import main


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
