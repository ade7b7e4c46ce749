"""fx on the kinds of footage people have (a footage trial): what they are told."""
import subprocess

import imageio_ffmpeg
import pytest

from hfrender.cli import main


def ffmpeg(*args):
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-y", *map(str, args)], check=True)


def test_a_gifs_square_pixels_said_as_64_64_are_not_said_squeezed(tmp_path, caplog):
    clip = tmp_path / "in.gif"  # ffmpeg's GIFs say "SAR 64:64": square
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", clip)
    for out in ("o.gif", "o/%03d.png"):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(tmp_path / out), "--motion-blur", "2",
                         "--quiet"]) == 0
        assert [r.getMessage() for r in caplog.records] == []


def test_8_bit_hdr_blended_as_stored_keeps_its_tags_and_is_not_said_wrong(tmp_path,
                                                                           caplog):
    from hfrender.io.probe import probe

    clip = tmp_path / "pq.mp4"  # 8-bit 4:2:0 PQ: --gamma-space blends its planes as stored
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-vf",
           "setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc",
           "-c:v", "libx264", "-pix_fmt", "yuv420p", clip)
    said = {}
    for blend in ([], ["--gamma-space"]):
        out = tmp_path / f"o{len(blend)}.mp4"
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet",
                         *blend]) == 0
        said[len(blend)] = ([r.getMessage().split(";")[0] for r in caplog.records],
                            probe(str(out)).pix_fmt)
    assert said == {
        0: ([f"{clip} is HDR (PQ (HDR10)): fx blends and writes SDR (BT.709), so its "
             "colours come out wrong"],
            "yuv420p(tv, bt709, progressive)"),  # through RGB: SDR, said
        1: ([], "yuv420p(tv, bt2020nc/bt2020/smpte2084, progressive)")}  # PQ, as it was


def _first_frame(path, stream):
    import numpy as np

    raw = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(path),
                          "-map", f"0:v:{stream}", "-frames:v", "1", "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).astype(int)


def test_a_second_video_stream_left_out_is_said_a_cover_picture_is_not(tmp_path, caplog):
    """An .mkv of two video streams (a camera's second angle, a proxy beside the master)
    came out of its first alone without a word (a footage trial): the other is said left
    out, with the ffmpeg line that takes it out to work on; a cover picture (an attached
    pic, not footage) is said nothing of."""
    two = tmp_path / "two.mkv"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-f", "lavfi", "-i",
           "smptebars=s=64x36:r=10:d=0.5", "-map", "0", "-map", "1", "-c:v", "libx264",
           "-pix_fmt", "yuv420p", two)
    plain = tmp_path / "plain.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-c:v", "libx264",
           "-pix_fmt", "yuv420p", plain)
    cover = tmp_path / "cover.png"
    ffmpeg("-f", "lavfi", "-i", "color=red:s=16x16", "-frames:v", "1", cover)
    covered = tmp_path / "covered.mp4"
    ffmpeg("-i", plain, "-i", cover, "-map", "0", "-map", "1", "-c", "copy",
           "-disposition:v:1", "attached_pic", covered)
    said = {}
    for clip in (two, covered):
        out = tmp_path / f"o_{clip.stem}.mkv"
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "1",
                         "--quiet"]) == 0
        said[clip.stem] = [r.getMessage() for r in caplog.records]
    assert said == {"two": [
        f"{two} has 2 video streams; {tmp_path / 'o_two.mkv'} is made of the first "
        "(64x36 h264) alone, the other left out: to work on another, take it out first "
        "(ffmpeg -i IN -map 0:V:1 -map 0:a? -c copy OUT.mkv)"], "covered": []}
    out = _first_frame(tmp_path / "o_two.mkv", 0)  # the first stream, not the bars:
    assert abs(out - _first_frame(two, 0)).mean() < 10 < 60 < abs(  # 6.2, 95.7 codes off
        out - _first_frame(two, 1)).mean()


