"""A video stream's own tags through fx (its language, title, handler name), a phone's
rotated clip upright once, and what an MPEG-TS output cannot hold said."""

import re
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from hfrender.cli import main

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H = 64, 32


def make_clip(path, *options, source=f"testsrc2=s={W}x{H}:r=25:d=0.4", inputs=()):
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    source, "-f", "lavfi", "-i", "sine=d=0.4", *inputs, "-pix_fmt", "yuv420p",
                    "-c:a", "aac", *options, str(path)], check=True)


def stream_tags(path, spec: str) -> dict[str, str]:
    """The tags of ``path``'s stream ``spec`` (``V:0``, ``a:0``), keys in lower case."""
    said = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                           "-map_metadata", f"0:s:{spec}", "-f", "ffmetadata", "-"],
                          capture_output=True, check=True).stdout.decode()
    return {k.lower(): v for k, v in (x.split("=", 1) for x in said.splitlines()[1:])}


@pytest.mark.parametrize("name, seconds", [("out.mp4", 10), ("out.mov", 10),
                                           ("out.mkv", 10), ("out.mp4", 0.1),
                                           ("out.mkv", 0.1)])
def test_fx_keeps_the_video_streams_language_title_and_handler(tmp_path, monkeypatch, name,
                                                               seconds):
    """A video stream's own tags were dropped (its language ``und``, its handler
    ``VideoHandler``, its title gone): the picture is encoded anew from raw frames. Now its
    language, title and handler name are the output's video stream's, in one piece and
    joined from segments (of 0.1 s); the audio stream keeps its own as it did."""
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", seconds)
    clip = tmp_path / "in.mkv"
    make_clip(clip, "-metadata:s:v:0", "language=jpn", "-metadata:s:v:0", "title=Angle A",
              "-metadata:s:v:0", "handler_name=Camera clip", "-metadata:s:a:0",
              "language=fra", "-metadata:s:a:0", "title=Lapel mic")
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    video, audio = stream_tags(out, "V:0"), stream_tags(out, "a:0")
    # an MP4's or MOV's muxer keeps a track's title as its "name"
    title = "title" if name.endswith(".mkv") else "name"
    assert (video.get("language"), video.get(title), video.get("handler_name")) == (
        "jpn", "Angle A", "Camera clip"), video
    assert audio.get("language") == "fra", audio
    if name.endswith(".mkv"):
        assert audio.get("title") == "Lapel mic", audio


def test_a_video_streams_tags_kept_are_its_language_title_and_handler():
    """Of a stream's tags, its language (``und`` says none), title (an MP4's track "name")
    and handler name (not ffmpeg's own), under :data:`VIDEO`; not its encoder, rotation or
    one too long to be an argument."""
    from hfrender.io.container_tags import LONGEST, VIDEO, file_tags, video_tags

    stream = (("language", "und"), ("name", "Angle A"), ("HANDLER_NAME", "Core Media Video"),
              ("encoder", "Lavc"), ("rotate", "90"), ("title", "x" * (LONGEST + 1)),
              ("handler_name", "VideoHandler"))
    assert video_tags(stream) == ((VIDEO + "title", "Angle A"),
                                  (VIDEO + "handler_name", "Core Media Video"))
    assert video_tags((("language", "jpn"),)) == ((VIDEO + "language", "jpn"),)
    assert file_tags((("title", "Trip"), (VIDEO + "language", "jpn"))) == (("title", "Trip"),)


def frame0(path) -> np.ndarray:
    """The first frame of ``path`` as a player shows it (ffmpeg turns it by its display
    matrix), RGB."""
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(path)], capture_output=True,
                          text=True).stderr
    w, h = map(int, re.search(r"Video: .*?, (\d+)x(\d+)", said).groups())
    if re.search(r"rotation of -?90", said):
        w, h = h, w
    raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).astype(int)


@pytest.mark.parametrize("name, gamma", [("out.mp4", False), ("out.mkv", True),
                                         ("out.mov", False)])
