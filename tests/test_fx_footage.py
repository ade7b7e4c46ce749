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