@pytest.mark.parametrize("raw, dtype, channels", [("rgb48le", "<u2", 3), ("rgba", "u1", 4)])
def test_a_tiff_sequence_keeps_its_16_bits_and_its_alpha(tmp_path, rng, raw, dtype,
                                                          channels):
    """A 16-bit TIFF sequence (a scan's, an editor's export) came out 8-bit, an RGBA one
    without its alpha, unsaid (a footage trial: 'fx keeps the footage's alpha and bit
    depth'); its first frame's, as Pillow reads it, are kept."""
    import numpy as np

    from hfrender.io.images import read_png

    top = 65535 if channels == 3 else 255
    frames = rng.integers(0, top + 1, (3, 12, 16, channels)).astype(dtype)
    if channels == 4:
        frames[..., 3] = rng.integers(1, 256, (3, 12, 16))  # see-through, never clear
    (tmp_path / "in").mkdir()
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-f", "rawvideo",
                    "-pix_fmt", raw, "-s", "16x12", "-i", "-", "-start_number", "1",
                    str(tmp_path / "in" / "%04d.tif")], input=frames.tobytes(), check=True)
    assert main(["fx", str(tmp_path / "in" / "%04d.tif"), "-o", str(tmp_path / "o" /
                 "%04d.png"), "--motion-blur", "1", "--quiet"]) == 0
    out = np.stack([read_png(tmp_path / "o" / f"{k:04d}.png") for k in (1, 2, 3)])
    assert (out.dtype, out.shape) == (frames.dtype, frames.shape)
    if channels == 3:
        assert np.abs(out.astype(int) - frames).max() <= 1  # 16 bits through linear light
    else:
        assert np.array_equal(out[..., 3], frames[..., 3])  # the alpha as it was


# an older ffmpeg's log of a stream copy: its output's streams before "Stream mapping:"
_OLD_LOG = """Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'in.mp4':
  Duration: 00:00:00.20, start: 0.000000, bitrate: 69 kb/s
  Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p, 16x12 [SAR 1:1 DAR 4:3], 35 kb/s, 10 fps, 10 tbr, 10240 tbn (default)
  Stream #0:1(und): Audio: aac (LC) (mp4a / 0x6134706D), 48000 Hz, mono, fltp, 69 kb/s
Output #0, framecrc, to 'pipe:':
  Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p, 16x12 [SAR 1:1 DAR 4:3], q=2-31, 35 kb/s, 10 fps, 10 tbr, 10240 tbn (default)
Stream mapping:
  Stream #0:0 -> #0:0 (copy)
"""  # noqa: E501 - ffmpeg's lines as it prints them


def test_an_older_ffmpegs_output_streams_are_not_counted_as_the_inputs(tmp_path,
                                                                       monkeypatch):
    """An older ffmpeg lists its output (``Output #0``) before ``Stream mapping:`` when it
    copies: its one video stream was counted as the input's second (2 video streams, one
    said left out); the input's alone are counted."""
    from hfrender.io import probe as probing

    clip = tmp_path / "in.mp4"
    clip.write_bytes(b"not read: ffmpeg is stubbed")
    packets = "#tb 0: 1/10240\n" + "".join(
        f"0, {k * 1024}, {k * 1024}, 1024, 100, 0x0\n" for k in range(4))
    run = subprocess.run
    monkeypatch.setattr(probing.subprocess, "run", lambda cmd, **k: run(cmd, **k) if (
        "framecrc" not in cmd) else subprocess.CompletedProcess(cmd, 0, packets, _OLD_LOG))
    info = probing.probe(clip)
    assert (info.video_tracks, info.audio_tracks, info.count, info.size) == (1, 1, 4, (16, 12))


def _tiff(path, frame, raw):
    h, w = frame.shape[:2]
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-f", "rawvideo",
                    "-pix_fmt", raw, "-s", f"{w}x{h}", "-i", "-", str(path)],
                   input=frame.tobytes(), check=True)


def test_a_cmyk_jpeg_sequence_is_read_as_rgb_not_as_rgba(tmp_path):
    """Pillow hands a CMYK JPEG to imageio as 4 channels, and a sequence of them was read
    as RGBA, K as alpha (solid red: [55 225 225 0], see-through); CMYK is RGB."""
    import numpy as np
    from PIL import Image

    from hfrender.io.footage import open_footage
    from hfrender.io.images import read_png

    (tmp_path / "in").mkdir()
    for k in (1, 2, 3):
        Image.new("CMYK", (16, 12), (0, 255, 255, 0)).save(tmp_path / "in" / f"{k:04d}.jpg")
    with open_footage(str(tmp_path / "in" / "%04d.jpg"), pix_fmt="rgb") as clip:
        assert clip.pix_fmt == "rgb24"
    assert main(["fx", str(tmp_path / "in" / "%04d.jpg"), "-o", str(tmp_path / "o" /
                 "%04d.png"), "--motion-blur", "1", "--quiet"]) == 0
    out = read_png(tmp_path / "o" / "0002.png")
    assert out.shape == (12, 16, 3)
    assert np.abs(out.astype(int) - [255, 0, 0]).max() <= 2  # red, as Pillow converts it


