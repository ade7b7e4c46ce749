"""What `hfrender fx` says of the footage it reads: interlaced fields and their order, DV
said progressive, a timecode left out, deep footage written with 8 bits, frames the decoder
skips."""

import re
import subprocess

import pytest
from fx_helpers import (
    FFMPEG,
)

from hfrender.cli import main


def test_interlaced_footage_and_a_timecode_left_out_are_said(tmp_path, caplog):
    """Interlaced footage came out flagged progressive, fields mixed, and a timecode was
    dropped at --stride 2 or into .mkv, each without a word (a video editor's trial)."""
    inter, timed = tmp_path / "inter.mp4", tmp_path / "tc.mov"
    run = [FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"]
    subprocess.run([*run, "testsrc2=size=64x36:rate=25", "-t", "0.4", "-pix_fmt", "yuv420p",
                    "-c:v", "libx264", "-flags", "+ilme+ildct", "-x264opts", "tff=1",
                    str(inter)], check=True)
    subprocess.run([*run, "testsrc2=size=64x36:rate=30000/1001", "-t", "0.4", "-c:v",
                    "prores_ks", "-timecode", "01:00:00;00", str(timed)], check=True)

    def said(*args):  # (ProRes is 10-bit: its 8-bit output's warning is another test's)
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", *map(str, args), "--motion-blur", "2", "--quiet"]) == 0
        return [r.getMessage() for r in caplog.records if "more than 8 bits" not in
                r.getMessage()]

    hint = ("is progressive; deinterlace it first, a frame a frame (ffmpeg -i IN -vf "
            "bwdif=mode=send_frame OUT; bwdif alone makes a frame of each field, twice the "
            "rate)")
    assert said(inter, "-o", tmp_path / "i.mp4") == [
        f"{inter} is interlaced (top first): fx blends whole frames, so its fields mix and "
        f"{tmp_path / 'i.mp4'} {hint}"]
    dropped = (f"{timed} has timecode 01:00:00;00; {{}} keeps none (fx keeps it at --stride 1 "
               "in .mov and .mp4)")
    assert said(timed, "-o", tmp_path / "t.mkv") == [dropped.format(tmp_path / "t.mkv")]
    assert said(timed, "-o", tmp_path / "s.mov", "--stride", "2") == [
        dropped.format(tmp_path / "s.mov")]
    assert said(timed, "-o", tmp_path / "k.mov") == []  # kept: nothing to say


def test_dv_said_progressive_is_not_said_interlaced(caplog):
    """A review: DV flagged progressive (in .mov, or DVCPRO HD 720p) was told to be
    deinterlaced too."""
    from hfrender.engine.fx_notes import picture_notes
    from hfrender.io.probe import VideoInfo

    for pix_fmt, said in (("yuv420p(progressive)", False), ("yuv422p", True)):
        caplog.clear()
        with caplog.at_level("WARNING"):
            picture_notes("in.mov", "o.mp4", VideoInfo(25.0, (720, 576), 10, pix_fmt, False,
                                                       codec="dvvideo"))
        assert any("is interlaced (DV" in r.getMessage() for r in caplog.records) == said


@pytest.mark.parametrize("size, rate, pix, fps", [
    ("720x576", "25", "yuv420p", 25.0), ("720x480", "30000/1001", "yuv411p", 30000 / 1001)])
def test_a_raw_dv_file_is_read_at_its_rate_and_said_interlaced(tmp_path, caplog, size, rate,
                                                                pix, fps):
    """A footage trial: ffmpeg prints "60k fps" for a raw .dv file (25 tbr): it was read at
    60000 fps ("fps 60000 is too large" into .mp4, a 1 ms .mkv), and DV outside .mov, which
    says no field order, was not said to be interlaced."""
    from hfrender.io.probe import probe

    dv = tmp_path / "cam.dv"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    f"testsrc2=size={size}:rate={rate}", "-frames:v", "6", "-pix_fmt", pix,
                    "-c:v", "dvvideo",
                    "-f", "dv", str(dv)], check=True)
    head = subprocess.run([FFMPEG, "-hide_banner", "-i", str(dv)], capture_output=True,
                          text=True).stderr
    assert "60k fps" in head  # (what ffmpeg says)
    assert probe(str(dv)).fps == pytest.approx(fps, rel=1e-9)
    out = tmp_path / "o.mp4"
    with caplog.at_level("WARNING"):
        assert main(["fx", str(dv), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    # (6 frames' timestamps allow 29.97 as printed for 30000/1001: it stands, as ever)
    assert probe(str(out)).fps == pytest.approx(fps, rel=1e-4) and probe(str(out)).count == 6
    assert [r.getMessage() for r in caplog.records] == [
        f"{dv} is interlaced (DV, bottom first unless shot progressive): fx blends whole "
        f"frames, so its fields mix and {out} is progressive; deinterlace it first, a frame "
        "a frame (ffmpeg -i IN -vf bwdif=mode=send_frame OUT; bwdif alone makes a frame of "
        "each field, twice the rate)"]


def test_deep_footage_written_with_8_bits_is_said(tmp_path, caplog):
    """10-bit ProRes into .mov came out 8-bit H.264 without a word, under a README heading
    "fx keeps the footage's ... bit depth" (a video editor's trial)."""
    clip = tmp_path / "pr.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x36:rate=30", "-t", "0.3", "-pix_fmt", "yuv422p10le",
                    "-c:v", "prores_ks", str(clip)], check=True)
    for extra, warned in (([], True), (["--codec", "prores_ks"], False)):
        caplog.clear()
        out = tmp_path / f"o{len(extra)}.mov"
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet",
                         *extra]) == 0
        assert [r.getMessage() for r in caplog.records] == ([
            f"{clip} has more than 8 bits; {out} is written with 8 (its encoder's default): "
            "give --codec prores_ks (.mov), or --codec libx265 --pix-fmt yuv420p10le, to keep "
            "them"] if warned else [])
    alpha = tmp_path / "pa.mov"  # 10-bit ProRes 4444 with alpha: .mov keeps both, .webm not
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x36:rate=30,format=yuva444p10le", "-t", "0.3",
                    "-pix_fmt", "yuva444p10le", "-c:v", "prores_ks", "-profile:v", "4444",
                    str(alpha)], check=True)
    for suffix, warned in ((".webm", True), (".mov", False)):
        caplog.clear()
        out = tmp_path / f"a{suffix}"
        with caplog.at_level("WARNING"):
            assert main(["fx", str(alpha), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
        assert [r.getMessage() for r in caplog.records if "bits" in r.getMessage()] == ([
            f"{alpha} has more than 8 bits; {out} is written with 8 (VP9 keeps its alpha with "
            "8 alone): write .mov (ProRes 4444) to keep both"] if warned else [])


def test_frames_the_decoder_skips_are_said_and_not_counted(tmp_path, caplog, capsys):
    """A clip damaged in the middle: fx wrote fewer frames than its summary said ("wrote
    60 frames" of 58), its picture ahead of its sound from the damage on, without a word.
    Of a clip without sound, or into an output without it, the frames come early (it spoke
    of sound there too)."""
    for sound in (True, False):
        clip, out = tmp_path / f"pr{sound}.mov", tmp_path / f"o{sound}.mov"
        audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a",
                 "pcm_s16le"] if sound else []
        subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                        "testsrc2=size=160x90:rate=30", *audio, "-t", "2", "-pix_fmt",
                        "yuv422p10le", "-c:v", "prores_ks", str(clip)], check=True)
        data = bytearray(clip.read_bytes())
        at = len(data) // 3 if sound else len(data) // 2
        data[at: at + 30000] = b"\xff" * 30000  # a frame or two gone
        clip.write_bytes(bytes(data))
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "3", "--codec",
                         "prores_ks"]) == 0
        said = capsys.readouterr().out.splitlines()[-1]
        made = int(re.match(rf"wrote {re.escape(str(out))}: (\d+) frames at 30 fps from 60 at "
                            r"30 fps$", said).group(1))
        assert 50 <= made < 60
        sync = ("picture runs ahead of its sound; repair the footage to keep them in step"
                if sound else "frames come earlier than the footage's; repair the footage to "
                "keep its timing")
        assert [r.getMessage() for r in caplog.records] == [
            f"{clip}: the decoder gave fewer than the 60 frames its index lists (damaged ones "
            f"are skipped), so {out} has {made} frames of 60, and from the first damaged "
            f"frame on its {sync}"]


def test_a_field_order_in_nested_parentheses_is_read(tmp_path, caplog):
    """"yuv420p(tv, bt709, top coded first (swapped))" was cut at "(tv" by the probe: the
    colour tags and the field order lost, no interlace warning (a review)."""
    from hfrender.io.probe import probe

    clip = tmp_path / "il.mov"
    subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc=size=64x36:rate=25", "-t", "0.4", "-c:v", "mpeg2video",
                    "-flags", "+ilme+ildct", "-field_order", "tt", "-color_primaries", "bt709",
                    "-color_trc", "bt709", "-colorspace", "bt709", str(clip)], check=True)
    info = probe(str(clip))
    assert "coded first" in info.pix_fmt and "bt709" in info.pix_fmt, info.pix_fmt
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                     "--quiet"]) == 0
    assert any("is interlaced" in r.getMessage() for r in caplog.records)
