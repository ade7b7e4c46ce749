"""What fx writes of the footage's sound and colour: every audio track kept (a soundtrack
the output holds copied bit for bit), sound an output cannot hold or a file of sound alone
said, subtitles said left out; HDR, wide-gamut and anamorphic footage said."""

import re

import pytest

from hfrender.cli import main


@pytest.mark.parametrize("out", ["o.gif", "o/%03d.png"])
def test_sound_an_output_cannot_hold_is_said_to_be_left_out(tmp_path, caplog, out):
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "in.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=32x16:r=10:d=0.5", "-f", "lavfi", "-i",
                    "sine=d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
                    "-shortest", str(clip)], check=True)
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / out), "--motion-blur", "2",
                     "--quiet"]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{clip} has sound; {tmp_path / out} keeps none: the soundtrack is left out"]


def test_a_file_of_sound_alone_is_said_to_have_no_video(tmp_path, capsys):
    import subprocess

    import imageio_ffmpeg

    sound = tmp_path / "sine.m4a"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "sine=d=0.3", str(sound)], check=True)
    assert main(["fx", str(sound), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2"]) == 2
    assert capsys.readouterr().err == (f"hfrender: error: cannot read {sound} as video: no "
                                       "video stream (it holds audio only)\n")


@pytest.mark.parametrize("tracks", [1, 2])
def test_every_audio_track_is_kept_and_subtitles_said_left_out(tmp_path, caplog, tracks):
    """A second audio track and a subtitle track were dropped without a word; then the
    second audio track was said left out (a camera's channel 2 on a track of its own, a
    footage trial). Every audio track is kept; subtitles are said left out."""
    import subprocess

    import imageio_ffmpeg

    (tmp_path / "s.srt").write_text("1\n00:00:00,000 --> 00:00:00,400\nhello\n")
    clip = tmp_path / "in.mkv"
    extra = ["-f", "lavfi", "-i", "sine=f=880:d=0.5", "-i", str(tmp_path / "s.srt")] \
        if tracks == 2 else []
    maps = ["-map", "0", "-map", "1", "-map", "2", "-map", "3"] if tracks == 2 else []
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=32x16:r=10:d=0.5", "-f", "lavfi", "-i",
                    "sine=d=0.5", *extra, *maps, "-c:v", "libx264", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-c:s", "srt", str(clip)], check=True)
    out = tmp_path / "o.mkv"
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records]
    assert said == ([f"{clip}: {out} keeps its sound, not its subtitles: 1 subtitle track "
                     "left out"] if tracks == 2 else [])
    from hfrender.io.probe import probe

    assert probe(str(out)).audio_codecs == ("aac",) * tracks  # copied, each of them
    assert probe(str(out)).subtitle_tracks == 0


def test_hdr_footage_is_said_to_come_out_wrong(tmp_path, caplog):
    """HLG phone footage was relabelled BT.709 without a word (washed-out colours)."""
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "hlg.mov"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-c:v", "libx265",
                    "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc",
                    "arib-std-b67", "-colorspace", "bt2020nc", "-x265-params",
                    "colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:"
                    "log-level=error", str(clip)], check=True)
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "o.mov"), "--motion-blur", "2",
                     "--quiet"]) == 0
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and said[0].startswith(
        f"{clip} is HDR (HLG): fx blends and writes SDR (BT.709), so its colours come out "
        "wrong; convert it to SDR first (e.g. ffmpeg -i IN -vf zscale=t=linear")
    assert said[1].startswith(f"{clip} has more than 8 bits; ")  # 10-bit HLG into 8 bits
    assert "hable:desat=0,zscale" in said[0]  # HLG's own peak (PQ's: 10,000 nits, below)


@pytest.mark.parametrize("primaries, trc, said", [
    ("bt2020", "bt2020-10", "BT.2020"), ("smpte432", "bt709", "Display P3"),
    ("bt709", "bt709", None), ("bt2020", "smpte2084", "PQ")])
