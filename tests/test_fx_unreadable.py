"""Footage ffmpeg cannot read is one line saying why in the user's words, not ffmpeg's
last log line ("Error opening output files: Invalid argument" for a clip of no frames)."""

import subprocess

import pytest
from fx_helpers import FFMPEG

from hfrender.cli import main


def _zero_frames(path):
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "color=c=red:s=32x18:r=30", "-frames:v", "0", str(path)], check=True)


def _cut_short(path, faststart):
    """A 60-frame MP4 cut to its first half: with its index (moov) at the end, as ffmpeg
    and cameras write it by default, or at the front."""
    whole = path.with_name("whole.mp4")
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc=s=64x36:r=30:d=2", "-c:v", "libx264", "-g", "10",
                    *(["-movflags", "+faststart"] if faststart else []), str(whole)],
                   check=True)
    data = whole.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("kind, said", [
    ("empty", "it is empty (0 bytes)"),
    ("text", "no video file ffmpeg can read (damaged, or another kind of file)"),
    ("zero", "it holds no video stream (no frames)"),
    ("cut", "its index (the MP4's moov atom) is missing: a .mp4 cut short before it was "
            "finished (a stopped recording, an unfinished copy) can be read only when "
            "written with its index first (-movflags +faststart)"),
])
def test_footage_ffmpeg_cannot_read_says_why(tmp_path, capsys, kind, said):
    clip = tmp_path / f"{kind}.mp4"
    if kind == "empty":
        clip.write_bytes(b"")
    elif kind == "text":
        clip.write_text("hello, not a video\n" * 20)
    elif kind == "zero":
        _zero_frames(clip)
    else:
        _cut_short(clip, faststart=False)
    out = tmp_path / "out.mp4"
    assert main(["fx", str(clip), "--motion-blur", "2", "-o", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: cannot read {clip} as video: {said}\n"
    assert not out.exists()


def test_a_cut_short_mp4_with_its_index_first_is_read_to_its_last_whole_frame(tmp_path):
    """What the README says of a cut-short MP4 holds where its index comes first."""
    from hfrender.io.probe import probe

    clip = tmp_path / "fast.mp4"
    _cut_short(clip, faststart=True)
    info = probe(str(clip))
    assert 10 <= info.count < 60 and info.cut_short


def test_a_damaged_frame_of_a_png_sequence_is_one_line(tmp_path, capsys):
    """(It said imageio's "Could not find a backend to open ... with iomode `r`", and
    told the user to save the sequence as RGB PNG, which it was.)"""
    import imageio.v3 as iio
    import numpy as np

    (tmp_path / "in").mkdir()
    for k in range(4):
        iio.imwrite(tmp_path / "in" / f"shot.{1001 + k}.png", np.full((8, 16, 3), 40 * k,
                                                                   np.uint8))
    bad = tmp_path / "in" / "shot.1003.png"
    bad.write_text("not a picture")
    out = tmp_path / "o.mp4"
    assert main(["fx", str(tmp_path / "in" / "shot.%04d.png"), "--fps", "24", "-o", str(out),
                 "--motion-blur", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: cannot read {bad}: it is no readable PNG image (damaged, "
                   "or another format)\n")
    assert not out.exists()


@pytest.mark.parametrize("suffix", [".dpx", ".jpg"])
def test_a_sequence_of_images_nothing_here_reads_is_not_said_damaged(tmp_path, capsys,
                                                                     suffix):
    """A DPX sequence (a film scan's, an editor's export), whole, was said to be "no
    readable DPX image (damaged, or another format)" (a footage trial): no plugin here
    reads DPX at all; the line says so and how to convert it. A damaged JPEG, a kind
    Pillow reads, is still said damaged."""
    (tmp_path / "in").mkdir()
    first = tmp_path / "in" / f"0001{suffix}"
    if suffix == ".dpx":
        subprocess.run([FFMPEG, "-v", "error", "-f", "lavfi", "-i",
                        "testsrc2=s=16x8:r=10:d=0.3", "-pix_fmt", "rgb48le", "-start_number",
                        "1", str(tmp_path / "in" / "%04d.dpx")], check=True)
    else:
        for k in (1, 2, 3):
            (tmp_path / "in" / f"{k:04d}.jpg").write_text("not a picture")
    assert main(["fx", str(tmp_path / "in" / f"%04d{suffix}"), "-o", str(tmp_path / "o.mp4"),
                 "--motion-blur", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"hfrender: error: cannot read {first}: " + (
        "hfrender reads no DPX images (PNG, EXR, and what Pillow reads: TIFF, JPEG): "
        "convert them first, to 16-bit PNGs in a folder png/ (mkdir -p png && ffmpeg "
        f"-pattern_type glob -i '{tmp_path / 'in'}/*.dpx' -pix_fmt rgb48be png/%04d.png)\n"
        if suffix == ".dpx" else "it is no readable JPG image (damaged, or another format)\n")
    if suffix == ".dpx":  # the line as given works (was: ffmpeg does not make png/)
        line = err.split("png/ (", 1)[1].rstrip(")\n").replace("ffmpeg", FFMPEG + " -v error", 1)
        subprocess.run(["bash", "-c", line], cwd=tmp_path, check=True)
        assert sorted(p.name for p in (tmp_path / "png").iterdir()) == [
            "0001.png", "0002.png", "0003.png"]


@pytest.mark.parametrize("name, said", [
    # a folder a shell splits: quoted whole, its quote escaped
    ("scan's 1/0001.dpx", "hfrender reads no DPX images (PNG, EXR, and what Pillow reads: "
     "TIFF, JPEG): convert them first, to 16-bit PNGs in a folder png/ (mkdir -p png && "
     "ffmpeg -pattern_type glob -i 'scan'\"'\"'s 1/*.dpx' -pix_fmt rgb48be png/%04d.png)"),
    # no suffix, no plugin opens it: damaged, or another format (was: "reads no images")
    ("in/0001", "it is no readable image (damaged, or another format)"),
])
def test_an_image_no_plugin_opens_is_said_by_its_suffix(name, said):
    from pathlib import Path

    from hfrender.io.images import unreadable

    exc = Exception(f"Could not find a backend to open `{name}`` with iomode `r`.")
    assert unreadable(Path(name), exc) == f"cannot read {name}: {said}"


def test_a_codec_this_ffmpeg_cannot_decode_names_the_cause(tmp_path, capsys):
    """ffmpeg's last line, "Error opening output files: Invalid argument", was said; its
    cause is the line that names the decoder (a video editor's trial)."""
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "a64.mkv"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=320x200:rate=25", "-t", "1", "-c:v", "a64multi",
                    str(clip)], check=True)
    assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "3"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {clip}: decoding stopped after 0 "
                                       "frames: Decoding requested, but no decoder found for: "
                                       "none\n")


def test_the_cause_of_a_stop_is_the_no_decoder_line_not_a_damaged_packets():
    """The first line naming "decoder" was taken: an earlier damaged packet's "Error
    submitting packet to decoder" hid the cause, or stood for it where there was none (a
    review)."""
    from hfrender.io.footage import stopped_why

    damaged = "[vist#0:0/h264 @ 0x5] Error submitting packet to decoder: Invalid data found"
    for log, why in (
            (f"{damaged}\n[vost#0:0 @ 0x6] Decoding requested, but no decoder found for: "
             "none\nError opening output files: Invalid argument",
             "Decoding requested, but no decoder found for: none"),
            (f"{damaged}\nDecoder (codec none) not found for input stream #0:0\n",
             "Decoder (codec none) not found for input stream #0:0"),
            (f"{damaged}\n[out#0/rawvideo @ 0x7] Error muxing a packet\n",
             "Error muxing a packet"),
            ("", "the video ended in the middle of a frame")):
        assert stopped_why(log) == why
