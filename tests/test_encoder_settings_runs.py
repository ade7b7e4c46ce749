"""--crf, --preset, --bitrate, --pix-fmt in real encodes: a smaller file for a higher crf,
an average bitrate, every segment and fx given the settings, hfrender.toml and batch jobs
taking them, a resume comparing them, ffmpeg reading the joined output."""

import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from encoder_settings_helpers import BAR, pix_fmt
from render_helpers import decode_video as decode
from render_helpers import interrupt_after_segments

from hfrender.cli import main
from hfrender.engine.batch import load_jobs
from hfrender.errors import InputError
from hfrender.io.encoding import Encoding
from hfrender.io.probe import probe
from hfrender.project_file import project_settings

pytestmark = pytest.mark.usefixtures("gl_context")


PLASMA = str(Path(__file__).resolve().parents[1] / "scenes" / "plasma.frag")


FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


# --- real encodes ---------------------------------------------------------------------------

def _render(tmp_path, name, *extra):
    out = tmp_path / name
    assert main(["render", PLASMA, "-o", str(out), "--size", "128x72", "--duration", "0.5",
                 "--samples", "1", "--quiet", *extra]) == 0
    return out


def test_a_higher_crf_gives_a_smaller_file_and_pix_fmt_is_kept(tmp_path):
    low, high = _render(tmp_path, "q40.mp4", "--crf", "40"), _render(tmp_path, "q10.mp4",
                                                                      "--crf", "10")
    assert low.stat().st_size < 0.5 * high.stat().st_size
    assert pix_fmt(low) == "yuv420p"  # the default
    full = _render(tmp_path, "444.mp4", "--pix-fmt", "yuv444p", "--preset", "veryfast")
    assert pix_fmt(full) == "yuv444p" and probe(str(full)).count == 15


def test_a_bitrate_is_an_average_bitrate(tmp_path):
    small = _render(tmp_path, "b.mp4", "--bitrate", "40k")
    big = _render(tmp_path, "c.mp4", "--bitrate", "2M")
    assert small.stat().st_size < 0.5 * big.stat().st_size
    vp9 = _render(tmp_path, "v.webm", "--crf", "50", "--pix-fmt", "yuv444p")
    assert pix_fmt(vp9) == "yuv444p"


def test_every_segment_gets_the_settings(tmp_path, monkeypatch):
    import hfrender.io.segment_files as seg

    seen = []
    real = seg.VideoWriter

    class Recording(real):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs.get("encoding"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(seg, "VideoWriter", Recording)
    out = tmp_path / "seg.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "2.5",
                 "--samples", "2", "--granularity", "12", "--crf", "30", "--pix-fmt",
                 "yuv444p", "--quiet"]) == 0
    assert len(seen) == 3  # segments of 30 frames: 30 + 30 + 15
    assert set(seen) == {Encoding(crf=30, pix_fmt="yuv444p")}
    assert pix_fmt(out) == "yuv444p" and probe(str(out)).count == 75


def test_fx_takes_the_settings(tmp_path, rng):
    from fx_helpers import make_clip

    clip, _ = make_clip(tmp_path, rng, n=20)
    sizes = {}
    for crf in ("10", "40"):
        out = tmp_path / f"fx{crf}.mp4"
        assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--crf", crf,
                     "--quiet"]) == 0
        sizes[crf] = out.stat().st_size
    assert sizes["40"] < 0.5 * sizes["10"]
    out = tmp_path / "fx444.mkv"
    assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--pix-fmt",
                 "yuv444p", "--preset", "fast", "--quiet"]) == 0
    assert pix_fmt(out) == "yuv444p"


# --- hfrender.toml and batch ----------------------------------------------------------------

