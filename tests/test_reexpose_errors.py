"""What ``hfrender reexpose`` says of an exposure a store cannot give (stores written
without GL: store_helpers)."""

import re

import numpy as np
import pytest
from store_helpers import SETTINGS, write_store

import hfrender as hf
from hfrender.cli import main
from hfrender.io.store import StoreWriter


def test_a_too_narrow_shutter_at_the_first_frame_names_the_spacing(tmp_path):
    kept = hf.SampleStore.open(write_store(tmp_path / "start.samples", position="start"))
    # 2 sub-frames over 180 degrees from the frame's time: at 45 and 135 degrees
    with pytest.raises(hf.InputError, match="^" + re.escape(
            "output frame 0: no kept sub-frame inside its shutter (from 0.000000 to 0.000046 "
            "s); the kept sub-frames around it lie 90 degrees apart (0.0042 and 0.0125 s): a "
            "shutter of 90 degrees or more holds one (or keep more --samples)") + "$"):
        kept.expose(shutter=0.5, position="start")  # (was: "from 0.0000 to 0.0000 s ...
    # the store has too few samples for so narrow a shutter", no figure)
    assert kept.expose(shutter=90, position="start").shape == (3, 8, 16, 3)


def test_a_focus_nearer_than_the_lens_is_named_as_the_option(tmp_path, capsys):
    store = write_store(tmp_path / "s.samples")
    out = tmp_path / "near.mp4"
    args = ["reexpose", str(store), "-o", str(out), "--f-stop", "2", "--focus-distance"]
    assert main([*args, "0.01"]) == 2
    assert capsys.readouterr().err == (  # (was: "focus_distance=0.01 must be a distance
        "hfrender: error: --focus-distance 0.01 must be a distance in metres greater than "
        "the focal length (0.05 m, a 50 mm lens), or inf\n")  # ...", a Python keyword)
    assert not out.exists()
    with pytest.raises(hf.InputError, match=r"^focus_distance=0\.05 must be a distance in "
                                            r"metres greater than the focal length \(0\.05 m"):
        hf.SampleStore.open(store).expose(focus_distance=0.05, f_stop=2)  # (its keyword)
    assert main([*args, "0.06", "-q"]) == 0 and out.is_file()


def test_an_interrupted_store_says_what_it_holds_and_lacks(tmp_path, capsys):
    store = tmp_path / "cut.samples"
    times = np.arange(6) / 60.0  # 3 frames of 2 sub-frames, the render cut after them
    writer = StoreWriter(store, {**SETTINGS, "frames": 30}, (16, 8))
    for part in (times[:4], times[4:]):
        writer.add({"color": np.zeros((len(part), 8, 16, 4), np.uint8), "times": part})
    writer.abandon()  # as after Ctrl-C: no manifest, the folder not renamed
    (store.parent / "cut.samples.partial" / "c000002.npz").write_bytes(b"PK\x03")  # half
    held = sum(f.stat().st_size for f in (store.parent / "cut.samples.partial").glob("c*.npz"))
    assert 100 < held < 1000  # (3 small chunks, the last half written: said in bytes)
    said = (f"{store.parent / 'cut.samples.partial'} holds 3 chunks ({held} B, sub-frames up "
            "to 0.083 s) and no store.json, which its render writes when it completes; an "
            "interrupted store cannot be exposed nor resumed: render again with --keep-samples")
    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4")]) == 2
    assert capsys.readouterr().err == (  # (was: "...: it has no manifest yet", no more)
        f"hfrender: error: {store}: this sample store is still being written (or its render "
        f"was interrupted): {said}\n")
    assert not (tmp_path / "o.mp4").exists()


@pytest.mark.parametrize("words", [["--fps", "24"], ["--frames=0:9"], ["--size", "80x45"]])
def test_a_renders_option_is_told_the_store_fixes_it(tmp_path, capsys, words):
    store = write_store(tmp_path / "s.samples")
    with pytest.raises(SystemExit) as stop:
        main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4"), *words])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (  # (was: "unrecognized arguments: --fps 24" alone)
        f"hfrender: error: unrecognized arguments: {' '.join(words)}; "
        f"{words[0].partition('=')[0]} is the render's: a re-exposure keeps the store's "
        "frames, frame rate, size and sub-frames (render again with --keep-samples to change "
        "them; cut a part of the output with ffmpeg) (see hfrender reexpose --help)\n")


@pytest.mark.parametrize("name", ["x.png", "x.exr"])
def test_one_picture_is_told_a_sequence_of_every_frame(tmp_path, capsys, name):
    """``-o x.png`` was told "(one picture: hfrender still)", which renders a scene, not a
    store; reexpose has no --frames: it exposes each frame the store holds."""
    store = write_store(tmp_path / "s.samples")
    out = tmp_path / name
    assert main(["reexpose", str(store), "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"hfrender: error: -o {out}: unknown output type '{out.suffix}'; use .mp4, "
                   ".mov, .mkv, .webm, .gif, .ts or a PNG or EXR pattern like frames/%05d.png "
                   f"(each frame a picture: {tmp_path / ('x_%05d' + out.suffix)}; reexpose "
                   "exposes every frame the store holds)")
    assert not out.exists()


def test_a_store_without_its_times_says_it_is_missing(tmp_path, capsys):
    store = write_store(tmp_path / "s.samples")
    (store / "times.npy").unlink()
    assert main(["reexpose", str(store), "-o", str(tmp_path / "o.mp4")]) == 2
    assert capsys.readouterr().err == (  # (was: "times.npy unreadable ([Errno 2] No such
        f"hfrender: error: {store}: times.npy (its sub-frames' times) missing; render it "
        "again with --keep-samples\n")  # file or directory: ...)")
    assert not (tmp_path / "o.mp4").exists()
