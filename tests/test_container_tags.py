"""Footage's container tags through fx: creation time, place, title, a camera's make and
model (QuickTime keys too), chapters; hfrender's own mark kept its own."""

import random
import re
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import imageio_ffmpeg
import pytest

from hfrender.cli import main
from hfrender.io.container_tags import apple_date, parse_ffmetadata

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
W, H = 64, 32


@pytest.mark.parametrize("name", ["out.mp4", "out.mkv"])
def test_fx_keeps_the_footages_creation_time_place_and_title(tmp_path, name):
    """A phone's gallery sorts a clip by its creation time and maps it by its place: fx's
    output had neither (nor the title), unsaid; now the footage's container tags are
    kept, as ``ffmpeg -i IN OUT`` keeps them, and hfrender's mark (comment) stays its own."""
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-pix_fmt", "yuv420p",
                    "-metadata", "creation_time=2024-05-01T10:00:00.000000Z",
                    "-metadata", "location=+37.3349-122.0090/", "-metadata",
                    "title=Holiday, day 2", "-metadata", "comment=shot on a phone",
                    str(clip)], check=True)
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                          text=True).stderr.split("Stream #")[0]
    lines = {re.sub(r"\s+", " ", x.strip().lower()) for x in said.splitlines()}
    assert {"creation_time : 2024-05-01t10:00:00.000000z",
            "location : +37.3349-122.0090/", "title : holiday, day 2",
            "comment : hfrender"} <= lines, said
    if name == "out.mp4":  # its title where iTunes-tag readers find it, not as a key alone
        assert re.search(rb"\xa9nam.{4}data.{8}Holiday, day 2", out.read_bytes(), re.S)


def test_container_tags_are_read_exactly_from_ffmetadata():
    """ffmpeg's ``-f ffmetadata`` text of the input (its own tags, not its chapters'):
    ``=``, ``;``, ``#``, ``\\`` and a newline unescaped, a CR kept; a time found twice
    taken once; the muxer's own and hfrender's mark left to the output's muxer."""
    text = (";FFMETADATA1\nmajor_brand=qt  \ncreation_time=2024-05-01T10:00:00Z\\;"
            "2024-05-01T10:00:00Z\ntitle=a\\=b\\;c\\#d\\\\e\\\nline 2\rend\n"
            "comment=hfrender\nMAKE=Apple\nlanguage=deu\n[CHAPTER]\nTIMEBASE=1/1000\n"
            "title=Intro\n")
    assert parse_ffmetadata(text) == (("creation_time", "2024-05-01T10:00:00Z"),
                                      ("title", "a=b;c#d\\e\nline 2\rend"),
                                      ("MAKE", "Apple"), ("language", "deu"))


def test_long_and_escaped_tags_come_through_whole(tmp_path):
    """ffmpeg's ``-i`` log, which they were read from, cuts a line at 255 bytes (a
    300-character description came back cut, unsaid), prints a CR as a space and a
    ``language`` never; read as ``-f ffmetadata`` writes them, they come through whole."""
    rng = random.Random(12)
    long = "".join(rng.choice("abcdefgh ijklmnop") for _ in range(300))
    odd = "a=b;c#d\\e\nline 2\rend"
    clip = tmp_path / "in.mkv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-pix_fmt", "yuv420p", "-metadata",
                    f"description={long}", "-metadata", f"title={odd}", str(clip)],
                   check=True)
    out = tmp_path / "out.mkv"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(out),
                           "-map_metadata", "0", "-f", "ffmetadata", "-"],
                          capture_output=True, check=True).stdout.decode().split("\n")
    assert f"DESCRIPTION={long}" in said, said
    assert "title=a\\=b\\;c\\#d\\\\e\\" in said and "line 2\rend" in said, said


def test_an_iphone_clips_place_make_and_model_are_kept(tmp_path):
    """An iPhone writes its clip's place, make and model as QuickTime keys
    (``com.apple.quicktime.location.ISO6709``): an MP4's or MOV's muxer keeps them only with
    ``-movflags use_metadata_tags`` (they were dropped, the place with them)."""
    plain, clip = tmp_path / "plain.mov", tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-pix_fmt", "yuv420p", str(plain)],
                   check=True)
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", str(plain),
                    "-c", "copy", "-movflags", "use_metadata_tags", "-metadata",
                    "com.apple.quicktime.location.ISO6709=+37.3349-122.0090+010.000/",
                    "-metadata", "com.apple.quicktime.model=iPhone 15", str(clip)], check=True)
    out = tmp_path / "out.mov"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                          text=True).stderr.split("Stream #")[0]
    lines = {re.sub(r"\s+", " ", x.strip()) for x in said.splitlines()}
    assert {"com.apple.quicktime.location.ISO6709: +37.3349-122.0090+010.000/",
            "com.apple.quicktime.model: iPhone 15", "comment : hfrender"} <= lines, said


