"""The lines about an output that another run holds, or that holds files hfrender did not
write, name it as its caller did: ``output='f/%04d.png'`` to hf.render's caller, ``-o
f/%04d.png`` to the command's user (were ``-o`` to both: a Python caller typed no flag)."""

import os

import numpy as np
import pytest
from PIL import Image
from test_busy_as_typed import BUSY

import hfrender as hf
from hfrender.cli import main
from hfrender.io.output_lock import OutputBusy, output_lock
from hfrender.io.writers import PngSequenceWriter, WriterError

SMALL = {"size": (8, 4), "samples": 1, "duration": 0.2}
FLAGS = ["--size", "8x4", "--samples", "1", "--duration", "0.2", "--quiet"]


def test_a_busy_output_is_named_as_the_call_gave_it(bar, capsys):
    with output_lock("f/%04d.png"), pytest.raises(OutputBusy) as info:
        hf.render(bar, "f/####.png", **SMALL)
    assert str(info.value) == f"output='f/####.png': {BUSY.format(os.getpid())}"
    with output_lock("f/%04d.png"):
        assert main(["render", bar, "-o", "f/####.png", *FLAGS]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: -o f/####.png: {BUSY.format(os.getpid())}\n")
    assert not os.path.exists("f")


def test_a_busy_sample_store_is_named_as_the_call_gave_it(bar, capsys):
    with output_lock("s.samples"), pytest.raises(OutputBusy) as info:
        hf.render(bar, "o.mp4", keep_samples="s.samples", **SMALL)
    assert str(info.value) == f"keep_samples='s.samples': {BUSY.format(os.getpid())}"
    with output_lock("s.samples"):
        assert main(["render", bar, "-o", "o.mp4", "--keep-samples", "s.samples",
                     *FLAGS]) == 2
    assert capsys.readouterr().err == (
        f"hfrender: error: --keep-samples s.samples: {BUSY.format(os.getpid())}\n")
    assert not os.path.exists("o.mp4")


@pytest.mark.parametrize("typed", ["seq/%04d.png", "seq/####.png"])
def test_a_users_picture_at_a_frames_name_is_named_as_the_call_gave_it(bar, capsys, typed):
    """(And as typed: Blender's ``####`` was said as the ``%04d`` made of it, where the busy
    line says it as typed.)"""
    os.mkdir("seq")
    rng = np.random.default_rng(5)
    Image.fromarray((rng.random((4, 8, 3)) * 255).astype(np.uint8)).save("seq/0002.png")
    mine = open("seq/0002.png", "rb").read()
    said = ("seq/0002.png is there and hfrender did not write it (or an older hfrender "
            "did, before it marked its frames); hfrender replaces only its own: remove it, "
            "or write to another name")
    with pytest.raises(WriterError) as info:
        hf.render(bar, typed, **SMALL)
    assert str(info.value) == f"output='{typed}': {said}"
    assert main(["render", bar, "-o", typed, *FLAGS]) == 2
    assert capsys.readouterr().err == f"hfrender: error: -o {typed}: {said}\n"
    assert os.listdir("seq") == ["0002.png"] and open("seq/0002.png", "rb").read() == mine


def test_another_sequences_frame_is_named_as_the_call_gave_it(bar, capsys):
    rng = np.random.default_rng(7)
    with PngSequenceWriter("s_%03d.png", (8, 4), start=100) as w:  # s_100.png: another's
        w.write((rng.random((4, 8, 3)) * 255).astype(np.uint8))
    theirs = open("s_100.png", "rb").read()
    said = ("s_100.png is a frame of another sequence (another pattern printing the same "
            "names), which hfrender does not replace: remove it, or write to another name")
    with pytest.raises(WriterError) as info:  # (s_%d.png's frame 100 of 105 is s_100.png)
        hf.render(bar, "s_%d.png", **{**SMALL, "duration": 3.5})
    assert str(info.value) == f"output='s_%d.png': {said}"
    assert main(["render", bar, "-o", "s_%d.png", *FLAGS, "--duration", "3.5"]) == 2
    assert capsys.readouterr().err == f"hfrender: error: -o s_%d.png: {said}\n"
    assert sorted(os.listdir(".")) == ["bar.frag", "s_100.png"]
    assert open("s_100.png", "rb").read() == theirs


def test_a_batch_jobs_busy_output_is_named_as_its_jobs_file_key(bar, capsys):
    """A batch job's busy line said the command's flag (``-o /abs/out/bar.mp4``) where the
    jobs file names it ``output``, as the batch's other lines of an output do."""
    import json

    from hfrender.io.sequence_names import sequence_name

    with open("jobs.toml", "w") as f:
        f.write('[defaults]\nsize = "8x4"\nsamples = 1\nduration = 0.2\n\n'
                '[[job]]\nname = "clip"\nscene = "bar.frag"\noutput = "out/bar.mp4"\n\n'
                '[[job]]\nname = "seq"\nscene = "bar.frag"\noutput = "out/f/####.png"\n')
    clip, seq = os.path.abspath("out/bar.mp4"), os.path.abspath("out/f/####.png")
    with output_lock(clip), output_lock(sequence_name(seq)):
        assert main(["batch", "jobs.toml", "--summary", "s.json", "--quiet"]) == 1
    errors = {r["name"]: r["error"] for r in json.load(open("s.json"))}
    busy = BUSY.format(os.getpid())  # (here: named from the working folder)
    assert errors == {"clip": f"output out/bar.mp4: {busy}",
                      "seq": f"output out/f/####.png: {busy}"}
    err = capsys.readouterr().err
    assert f"[1/2] clip: failed: output out/bar.mp4: {busy} (" in err and " -o " not in err
    assert not os.path.exists("out/bar.mp4") and not os.path.exists("out/f")