@pytest.mark.parametrize("raw, dtype, channels", [("rgb48le", "<u2", 3), ("rgba", "u1", 4)])
def test_a_tiff_sequence_whose_last_frame_alone_has_more_keeps_it_for_all(tmp_path, rng, raw,
                                                                         dtype, channels):
    """A TIFF sequence whose 5th frame alone has alpha (or 16 bits) failed at frame 5,
    4 frames written; every file's header decides up front, as a PNG sequence's do."""
    import numpy as np

    from hfrender.io.images import read_png

    (tmp_path / "in").mkdir()
    plain = rng.integers(0, 256, (4, 12, 16, 3)).astype(np.uint8)
    last = rng.integers(1, 65536 if channels == 3 else 256, (12, 16, channels)).astype(dtype)
    for k, frame in enumerate(plain, 1):
        _tiff(tmp_path / "in" / f"{k:04d}.tif", frame, "rgb24")
    _tiff(tmp_path / "in" / "0005.tif", last, raw)
    assert main(["fx", str(tmp_path / "in" / "%04d.tif"), "-o", str(tmp_path / "o" /
                 "%04d.png"), "--motion-blur", "1", "--quiet"]) == 0
    out = np.stack([read_png(tmp_path / "o" / f"{k:04d}.png") for k in range(1, 6)])
    assert (out.dtype, out.shape) == (last.dtype, (5, 12, 16, channels))
    if channels == 3:  # the 8-bit frames widened (x257), the 16-bit one as it was
        assert np.abs(out[:4].astype(int) - plain.astype(int) * 257).max() <= 1
        assert np.abs(out[4].astype(int) - last).max() <= 1
    else:  # the frames without alpha opaque, the last one's alpha as it was
        assert np.array_equal(out[:4, ..., 3], np.full((4, 12, 16), 255))
        assert np.array_equal(out[4, ..., 3], last[..., 3])


@pytest.mark.parametrize("mode, value, dtype", [("F", 0.5, "float32"), ("I", 70000, "int32")])
@pytest.mark.parametrize("where", [0, 2])
def test_a_32_bit_tiff_anywhere_in_a_sequence_is_refused_up_front(tmp_path, rng, capsys,
                                                                  mode, value, dtype, where):
    """A float (or 32-bit int) TIFF after 8-bit ones was counted 16-bit: the sequence read
    as rgb48le, that frame black (0.5 -> 0; ints wrapped), no error; refused only when it
    was the first. Now refused before any frame, wherever it is, the first's line."""
    import numpy as np
    from PIL import Image

    from hfrender.io.footage import open_footage
    from hfrender.io.probe import FootageError

    (tmp_path / "in").mkdir()
    files = [tmp_path / "in" / f"{k:04d}.tif" for k in range(3)]
    for f in files:
        _tiff(f, rng.integers(0, 256, (12, 16, 3)).astype(np.uint8), "rgb24")
    Image.fromarray(np.full((12, 16), value, dtype), mode).save(files[where])
    said = f"{files[where]}: {dtype} images are not supported; use 8 or 16 bits"
    for pix_fmt in ("rgb", "rgb24"):
        with pytest.raises(FootageError) as err:
            open_footage(str(tmp_path / "in" / "%04d.tif"), pix_fmt=pix_fmt).close()
        assert str(err.value) == said
    assert main(["fx", str(tmp_path / "in" / "%04d.tif"), "-o", str(tmp_path / "o" /
                 "%04d.png"), "--motion-blur", "1", "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == f"hfrender: error: {said}"
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").iterdir())


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
def test_as_format_refuses_what_is_not_8_or_16_bits_for_a_16_bit_sequence(dtype):
    """as_format ran astype(uint16) on a float frame (0.5 -> 0) for rgb48le: refused."""
    import numpy as np

    from hfrender.io.pillow_frames import as_format
    from hfrender.io.probe import FootageError

    for fmt in ("rgb48le", "rgba64le", "rgb24"):
        with pytest.raises(FootageError, match=rf"^x\.tif: {dtype} images are not "
                           r"supported; use 8 or 16 bits$"):
            as_format(np.full((4, 6, 3), 0.5).astype(dtype), "x.tif", fmt, True)


def test_as_format_widens_grey_and_grey_alpha_as_rgb8_does(rng):
    """Grey to RGB is one helper for the 8- and 16-bit paths: grey (and grey + alpha)
    repeated to three channels, alpha kept after them."""
    import numpy as np

    from hfrender.io.pillow_frames import as_format, rgb8

    grey = rng.integers(0, 65536, (4, 6, 2)).astype(np.uint16)
    wide = as_format(grey, "x.tif", "rgba64le", True)
    assert np.array_equal(wide, grey[..., [0, 0, 0, 1]])
    small = rng.integers(0, 256, (4, 6)).astype(np.uint8)
    assert np.array_equal(as_format(small, "x.tif", "rgb48le", True),
                          np.stack([small] * 3, -1).astype(np.uint16) * 257)
    assert np.array_equal(rgb8(small, "x.tif", alpha=True),
                          np.stack([small] * 3 + [np.full_like(small, 255)], -1))