def tags_of(path) -> list[tuple[str, str]]:
    """The file's own tags as ffmpeg's ``-f ffmetadata`` writes them (escapes kept)."""
    said = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                           "-map_metadata", "0", "-f", "ffmetadata", "-"],
                          capture_output=True, check=True).stdout.decode()
    return [tuple(x.split("=", 1)) for x in said.split("\n[")[0].splitlines()[1:]]


def movie_header_time(path) -> datetime:
    """The creation time in the movie header (mvhd, version 0: seconds since 1904), which
    Windows, Google Photos and Android galleries read."""
    data = path.read_bytes()
    at = data.index(b"mvhd") + 4
    assert data[at] == 0, "mvhd version 1"
    seconds = int.from_bytes(data[at + 4:at + 8], "big")
    return datetime(1904, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)


@pytest.mark.parametrize("name, key", [
    ("out.mov", "com.apple.quicktime.location.ISO6709=+37.3349-122.0090+010.000/"),
    ("out.mp4", "com.android.version=14")])
def test_quicktime_keys_keep_the_movie_headers_time(tmp_path, name, key):
    """With QuickTime's keys (an iPhone's place, an Android clip's version) the creation
    time was written only as ``com.apple.quicktime.creationdate``, the movie header's
    (mvhd) left 0: Windows, Google Photos and Android galleries read that one. Now the
    header has it, and the key too, in Apple's form, where the footage had none; ffmpeg
    lists ``creation_time`` twice (the muxer writes it as a key as well)."""
    clip = tmp_path / f"in{Path(name).suffix}"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-pix_fmt", "yuv420p", "-movflags",
                    "use_metadata_tags", "-metadata", "creation_time=2024-05-01T10:00:00Z",
                    "-metadata", "title=Holiday", "-metadata", key, str(clip)], check=True)
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert movie_header_time(out) == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    tags = tags_of(out)
    assert ("com.apple.quicktime.creationdate", "2024-05-01T10:00:00+0000") in tags, tags
    assert ("creation_time", "2024-05-01T10:00:00.000000Z\\;2024-05-01T10:00:00.000000Z"
            ) in tags, tags
    assert {("title", "Holiday"), tuple(key.split("=", 1))} <= set(tags), tags


def test_an_iphones_own_creationdate_is_kept_as_it_was(tmp_path):
    """Footage with its own ``com.apple.quicktime.creationdate`` (an iPhone's, its local
    offset) keeps it as it came; the movie header takes the creation time."""
    clip = tmp_path / "in.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-pix_fmt", "yuv420p", "-movflags",
                    "use_metadata_tags", "-metadata", "creation_time=2024-05-01T10:00:00Z",
                    "-metadata", "com.apple.quicktime.creationdate=2024-05-01T12:00:00+0200",
                    str(clip)], check=True)
    out = tmp_path / "out.mov"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    assert movie_header_time(out) == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    dates = [v for k, v in tags_of(out) if k == "com.apple.quicktime.creationdate"]
    assert dates == ["2024-05-01T12:00:00+0200"]


AT_START = [("0.000000", "0.120000", "Intro"), ("0.120000", "0.240000", "Main part")]
# the picture 0.5 s into an MP4 (-output_ts_offset: fx writes it so, its chapters beside it
# as the footage has them: an MP4's first from 0, as ffmpeg lists the footage's own)
LATER = [("0.000000", "0.620000", "Intro"), ("0.620000", "0.740000", "Main part")]


@pytest.mark.parametrize("clip_name, offset, name, chapters", [
    ("in.mkv", 0, "out.mp4", AT_START), ("in.mkv", 0, "out.mkv", AT_START),
    ("in.mp4", 0.5, "out.mp4", LATER), ("in.mp4", 0.5, "out.mkv", LATER)])
