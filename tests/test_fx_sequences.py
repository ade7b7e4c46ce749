"""fx's inputs: an image sequence's frame numbers (a VFX shot's 1001..., a folder's too; a
video's from 0), Blender's and Nuke's hashes, a folder as its one sequence, files it cannot
read or that are cut short, a stride or a rate a clip cannot take."""

import numpy as np
import pytest
from fx_sequence_helpers import (
    write_seq,
)

import hfrender as hf
from hfrender.cli import main


@pytest.mark.parametrize("first, pattern", [(1001, "shot.%04d.png"), (7, "f_%03d.png"),
                                            (0, "%04d.png"), (1001, "s2.%04d_v2.png")])
def test_fx_numbers_a_sequences_frames_as_its_input_does(tmp_path, rng, first, pattern):
    import imageio.v3 as iio

    frames = rng.integers(0, 256, (5, 8, 12, 3), dtype=np.uint8)
    write_seq(tmp_path / "in", frames, pattern, first)
    for source in (str(tmp_path / "in" / pattern), str(tmp_path / "in")):  # pattern, folder
        out = tmp_path / f"out{len(source)}"
        assert main(["fx", source, "-o", str(out / pattern), "--motion-blur", "2",
                     "--gamma-space", "--quiet"]) == 0
        assert sorted(p.name for p in out.iterdir()) == [pattern % (first + i)
                                                         for i in range(5)]
        got = np.stack([iio.imread(out / (pattern % (first + i))) for i in range(5)])
        padded = np.concatenate([frames[:1], frames])  # frame 0 stands in before it
        np.testing.assert_array_equal(got, hf.motion_blur(padded, 2, stride=1,
                                                         linear_light=False))


@pytest.mark.parametrize("name, number", [("shot.1005.png", 1005), ("s2.0042_v2.png", 2),
                                          ("plate.png", 0)])
def test_one_picture_is_numbered_as_the_folder_holding_it_is(tmp_path, rng, name, number):
    """One PNG file is a sequence of one frame: its output frame was numbered 0 (shot.1005.png
    in, out.0000.png out) where the folder holding it gave out.1005.png (a trial); now its
    number as in a folder (the name's last), 0 for a name without one."""
    import imageio.v3 as iio

    frame = rng.integers(0, 256, (1, 8, 12, 3), dtype=np.uint8)
    (tmp_path / "in").mkdir()
    iio.imwrite(tmp_path / "in" / name, frame[0])
    depth = tmp_path / "z.npy"
    np.save(depth, np.full((8, 12), 4.0, np.float32))
    sources = [(tmp_path / "in" / name, tmp_path / "a")]
    if number:  # (a folder of plate.png alone holds no numbered sequence)
        sources.append((tmp_path / "in", tmp_path / "b"))
    for source, out in sources:
        assert main(["fx", str(source), "-o", str(out / "out.%04d.png"), "--depth",
                     str(depth), "--focus-distance", "2", "--f-stop", "2", "--quiet"]) == 0
        assert [p.name for p in out.iterdir()] == [f"out.{number:04d}.png"]


