"""Video that editors accept: every frame lasts exactly 1/fps in the joined output."""

import re
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from render_helpers import video_packets

from hfrender.cli import main
from hfrender.io.ffmpeg import ffmpeg_exe
from hfrender.io.segments import work_dir

BAR = str(Path(__file__).parent / "data" / "bar.frag")


def packet_durations(path):
    """(time base, {duration: packets}) of the video stream, as ffmpeg -f framecrc says."""
    tb, packets = video_packets(path)
    return tb, dict(Counter(duration for _, duration in packets))


def rates(path):
    """(r_frame_rate, avg_frame_rate) as ffmpeg prints them for the stream ("tbr", "fps")."""
    log = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(path)], capture_output=True,
                         text=True).stderr
    m = re.search(r"Video: .*?, ([\d.]+k?) fps, ([\d.]+k?) tbr", log)
    return tuple(float(v[:-1]) * 1000 if v.endswith("k") else float(v)
                 for v in (m.group(2), m.group(1)))


@pytest.mark.parametrize("fps,frames,shown", [
    ("24000/1001", 53, 23.98),  # 3 segments of 24 and a rest of 5 that joins the last
    ("30", 61, 30),  # a rest of one frame: it joins the segment before it
    ("30000/1001", 45, 29.97),
    ("1000", 40, 1000),  # Matroska segments (milliseconds are frames here)
])
def test_every_frame_lasts_one_frame_period(tmp_path, fps, frames, shown):
    rate = Fraction(fps)
    out = tmp_path / "t.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1",
                 "--fps", str(float(rate)), "--duration", str(float(frames / rate)),
                 "--granularity", "8", "--quiet"]) == 0
    tb, durations = packet_durations(out)
    assert sum(durations.values()) == frames
    assert len(durations) == 1 and next(iter(durations)) * tb == 1 / rate  # one duration
    assert rates(out) == (shown, shown)  # r_frame_rate = avg_frame_rate = the fps


@pytest.mark.parametrize("samples, fps, keyframes", [
    ("1", "10", [0, 10, 20]),  # hyperframes of 64 frames: keyframes 6.4 s apart, were
    ("1", "24", [0, 24, 48]),  # (2.67 s at 24 fps; an audit)
    ("8", "24", [0, 24, 48]),  # whole hyperframes of 8 frames: three a second
])
def test_a_keyframe_every_second(tmp_path, samples, fps, keyframes):
    out = tmp_path / "k.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", samples,
                 "--fps", fps, "--duration", "3", "--quiet"]) == 0
    log = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(out), "-vf",
                          "showinfo", "-f", "null", "-"], capture_output=True, text=True).stderr
    types = re.findall(r" n: *(\d+) .*? type:([IPB])", log)
    assert len(types) == 3 * int(fps)
    assert [int(n) for n, kind in types if kind == "I"] == keyframes


def test_segments_are_a_second_at_least_min_segment_frames():
    """A review: at 1 fps a segment a frame (an encoder each; 193 segments for 200 frames);
    whole hyperframes where they are shorter than a second."""
    from hfrender.io.segment_cuts import MIN_SEGMENT, render_segment_frames

    assert [render_segment_frames(64, fps) for fps in (1, 2, 10, 24, 30, 60)] == [
        MIN_SEGMENT, MIN_SEGMENT, 10, 24, 30, 60]
    assert [render_segment_frames(8, fps) for fps in (1, 24, 30)] == [8, 24, 32]
    assert [render_segment_frames(g, 1) for g in (1, 3, 4)] == [8, 9, 8]  # whole ones (a
    # review: hyperframes under MIN_SEGMENT made segments of 1-3 frames)


@pytest.mark.parametrize("name", ["t.mkv", "t.webm"])
@pytest.mark.parametrize("frames", [1, 2, 3])
def test_a_matroska_of_a_frame_or_two_says_its_frame_rate(tmp_path, name, frames):
    """An audit: a 1- or 2-frame .mkv at 10 fps said 20 fps (the join guessed it from its
    one or two packets); every frame 100 ms apart, as ever."""
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1",
                 "--fps", "10", "--duration", str(frames / 10), "--quiet"]) == 0
    assert rates(out) == (10, 10)
    log = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(out), "-vf", "showinfo",
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    assert [float(t) for t in re.findall(r"pts_time:([\d.]+)", log)] == [
        k / 10 for k in range(frames)]


@pytest.mark.parametrize("given", ["23.976", "23.98", "24000/1001"])
def test_ntsc_rates_as_typed_are_ntsc(tmp_path, given):
    """23.976 (and 23.98) is 24000/1001 fps, as editors mean it, not 2997/125; the fraction
    itself is taken too."""
    out = tmp_path / "t.mp4"
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1", "--fps",
                 given, "--duration", "0.25", "--quiet"]) == 0
    tb, durations = packet_durations(out)
    assert len(durations) == 1 and next(iter(durations)) * tb == Fraction(1001, 24000)


@pytest.mark.parametrize("given, exact", [(23.98, Fraction(24000, 1001)),
                                          (29.97, Fraction(30000, 1001)),
                                          (59.94, Fraction(60000, 1001)), (12.5, Fraction(25, 2)),
                                          (24.0, Fraction(24))])
