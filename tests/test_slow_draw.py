"""A sub-frame that takes long to draw is said once, with the time the run takes at that
pace: a still shows no progress until it is done, and a slow shader looked like a hang."""

import types

import numpy as np
from render_helpers import render_frames


def test_a_slow_sub_frame_is_said_once_with_the_time_at_its_pace(tmp_path, caplog,
                                                                  monkeypatch):
    """A trial: a shader of a 1e8-iteration loop took 70 s for a still with no word beyond
    its progress bar. Each sub-frame here takes 6.5 s by the clock (the draw 3.25, its read
    3.25)."""
    from hfrender.engine import draw

    path = tmp_path / "s.frag"
    path.write_text("void mainImage(out vec4 c, in vec2 p) { c = vec4(1.0); }\n")
    with caplog.at_level("WARNING"):
        render_frames(path, size=(8, 4), samples=1, duration=1 / 30)
    assert [r for r in caplog.records if "sub-frame took" in r.getMessage()] == []
    ticks = iter(np.arange(1000) * 3.25)
    monkeypatch.setattr(draw, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))
    caplog.clear()
    with caplog.at_level("WARNING"):
        render_frames(path, size=(8, 4), samples=4, duration=3 / 30)
    assert [r.getMessage() for r in caplog.records if "sub-frame took" in r.getMessage()] == [
        "one sub-frame took 6.5 s to draw (the GL drawing s.frag: not a hang); this run draws "
        "12 sub-frames for 3 frames, about 1m18s at that pace (a smaller --size or fewer "
        "--samples draws faster)"]
