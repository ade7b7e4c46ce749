"""A Ctrl-C'd hf.render says, as the command does, where the frames made are and how to go
on, in the call's keywords (an integrator's trial: a bare KeyboardInterrupt)."""

import re
from pathlib import Path

import pytest
from render_helpers import stop_at

import hfrender as hf

SCENES = Path(__file__).parents[1] / "scenes"


def _stopped_at(monkeypatch, n):
    """A Ctrl-C as the ``n``-th sub-frame is read back."""
    from hfrender.renderer.renderer import SceneRenderer

    stop_at(monkeypatch, SceneRenderer, "read_into", n)


def test_a_ctrl_c_says_what_is_kept_and_how_to_go_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _stopped_at(monkeypatch, 20)
    options = {"size": (32, 18), "samples": 1, "duration": 1.0}
    with pytest.raises(KeyboardInterrupt) as info:
        hf.render(SCENES / "orbit.py", "f/%04d.png", **options)
    notes = getattr(info.value, "__notes__", None) or list(info.value.args)
    assert len(notes) == 1, notes
    said = re.fullmatch(r"interrupted: the (\d+) frames finished so far are in "
                        r"'f/####\.png\.partial/%04d\.png' \(f/%04d\.png is untouched\); "
                        r"continue from frame (\d+) with the same call and resume=True",
                        notes[0])
    assert said, notes[0]
    kept = sorted((tmp_path / "f" / "####.png.partial").glob("*.png"))
    assert int(said[1]) == int(said[2]) == len(kept) > 0
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    stats = hf.render(SCENES / "orbit.py", "f/%04d.png", resume=True, **options)
    assert (stats.resumed_at, stats.frames_written) == (len(kept), 30 - len(kept))


def test_before_python_3_11_the_line_is_the_message():
    """Python 3.10 has no notes: the line is the KeyboardInterrupt's message."""
    from hfrender.api import _noted

    class NoNotes(KeyboardInterrupt):
        add_note = None  # as 3.10's

    exc = NoNotes()
    _noted(exc, "interrupted: ...")
    assert str(exc) == "interrupted: ..." and not hasattr(exc, "__notes__")


def test_frames_past_the_last_whole_segment_are_said_apart(tmp_path, monkeypatch):
    # was: "the 43 frames finished so far ...; continue from frame 30", the 13 frames of
    # the segment not finished (in the partial video, made again by a resume) unexplained
    monkeypatch.chdir(tmp_path)
    _stopped_at(monkeypatch, 45)
    with pytest.raises(KeyboardInterrupt) as info:
        hf.render(SCENES / "orbit.py", "v.mp4", size=(32, 18), samples=1, duration=2.0)
    notes = getattr(info.value, "__notes__", None) or list(info.value.args)
    said = re.fullmatch(r"interrupted: the (\d+) frames finished so far are in v\.partial\.mp4 "
                        r"\(v\.mp4 is not written\); 30 of them in whole segments; continue "
                        r"from frame 30 with the same call and resume=True", notes[0])
    assert said and 30 < int(said[1]) < 45, notes[0]
