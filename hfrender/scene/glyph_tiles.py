"""A text's lines drawn from glyph tiles: each character of a font at a size rasterised
once, a new string's coverage its glyphs' tiles laid where Pillow lays them (its
advances and kerning pairs, asked of the font once each), blended as Pillow blends a
glyph over the ones before it (``src + (1 - src) * dst`` in 8 bits, rounded as Pillow
rounds). The same pixels as Pillow's whole-string drawing (every pixel equal; the tests
compare them on seeded random strings), some 5 times cheaper: a counter new every
sub-frame (``f"frame {n:05d}"``) was rasterised whole at 128 px each time.

Only for fonts Pillow lays out glyph by glyph (its basic layout: the embedded default
font, or a font file where Pillow has no raqm); a font laid out by raqm (HarfBuzz:
ligatures, marks, contextual forms) is drawn by Pillow whole, as is any font whose probe
string does not come out equal (:func:`trusted`, once per font and size).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hfrender.kept import Kept
from hfrender.scene.glyphs import font_face

TILE_BYTES = 32 << 20  # tiles kept, all fonts and sizes together (a 128 px glyph ~6 KB)
TILES_KEPT = 4096  # and at most this many glyphs and kerning pairs each
SIZE_MOST = 512  # px: a font larger drawn whole (a 4,096 px glyph some 8 MB; a level-2 title)
PROBE = "AVWaTo.fi,Ty 0123 {j}|Q@"  # overlapping boxes, kerning pairs, descenders
_tiles = Kept(TILE_BYTES, TILES_KEPT)
_pairs = Kept(TILE_BYTES, TILES_KEPT)


@dataclass(frozen=True)
class Tile:
    """A glyph as Pillow draws it alone: ``coverage`` (None: no ink) whose top left lies
    (``dx``, ``dy``) pixels from the pen on the baseline, and its advance (1/64 px)."""

    coverage: np.ndarray | None
    dx: int
    dy: int
    advance: int

    @property
    def nbytes(self) -> int:
        return 64 if self.coverage is None else 64 + self.coverage.nbytes


@lru_cache(maxsize=16)
def face(font: str | None, size: int, stamp: tuple = ()) -> Any:
    """Pillow's font of ``font`` (None: its own) at ``size``, made once (``stamp``: the
    file's time and size, a changed file made again)."""
    return font_face(font, size)


@lru_cache(maxsize=16)
def cap(font: str | None, size: int, stamp: tuple = ()) -> float:
    """The font's cap height in pixels: an "H"'s, from the baseline."""
    return float(-face(font, size, stamp).getbbox("H", anchor="ls")[1])


def draw_lines(key: tuple, size: tuple[int, int], lines: list[tuple[str, float, int]]
               ) -> np.ndarray:
    """(H, W) uint8 coverage of ``size`` (W, H) with each (line, x, baseline row) drawn in
    the font of ``key`` ((font, size, stamp), :func:`face`) anchored left on its
    baseline, as Pillow's ``ImageDraw.text(..., anchor="ls")`` draws them."""
    return _composed(key, size, lines) if trusted(*key) else pillow_lines(face(*key), size,
                                                                          lines)


def _composed(key: tuple, size: tuple[int, int], lines: list[tuple[str, float, int]]
              ) -> np.ndarray:
    """:func:`draw_lines` by glyph tiles (:func:`compose`)."""
    out = np.zeros(size[::-1], np.uint8)
    for line, x, y in lines:
        compose(key, out, line, x, y)
    return out


def pillow_lines(font: Any, size: tuple[int, int], lines: list[tuple[str, float, int]]
                 ) -> np.ndarray:
    """:func:`draw_lines` by Pillow, each line drawn whole."""
    from PIL import Image, ImageDraw

    image = Image.new("L", size, 0)
    draw = ImageDraw.Draw(image)
    for line, x, y in lines:
        draw.text((x, y), line, fill=255, font=font, anchor="ls")
    return np.asarray(image, np.uint8)


