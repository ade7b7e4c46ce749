"""A sample store's safety: an interrupted or failed render or re-exposure says what it
kept, a replaced store is said, and a store never takes what is not its own."""

import json

import numpy as np
import pytest
from reexpose_helpers import (
    SCENE,
    SIZE,
    _keep,
    scene_fixture,  # noqa: F401  (the fixture scene)
)
from render_helpers import linear

import hfrender as hf
from hfrender.config import RenderConfig
from hfrender.engine.render import render
from hfrender.io.store import StoreError, partial_dir
from hfrender.io.writers import MemoryWriter


@pytest.mark.usefixtures("gl_context")
def test_an_interrupted_render_leaves_the_old_store_whole(scene, tmp_path, monkeypatch):
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    before = (store / "store.json").read_text()
    import hfrender.engine.draw as draw

    real, calls = draw.SubframeDrawer.draw, {"n": 0}

    def stop(self, *args):
        calls["n"] += 1
        if calls["n"] == 20:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(draw.SubframeDrawer, "draw", stop)
    config = RenderConfig(output="memory.mp4", size=SIZE, samples=8, dof="off", quiet=True,
                          keep_samples=str(store))
    with pytest.raises(KeyboardInterrupt):
        render(str(scene), config, writer=MemoryWriter())
    assert (store / "store.json").read_text() == before  # the old store is untouched
    assert partial_dir(store).is_dir()  # what was kept of the new one waits there


@pytest.mark.usefixtures("gl_context")
def test_a_store_never_touches_folders_that_are_not_its_own(scene, tmp_path):
    store = tmp_path / "st"
    foreign = tmp_path / "st.partial"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    with pytest.raises(StoreError, match=r"st\.partial is there and is not an interrupted "
                                         "sample store"):
        _keep(scene, store, samples=2)
    assert (foreign / "mine.txt").read_text() == "keep me"
    (foreign / "mine.txt").unlink()
    foreign.rmdir()
    foreign.write_text("a file")
    with pytest.raises(StoreError, match="is not an interrupted sample store"):
        _keep(scene, store, samples=2)
    foreign.unlink()
    _keep(scene, store, samples=2)
    (tmp_path / "st.old").mkdir()
    (tmp_path / "st.old" / "a.txt").write_text("also mine")
    _keep(scene, store, samples=2)  # replaces the older store
    assert (tmp_path / "st.old" / "a.txt").read_text() == "also mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spin.py", "st", "st.old"]
    with pytest.raises(StoreError, match="would be inside the store"):
        render(str(scene), RenderConfig(output=str(tmp_path / "shot" / "%03d.png"),
                                        size=SIZE, samples=2, quiet=True,
                                        keep_samples=str(tmp_path / "shot")))
    assert not (tmp_path / "shot").exists() and not partial_dir(tmp_path / "shot").exists()


