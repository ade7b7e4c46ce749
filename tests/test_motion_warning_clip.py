"""The copies warning sees the whole clip: a bar at rest for half a second that then spins
fast strobed as 8 copies with no word, since the hint measured the first frame only."""

import re
import textwrap

import pytest

from hfrender.cli import main

SCENE = textwrap.dedent("""
    import hfrender as hf

    class Spin(hf.Scene):
        duration = 1.0

        def setup(self):
            self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))
            self.camera.position = (0, 0, 5)
            self.camera.look_at((0, 0, 0))

        def update(self, t):
            self.bar.rotation = (0, 0, OMEGA * max(t - 0.5, 0.0))  # still, then spins
""")
COPIES = re.compile(r"frame (\d+) moves up to (\d+) px while the shutter is open: its 8 "
                    r"sub-frames show as copies about (\d+) px apart; --samples auto "
                    r"(?:--samples-range 4:\d+ \(the range now stops at 64\)|\(about \d+ "
                    r"here\)) or --reconstruct on blur it smoothly")


def _said(tmp_path, caplog, omega: float) -> list[str]:
    scene = tmp_path / "spin.py"
    scene.write_text(SCENE.replace("OMEGA", f"{omega:.1f}"))
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert main(["render", str(scene), "-o", str(tmp_path / "s.mp4"), "--size", "160x90",
                     "--samples", "8", "--quiet"]) == 0
    return [r.getMessage() for r in caplog.records if "show as copies" in r.getMessage()]


@pytest.mark.usefixtures("gl_context")
def test_a_still_start_then_a_fast_spin_is_warned_at_its_first_fast_frame(tmp_path, caplog):
    # the tip 0.5 m out, 160 px over 3.6 m at 5 m: 44.4 px/m; 300 rad/s over the 1/60 s
    # shutter: 0.5 * 300 / 60 * 44.4 = 111 px, 8 sub-frames about 14 px apart (> 8)
    said = _said(tmp_path, caplog, 300.0)
    assert len(said) == 1, said
    m = COPIES.fullmatch(said[0])
    assert m, said[0]
    # 30 fps, centred: frame 15's shutter (0.492..0.508 s) is the first to see it spin
    assert int(m.group(1)) == 15
    moved = int(m.group(2))
    assert abs(moved - 111) <= 8 and abs(int(m.group(3)) - moved / 8) <= 1


@pytest.mark.usefixtures("gl_context")
def test_a_still_start_then_a_slow_spin_is_not_warned(tmp_path, caplog):
    # 100 rad/s: 37 px over the shutter, 8 sub-frames about 5 px apart: they blur
    assert _said(tmp_path, caplog, 100.0) == []


def test_the_hint_probes_the_first_frame_and_frames_spread_to_the_last():
    from hfrender.engine.strobe_scan import hint_frames

    assert hint_frames(0, 1) == [0]
    assert hint_frames(7, 3) == [7, 9]  # the first and the last
    assert hint_frames(100, 16) == [100, 106, 112, 115]  # every 6th (0.2 s at 30 fps)
    assert hint_frames(0, 90) == [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84,
                                  89]
    long = hint_frames(0, 1801)  # a minute at 30 fps: 64, 29 apart
    assert len(long) == 64 and long[:3] == [0, 29, 58] and long[-2:] == [1798, 1800]


def test_the_first_strobing_frame_is_found_between_the_probed_ones():
    """A synthetic clip of 300 frames still until a seeded random frame, then moving 100 px
    a shutter, the onset's own 90 px over its whole shutter but 40 px at its middle (where
    a probed frame is looked at alone): the onset is named, with its 90 px, whether or not
    it is a probed frame, for a few probes more than the probed frames."""
    import random

    from hfrender.engine.strobe_scan import first_strobe, hint_frames
    from hfrender.errors import InputError

    rng = random.Random(7)
    frames = hint_frames(0, 300)
    onsets = [rng.randrange(1, 299) for _ in range(30)] + [6, 7, 12, 1]
    assert sum(o in frames for o in onsets[:30]) == 6  # (probed ones: 78, 30, 36, ...)
    for onset in onsets:
        asked = []

        def moved(k, whole, onset=onset, asked=asked):
            asked.append(k)
            return 100.0 if k > onset else (90.0 if whole else 40.0) if k == onset else 0.0

        assert first_strobe(moved, frames, lambda px: px / 8 > 8) == (onset, 90.0), onset
        assert len(asked) <= onset // 6 + 2 + 3, (onset, asked)  # (log2 of 7 frames: 3)
    assert first_strobe(lambda k, whole: 60.0, frames, lambda px: px / 8 > 8) is None

    def fails(k, whole):
        raise InputError("update(t) failed at frame 50")

    assert first_strobe(fails, frames, lambda px: px > 1) is None
