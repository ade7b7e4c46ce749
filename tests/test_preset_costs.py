"""manim's -ql is its quick preview; here it is 854x480 at 15 fps, 0.89x the default's
pixels x frames, so the help says what each preset costs and where a draft is (a trial:
-ql took 35 s where the default took 39 s, --size 320x180 --samples 4 8.4 s)."""

import re

import pytest

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


@pytest.mark.parametrize("changes, share", [
    ({"samples": 16}, "1/16"),  # 230,400 / 3,686,400
    ({"size": (1280, 720)}, "1/32"),  # 230,400 / 7,372,800
    ({"size": (960, 540), "samples": 1}, "4/9"),  # 230,400 / 518,400
])
def test_the_drafts_share_follows_other_defaults(changes, share):
    from hfrender.cli.options import _preset_help
    from hfrender.config import RenderConfig

    said = _preset_help(854, 480, 15, RenderConfig(**changes))
    assert said.endswith(f"(no draft: --size 320x180 --samples 4 draws {share} of the "
                         "default's)"), said


def test_no_draft_is_offered_where_it_is_no_cheaper():
    from hfrender.cli.options import _preset_help
    from hfrender.config import RenderConfig

    said = _preset_help(160, 90, 15, RenderConfig(size=(320, 180), samples=4))
    assert said == "90p15: 160x90 at 15 fps, 0.12x the default's pixels x frames", said
