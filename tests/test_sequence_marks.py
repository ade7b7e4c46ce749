"""Which image files are hfrender's (an older render's frames, removed when a new render
takes the pattern): a PNG whose tEXt Software is exactly hfrender, an EXR whose software
attribute is; not a file that merely mentions hfrender. Every PNG hfrender writes carries
it: sequences, stills, the frames of a render on Ray."""

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from hfrender.cli import main
from hfrender.io.frame_marks import written_by_hfrender
from hfrender.io.images import encode_png16, png8_bytes
from hfrender.io.sequence_stale import remove_stale


def pillow_png(path, **text):
    info = PngInfo()
    for key, value in text.items():
        info.add_text(key, value)
    Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(path, pnginfo=info)
    return path


def test_only_hfrenders_own_mark_counts(tmp_path):
    ours = [tmp_path / "a.png", tmp_path / "b.png"]
    ours[0].write_bytes(png8_bytes(np.zeros((2, 3, 3), np.uint8)))
    ours[1].write_bytes(encode_png16(np.zeros((2, 3, 3), np.uint16)))
    theirs = [pillow_png(tmp_path / "c.png", Comment="reference frame for the hfrender test"),
              pillow_png(tmp_path / "d.png", Software="hfrender-fork 2.0"),
              pillow_png(tmp_path / "e.png", Title="hfrender")]
    (tmp_path / "f.png").write_text("notes about hfrender and Software hfrender")
    theirs.append(tmp_path / "f.png")
    assert [written_by_hfrender(p) for p in ours] == [True, True]
    assert [written_by_hfrender(p) for p in theirs] == [False] * 4
    assert not written_by_hfrender(tmp_path / "missing.png")


def test_an_exr_is_ours_by_its_software_attribute(tmp_path):
    exr = pytest.importorskip("OpenEXR")
    from hfrender.io.exr_files import encode_exr

    encode_exr(tmp_path / "ours.exr", np.zeros((2, 2, 3), np.float32))
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage,
              "comment": "hfrender"}
    with exr.File(header, {"RGB": np.zeros((2, 2, 3), np.float32)}) as f:
        f.write(str(tmp_path / "theirs.exr"))
    assert written_by_hfrender(tmp_path / "ours.exr")
    assert not written_by_hfrender(tmp_path / "theirs.exr")


