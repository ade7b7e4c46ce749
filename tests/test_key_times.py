"""Keyframes keys run well past the scene's end (frame numbers typed as seconds): one
warning at a render's start, naming them as the scene holds them (hfrender.scene.key_times);
none for keys a little past the end, a shorter --duration, or keys read at later times."""

import logging

import pytest
from test_render import write_scene

import hfrender as hf
from hfrender.scene.loader import load_scene
from hfrender.scene.ready import first_look, set_up

RACK = """
FOCUS = hf.Keyframes({keys}{fps})
UNUSED = hf.Keyframes({{0: 0.0, 480: 1.0}})  # never read by update: not told


class Rack(hf.Scene):
    duration = {duration}
    background = (0, 0, 0)

    def setup(self):
        self.add(hf.Sphere(radius=0.5))
        self.focus = hf.Keyframes({keys}{fps})
        self.rigs = [hf.Keyframes({{0: 1.0, 1: 2.0}})]
        self.camera.f_stop = 2.8

    def update(self, t):
        self.camera.focus_distance = self.focus({at}) + self.rigs[0](t)
        self.camera.focus_distance += 0 * FOCUS({at})
"""
SAID = ("Rack: self.focus has its last key at 24 s (FOCUS at 24 s too), but the scene is 2 s "
        "long (4% of the way from its first key to its last is shown): Keyframes keys are "
        "seconds; frame F at 24 fps is F / 24 s (hf.Keyframes(keys, fps=24) takes frame "
        "numbers)")


def told(tmp_path, caplog, duration=2.0, keys="{1: 2.0, 24: 8.0}", fps="", at="t",
         given=None, frame=0, again=True):
    """The warnings of a render's first look at the scene (at 24 fps), as said."""
    path = write_scene(tmp_path, RACK.format(duration=duration, keys=keys, fps=fps, at=at))
    scene = load_scene(path, duration=given)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        set_up(scene, given)
        first_look(scene, frame, 24.0, size=(64, 36), again=again)
    return [r.getMessage() for r in caplog.records if "key" in r.getMessage()]


def test_frame_numbers_as_keys_are_told_once_naming_them_as_the_scene_holds_them(
        tmp_path, caplog):
    """A trial's rack focus, {1: 2.0, 24: 8.0} at 24 fps in a 2 s scene: was drawn 24
    times slower without a word; once, the attribute and the file's global named (not the
    list's keys, reached, nor UNUSED, never read). hf.still at 1.5 s is told the same, once
    (the scene's own 2 s, not the still's)."""
    assert told(tmp_path, caplog) == [SAID]
    path = write_scene(tmp_path, RACK.format(duration=2.0, keys="{1: 2.0, 24: 8.0}", fps="",
                                             at="t"))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        hf.still(path, t=1.5, size=(32, 18), fps=24, samples=1)
    assert [r.getMessage() for r in caplog.records if "key" in r.getMessage()] == [SAID]


def test_the_figures_are_those_of_the_keys_read(tmp_path, caplog):
    """Keys past the end read at t + 1 (a third of the way shown), and one whose first key
    is past the end too (none shown)."""
    said = told(tmp_path, caplog, duration=4.0, keys="{0: 0.0, 15: 1.0}", at="t + 1")
    assert said == [said[0].split(":")[0] + ": self.focus has its last key at 15 s (FOCUS "
                    "at 15 s too), but the scene is 4 s long (33% of the way from its first "
                    "key to its last is shown): Keyframes keys are seconds; frame F at 24 fps "
                    "is F / 24 s (hf.Keyframes(keys, fps=24) takes frame numbers)"]
    said = told(tmp_path, caplog, keys="{48: 0.0, 96: 1.0}")
    assert said[0].startswith("Rack: self.focus has its last key at 96 s (FOCUS at 96 s "
                              "too), but the scene is 2 s long (0% of the way")


