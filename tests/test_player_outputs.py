"""What editors' and web players need of a rendered video: an MP4's or MOV's index before
its media (``+faststart``), and ProRes 4:2:2 at an even width."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

BAR = str(Path(__file__).parent / "data" / "bar.frag")


def _top_boxes(path: Path) -> list[str]:
    """The names of an MP4's or MOV's top-level boxes, in file order."""
    data, names, i = path.read_bytes(), [], 0
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
        names.append(kind.decode("latin-1"))
        if size == 0:
            break
        i += size
    return names


@pytest.mark.parametrize("out", ["o.mp4", "o.mov"])
def test_an_mp4_or_mov_render_has_its_index_before_its_media(tmp_path, out):
    """A browser plays an MP4 while it downloads, and an editor reads one over the network,
    only with its index (moov) first: ffmpeg wrote it after the media (mdat) unless told."""
    from hfrender.cli import main

    path = tmp_path / out
    assert main(["render", BAR, "-o", str(path), "--size", "64x36", "--duration", "0.2",
                 "--samples", "1", "--quiet"]) == 0
    boxes = _top_boxes(path)
    assert boxes.index("moov") < boxes.index("mdat"), boxes


def test_a_single_encode_into_mp4_has_its_index_first_too(tmp_path):
    """fx's variable-rate output is one encode, not joined segments: it is moved too."""
    import numpy as np

    from hfrender.io.writers import VideoWriter

    path = tmp_path / "v.mp4"
    with VideoWriter(str(path), 10, (64, 36), times=[0.0, 0.1, 0.3]) as writer:
        for k in range(3):
            writer.write(np.full((36, 64, 3), 40 * k, np.uint8))
    boxes = _top_boxes(path)
    assert boxes.index("moov") < boxes.index("mdat"), boxes


def test_prores_422_needs_an_even_width_and_the_hint_is_a_format_it_takes():
    """prores_ks wrote 4:2:2 at an odd width, its last column decoded green (321x181: 0, 231,
    0 where the still has 249, 99, 25; 29.4 dB against it) and prores_aw refuses it ("frame
    width needs to be multiple of 2"); the hint named yuv444p, which no ProRes encoder takes."""
    from hfrender.io.writers import WriterError, check_output

    with pytest.raises(WriterError) as info:
        check_output("o.mov", (321, 181), "prores_ks")
    assert str(info.value) == ("size 321x181: prores_ks video in yuv422p10le needs an even "
                               "width; use 320x180 (16:9), or --pix-fmt yuv444p10le, or write a "
                               "PNG sequence (-o frames/%05d.png)")
    assert check_output("o.mov", (320, 181), "prores_ks") == "prores_ks"  # odd height: fine
    assert check_output("o.mov", (321, 181), "prores_ks", pix_fmt="yuv444p10le") == "prores_ks"
    assert check_output("o.mov", (321, 181), "prores_ks", alpha=True) == "prores_ks"  # 4444


@pytest.mark.parametrize("codec, pix_fmt, hint", [
    ("libx264", "yuv420p10le", ", or --pix-fmt yuv444p10le,"),  # its depth kept (was 8 bits)
    ("libx264", None, ", or --pix-fmt yuv444p,"),
    ("mpeg4", None, "; use 320x180, or write a PNG"),  # it takes no 4:4:4: none named
])
def test_an_odd_sizes_hint_names_a_full_chroma_format_the_encoder_takes(codec, pix_fmt, hint):
    from hfrender.io.writers import WriterError, check_output

    with pytest.raises(WriterError) as info:
        check_output("o.mkv", (321, 181), codec, pix_fmt=pix_fmt)
    assert hint in str(info.value)
