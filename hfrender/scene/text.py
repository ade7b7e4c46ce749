"""Text in a scene: ``hf.Text("Hello", height=0.3)``, a flat plate of glyphs in the object's
local x/y plane, facing +z (manim's Text, Blender's text object; not TeX).

The text is rasterised once per (text, font, align) with Pillow into a coverage texture
(composed from glyphs Pillow drew once each where that gives the same pixels: a
counter's new string, :mod:`.glyph_tiles`), :data:`RASTER_PX` pixels to the font's size
(mipmapped where drawn smaller), on a quad
whose size is that raster's (where it is drawn larger: a raster 2, 4, ... times finer on
the same quad, :func:`raster_at`, as :mod:`hfrender.renderer.text` chooses): ``height`` is
the cap height, the height of a capital letter (an "I" is ``height`` metres tall), and
lines follow at the font's own line spacing. The position is the middle of the block of
lines: between the first line's cap top and the last line's baseline, and across its ink
by ``align`` ("center": the middle, "left": its left edge, "right": its right edge; lines
align to one another likewise).
The default font is the one embedded in Pillow (the same pixels on every machine: ASCII
and a little punctuation; characters a font lacks are said once, :mod:`.glyphs`); a
``font="my.ttf"`` file is looked for beside the scene, then in the current folder, and is
one of the scene's files (:func:`hfrender.scene.sources.asset_files`).

Drawn by :mod:`hfrender.renderer.text`: its coverage times its opacity is its alpha,
blended over what lies behind it with the translucent objects, back to front; it writes
depth and velocity where it covers at least half a pixel.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from hfrender import heap
from hfrender.errors import InputError, InputTypeError
from hfrender.kept import Kept
from hfrender.scene import checks, glyph_tiles
from hfrender.scene.glyphs import (
    family_files,
    font_face,
    installed_family,
    installed_font,
    say_missing,
    say_unshaped,
)
from hfrender.scene.meshes import VERTEX
from hfrender.scene.nodes import placement
from hfrender.scene.objects import _CHECKS, Object3D

RASTER_PX = 128  # the font's size in the raster, pixels (its cap height some 90 of them)
PAD = 8  # empty pixels around the glyphs: smooth edges, mipmaps bleeding nothing in
LEVELS_KEPT = 8  # finer rasters kept (raster_at): some megapixels each
# the rasters kept between draws and renders (a process's titles and labels, drawn again
# each sub-frame), at most this many and these bytes, the least recently drawn out first
# (as the GL uploads, hfrender.renderer.text.KEPT_PIXELS); was 256 of any size: a
# 4-line caption changing each sub-frame held 900 MB after a 1 s render, to the process's end
RASTERS_KEPT = 256
RASTERS_BYTES = 128 << 20
_rasters = Kept(RASTERS_BYTES, RASTERS_KEPT)  # the newest last
# every this many rasters drawn anew, the heap's freed pages go back to the system: a text
# new each sub-frame grew a long render ~30 KB a sub-frame, its freed blocks resident
TRIM_EVERY = 16
_made = heap.Every(TRIM_EVERY)
ALIGNS = ("left", "center", "right")
GEOMETRY = "text"


@dataclass(frozen=True, eq=False)
class Raster:
    """A text's glyphs as drawn: coverage and the quad that carries it, in raster pixels
    about the text's anchor (the object's origin), y up."""

    key: str  # names its upload (hfrender.renderer.text)
    coverage: np.ndarray  # (H, W) uint8, 0..255, the top row first
    vertices: np.ndarray  # (4,) VERTEX: the quad's corners, UVs over the whole raster
    bounds: np.ndarray  # (2, 3): the quad's min and max corners
    cap: float  # the font's cap height in pixels: 1 m of height is this many pixels

    @property
    def nbytes(self) -> int:
        return self.coverage.nbytes + self.vertices.nbytes

    @cached_property
    def ink(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """((x0, y0), (x1, y1)): the box of its inked pixels in its quad's units (where it
        has none, no text: a point at its anchor, (0, 0)); kept with it (was: in a cache of
        its own that held 256 rasters past the ones kept, a laid-out caption's)."""
        rows = np.flatnonzero(self.coverage.any(axis=1))
        cols = np.flatnonzero(self.coverage.any(axis=0))
        if not len(rows):
            return (0.0, 0.0), (0.0, 0.0)
        left, top = float(self.bounds[0, 0]), float(self.bounds[1, 1])  # (rows run down)
        return ((left + cols[0], top - rows[-1] - 1), (left + cols[-1] + 1, top - rows[0]))


def is_text(geometry: str) -> bool:
    return geometry == GEOMETRY


def raster(text: str, font: str | None = None, align: str = "center",
           stamp: tuple = ()) -> Raster:
    """The glyphs of ``text`` in ``font`` (a resolved file, or None: Pillow's), its lines
    aligned by ``align``, at :data:`RASTER_PX`; ``stamp`` (the file's time and size) makes
    a changed file drawn again. Characters the font lacks are said once
    (:func:`hfrender.scene.glyphs.say_missing`), and a script Pillow cannot lay out here
    (:func:`hfrender.scene.glyphs.say_unshaped`)."""
    say_missing(text, font, stamp)
    say_unshaped(text, font)
    return _raster(text, font, align, stamp)


def _raster(text: str, font: str | None, align: str, stamp: tuple) -> Raster:
    """The level-0 raster, kept (:data:`RASTERS_KEPT`, :data:`RASTERS_BYTES`)."""
    key = (text, font, align, stamp)
    if (kept := _rasters.get(key)) is not None:
        return kept
    _made.tick()  # (hfrender.heap: some 0.1 ms; drawing a raster some 5 ms)
    return _rasters.put(key, _drawn(text, font, align, stamp, 0))


@lru_cache(maxsize=LEVELS_KEPT)
def raster_at(level: int, text: str, font: str | None = None, align: str = "center",
              stamp: tuple = ()) -> Raster:
    """:func:`raster` drawn ``2 ** level`` times finer (level >= 1), its quad in
    :func:`raster`'s pixels (by the font's size: its glyphs within a level-0 pixel of
    that raster's, whose cap height is rounded to a pixel) and its ``cap`` that raster's,
    so the model matrix and the bounds stay those of level 0 whatever level is drawn."""
    base = raster(text, font, align, stamp)
    return replace(_drawn(text, font, align, stamp, level), cap=base.cap)


def _drawn(text: str, font: str | None, align: str, stamp: tuple, level: int) -> Raster:
    """The raster of ``level``: the font's size ``RASTER_PX << level``, its quad in
    level 0's pixels (``2 ** level`` of its own to one); its lines drawn from glyph tiles
    where they draw as Pillow does (:mod:`.glyph_tiles`: the same pixels, a counter's new
    string some 5 times cheaper), else by Pillow."""
    size, pad = RASTER_PX << level, PAD << level
    face = glyph_tiles.face(font, size, stamp)
    lines = _lines(text)
    ascent, descent = face.getmetrics()
    cap = glyph_tiles.cap(font, size, stamp)
    widths = [face.getlength(line) for line in lines]
    wide, pitch = max(widths), ascent + descent
    offsets = [{"left": 0.0, "center": (wide - w) / 2, "right": wide - w}[align] for w in widths]
    left, top, right, bottom = (pad + m for m in _overhang(face, lines, offsets, wide))
    coverage = glyph_tiles.draw_lines((font, size, stamp), (
        int(np.ceil(wide)) + left + right, top + bottom + len(lines) * pitch), [
        (line, left + x, top + ascent + i * pitch)
        for i, (line, x) in enumerate(zip(lines, offsets, strict=True))])
    key = hashlib.sha1(repr((text, font, align, stamp)).encode()).hexdigest()[:20]
    return _placed(level_key(key, level), coverage, align, cap, top + ascent,
                   top + ascent + (len(lines) - 1) * pitch, 0.5 ** level)


def _overhang(face: Any, lines: list[str], offsets: list[float], wide: float) -> list[int]:
    """Pixels (left, top, right, bottom) the raster grows by beyond its :data:`PAD` where
    ink reaches past the lines' advances, the first line's ascent or the last line's
    descent (a Vietnamese "Ấ"'s stacked accents, 13 px over DejaVu Sans's ascent at
    128 px: were cut off), so that half a pad at least stays empty."""
    boxes = [face.getbbox(line, anchor="ls") for line in lines]
    ascent, descent = face.getmetrics()
    over = (max(-x - b[0] for x, b in zip(offsets, boxes, strict=True)), -boxes[0][1] - ascent,
            max(x + b[2] for x, b in zip(offsets, boxes, strict=True)) - wide,
            boxes[-1][3] - descent)
    half = (PAD // 2) * face.size // RASTER_PX  # (at this level's size)
    return [max(0, int(np.ceil(v)) - half) for v in over]


def _lines(text: str) -> list[str]:
    """``text``'s lines: apart by "\\n", "\\r\\n" (a Windows file's) or "\\r" (Pillow draws
    a "\\r" as a missing glyph's box, or fails in complex layout)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def level_key(key: str, level: int) -> str:
    """The key of the raster of ``level`` of the text whose level-0 raster's key is
    ``key`` (the drawer finds an upload by it without making the raster again)."""
    return f"{key}@{level}" if level else key


def _placed(key: str, coverage: np.ndarray, align: str, cap: float, first: float,
            last: float, unit: float = 1.0) -> Raster:
    """The raster on a quad about its anchor: x its ink's middle, left or right edge by
    ``align``, y midway between the first line's cap top and the last line's baseline
    (rows ``first``, ``last``); its positions and cap in pixels ``unit`` times its own."""
    h, w = coverage.shape
    cols = np.flatnonzero(coverage.any(axis=0))
    left, right = (cols[0], cols[-1] + 1) if len(cols) else (w / 2, w / 2)
    x0 = {"left": left, "center": (left + right) / 2, "right": right}[align]
    y0 = (first - cap + last) / 2
    v = np.zeros(4, VERTEX)
    corners = [(0, h), (w, h), (w, 0), (0, 0)]  # pixel (column, row): bottom left first
    v["position"] = [((c - x0) * unit, (y0 - r) * unit, 0.0) for c, r in corners]
    v["normal"] = (0.0, 0.0, 1.0)
    v["uv"] = [(c / w, 1.0 - r / h) for c, r in corners]  # the texture's bottom row first
    v["color"] = 1.0
    p = v["position"].astype(np.float64)
    return Raster(key, coverage, v, np.stack([p.min(0), p.max(0)]), cap * unit)


@dataclass(eq=False)
class Text(Object3D):
    """Text: ``hf.Text("Hello", height=0.3, color="white", align="center", font=None)``,
    ``"\\n"`` between lines; placed, coloured, lit and faded as the other objects
    (``position``, ``rotation``, ``scale``, ``color``, ``emissive``, ``shader``,
    ``visible``, ``opacity``); ``face_camera=True`` turns it to the camera in every
    sub-frame (:meth:`world_matrix`). See the module's text for its size and anchor."""

    text: str = ""
    height: float = 0.3  # the cap height, metres
    font: str | None = None  # a .ttf/.otf beside the scene, an installed one by its file
    #                           or family name ("DejaVu Sans"); None: Pillow's own
    align: str = "center"
    color: tuple = (1.0, 1.0, 1.0)
    face_camera: bool = False  # turned each sub-frame as the camera is (a billboard)

    geometry = GEOMETRY

    @classmethod
    def value_checks(cls) -> dict:
        return _TEXT_CHECKS

    def __setattr__(self, name: str, value: object) -> None:
        if name == "font":  # looked for where the scene's line is (None: Pillow's own)
            found = None if value is None else _font_file(self._label(name), value)
            super().__setattr__("_font_file", found)
            if found is not None:  # every font it was given: update(t) may switch them
                self.__dict__.setdefault("_fonts", {})[found[0]] = None
        super().__setattr__(name, value)

    def raster(self, level: int = 0) -> Raster:
        """Its glyphs as they are drawn (once per text, font, alignment and level: 2 **
        ``level`` times :data:`RASTER_PX`, :func:`raster_at`)."""
        found = getattr(self, "_font_file", None)
        args = (self.text, None, self.align) if found is None else (
            self.text, found[0], self.align, found[1:])
        return raster(*args) if level <= 0 else raster_at(level, *args)

    def world_matrix(self) -> np.ndarray:
        """:meth:`Object3D.world_matrix`; with ``face_camera``, its turn the camera's of its
        scene as it is now (its x along the picture's right, y up, facing the eye: the
        image plane's, whatever the lens offset), then its own ``rotation`` in that frame;
        its place its parents' frame times its ``position``, its size its ``scale`` times
        the length of its parents' axes. Every reader of the matrix (the drawing, velocity,
        sorting, raster level, in-view checks) sees this one. Not yet added: as without."""
        m = super().world_matrix()
        scene = self.__dict__.get("_added_to")
        if not self.face_camera or scene is None:
            return m
        right, up, forward = scene.camera.basis()
        frame = self._parents_frame()
        sizes = 1.0 if frame is None else np.linalg.norm(frame[:3, :3], axis=0)
        own = placement((0.0, 0.0, 0.0), self.rotation, self._matrix_scale())[:3, :3]
        m[:3, :3] = np.column_stack([right, up, -forward]) @ own * sizes
        return m

    def _matrix_scale(self) -> float | tuple:
        k = float(self.height) / self.raster().cap  # metres a raster pixel
        s = self.scale
        return s * k if isinstance(s, float | int) else tuple(float(v) * k for v in s)

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3): the quad's min and max corners in raster pixels (the model matrix makes
        them metres), for the scene's checks."""
        return self.raster().bounds.copy()

    def files(self) -> list[Path]:
        """The font files it reads (the scene's files count them): each it was given so
        far, a font update(t) sets later in the render too."""
        return [Path(f) for f in getattr(self, "_fonts", {})]