@lru_cache(maxsize=64)
def trusted(font: str | None, size: int, stamp: tuple = ()) -> bool:
    """Whether glyph tiles draw this font as Pillow does: at most :data:`SIZE_MOST`, laid
    out glyph by glyph (not by raqm), and :data:`PROBE` composed equal to Pillow's drawing
    of it."""
    from PIL import ImageFont

    key = (font, size, stamp)
    if size > SIZE_MOST:
        return False
    f = face(*key)
    if getattr(f, "layout_engine", None) != ImageFont.Layout.BASIC:
        return False
    lines = [(PROBE, 5.25, size), (PROBE[::-1], 2.5, 2 * size)]
    shape = (int(f.getlength(PROBE)) + 10 + size, 3 * size)
    return bool(np.array_equal(_composed(key, shape, lines), pillow_lines(f, shape, lines)))


def compose(key: tuple, out: np.ndarray, line: str, x: float, y: int) -> None:
    """Lay ``line``'s glyph tiles into ``out`` from the pen at (``x``, baseline row ``y``):
    each at the pen rounded to a pixel, as Pillow places a glyph (its pen in 1/64 px,
    the fraction of ``x`` carried)."""
    whole = int(np.floor(x))
    pen, prev = round((x - whole) * 64), None
    for ch in line:
        if prev is not None:
            pen += kerning(key, prev, ch)
        tile = glyph(key, ch)
        if tile.coverage is not None:
            _place(out, tile.coverage, y + tile.dy, whole + ((pen + 32) >> 6) + tile.dx)
        pen += tile.advance
        prev = ch


def _place(out: np.ndarray, src: np.ndarray, row: int, col: int) -> None:
    """``src`` blended into ``out`` with its top left at (``row``, ``col``), what falls
    outside ``out`` cut off (as Pillow cuts a glyph at the image's edges)."""
    h, w = src.shape
    r0, c0 = max(row, 0), max(col, 0)
    r1, c1 = min(row + h, out.shape[0]), min(col + w, out.shape[1])
    if r1 > r0 and c1 > c0:
        _over(out[r0:r1, c0:c1], src[r0 - row:r1 - row, c0 - col:c1 - col])


def _over(region: np.ndarray, src: np.ndarray) -> None:
    """``src`` blended over ``region`` in place, as Pillow blends a glyph over another:
    where ``src`` has ink, ``src + dst * (255 - src) / 255`` rounded (its MULDIV255)."""
    if not region.any():
        region[...] = src
        return
    s, d = src.astype(np.uint32), region.astype(np.uint32)
    t = d * (255 - s) + 128
    over = np.minimum(s + (((t >> 8) + t) >> 8), 255)
    region[...] = np.where(s > 0, np.where(d > 0, over, s), d)


def glyph(key: tuple, ch: str) -> Tile:
    """The tile of ``ch`` in the font of ``key``, drawn once while kept."""
    if (kept := _tiles.get((key, ch))) is not None:
        return kept
    from PIL import Image, ImageDraw

    f = face(*key)
    left, top, right, bottom = f.getbbox(ch, anchor="ls")
    ox, oy = 2 - left, 2 - top  # (a margin: Pillow's box is its outline's, ink may pass it)
    image = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(image).text((ox, oy), ch, fill=255, font=f, anchor="ls")
    a = np.asarray(image, np.uint8)
    rows, cols = np.flatnonzero(a.any(axis=1)), np.flatnonzero(a.any(axis=0))
    advance = round(f.getlength(ch) * 64)
    tile = Tile(None, 0, 0, advance) if not len(rows) else Tile(
        a[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1].copy(), int(cols[0] - ox),
        int(rows[0] - oy), advance)
    return _tiles.put((key, ch), tile)


def kerning(key: tuple, a: str, b: str) -> int:
    """The pen's shift (1/64 px) between ``a`` and ``b`` past their advances, once."""
    if (kept := _pairs.get((key, a, b))) is not None:
        return int(kept)
    f = face(*key)
    shift = round(f.getlength(a + b) * 64) - glyph(key, a).advance - glyph(key, b).advance
    return int(_pairs.put((key, a, b), np.int32(shift)))


def kept_counts() -> tuple[int, int]:
    """(tiles, kerning pairs) kept now."""
    return len(_tiles), len(_pairs)
