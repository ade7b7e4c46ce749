"""A render's soundtrack: ``--audio FILE`` (and ``--audio-offset S``) muxed into the video
at its join, cut to its length, encoded as its container needs (AAC in .mp4, Opus in
.webm, PCM copied into .mov); a ``--frames`` range's sound from the range's time; one line
refusing it where there is no sound to give or none to hold."""

import re
import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from render_helpers import interrupt_after_segments

import hfrender as hf
from hfrender.cli import main
from hfrender.engine.batch import load_jobs

pytestmark = pytest.mark.usefixtures("gl_context")
BAR = str(Path(__file__).parent / "data" / "bar.frag")
FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
SMALL = ["--size", "64x16", "--samples", "1", "--quiet"]
RATE = 8000  # the audio decoded for the checks: mono, 8 kHz


def make_sound(path, expr="sin(2*PI*440*t)", seconds=3):
    """A generated sound file (a sine; ``expr``: any aevalsrc expression of ``t``)."""
    src = "sine=frequency=440:duration=3" if expr == "sine" else \
        f"aevalsrc='{expr}':d={seconds}:s=44100"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    src, str(path)], check=True)
    return str(path)


def streams(path):
    """(video codec, audio codec or None, container duration) as ``ffmpeg -i`` says."""
    said = subprocess.run([FFMPEG, "-hide_banner", "-i", str(path)], capture_output=True,
                          text=True).stderr
    video = re.search(r"Stream #\d+:\d+.*: Video: (\w+)", said).group(1)
    audio = re.search(r"Stream #\d+:\d+.*: Audio: (\w+)", said)
    return video, audio.group(1) if audio else None


def samples(path):
    """The output's sound decoded: mono float samples at :data:`RATE`."""
    raw = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path),
                          "-map", "0:a:0", "-ac", "1", "-ar", str(RATE), "-f", "f32le", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.float32)


def onset(x):
    """Seconds to the first loud sample (the click track's tone)."""
    return int(np.argmax(np.abs(x) > 0.3)) / RATE


@pytest.mark.parametrize("name,codec", [("a.mp4", "aac"), ("a.webm", "opus"),
                                        ("a.mov", "pcm_s16le")])
def test_audio_is_muxed_and_cut_to_the_video(tmp_path, name, codec):
    sine = make_sound(tmp_path / "sine.wav", "sine")  # 3 s under a 2 s video
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), *SMALL, "--duration", "2",
                 "--audio", sine]) == 0
    assert streams(out)[1] == codec
    assert len(samples(out)) / RATE == pytest.approx(2.0, abs=0.05)


def pcm16(path):
    """The sound of ``path`` decoded as it is: 16-bit samples."""
    return np.frombuffer(subprocess.run(
        [FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path), "-map", "0:a:0",
         "-c:a", "pcm_s16le", "-f", "s16le", "-"], capture_output=True, check=True).stdout,
        np.int16)


@pytest.mark.parametrize("sound,name,codec", [
    ("sine.wav", "p.mov", "pcm_s16le"), ("sine.wav", "p.mkv", "pcm_s16le"),
    ("sine.flac", "f.mkv", "flac"),  # copied: 89088 samples, 2.02 s
    ("sine.m4a", "a.mov", "alac"), ("sine.m4a", "a.mkv", "alac")])  # copied: 90112, 2.04 s
def test_a_lossless_sound_is_kept_as_it_is_and_cut_on_the_sample(tmp_path, sound, name,
                                                                  codec):
    """PCM, FLAC and ALAC copied whole ran past the video (2.04 s of sound under 2.00 s:
    the file's packets); written again as the same codec (nothing lost) they are cut on
    the sample, each sample the file's."""
    sine = tmp_path / sound  # 3 s, 44.1 kHz mono 16-bit
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=3", "-c:a", codec, str(sine)], check=True)
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), *SMALL, "--duration", "2",
                 "--audio", str(sine)]) == 0
    assert streams(out)[1] == codec
    kept = pcm16(out)
    assert len(kept) == 2 * 44100
    np.testing.assert_array_equal(kept, pcm16(sine)[:2 * 44100])


CLICK = "if(gte(t,1),sin(2*PI*440*t),0)"  # silence for 1 s, then a tone


@pytest.mark.parametrize("more,starts,lasts", [
    ([], 1.0, 2.0),
    (["--audio-offset", "1"], 0.0, 2.0),  # 1 s into the file is the video's time 0
    (["--audio-offset", "-0.5"], 1.5, 2.0),  # half a second of silence first
    (["--frames", "30:60"], 0.0, 1.0),  # frame 30 at 30 fps: the sound from 1 s
])
def test_the_offset_and_a_range_place_the_sound(tmp_path, more, starts, lasts):
    click = make_sound(tmp_path / "click.wav", CLICK)
    out = tmp_path / "c.mp4"
    assert main(["render", BAR, "-o", str(out), *SMALL, "--duration", "2",
                 "--audio", click, *more]) == 0
    x = samples(out)
    assert onset(x) == pytest.approx(starts, abs=0.03)
    assert len(x) / RATE == pytest.approx(lasts, abs=0.05)


