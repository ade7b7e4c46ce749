"""``NAME.partial.EXT``: what an interrupted run keeps, replaced or removed only where
hfrender wrote it (a record beside it: its size and time); a user's own files at an output's
or a work's name refused, not replaced. Locks on an output are in test_output_locks.py, a
failed join and ffmpeg's crashes in test_ffmpeg_crashes.py."""

from pathlib import Path

import pytest

from hfrender.cli import main
from hfrender.io import outputs


def test_a_kept_partial_is_recorded_replaced_and_removed_and_its_record_with_it(tmp_path):
    out = str(tmp_path / "loop.gif")  # a GIF keeps no segments: its tmp file is the partial
    record = tmp_path / ".loop.partial.gif.hfrender"
    for frames, count in ((b"first run", 5), (b"second run", 5)):  # (as many: replaced)
        tmp = outputs.temporary(out)
        Path(tmp).write_bytes(frames)
        assert outputs.keep_partial(tmp, out, count) == str(tmp_path / "loop.partial.gif")
        assert (tmp_path / "loop.partial.gif").read_bytes() == frames and record.is_file()
        assert outputs.partial_frames(out) == count
    Path(tmp).write_bytes(b"third run")  # fewer frames: the second run's stay
    assert outputs.keep_partial(tmp, out, 4) == str(tmp_path / "loop.partial.gif")
    assert (tmp_path / "loop.partial.gif").read_bytes() == b"second run"
    assert not Path(tmp).exists() and outputs.partial_frames(out) == 5
    outputs.check_partial_free(out)  # ours: no refusal
    outputs.remove_partial(out)  # the output complete: the partial and its record go
    assert not (tmp_path / "loop.partial.gif").exists() and not record.exists()


def test_a_record_whose_partial_the_user_deleted_goes_with_the_next_run(tmp_path):
    out = str(tmp_path / "a.mp4")
    (tmp_path / "a.partial.mp4").write_bytes(b"frames")
    outputs.mark_partial(tmp_path / "a.partial.mp4")
    (tmp_path / "a.partial.mp4").unlink()
    outputs.remove_partial(out)
    assert not (tmp_path / ".a.partial.mp4.hfrender").exists()


def test_fx_refuses_to_read_the_partial_a_finished_output_would_remove(tmp_path, capsys):
    """Blurring an interrupted render's frames into the output they were meant for: the
    finished output removes its partial, here the input: refused, the input kept."""
    import subprocess

    import imageio_ffmpeg

    partial = tmp_path / "v.partial.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=32x16:rate=30", "-frames:v", "6",
                    "-pix_fmt", "yuv420p", str(partial)], check=True)
    outputs.mark_partial(partial)
    out = tmp_path / "v.mp4"
    assert main(["fx", str(partial), "-o", str(out), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out} would remove {partial} (an interrupted render's partial "
        f"output), which is the input ({partial}): write the output elsewhere\n")
    assert partial.stat().st_size > 0 and not out.exists()
    assert main(["fx", str(partial), "-o", str(tmp_path / "w.mp4"), "--motion-blur", "2",
                 "--quiet"]) == 0  # another name: fine


def test_fx_keeps_no_partial_so_a_file_of_that_name_does_not_stop_it(tmp_path):
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "c.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc=size=32x16:rate=30", "-frames:v", "6",
                    "-pix_fmt", "yuv420p", str(clip)], check=True)
    (tmp_path / "o.partial.mp4").write_bytes(b"theirs")
    assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                 "--quiet"]) == 0
    assert (tmp_path / "o.partial.mp4").read_bytes() == b"theirs"


def test_a_partial_touched_or_copied_is_still_hfrenders_and_one_edited_is_not(tmp_path):
    """Was: ``touch`` (or a copy, whose time is new) made hfrender's own partial output a
    stranger's, and --resume was refused with "is not a partial output this hfrender
    wrote". Its content decides now; a file of the same size with other bytes stays the
    user's."""
    import os

    out = str(tmp_path / "p.mp4")
    partial = tmp_path / "p.partial.mp4"
    partial.write_bytes(bytes(range(256)) * 4096 + b"tail")  # past the fingerprint's 1 MiB
    outputs.mark_partial(partial)
    os.utime(partial, ns=(1, 10**9))  # touch: another time, the same bytes
    outputs.check_partial_free(out)
    partial.write_bytes(bytes(range(256)) * 4096 + b"TAIL")  # the same size, other bytes
    with pytest.raises(outputs.WriterError, match="is not a partial output this hfrender"):
        outputs.check_partial_free(out)
    outputs.remove_partial(out)
    assert partial.read_bytes().endswith(b"TAIL")  # the user's: kept


