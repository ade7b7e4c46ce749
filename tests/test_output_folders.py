"""An output's missing folders are made, as a batch, an image sequence and a sample store
make theirs (``-o renders/shot1.mp4`` was refused: "folder renders does not exist"); a run
that leaves nothing there removes the folders it made; a file in the way is one line."""

from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from render_helpers import decode_video

from hfrender.cli import main
from hfrender.io.images import png8_bytes

DATA = Path(__file__).parent / "data"
BAR = str(DATA / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2", "--quiet"]


@pytest.mark.parametrize("name", ["shot.mp4", "shot.gif"])
def test_a_render_into_folders_that_do_not_exist_makes_them(tmp_path, name):
    """A video (made of segments) and a GIF (made whole under a hidden name) alike."""
    out = tmp_path / "renders" / "day 1" / name
    assert main(["render", BAR, "-o", str(out), *SMALL]) == 0
    frames = decode_video(out) if name.endswith(".mp4") else iio.imread(out, index=None)
    assert frames.shape[:3] == (6, 8, 32)  # 0.2 s at 30 fps
    assert sorted(p.name for p in out.parent.iterdir()) == [name]  # nothing else left


def test_a_still_and_fx_write_into_new_folders(tmp_path):
    still = tmp_path / "stills" / "a" / "t0.png"
    assert main(["still", BAR, "-o", str(still), "--size", "32x8", "--quiet"]) == 0
    assert iio.imread(still).shape == (8, 32, 3)
    clip = tmp_path / "clip.mp4"
    assert main(["render", BAR, "-o", str(clip), *SMALL]) == 0
    blurred = tmp_path / "fx out" / "b.mp4"
    assert main(["fx", str(clip), "--motion-blur", "2", "-o", str(blurred), "--quiet"]) == 0
    assert decode_video(blurred).shape[:3] == (6, 8, 32)  # the count kept, as tmix keeps it


@pytest.mark.parametrize("name", ["x.mp4", "x.webm", "x.gif", "%04d.png"])
@pytest.mark.parametrize("update, error", [
    ("raise RuntimeError('boom')", "RuntimeError: boom"),  # before the output is open
    # the first sub-frame (t < 0) once the output is open: a video's folders stayed (made
    # for its segments, never recorded), a GIF's and a sequence's went (a docs trial)
    ("self.ball.position = (math.sqrt(t), 0, 0)", "ValueError: math domain error")])
def test_a_run_that_fails_before_its_first_frame_leaves_no_folder(tmp_path, capsys, name,
                                                                  update, error):
    scene = tmp_path / "bad.py"
    scene.write_text("import math\nimport hfrender as hf\nclass Bad(hf.Scene):\n"
                     "    duration = 0.2\n    def setup(self):\n"
                     "        self.ball = self.add(hf.Cube())\n    def update(self, t):\n"
                     f"        {update}\n")
    (tmp_path / "out").mkdir()
    assert main(["render", str(scene), "-o", str(tmp_path / "out" / "new" / "deeper" / name),
                 "--size", "32x8", "--samples", "2", "--quiet"]) == 1
    assert error in capsys.readouterr().err
    assert list((tmp_path / "out").iterdir()) == []  # out/ was there: it stays


def test_a_file_where_a_folder_should_be_is_one_line(tmp_path, capsys):
    (tmp_path / "notes").write_text("mine")
    out = tmp_path / "notes" / "x.mp4"
    assert main(["render", BAR, "-o", str(out), *SMALL]) == 2
    err = capsys.readouterr().err.strip()
    notes = tmp_path / "notes"
    assert err == f"hfrender: error: -o {out}: cannot make folder {notes}: it is a file"
    assert (tmp_path / "notes").read_text() == "mine"


@pytest.mark.parametrize("name", ["x.gif", "x.png", "f/%03d.png"])
def test_the_folders_made_for_an_output_go_with_a_run_that_leaves_nothing(tmp_path, name):
    """``make_folder`` makes them when writing starts; ``discard`` (a run that ends with
    nothing kept) removes those it made, and only while they are empty."""
    from hfrender.io import outputs

    out = tmp_path / "a" / "b" / name
    made = outputs.make_folder(str(out))
    assert made == tmp_path / "a" and (tmp_path / "a" / "b").is_dir()
    tmp = Path(outputs.temporary(str(out)))
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_bytes(b"half")
    outputs.discard(str(tmp), made)
    assert list(tmp_path.iterdir()) == []
    again = outputs.make_folder(str(out))
    (tmp_path / "a" / "mine.txt").write_text("keep")  # the user's file: a/ stays, b/ goes
    outputs.discard(str(tmp), again)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["mine.txt"]
    assert outputs.make_folder(str(tmp_path / "here.gif")) is None  # nothing to make


@pytest.mark.parametrize("command, name", [("render", "a.mp4"), ("render", "a.webm"),
                                           ("render", "a.gif"), ("still", "b.png"),
                                           ("fx", "c.mp4")])
def test_a_folder_where_the_output_goes_is_one_line_before_any_work(tmp_path, capsys,
                                                                     command, name):
    """A trial: the whole render ran, then renaming onto the folder was an internal error,
    a finished hidden video left beside it."""
    clip = tmp_path / "clip.mp4"
    if command == "fx":
        assert main(["render", BAR, "-o", str(clip), *SMALL]) == 0
    out = tmp_path / name
    (out / "mine").mkdir(parents=True)
    args = {"render": ["render", BAR, "-o", str(out), *SMALL],
            "still": ["still", BAR, "-o", str(out), "--size", "32x8", "--quiet"],
            "fx": ["fx", str(clip), "--motion-blur", "2", "-o", str(out), "--quiet"]}[command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {out} is a folder, which the output cannot replace: "
                   "name another file, or move the folder away\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({name, clip.name} - (
        set() if command == "fx" else {clip.name}))
    assert [p.name for p in out.iterdir()] == ["mine"]



