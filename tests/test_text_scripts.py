"""Text beyond ASCII (hf.Text): Windows line ends, and the characters a font has no glyph
for (told once, naming the text, the characters and the font)."""

import logging
from pathlib import Path

import numpy as np
import pytest

from hfrender.logs import silenced
from hfrender.scene import glyphs
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


@pytest.fixture
def said(monkeypatch, caplog):
    """The warnings of hfrender.scene.glyphs, none said before this test."""
    monkeypatch.setattr(glyphs, "_SAID", set())
    caplog.set_level(logging.WARNING, logger="hfrender.scene.glyphs")
    return lambda: [r.getMessage() for r in caplog.records if r.name == glyphs.__name__]


EMBEDDED = "Pillow's embedded font (font=None: ASCII and a little punctuation)"


def test_characters_the_embedded_font_lacks_are_said_once(said):
    # was: "Café crème" drawn "Caf" and a box, "cr" and a box, without a word
    text_module.raster("Café crème", None, "left")
    text_module.raster("Café crème", None, "right")  # the same characters: said already
    text_module.raster("Crème brûlée")  # of its three, 'û' alone is new
    text_module.raster("Hello, world! © «»")  # all the font's own: nothing said
    assert said() == [
        f"Text 'Café crème': {EMBEDDED} has no glyph for 'é' (U+00E9), 'è' (U+00E8): drawn "
        "as the font's missing-glyph box; give font= a .ttf or .otf that has them "
        "(DejaVuSans.ttf has accented Latin, Greek, Cyrillic, Hebrew and Arabic)",
        f"Text 'Crème brûlée': {EMBEDDED} has no glyph for 'û' (U+00FB): drawn as the "
        "font's missing-glyph box; give font= a .ttf or .otf that has them (DejaVuSans.ttf "
        "has accented Latin, Greek, Cyrillic, Hebrew and Arabic)"]


def test_a_tab_is_said_with_what_to_write_instead(said):
    text_module.raster("Name\tRole\r\nAda\tEngineer")  # (the line ends are no glyphs)
    assert said() == [f"Text 'Name\\tRole\\r\\nAda\\tEngineer': {EMBEDDED} has no glyph for "
                      "'\\t' (U+0009): drawn as the font's missing-glyph box; write spaces "
                      "for '\\t': no font draws a control character"]


def test_characters_a_font_file_lacks_are_named_with_the_file(said):
    font = _dejavu()
    stamp = (1, 2)
    for text in ["Café crème", "Ελληνικά", "Кириллица", "שלום", "سلام", "e\u0301"]:
        assert glyphs.missing(text, font, stamp) == ()
    text_module.raster("Tokyo 東京", font, "center", stamp)
    many = "".join(chr(0x4E00 + i) for i in range(10))
    text_module.raster(many, font, "center", stamp)
    assert said() == [
        "Text 'Tokyo 東京': the font DejaVuSans.ttf has no glyph for '東' (U+6771), '京' "
        "(U+4EAC): drawn as the font's missing-glyph box; give font= a .ttf or .otf that "
        "has them",
        f"Text '{many}': the font DejaVuSans.ttf has no glyph for "
        + ", ".join(f"'{c}' (U+{ord(c):04X})" for c in many[:8]) + " and 2 more: drawn as "
        "the font's missing-glyph box; give font= a .ttf or .otf that has them"]


def test_a_text_first_drawn_while_silenced_is_said_when_drawn_after(said):
    with silenced():
        text_module.raster("Ωmega")
    assert said() == []
    text_module.raster("Ωmega")
    assert [s.split(":")[0] for s in said()] == ["Text 'Ωmega'"]
    assert "'Ω' (U+03A9)" in said()[0]


@pytest.mark.parametrize("level", [0, 1])
def test_stacked_accents_above_the_fonts_ascent_are_drawn_whole(level):
    # was: a Vietnamese "Ấ" (DejaVu Sans: 13 px over its ascent at 128 px) cut off at the top
    font = _dejavu()
    drawn, plain = (text_module.raster_at(level, text, font) if level else
                    text_module.raster(text, font) for text in ("VIẾT Ấ", "VIET A"))
    rows = np.flatnonzero(drawn.coverage.any(axis=1))
    face = glyphs.font_face(font, text_module.RASTER_PX << level)
    top, bottom = face.getbbox("VIẾT Ấ", anchor="ls")[1::2]
    assert rows[0] >= (text_module.PAD << level) // 2  # half a pad empty above, at least
    assert abs((rows[-1] + 1 - rows[0]) - (bottom - top)) <= 1  # the whole glyphs' height
    assert drawn.bounds[0, 1] == plain.bounds[0, 1] and drawn.cap == plain.cap  # placed alike


def test_a_script_needing_complex_layout_is_said_where_pillow_has_none(said, monkeypatch):
    # was: without raqm (no FriBiDi on the machine) a font file's Hebrew ran left to right
    # and its Arabic unjoined, without a word
    font = _dejavu()
    monkeypatch.setattr(glyphs, "_raqm", lambda: False)
    text_module.raster("שלום and سلام", font, "center", (3, 4))
    text_module.raster("שלום עולם", font, "center", (3, 4))  # Hebrew and Arabic said
    text_module.raster("Ελληνικά", font, "center", (3, 4))  # needs no complex layout
    assert said() == [
        "Text 'שלום and سلام': its Arabic and Hebrew letters are drawn without complex text "
        "layout (Pillow's raqm is not available here: it needs the system's FriBiDi), so "
        "right-to-left text runs left to right and joined letters are drawn apart; install "
        "libfribidi0 (apt) and render again"]


def test_complex_layout_where_pillow_has_it_is_not_said(said, monkeypatch):
    font = _dejavu()
    monkeypatch.setattr(glyphs, "_raqm", lambda: True)
    text_module.raster("שלום", font, "center", (5, 6))
    monkeypatch.setattr(glyphs, "_raqm", lambda: False)
    text_module.raster("שלום", None, "center", (5, 6))  # the embedded font: its glyphs said
    assert [s.split(": ")[1][:22] for s in said()] == ["Pillow's embedded font"]