def test_chapters_are_kept_with_or_without_a_soundtrack(tmp_path, clip_name, offset, name,
                                                         chapters):
    """ffmpeg takes chapters from the first input with any: the soundtrack's file. A clip
    of chapters and no sound had them dropped, unsaid; read as a soundtrack of no audio
    (no codecs), one whose picture starts late (its sound would start first) still gets
    no audio filter nor stream, its picture where it was."""
    listing = tmp_path / "chapters.txt"
    ms = round(offset * 1000)
    listing.write_text(f";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART={ms}\n"
                       f"END={ms + 120}\ntitle=Intro\n[CHAPTER]\nTIMEBASE=1/1000\n"
                       f"START={ms + 120}\nEND={ms + 240}\ntitle=Main part\n")
    clip = tmp_path / clip_name
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.24", "-i", str(listing), "-map", "0:v",
                    "-map_chapters", "1", "-pix_fmt", "yuv420p", "-output_ts_offset",
                    str(offset), str(clip)], check=True)
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(out)], capture_output=True,
                          text=True).stderr
    assert re.findall(r"Chapter #0:\d: start ([\d.]+), end ([\d.]+)\n.*\n\s+title\s+: (.+)",
                      said) == chapters, said
    # no other stream came with them (an MP4 holds its chapters in a text track of its own)
    assert said.count(": Video: ") == 1 and ": Audio: " not in said, said
    assert (", start 0.500000" in said.split(": Video: ")[1].split("\n")[0]) == (offset > 0)


def test_a_line_after_an_escaped_newline_is_the_same_value():
    """The line after an escaped newline was read as a new line: a title "Trip<LF>[day 2]
    beach" ended the file's tags at its '[' (none read), and a ';' or '#' starting it made
    a comment of the rest. Now it is the value's, the tags beside it read too."""
    text = (";FFMETADATA1\nDATE=2024\ntitle=Trip\\\n[day 2] beach\\\n;night\\\n#3\n"
            "ARTIST=Ann\n")
    assert parse_ffmetadata(text) == (("DATE", "2024"),
                                      ("title", "Trip\n[day 2] beach\n;night\n#3"),
                                      ("ARTIST", "Ann"))


def test_apples_creationdate_is_said_in_utc_from_the_creation_time():
    """The key an iPhone writes, ``%Y-%m-%dT%H:%M:%S+0000`` (UTC); none from a time ISO 8601
    does not read, nor where the footage has its own."""
    assert apple_date((("creation_time", "2024-05-01T12:30:05.250000+02:00"),)) == (
        ("com.apple.quicktime.creationdate", "2024-05-01T10:30:05+0000"),)
    assert apple_date((("creation_time", "May 1st"),)) == ()
    assert apple_date((("creation_time", "2024-05-01T10:00:00Z"),
                       ("com.apple.quicktime.creationdate", "2024-05-01T12:00:00+0200"))) == ()


@pytest.mark.parametrize("name, seconds", [("out.mkv", 0.1), ("out.mp4", 0.1),
                                           ("out.webm", 10)])
def test_a_tag_past_an_argument_strings_limit_comes_through(tmp_path, monkeypatch, name,
                                                             seconds):
    """A tag over 128 KiB, one argument string past Linux's MAX_ARG_STRLEN as ``-metadata
    k=v``, crashed fx ("internal error: OSError: [Errno 7] Argument list too long"): the
    tags go to the final mux as an ffmetadata file now, the join's (.mkv, .mp4: segments
    of 0.1 s) and the whole file encoder's (.webm), and it is removed after."""
    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", seconds)
    rng = random.Random(7)
    long = "".join(rng.choice("abcdefgh ijklmnop=;#") for _ in range(200_000))
    listing = tmp_path / "tags.txt"
    listing.write_text(";FFMETADATA1\ndescription=" + re.sub(r"([=;#\\])", r"\\\1", long)
                       + "\ntitle=Long\n")
    clip = tmp_path / "in.mkv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=s={W}x{H}:r=25:d=0.2", "-i", str(listing), "-map", "0:v",
                    "-map_metadata", "1", "-pix_fmt", "yuv420p", str(clip)], check=True)
    out = tmp_path / name
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(out),
                           "-map_metadata", "0", "-f", "ffmetadata", "-"],
                          capture_output=True, check=True).stdout.decode()
    tags = {k.lower(): v for k, v in parse_ffmetadata(said)}  # (Matroska's: DESCRIPTION)
    assert tags["description"] == long and tags["title"] == "Long", sorted(tags)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.mkv", "tags.txt", name])


def test_a_joins_tags_file_left_by_a_kill_is_hfrenders(tmp_path):
    """A kill -9 during a join leaves its list and, now, its tags file in the work folder:
    both are hfrender's, and the next run may take the folder (the tags file, unknown,
    refused it: "... is there and is not hfrender's")."""
    from hfrender.io.join import JOIN_LIST, JOIN_TAGS
    from hfrender.io.work_names import check_work_names, work_names
    from hfrender.io.writers import WriterError

    out = tmp_path / "shot.mp4"
    folder = work_names(str(out))[1]
    folder.mkdir()
    (folder / JOIN_LIST).write_text("file 'x.mp4'\n")
    (folder / JOIN_TAGS).write_text(";FFMETADATA1\ntitle=Long\n")
    check_work_names(str(out))
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(WriterError, match="is there and is not hfrender's"):
        check_work_names(str(out))