def test_stale_removal_keeps_the_users_files_and_unfinished_parts_not_ours(tmp_path):
    (tmp_path / "0001.png").write_bytes(png8_bytes(np.zeros((2, 2, 3), np.uint8)))
    pillow_png(tmp_path / "0002.png")  # the user's
    pillow_png(tmp_path / "0003.png")  # the user's, a new frame's name
    (tmp_path / "0004.png.part").write_bytes(b"")  # an empty unfinished frame
    (tmp_path / "0005.png.part").write_bytes(b"the user's draft")
    kept, replaced = remove_stale(str(tmp_path / "%04d.png"), {"0003.png"})
    assert (kept, replaced) == (["0002.png", "0005.png.part"], ["0003.png"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0002.png", "0003.png",
                                                          "0005.png.part"]


def test_a_still_is_marked(tmp_path):
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    assert main(["still", str(bar), "-o", str(tmp_path / "s.png"), "--size", "4x2",
                 "--quiet"]) == 0
    assert written_by_hfrender(tmp_path / "s.png")


def test_a_frame_is_written_while_another_thread_holds_pillow_heifs_import_lock():
    """A Ctrl-C inside an import of the missing pillow_heif (imageio's Pillow plugin tries
    it at every file) can leave its import lock held: the writer thread's next PNG then
    waited forever (fx hung on Ctrl-C). With the module marked missing, no lock is taken."""
    import importlib._bootstrap as bootstrap
    import importlib.util
    import sys
    import threading

    if "pillow_heif" not in sys.modules and importlib.util.find_spec("pillow_heif"):
        pytest.skip("pillow_heif is installed here: imageio imports it once, no search")
    held = bootstrap._ModuleLockManager("pillow_heif")  # what an interrupted import leaves
    held.__enter__()
    try:
        out = []
        t = threading.Thread(target=lambda: out.append(png8_bytes(np.zeros((2, 3, 3),
                                                                           np.uint8))),
                             daemon=True)
        t.start()
        t.join(timeout=10)
        assert not t.is_alive(), "the PNG writer waits on the import lock"
        assert out[0].startswith(b"\x89PNG")
    finally:
        held.__exit__(None, None, None)


@pytest.mark.parametrize("dtype, suffix", [(np.uint8, "png"), (np.uint16, "png"),
                                           (np.float16, "exr")])
def test_a_pattern_of_another_width_beside_it_is_another_sequence(tmp_path, dtype, suffix):
    """shot_%d.png removed shot_%03d.png's frames 100 and on as an older render of its own
    pattern (its names are those %d prints too): data lost, the other sequence looking
    whole (a trial). Each frame now says which sequence it is of."""
    from hfrender.io.frame_marks import sequence_id, sequence_of
    from hfrender.io.writers import PngSequenceWriter

    rng = np.random.default_rng(len(suffix) + np.dtype(dtype).itemsize)
    frame = (rng.random((4, 6, 3)) * (1 if dtype == np.float16 else 200)).astype(dtype)
    wide, plain = str(tmp_path / f"shot_%03d.{suffix}"), str(tmp_path / f"shot_%d.{suffix}")
    with PngSequenceWriter(wide, (6, 4), start=98) as w:  # shot_098 .. shot_101
        for _ in range(4):
            w.write(frame)
    assert sequence_of(tmp_path / f"shot_100.{suffix}") == sequence_id(wide) != \
        sequence_id(plain)
    older = tmp_path / f"shot_7.{suffix}"  # an older render of shot_%d, marked before
    with PngSequenceWriter(plain, (6, 4), start=7) as w:  # frames carried their sequence
        w.write(frame)
    assert sequence_of(older) == sequence_id(plain)
    with PngSequenceWriter(plain, (6, 4), start=0) as w:  # a new render of shot_%d: 0, 1
        w.write(frame)
        w.write(frame)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([f"shot_{n}.{suffix}" for n in ("098", "099", "100", "101", "0",
                                                            "1")])


def test_a_render_does_not_replace_another_sequences_frames_of_its_names(tmp_path, capsys):
    """shot_%d.png over 105 frames took shot_100 .. shot_104 of shot_%03d.png (the names
    both print) without a word (a review); then it was refused only at the move, once the
    whole render was done. Now before any frame is drawn; a range that prints none of
    those names is not refused."""
    from hfrender.io.frame_marks import sequence_id, sequence_of

    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    run = ["render", str(bar), "--size", "8x4", "--samples", "1", "--duration", "3.5",
           "--quiet", "-o"]
    assert main([*run, str(tmp_path / "m" / "s_%03d.png")]) == 0
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "m").iterdir()}
    assert main([*run, str(tmp_path / "m" / "s_%d.png")]) == 2
    err = capsys.readouterr().err
    assert err == (f"hfrender: error: -o {tmp_path / 'm' / 's_%d.png'}: "
                   f"{tmp_path / 'm' / 's_100.png'} is a frame of another sequence (another "
                   "pattern printing the same names and 4 more), which hfrender does not "
                   "replace: remove it, or write to another name\n"), err
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "m").iterdir()} == before
    assert {sequence_of(tmp_path / "m" / f"s_{k}.png") for k in range(100, 105)} == {
        sequence_id("s_%03d.png")}
    assert main([*run, str(tmp_path / "m" / "s_%d.png"), "--frames", "0:100"]) == 0
    assert sequence_of(tmp_path / "m" / "s_99.png") == sequence_id("s_%d.png")
    assert len(list((tmp_path / "m").glob("s_*.png"))) == 205


def test_the_move_itself_refuses_another_sequences_frames(tmp_path):
    """What the run's first check did not see (another sequence's frames written at its
    names while it rendered) stops the move before any file is replaced, the run's frames
    kept."""
    from hfrender.io.outputs import temporary
    from hfrender.io.sequence_commit import commit_sequence
    from hfrender.io.writers import PngSequenceWriter

    rng = np.random.default_rng(11)
    frame = (rng.random((4, 6, 3)) * 255).astype(np.uint8)
    with PngSequenceWriter(str(tmp_path / "s_%03d.png"), (6, 4), start=100) as w:
        w.write(frame)
    tmp = temporary(str(tmp_path / "s_%d.png"))
    work = Path(tmp).parent
    with PngSequenceWriter(tmp, (6, 4), start=100) as w:
        w.write(frame[::-1].copy())
    theirs = (tmp_path / "s_100.png").read_bytes()
    with pytest.raises(FileExistsError, match="a frame of another sequence") as e:
        commit_sequence(tmp, str(tmp_path / "s_%d.png"))
    assert e.value.filename == str(tmp_path / "s_100.png")
    assert (tmp_path / "s_100.png").read_bytes() == theirs
    assert (work / "s_100.png").is_file()




