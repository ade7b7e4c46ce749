"""A GIF hfrender writes carries its mark (a GIF89a comment, "hfrender"), so that a GIF at
an output without it, the user's own, is refused as any other file is (a trial:
``render -o out/mine.gif`` replaced the user's GIF without a word; a GIF "held no mark")."""

import subprocess
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import pytest

from hfrender.cli import main
from hfrender.io.frame_marks import mark_gif

BAR = str(Path(__file__).parent / "data" / "bar.frag")
SMALL = ["--size", "32x8", "--samples", "2", "--duration", "0.2", "--quiet"]


def _users_gif(path: Path, colours: int = 256) -> None:
    """Three frames: ffmpeg's (a 256-colour table), or Pillow's of ``colours`` colours."""
    if colours == 256:
        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "lavfi",
                        "-i", "testsrc=size=32x16:rate=10:duration=0.3", str(path)],
                       check=True, timeout=60)
        return
    from PIL import Image

    frames = [Image.new("P", (32, 16), k % colours) for k in range(3)]
    for f in frames:
        f.putpalette([0, 0, 0, 255, 255, 255][:3 * colours])
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=100)


@pytest.mark.usefixtures("gl_context")
def test_a_users_gif_at_the_output_is_refused_and_hfrenders_own_replaced(tmp_path, capsys):
    mine = tmp_path / "mine.gif"
    _users_gif(mine)
    before = mine.read_bytes()
    assert main(["render", BAR, "-o", str(mine), *SMALL]) == 2
    assert "a file is there that hfrender did not write" in capsys.readouterr().err
    assert mine.read_bytes() == before
    ours = tmp_path / "ours.gif"
    for _ in range(2):  # its own, marked: replaced by the next render
        assert main(["render", BAR, "-o", str(ours), *SMALL]) == 0
        assert b"\x21\xfe\x08hfrender\x00" in ours.read_bytes()[:1024]
        assert iio.imread(ours, index=None).shape[:3] == (6, 8, 32)


@pytest.mark.parametrize("colours", [2, 256])
def test_the_mark_leaves_the_pictures_as_they_were(tmp_path, colours):
    gif = tmp_path / "a.gif"
    _users_gif(gif, colours)
    frames = iio.imread(gif, index=None)
    mark_gif(gif)
    assert (iio.imread(gif, index=None) == frames).all()
    mark_gif(tmp_path / "not_there.gif")  # (nothing: no error)