def test_wide_gamut_footage_is_said_with_the_command_that_converts_it(tmp_path, caplog,
                                                                      primaries, trc, said):
    """A footage trial: BT.2020 SDR footage came out tagged BT.709, an orange 43 codes off,
    without a word; PQ's hint took 1,000 nits for white (4,000 came out at Y 255)."""
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "wide.mkv"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.3", "-vf",
                    f"setparams=color_primaries={primaries}:color_trc={trc}:"
                    "colorspace=bt709", "-c:v", "ffv1", "-pix_fmt", "yuv420p", str(clip)],
                   check=True)
    with caplog.at_level("WARNING"):
        assert main(["fx", str(clip), "-o", str(tmp_path / "o.mp4"), "--motion-blur", "2",
                     "--quiet"]) == 0
    told = [r.getMessage() for r in caplog.records]
    if said is None:
        assert told == []
    elif said == "PQ":
        assert len(told) == 1 and told[0].startswith(f"{clip} is HDR (PQ (HDR10)): ")
        assert "tonemap=tonemap=hable:desat=0:peak=100,zscale" in told[0]
    else:
        assert told == [
            f"{clip} has {said} primaries (a wider gamut than BT.709's): fx reads and writes "
            "BT.709, so its colours come out washed out; convert it first (ffmpeg -i IN -vf "
            "zscale=p=709:t=709:m=709,format=yuv420p10le OUT)"]


def test_anamorphic_footage_into_square_pixels_is_said_squeezed(tmp_path, caplog):
    import subprocess

    import imageio_ffmpeg

    clip = tmp_path / "anam.mp4"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-vf", "setsar=4/3",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", str(clip)], check=True)
    for out in ("o.gif", "o.mp4"):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(tmp_path / out), "--motion-blur", "2",
                         "--quiet"]) == 0
        assert [r.getMessage() for r in caplog.records] == (
            [f"{clip} has pixels of aspect 4:3; {tmp_path / out} has square ones, so its "
             "picture is squeezed (a video output keeps the aspect)"] if out == "o.gif" else [])


def test_a_soundtrack_the_output_holds_is_copied_bit_for_bit(tmp_path):
    """The soundtrack was always encoded again (AAC into AAC: a generation lost, PCM in a
    MOV turned lossy). A codec the container holds is now copied; another is encoded for
    it (AAC, Opus in WebM)."""
    import subprocess

    import imageio_ffmpeg

    ff = imageio_ffmpeg.get_ffmpeg_exe()

    def sound(path):  # (codec, the audio packets' checksums)
        said = subprocess.run([ff, "-hide_banner", "-i", str(path)], capture_output=True,
                              text=True).stderr
        sums = subprocess.run([ff, "-v", "error", "-i", str(path), "-map", "0:a", "-c",
                               "copy", "-f", "framemd5", "-"], capture_output=True,
                              text=True, check=True).stdout
        return (re.search(r"Audio: (\w+)", said).group(1),
                [line.rsplit(",", 1)[1].strip() for line in sums.splitlines()
                 if line and not line.startswith("#")])

    for source, codec in (("in.mp4", ["aac", "-b:a", "256k"]), ("in.mov", ["pcm_s16le"])):
        subprocess.run([ff, "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=64x36:r=30:d=2",
                        "-f", "lavfi", "-i", "sine=f=440:d=2", "-c:v", "libx264", "-pix_fmt",
                        "yuv420p", "-c:a", *codec, str(tmp_path / source)], check=True)
    aac, pcm = sound(tmp_path / "in.mp4"), sound(tmp_path / "in.mov")
    assert aac[0] == "aac" and pcm[0] == "pcm_s16le" and len(aac[1]) > 50
    for source, out, kept in (("in.mp4", "o.mp4", aac), ("in.mp4", "o.mkv", aac),
                              ("in.mp4", "o.webm", "opus"), ("in.mov", "o.mov", pcm),
                              ("in.mov", "p.mp4", "aac"), ("in.mov", "p.mkv", pcm)):
        assert main(["fx", str(tmp_path / source), "-o", str(tmp_path / out),
                     "--motion-blur", "2", "--quiet"]) == 0
        got = sound(tmp_path / out)
        if isinstance(kept, str):  # encoded for the container
            assert got[0] == kept, (source, out)
        else:
            assert got == kept, (source, out)
