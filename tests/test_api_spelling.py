"""Lines made past the settings (the output's alpha, the render's hints, memory on the
fusion thread, a codec a sequence never uses) name settings as their caller gave them:
hf.render's keywords, the command's flags (each said the flags to both)."""

from pathlib import Path

import pytest

import hfrender as hf
from hfrender.cli import main

BAR = str(Path(__file__).parent / "data" / "bar.frag")
KEEPS = ("write .mov (ProRes 4444), .webm (VP9), .mkv with {ffv1}, .mov or .mkv with {png}, "
         "or a PNG sequence ({seq})")
KEYWORDS = KEEPS.format(ffv1="codec='ffv1'", png="codec='png'",
                        seq="output='frames/%05d.png'")
FLAGS = KEEPS.format(ffv1="--codec ffv1", png="--codec png", seq="-o frames/%05d.png")


def refused(tmp_path, capsys, output, options, flags):
    """hf.render's line and the command's (exit 2), nothing written by either."""
    with pytest.raises(hf.InputError) as info:
        hf.render(BAR, tmp_path / output, size=(16, 8), **options)
    assert main(["render", BAR, "-o", str(tmp_path / output), "--size", "16x8", *flags]) == 2
    assert not (tmp_path / output).exists()
    return str(info.value), capsys.readouterr().err


@pytest.mark.parametrize("output, options, flags, said, flagged", [
    ("x.mp4", {"transparent": True}, ["--transparent"],
     "transparent=True: output='{}' (libx264) keeps no alpha; " + KEYWORDS,
     "--transparent: -o {} (libx264) keeps no alpha; " + FLAGS),
    ("x.webm", {"transparent": True, "pix_fmt": "yuv420p"}, ["--transparent", "--pix-fmt",
                                                              "yuv420p"],
     "transparent=True: pix_fmt='yuv420p' keeps no alpha; give one with alpha (yuva420p), or "
     "leave pix_fmt out", "--transparent: --pix-fmt yuv420p keeps no alpha; give one with "
     "alpha (yuva420p), or leave --pix-fmt out"),
])
def test_an_output_that_keeps_no_alpha_is_said_in_the_callers_spelling(
        tmp_path, capsys, output, options, flags, said, flagged):
    """Was '--transparent: -o x.mp4 ... with --codec ffv1 ...' to hf.render too."""
    line, err = refused(tmp_path, capsys, output, options, flags)
    path = tmp_path / output
    assert line == said.format(path)
    assert err == f"hfrender: error: {flagged.format(path)}\n"
