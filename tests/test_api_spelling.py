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


def test_out_of_memory_on_the_fusion_thread_names_the_callers_settings(
        tmp_path, monkeypatch, capsys):
    """Said on a fusion thread, where the call's spelling was not set: 'lower --samples or
    --size' to hf.render's caller too."""
    from hfrender.engine.render_fusion import RenderFusion

    def no_memory(self, *args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(RenderFusion, "fuse", no_memory)
    monkeypatch.chdir(tmp_path)
    line = "out of memory fusing one window of 2 sub-frames (MemoryError); lower {} or {}"
    with pytest.raises(hf.HFRenderError) as info:
        hf.render(BAR, "x.mp4", size=(16, 8), duration=0.2, samples=2)
    assert str(info.value) == line.format("samples", "size")
    capsys.readouterr()
    assert main(["render", BAR, "-o", "y.mp4", "--size", "16x8", "--duration", "0.2",
                 "--samples", "2"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "hfrender: error: " + line.format("--samples", "--size"), err
    assert not (tmp_path / "x.mp4").exists() and not (tmp_path / "y.mp4").exists()


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("interop", ["on", "auto"])
def test_a_hyperframe_past_what_cuda_maps_names_the_callers_settings(
        tmp_path, monkeypatch, capsys, caplog, interop):
    """GL buffers shared with CUDA hold at most 2 GiB (here made room for one sub-frame of
    16x8: a hyperframe's least, 2, is over): 'lower --samples, --size or --granularity, or
    --interop off' was said to hf.render's caller too; on refuses, auto goes on in host
    memory and says why."""
    from hfrender.engine import render_prepare
    from hfrender.hyperframe.pool import ALIGN, sub_frame_bytes
    from hfrender.renderer import gl_slots

    monkeypatch.setattr(gl_slots, "MAX_SLOT_BYTES", sub_frame_bytes((8, 16, 4), "uint8")
                        + 3 * ALIGN)
    monkeypatch.setattr(render_prepare, "gl_storage", lambda config, glctx, backend:
                        gl_slots.GLBufferStorage(glctx.ctx, gl_slots.HostMapper()))
    monkeypatch.chdir(tmp_path)
    line = ("{}: a hyperframe of 2 sub-frames (0.00 GiB) is over the 2 GiB a GL buffer shared "
            "with CUDA can be (CUDA maps no more of it): lower {}, {} or {}, or {}")
    said = line.format(f"interop={interop!r}", "samples", "size", "granularity", "interop='off'")
    flagged = line.format(f"--interop {interop}", "--samples", "--size", "--granularity",
                          "--interop off")
    settings = {"size": (16, 8), "duration": 0.1, "samples": 2, "interop": interop}
    flags = ["--size", "16x8", "--duration", "0.1", "--samples", "2", "--interop", interop]
    if interop == "on":
        with pytest.raises(hf.InputError) as info:
            hf.render(BAR, "x.mp4", **settings)
        assert str(info.value) == said
        assert main(["render", BAR, "-o", "y.mp4", *flags]) == 2
        assert capsys.readouterr().err == f"hfrender: error: {flagged}\n"
        return
    with caplog.at_level(logging.WARNING):
        hf.render(BAR, "x.mp4", **settings)
        assert main(["render", BAR, "-o", "y.mp4", "--quiet", *flags]) == 0
    tail = "; sub-frames go through host memory"
    assert [r.getMessage() for r in caplog.records] == [said + tail, flagged + tail]