def _init(self: Text, *args: Any, **fields: Any) -> None:
    """``hf.Text("Hello", ...)``: the text first (the other objects' first field is their
    position)."""
    if len(args) > 1:
        raise InputTypeError(f"hf.Text({', '.join(map(repr, args))}): give the text, then "
                             "the rest by keyword: hf.Text('Hello', position=(0, 1, 0))")
    if args:
        if "text" in fields:
            raise InputTypeError("hf.Text: the text is given twice (first and as text=)")
        fields["text"] = args[0]
    _GENERATED(self, **fields)


_GENERATED = Text.__init__
_init.__qualname__ = _GENERATED.__qualname__
Text.__init__ = _init  # type: ignore[method-assign]


def _text(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"{what}={checks.shown(value)} must be a str (lines apart by "
                             f"'\\n'): str(...) or f'{{...:.2f}}' for a number")
    return value


def _font_file(what: str, value: object) -> tuple:
    """(the resolved file, its st_mtime_ns, st_size) of a font named by the scene: beside
    the scene's file (the line setting it), then in the current folder, then (a bare
    name) in the system's font folders."""
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise InputError(f"{what}={checks.shown(value)} must be a font file's path (a .ttf "
                         "or .otf beside the scene) or None for Pillow's own font")
    p = Path(value).expanduser()
    line = checks.caller_line()
    places = [p.resolve()] if p.is_absolute() else list(dict.fromkeys(
        f.resolve() for f in [*([Path(line.rsplit(":", 1)[0]).parent / p] if line else []),
                              Path.cwd() / p]))
    found = next((f for f in places if f.is_file()), None) or installed_font(p) \
        or installed_family(p)
    if found is None:
        raise InputError(f"{what}={str(value)!r}: font file not found (looked for "
                         f"{' and '.join(map(str, places))}{_not_installed(p)}")
    try:
        font_face(str(found), RASTER_PX)
    except OSError as exc:
        raise InputError(f"{what}={str(value)!r}: {found} is not a font Pillow can read "
                         f"({exc}): give a .ttf or .otf file") from None
    stat = found.stat()
    return (str(found), stat.st_mtime_ns, stat.st_size)


def _not_installed(p: Path) -> str:
    """The end of "font file not found": where a bare name was looked for, and what font=
    takes where the name is a family's (manim's font="Comic Sans MS")."""
    if len(p.parts) > 1:
        return ")"
    family = family_files(p)
    if not family:
        return ", and by that name in the system's font folders)"
    return (f", and by that name and as {' or '.join(family)} in the system's font folders); "
            "font= takes a font file, or a family's name as its file is named: a .ttf or "
            ".otf beside the scene, or an installed one's file name (on Linux fc-list lists "
            "them: font='DejaVuSans.ttf')")


_TEXT_CHECKS = {
    **_CHECKS,
    "text": _text,
    "height": lambda what, v: checks.drawable(what, v, [checks.finite(what, v, low=0.0)])
    or float(v),
    "align": lambda what, v: checks.choice(what, v, ALIGNS),
    "face_camera": checks.flag,
}
