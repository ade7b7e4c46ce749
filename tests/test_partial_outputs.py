"""``NAME.partial.EXT``: what an interrupted run keeps, replaced or removed only where
hfrender wrote it (a record beside it: its size and time)."""

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


@pytest.mark.parametrize("name", ["busy.mp4", "busy/%03d.png"])
def test_a_second_writer_of_an_output_is_refused(tmp_path, capsys, name):
    """Two runs into one output mixed their frames, or lost one, and said "wrote": while
    one holds it, another render, fx or reexpose of it is refused, and nothing is touched."""
    import os

    from hfrender.io.output_lock import OutputBusy, output_lock

    out = tmp_path / name
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    with output_lock(str(out)):
        assert main(["render", str(bar), "-o", str(out), "--size", "4x2", "--duration",
                     "0.1", "--samples", "1", "--quiet"]) == 2
        assert capsys.readouterr().err == (
            f"hfrender: error: -o {out}: another hfrender (pid {os.getpid()}) is writing "
            "it; wait for it to finish, or write elsewhere\n")
        with pytest.raises(OutputBusy):  # the same path however it is spelt
            with output_lock(str(tmp_path / "." / name)):
                pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bar.frag"]
    assert main(["render", str(bar), "-o", str(out), "--size", "4x2", "--duration", "0.1",
                 "--samples", "1", "--quiet"]) == 0  # let go: the next run writes it


def test_a_render_holds_its_resolved_output_and_its_store(tmp_path, monkeypatch, capsys):
    """A render without -o holds out.mp4 (or hfrender.toml's output); --keep-samples holds
    its store too (a second render into one store deleted the first's chunks)."""
    from hfrender.io.output_lock import output_lock

    monkeypatch.chdir(tmp_path)
    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    run = ["render", str(bar), "--size", "4x2", "--duration", "0.1", "--samples", "1",
           "--quiet"]
    with output_lock("out.mp4"):
        assert main(run) == 2
    assert "-o out.mp4: another hfrender" in capsys.readouterr().err
    with output_lock(str(tmp_path / "k.samples")):
        assert main([*run, "-o", "x.mp4", "--keep-samples", "k.samples"]) == 2
    assert "--keep-samples k.samples: another hfrender" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bar.frag"]


def test_a_lock_that_cannot_be_taken_is_said_and_the_run_goes_on(tmp_path, monkeypatch,
                                                                  caplog):
    """No writable temporary folder (another user's, full, read-only) must not stop a run."""
    import tempfile

    from hfrender.io.output_lock import output_lock

    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(blocked))
    ran = False
    with caplog.at_level("WARNING"), output_lock(str(tmp_path / "o.mp4")):
        ran = True
    assert ran and [r.getMessage() for r in caplog.records] == [
        f"{tmp_path / 'o.mp4'} is not locked against a second run writing it: Not a "
        "directory"]


def test_a_join_that_fails_says_where_the_segments_are_and_how_to_go_on(tmp_path):
    """A full disk at the join: the message named the failure only, not the kept segments
    nor --resume (which then joined them, byte for byte)."""
    from hfrender.io.join import WriteFailed, join

    folder = tmp_path / "w"
    folder.mkdir()
    with pytest.raises(WriteFailed) as err:
        join([folder / "seg_00000000.ts"], str(tmp_path / "o.mp4"), folder, 30.0)
    said = str(err.value)
    assert said.startswith(f"joining 1 segment into {tmp_path / 'o.mp4'} failed: ")
    assert said.endswith(f"(the segments stay in {folder}: once that is mended, the same "
                         "command with --resume joins them)")


