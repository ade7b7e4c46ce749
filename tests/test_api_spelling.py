"""Lines made past the settings (the output's alpha, the render's hints, memory on the
fusion thread, a codec a sequence never uses) name settings as their caller gave them:
hf.render's keywords, the command's flags (each said the flags to both)."""

import logging
import re
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
    # 2 sub-frames of 16 x 8 x 4 B = 1024 B, over the 512 B left of the slot's room less its
    # three planes' alignment pages (was "(0.00 GiB) is over the 2 GiB", whatever the room)
    line = ("{}: a hyperframe of 2 sub-frames (1.0 KB) is over the 512 B a GL buffer shared "
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


POST = '''
import hfrender as hf

class Post(hf.Scene):
    duration = 0.1

    def setup(self):
        self.add(hf.Cube(position=(0, 0, NEAR), scale=(0.05, 1, 0.05)))
        self.add(hf.Plane(position=(0, 0, -2), rotation=(1.5708, 0, 0), scale=4))
        self.camera.position = (0, 0, 0)
        self.camera.look_at((0, 0, -1))
        self.camera.f_stop = 1.4
        self.camera.focus_distance = 2.0
'''
FAST = '''
import hfrender as hf

class Fast(hf.Scene):
    duration = 0.1

    def setup(self):
        self.bar = self.add(hf.Cube(scale=(0.05, 1, 0.05)))
        self.camera.position = (0, 0, 5)
        self.camera.look_at((0, 0, 0))

    def update(self, t):
        self.bar.position = (MOVE, 0, 0)
'''
GLASS = FAST.replace("scale=(0.05, 1, 0.05))", "scale=(0.05, 1, 0.05), opacity=0.5)").replace(
    "look_at((0, 0, 0))", "look_at((0, 0, 0))\n        self.camera.f_stop = 2.8")
HINTS = ("lens position", "copies", "jumps", "wanted more", "translucent", "drawn through")


def warned(tmp_path, caplog, source, options, flags):
    """The hints (``HINTS``) hf.render logs and the command's, one list each."""
    scene = tmp_path / "s.py"
    scene.write_text(source)
    settings = {"size": (320, 180), **options}
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        hf.render(scene, tmp_path / "x.mp4", **settings)
    call = [r.getMessage() for r in caplog.records if any(h in r.getMessage() for h in HINTS)]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(["render", str(scene), "-o", str(tmp_path / "y.mp4"), "--size", "320x180",
                     "--quiet", *flags]) == 0
    return call, [r.getMessage() for r in caplog.records if any(h in r.getMessage()
                                                                for h in HINTS)]


def figures(line):
    return re.findall(r"\d+", line)


COPIES = r"frame 0 blurs up to (\d+) px \(its largest circle of confusion\)"


@pytest.mark.usefixtures("gl_context")
@pytest.mark.parametrize("source, options, flags, said, flagged", [
    # lens depth of field: one sample, too few, past the auto range
    (POST.replace("NEAR", "-0.7"), {"samples": 1}, ["--samples", "1"],
     COPIES + r", but one sample is one lens position, its centre: no depth of field; "
     r"samples=\d+, or dof='depth' \(from one sample\)",
     COPIES + r", but one sample is one lens position, its centre: no depth of field; "
     r"--samples \d+, or --dof depth \(from one sample\)"),
    (POST.replace("NEAR", "-0.45"), {}, [],
     COPIES + r": 8 lens positions show as copies about \d+ px apart; samples='auto' "
     r"\(about \d+ here\) or dof='depth' blur it smoothly",
     COPIES + r": 8 lens positions show as copies about \d+ px apart; --samples auto "
     r"\(about \d+ here\) or --dof depth blur it smoothly"),
    (POST.replace("NEAR", "-0.3"), {}, [],
     COPIES + r": 8 lens positions show as copies about \d+ px apart; samples='auto', "
     r"samples_range='4:\d+' \(the range now stops at 64\) or dof='depth' blur it smoothly",
     COPIES + r": 8 lens positions show as copies about \d+ px apart; --samples auto "
     r"--samples-range 4:\d+ \(the range now stops at 64\) or --dof depth blur it smoothly"),
    # motion: too few sub-frames; a jump; a range's cap
    (FAST.replace("MOVE", "60 * t"), {}, [],
     r"frame 0 moves up to \d+ px while the shutter is open: its 8 sub-frames show as copies "
     r"about \d+ px apart; samples='auto', samples_range='4:\d+' \(the range now stops at "
     r"64\) or reconstruct='on' blur it smoothly",
     r"frame 0 moves up to \d+ px while the shutter is open: its 8 sub-frames show as copies "
     r"about \d+ px apart; --samples auto --samples-range 4:\d+ \(the range now stops at "
     r"64\) or --reconstruct on blur it smoothly"),
    (FAST.replace("MOVE", "-1 if t < 0 else 1"), {}, [],
     r"frame 0: something jumps while the shutter is open \(\d+ times the picture's width at "
     r"once\): a cut\? it shows as copies from both sides of it; a cut falls between two "
     r"frames' shutters at a frame's time k / fps with shutter_position='start', at \(k \+ "
     r"1/2\) / fps with the centred shutter \(of at most 360 degrees\)",
     r"frame 0: something jumps while the shutter is open \(\d+ times the picture's width at "
     r"once\): a cut\? it shows as copies from both sides of it; a cut falls between two "
     r"frames' shutters at a frame's time k / fps with --shutter-position start, at \(k \+ "
     r"1/2\) / fps with the centred shutter \(of at most 360 degrees\)"),
    (FAST.replace("MOVE", "60 * t"), {"samples": "auto", "samples_range": "2:3"},
     ["--samples", "auto", "--samples-range", "2:3"],
     r"\d frames wanted more sub-frames than samples_range allows \(3\), frame \d the most: "
     r"about \d+, for its motion, so they may show steps; raise the cap "
     r"\(samples_range='2:\d+'\), or reconstruct='on'",
     r"\d frames wanted more sub-frames than --samples-range allows \(3\), frame \d the most: "
     r"about \d+, for its motion, so they may show steps; raise the cap "
     r"\(--samples-range 2:\d+\), or --reconstruct on"),
    # a translucent object where depth of field reads the depth plane
    (GLASS.replace("MOVE", "0"), {"dof": "depth", "samples": 1},
     ["--dof", "depth", "--samples", "1"],
     r"self.bar \(a Cube\) has opacity 0.5: a translucent object writes no depth or velocity, "
     r"so dof='depth' blurs it by the depth of the opaque surface behind it: use dof='lens'",
     r"self.bar \(a Cube\) has opacity 0.5: a translucent object writes no depth or velocity, "
     r"so --dof depth blurs it by the depth of the opaque surface behind it: use --dof lens"),
])
def test_a_renders_hints_name_the_callers_settings(tmp_path, caplog, source, options, flags,
                                                   said, flagged):
    """Lens, motion, samples-range and translucency hints said the flags to hf.render's
    caller too ('--samples auto --samples-range 4:90 ... or --dof depth')."""
    call, command = warned(tmp_path, caplog, source, options, flags)
    assert len(call) == len(command) == 1, (call, command)
    assert re.fullmatch(said, call[0]), call[0]
    assert re.fullmatch(flagged, command[0]), command[0]
    assert figures(call[0]) == figures(command[0])  # the same render's figures


@pytest.mark.usefixtures("gl_context")
def test_a_lens_stores_exposure_names_the_callers_settings(tmp_path, caplog):
    """A --dof lens store exposed at another shutter: 'render with --dof depth (or off) and
    --keep-samples' was said to SampleStore.expose's caller too (and twice by reexpose)."""
    scene = tmp_path / "s.py"
    scene.write_text(POST.replace("NEAR", "-0.7"))
    hf.render(scene, tmp_path / "x.mp4", size=(32, 18), samples=4, dof="lens",
              keep_samples=str(tmp_path / "store"))
    line = ("this store was drawn through the lens ({}): each sub-frame holds one point of the "
            "aperture, so another shutter weighs them unevenly and out-of-focus parts shift (a "
            "pixel or two); to re-expose freely, render with {} and {}")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        frames = hf.SampleStore.open(tmp_path / "store").expose(shutter=90)
        assert main(["reexpose", str(tmp_path / "store"), "-o", str(tmp_path / "y.mp4"),
                     "--shutter", "90", "--quiet"]) == 0
    assert frames.shape == (3, 18, 32, 3)
    assert [r.getMessage() for r in caplog.records] == [
        line.format("dof='lens'", "dof='depth' (or 'off')", "keep_samples"),
        line.format("--dof lens", "--dof depth (or off)", "--keep-samples")]
