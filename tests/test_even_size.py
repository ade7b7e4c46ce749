"""The size an odd-size refusal suggests: the nearest fitting size at the common aspect
ratio the asked one is near (641x359: 640x360, 16:9), else the nearest fitting size."""

import pytest

from hfrender.io.writers import WriterError, check_output


def suggestion(size, codec=None, pix_fmt=None, path="out.mp4"):
    with pytest.raises(WriterError) as info:
        check_output(path, size, codec, pix_fmt=pix_fmt)
    said = str(info.value)
    return said.split("; use ", 1)[1].split(", or ", 1)[0]


@pytest.mark.parametrize("size, hint", [
    ((641, 359), "640x360 (16:9)"),  # was 640x358: 16:9 lost for the sake of a pixel
    ((1921, 1079), "1920x1080 (16:9)"),
    ((1279, 721), "1280x720 (16:9)"),
    ((359, 641), "360x640 (9:16)"),  # upright
    ((481, 359), "480x360 (4:3)"),
    ((1081, 1079), "1080x1080 (1:1)"),
    ((641, 361), "640x360"),  # the nearest is 16:9 itself: nothing to add
    ((1001, 777), "1000x776"),  # near no common ratio: the nearest even size
    ((15, 9), "14x8"),  # 5:3's nearest even sizes (10x6, 20x12) are too far
    ((1, 1), "2x2"),  # never below 2
    ((641, 1), "640x2"),
])
def test_an_odd_size_suggests_the_even_size_at_its_ratio(size, hint):
    assert suggestion(size) == hint


def test_a_422_width_keeps_the_ratio_too():
    # 4:2:2: any height; 321x181 is 16:9 to 0.3%, 320x180 is it
    assert suggestion((321, 181), "prores_ks", path="o.mov") == "320x180 (16:9)"
    assert suggestion((641, 360), pix_fmt="yuv422p") == "640x360"


def test_the_whole_line_for_641x359():
    with pytest.raises(WriterError) as info:
        check_output("out.mp4", (641, 359))
    assert str(info.value) == ("size 641x359: libx264 video in yuv420p needs an even width "
                               "and height; use 640x360 (16:9), or --pix-fmt yuv444p, or "
                               "write a PNG sequence (-o frames/%05d.png)")