@pytest.mark.parametrize("duration,keys,fps,at,given", [
    (2.0, "{0: 2.0, 2.5: 8.0}", "", "t", None),  # a key past the end, for an ease-out
    (2.0, "{0: 2.0, 1: 5.0, 3.9: 8.0}", "", "t", None),  # just over half the way shown
    (10.0, "{0: 2.0, 5: 4.0, 10: 8.0}", "", "t", 1),  # --duration 1 of a 10 s scene
    (2.0, "{1: 2.0, 24: 8.0}", "", "t", 30),  # --duration 30: a render that reaches them
    (2.0, "{1: 2.0, 24: 8.0}", "", "12 * t", None),  # read at later times: all shown
    (2.0, "{1: 2.0, 24: 8.0}", ", fps=24", "t", None),  # frame numbers, with their fps
    (2.0, "{30: 2.0}", "", "t", None),  # one key: a value held, no change to miss
])
def test_keys_reached_or_a_little_past_the_end_are_not_told(tmp_path, caplog, duration, keys,
                                                            fps, at, given):
    assert told(tmp_path, caplog, duration, keys, fps, at, given) == []


def test_keyframes_take_frame_numbers_with_fps():
    """fps=24: key F at F / 24 s, eased as in seconds; a bad fps refused in one line."""
    frames = hf.Keyframes({1: 2.0, 24: 8.0}, ease=hf.smooth, fps=24)
    seconds = hf.Keyframes({1 / 24: 2.0, 1.0: 8.0}, ease=hf.smooth)
    for t in (0.0, 0.3, 0.5, 0.9, 1.2):
        assert frames(t) == pytest.approx(seconds(t), abs=1e-12)
    assert hf.keyframes({0: (0, 0), 12: (2, 4)}, 0.25, fps=24) == pytest.approx((1.0, 2.0))
    for bad in (0, -24, float("nan"), "24"):
        with pytest.raises(hf.InputError) as exc:
            hf.Keyframes({0: 1.0, 24: 2.0}, fps=bad)
        assert str(exc.value) == (f"keyframes: fps={bad!r} must be a finite number > 0 "
                                  "(frames a second: the keys are frame numbers)")


def test_the_function_form_in_update_is_told_and_a_scene_without_keys_not_read(
        tmp_path, caplog, monkeypatch):
    """hf.keyframes(keys, t) in update(t) is told, by its keys; a scene with no Keyframes
    is not updated for this (no copy made: its update may be slow)."""
    path = write_scene(tmp_path, """
    class Rack(hf.Scene):
        duration = 2.0

        def setup(self):
            self.add(hf.Sphere(radius=0.5))

        def update(self, t):
            self.camera.focus_distance = hf.keyframes({1: 2.0, 24: 8.0}, t)
    """)
    scene = load_scene(path)
    with caplog.at_level(logging.WARNING):
        set_up(scene)
        first_look(scene, 0, 24.0)
    assert [r.getMessage() for r in caplog.records] == [SAID.replace(
        "self.focus", "Keyframes({1: ..., 24: ...})").replace(" (FOCUS at 24 s too)", "")]
    import hfrender.scene.ready as ready

    copies = []
    monkeypatch.setattr(ready, "_copy", copies.append)
    path = write_scene(tmp_path, """
    class Plain(hf.Scene):
        duration = 2.0

        def setup(self):
            self.ball = self.add(hf.Sphere(radius=0.5))

        def update(self, t):
            self.ball.position = (t, 0, 0)
    """, "plain.py")
    scene = load_scene(path)
    set_up(scene)
    first_look(scene, 0, 24.0)
    assert copies == [scene]  # the far look's copy alone


def test_a_ray_chunk_does_not_look_at_the_keys_again(tmp_path, caplog):
    """A Ray chunk's first look (again=False) leaves the keys alone: its driver said it, and
    a chunk's copy and 8 updates were spent for a warning no one sees (a review)."""
    assert told(tmp_path, caplog, again=False) == []
    assert told(tmp_path, caplog) == [SAID]