def test_a_users_picture_at_a_frames_name_is_refused_before_any_work(tmp_path, capsys):
    """A user's own 0003.png in the sequence's folder was replaced by frame 3, said only
    afterwards (a batch user's trial; the README says a picture not hfrender's is refused):
    refused before any work now, the file as it was; an empty file holds nothing to lose."""
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    out = tmp_path / "seq" / "%04d.png"
    out.parent.mkdir()
    rng = np.random.default_rng(23)
    Image.fromarray((rng.random((4, 8, 3)) * 255).astype(np.uint8)).save(out.parent /
                                                                          "0003.png")
    (out.parent / "0004.png").write_bytes(b"mine too")
    mine = {n: (out.parent / n).read_bytes() for n in ("0003.png", "0004.png")}
    run = ["render", str(bar), "-o", str(out), "--size", "8x4", "--samples", "1",
           "--duration", "0.2", "--quiet"]
    assert main(run) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: {out.parent / '0003.png'} and 1 more are there and "
        "hfrender did not write them (or an older hfrender did, before it marked its "
        "frames); hfrender replaces only its own: remove them, or write to another name\n")
    assert {n: (out.parent / n).read_bytes() for n in ("0003.png", "0004.png")} == mine
    assert sorted(p.name for p in out.parent.iterdir()) == ["0003.png", "0004.png"]
    for name in mine:
        (out.parent / name).write_bytes(b"")  # emptied: nothing to lose
    assert main(run) == 0
    assert written_by_hfrender(out.parent / "0003.png")
    assert len(list(out.parent.glob("*.png"))) == 6


def test_the_check_of_a_long_sequences_names_reads_the_folder_not_every_name(tmp_path):
    """A render of 10 million frames (the most one output takes) into a folder made a set of
    every frame's name first: 24.7 s and 907 MB before any work (a review). The folder's
    own names are matched instead; another sequence's frame among them is still found."""
    import time

    from hfrender.io.sequence_commit import check_frames_there
    from hfrender.io.writers import PngSequenceWriter, WriterError

    with PngSequenceWriter(str(tmp_path / "x_%06d.png"), (2, 2), start=9_999_998) as w:
        w.write(np.zeros((2, 2, 3), np.uint8))  # x_9999998.png, as %07d prints it too
    t0 = time.perf_counter()
    check_frames_there(str(tmp_path / "y_%07d.png"), 0, 10_000_000)
    assert time.perf_counter() - t0 < 0.5
    with pytest.raises(WriterError, match=r"x_9999998\.png is a frame of another sequence"):
        check_frames_there(str(tmp_path / "x_%07d.png"), 0, 10_000_000)
    check_frames_there(str(tmp_path / "x_%07d.png"), 0, 9_999_998)  # (a range short of it)


def test_reexpose_refuses_a_users_picture_at_a_frames_name_too(tmp_path, capsys):
    """reexpose into a sequence replaced a user's picture at a frame's name, said after
    (a review: render, fx and Ray refused it)."""
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    store = tmp_path / "k.samples"
    assert main(["render", str(bar), "-o", str(tmp_path / "k.mp4"), "--size", "8x4",
                 "--samples", "2", "--duration", "0.2", "--keep-samples", str(store),
                 "--quiet"]) == 0
    out = tmp_path / "rx" / "%04d.png"
    out.parent.mkdir()
    Image.fromarray(np.full((4, 8, 3), 9, np.uint8)).save(out.parent / "0003.png")
    mine = (out.parent / "0003.png").read_bytes()
    assert main(["reexpose", str(store), "-o", str(out), "--shutter", "90", "-q"]) == 2
    assert capsys.readouterr().err.startswith(
        f"hfrender: error: -o {out}: {out.parent / '0003.png'} is there and hfrender did not "
        "write it")
    assert (out.parent / "0003.png").read_bytes() == mine
    (out.parent / "0003.png").unlink()
    assert main(["reexpose", str(store), "-o", str(out), "--shutter", "90", "-q"]) == 0
    assert len(list(out.parent.glob("*.png"))) == 6