def test_a_resumed_render_joins_the_sound(tmp_path, monkeypatch, capsys):
    click = make_sound(tmp_path / "click.wav", CLICK)
    out = tmp_path / "r.mkv"
    args = [*SMALL, "--duration", "2", "--granularity", "15", "--audio", click]
    undo = interrupt_after_segments(monkeypatch)
    assert main(["render", BAR, "-o", str(out), *args, "--audio-offset", "0.5"]) == 130
    undo()
    assert "the 30 frames finished so far" in capsys.readouterr().err
    # the frames are still good with another offset: only the join uses the sound
    assert main(["render", BAR, "-o", str(out), *args, "--audio-offset", "0.25",
                 "--resume"]) == 0
    assert onset(samples(out)) == pytest.approx(0.75, abs=0.03)


def test_the_library_and_a_jobs_file_take_it(tmp_path):
    click = make_sound(tmp_path / "click.wav", CLICK)
    out = tmp_path / "lib.webm"
    hf.render(BAR, str(out), size=(64, 16), samples=1, duration=1.5, audio=click,
              audio_offset=1)
    assert streams(out)[1] == "opus" and onset(samples(out)) == pytest.approx(0, abs=0.03)
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[[job]]\nname = "a"\nscene = "{BAR}"\noutput = "j.mp4"\n'
                    'audio = "click.wav"\nsize = "64x16"\nsamples = 1\nduration = 1.0\n')
    job = load_jobs(jobs)[0]
    assert job.render_config().audio == click  # beside the jobs file
    key = job.key()
    Path(click).write_bytes(Path(click).read_bytes() + b"\0\0")  # a changed sound
    assert load_jobs(jobs)[0].key() != key  # the job is made again


def refused(capsys, *args):
    assert main(["render", BAR, *SMALL, "--duration", "1", *args]) == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_refusals_are_one_line(tmp_path, capsys):
    sine = make_sound(tmp_path / "sine.wav", "sine")
    seq = str(tmp_path / "frames" / "%04d.png")
    assert refused(capsys, "-o", seq, "--audio", sine) == (
        f"hfrender: error: --audio: a {seq} sequence has no sound; render a video (.mp4, "
        f".mov, .mkv, .webm), or mux it later with ffmpeg -framerate 30 -i {seq} -i {sine} "
        "-shortest out.mp4")
    gif = str(tmp_path / "a.gif")
    assert refused(capsys, "-o", gif, "--audio", sine) == (
        f"hfrender: error: --audio: a GIF ({gif}) has no sound; render a video (.mp4, .mov, "
        f".mkv, .webm), or mux it later with ffmpeg -i {gif} -i {sine} -shortest out.mp4")
    out = str(tmp_path / "o.mp4")
    missing = str(tmp_path / "none.wav")
    assert refused(capsys, "-o", out, "--audio", missing) == (
        f"hfrender: error: --audio {missing}: no such file")
    silent = tmp_path / "silent.mp4"
    assert main(["render", BAR, "-o", str(silent), *SMALL, "--duration", "0.2"]) == 0
    assert refused(capsys, "-o", out, "--audio", str(silent)) == (
        f"hfrender: error: --audio {silent}: it holds no audio stream")
    text = tmp_path / "notes.wav"
    text.write_text("not a sound\n")
    assert refused(capsys, "-o", out, "--audio", str(text)) == (
        f"hfrender: error: --audio {text}: cannot read it as audio: not a sound file ffmpeg "
        "can read (damaged, or another kind of file)")
    assert refused(capsys, "-o", out, "--audio-offset", "1") == (
        "hfrender: error: --audio-offset 1 places the sound of --audio FILE: give it too, "
        "or leave --audio-offset out")
    assert not Path(out).exists()


def test_an_offset_past_the_sounds_end_is_said(tmp_path, caplog):
    # was: a video with no sound at all (mp4) or an empty track (webm), unsaid
    sound = make_sound(tmp_path / "short.wav", "sine")  # 3 s
    out = tmp_path / "late.mp4"
    args = ["render", BAR, "-o", str(out), "--duration", "1", *SMALL, "--audio", sound]
    assert main([*args, "--audio-offset", "10"]) == 0
    assert [r.getMessage() for r in caplog.records if "past its end" in r.getMessage()] == [
        f"--audio {sound}: the video starts 10.00 s into it, past its end (3.00 s): nothing "
        "of it is heard"]
    caplog.clear()
    assert main([*args, "--audio-offset", "1"]) == 0
    assert "past its end" not in caplog.text