def test_one_picture_takes_the_depth_frame_of_its_number(tmp_path, rng):
    """shot.1005.png beside a depth sequence z.1001..z.1010 takes z.1005, as the folder
    holding it does (a review: was refused, "depth ... has 10 frames, the footage 1")."""
    import imageio.v3 as iio

    frame = rng.integers(0, 256, (32, 48, 3), dtype=np.uint8)
    (tmp_path / "in").mkdir()
    iio.imwrite(tmp_path / "in" / "shot.1005.png", frame)
    mm = np.repeat(np.arange(1, 11, dtype=np.uint16)[:, None, None] * 400, 32 * 48  # mm: each
                   ).reshape(10, 32, 48)  # frame a plane of its own, 0.4 .. 4 m
    write_seq(tmp_path / "z", mm, "z.%04d.png", 1001)
    outs = []
    for source in (tmp_path / "in" / "shot.1005.png", tmp_path / "in"):
        out = tmp_path / f"o{len(outs)}"
        assert main(["fx", str(source), "-o", str(out / "%04d.png"), "--depth",
                     str(tmp_path / "z" / "z.%04d.png"), "--depth-scale", "0.001",
                     "--focus-distance", "1", "--f-stop", "1.4", "--focal-length-mm", "200",
                     "--quiet"]) == 0
        outs.append(iio.imread(out / "1005.png"))
    np.testing.assert_array_equal(outs[0], outs[1])
    blurs = [hf.depth_of_field(hf.to_linear(frame), mm[k] * np.float32(0.001),
                               focus_distance=1.0, f_stop=1.4, focal_length_mm=200)
             for k in range(10)]
    errors = [np.abs(hf.to_linear(outs[0]) - b).max() for b in blurs]
    assert int(np.argmin(errors)) == 4 and errors[4] < 3e-3, errors  # z.1005's blur


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # imageio's vendored tifffile
def test_an_image_sequence_imageio_cannot_read_is_one_line(tmp_path, capsys):
    """ffmpeg's TIFFs of 4:2:0 footage are YCbCr: imageio's reader raises
    NotImplementedError, which was an internal error."""
    import subprocess

    import imageio_ffmpeg

    (tmp_path / "in").mkdir()
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=32x16:d=0.2:r=10", "-pix_fmt", "yuv420p",
                    str(tmp_path / "in" / "%03d.tif")], check=True)
    out = tmp_path / "o.mp4"
    assert main(["fx", str(tmp_path / "in" / "%03d.tif"), "-o", str(out), "--motion-blur",
                 "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hfrender: error: cannot read {tmp_path / 'in' / '001.tif'}: ")
    assert ": it is no readable TIF image (" in err and err.count("\n") == 1
    assert err.endswith("; save the sequence as RGB PNG)\n")  # the plugin named a reason
    assert not out.exists()


def test_a_window_longer_than_a_one_frame_clip_counts_one_frame(tmp_path, rng, capsys):
    write_seq(tmp_path / "in", rng.integers(0, 256, (1, 4, 4, 3), dtype=np.uint8), "%02d.png", 0)
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "o.mp4"), "--motion-blur",
                 "3"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --motion-blur 3 is longer than the "
                                       "input (1 frame)\n")