def test_a_rotated_phone_clip_comes_out_upright_once(tmp_path, name, gamma):
    """A phone clip shot upright is stored on its side with a display matrix (rotation
    90): fx reads it turned upright, as players show it, and writes it upright with no
    matrix of its own, so it is not turned a second time (nor the stored planes passed
    on their side with ``--gamma-space``)."""
    flat = tmp_path / "flat.mov"
    make_clip(flat, source=f"testsrc=s={W}x{H}:r=25:d=0.4")  # not symmetric: digits
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-display_rotation",
                    "90", "-i", str(flat), "-c", "copy", str(clip)], check=True)
    upright = frame0(clip)
    assert upright.shape == (W, H, 3)  # on its side as stored, upright as shown
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet", "--crf",
                 "0", *(["--gamma-space"] if gamma else [])]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                          text=True).stderr
    assert "Display Matrix" not in said and not re.search(r"rotate\s+:", said), said
    shown = frame0(out)
    assert shown.shape == upright.shape
    # 8.7 codes on average (chroma at the test card's sharp colour edges, converted to RGB
    # by two scalers); turned the other way (rot180) 191, mirrored 211 and (left to right,
    # the card's bars near symmetric) 51-54
    assert np.abs(shown - upright).mean() < 15
    for wrong in (np.rot90(upright, 2), upright[::-1], upright[:, ::-1]):
        assert np.abs(shown - wrong).mean() > 40


def test_a_ts_output_says_which_tags_it_cannot_hold(tmp_path, caplog):
    """MPEG-TS holds a service's name and provider, no creation time, place or chapters:
    they were dropped without a word. Now one warning names them; the title is kept as
    the service's name (players show it), and the sound's language as it was."""
    listing = tmp_path / "chapters.txt"
    listing.write_text(";FFMETADATA1\ncreation_time=2024-05-01T10:00:00Z\n"
                       "location=+37.3349-122.0090/\ntitle=Holiday\n[CHAPTER]\n"
                       "TIMEBASE=1/1000\nSTART=0\nEND=200\ntitle=Intro\n")
    clip = tmp_path / "in.mkv"
    make_clip(clip, "-map", "0:v", "-map", "1:a", "-map_metadata", "2", "-map_chapters", "2",
              "-metadata:s:a:0", "language=fra", inputs=("-f", "ffmetadata", "-i", str(listing)))
    out = tmp_path / "out.ts"
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records]
    # (the keys as Matroska holds them, in its order)
    assert said == [f"{out} (MPEG-TS) cannot hold {clip}'s tags LOCATION and creation_time; "
                    "1 chapter: left out (its title is kept as the service name); write .mkv "
                    "to keep them"], said
    shown = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                           text=True).stderr
    assert re.search(r"service_name\s*: Holiday", shown), shown
    assert stream_tags(out, "a:0").get("language") == "fra"


def test_what_a_ts_cannot_hold_is_named():
    """The line names the file's tags, its video stream's language and title (not a
    handler's name: a muxer's, mostly) and its chapters that a ``.ts`` cannot hold: all but
    its title (the service's name); other outputs hold them (a GIF none, as documented):
    no line."""
    from hfrender.io.container_tags import VIDEO, left_out

    tags = (("title", "Trip"), ("com.apple.quicktime.make", "Apple"),
            (VIDEO + "language", "jpn"), (VIDEO + "title", "Angle A"),
            (VIDEO + "handler_name", "Core Media Video"))
    assert left_out("in.mov", "o.ts", tags, 2) == (
        "o.ts (MPEG-TS) cannot hold in.mov's tag com.apple.quicktime.make; video stream's "
        "language and title; 2 chapters: left out (its title is kept as the service name); "
        "write .mkv to keep them")
    assert left_out("in.mov", "o.TS", tags[2:3], 0) == (
        "o.TS (MPEG-TS) cannot hold in.mov's video stream's language: left out; write "
        ".mkv to keep them")
    three = (("artist", "A"), ("make", "B"), ("model", "C"))
    assert left_out("in.mkv", "o.ts", three, 1) == (
        "o.ts (MPEG-TS) cannot hold in.mkv's tags artist, make and model; 1 chapter: left "
        "out; write .mkv to keep them")
    assert left_out("in.mov", "o.ts", tags[:1] + tags[4:], 0) == ""  # title: service name
    assert left_out("in.mov", "o.gif", tags, 3) == "" == left_out("in.mov", "o.mkv", tags, 3)


def test_a_ts_gets_no_option_for_the_video_streams_tags():
    """The mux's ``-metadata:s:v:0`` options are those the output gets: none for a ``.ts``
    (MPEG-TS drops them: were passed to it), all of them for a ``.mkv``."""
    from hfrender.io.container_tags import VIDEO, tag_options

    tags = (("title", "Trip"), (VIDEO + "language", "jpn"), (VIDEO + "title", "Angle A"))
    assert tag_options("t.txt", 1, tags, "o.ts") == (
        ["-f", "ffmetadata", "-i", "t.txt"], ["-map_metadata", "1"])
    assert tag_options("t.txt", 2, tags, "o.mkv")[1] == [
        "-map_metadata", "2", "-metadata:s:v:0", "language=jpn", "-metadata:s:v:0",
        "title=Angle A"]
    assert tag_options(None, 1, tags, "o.mkv") == ([], [])
