"""fx on the kinds of footage people have (a footage trial): what they are told."""
import subprocess

import imageio_ffmpeg

from hfrender.cli import main


def ffmpeg(*args):
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error",
                    "-y", *map(str, args)], check=True)


def test_a_gifs_square_pixels_said_as_64_64_are_not_said_squeezed(tmp_path, caplog):
    clip = tmp_path / "in.gif"  # ffmpeg's GIFs say "SAR 64:64": square
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", clip)
    for out in ("o.gif", "o/%03d.png"):
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(tmp_path / out), "--motion-blur", "2",
                         "--quiet"]) == 0
        assert [r.getMessage() for r in caplog.records] == []


def test_8_bit_hdr_blended_as_stored_keeps_its_tags_and_is_not_said_wrong(tmp_path,
                                                                           caplog):
    from hfrender.io.probe import probe

    clip = tmp_path / "pq.mp4"  # 8-bit 4:2:0 PQ: --gamma-space blends its planes as stored
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=0.5", "-vf",
           "setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc",
           "-c:v", "libx264", "-pix_fmt", "yuv420p", clip)
    said = {}
    for blend in ([], ["--gamma-space"]):
        out = tmp_path / f"o{len(blend)}.mp4"
        caplog.clear()
        with caplog.at_level("WARNING"):
            assert main(["fx", str(clip), "-o", str(out), "--motion-blur", "2", "--quiet",
                         *blend]) == 0
        said[len(blend)] = ([r.getMessage().split(";")[0] for r in caplog.records],
                            probe(str(out)).pix_fmt)
    assert said == {
        0: ([f"{clip} is HDR (PQ (HDR10)): fx blends and writes SDR (BT.709), so its "
             "colours come out wrong"],
            "yuv420p(tv, bt709, progressive)"),  # through RGB: SDR, said
        1: ([], "yuv420p(tv, bt2020nc/bt2020/smpte2084, progressive)")}  # PQ, as it was