def test_blender_and_nuke_hashes_name_a_sequence(tmp_path, rng):
    """``shot.####.png`` in and ``out/####.png`` out are ``%04d`` (it was "input not
    found"); a render's ``frames/###.png`` too."""
    import imageio.v3 as iio

    frames = rng.integers(0, 256, (3, 4, 6, 3), dtype=np.uint8)
    write_seq(tmp_path / "in", frames, "shot.%04d.png", 1001)
    assert main(["fx", str(tmp_path / "in" / "shot.####.png"), "-o",
                 str(tmp_path / "out" / "####.png"), "--motion-blur", "1", "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "1001.png", "1002.png", "1003.png"]
    np.testing.assert_array_equal(iio.imread(tmp_path / "out" / "1002.png"), frames[1])
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    assert main(["render", str(bar), "-o", str(tmp_path / "r" / "###.png"), "--size", "4x2",
                 "--duration", "0.1", "--samples", "1", "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["000.png", "001.png",
                                                                  "002.png"]


@pytest.mark.parametrize("given, meant", [
    ("frames/####.png", "frames/%04d.png"), ("shot.####.exr", "shot.%04d.exr"),
    ("x-###.png", "x-%03d.png"), ("a/v#2.####.png", "a/v#2.%04d.png"),
    ("C:\\\\r\\\\shot_##.png", "C:\\\\r\\\\shot_%02d.png"),
    ("take#1.png", "take#1.png"), ("frames\\\\####\\\\beauty.png", "frames\\\\####\\\\beauty.png"),
    ("dir#/f.png", "dir#/f.png"), ("clip#.mp4", "clip#.mp4"), ("a/%04d.png", "a/%04d.png")])
def test_hashes_are_a_field_only_where_a_frame_number_goes(given, meant):
    from hfrender.cli.common import sequence_name

    assert sequence_name(given) == meant


def test_a_folder_is_read_as_its_one_sequences_pattern(tmp_path, rng, capsys):
    """A folder given as INPUT took every PNG in it: a gap was closed without a word, a
    slate or an earlier output beside the frames was taken in as frames (and the numbering
    started from 0). It is now read as the pattern of its one sequence, gaps refused, and
    one line where it holds more than one."""
    frames = rng.integers(0, 256, (6, 8, 12, 3), dtype=np.uint8)
    folder = tmp_path / "in"
    write_seq(folder, frames, "f.%04d.png", 1001)
    out = tmp_path / "o" / "%04d.png"
    assert main(["fx", str(folder), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert sorted(p.name for p in out.parent.iterdir())[0] == "1001.png"  # its numbers
    (folder / "f.1003.png").unlink()
    assert main(["fx", str(folder), "-o", str(tmp_path / "g.mp4"), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {folder / 'f.%04d.png'}: frame 1003 "
                                       "is missing (the sequence jumps from 1002 to 1004); "
                                       "a sequence is read only unbroken: put the missing "
                                       "frames back (or copies of frame 1002 in their "
                                       "place)\n")
    write_seq(folder, frames[2:3], "f.%04d.png", 1003)
    import imageio.v3 as iio

    iio.imwrite(folder / "aaa_slate.png", frames[0])
    assert main(["fx", str(folder), "-o", str(tmp_path / "s.mp4"), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: {folder} holds more than one image sequence (aaa_slate.png, "
        f"f.#.png); give the one to read as a pattern, e.g. {folder / 'f.%04d.png'}\n")


def test_a_stride_longer_than_the_clip_is_refused(tmp_path, capsys):
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                 "--stride", "6"]) == 2
    assert capsys.readouterr().err == ("hfrender: error: --stride 6 is longer than the input "
                                       "(5 frames)\n")
    assert not (tmp_path / "o.mp4").exists()


@pytest.mark.parametrize("container", ["mp4", "mkv", "ts"])
def test_footage_cut_short_is_said_and_its_frames_used(tmp_path, caplog, capsys, container):
    """A file cut short (an unfinished download: its index lists frames past its end) was
    blended without a word, into a shorter video. It is now said, in ffmpeg's words; a
    transport stream, which has no index to miss, is read as it is. Cut before its first
    frame, the error was ffmpeg's last line, its summary ("frame=    0 fps=0.0 ...")."""
    import subprocess

    import imageio_ffmpeg

    from hfrender.io.probe import probe

    whole = tmp_path / f"whole.{container}"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=4", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", *(["-movflags", "+faststart"] if container == "mp4"
                                             else []), str(whole)], check=True)
    data = whole.read_bytes()
    clip = tmp_path / f"cut.{container}"
    clip.write_bytes(data[: len(data) // 2])
    words = {"mp4": "partial file", "mkv": "File ended prematurely"}.get(container)
    for source in (whole, clip):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(source), "-o", str(tmp_path / f"o_{source.stem}.mp4"),
                         "--motion-blur", "2", "--quiet"]) == 0
        said = [r.getMessage() for r in caplog.records]
        kept = probe(str(source)).count
        if source == clip and words:
            assert 5 < kept < 40, kept  # a part of the 40 frames
            # the frames ffmpeg decodes (was: the cut's last packet, corrupt, counted too,
            # a trial), on the whole's grid of times (B-frames past the cut are missing)
            decoded = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "quiet", "-i",
                                      str(clip), "-f", "framecrc", "-"], capture_output=True,
                                     text=True).stdout.count("\n0,")
            times = probe(str(clip)).times or ()
            assert kept == decoded and all(abs(t * 10 - round(t * 10)) < 1e-6 for t in times)
            assert said == [f"{clip} is cut short (ffmpeg: {words}; an unfinished download or "
                            f"copy?): the {kept} frames it holds are used"]
        else:
            assert (said, kept) == ([], 40 if source == whole else kept), said
    if container == "mp4":  # the index is there, not one frame's data
        moov = data.index(b"mdat") + 16
        clip.write_bytes(data[:moov])
        assert main(["fx", str(clip), "-o", str(tmp_path / "none.mp4"), "--motion-blur",
                     "2"]) == 2
        assert capsys.readouterr().err == (
            f"hfrender: error: cannot read {clip} as video: it is cut short (ffmpeg: partial "
            "file) before its first whole frame\n")
        assert not (tmp_path / "none.mp4").exists()


@pytest.mark.parametrize("damage", ["text", "cut", "garbled"])
@pytest.mark.parametrize("depth", [16, 8])
def test_a_damaged_file_of_a_png_sequence_is_named_not_passed_over(tmp_path, rng, capsys,
                                                                   damage, depth):
    """16-bit files are decoded by one ffmpeg, which passed over a file it could not read:
    the next file stood in for it and the output came out a frame short, said whole (a
    trial); 8-bit ones are read file by file. Either way: the file, in one line."""
    from hfrender.io.images import encode_png16

    hi = np.iinfo(np.uint16 if depth == 16 else np.uint8).max
    frames = rng.integers(0, hi + 1, (6, 16, 24, 3)).astype(f"uint{depth}")
    if depth == 8:
        write_seq(tmp_path / "in", frames, "f.%04d.png", 1)
    else:
        (tmp_path / "in").mkdir()
        for i, f in enumerate(frames):
            (tmp_path / "in" / f"f.{i + 1:04d}.png").write_bytes(encode_png16(f))
    bad = tmp_path / "in" / "f.0004.png"
    data = bad.read_bytes()
    if damage == "garbled":  # its chunks whole, its pixels' data not: found at the end
        at = data.index(b"IDAT")
        n = int.from_bytes(data[at - 4:at], "big")
        data = data[:at + 4] + rng.integers(0, 256, n, dtype=np.uint8).tobytes() + data[at + 4 + n:]
    bad.write_bytes({"text": b"not a picture\n", "cut": data[: len(data) // 3]}.get(damage, data))
    out = tmp_path / "o"
    assert main(["fx", str(tmp_path / "in" / "f.%04d.png"), "-o", str(out / "%04d.png"),
                 "--motion-blur", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    if damage == "garbled" and depth == 16:
        assert err.startswith(f"hfrender: error: {tmp_path / 'in' / 'f.%04d.png'}: ffmpeg "
                              "decoded 5 of its 6 files: one of them is damaged; "), err
    else:
        assert err.startswith(f"hfrender: error: cannot read {bad}: it is no readable PNG "
                              "image ("), err
    assert err.count("\n") == 1
    assert not out.exists() or not any(out.glob("*.png"))  # (a partial folder for --resume)


def test_png_whole_tells_a_cut_file_from_a_whole_one(tmp_path, rng):
    from hfrender.io.images import encode_png16, png_whole

    data = encode_png16(rng.integers(0, 65536, (9, 7, 3), dtype=np.uint16))
    for name, body, whole in (("whole", data, True), ("cut", data[:-1], False),
                              ("no_end", data[:-12], False), ("text", b"abc", False),
                              ("long", data + b"\0" * 4, True)):
        (tmp_path / name).write_bytes(body)
        assert png_whole(tmp_path / name) is whole, name


def test_an_empty_folder_as_input_is_said_to_hold_no_images(tmp_path, capsys):
    """It was "input not found" for a folder that is there (a trial)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a frame")
    assert main(["fx", str(tmp_path / "empty"), "-o", str(tmp_path / "o.mp4"),
                 "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: input {tmp_path / 'empty'} is a folder with no PNG, EXR, TIFF or "
        "JPEG images in it (a sequence's folder, or a pattern such as in/%05d.png)\n")


@pytest.mark.parametrize("fps, stride", [("1e9", "1"), ("0", "1"), ("2500", "2")])
def test_a_sequences_rate_past_what_a_video_holds_is_one_line(tmp_path, rng, capsys, fps,
                                                               stride):
    """--fps 1e9 was taken, said to be written at 1e+09 fps, and the file held 1001k fps
    (a trial); the output's rate is bounded as render's --fps is."""
    write_seq(tmp_path / "in", rng.integers(0, 256, (4, 8, 12, 3), dtype=np.uint8),
              "%04d.png", 0)
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "o.mp4"), "--motion-blur",
                 "2", "--fps", fps, "--stride", stride]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: --fps {fps}: the output's rate (--fps / --stride {stride}) "  # as typed
        "must be from 0.001 to 1000 fps\n")
    assert not (tmp_path / "o.mp4").exists()
    assert main(["fx", str(tmp_path / "in"), "-o", str(tmp_path / "p.mp4"), "--motion-blur",
                 "2", "--fps", "2000", "--stride", "2", "--quiet"]) == 0  # 1000 fps out


def test_an_intra_frame_video_cut_short_keeps_its_part_decoded_last_frame(tmp_path):
    """MJPEG's last, cut packet still decodes (part of a picture), where H.264's does not: it
    is counted as ffmpeg decodes it (a review: one short at most cut points)."""
    import subprocess

    import imageio_ffmpeg

    from hfrender.io.probe import probe

    whole = tmp_path / "m.mov"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-f", "lavfi", "-i",
                    "testsrc=size=160x90:rate=10", "-frames:v", "31", "-c:v", "mjpeg",
                    "-movflags", "+faststart", str(whole)], check=True)
    data = whole.read_bytes()
    for share in (0.4, 0.5, 0.7):
        cut = tmp_path / f"cut{share}.mov"
        cut.write_bytes(data[: int(len(data) * share)])
        decoded = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "quiet", "-i",
                                  str(cut), "-f", "framecrc", "-"], capture_output=True,
                                 text=True).stdout.count("\n0,")
        assert 5 < decoded < 31 and probe(str(cut)).count == decoded, share