def test_hfrender_toml_takes_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = 28\npreset = "fast"\n'
                                            'bitrate = "2M"\npix_fmt = "yuv444p"\n')
    assert project_settings() == {"crf": 28, "preset": "fast", "bitrate": "2M",
                                  "pix_fmt": "yuv444p"}
    # a CRF and a bitrate together: libx264 takes one of them
    assert main(["render", BAR, "-o", "a.mp4", "--size", "64x16", "--duration", "0.1"]) == 2
    assert "--crf 28 with --bitrate 2M: libx264 takes" in capsys.readouterr().err
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = 28\npix_fmt = "yuv444p"\n')
    assert main(["render", BAR, "-o", "a.mp4", "--size", "64x16", "--duration", "0.1",
                 "--quiet"]) == 0
    assert pix_fmt("a.mp4") == "yuv444p"
    (tmp_path / "hfrender.toml").write_text('[render]\ncrf = "high"\n')
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    toml = tmp_path / "hfrender.toml"
    assert capsys.readouterr().err.startswith(f"hfrender: error: {toml}: [render] crf = \"high\" "
                                              "must be an integer from 0 to 63")
    toml.write_text('[rendr]\ncrf = 28\n')  # a misspelt table is said, not ignored
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: unknown table or key "
                                       "'rendr'; hfrender.toml holds a [render] table of render "
                                       "settings\n")
    toml.write_text('[render]\nsampels = 4\nshuter = 90\n')  # misspelt keys: the ones meant
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (  # each its line, as a jobs file says it
        f"hfrender: error: {toml}: [render]: unknown field 'sampels'; did you mean 'samples'?\n"
        f"hfrender: error: {toml}: [render]: unknown field 'shuter'; did you mean 'shutter'?\n")
    toml.write_text('[render]\npix-fmt = "yuv444p"\nsize = "64x16"\nduration = 0.1\n')
    assert main(["render", BAR, "-o", "dash.mp4", "--quiet"]) == 0  # as the option is spelt
    assert pix_fmt("dash.mp4") == "yuv444p"  # (was: "did you mean pix-fmt -> pix_fmt?")
    toml.write_text('[render]\npix-fmt = "yuv444p"\npix_fmt = "yuv420p"\n')
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: {toml}: [render] pix-fmt and "
                                       "pix_fmt are one setting; give it once\n")


def test_hfrender_toml_s_defaults_go_where_they_fit(tmp_path, monkeypatch, capsys):
    """A project's video and frame defaults, each used where it fits; its unknown keys
    answered with the known ones; its output; a flag over one of its values."""
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "hfrender.toml"
    toml.write_text('[render]\ncrf = 12\npix_fmt = "yuv420p10le"\nbit_depth = 16\n'
                    'size = "64x16"\nduration = 0.1\n')  # a project's video and frame defaults
    assert main(["render", BAR, "-o", "fr/%02d.png", "--quiet"]) == 0  # (was: "--crf 12
    assert main(["render", BAR, "-o", "v.mp4", "--quiet"]) == 0  # --pix-fmt ...: an EXR...")
    assert pix_fmt("v.mp4") == "yuv420p10le"  # each where it fits: 10-bit video, 16-bit PNG
    assert (tmp_path / "fr" / "00.png").read_bytes()[24] == 16  # IHDR: 16 bits a channel
    assert main(["render", BAR, "-o", "v.mp4", "--bit-depth", "16"]) == 2  # a flag: refused
    assert "--bit-depth 16: -o v.mp4 is a video" in capsys.readouterr().err
    toml.write_text('[render]\ncrf = 20\ncodec = "libx265"\npreset = "slow"\nbit_depth = 8\n'
                    'size = "64x16"\nduration = 0.1\n')  # (a review: each refused these)
    for out in ("g.gif", "w.webm", "e/%02d.exr"):
        assert main(["render", BAR, "-o", out, "--quiet"]) == 0, capsys.readouterr().err
    assert main(["render", BAR, "-o", "h.mp4", "--quiet"]) == 0  # where it fits: libx265
    assert "hevc" in subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i",
                                     "h.mp4"], capture_output=True, text=True).stderr
    toml.write_text('[render]\nzzz = 4\n')  # nothing near: the names there are
    assert main(["render", BAR, "-o", "b.mp4"]) == 2
    err = capsys.readouterr().err  # (not resume, keep-samples: refused here)
    assert err.startswith(f"hfrender: error: {toml}: [render]: unknown field 'zzz'; known: "
                          "antialias, audio, audio-offset, backend, bit-depth, ")
    assert err.endswith(", transparent, workers\n") and "resume" not in err
    toml.write_text('[render]\noutput = "from_toml.mp4"\nsize = "64x16"\nduration = 0.1\n')
    assert main(["render", BAR, "--quiet"]) == 0  # its output, as listed among its keys
    assert (tmp_path / "from_toml.mp4").is_file() and not (tmp_path / "out.mp4").exists()
    toml.write_text('[render]\nsamples = "auto"\nshutter = 720\n')  # each value fine alone;
    assert main(["render", BAR, "-o", "c.mp4", "--size", "64x16", "--duration", "0.1",
                 "--samples", "2", "--quiet"]) == 0  # together, the flag changes one of them