@pytest.mark.parametrize("signal_name", ["SEGV", "ABRT"])
def test_a_join_whose_ffmpeg_crashes_names_the_signal_and_the_way_out(tmp_path, monkeypatch,
                                                                        signal_name):
    """imageio-ffmpeg 0.6/0.7's ffmpeg 7.0.2 died of SIGSEGV at every join on the H200
    machine (and here): the message said "failed: no message"."""
    from hfrender.io.join import WriteFailed, join

    crash = tmp_path / "ffmpeg"
    crash.write_text("#!/bin/sh\n"  # it starts (its -version), and dies at the join
                     "[ \"$1\" = -version ] && echo 'ffmpeg version 7.0.2' && exit 0\n"
                     f"kill -{signal_name} $$\n")
    crash.chmod(0o755)
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(crash))
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "seg_00000000.ts").write_bytes(b"\x47" * 188)
    with pytest.raises(WriteFailed) as err:
        join([folder / "seg_00000000.ts"], str(tmp_path / "o.mp4"), folder, 24.0)
    assert str(err.value) == (
        f"joining 1 segment into {tmp_path / 'o.mp4'} failed: ffmpeg crashed (SIG"
        f"{signal_name}): imageio-ffmpeg before 0.8 brings an ffmpeg that crashes copying "
        "MPEG-TS on some processors; pip install -U 'imageio-ffmpeg>=0.8', or point "
        f"IMAGEIO_FFMPEG_EXE at another ffmpeg (the segments stay in {folder}: once that is "
        "mended, the same command with --resume joins them)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ffmpeg", "w"]  # no output at all
    assert (folder / "seg_00000000.ts").stat().st_size == 188


def test_an_ffmpeg_that_ends_says_what_it_said_and_blames_itself_only_when_it_crashed():
    """Only a fault (SIGSEGV, SIGILL, SIGBUS, SIGABRT) while copying streams points at the
    old imageio-ffmpeg; a kill -9 or the out-of-memory killer (SIGKILL), a SIGTERM, an
    encoder's crash, an exit status are said as what they are."""
    from hfrender.io.ffmpeg import crashed

    assert crashed(1, "Invalid data found when processing input") == \
        "Invalid data found when processing input"
    assert crashed(183) == "no message"
    assert crashed(-9, copying=True) == "ffmpeg was killed (SIGKILL: out of memory, or kill -9)"
    assert crashed(-15, "x", copying=True) == "ffmpeg was stopped by SIGTERM: x"
    assert crashed(-11) == "ffmpeg crashed (SIGSEGV)"  # encoding: no known cause
    assert crashed(-7, copying=True).startswith("ffmpeg crashed (SIGBUS): imageio-ffmpeg "
                                                "before 0.8")
    assert crashed(-200, copying=True) == "ffmpeg was stopped by signal 200"


@pytest.mark.parametrize("when", ["writing", "closing"])
def test_an_encoder_that_dies_of_a_signal_says_which(tmp_path, when):
    """The video writer's ffmpeg killed (SIGSEGV here) is said as a crash, at the next
    frame or at the close, not as "no message"."""
    import os
    import signal

    import numpy as np

    from hfrender.io.writers import VideoWriter, WriteFailed

    out = tmp_path / "v.mp4"
    writer = VideoWriter(str(out), 24.0, (256, 256))
    frame = np.zeros((256, 256, 3), np.uint8)  # (over the pipe's buffer: written at once)
    if when == "closing":
        writer.write(frame)
    os.kill(writer._proc.pid, signal.SIGSEGV)
    writer._proc.wait()
    with pytest.raises(WriteFailed) as err:
        writer.write(frame) if when == "writing" else writer.close()
    said = {"writing": f"ffmpeg stopped writing {out} after 0 frames: ffmpeg crashed (SIGSEGV)",
            "closing": f"ffmpeg could not finish {out} (exit -11): ffmpeg crashed (SIGSEGV)"}
    assert str(err.value) == said[when]
    if when == "writing":  # the close tells the same crash
        with pytest.raises(WriteFailed, match=r"\(exit -11\): ffmpeg crashed \(SIGSEGV\)$"):
            writer.close()


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