def test_a_folder_without_a_suffix_as_the_output_is_told_to_take_a_pattern(tmp_path, capsys):
    (tmp_path / "frames").mkdir()
    assert main(["render", BAR, "-o", str(tmp_path / "frames"), *SMALL]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {tmp_path / 'frames'} is a folder; for frames in it, give a "
        f"pattern: {tmp_path / 'frames' / '%05d.png'}\n")


@pytest.mark.parametrize("command", [["render", BAR], ["still", BAR]])
def test_a_name_too_long_for_what_is_written_beside_it_is_one_line_before_any_work(
        tmp_path, capsys, command):
    """249 bytes is a name the file system takes, but not ``.NAME.partial.mp4.hfrender``
    beside it (was: an internal error, "File name too long", once frames were made);
    a path past PATH_MAX alike. 230 bytes renders."""
    small = SMALL if command[0] == "render" else ["--size", "32x8", "--quiet"]
    suffix = ".mp4" if command[0] == "render" else ".png"
    long = tmp_path / ("L" * 245 + suffix)
    assert main([*command, "-o", str(long), *small]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f": the name is too long: hfrender writes .LLLLLLLLLLLLLLLLLLLLLLL... "
                        f"({245 + len(suffix) + 18} bytes) beside it, past this file "
                        "system's 255; give a shorter name\n") and len(err.splitlines()) == 1
    deep = tmp_path.joinpath(*["D" * 200] * 25, "a" + suffix)
    assert main([*command, "-o", str(deep), *small]) == 2
    assert "the path is too long: hfrender writes" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    fits = tmp_path / ("L" * 230 + suffix)
    assert main([*command, "-o", str(fits), *small]) == 0 and fits.is_file()


@pytest.mark.parametrize("name", ["a.mp4", "%04d.png"])
def test_a_folder_that_is_a_broken_link_is_one_line_before_any_work(tmp_path, capsys, name):
    """Was: a video's run failed with an internal error (FileExistsError) once it began."""
    (tmp_path / "sl").symlink_to(tmp_path / "gone")
    assert main(["render", BAR, "-o", str(tmp_path / "sl" / "x" / name), *SMALL]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {tmp_path / 'sl' / 'x' / name}: cannot make folder "
        f"{tmp_path / 'sl'}: it is a link to {tmp_path / 'gone'}, which does not exist\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sl"]


def test_an_output_that_links_where_nothing_can_be_written_is_refused_up_front(tmp_path,
                                                                                capsys):
    """The review's: the check looked in the link's folder, the file went through the link
    (/proc): the still rendered, then "cannot write"."""
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "out.png").symlink_to("/proc/hfrender-out.png")
    assert main(["still", BAR, "-o", str(tmp_path / "w" / "out.png"), "--size", "32x8"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: -o {tmp_path / 'w' / 'out.png'}: cannot write in /proc: ")


@pytest.mark.parametrize("name", ["a.mp4", "a.gif", "a.png"])
def test_an_output_that_is_a_link_is_written_through_it(tmp_path, name):
    """A CLI trial: the link was replaced by a file of its own (its target left stale). Now
    the link stays, and the file it points to is the new output."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / name).write_bytes(  # an older output of hfrender's (marked)
        png8_bytes(np.zeros((2, 2, 3), np.uint8)) if name.endswith(".png") else b"old hfrender")
    link = tmp_path / name
    link.symlink_to(tmp_path / "real" / name)
    command = ["still", BAR, "--size", "32x8", "--quiet"] if name.endswith(".png") else \
        ["render", BAR, *SMALL]
    assert main([*command, "-o", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == tmp_path / "real" / name
    target = tmp_path / "real" / name
    got = (decode_video(target) if name.endswith(".mp4") else iio.imread(target, index=None))
    assert got.shape[-3:-1] == (8, 32) and target.stat().st_size > 3
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == [name]
