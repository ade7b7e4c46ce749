"""Text beyond ASCII (hf.Text): Windows line ends, and the characters a font has no glyph
for (told once, naming the text, the characters and the font)."""

from pathlib import Path

import numpy as np
import pytest

from hfrender.scene import text as text_module

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _dejavu() -> str:
    if not DEJAVU.is_file():
        pytest.skip("no DejaVu font on this machine")
    return str(DEJAVU)


@pytest.mark.parametrize("ends", ["\r\n", "\r"])
def test_windows_line_ends_are_line_ends_in_the_embedded_font(ends):
    # was: a missing glyph's box drawn at the end of each line but the last
    drawn = text_module.raster(f"Line one{ends}Line two", None, "left")
    plain = text_module.raster("Line one\nLine two", None, "left")
    assert np.array_equal(drawn.coverage, plain.coverage)
    assert np.array_equal(drawn.bounds, plain.bounds)


def test_windows_line_ends_are_line_ends_in_a_font_file():
    # was: RuntimeError: raqm_layout() failed, "an internal error" (complex layout)
    font = _dejavu()
    drawn = text_module.raster("Καλή\r\nμέρα", font, "right")
    plain = text_module.raster("Καλή\nμέρα", font, "right")
    assert np.array_equal(drawn.coverage, plain.coverage)
    assert drawn.coverage.shape[0] > text_module.raster("Καλή", font).coverage.shape[0]