def test_an_outputs_lock_file_goes_when_it_is_let_go(tmp_path):
    """Each output left its lock file in the temporary folder for ever (57,109 of them in
    a trial's /tmp): it is removed by its holder, and the next run locks a new file."""
    import os
    import subprocess
    import sys
    from pathlib import Path as P

    from hfrender.io.output_lock import OutputBusy, lock_path, output_lock

    held = lock_path(str(tmp_path / "a.mp4"))
    with output_lock(str(tmp_path / "a.mp4")):
        assert held.read_text() == f"pid {os.getpid()}"
        root = P(__file__).resolve().parents[1]  # another process is refused meanwhile
        other = subprocess.run([sys.executable, "-c", (
            "import sys; from hfrender.io.output_lock import output_lock\n"
            f"with output_lock({str(tmp_path / 'a.mp4')!r}): pass")],
            env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True)
        assert other.returncode == 1 and "OutputBusy" in other.stderr
    assert not held.exists()
    with output_lock(str(tmp_path / "a.mp4")):
        assert held.exists()  # taken again: a new file
        with pytest.raises(OutputBusy):
            with output_lock(str(tmp_path / "a.mp4")):
                pass
    assert not held.exists()


def test_what_an_fx_or_reexpose_reads_is_not_written_meanwhile(tmp_path, capsys):
    """An fx read a sequence while a render replaced it and wrote a clip of old, new and
    mixed frames, exit 0 (a never-lose-work trial): the input is held for reading, shared
    between readers, never beside a writer."""
    import os

    from hfrender.io.output_lock import OutputBusy, input_lock, output_lock

    bar = tmp_path / "bar.frag"
    bar.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(p.x / 8.0); }\n")
    seq = tmp_path / "s" / "%04d.png"
    render = ["render", str(bar), "-o", str(seq), "--size", "8x4", "--duration", "0.2",
              "--samples", "1", "--quiet"]
    assert main(render) == 0
    fx = ["fx", str(seq), "--motion-blur", "2", "-o", str(tmp_path / "b.mp4"), "--quiet"]
    with output_lock(str(seq)):  # a render replacing it
        assert main(fx) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: INPUT {seq}: another hfrender (pid {os.getpid()}) is writing it; "
        "wait for it to finish\n")
    assert not (tmp_path / "b.mp4").exists()
    with input_lock(str(seq), "INPUT"), input_lock(str(seq), "INPUT"):  # two readers
        assert main(render) == 2  # and a render that would replace it meanwhile
        with pytest.raises(OutputBusy, match=r"another hfrender is reading it \(an fx of "):
            with output_lock(str(seq)):
                pass
    assert "another hfrender is reading it (an fx of it, a reexpose of a store); wait " \
        "for it to finish, or write elsewhere\n" in capsys.readouterr().err
    with output_lock(str(seq)):  # the folder given: held as its pattern (a review)
        assert main([*fx[:1], str(seq.parent), *fx[2:]]) == 2
    assert f"INPUT {seq}: another hfrender" in capsys.readouterr().err
    with output_lock(str(seq)):  # a depth pass being written: held too
        assert main(["fx", str(tmp_path / "b.mp4"), "--depth", str(seq), "-o",
                     str(tmp_path / "d.mp4"), "--quiet"]) == 2
    assert f"--depth {seq}: another hfrender" in capsys.readouterr().err
    assert main(fx) == 0 and (tmp_path / "b.mp4").is_file()  # let go: it runs
    from hfrender.io.output_lock import lock_path

    assert not lock_path(str(seq)).exists()  # the last reader took its lock file away
    store = tmp_path / "k.samples"  # a reexpose's store, as a render replaces it
    assert main([*render[:3], str(tmp_path / "k.mp4"), *render[4:], "--keep-samples",
                 str(store)]) == 0
    with output_lock(str(store), "--keep-samples"):
        assert main(["reexpose", str(store), "-o", str(tmp_path / "r.mp4"), "-q"]) == 2
    assert capsys.readouterr().err.startswith(f"hfrender: error: STORE {store}: another "
                                              f"hfrender (pid {os.getpid()}) is writing it")
    assert main(["reexpose", str(store), "-o", str(tmp_path / "r.mp4"), "-q"]) == 0


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
