"""Lines made past the settings (the output's alpha, the render's hints, memory on the
fusion thread, a codec a sequence never uses) name settings as their caller gave them:
hf.render's keywords, the command's flags (each said the flags to both)."""

import logging
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


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_a_codec_a_sequence_never_uses_is_warned_of_by_a_call_as_by_the_command(
        tmp_path, monkeypatch, caplog, quiet):
    """hf.render(codec=...) into PNG files said nothing where the command warns; a warning
    is no progress: --quiet keeps it, as the command's other warnings (and a call's, whose
    progress is off by default). hfrender.toml's codec, meant for its videos: neither."""
    monkeypatch.chdir(tmp_path)
    tail = " is a PNG sequence, and a codec applies to video outputs only (.mp4 .mov .mkv " \
           ".webm .gif .ts)"
    settings = {"size": (16, 8), "duration": 0.1, "samples": 1}
    with caplog.at_level(logging.WARNING):
        hf.render(BAR, "f/%04d.png", codec="libx264", **settings)
        assert main(["render", BAR, "-o", "g/%04d.png", "--size", "16x8", "--duration", "0.1",
                     "--samples", "1", "--codec", "libx264", *quiet]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        "codec='libx264' is not used: output='f/%04d.png'" + tail,
        "--codec libx264 is not used: -o g/%04d.png" + tail]
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == ["0000.png", "0001.png",
                                                                 "0002.png"]
    caplog.clear()
    (tmp_path / "hfrender.toml").write_text('[render]\ncodec = "libx264"\n')
    with caplog.at_level(logging.WARNING):
        hf.render(BAR, "h/%04d.png", **settings)
        assert main(["render", BAR, "-o", "i/%04d.png", "--size", "16x8", "--duration", "0.1",
                     "--samples", "1", *quiet]) == 0
    assert caplog.records == []
