"""manim's -ql is its quick preview; here it is 854x480 at 15 fps, 0.89x the default's
pixels x frames, so the help says what each preset costs and where a draft is (a trial:
-ql took 35 s where the default took 39 s, --size 320x180 --samples 4 8.4 s)."""

import re

from hfrender.cli import main


def _help(capsys) -> str:
    try:
        main(["render", "--help"])
    except SystemExit:
        pass
    return re.sub(r"\s+", " ", capsys.readouterr().out)


def test_each_preset_says_its_cost_against_the_default(capsys):
    text = _help(capsys)
    assert ("-ql 480p15: 854x480 at 15 fps, 0.89x the default's pixels x frames (no "
            "draft: --size 320x180 --samples 4 draws 1/8 of the default's)") in text
    assert "-qm 720p30: 1280x720 at 30 fps, 4x the default's pixels x frames" in text
    assert "-qh 1080p60: 1920x1080 at 60 fps, 18x the default's pixels x frames" in text