def test_a_rate_is_drawn_at_the_rate_it_is_stamped_at(given, exact):
    """Was: --fps 23.98 drew frame k at k / 23.98 s and stamped it at k * 1001 / 24000 s
    (14 ms apart at frame 2000, 0.6 s after an hour): the scene's times now run on the
    file's clock, as the still's "frame 24 (t=1.001 s)" says."""
    from hfrender.config import RenderConfig
    from hfrender.sampler import SampleSchedule

    config = RenderConfig(fps=given)
    assert Fraction(config.fps) == Fraction(float(exact))
    plan = SampleSchedule(config.fps, 180.0, "start", "box", 1).plan(1, first_frame=2000)
    want = 2000 / exact + Fraction(1, 4) / exact  # the one sample: the shutter's middle
    assert float(plan.times[0]) == pytest.approx(float(want), abs=1e-9)
    assert RenderConfig(fps=config.fps).fps == config.fps  # as a resumed render sees it

def test_frame_times_stay_exact_after_resume(tmp_path, capsys):
    out = tmp_path / "r.mp4"
    args = ["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1", "--fps",
            str(24000 / 1001), "--duration", str(50 * 1001 / 24000), "--granularity", "8",
            "--quiet"]
    assert main(args) == 0
    whole, first = packet_durations(out), out.read_bytes()
    assert not work_dir(out).exists()
    # the same render, stopped after its first segment and resumed
    import hfrender.io.segments as seg

    real, calls = seg.SegmentedWriter._finish_segment, {"n": 0}

    def stop_after_one(self):
        real(self)
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt

    seg.SegmentedWriter._finish_segment = stop_after_one
    try:
        assert main(args) == 130
    finally:
        seg.SegmentedWriter._finish_segment = real
    assert out.read_bytes() == first  # untouched by the interrupted run
    assert len(list(work_dir(out).glob("seg_*.ts"))) == 1  # its one whole segment kept
    assert main(args + ["--resume"]) == 0
    assert packet_durations(out) == whole  # 50 frames, each 1001/24000 s
    assert out.read_bytes() == first  # the same bitstream as the uninterrupted render


@pytest.mark.parametrize("fps, exact", [(24000 / 1001 / 7, Fraction(24000, 7007)),
                                        (30000 / 1001 / 3, Fraction(10000, 1001)),
                                        (60000 / 1001 / 2, Fraction(30000, 1001)),
                                        (30 / 7, Fraction(30, 7)), (3.42515, Fraction(572, 167)),
                                        (25.06, Fraction(1253, 50))])  # (not over 917: a review)
def test_an_ntsc_rate_over_a_stride_is_said_exactly(fps, exact):
    """fx --stride 7 on 23.976 footage wrote 167/572 s a frame (a trial: a few ms an hour
    off), not 7007/24000; a rate typed as it is stays as it was."""
    from hfrender.io.ffmpeg import frame_rate

    assert frame_rate(fps) == exact


@pytest.mark.parametrize("name, codec, fps, frames", [
    ("p.mov", "prores_ks", "30000/1001", 45),  # segments were Matroska: 990 and 1020 ticks
    ("p.mov", "prores_ks", "24000/1001", 40),  # (1008 and 984; a trial)
    ("v.mp4", "libvpx-vp9", "30000/1001", 45),  # (990, 2010, 3000)
    ("v.mp4", "libvpx-vp9", "24000/1001", 40),
])
def test_other_codecs_keep_exact_ntsc_frame_times_in_mp4_and_mov(tmp_path, name, codec, fps,
                                                                 frames):
    rate = Fraction(fps)
    out = tmp_path / name
    assert main(["render", BAR, "-o", str(out), "--size", "32x8", "--samples", "1",
                 "--codec", codec, "--fps", fps, "--duration", str(float(frames / rate)),
                 "--granularity", "8", "--quiet"]) == 0
    tb, durations = packet_durations(out)
    assert tb == Fraction(1, rate.numerator) and durations == {rate.denominator: frames}
    assert [pts for pts, _ in video_packets(out)[1]] == [  # (VP9's durations said 1001
        k * rate.denominator for k in range(frames)]  # at 0, 1008, 1992, ...)
    assert rates(out) == (round(float(rate), 2),) * 2


def test_a_segment_in_mov_leaves_the_index_and_timecode_to_the_join():
    """A .mov or .mp4 segment is not rewritten to put its index first, nor given a timecode
    track: the join gives the output both (once)."""
    from hfrender.io.encoding import Encoding
    from hfrender.io.ffmpeg import encode_command

    timecode = Encoding(timecode="01:00:00:00")
    whole = encode_command("o.mov", 24, (32, 8), "prores_ks", encoding=timecode)
    segment = encode_command("seg_00000000.mov", 24, (32, 8), "prores_ks", encoding=timecode,
                             container="seg_00000000.mov", segment=True)
    assert "-movflags" in whole and "-timecode" in whole
    assert "-movflags" not in segment and "-timecode" not in segment