@pytest.mark.parametrize("output, taken, kind", [
    ("q/f_%04d.png", "q/f_####.png.partial", "folder"),
    ("q/f_%04d.png", "q/.f_####.png.partial", "folder"),
    ("q/x.mp4", "q/.x.mp4.hfrender", "folder"),
    ("q/x.mp4", "q/.x.mp4.joining.mp4", "notes"),
    ("q/x.mp4", "q/.x.mp4.partial.mp4", "notes"),
])
def test_a_users_file_at_a_work_name_is_refused_not_removed(tmp_path, capsys, output, taken,
                                                             kind):
    """Folders and files of the user's at the names hfrender keeps its work under were
    removed without a word (a never-lose-work trial); refused now, before any work, as a
    foreign NAME.partial.mp4 was. hfrender's own leftovers there are still taken."""
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    path = tmp_path / taken
    if kind == "folder":
        (path / "sub").mkdir(parents=True)
        (path / "sub" / "b.txt").write_text("mine")
    else:
        path.parent.mkdir(parents=True)
        path.write_text("my notes")
    run = ["render", str(bar), "-o", str(tmp_path / output), "--size", "8x4", "--duration",
           "0.2", "--samples", "1", "--quiet"]
    assert main(run) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {tmp_path / output}: {path} is there and is not hfrender's, but "
        "hfrender keeps its work for this output under that name and would remove it: move "
        "it, or write to another name\n")
    assert (path / "sub" / "b.txt" if kind == "folder" else path).read_text() in ("mine",
                                                                                  "my notes")
    import shutil

    shutil.rmtree(path) if kind == "folder" else path.unlink()
    if kind == "folder":  # hfrender's own leftovers there: a manifest, a marked frame
        path.mkdir()
        (path / "manifest.json").write_text("{}")
    else:
        path.write_bytes(b"\x1a\x45\xdf\xa3 a segment's start")
    assert main(run) == 0 and (tmp_path / output.replace("%04d", "0000")).is_file()
    assert not path.exists() or kind != "folder"  # (the folders go; a video's file stays
    # where this run did not need the name)


@pytest.mark.parametrize("name, command", [("notes.mp4", "render"), ("clip.webm", "render"),
                                           ("clip.mov", "render"), ("clip.mkv", "render"),
                                           ("clip.ts", "render"),  # (its mark: a review)
                                           ("pic.png", "still"), ("pic.exr", "still")])
def test_a_file_hfrender_did_not_write_is_not_replaced(tmp_path, capsys, name, command):
    """A user's own video or picture at -o was replaced without a word (a never-lose-work
    trial): refused now, before any work; hfrender's own (marked) is replaced as before."""
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    out = tmp_path / name
    out.write_bytes(b"my own footage, not a render")
    run = [command, str(bar), "-o", str(out), "--size", "8x4", "--quiet"] + (
        ["--duration", "0.2", "--samples", "1"] if command == "render" else [])
    assert main(run) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {out}: a file is there that hfrender did not write (or an "
        "older hfrender did, before it marked its outputs); hfrender replaces only its own: "
        "remove it, or write to another name\n")
    assert out.read_bytes() == b"my own footage, not a render"
    out.unlink()
    assert main(run) == 0  # hfrender's own output, then replaced by the next run
    first = out.stat()
    assert main(run) == 0
    assert (out.stat().st_ino, out.stat().st_mtime_ns) != (first.st_ino, first.st_mtime_ns)


def test_a_folder_at_a_frames_name_or_at_a_stills_is_one_line_first(tmp_path, capsys):
    """A folder at a frame's name was found once the whole render was done (exit 1); a
    still onto a folder was told its format (a never-lose-work trial)."""
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    (tmp_path / "p" / "0001.png").mkdir(parents=True)
    assert main(["render", str(bar), "-o", str(tmp_path / "p" / "%04d.png"), "--size", "8x4",
                 "--duration", "0.2", "--samples", "1", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o {tmp_path / 'p' / '%04d.png'}: {tmp_path / 'p' / '0001.png'} is "
        "a folder, where a frame of the sequence would go: move it, or write to another name\n")
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["0001.png"]
    assert main(["still", str(bar), "-o", str(tmp_path / "p"), "--size", "8x4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: -o {tmp_path / 'p'}: a folder is "
                                       f"there; name the picture (-o {tmp_path / 'p'}/still.png)\n")
