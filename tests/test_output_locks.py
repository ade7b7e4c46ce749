"""An output's lock: a second writer refused, a render holding its resolved output and its
store, a lock that cannot be taken said while the run goes on, the lock file gone once let go,
and what an fx or reexpose reads not written meanwhile."""

import pytest

from hfrender.cli import main


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
