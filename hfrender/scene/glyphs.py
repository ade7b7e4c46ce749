"""The characters of a text that its font has no glyph for, said once: Pillow draws each
as the font's missing-glyph (.notdef) glyph, a box in most fonts, without a word (a trial:
"Café" in the default font, Pillow's embedded one, which holds ASCII and a little
punctuation alone, drew "Caf" and a box; "東京" in DejaVu Sans two boxes; a tab a box in
any font).

Without Pillow's complex text layout (raqm, which loads the system's FriBiDi: a fresh
machine may lack it) a font file's Hebrew or Arabic is drawn left to right, Arabic's
letters unjoined, an Indic script's vowel signs apart: said once too.

A character lacks a glyph where Pillow draws it alone as it draws a character no font has
(U+10FFFD, of a private use plane): the .notdef glyph, the same pixels and advance.
"""

from __future__ import annotations

import logging
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from hfrender import logs
from hfrender.color import shown

log = logging.getLogger(__name__)

NOBODY = "\U0010fffd"  # in no font: drawn as the .notdef glyph
CHECK_PX = 48  # the size the glyphs are compared at (fine enough to tell glyphs apart)
NAMED = 8  # characters named in a warning (then "and N more")
_SAID: set = set()  # (font, stamp, character) said once a process
# the scripts Pillow's basic layout draws wrong (the first word of a character's Unicode
# name): right to left, or letters joined, reordered or stacked by the font's rules
SHAPED = frozenset("ARABIC HEBREW SYRIAC THAANA NKO DEVANAGARI BENGALI GURMUKHI GUJARATI "
                   "ORIYA TAMIL TELUGU KANNADA MALAYALAM SINHALA THAI LAO TIBETAN MYANMAR "
                   "KHMER".split())


def font_face(path: str | None, size: int) -> Any:
    """Pillow's font: the file at ``path``, or None: Pillow's own (FreeType, embedded)."""
    from PIL import ImageFont

    if path is None:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size)


def installed_font(name: Path) -> Path | None:
    """The font file a bare name (``DejaVuSans.ttf``, no folder) names in the system's
    font folders, found as Pillow finds it (Linux: ``$XDG_DATA_HOME/fonts``, then each of
    ``$XDG_DATA_DIRS``' ``fonts``, searched down; macOS' and Windows' Fonts folders), or
    None."""
    from PIL import ImageFont

    if name.is_absolute() or len(name.parts) != 1:
        return None
    try:
        return Path(ImageFont.truetype(str(name), CHECK_PX).path).resolve()
    except OSError:
        return None


STYLES = ("Regular", "Bold", "Italic", "Oblique", "Light", "Medium", "Thin", "Black",
          "Condensed", "SemiCondensed", "SemiBold", "ExtraBold", "ExtraLight")  # last words


FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc", ".woff", ".woff2", ".pfb", ".dfont")


def family_files(name: Path) -> list[str]:
    """The file names a font family's name, as manim takes it (``"DejaVu Sans"``, ``"Noto
    Sans Bold"``), most often has, in turn: its words run together, its style words after
    a hyphen (``DejaVuSans``, ``NotoSans-Bold``), a width word with the family's
    (``"DejaVu Sans Condensed Bold"``: ``DejaVuSansCondensed-Bold``, a review: was looked
    for as ``DejaVuSans-CondensedBold`` alone); none for a name that is no family's (one
    word, a file's suffix: ``.ttf``, ``.ttc``..., a folder)."""
    words = str(name).split()
    if len(name.parts) != 1 or len(words) < 2 or name.suffix.lower() in FONT_SUFFIXES:
        return []  # (a dot alone is no file's: "Mr. Dafoe", "Font Awesome 6.5 Free")
    styles = {s.capitalize() for s in STYLES}
    style = []
    while len(words) > 1 and words[-1].capitalize() in styles:
        style.insert(0, words.pop())
    family = "".join(words)
    if not style:
        return [family, f"{family}-Regular"]
    return [family + "".join(style[:k]) + ("-" + "".join(style[k:]) if k < len(style) else "")
            for k in range(len(style) + 1)]