JOBS = """
[defaults]
size = "32x8"
samples = 2
crf = 30

[[job]]
name = "bar"
scene = "bar.frag"
output = "out/bar.mp4"
duration = 0.5
preset = "fast"
pix-fmt = "yuv444p"

[[job]]
name = "smooth"
input = "clip.mkv"
output = "out/smooth.webm"
motion-blur = 2
bitrate = "500k"
"""


def test_batch_jobs_take_them(tmp_path, rng):
    from fx_helpers import make_clip

    (tmp_path / "bar.frag").write_bytes(Path(BAR).read_bytes())
    clip, _ = make_clip(tmp_path, rng, n=6, size=(32, 8))
    clip.rename(tmp_path / "clip.mkv")
    (tmp_path / "jobs.toml").write_text(JOBS)
    render, fx = load_jobs(tmp_path / "jobs.toml")
    config = render.render_config()
    assert (config.crf, config.preset, config.pix_fmt) == (30, "fast", "yuv444p")
    s = fx.fx_settings()
    assert (s.crf, s.bitrate, s.preset) == (30, "500k", None)
    assert main(["batch", str(tmp_path / "jobs.toml"), "--quiet"]) == 0
    assert pix_fmt(tmp_path / "out" / "bar.mp4") == "yuv444p"
    # an override for every job; what an encoder does not take names the job
    load_jobs(tmp_path / "jobs.toml", {"crf": 20})
    with pytest.raises(InputError, match=r"job 'smooth': --preset slow: libvpx-vp9 has no "
                                         r"presets"):
        load_jobs(tmp_path / "jobs.toml", {"preset": "slow"})
    assert main(["batch", str(tmp_path / "jobs.toml"), "--crf", "x"]) == 2


# --- --resume -------------------------------------------------------------------------------

def test_resume_compares_the_encoder_settings(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.mp4"
    args = ["render", BAR, "-o", str(out), "--size", "64x16", "--duration", "2", "--samples",
            "2", "--granularity", "12", "--quiet", "--crf", "30", "--preset", "fast"]
    undo = interrupt_after_segments(monkeypatch)
    assert main(args) == 130
    undo()
    capsys.readouterr()
    assert main([*args[:-4], "--crf", "20", "--preset", "fast", "--resume"]) == 2
    assert "(crf 30 -> 20)" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0
    whole = tmp_path / "whole.mp4"
    assert main([*args[:3], str(whole), *args[4:]]) == 0
    np.testing.assert_array_equal(decode(out), decode(whole))


def test_fx_resume_compares_the_output_pix_fmt(tmp_path, rng, monkeypatch, capsys):
    from fx_helpers import make_clip

    monkeypatch.setattr("hfrender.engine.fx_output.SEGMENT_SECONDS", 0.2)
    clip, _ = make_clip(tmp_path, rng, n=24)
    out = tmp_path / "o.mp4"
    args = ["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]
    undo = interrupt_after_segments(monkeypatch)
    assert main([*args, "--pix-fmt", "yuv444p"]) == 130
    undo()
    capsys.readouterr()
    assert main([*args, "--pix-fmt", "yuv422p", "--resume"]) == 2
    assert "(pix-fmt yuv444p -> yuv422p)" in capsys.readouterr().err
    assert main([*args, "--pix-fmt", "yuv444p", "--resume"]) == 0
    assert pix_fmt(out) == "yuv444p" and probe(str(out)).count == 24


def test_ffmpeg_reads_the_joined_output(tmp_path):
    out = _render(tmp_path, "p.mkv", "--crf", "35", "--preset", "ultrafast")
    res = subprocess.run([FFMPEG, "-v", "error", "-i", str(out), "-f", "null", "-"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stderr == ""