@pytest.mark.usefixtures("gl_context")
def test_nothing_of_the_users_is_kept_in_a_store_to_be_deleted_with_it(scene, tmp_path, capsys):
    """An output written inside a store, or any file a user put there, would go when the
    store is replaced by the next --keep-samples: both are refused, the file stays."""
    from hfrender.cli import main

    store = tmp_path / "s"
    args = ["render", str(scene), "-o", str(tmp_path / "a.mp4"), "--size", "32x18",
            "--samples", "2", "--quiet", "--keep-samples", str(store)]
    assert main(args) == 0
    assert main(["reexpose", str(store), "-o", str(store / "x.mp4"), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: -o {store / 'x.mp4'} is inside the "
                                       f"sample store {store}; write it beside the store (a new "
                                       "--keep-samples there would delete it)\n")
    (store / "notes.txt").write_text("mine")
    assert main(args) == 2
    assert capsys.readouterr().err == (f"hfrender: error: --keep-samples {store}: the store "
                                       "holds notes.txt, which replacing the store would "
                                       "delete; move it out, or give another folder\n")
    assert (store / "notes.txt").read_text() == "mine"
    (store / "notes.txt").unlink()
    assert main(args) == 0  # a store alone is replaced, as before
    # EXR: linear light (an 8-bit store's codes decoded before the blend), as 8-bit's
    assert main(["reexpose", str(store), "-o", str(tmp_path / "e" / "%04d.exr"),
                 "--quiet"]) == 0
    from hfrender.io.exr_files import read_exr

    exr = np.stack([read_exr(f) for f in sorted((tmp_path / "e").glob("*.exr"))])
    codes = hf.SampleStore.open(store).expose(workers=1)
    assert exr.dtype == np.float16 and exr.shape == codes.shape
    assert np.abs(exr.astype(np.float64) - linear(codes)).max() < 0.01
    assert exr.max() <= 1.0 and exr.max() > 0.5


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("stop", ["ctrl-c", "full disk"])
def test_an_interrupted_or_failed_reexpose_says_what_it_kept(scene, tmp_path, monkeypatch,
                                                             capsys, stop):
    """A Ctrl-C ended reexpose with "stopping after the work in progress..." alone (the
    frames made were in o.partial.mp4, unsaid); a failed join told to run "the same
    command with --resume", an option reexpose does not have."""
    from hfrender.cli import main
    from hfrender.engine import reexpose
    from hfrender.io.writers import WriteFailed

    store, out = tmp_path / "s", tmp_path / "o.mp4"
    _keep(scene, store, samples=4)

    def three_then_stop(kept, exposure, sink, **kwargs):
        for _ in range(3):
            sink.write(np.full((36, 64, 3), 90, np.uint8))
        if stop == "ctrl-c":
            raise KeyboardInterrupt
        raise WriteFailed(f"joining 1 segment into {out} failed: No space left on device (the "
                          "segments stay in x: once that is mended, the same command with "
                          "--resume joins them)")

    monkeypatch.setattr(reexpose, "run_exposure", three_then_stop)
    code = main(["reexpose", str(store), "-o", str(out)])
    err = capsys.readouterr().err
    partial = tmp_path / "o.partial.mp4"
    assert partial.is_file() and not out.exists()
    if stop == "ctrl-c":
        assert code == 130 and err.endswith(
            f"interrupted: the 3 frames finished so far are in {partial} ({out} is not "
            "written); run the same command again to expose it whole\n"), err
    else:
        assert code == 1 and err == (
            f"hfrender: error: joining 1 segment into {out} failed: No space left on device "
            "(the segments stay in x: once that is mended, the same command exposes it again)"
            f"; the 3 frames finished so far are in {partial} ({out} is not written)\n")


def test_a_render_stopped_before_a_whole_segment_names_its_unfinished_store(tmp_path,
                                                                             capsys):
    """Stopped before a second of video was finished, a render kept with --keep-samples
    left its sub-frames so far in STORE.partial (11 MB for 13 frames at 320x180 in a
    trial), unsaid: it is named, as the resumable case names it."""
    import argparse

    from hfrender.cli import commands

    keep = tmp_path / "k.samples"
    config = RenderConfig(output=str(tmp_path / "o.mp4"), keep_samples=str(keep))
    said = commands._again(argparse.Namespace(file="s.py"), config)
    assert said == ("; no whole segment (about a second of video) was finished, so --resume "
                    "has nothing to go on from")  # nothing kept yet: nothing to name
    partial_dir(keep).mkdir()
    said = commands._again(argparse.Namespace(file="s.py"), config)
    assert said.endswith(f"; the unfinished sample store {partial_dir(keep)} can go (a store "
                         "holds a whole render)")
    commands._interrupted(argparse.Namespace(file="s.py"), config,
                          argparse.Namespace(partial=None, frames_written=0))  # before frame 0
    assert capsys.readouterr().err == (
        "interrupted before the first frame: no frame was written; the unfinished sample "
        f"store {partial_dir(keep)} can go (a store holds a whole render)\n")


@pytest.mark.usefixtures("gl_context")
def test_a_failed_render_names_its_unfinished_store(scene, tmp_path, capsys):
    """A scene error part way through a render kept with --keep-samples: the one line names
    the frames finished and the unfinished store (a store holds a whole render)."""
    from hfrender.cli import main
    from hfrender.io.store import partial_dir

    broken = tmp_path / "broken.py"
    broken.write_text(SCENE.replace("    def update(self, t):\n",
                                    "    def update(self, t):\n"
                                    "        assert t < 0.2, 'the scene broke'\n"))
    store, out = tmp_path / "k.samples", tmp_path / "o.mp4"
    assert main(["render", str(broken), "-o", str(out), "--size", "64x36", "--samples", "4",
                 "--granularity", "4", "--keep-samples", str(store), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "the scene broke" in err and err.count("\n") == 1, err
    assert err.rstrip().endswith(f"; the unfinished sample store {partial_dir(store)} can go "
                                 "(a store holds a whole render)"), err
    assert partial_dir(store).is_dir() and not store.exists()


@pytest.mark.usefixtures("gl_context")
def test_a_store_about_to_be_replaced_is_said_before_the_render(scene, tmp_path, caplog):
    """--keep-samples into a folder holding a store replaced it without a word (a kept
    render of another scene, 16.7 MB, in the trial); said before the work, not after."""
    from hfrender.cli import main

    store, out = tmp_path / "s.samples", tmp_path / "o.mp4"
    args = ["render", str(scene), "-o", str(out), "--size", "64x36", "--samples", "2",
            "--keep-samples", str(store)]
    with caplog.at_level("WARNING", logger="hfrender.io.store"):
        assert main(args) == 0
        assert not caplog.records  # a new folder: nothing to say
        subframes = json.loads((store / "store.json").read_text())["subframes"]
        assert main(args) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"--keep-samples {store}: the store there ({subframes} sub-frames of spin.py) is "
        "replaced once this render completes; give another folder to keep it"]


@pytest.mark.usefixtures("gl_context")
def test_an_interrupted_stores_leftover_is_said_as_it_is_removed(scene, tmp_path, caplog):
    """The interrupted render said its unfinished store "can go"; the next one removed it
    without a word."""
    from hfrender.io.store import MARKER

    left = tmp_path / "s.samples.partial"
    left.mkdir()
    (left / MARKER).write_text("an hfrender sample store being written\n")
    (left / "c000000.npz").write_bytes(b"old")
    with caplog.at_level("WARNING"):
        _keep(scene, tmp_path / "s.samples", samples=2)
    assert [r.getMessage() for r in caplog.records if "removing" in r.getMessage()] == [
        f"--keep-samples {tmp_path / 's.samples'}: removing {left}, an interrupted render's "
        "unfinished store (a store cannot be resumed)"]
    assert not left.exists() and (tmp_path / "s.samples" / "store.json").is_file()


@pytest.mark.usefixtures("gl_context")
def test_a_store_replaced_while_it_is_read_is_said_so_not_damaged(scene, tmp_path):
    """A render putting a new store where a reexpose was reading one: the reexpose called
    the (sound) new store's chunk "damaged" (a never-lose-work trial): a user told so may
    delete it. Now it says the store was replaced."""
    store = tmp_path / "store"
    _keep(scene, store, samples=4)
    opened = hf.SampleStore.open(store)
    first = opened.read(0)  # reading has begun
    _keep(scene, store, samples=8)  # another render's --keep-samples finishes into it
    with pytest.raises(StoreError) as info:
        opened.read(0)
    assert str(info.value) == (f"{store}: the store was replaced while it was read (a render "
                               "with --keep-samples put a new one there); run this again to "
                               "read the new one")
    again = hf.SampleStore.open(store).read(0)
    assert len(again["times"]) != len(first["times"]) or not np.array_equal(
        again["times"], first["times"])