def installed_family(name: Path) -> Path | None:
    """:func:`installed_font` of the first of :func:`family_files` installed; None where
    none is or ``name`` is no family's."""
    return next((f for f in map(installed_font, map(Path, family_files(name)))
                 if f is not None), None)


@lru_cache(maxsize=16)
def _notdef(font: str | None, stamp: tuple) -> tuple:
    face = font_face(font, CHECK_PX)
    mask = face.getmask(NOBODY)
    return face, (mask.size, bytes(mask))


@lru_cache(maxsize=4096)
def _lacks(font: str | None, stamp: tuple, char: str) -> bool:
    face, notdef = _notdef(font, stamp)
    try:
        mask = face.getmask(char)
    except (OSError, RuntimeError, ValueError):  # (not drawn alone in complex layout)
        return False
    return (mask.size, bytes(mask)) == notdef


@lru_cache(maxsize=256)
def missing(text: str, font: str | None = None, stamp: tuple = ()) -> tuple[str, ...]:
    """The characters of ``text`` (lines apart: its line ends aside) that ``font`` (a
    resolved file, or None: Pillow's) has no glyph for, in the order they come."""
    chars = dict.fromkeys(c for c in text if c not in "\r\n")
    return tuple(c for c in chars if _lacks(font, stamp, c))


def say_missing(text: str, font: str | None = None, stamp: tuple = ()) -> None:
    """One warning naming ``text``, the characters ``font`` lacks for it and the font, and
    what to give; each character once a process and font (a counter's text, new each
    frame, said once), none while the log is silenced (said where it is drawn)."""
    lacking = missing(text, font, stamp)
    new = [c for c in lacking if (font, stamp, c) not in _SAID]
    if not new or logs.is_silenced():
        return
    _SAID.update((font, stamp, c) for c in new)
    named = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in new[:NAMED])
    more = f" and {len(new) - NAMED} more" if len(new) > NAMED else ""
    whose = ("Pillow's embedded font (font=None: ASCII and a little punctuation)"
             if font is None else f"the font {Path(font).name}")
    controls = [c for c in new if unicodedata.category(c) == "Cc"]
    advice = [f"write spaces for {', '.join(map(repr, controls))}: no font draws a control "
              "character"] if controls else []
    if len(controls) < len(new):
        advice.append("give font= a .ttf or .otf that has them" + (
            " (DejaVuSans.ttf has accented Latin, Greek, Cyrillic, Hebrew and Arabic)"
            if font is None else ""))
    log.warning("Text %s: %s has no glyph for %s%s: drawn as the font's missing-glyph box; "
                "%s", shown(text), whose, named, more, "; ".join(advice))


def _raqm() -> bool:
    from PIL import features

    return bool(features.check_feature("raqm"))


@lru_cache(maxsize=256)
def _scripts(text: str) -> tuple[str, ...]:
    """The scripts of ``text`` that need complex layout (:data:`SHAPED`), sorted: found
    once a text (its raster is asked for several times a sub-frame)."""
    return tuple(sorted({w for w in (unicodedata.name(c, "").split(" ")[0] for c in text)
                         if w in SHAPED}))


def say_unshaped(text: str, font: str | None) -> None:
    """One warning where ``text`` holds a script that needs complex layout (right to left,
    joined or stacked letters) and Pillow here has none: a font file's Hebrew drawn left
    to right without a word. Each script said once a process and font; Pillow's embedded font has no
    such letters (:func:`say_missing` names them)."""
    if font is None:
        return
    new = [w for w in _scripts(text) if (font, "layout", w) not in _SAID]
    if not new or logs.is_silenced() or _raqm():
        return
    _SAID.update((font, "layout", w) for w in new)
    log.warning("Text %s: its %s letters are drawn without complex text layout (Pillow's "
                "raqm is not available here: it needs the system's FriBiDi), so right-to-left "
                "text runs left to right and joined letters are drawn apart; install "
                "libfribidi0 (apt) and render again", shown(text),
                " and ".join(w.title() for w in new))
