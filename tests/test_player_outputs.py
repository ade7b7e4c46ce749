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
